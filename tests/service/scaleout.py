"""The harness of the scale-out tests (:mod:`.test_scaleout`): several ``cardcore serve``
processes on one PostgreSQL database, driven and checked from the outside only.

* :class:`Cluster` — N servers on ports chosen up front (a restarted server comes back on the
  same port, so the clients' channels reconnect to it), stopped on exit whatever happened.
* :class:`Failover` — :class:`cardcore_client.Client` objects, one per server, behind one call
  that moves on to the next server when a call fails ``UNAVAILABLE``/``DEADLINE_EXCEEDED`` after
  the client's own retries (a submit keeps its ``action_id``); :class:`CallStats` counts every
  attempt, so the client's internal retries show up in the numbers.
* :class:`Traffic` — game "slots" (a slot's game is replaced by a fresh one with the same spec when
  it ends, until the clock runs out, so the contention lasts the whole run), one client loop per
  human seat per server (view → a random legal command → submit with a fresh ``action_id`` →
  now and then the same ``action_id`` again through another server), one spectator stream per
  game per server from ``seq`` 0. Every answer is kept (:class:`Answer`).
* :class:`PgControl` — restarts the local PostgreSQL cluster (``pg_ctlcluster``).
* :func:`read_store` — the rows of ``games``, ``entries`` and ``rejections`` (the layout of
  ``services/cardcore_server/store/postgres/backend.py``), read straight from PostgreSQL.
* The checks return lists of problems (strings) instead of asserting, so one run reports every
  property that fails: :func:`check_log` (hash chain, ``seq``, ``at_ms``,
  :func:`cardcore.log.verify` and a replay from the stored seed and salt compared line by line),
  :func:`check_answers`, :func:`check_streams`, :func:`check_owed_piles`; :func:`ks_statistic`
  for the timing test. :func:`play` runs it all; :func:`dump` leaves every answer and stream in
  a JSON file next to the servers' logs for the post-mortem.

:class:`CountingClient` overrides ``Client._call`` (the one place every unary call and retry
goes through) to count attempts: if that private method changes, only it needs adjusting.
Only 127.0.0.1; every loop is bounded in count and in time.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import math
import os
import random
import shutil
import socket
import subprocess
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Literal, Self, TypeVar
from urllib.parse import urlsplit

import grpc
import pytest

from cardcore import codec, registry
from cardcore import log as clog
from cardcore.bots import ReactionBot, bot_seed, play_out
from cardcore.errors import CardcoreError, Rejected
from cardcore.log import LogLine
from cardcore.match import Match
from cardcore.rng import derive_deal_seed
from cardcore_client import CallError, Client, CreatedGame, Rejection, SubmitResult, View

from .helpers import ServerProcess

T = TypeVar("T")

DURATION_S: Final = float(os.environ.get("CARDCORE_SCALEOUT_S", "15"))
"""How long the clients play (``CARDCORE_SCALEOUT_S`` overrides)."""
SERVERS: Final = int(os.environ.get("CARDCORE_SCALEOUT_SERVERS", "3"))
"""Servers of the contention tests (``CARDCORE_SCALEOUT_SERVERS=1`` checks the harness itself
against one server, where every property must hold)."""

CLIENT_ATTEMPTS: Final = 2
"""Attempts of one call on one server (the client's own retries) before failing over."""
ATTEMPT_TIMEOUT_S: Final = 2.5
FAILOVER_ROUNDS: Final = 4
"""Passes over every server before a call counts as failed everywhere."""
FAILOVER_BUDGET_S: Final = 15.0
"""No new attempt after this long: the call counts as failed everywhere."""
FAILOVER_STATUSES: Final = frozenset({"UNAVAILABLE", "DEADLINE_EXCEEDED"})

MAX_ACTIONS_PER_CLIENT: Final = 20_000
MAX_GENERATIONS: Final = 100
"""Games one slot may go through (a slot renews its game when it ends)."""
RENEW_MARGIN_S: Final = 1.0
"""No new game for a slot this close to the end of the clock."""
STREAM_RECONNECTS: Final = 10_000

SLAP_P: Final = 0.2
"""Chance of a slap (mostly a false one) when it is legal and the pile is not slappable."""
SLAPPABLE_SLAP_P: Final = 0.6
"""Chance of a slap when the view says the pile is slappable: several seats race for it."""
RESUBMIT_P: Final = 0.2
"""Chance of resending an answered action (same ``action_id`` and command) to another server."""
IDLE_S: Final = (0.01, 0.04)
"""Pause of a client with nothing to do (no legal command it wants)."""

DEFAULT_COLLECT_MS: Final = 2000
"""The server's default ERS collect window (``--collect-window-ms``)."""

SETTLE_QUIET_S: Final = 3.0
"""The games count as settled when no row changed for this long (longer than the 2 s timer)."""
SETTLE_MAX_S: Final = 30.0
CATCH_UP_MAX_S: Final = 15.0
"""How long the streams get to show every stored entry once the games settled."""


# --------------------------------------------------------------------------- servers


def free_ports(n: int) -> list[int]:
    """``n`` distinct free TCP ports on 127.0.0.1 (bound together, then released)."""
    socks: list[socket.socket] = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [int(s.getsockname()[1]) for s in socks]
    finally:
        for s in socks:
            s.close()


class Cluster:
    """``n`` servers on one database, each on a port of its own fixed up front (REST off)."""

    def __init__(
        self,
        tmp: Path,
        n: int,
        db: str,
        *args: str,
        log_level: str = "warning",
        name: str = "srv",
    ) -> None:
        self.servers: list[ServerProcess] = []
        for i, port in enumerate(free_ports(n)):
            srv = ServerProcess(
                tmp,
                "--allow-client-seed",
                "--no-rest",
                "--log-level",
                log_level,
                *args,
                name=f"{name}{i}",
                db=db,
            )
            srv.port = port  # start() passes --port self.port: a restart keeps the port
            self.servers.append(srv)
        self.exit_codes: dict[int, int | None] = {}

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop_all()

    @property
    def targets(self) -> list[str]:
        return [s.target for s in self.servers]

    def start(self, which: Iterable[int] | None = None) -> None:
        """Start the servers (all by default) in parallel; raises if one does not come up."""
        idx = list(range(len(self.servers)) if which is None else which)
        with ThreadPoolExecutor(max(len(idx), 1)) as pool:
            for fut in [pool.submit(self.servers[i].start) for i in idx]:
                fut.result()

    def kill(self, i: int) -> None:
        self.servers[i].kill()

    def restart(self, i: int, attempts: int = 5) -> None:
        """Start server ``i`` again on its port; retried (the database may still be coming up)."""
        for attempt in range(attempts):
            try:
                self.servers[i].start()
                return
            except RuntimeError:
                if attempt == attempts - 1:
                    raise
                time.sleep(1.0)

    def stop_all(self) -> dict[int, int | None]:
        """SIGTERM every running server and wait; the exit codes of those that were running."""
        with ThreadPoolExecutor(max(len(self.servers), 1)) as pool:
            futures = {
                i: pool.submit(s.stop) for i, s in enumerate(self.servers) if s.proc is not None
            }
            for i, fut in futures.items():
                self.exit_codes[i] = fut.result()
        return dict(self.exit_codes)

    def log_lines(self) -> Iterator[dict[str, Any]]:
        """Every JSON log line of every server (stderr)."""
        for s in self.servers:
            for raw in s.log_text().splitlines():
                with contextlib.suppress(ValueError):
                    obj = json.loads(raw)
                    if isinstance(obj, dict):
                        yield obj

    def count_events(self, *fragments: str) -> Counter[str]:
        """Log lines whose ``event`` contains one of ``fragments``, by event."""
        out: Counter[str] = Counter()
        for line in self.log_lines():
            event = str(line.get("event", ""))
            if any(f in event for f in fragments):
                out[event] += 1
        return out


# --------------------------------------------------------------------------- PostgreSQL control


@dataclass(frozen=True, slots=True)
class PgControl:
    """The local PostgreSQL cluster behind a URL (Debian's ``pg_ctlcluster``)."""

    version: str
    cluster: str
    port: int

    def restart(self, mode: Literal["fast", "immediate"]) -> float:
        """``pg_ctlcluster <version> <cluster> restart -m <mode>``; the seconds it took."""
        t0 = time.monotonic()
        subprocess.run(
            ["pg_ctlcluster", self.version, self.cluster, "restart", "-m", mode],
            check=True,
            capture_output=True,
            timeout=120,
        )
        return time.monotonic() - t0


def find_pg_control(url: str) -> PgControl | str:
    """The cluster serving ``url``, or why it cannot be restarted from here."""
    parts = urlsplit(url)
    if parts.hostname not in ("127.0.0.1", "localhost", "::1"):
        return f"PostgreSQL at {parts.hostname} is not local"
    port = parts.port or 5432
    for tool in ("pg_lsclusters", "pg_ctlcluster"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    try:
        out = subprocess.run(
            ["pg_lsclusters", "--no-header"], check=True, capture_output=True, text=True, timeout=30
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        return f"pg_lsclusters failed: {exc}"
    for line in out.splitlines():
        cols = line.split()
        if len(cols) >= 5 and cols[2] == str(port):
            version, cluster, owner = cols[0], cols[1], cols[4]
            if os.geteuid() != 0 and _user() != owner:
                return f"not root and not {owner}: cannot restart PostgreSQL {version}/{cluster}"
            return PgControl(version, cluster, port)
    return f"no cluster in pg_lsclusters listens on port {port}"


def _user() -> str:
    import pwd

    return pwd.getpwuid(os.geteuid()).pw_name


def require_pg_control(url: str) -> PgControl:
    """:func:`find_pg_control`, skipping with the reason (failing instead when ``CI`` is set)."""
    found = find_pg_control(url)
    if isinstance(found, PgControl):
        return found
    message = f"cannot restart PostgreSQL for the fault test: {found}"
    if os.environ.get("CI"):
        pytest.fail(f"{message} — CI is set, so this fails instead of skipping", pytrace=False)
    pytest.skip(message)


# --------------------------------------------------------------------------- clients


@dataclass(slots=True)
class CallStats:
    """Unary calls (``calls``) and their attempts on the wire (the client retries inside)."""

    calls: int = 0
    attempts: int = 0
    failed_attempts: Counter[str] = field(default_factory=Counter)
    failovers: int = 0
    """Calls that failed on one server after its retries and moved on to another."""

    @property
    def retries(self) -> int:
        return self.attempts - self.calls


class _CountedMethod:
    """A stub method that counts each attempt :meth:`Client._call` makes with it."""

    def __init__(self, method: Any, stats: CallStats) -> None:
        self.method = method
        self.stats = stats

    async def __call__(self, request: Any, **kwargs: Any) -> Any:
        self.stats.attempts += 1
        try:
            return await self.method(request, **kwargs)
        except grpc.aio.AioRpcError as exc:
            self.stats.failed_attempts[exc.code().name] += 1
            raise


class CountingClient(Client):
    """A :class:`Client` whose every wire attempt is counted in ``stats``."""

    def __init__(self, target: str, stats: CallStats, **kwargs: Any) -> None:
        super().__init__(target, **kwargs)
        self.stats = stats

    async def _call(self, method: Any, request: Any, metadata: Sequence[tuple[str, str]]) -> Any:
        self.stats.calls += 1
        return await super()._call(_CountedMethod(method, self.stats), request, metadata)


class AllServersFailed(Exception):
    """Every server failed the call (``UNAVAILABLE``/``DEADLINE_EXCEEDED``) after retries."""

    def __init__(self, errors: list[tuple[int, CallError]]) -> None:
        last = errors[-1][1] if errors else None
        super().__init__(f"{len(errors)} failed attempts, last: {last}")
        self.errors = errors


class Failover:
    """One client per server; :meth:`call` tries the preferred server first, then the others."""

    def __init__(self, targets: Sequence[str], stats: CallStats | None = None) -> None:
        self.stats = stats or CallStats()
        self.clients = [
            CountingClient(
                t, self.stats, attempts=CLIENT_ATTEMPTS, attempt_timeout_s=ATTEMPT_TIMEOUT_S
            )
            for t in targets
        ]

    def order(self, prefer: int, avoid: int | None = None) -> list[int]:
        n = len(self.clients)
        out = [(prefer + k) % n for k in range(n)]
        if avoid is not None and n > 1 and avoid in out:
            out.remove(avoid)
            out.append(avoid)  # only when every other server failed
        return out

    async def call(
        self,
        fn: Callable[[Client], Awaitable[T]],
        *,
        prefer: int,
        avoid: int | None = None,
        failed: list[tuple[int, CallError]] | None = None,
    ) -> tuple[int, T | CallError]:
        """``(server, result)`` — the result may be a :class:`CallError` the server answered
        (a :class:`Rejection`, ``INVALID_ARGUMENT``…); raises :class:`AllServersFailed`.
        ``failed`` collects ``(server, error)`` of each server that failed it (after retries)."""
        start = time.monotonic()
        errors: list[tuple[int, CallError]] = [] if failed is None else failed
        backoff = 0.1
        for _ in range(FAILOVER_ROUNDS):
            for i in self.order(prefer, avoid):
                if time.monotonic() - start > FAILOVER_BUDGET_S:
                    raise AllServersFailed(errors)
                try:
                    return i, await fn(self.clients[i])
                except CallError as exc:
                    if isinstance(exc, Rejection) or exc.status not in FAILOVER_STATUSES:
                        return i, exc
                    errors.append((i, exc))
                    self.stats.failovers += 1
            await asyncio.sleep(backoff)
            backoff *= 2
        raise AllServersFailed(errors)

    async def close(self) -> None:
        for c in self.clients:
            await c.close()


# --------------------------------------------------------------------------- what is played


@dataclass(frozen=True)
class GameSpec:
    """A kind of game a slot plays, over and over."""

    name: str
    game: str
    seats: tuple[str, ...]
    """``"human"`` or a bot kind per seat."""
    event_limit: int
    timeouts_ms: dict[str, int] | None = None
    """None: the server's defaults (the ERS collect window)."""
    bot_delay_ms: tuple[int, int] | None = None
    client_skips: frozenset[str] = frozenset()
    """Command kinds the clients never send (left to the server's timers)."""
    seeds: tuple[int, ...] = ()
    """Seeds of the successive games (cycled); none: drawn from the run's seed."""

    @property
    def human_seats(self) -> tuple[int, ...]:
        return tuple(i for i, k in enumerate(self.seats) if k == "human")

    @property
    def bot_seats(self) -> tuple[int, ...]:
        return tuple(i for i, k in enumerate(self.seats) if k != "human")

    def timers(self) -> dict[str, int]:
        """The timed command kinds of this game and their delays (0 = off)."""
        kinds = {t.__name__ for t in registry.get_game(self.game).command_types}
        out = {"Collect": DEFAULT_COLLECT_MS} if "Collect" in kinds else {}
        out.update(self.timeouts_ms or {})
        return {k: v for k, v in out.items() if v > 0}


@dataclass
class GameRun:
    """One game a slot created."""

    spec: GameSpec
    slot: int
    generation: int
    seed: int
    created: CreatedGame
    created_at: float
    """Monotonic time just before the create call: ``created_at + at_ms / 1000`` is at or before
    an entry's real time (the server counts ``at_ms`` from its creation)."""
    over: bool = False

    def entry_time(self, at_ms: int) -> float:
        return self.created_at + at_ms / 1000

    @property
    def game_id(self) -> str:
        return self.created.game_id

    @property
    def label(self) -> str:
        return f"{self.spec.name}#{self.generation}"


@dataclass
class Slot:
    index: int
    spec: GameSpec
    runs: list[GameRun] = field(default_factory=list)
    closed: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def current(self) -> GameRun | None:
        return self.runs[-1] if self.runs else None


AnswerKind = Literal["accepted", "rejected", "unavailable", "error"]


@dataclass(frozen=True, slots=True)
class Answer:
    """What one submit got (after the failover): ``server`` is the one that answered."""

    game_id: str
    seat: int
    action_id: str
    command: str
    """The command's canonical JSON."""
    kind: AnswerKind
    server: int | None
    started: float
    ended: float
    seq: int | None = None
    code: str = ""
    """The ``RejectCode`` of a rejection, or ``status/reason`` of an error."""
    replayed: bool = False
    failed_on: int = 0
    """Servers that failed it (``UNAVAILABLE``/``DEADLINE_EXCEEDED`` after the client's own
    retries) before the answer: the failovers."""
    entry_seat: int | None = None
    entry_action: str | None = None
    resubmit: bool = False


@dataclass
class StreamRecord:
    """One spectator stream of one game on one server: ``(seq, seat, action, arrival)``."""

    game_id: str
    server: int
    seen: list[tuple[int, int | None, str, float]] = field(default_factory=list)
    error: str | None = None
    finished: bool = False
    """It ended with the game's outcome."""


@functools.cache
def canonical_command(game: str, text: str) -> str:
    """A command's canonical JSON as the engine encodes it (``{"kind":"Slap"}`` and
    ``{"kind":"Slap","expect_epoch":null,…}`` are the same command)."""
    g = registry.get_game(game)
    return codec.canonical_text(codec.encode(g.decode_command(json.loads(text))))


class Traffic:
    """The clients and streams of one run (see the module docstring)."""

    def __init__(
        self,
        targets: Sequence[str],
        specs: Sequence[GameSpec],
        *,
        seed: int,
        duration_s: float,
    ) -> None:
        self.n = len(targets)
        self.failover = Failover(targets)
        self.slots = [Slot(i, s) for i, s in enumerate(specs)]
        self.rng = random.Random(seed)
        self.seed = seed
        self.duration_s = duration_s
        self.t0 = 0.0
        self.deadline = 0.0
        self.answers: list[Answer] = []
        self.resubmits = 0
        self.resubmit_mismatches: list[str] = []
        self.resubmit_unavailable = 0
        self.streams: list[StreamRecord] = []
        self.harness_errors: list[str] = []
        self.view_errors: Counter[str] = Counter()
        self._stream_tasks: list[asyncio.Task[None]] = []
        self._loops: list[asyncio.Task[None]] = []

    # ------------------------------------------------------------------ games

    @property
    def runs(self) -> list[GameRun]:
        return [r for s in self.slots for r in s.runs]

    def _seed_for(self, slot: Slot) -> int:
        gen = len(slot.runs)
        if slot.spec.seeds:
            return slot.spec.seeds[gen % len(slot.spec.seeds)]
        return random.Random(f"{self.seed}/{slot.index}/{gen}").getrandbits(63)

    async def _create(self, slot: Slot) -> None:
        spec = slot.spec
        seed = self._seed_for(slot)

        async def create(c: Client) -> CreatedGame:
            return await c.create_game(
                spec.game,
                list(spec.seats),
                seed=seed,
                event_limit=spec.event_limit,
                timeouts_ms=spec.timeouts_ms,
                bot_delay_ms=spec.bot_delay_ms,
            )

        for _ in range(3):
            requested = time.monotonic()
            try:
                _, created = await self.failover.call(
                    create, prefer=(slot.index + len(slot.runs)) % self.n
                )
            except AllServersFailed as exc:
                self.harness_errors.append(f"{spec.name}: create failed everywhere: {exc}")
                await asyncio.sleep(0.5)
                continue
            if isinstance(created, CallError):
                self.harness_errors.append(f"{spec.name}: create refused: {created}")
                break
            run = GameRun(spec, slot.index, len(slot.runs), seed, created, requested)
            slot.runs.append(run)
            for server in range(self.n):
                rec = StreamRecord(run.game_id, server)
                self.streams.append(rec)
                self._stream_tasks.append(asyncio.create_task(self._follow(run, rec)))
            return
        slot.closed = True

    async def renew(self, run: GameRun) -> None:
        """``run`` is over: give its slot a fresh game (once, and only while the clock runs)."""
        run.over = True
        slot = self.slots[run.slot]
        async with slot.lock:
            if slot.current is not run or slot.closed:
                return
            if (
                time.monotonic() > self.deadline - RENEW_MARGIN_S
                or len(slot.runs) >= MAX_GENERATIONS
            ):
                slot.closed = True
                return
            await self._create(slot)

    # ------------------------------------------------------------------ streams

    async def _follow(self, run: GameRun, rec: StreamRecord) -> None:
        gc = self.failover.clients[rec.server].game(run.game_id, run.created.spectator_token)
        try:
            async for e in gc.stream(0, max_reconnects=STREAM_RECONNECTS):
                rec.seen.append((e.seq, e.seat, e.action.json, time.monotonic()))
        except CallError as exc:
            rec.error = str(exc)
            return
        rec.finished = True
        await self.renew(run)

    def stream_progress(self, run: GameRun) -> int:
        """The most entries any server's stream has shown of ``run``."""
        return max((len(s.seen) for s in self.streams if s.game_id == run.game_id), default=0)

    def first_arrivals(self, game_id: str) -> dict[int, float]:
        """The earliest arrival of each ``seq`` over the game's streams."""
        out: dict[int, float] = {}
        for s in self.streams:
            if s.game_id != game_id:
                continue
            for seq, _, _, at in s.seen:
                if seq not in out or at < out[seq]:
                    out[seq] = at
        return out

    # ------------------------------------------------------------------ seat clients

    def _choose(self, spec: GameSpec, view: View, rng: random.Random) -> Any:
        legal = [c for c in view.legal_commands if c.kind not in spec.client_skips]
        slaps = [c for c in legal if c.kind == "Slap"]
        others = [c for c in legal if c.kind != "Slap"]
        if slaps:
            slappable = bool(view.view.data.get("slappable"))
            if rng.random() < (SLAPPABLE_SLAP_P if slappable else SLAP_P):
                return slaps[0]
        if others:
            return rng.choice(others)
        return None

    async def submit(
        self,
        run: GameRun,
        seat: int,
        command_json: str,
        action_id: str,
        *,
        prefer: int,
        avoid: int | None = None,
        resubmit: bool = False,
    ) -> Answer:
        token = run.created.seat_tokens[seat]
        game = run.spec.game
        cmd = canonical_command(game, command_json)

        async def send(c: Client) -> SubmitResult:
            return await c.game(run.game_id, token).submit(command_json, action_id=action_id)

        started = time.monotonic()
        base = Answer(
            run.game_id,
            seat,
            action_id,
            cmd,
            "unavailable",
            None,
            started,
            started,
            resubmit=resubmit,
        )
        failed: list[tuple[int, CallError]] = []
        try:
            server, res = await self.failover.call(send, prefer=prefer, avoid=avoid, failed=failed)
        except AllServersFailed:
            ans = replace(base, ended=time.monotonic(), failed_on=len(failed))
        else:
            ended = time.monotonic()
            base = replace(base, failed_on=len(failed))
            if isinstance(res, Rejection):
                ans = replace(base, kind="rejected", server=server, ended=ended, code=res.code)
            elif isinstance(res, CallError):
                code = f"{res.status}/{res.reason}: {res.message}"
                ans = replace(base, kind="error", server=server, ended=ended, code=code)
            else:
                ans = replace(
                    base,
                    kind="accepted",
                    server=server,
                    ended=ended,
                    seq=res.entry.seq,
                    replayed=res.replayed,
                    entry_seat=res.entry.seat,
                    entry_action=canonical_command(game, res.entry.action.json),
                )
        self.answers.append(ans)
        return ans

    def _compare(self, first: Answer, again: Answer) -> None:
        self.resubmits += 1
        if again.kind == "unavailable":
            self.resubmit_unavailable += 1
            return
        where = f"{first.action_id} (server {first.server} then {again.server})"
        if first.kind == "accepted":
            if again.kind != "accepted" or again.seq != first.seq or not again.replayed:
                self.resubmit_mismatches.append(
                    f"{where}: accepted at seq {first.seq}, then {again.kind} "
                    f"seq={again.seq} replayed={again.replayed} {again.code}"
                )
        elif first.kind == "rejected":
            if again.kind != "rejected" or again.code != first.code:
                self.resubmit_mismatches.append(
                    f"{where}: rejected {first.code}, then {again.kind} "
                    f"seq={again.seq} replayed={again.replayed} {again.code}"
                )

    async def _seat_loop(self, slot: Slot, seat: int, server: int) -> None:
        rng = random.Random(f"{self.seed}/{slot.index}/{seat}/{server}")
        run: GameRun | None = None
        for n in range(MAX_ACTIONS_PER_CLIENT):
            if time.monotonic() >= self.deadline:
                return
            run = slot.current
            if run is None or (run.over and slot.closed):
                return
            if run.over:
                await self.renew(run)
                continue
            token = run.created.seat_tokens[seat]
            gid = run.game_id

            async def look(c: Client, gid: str = gid, token: str = token) -> View:
                return await c.game(gid, token).view()

            try:
                _, view = await self.failover.call(look, prefer=server)
            except AllServersFailed:
                self.view_errors["ALL_SERVERS_FAILED"] += 1
                await asyncio.sleep(0.1)
                continue
            if isinstance(view, CallError):
                self.view_errors[view.status] += 1
                await asyncio.sleep(0.05)
                continue
            if view.outcome is not None:
                await self.renew(run)
                continue
            command = self._choose(slot.spec, view, rng)
            if command is None:
                await asyncio.sleep(rng.uniform(*IDLE_S))
                continue
            action_id = f"{slot.spec.name}.{run.generation}.s{seat}.c{server}.{n}"
            ans = await self.submit(run, seat, command.json, action_id, prefer=server)
            if ans.kind in ("accepted", "rejected") and ans.server is not None:
                if rng.random() < RESUBMIT_P:
                    # another server (the same one only when there is no other)
                    other = (ans.server + 1 + rng.randrange(max(self.n - 1, 1))) % self.n
                    again = await self.submit(
                        run,
                        seat,
                        command.json,
                        action_id,
                        prefer=other,
                        avoid=ans.server,
                        resubmit=True,
                    )
                    self._compare(ans, again)

    # ------------------------------------------------------------------ the run

    async def start(self) -> None:
        """Create every slot's first game (streams start with it) and start the clock."""
        self.t0 = time.monotonic()
        self.deadline = self.t0 + self.duration_s + 30.0  # the real clock starts below
        for slot in self.slots:
            await self._create(slot)
        self.t0 = time.monotonic()
        self.deadline = self.t0 + self.duration_s
        for slot in self.slots:
            for seat in slot.spec.human_seats:
                for server in range(self.n):
                    self._loops.append(asyncio.create_task(self._seat_loop(slot, seat, server)))

    async def wait_clients(self) -> None:
        """Until every client loop has stopped (they stop at the deadline)."""
        limit = max(self.deadline - time.monotonic(), 0) + FAILOVER_BUDGET_S * 2 + 10
        done, pending = await asyncio.wait(self._loops, timeout=limit)
        for t in pending:
            t.cancel()
        if pending:
            self.harness_errors.append(f"{len(pending)} client loops did not stop in time")
        for t in done:
            if not t.cancelled() and t.exception() is not None:
                self.harness_errors.append(f"client loop crashed: {t.exception()!r}")
        for slot in self.slots:
            slot.closed = True

    async def stop_streams(self) -> None:
        for t in self._stream_tasks:
            t.cancel()
        results = await asyncio.gather(*self._stream_tasks, return_exceptions=True)
        for r in results:
            if isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError):
                self.harness_errors.append(f"stream task crashed: {r!r}")

    async def close(self) -> None:
        await self.stop_streams()
        await self.failover.close()


# --------------------------------------------------------------------------- the store


@dataclass(frozen=True, slots=True)
class StoredEntry:
    seq: int
    seat: int | None
    action_id: str | None
    line: LogLine


@dataclass
class StoredGameRows:
    """One game's rows: ``games`` (header, seed, salt, end line), ``entries`` by ``seq``,
    ``rejections``."""

    game_id: str
    header: LogLine
    seed: int
    salt: bytes
    end: LogLine | None
    entries: list[StoredEntry]
    rejections: list[tuple[int, str, str]]
    """``(seat, action_id, code)``."""

    @property
    def lines(self) -> list[LogLine]:
        out = [self.header, *(e.line for e in self.entries)]
        return out + [self.end] if self.end is not None else out


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str | bytes) else value


def read_store(url: str, game_ids: Iterable[str]) -> tuple[dict[str, StoredGameRows], list[str]]:
    """The rows of ``game_ids`` (one ``REPEATABLE READ`` snapshot), and the ids not in ``games``."""
    import psycopg

    ids = list(dict.fromkeys(game_ids))
    out: dict[str, StoredGameRows] = {}
    missing: list[str] = []
    with psycopg.connect(url, connect_timeout=10) as conn:
        conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        with conn.transaction():
            games = {
                str(r[0]): r
                for r in conn.execute(
                    "SELECT game_id, header, seed, salt, end_line FROM games"
                    " WHERE game_id = ANY(%s)",
                    (ids,),
                ).fetchall()
            }
            entries: dict[str, list[StoredEntry]] = {g: [] for g in ids}
            for gid, seq, seat, aid, line in conn.execute(
                "SELECT game_id, seq, seat, action_id, line FROM entries"
                " WHERE game_id = ANY(%s) ORDER BY game_id, seq",
                (ids,),
            ):
                entries[str(gid)].append(
                    StoredEntry(
                        int(seq),
                        None if seat is None else int(seat),
                        None if aid is None else str(aid),
                        _json(line),
                    )
                )
            rejections: dict[str, list[tuple[int, str, str]]] = {g: [] for g in ids}
            for gid, seat, aid, code in conn.execute(
                "SELECT game_id, seat, action_id, code FROM rejections WHERE game_id = ANY(%s)",
                (ids,),
            ):
                rejections[str(gid)].append((int(seat), str(aid), str(code)))
    for gid in ids:
        row = games.get(gid)
        if row is None:
            missing.append(gid)
            continue
        _, header, seed, salt, end = row
        out[gid] = StoredGameRows(
            gid,
            _json(header),
            int(seed),
            bytes(salt),
            None if end is None else _json(end),
            entries[gid],
            rejections[gid],
        )
    return out, missing


def store_counts(url: str, game_ids: Sequence[str]) -> dict[str, tuple[int, int, bool]]:
    """``game_id -> (entries, rejections, ended)`` now."""
    import psycopg

    out = dict.fromkeys(game_ids, (0, 0, False))
    with psycopg.connect(url, connect_timeout=10, autocommit=True) as conn:
        for gid, n, ended in conn.execute(
            "SELECT game_id, (SELECT count(*) FROM entries e WHERE e.game_id = g.game_id),"
            " end_line IS NOT NULL FROM games g WHERE game_id = ANY(%s)",
            (list(game_ids),),
        ):
            out[str(gid)] = (int(n), out[str(gid)][1], bool(ended))
        for gid, n in conn.execute(
            "SELECT game_id, count(*) FROM rejections WHERE game_id = ANY(%s) GROUP BY game_id",
            (list(game_ids),),
        ):
            e, _, ended = out[str(gid)]
            out[str(gid)] = (e, int(n), ended)
    return out


async def settle(url: str, game_ids: Sequence[str]) -> tuple[bool, float]:
    """Wait until the rows of ``game_ids`` stop changing for :data:`SETTLE_QUIET_S` (at most
    :data:`SETTLE_MAX_S`); ``(settled, seconds)``."""
    t0 = time.monotonic()
    last: dict[str, tuple[int, int, bool]] | None = None
    quiet_since = t0
    while time.monotonic() - t0 < SETTLE_MAX_S:
        try:
            now = await asyncio.to_thread(store_counts, url, game_ids)
        except Exception:
            now = None
        if now is not None and now == last:
            if time.monotonic() - quiet_since >= SETTLE_QUIET_S:
                return True, time.monotonic() - t0
        else:
            quiet_since = time.monotonic()
            last = now
        await asyncio.sleep(0.25)
    return False, time.monotonic() - t0


async def catch_up(traffic: Traffic, url: str) -> tuple[dict[str, int], float]:
    """Wait (at most :data:`CATCH_UP_MAX_S`) until every stream shows at least the entries stored
    when this started; those counts, and the seconds it took."""
    t0 = time.monotonic()
    ids = [r.game_id for r in traffic.runs]
    counts = {g: n for g, (n, _, _) in (await asyncio.to_thread(store_counts, url, ids)).items()}
    while time.monotonic() - t0 < CATCH_UP_MAX_S:
        if all(len(s.seen) >= counts[s.game_id] or s.error for s in traffic.streams):
            break
        await asyncio.sleep(0.2)
    return counts, time.monotonic() - t0


# --------------------------------------------------------------------------- checks


@dataclass
class LogCheck:
    """What :func:`check_log` found for one game."""

    game_id: str
    problems: list[str] = field(default_factory=list)
    entries: int = 0
    over: bool = False
    chain_breaks: int = 0
    replayed_ok: int = 0
    """Entries equal, line for line, to the replay from the stored seed and salt."""
    owed_after: list[int | None] | None = None
    """ERS only: whom the pile is owed to after each replayed entry."""


def _short(x: Any, n: int = 160) -> str:
    s = json.dumps(x, sort_keys=True) if not isinstance(x, str) else x
    return s if len(s) <= n else s[: n - 3] + "..."


def check_log(rows: StoredGameRows) -> LogCheck:
    """Every stored line of one game: ``seq`` continuity (column and line), the hash chain,
    ``at_ms`` order, :func:`cardcore.log.verify` (the whole log, or what it checks of an
    unfinished one), and a replay of every action from the stored seed and salt whose lines must
    equal the stored ones (and its end line the stored end line)."""
    res = LogCheck(rows.game_id, entries=len(rows.entries), over=rows.end is not None)
    p = res.problems
    # seq continuity, the columns against the lines
    for i, e in enumerate(rows.entries):
        if e.seq != i:
            p.append(f"entries: row {i} has seq {e.seq} (missing or duplicated seq)")
            break
        if e.line.get("seq") != e.seq or e.line.get("seat") != e.seat:
            p.append(
                f"entries: seq {e.seq}: the line says seq/seat {e.line.get('seq')}/"
                f"{e.line.get('seat')}, the columns {e.seq}/{e.seat}"
            )
    # the hash chain and at_ms
    lines = rows.lines
    first_break: int | None = None
    for i in range(1, len(lines)):
        if lines[i].get("prev") != lines[i - 1].get("hash"):
            res.chain_breaks += 1
            if first_break is None:
                first_break = i - 1
    if first_break is not None:
        p.append(
            f"hash chain: {res.chain_breaks} breaks, first at seq {first_break} "
            "(its prev is not the previous line's hash: the log forked)"
        )
    at = [e.line.get("at_ms") for e in rows.entries]
    back = [i for i in range(1, len(at)) if not isinstance(at[i], int) or at[i] < at[i - 1]]  # type: ignore[operator]
    if back:
        p.append(f"at_ms goes backwards at {len(back)} entries, first at seq {back[0]}")
    # what verify establishes
    try:
        report = clog.verify(lines)
        if res.over and not report.revealed:
            p.append("verify: the log has an end line but was not verified as revealed")
    except CardcoreError as exc:
        p.append(f"verify: {exc}")
    # the replay from the seed and salt
    _replay(rows, res)
    return res


def _replay(rows: StoredGameRows, res: LogCheck) -> None:
    p = res.problems
    header = rows.header
    try:
        game = registry.get_game(str(header["game"]))
        raw = header["setup"]
        # Log format 2: the game dealt with the seed derived from the server's and the seats'.
        given = clog.contributions(header)
        seed = rows.seed if given is None else derive_deal_seed(rows.seed, given)
        setup = game.make_setup(raw["seats"], seed, raw["rules"], raw["event_limit"])
    except (CardcoreError, KeyError, TypeError) as exc:
        p.append(f"replay: the header does not give a setup: {exc}")
        return
    if not rows.entries:
        p.append("replay: no deal entry")
        return
    # The server's signatures are its own (checked by the verifier): the replay re-uses the
    # stored ones, so every other byte of the header and end line is compared.
    signed = {
        str(line["hash"]): line["signature"]
        for line in (header, rows.end)
        if line is not None and "signature" in line
    }
    match = Match(
        game,
        setup,
        salt=rows.salt,
        at_ms=int(rows.entries[0].line.get("at_ms", 0)),
        game_id=header.get("game_id"),
        server_seed=None if given is None else rows.seed,
        contributions=given,
        sign=(lambda h: dict(signed[h])) if signed else None,
    )
    assert match.writer is not None
    mine = match.writer.lines
    if mine[0] != header:
        p.append("replay: the stored header differs from the one the seed and salt give")
        return
    if mine[1] != rows.entries[0].line:
        p.append("replay: the stored deal differs from the one the seed gives")
        return
    is_ers = game.name == "ratscrew"
    owed: list[int | None] = [getattr(match.state, "owed_to", None)] if is_ers else []
    res.replayed_ok = 1
    for e in rows.entries[1:]:
        line = e.line
        if match.outcome is not None:
            p.append(f"replay: entry {e.seq} comes after the game ended at seq {match.seq - 1}")
            return
        try:
            command = game.decode_command(line["action"], "action")
            match.submit(int(line["seat"]), command, int(line["at_ms"]))
        except Rejected as exc:
            p.append(
                f"replay: entry {e.seq}: the rules reject {_short(line.get('action'))} "
                f"of seat {line.get('seat')}: {exc}"
            )
            return
        except (CardcoreError, KeyError, TypeError, ValueError) as exc:
            p.append(f"replay: entry {e.seq} does not replay: {type(exc).__name__}: {exc}")
            return
        got = mine[-2] if match.outcome is not None else mine[-1]
        if got != line:
            diff = sorted(k for k in set(got) | set(line) if got.get(k) != line.get(k))
            p.append(
                f"replay: entry {e.seq} differs from the replay in {diff}: "
                f"stored {_short({k: line.get(k) for k in diff})}, "
                f"replay {_short({k: got.get(k) for k in diff})}"
            )
            return
        res.replayed_ok += 1
        if is_ers:
            owed.append(getattr(match.state, "owed_to", None))
    res.owed_after = owed if is_ers else None
    if match.outcome is not None and rows.end is None:
        p.append(f"replay: the game ended at seq {match.seq - 1} but games.end_line is empty")
    elif match.outcome is None and rows.end is not None:
        p.append("replay: games.end_line is set but the replayed game is not over")
    elif rows.end is not None and mine[-1] != rows.end:
        p.append(f"replay: the stored end line differs from the replay's: {_short(rows.end)}")


def check_answers(
    answers: Sequence[Answer],
    stored: dict[str, StoredGameRows],
    runs: Sequence[GameRun],
) -> tuple[list[str], list[str]]:
    """(b) each submitted ``(game, seat, action_id)`` has exactly one answer in the store: at
    most one entry, not both an entry and a rejection, and the answers the clients got agree;
    (c) every accepted answer is the entry at its ``seq`` with the same seat and command, every
    rejected one is not an entry (and is the stored rejection); entries without an
    ``action_id`` are bot or timer actions. Returns ``(problems of b, problems of c)``."""
    b: list[str] = []
    c: list[str] = []
    specs = {r.game_id: r.spec for r in runs}
    entry_at: dict[tuple[str, int, str], list[StoredEntry]] = {}
    rejected: dict[tuple[str, int, str], list[str]] = {}
    for gid, rows in stored.items():
        spec = specs[gid]
        for e in rows.entries:
            if e.action_id is not None:
                entry_at.setdefault(
                    (gid, e.seat if e.seat is not None else -1, e.action_id), []
                ).append(e)
            elif e.seq > 0:
                kind = str(e.line.get("action", {}).get("kind"))
                if e.seat not in spec.bot_seats and kind not in spec.timers():
                    c.append(
                        f"{gid[:8]} seq {e.seq}: an entry without action_id from human "
                        f"seat {e.seat} that is no timed command ({kind})"
                    )
        for seat, aid, code in rows.rejections:
            rejected.setdefault((gid, seat, aid), []).append(code)
    for key, es in entry_at.items():
        if len(es) > 1:
            b.append(f"{key[2]}: in entries {len(es)} times (seqs {[e.seq for e in es]})")
        if key in rejected:
            b.append(
                f"{key[2]}: both an entry (seq {es[0].seq}) and a rejection ({rejected[key][0]})"
            )
    for key, codes in rejected.items():
        if len(codes) > 1:
            b.append(f"{key[2]}: {len(codes)} rejection rows")
    by_key: dict[tuple[str, int, str], list[Answer]] = {}
    for a in answers:
        by_key.setdefault((a.game_id, a.seat, a.action_id), []).append(a)
    for key, got in by_key.items():
        final = [a for a in got if a.kind in ("accepted", "rejected")]
        if not final:
            continue
        verdicts = {(a.kind, a.seq if a.kind == "accepted" else a.code) for a in final}
        if len(verdicts) > 1:
            b.append(f"{key[2]}: the clients got different answers: {sorted(map(str, verdicts))}")
        if key not in entry_at and key not in rejected:
            b.append(f"{key[2]}: answered {final[0].kind} but neither an entry nor a rejection")
        for a in final:
            if a.kind == "accepted":
                found = entry_at.get(key, [])
                if not found:
                    c.append(f"{key[2]}: accepted at seq {a.seq} but not in entries")
                    continue
                at = next((x for x in found if x.seq == a.seq), None)
                if at is None:
                    c.append(f"{key[2]}: accepted at seq {a.seq}, stored at {found[0].seq}")
                    continue
                stored_cmd = canonical_command(specs[key[0]].game, json.dumps(at.line["action"]))
                if at.seat != a.seat or stored_cmd != a.command or a.entry_action != a.command:
                    c.append(
                        f"{key[2]}: seq {a.seq} holds seat {at.seat} {stored_cmd}, the "
                        f"client sent seat {a.seat} {a.command}"
                    )
                if a.entry_seat != a.seat:
                    c.append(f"{key[2]}: the answer's entry is seat {a.entry_seat}'s")
            else:
                if key in entry_at:
                    c.append(
                        f"{key[2]}: rejected ({a.code}) but in entries at seq "
                        f"{entry_at[key][0].seq}"
                    )
                elif key in rejected and a.code not in rejected[key]:
                    c.append(f"{key[2]}: rejected {a.code}, stored as {rejected[key]}")
    ours = set(by_key)
    for key in entry_at:
        if key not in ours:
            c.append(f"{key[2]}: an entry whose action_id no client sent")
    return b, c


def check_streams(
    streams: Sequence[StreamRecord],
    stored: dict[str, StoredGameRows],
    at_least: dict[str, int],
) -> list[str]:
    """(d) every stream saw ``seq`` 0, 1, … once each, in order, each entry as stored (seq, seat,
    action); a finished game's streams saw all of it and its outcome; the others at least the
    ``at_least`` entries stored once the games settled."""
    out: list[str] = []
    for s in streams:
        name = f"{s.game_id[:8]}@server{s.server}"
        rows = stored.get(s.game_id)
        if rows is None:
            continue
        if s.error:
            out.append(f"{name}: the stream failed: {s.error}")
        seqs = [x[0] for x in s.seen]
        if seqs != list(range(len(seqs))):
            bad = next(i for i, q in enumerate(seqs) if q != i)
            out.append(f"{name}: position {bad} has seq {seqs[bad]} (gap, duplicate or reorder)")
            continue
        if len(s.seen) > len(rows.entries):
            out.append(f"{name}: saw {len(s.seen)} entries, the store has {len(rows.entries)}")
        for (seq, seat, action, _), e in zip(s.seen, rows.entries, strict=False):
            game = str(rows.header["game"])
            if seat != e.seat or canonical_command_or_deal(
                game, action
            ) != canonical_command_or_deal(game, json.dumps(e.line["action"])):
                out.append(
                    f"{name}: seq {seq} shows seat {seat} {action}, stored: seat "
                    f"{e.seat} {_short(e.line['action'])}"
                )
                break
        if rows.end is not None:
            if not s.finished or len(s.seen) != len(rows.entries):
                out.append(
                    f"{name}: the game is over ({len(rows.entries)} entries) but the "
                    f"stream saw {len(s.seen)}, finished={s.finished}"
                )
        else:
            if s.finished:
                out.append(f"{name}: the stream ended with an outcome, the store has no end")
            if len(s.seen) < at_least.get(s.game_id, 0):
                out.append(
                    f"{name}: saw {len(s.seen)} entries, {at_least[s.game_id]} were "
                    "stored when the games settled"
                )
    return out


def canonical_command_or_deal(game: str, text: str) -> str:
    data = json.loads(text)
    if data == clog.DEAL_ACTION:
        return codec.canonical_text(data)
    return canonical_command(game, text)


def check_owed_piles(
    rows: StoredGameRows, check: LogCheck, spec: GameSpec, bound_ms: int
) -> tuple[list[str], int]:
    """ERS with a Collect timer: a pile owed to a human seat is taken (by the timer, a
    collect or a slap) within the timer's delay plus ``bound_ms``, and the settled game is not
    left owing one. Returns the problems and the longest owed period in ms."""
    out: list[str] = []
    collect = spec.timers().get("Collect")
    owed = check.owed_after
    if collect is None or owed is None:
        return out, 0
    entries = rows.entries[: len(owed)]
    longest = 0
    start: int | None = None
    for i, who in enumerate(owed):
        if who is not None and who in spec.human_seats:
            if start is None:
                start = i
        elif start is not None:
            took = int(entries[i].line["at_ms"]) - int(entries[start].line["at_ms"])
            longest = max(longest, took)
            if took > collect + bound_ms:
                out.append(
                    f"{rows.game_id[:8]}: the pile owed after seq {start} was taken "
                    f"{took} ms later (timer {collect} ms)"
                )
            start = None
    if start is not None and rows.end is None and len(owed) == len(rows.entries):
        out.append(
            f"{rows.game_id[:8]}: the settled game still owes the pile to seat "
            f"{owed[start]} since seq {start}: the Collect timer never fired"
        )
    return out, longest


def max_at_gap(rows: StoredGameRows) -> tuple[int, int]:
    """The largest ``at_ms`` step between consecutive entries after the deal, and its ``seq``."""
    best, where = 0, 0
    for a, b in zip(rows.entries[1:], rows.entries[2:], strict=False):
        step = int(b.line["at_ms"]) - int(a.line["at_ms"])
        if step > best:
            best, where = step, b.seq
    return best, where


def timer_collects(rows: StoredGameRows) -> list[StoredEntry]:
    """The Collects the server made on its own (no ``action_id``)."""
    return [
        e
        for e in rows.entries
        if e.seq > 0 and e.action_id is None and e.line.get("action", {}).get("kind") == "Collect"
    ]


# --------------------------------------------------------------------------- numbers


def ks_statistic(a: Sequence[float], b: Sequence[float]) -> float:
    """The two-sample Kolmogorov–Smirnov statistic: the largest distance between the samples'
    empirical distribution functions."""
    xs, ys = sorted(a), sorted(b)
    n, m = len(xs), len(ys)
    if not n or not m:
        return 1.0
    i = j = 0
    d = 0.0
    while i < n and j < m:
        x = min(xs[i], ys[j])
        while i < n and xs[i] <= x:
            i += 1
        while j < m and ys[j] <= x:
            j += 1
        d = max(d, abs(i / n - j / m))
    return d


def ks_critical(n: int, m: int, alpha: float) -> float:
    """The asymptotic two-sample critical value at level ``alpha``:
    ``c(α)·√((n+m)/(n·m))`` with ``c(α) = √(−ln(α/2)/2)``."""
    return math.sqrt(-math.log(alpha / 2) / 2) * math.sqrt((n + m) / (n * m))


def median(xs: Sequence[float]) -> float:
    s = sorted(xs)
    if not s:
        return math.nan
    mid = len(s) // 2
    return float(s[mid]) if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


@functools.cache
def long_bot_seeds(
    game: str, seats: int, delay_ms: tuple[int, int], min_entries: int, count: int
) -> tuple[int, ...]:
    """Seeds whose bots-only game (reaction bots, as the server seeds them) lasts at least
    ``min_entries`` entries when simulated with :func:`cardcore.bots.play_out`."""
    g = registry.get_game(game)
    found: list[int] = []
    scored: list[tuple[int, int]] = []
    for seed in range(300):
        m = Match(g, g.make_setup(seats, seed, None, 10_000_000), record=False)
        bots = [
            ReactionBot(s, bot_seed(seed, s), min_ms=delay_ms[0], max_ms=delay_ms[1])
            for s in range(seats)
        ]
        r = play_out(m, bots)
        scored.append((r.actions, seed))
        if r.actions >= min_entries:
            found.append(seed)
            if len(found) == count:
                return tuple(found)
    return tuple(s for _, s in sorted(scored, reverse=True)[:count])


# --------------------------------------------------------------------------- the summary


def unavailable_numbers(
    answers: Sequence[Answer], windows: Sequence[tuple[float, float]] = ()
) -> dict[str, int]:
    """Submits (first sends, not resubmits); how many failed on every server (``unavailable``)
    and how many some server failed with ``UNAVAILABLE``/``DEADLINE_EXCEEDED`` after the
    client's own retries (``failed_somewhere``, the failovers included), in all and out of the
    ``windows`` (``(start, end)`` monotonic times: a submit overlapping one is "in")."""
    firsts = [a for a in answers if not a.resubmit]

    def inside(a: Answer) -> bool:
        return any(a.started <= end and a.ended >= start for start, end in windows)

    return {
        "submits": len(firsts),
        "unavailable": sum(a.kind == "unavailable" for a in firsts),
        "submits_outside_faults": sum(not inside(a) for a in firsts),
        "unavailable_outside_faults": sum(
            a.kind == "unavailable" and not inside(a) for a in firsts
        ),
        "failed_somewhere": sum(a.failed_on > 0 for a in firsts),
        "failed_somewhere_outside_faults": sum(a.failed_on > 0 and not inside(a) for a in firsts),
    }


def summary(
    title: str,
    traffic: Traffic,
    stored: dict[str, StoredGameRows],
    extra: dict[str, Any] | None = None,
) -> str:
    firsts = [a for a in traffic.answers if not a.resubmit]
    kinds = Counter(a.kind for a in firsts)
    codes = Counter(a.code for a in firsts if a.kind == "rejected")
    errors = Counter(a.code.split(":")[0] for a in traffic.answers if a.kind == "error")
    st = traffic.failover.stats
    lines = [
        f"==== {title} ====",
        f"servers={traffic.n} duration={traffic.duration_s:.0f}s seed={traffic.seed}",
        f"submits={len(firsts)} accepted={kinds['accepted']} rejected={kinds['rejected']} "
        f"unavailable(all servers)={kinds['unavailable']} errors={kinds['error']}",
        f"rejected by code: {dict(codes.most_common())}",
        f"errors: {dict(errors)}" if errors else "errors: none",
        f"cross-server resubmits={traffic.resubmits} mismatches={len(traffic.resubmit_mismatches)}"
        f" unavailable={traffic.resubmit_unavailable}",
        f"unary calls={st.calls} wire attempts={st.attempts} client retries={st.retries} "
        f"failed attempts={dict(st.failed_attempts)} failovers to another server={st.failovers}"
        f" (submits that failed over: {sum(a.failed_on > 0 for a in firsts)})",
        f"view errors: {dict(traffic.view_errors)}",
    ]
    for slot in traffic.slots:
        per = []
        for r in slot.runs:
            rows = stored.get(r.game_id)
            n = len(rows.entries) if rows else -1
            per.append(f"{n}{'*' if rows and rows.end else ''}")
        lines.append(f"entries per game, {slot.spec.name} (* = over): {' '.join(per)}")
    for k, v in (extra or {}).items():
        lines.append(f"{k}: {v}")
    if traffic.harness_errors:
        lines.append(f"harness errors: {traffic.harness_errors[:5]}")
    return "\n".join(lines)


def failures_message(failures: dict[str, list[str]], show: int = 8) -> str:
    """One message naming every failed property, with its count and first problems."""
    parts = []
    for name, probs in failures.items():
        if probs:
            head = "\n      ".join(probs[:show])
            parts.append(f"  {name}: {len(probs)} problem(s)\n      {head}")
    return "properties failed:\n" + "\n".join(parts)


# --------------------------------------------------------------------------- faults and the run


@dataclass(frozen=True, slots=True)
class Fault:
    """One injected fault: what, and when it began and was over (monotonic seconds)."""

    kind: str
    started: float
    ended: float
    detail: str = ""


FAULT_GRACE_S: Final = 5.0
"""After a fault is over, this long still counts as its window (a takeover takes a few s)."""


class FaultPlan:
    """Every ``every_s`` seconds SIGKILL a random server and start it again on its port; at the
    ``pg_at`` fractions of the run restart PostgreSQL with the ``pg_modes`` (always, even when
    late). Faults run one at a time; no kill starts in the last ``quiet_tail_s`` of the clock."""

    def __init__(
        self,
        cluster: Cluster,
        pg: PgControl | None,
        *,
        seed: int,
        every_s: tuple[float, float] = (3.0, 5.0),
        pg_at: Sequence[float] = (0.3, 0.6),
        pg_modes: Sequence[Literal["fast", "immediate"]] = ("fast", "immediate"),
        quiet_tail_s: float = 5.0,
    ) -> None:
        self.cluster = cluster
        self.pg = pg
        self.rng = random.Random(seed)
        self.every_s = every_s
        self.pg_plan = list(zip(pg_at, pg_modes, strict=True)) if pg is not None else []
        self.quiet_tail_s = quiet_tail_s
        self.faults: list[Fault] = []
        self.errors: list[str] = []

    def windows(self) -> list[tuple[float, float]]:
        return [(f.started, f.ended + FAULT_GRACE_S) for f in self.faults]

    async def run(self, traffic: Traffic) -> None:
        t0, end = traffic.t0, traffic.deadline
        pg_due = [(t0 + frac * (end - t0), mode) for frac, mode in self.pg_plan]
        next_kill = t0 + self.rng.uniform(*self.every_s)
        for _ in range(1000):
            pg_next = pg_due[0][0] if pg_due else math.inf
            kill_ok = next_kill <= end - self.quiet_tail_s
            if not kill_ok and pg_next == math.inf:
                break
            upcoming = min(next_kill if kill_ok else math.inf, pg_next)
            await asyncio.sleep(max(upcoming - time.monotonic(), 0))
            started = time.monotonic()
            if pg_next <= upcoming:
                _, mode = pg_due.pop(0)
                assert self.pg is not None
                try:
                    took = await asyncio.to_thread(self.pg.restart, mode)
                    detail = f"{took:.1f}s"
                except (OSError, subprocess.SubprocessError) as exc:
                    detail = f"FAILED: {exc}"
                    self.errors.append(f"pg restart -m {mode}: {exc}")
                self.faults.append(
                    Fault(f"postgres restart -m {mode}", started, time.monotonic(), detail)
                )
                next_kill = max(next_kill, time.monotonic() + 1.5)
            else:
                i = self.rng.randrange(len(self.cluster.servers))
                await asyncio.to_thread(self.cluster.kill, i)
                await asyncio.sleep(self.rng.uniform(0.2, 1.0))
                try:
                    await asyncio.to_thread(self.cluster.restart, i)
                    detail = f"port {self.cluster.servers[i].port}"
                except RuntimeError as exc:
                    detail = f"FAILED: {str(exc)[:300]}"
                    self.errors.append(f"restart of server {i}: {detail}")
                self.faults.append(Fault(f"SIGKILL server {i}", started, time.monotonic(), detail))
                next_kill = time.monotonic() + self.rng.uniform(*self.every_s)
        # every server is up again at the end
        for i, srv in enumerate(self.cluster.servers):
            if not srv.alive():
                try:
                    await asyncio.to_thread(self.cluster.restart, i)
                except RuntimeError as exc:
                    self.errors.append(f"final restart of server {i}: {str(exc)[:300]}")


@dataclass
class RunResult:
    """Everything a run observed and stored."""

    traffic: Traffic
    stored: dict[str, StoredGameRows]
    missing: list[str]
    """Games the clients created that are not in the ``games`` table."""
    settled: bool
    settle_s: float
    at_least: dict[str, int]
    """Entries stored per game once the games settled (every stream must show these)."""
    snapshot_at: float
    exit_codes: dict[int, int | None]
    faults: FaultPlan | None
    elapsed_s: float
    checks: dict[str, LogCheck] = field(default_factory=dict)


async def play(
    cluster: Cluster,
    url: str,
    specs: Sequence[GameSpec],
    *,
    seed: int,
    duration_s: float,
    faults: FaultPlan | None = None,
    dump_to: Path | None = None,
) -> RunResult:
    """Create the games, run the clients (and the faults) for ``duration_s``, let the games
    settle and the streams catch up, stop the servers, read the store. ``dump_to``: a JSON file
    for the post-mortem (every answer, every stream's seqs and arrival times, the faults)."""
    t_start = time.monotonic()
    traffic = Traffic(cluster.targets, specs, seed=seed, duration_s=duration_s)
    try:
        await traffic.start()
        fault_task = asyncio.create_task(faults.run(traffic)) if faults is not None else None
        await traffic.wait_clients()
        if fault_task is not None:
            try:
                await asyncio.wait_for(fault_task, 120)
            except Exception as exc:
                traffic.harness_errors.append(f"the fault task failed: {exc!r}")
        human = [r.game_id for r in traffic.runs if r.spec.human_seats]
        settled, settle_s = await settle(url, human)
        at_least, _ = await catch_up(traffic, url)
        snapshot_at = time.monotonic()
    finally:
        await traffic.close()
    exit_codes = await asyncio.to_thread(cluster.stop_all)
    stored, missing = await asyncio.to_thread(read_store, url, [r.game_id for r in traffic.runs])
    result = RunResult(
        traffic,
        stored,
        missing,
        settled,
        settle_s,
        at_least,
        snapshot_at,
        exit_codes,
        faults,
        time.monotonic() - t_start,
    )
    result.checks = {gid: check_log(rows) for gid, rows in stored.items()}
    if dump_to is not None:
        dump(result, dump_to)
    return result


def dump(result: RunResult, path: Path) -> None:
    """What the clients saw, as JSON (times in seconds since the clock started)."""
    traffic = result.traffic
    t0 = traffic.t0

    def rel(t: float) -> float:
        return round(t - t0, 4)

    data = {
        "games": [
            {
                "label": r.label,
                "game_id": r.game_id,
                "seed": r.seed,
                "created": rel(r.created_at),
                "stored_entries": len(result.stored[r.game_id].entries)
                if r.game_id in result.stored
                else None,
            }
            for r in traffic.runs
        ],
        "answers": [
            {**asdict(a), "started": rel(a.started), "ended": rel(a.ended)} for a in traffic.answers
        ],
        "streams": [
            {
                "game_id": s.game_id,
                "server": s.server,
                "seqs": len(s.seen),
                "arrivals": [rel(x[3]) for x in s.seen],
                "error": s.error,
                "finished": s.finished,
            }
            for s in traffic.streams
        ],
        "faults": [
            {**asdict(f), "started": rel(f.started), "ended": rel(f.ended)}
            for f in (result.faults.faults if result.faults is not None else [])
        ],
        "harness_errors": traffic.harness_errors,
    }
    path.write_text(json.dumps(data, indent=1))


def common_properties(result: RunResult) -> dict[str, list[str]]:
    """(a)–(d) and the run's own health, as named lists of problems."""
    traffic, stored = result.traffic, result.stored
    labels = {r.game_id: r.label for r in traffic.runs}
    a = [f"{labels[g]}: created but not in the games table" for g in result.missing]
    for gid, chk in result.checks.items():
        a += [f"{labels[gid]} ({gid[:8]}): {p}" for p in chk.problems]
    b, c = check_answers(traffic.answers, stored, traffic.runs)
    d = check_streams(traffic.streams, stored, result.at_least)
    errors = [f"{a.action_id}: {a.code}" for a in traffic.answers if a.kind == "error"]
    run = list(traffic.harness_errors)
    if result.faults is not None:
        run += result.faults.errors
    if not result.settled:
        run.append(f"the games did not settle within {SETTLE_MAX_S:.0f}s")
    bad_exit = {i: rc for i, rc in result.exit_codes.items() if rc != 0}
    shutdown = [f"server {i} exited {rc} on SIGTERM" for i, rc in bad_exit.items()]
    return {
        "(a) stored log verifies and replays": a,
        "(b) one answer per action_id in the store": b,
        "(b') a resubmit to another server gets the same answer": list(traffic.resubmit_mismatches),
        "(c) acknowledged actions are in the log, rejected ones are not": c,
        "(d) streams: every seq once, in order, as stored": d,
        "no unexpected errors": errors,
        "graceful shutdown exits 0": shutdown,
        "the run itself (harness)": run,
    }


def property_table(failures: dict[str, list[str]]) -> str:
    """``PASS``/``FAIL (n)`` per property, for the ``-s`` output."""
    return "\n".join(
        f"  {'FAIL' if probs else 'PASS'} {name}" + (f" ({len(probs)})" if probs else "")
        for name, probs in failures.items()
    )
