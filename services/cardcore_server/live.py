"""One running game: its sequencer, its durable log, its streams, its timers and server bots.

**The sequencer** is one task per game (:meth:`LiveGame._run`) that takes the actions waiting
for the game in arrival order, in *rounds*: it decides every action of a round on the state it
holds (stamping ``at_ms``, milliseconds since the game was created, never going backwards),
then hands the round to the store as one :class:`~.store.Commit` at the game's version. The
store writes it only if the game is still at that version and the first new entry links to the
stored head (compare-and-set, :mod:`.store`); then the round is durable and every action in it
is answered. If another server wrote first (:class:`~.store.Conflict`), the match is rewound to
the last durable state (:meth:`cardcore.match.Match.rewind`), the sequencer catches up with what
the store holds (re-applying and checking each entry line for line, as a rebuild does) and
decides the same actions again, in the same order, on the new state. So whichever server takes
an action, it is decided on exactly the entries before it, and nothing shown to anyone (views,
streams, answers) is ever a state the store did not accept.

While a round is being committed, new actions wait and form the next round (a group commit per
game; the store groups rounds of different games). A store that cannot be reached makes the
sequencer retry with backoff: actions that carry an ``action_id``, and timed actions, wait for
it, since a failed commit may have landed and only a catch-up can tell. A client waits
:data:`CLIENT_WAIT_S` at most, whatever the store does (fails, or hangs): then it is answered
``UNAVAILABLE``, and its action, if not yet in a round, is dropped. A rejection is answered
only on a state the store confirmed as current (stored with the round when it carried an
``action_id``), so an ``action_id`` has one answer.

**Timers and bots** run on the server that owns the game (``owned``; on a single server, all of
them): they arm an ``asyncio`` timer and, when it fires while the game is still at the ``seq``
they planned for, submit an ordinary action through the same sequencer, so it is logged and
replays like any other. Their times count from the ``at_ms`` of the entry they react to, and a
bot's decision at ``seq`` is drawn from ``stream_key(bot_seed(seed, seat), seq)``, so bots and
timers behave the same whichever server owns the game and however often it re-plans.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, Final

import structlog

from cardcore import codec
from cardcore.bots import BOT_KINDS, Bot, ask, bot_seed
from cardcore.engine import Game, Outcome, Viewer
from cardcore.errors import DecodeError, RejectCode, Rejected
from cardcore.kit import RESIGN_BY_TIMER, Resign
from cardcore.log import LogLine, abort_action, abort_by, commitment
from cardcore.match import Checkpoint, Match
from cardcore.rng import derive_deal_seed, stream_key
from cardcore.signatures import SIGNATURE_KEY

from . import redaction
from .errors import bounded
from .redaction import RedactedEntry
from .store import (
    REJECTION_DETAIL,
    REJECTIONS_KEPT,
    Commit,
    Conflict,
    EventStore,
    GameRecord,
    SeatSpec,
    SharedStore,
    StoredGame,
    StoredRejection,
    StoreError,
    Tail,
    command_digest,
)

AnyGame = Game[Any, Any, Any, Any, Any]
AnyMatch = Match[Any, Any, Any, Any, Any]

log = structlog.get_logger("cardcore_server")

MAX_ROUND: Final = 256
"""Actions decided and committed together at most."""
CLIENT_WAIT_S: Final = 2.0
"""How long a client's action waits for the store at most, from its arrival: past that it is
answered ``UNAVAILABLE`` (retry with the same ``action_id``), whether the store fails fast (the
sequencer retries with backoff meanwhile) or hangs (a database cut off: a commit may wait for
TCP to give up). A commit takes milliseconds; this is for outages."""
RETRY_MIN_S: Final = 0.05
RETRY_MAX_S: Final = 2.0


class RebuildError(Exception):
    """A stored game does not replay to its stored log (rules changed, or the store is corrupt)."""


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True, slots=True)
class Accepted:
    """An accepted action: its full entry line and decoded events (redact before sending)."""

    seq: int
    line: LogLine
    events: tuple[Any, ...]
    outcome: Outcome | None
    replayed: bool


@dataclass(frozen=True, slots=True)
class DurableState:
    """What the store holds of a game: the only state views, legal commands and rejection
    details are computed from (the sequencer may be ahead of it, deciding a round)."""

    game: AnyGame
    state: Any
    seq: int
    outcome: Outcome | None

    def view(self, viewer: Viewer) -> Any:
        return self.game.view(self.state, viewer)

    def legal_commands(self, seat: int) -> Any:
        if self.outcome is not None:
            return ()
        return self.game.legal_commands(self.state, seat)


@dataclass(slots=True)
class _Intent:
    """An action waiting for the sequencer."""

    seat: int
    command: Any
    text: str
    """The command's canonical JSON (tells a retry from a reused ``action_id``)."""
    action_id: str | None
    planned_seq: int | None
    """A timed or bot action: only at this ``seq`` (otherwise :class:`Superseded`)."""
    future: asyncio.Future[Accepted | Rejected]
    deadline: float
    """Loop time after which an unreachable store fails it (``inf``: never)."""


def make_bot(kind: str, seat: int, seed: int, min_ms: int, max_ms: int) -> Bot:
    """A server bot of ``kind`` (a key of :data:`cardcore.bots.BOT_KINDS`); delays of 0 keep the
    bot's own defaults."""
    factory: Any = BOT_KINDS[kind]
    if min_ms or max_ms:
        return factory(seat, seed, min_ms=min_ms, max_ms=max(max_ms, min_ms))  # type: ignore[no-any-return]
    return factory(seat, seed)  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True)
class HostAbort:
    """The host ends the game (docs/games/common.md#leaving-a-game): sequenced like an action,
    logged as an entry with no seat (:meth:`cardcore.match.Match.abort`). ``by``: "creator", "admin"
    or "timer"."""

    by: str


HOST_SEAT: Final = -1
"""The seat an intent of the host's own (an abort) is queued under."""


Sign = Callable[[str], dict[str, str]]
"""The server's signature of a log line's hash (:meth:`.signing.ServerKey.sign`)."""


def _match(game: AnyGame, record: GameRecord, at_ms: int, sign: Sign | None) -> AnyMatch:
    """The match of a served game: dealt with the deal seed derived from the server's seed and
    the seats' contributions (log format 2), or from the seed itself (a format-1 game)."""
    given = record.contributions
    entropy = None if given is None else tuple((s, bytes.fromhex(h)) for s, h in given)
    seed = record.seed if entropy is None else derive_deal_seed(record.seed, entropy)
    setup = game.make_setup(len(record.seats), seed, record.rules, record.event_limit)
    return Match(
        game,
        setup,
        salt=record.salt,
        at_ms=at_ms,
        game_id=record.game_id,
        rules_version=record.rules_version,
        server_seed=None if entropy is None else record.seed,
        contributions=entropy,
        sign=sign,
    )


def _resigner(lines: list[LogLine], sign: Sign | None) -> Sign | None:
    """How a rebuilt game signs: as its stored log was. A game begun unsigned stays unsigned
    (its rebuilt lines must equal the stored ones); a signed line keeps its stored signature
    (the key may have changed since); a new end line is signed with the server's key."""
    if sign is None or SIGNATURE_KEY not in lines[0]:
        return None
    kept = {
        str(ln["hash"]): ln[SIGNATURE_KEY] for ln in (lines[0], lines[-1]) if SIGNATURE_KEY in ln
    }

    def resign(line_hash: str) -> dict[str, str]:
        found = kept.get(line_hash)
        return dict(found) if isinstance(found, dict) else sign(line_hash)

    return resign


def _stored_version(game: AnyGame, header: LogLine) -> str | None:
    """The rules version a stored game was started under, if it is an earlier one the game
    still replays (served across an upgrade); None for the game's own."""
    version = header.get("rules_version")
    if version != game.info.rules_version and version in game.info.replays_versions:
        return str(version)
    return None


def replay_entry(game: AnyGame, match: AnyMatch, line: LogLine) -> tuple[Any, ...]:
    """Re-decide one stored entry on ``match`` (a seat's command, or the host's abort); returns
    its events. Raises what :meth:`Match.submit` raises, or ``KeyError`` / ``ValueError``."""
    if line.get("seat") is None:
        by = abort_by(line)
        if by is None:
            raise ValueError(f"entry {line.get('seq')} has no seat and is not an abort")
        match.abort(int(line["at_ms"]), by)
        return ()
    command = game.decode_command(line["action"], "action")
    return tuple(match.submit(int(line["seat"]), command, int(line["at_ms"])))


class LiveGame:
    """A game in memory, built from the store or created fresh."""

    def __init__(
        self,
        game: AnyGame,
        record: GameRecord,
        match: AnyMatch,
        store: EventStore,
        clock: Callable[[], int] = wall_ms,
        *,
        version: int = 0,
        owner: str | None = None,
    ) -> None:
        self.game = game
        self.record = record
        self.game_id = record.game_id
        self.match = match
        assert match.writer is not None
        self.lines: list[LogLine] = match.writer.lines
        self.store = store
        self.shared: SharedStore | None = store if isinstance(store, SharedStore) else None
        """Set when other processes write to this game too."""
        self.server_id = self.shared.server_id if self.shared is not None else None
        self.owned = self.shared is None or owner == self.server_id
        """Whether this server arms the game's timers and bots."""
        self.clock = clock
        self.version = version
        """The store's version of the game that :attr:`durable` is at."""
        self.events: list[tuple[Any, ...]] = []
        """Decoded events per ``seq`` (for per-viewer redaction without re-decoding)."""
        self.action_ids: dict[tuple[int, str], int] = {}
        self.rejections: dict[tuple[int, str], StoredRejection] = {}
        """The stored rejections, each seat's oldest first (a seat keeps
        :data:`~.store.REJECTIONS_KEPT`; :meth:`_keep_rejections`)."""
        self._rejections_kept: Counter[int] = Counter()
        """How many of :attr:`rejections` each seat has."""
        self.durable_lines = len(self.lines)
        """How many of :attr:`lines` are durable (header included)."""
        self._durable_cp: Checkpoint = match.checkpoint()
        self.broken = False
        self.closed = False
        self._queue: deque[_Intent] = deque()
        self._in_round: list[_Intent] = []
        """The round being decided and committed now (their futures not yet answered)."""
        self._draining = False
        self._sequencer: asyncio.Task[None] | None = None
        """The game's own sequencer task, when it runs (else a caller's task runs rounds)."""
        self._stale = False
        self._sync_waiters: list[asyncio.Future[None]] = []
        self._runner: asyncio.Task[None] | None = None
        self._fenced_at: int | None = None
        self._committing = False
        self._changed = asyncio.Event()
        self._views = redaction.EntryViews(game)
        self._timers: list[asyncio.TimerHandle] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._legal_since: dict[tuple[int, str], int] = {}
        self.bot_seats: dict[int, SeatSpec] = {
            seat: spec for seat, spec in enumerate(record.seats) if spec.kind != "human"
        }
        self.human_seats = tuple(s for s, spec in enumerate(record.seats) if spec.kind == "human")
        self.timeouts = {k: v for k, v in record.timeouts_ms.items() if v > 0}
        self.on_auto: Callable[[str], None] | None = None
        """Told the kind of every action the host took by itself (a timer's, a bot's)."""
        self._last_human_at: dict[int, int] = {}
        """Per human seat, the ``at_ms`` of its last action of its own (see
        :meth:`_human_activity`), scanned up to line :attr:`_human_scan`."""
        self._human_scan = 2

    # ------------------------------------------------------------------ construction

    @classmethod
    def create(
        cls,
        game: AnyGame,
        record: GameRecord,
        store: EventStore,
        clock: Callable[[], int] = wall_ms,
        *,
        sign: Sign | None = None,
    ) -> LiveGame:
        """A new game, owned by this server; durable once the store's ``create`` is. ``sign``:
        the server's signature of a log line's hash (:mod:`.signing`)."""
        match = _match(game, record, 0, sign)
        owner = store.server_id if isinstance(store, SharedStore) else None
        self = cls(game, record, match, store, clock, owner=owner)
        self.events.append(self._deal_events())
        self.durable_lines = 0  # until the store has it
        return self

    def _deal_events(self) -> tuple[Any, ...]:
        deal = self.lines[1]["events"]
        return tuple(self.game.decode_event(e, f"events[{i}]") for i, e in enumerate(deal))

    @classmethod
    def restore(
        cls,
        game: AnyGame,
        stored: StoredGame,
        store: EventStore,
        clock: Callable[[], int] = wall_ms,
        *,
        sign: Sign | None = None,
    ) -> LiveGame:
        """Re-create the match from the stored setup, seed and salt, re-submit every stored
        action, and check that the rebuilt log equals the stored one line for line."""
        record = stored.record
        lines = stored.lines
        if len(lines) < 2:
            raise RebuildError("no deal entry")
        if record.rules_version is None and _stored_version(game, lines[0]) is not None:
            record = replace(record, rules_version=_stored_version(game, lines[0]))
        match = _match(game, record, int(lines[1]["at_ms"]), _resigner(lines, sign))
        self = cls(game, record, match, store, clock, version=stored.version, owner=stored.owner)
        if self.lines[:2] != lines[:2]:
            raise RebuildError("header or deal differs from the stored one")
        if lines[0].get("commitment") != commitment(record.seed, record.salt):
            raise RebuildError("the commitment does not match the stored seed")
        self.events.append(self._deal_events())
        for line in lines[2:]:
            if line.get("type") != "entry":
                break
            try:
                events = replay_entry(game, match, line)
            except (DecodeError, Rejected, ValueError, KeyError) as exc:
                raise RebuildError(f"entry {line.get('seq')} does not replay: {exc}") from None
            self.events.append(events)
        if self.lines != lines:
            raise RebuildError("the rebuilt log differs from the stored log")
        self.action_ids = dict(stored.action_ids)
        self._keep_rejections(stored.rejections.values())
        self._mark_durable()
        return self

    # ------------------------------------------------------------------ state

    @property
    def durable(self) -> DurableState:
        """The state the store holds (what every view is computed from)."""
        cp = self._durable_cp
        return DurableState(self.game, cp.state, cp.seq, cp.outcome)

    @property
    def over(self) -> bool:
        return self._durable_cp.outcome is not None

    @property
    def durable_seq(self) -> int:
        """The number of durable entries (the next ``seq`` a stream will see)."""
        n = self.durable_lines - 1
        if n > 0 and self.lines[self.durable_lines - 1].get("type") == "end":
            n -= 1
        return max(n, 0)

    def entry_line(self, seq: int) -> LogLine:
        return self.lines[1 + seq]

    def now_ms(self) -> int:
        return max(self.match.last_at_ms, self.clock() - self.record.created_ms)

    def created(self) -> None:
        """The store's ``create`` is durable: so is the deal."""
        self._mark_durable()

    def _mark_durable(self) -> None:
        """Everything the match holds is in the store."""
        self.durable_lines = len(self.lines)
        self._durable_cp = self.match.checkpoint()
        self._changed.set()
        self._changed = asyncio.Event()

    def _rewind(self) -> None:
        """Back to what the store holds (a round it refused, or whose fate is unknown)."""
        self.match.rewind(self._durable_cp)
        del self.events[self._durable_cp.seq :]

    # ------------------------------------------------------------------ the sequencer

    async def submit(
        self,
        seat: int,
        command: Any,
        command_text: str,
        action_id: str | None,
        planned_seq: int | None = None,
    ) -> Accepted:
        """Sequence one action for ``seat``; returns once it is durable. ``planned_seq``: the
        ``seq`` a timer chose the command for (:class:`Superseded` when the game moved on).

        Raises :class:`Rejected` (once the rejection is durable, when it carried an
        ``action_id``), :class:`ActionIdReused`, :class:`Unavailable`, or
        :class:`~.store.StoreError` when the store stayed unreachable."""
        if self.broken or self.closed:
            raise _Unavailable()
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Accepted | Rejected] = loop.create_future()
        # The caller waits through a shield: if it was cancelled (a bot's task at stop), nobody
        # reads the answer, and asyncio would log "Future exception was never retrieved".
        fut.add_done_callback(_observed)
        timed = planned_seq is not None
        deadline = float("inf") if timed else loop.time() + CLIENT_WAIT_S
        intent = _Intent(seat, command, command_text, action_id, planned_seq, fut, deadline)
        self._queue.append(intent)
        # A client waits for the store CLIENT_WAIT_S at most, whatever the store does (an
        # outage may hang a commit until TCP gives up): then it is answered UNAVAILABLE.
        try:
            async with asyncio.timeout_at(None if timed else deadline):
                # A round of PostgreSQL's runs on the sequencer's task, never the caller's: a
                # caller leaves at its deadline, and cancelling a query in flight would itself
                # wait for the unreachable server (psycopg asks it to cancel).
                inline = self._runner is None and len(self._queue) == 1 and not self._stale
                if inline and self.shared is None:
                    await self._round_inline(fut)
                else:
                    self._kick()
                result = await asyncio.shield(fut)
        except TimeoutError:
            result = self._give_up(intent)
        if isinstance(result, Rejected):
            raise result
        return result

    def _give_up(self, intent: _Intent) -> Accepted | Rejected:
        """A client's wait for the store is over: answer it ``UNAVAILABLE`` (retry with the
        same ``action_id``). Still queued, its action is never decided; in the round being
        committed, its fate is the round's, which a resend learns."""
        if intent.future.done():
            return intent.future.result()
        with contextlib.suppress(ValueError):
            self._queue.remove(intent)
        failure = StoreError(f"the store did not answer within {CLIENT_WAIT_S:g} s")
        intent.future.set_exception(failure)
        raise failure

    async def sync(self) -> None:
        """Catch up with what other processes wrote (a shared store only; a store that cannot
        be read leaves the durable state as it is). Raises :class:`Unavailable` when the game
        is broken (rebuild it)."""
        if self.shared is None or self.closed:
            return
        if self.broken:
            raise _Unavailable()
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._sync_waiters.append(fut)
        self._kick()
        await asyncio.shield(fut)
        if self.broken:
            raise _Unavailable()

    def request_sync(self) -> None:
        """A hint that the store may hold more than we do: catch up soon (no waiting)."""
        if self.closed or self.broken:
            return
        self._stale = True
        self._kick()

    async def _round_inline(self, fut: asyncio.Future[Accepted | Rejected]) -> None:
        """The sequencer is idle: the caller runs the round of its action ``fut`` itself (a
        task of its own would cost two more event-loop turns per action). Whatever else
        arrived meanwhile, or a store failure, goes to the sequencer task."""
        task = asyncio.current_task()
        assert task is not None
        self._runner = task
        try:
            await self._round()
        except StoreError:
            self._stale = True  # the sequencer catches up (with backoff) and retries
        except asyncio.CancelledError:
            self._stale = True  # a commit given up on may land still: catch up first
            # drain() stopped a round that hangs (the server is stopping): this call is
            # answered from its future (UNAVAILABLE), not cancelled with it.
            if not (self._draining and fut.done()):
                raise
            task.uncancel()
        finally:
            if self._runner is task:
                self._runner = None
            if self._queue or self._stale or self._sync_waiters:
                self._kick()

    def _kick(self) -> None:
        if self._runner is None and not self.closed:
            self._runner = self._sequencer = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        """The game's sequencer task: catch up when asked or told to, else decide and commit
        the next round; while the store fails, retry with backoff (actions wait meanwhile)."""
        backoff = RETRY_MIN_S
        failing = False
        try:
            while not self.closed and not self.broken:
                try:
                    if self._stale or self._sync_waiters:
                        waiters, self._sync_waiters = self._sync_waiters, []
                        try:
                            await self._catch_up()
                        finally:
                            _release(waiters)
                    elif self._queue:
                        await self._round()
                    else:
                        return
                except StoreError as exc:
                    # Unreachable, or a write whose fate is unknown: catch up before deciding.
                    self._stale = True
                    if not failing:
                        log.warning("store_retry", game_id=self.game_id, error=str(exc))
                    failing = True
                    self._expire(StoreError(str(exc)))
                    await asyncio.sleep(backoff)
                    backoff = min(backoff * 2, RETRY_MAX_S)
                    continue
                if failing:
                    log.info("store_recovered", game_id=self.game_id, seq=self.match.seq)
                    failing = False
                backoff = RETRY_MIN_S
        except _Broken:
            pass
        finally:
            self._runner = None
            if self.broken or self.closed:
                self._fail_all(_Unavailable())

    def _expire(self, exc: BaseException) -> None:
        """Answer the actions that cannot wait any longer for the store; wake sync waiters
        (they see the durable state as it is)."""
        now = asyncio.get_running_loop().time()
        keep: deque[_Intent] = deque()
        for intent in self._queue:
            if intent.deadline <= now:
                if not intent.future.done():
                    intent.future.set_exception(exc)
            else:
                keep.append(intent)
        self._queue = keep
        waiters, self._sync_waiters = self._sync_waiters, []
        _release(waiters)

    def _fail_all(self, exc: BaseException) -> None:
        while self._queue:
            intent = self._queue.popleft()
            if not intent.future.done():
                intent.future.set_exception(exc)
        waiters, self._sync_waiters = self._sync_waiters, []
        _release(waiters)

    def _take_round(self) -> list[_Intent]:
        """The next round: either one timed action (it carries the owner's fence) or the
        clients' actions up to the next timed one."""
        q = self._queue
        if q[0].planned_seq is not None:
            return [q.popleft()]
        batch: list[_Intent] = []
        while q and q[0].planned_seq is None and len(batch) < MAX_ROUND:
            batch.append(q.popleft())
        return batch

    async def _round(self) -> None:
        """Decide one round on the durable state and commit it (see the module docstring)."""
        self._committing = True  # close() lets it land rather than cancel it
        self._in_round = self._take_round()
        try:
            await self._decide_and_commit(self._in_round)
        finally:
            self._committing = False
            self._in_round = []

    async def _decide_and_commit(self, batch: list[_Intent]) -> None:
        match = self.match
        timed = batch[0].planned_seq is not None
        was_over = match.outcome is not None
        answers: list[tuple[_Intent, Accepted | Rejected | BaseException]] = []
        entries: list[tuple[LogLine, str | None]] = []
        texts: list[str] = []
        writer = match.writer
        assert writer is not None  # a live match records its log
        rejections: list[StoredRejection] = []
        new_ids: dict[tuple[int, str], int] = {}
        new_rejections: dict[tuple[int, str], StoredRejection] = {}
        confirm = False
        for intent in batch:
            key = (intent.seat, intent.action_id) if intent.action_id else None
            if intent.planned_seq is not None and match.seq != intent.planned_seq:
                answers.append((intent, Superseded()))
                continue
            if key is not None:
                try:
                    prior = self._prior(key, intent.text, new_ids, new_rejections)
                except ActionIdReused as exc:
                    answers.append((intent, exc))
                    continue
                if prior is not None:
                    answers.append((intent, prior))
                    continue
            try:
                if isinstance(intent.command, HostAbort):
                    match.abort(self.now_ms(), intent.command.by)
                    events: Any = ()
                else:
                    events = match.submit(intent.seat, intent.command, self.now_ms())
            except Rejected as exc:
                if exc.code is not RejectCode.GAME_OVER or not was_over:
                    confirm = True  # decided on a state the store must confirm as current
                if key is not None:  # stored: one answer, whenever the id is sent again
                    rej = _stored_rejection(intent.seat, key[1], intent.text, exc)
                    rejections.append(rej)
                    new_rejections[key] = rej
                    exc = Rejected(exc.code, rej.detail)  # the answer a resend gets, now too
                answers.append((intent, exc))
                continue
            seq = match.seq - 1
            self.events.append(tuple(events))
            over = match.outcome is not None
            at = -2 if over else -1
            line = self.lines[at]
            entries.append((line, intent.action_id))
            texts.append(writer.line_text(at))
            if key is not None:
                new_ids[key] = seq
            answers.append(
                (intent, Accepted(seq, line, tuple(events), match.outcome if over else None, False))
            )
        end = self.lines[-1] if match.outcome is not None and not was_over else None
        forget = tuple(self._past_the_cap(Counter(r.seat for r in rejections)))
        if entries or rejections or (confirm and self.shared is not None):
            commit = Commit(
                self.game_id,
                self.version,
                tuple(entries),
                end,
                tuple(rejections),
                owner=self.server_id if timed else None,  # None on a store of our own
                texts=tuple(texts),
                forget=forget,
            )
            try:
                version = await self.store.commit(commit)
            except Conflict:
                self._rewind()
                self._stale = True
                if timed:  # re-planned after the catch-up if it still applies
                    self._fenced_at = self.version
                    _answer(batch[0], Superseded())
                else:
                    self._queue.extendleft(reversed(batch))
                return
            except BaseException:
                self._rewind()
                # Its fate is unknown: keep what a catch-up can settle (an action_id, a planned
                # seq) and someone still waits for; an action without either cannot be told
                # apart from a new one.
                retry = [
                    i
                    for i in batch
                    if (i.action_id or i.planned_seq is not None) and not i.future.done()
                ]
                for i in batch:
                    if i not in retry:
                        _answer(i, StoreError("the store failed; the action may not be recorded"))
                self._queue.extendleft(reversed(retry))
                raise
            self.version = version
        self.action_ids.update(new_ids)
        self._keep_rejections(rejections)
        if entries:
            self._mark_durable()
        for intent, answer in answers:
            _answer(intent, answer)
        if entries:
            self.plan()

    def _prior(
        self,
        key: tuple[int, str],
        command_text: str,
        new_ids: dict[tuple[int, str], int],
        new_rejections: dict[tuple[int, str], StoredRejection],
    ) -> Accepted | Rejected | None:
        seq = self.action_ids.get(key)
        if seq is None:
            seq = new_ids.get(key)
        if seq is not None:
            line = self.entry_line(seq)
            if codec.canonical_text(line["action"]) != command_text:
                raise ActionIdReused()
            ended = self.match.outcome is not None and seq == self.match.seq - 1
            outcome = self.match.outcome if ended else None
            return Accepted(seq, line, self.events[seq], outcome, True)
        rej = self.rejections.get(key) or new_rejections.get(key)
        if rej is not None:
            if not rej.is_for(command_text):
                raise ActionIdReused()
            return Rejected(RejectCode(rej.code), rej.detail)
        return None

    def _past_the_cap(self, adding: Counter[int]) -> list[tuple[int, str]]:
        """Each seat's oldest stored rejections that keeping ``adding`` more (per seat) would
        push past :data:`~.store.REJECTIONS_KEPT`."""
        kept = self._rejections_kept
        over = {seat: n - REJECTIONS_KEPT for seat, n in (kept + adding).items()}
        if all(n <= 0 for n in over.values()):
            return []
        out = []
        for key in self.rejections:  # oldest first
            if over.get(key[0], 0) > 0:
                over[key[0]] -= 1
                out.append(key)
        return out

    def _keep_rejections(self, rejections: Iterable[StoredRejection]) -> None:
        """Remember ``rejections`` (stored, oldest first), forgetting each seat's oldest past
        :data:`~.store.REJECTIONS_KEPT` as the store does."""
        for rej in rejections:
            key = (rej.seat, rej.action_id)
            if key not in self.rejections:
                self._rejections_kept[rej.seat] += 1
            self.rejections[key] = rej
        for key in self._past_the_cap(Counter()):
            del self.rejections[key]
            self._rejections_kept[key[0]] -= 1

    # ------------------------------------------------------------------ catching up

    async def _catch_up(self) -> None:
        """Apply what the store holds beyond our durable state (the match is at it: no round
        is in flight). Raises :class:`~.store.StoreError`, or :class:`_Broken` when the stored
        rows do not replay (the game must be rebuilt)."""
        self._stale = False
        try:
            tail = await self.store.tail(self.game_id, self.match.seq, self.version)
        except StoreError:
            self._stale = True
            raise
        if tail.version < self.version:
            return  # an older snapshot than what we committed: nothing new in it
        try:
            self._apply_tail(tail)
        except (RebuildError, DecodeError, Rejected, ValueError, KeyError) as exc:
            log.error("catch_up_failed", game_id=self.game_id, error=str(exc))
            self._rewind()
            self.broken = True
            self.wake()
            raise _Broken() from None
        fenced, self._fenced_at = self._fenced_at, None
        if self.shared is not None:
            owned = tail.owner == self.server_id and fenced != tail.version
            if owned != self.owned:
                log.info(
                    "game_ownership", game_id=self.game_id, owned=owned, owner=tail.owner or ""
                )
                self.owned = owned
        # Always: a timer that came due while a round was in flight was skipped (_fire), and a
        # refused round re-plans nowhere else.
        self.plan()

    def _apply_tail(self, tail: Tail) -> None:
        """Apply the tail's rows (each entry re-decided and checked line for line)."""
        match = self.match
        grew = False
        for seq, line, action_id in tail.entries:
            if seq != match.seq:
                raise RebuildError(f"entry {match.seq} is missing")
            events = replay_entry(self.game, match, line)
            self.events.append(events)
            over = match.outcome is not None
            if (self.lines[-2] if over else self.lines[-1]) != line:
                raise RebuildError(f"entry {seq} differs from the stored one")
            if over and self.lines[-1] != tail.end:
                raise RebuildError("the end line differs from the stored one")
            if action_id is not None:
                self.action_ids[(int(line["seat"]), str(action_id))] = seq
            grew = True
        self._keep_rejections(tail.rejections)  # the writer forgot the same in the store
        self.version = tail.version
        if grew:
            self._mark_durable()

    # ------------------------------------------------------------------ streams

    def redacted(self, seq: int, viewer: Viewer) -> RedactedEntry:
        if seq >= self.durable_seq:
            raise IndexError(f"entry {seq} is not durable")
        return self._views.get(self.entry_line(seq), self.events[seq], viewer)

    async def wait_change(self, seen_lines: int) -> None:
        """Return once more lines are durable than ``seen_lines``, or on :meth:`wake` (the
        caller looks again either way)."""
        if self.durable_lines <= seen_lines and not self.broken and not self.closed:
            await self._changed.wait()

    def wake(self) -> None:
        """Wake every stream waiting on this game (the server is stopping)."""
        self._changed.set()
        self._changed = asyncio.Event()

    # ------------------------------------------------------------------ timers and bots

    def set_owned(self, owned: bool) -> None:
        """This server now owns the game's timers and bots (or no longer does)."""
        if owned == self.owned:
            return
        self.owned = owned
        self.plan()

    def plan(self) -> None:
        """Re-arm the bots' and timed actions' timers for the durable state (owner only)."""
        for h in self._timers:
            h.cancel()
        self._timers.clear()
        if self.over or self.closed or self.broken or not self.owned:
            return
        if not self.bot_seats and not self.record.timers:
            return
        loop = asyncio.get_running_loop()
        match = self.match
        seq = match.seq
        state = match.state
        seed = self.record.seed
        # Times count from the entry being reacted to, in the game's own clock.
        base = self.record.created_ms + match.last_at_ms - self.clock()
        for seat, spec in self.bot_seats.items():
            bot = make_bot(
                spec.kind,
                seat,
                stream_key(bot_seed(seed, seat), seq),
                spec.min_delay_ms,
                spec.max_delay_ms,
            )
            # The bot sees only its seat's view and legal commands, as a player would.
            proposal = ask(bot, self.game, state)
            if proposal is not None:
                delay, command = proposal
                self._timers.append(
                    loop.call_later(max(base + delay, 0) / 1000, self._fire, seq, seat, command)
                )
        if self.timeouts:
            still: dict[tuple[int, str], int] = {}
            for seat in self.human_seats:
                chosen: dict[str, Any] = {}
                for command in match.legal_commands(seat):
                    kind = type(command).__name__
                    if kind not in self.timeouts or kind in chosen:
                        continue
                    if self.game.is_sensible(state, seat, command):
                        chosen[kind] = command
                for kind, command in chosen.items():
                    since = self._legal_since.get((seat, kind), match.last_at_ms)
                    still[(seat, kind)] = since
                    due = base + since - match.last_at_ms + self.timeouts[kind]
                    self._timers.append(
                        loop.call_later(max(due, 0) / 1000, self._fire, seq, seat, command)
                    )
            self._legal_since = still
        for due, seat, command in self._forfeits(base):
            self._timers.append(loop.call_later(max(due, 0) / 1000, self._fire, seq, seat, command))

    def _forfeits(self, base: int) -> list[tuple[int, int, Any]]:
        """The host's clocks of docs/games/common.md#leaving-a-game for the durable state, as ``(due
        in ms from now, seat, command)``: a turn timer (the seats a turn-based game waits for,
        counted from the game's last entry), an idle timer (a human seat still in the game with no
        action of its own for that long) — both forfeit the seat by ``Resign(by="timer")`` — and the
        abandonment timer (no human action at all: the host aborts). Every time counts from an
        entry's ``at_ms``, so a clock that ran out while no server was up fires on start-up."""
        rec, match = self.record, self.match
        if not (rec.turn_timeout_ms or rec.idle_timeout_ms or rec.abandon_timeout_ms):
            return []
        if not self.human_seats:
            return []
        last = match.last_at_ms
        out: list[tuple[int, int, Any]] = []
        forfeit = Resign(RESIGN_BY_TIMER)
        if rec.turn_timeout_ms and self.game.to_act is not None:
            for seat in sorted(set(self.game.to_act(match.state)) & set(self.human_seats)):
                if self._in_game(seat):
                    out.append((base + rec.turn_timeout_ms, seat, forfeit))
        activity = self._human_activity()
        if rec.idle_timeout_ms:
            for seat in self.human_seats:
                if self._in_game(seat):
                    due = base + activity[seat] - last + rec.idle_timeout_ms
                    out.append((due, seat, forfeit))
        if rec.abandon_timeout_ms:
            due = base + max(activity.values()) - last + rec.abandon_timeout_ms
            out.append((due, HOST_SEAT, HostAbort(RESIGN_BY_TIMER)))
        return out

    def _in_game(self, seat: int) -> bool:
        """Whether ``seat`` may still resign (not eliminated, not finished)."""
        try:
            self.match.check(seat, Resign())
        except Rejected:
            return False
        return True

    def _human_activity(self) -> dict[int, int]:
        """Per human seat, the ``at_ms`` of its last durable action of its own, or of the deal
        for a seat that has not acted (the host's forfeits do not count; a timed action the
        host took for an idle seat, such as an ERS collect, does, as the log cannot tell it)."""
        if not self._last_human_at:
            deal_at = int(self.lines[1]["at_ms"])
            self._last_human_at = dict.fromkeys(self.human_seats, deal_at)
        lines, last = self.lines, self._last_human_at
        end = self.durable_lines
        for line in lines[self._human_scan : end]:
            seat = line.get("seat")
            if line.get("type") != "entry" or seat not in last:
                continue
            action = line.get("action")
            if isinstance(action, dict) and action.get("by") == RESIGN_BY_TIMER:
                continue
            last[seat] = int(line["at_ms"])
        self._human_scan = max(self._human_scan, end)
        return last

    def _fire(self, seq: int, seat: int, command: Any) -> None:
        if self.match.seq != seq or self.over or self.closed or self.broken or not self.owned:
            return
        task = asyncio.get_running_loop().create_task(self._auto(seq, seat, command))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _auto(self, seq: int, seat: int, command: Any) -> None:
        if isinstance(command, HostAbort):
            text = codec.canonical_text(abort_action(command.by))
        else:
            text = codec.canonical_text(codec.encode(command))
        try:
            acc = await self.submit(seat, command, text, None, planned_seq=seq)
        except Superseded:
            return  # the game moved on (or another server owns it now): plan() re-armed
        except Rejected as exc:
            # Not re-planned: the same seq would propose the same command again.
            log.warning("auto_rejected", game_id=self.game_id, seat=seat, reason=exc.code.value)
        except _Unavailable:
            # Stopping, or the game is being rebuilt: the next owner plans this action again.
            log.debug("auto_deferred", game_id=self.game_id, seat=seat)
        except Exception as exc:
            log.warning("auto_failed", game_id=self.game_id, seat=seat, error=type(exc).__name__)
        else:
            if self.on_auto is not None:
                self.on_auto(type(command).__name__)
            # Debug, not info: a bot game writes one line per card otherwise; the log holds it.
            log.debug(
                "auto_action",
                game_id=self.game_id,
                seat=seat,
                seq=acc.seq,
                kind=type(command).__name__,
            )

    def drain(self, *, in_round: bool = False) -> None:
        """The server is stopping: answer every action still waiting ``UNAVAILABLE`` now (a
        client retries it, with its ``action_id``, on the next server), rather than let the
        transport cancel it at the end of the grace period. ``in_round``: the round being
        committed too (its commit may still land: the retry then gets the same answer)."""
        for intent in [*self._queue, *(self._in_round if in_round else ())]:
            if not intent.future.done():
                intent.future.set_exception(_Unavailable())
        self._queue.clear()
        runner = self._runner
        if (
            in_round
            and runner is not None
            and self._in_round
            and runner is not asyncio.current_task()
        ):
            # A round run inline by a caller's own task still hangs on the store: stop it, so
            # that caller answers from its future (submit() turns the cancel into that).
            self._draining = True
            if runner is not self._sequencer:
                runner.cancel()

    async def close(self) -> None:
        """Stop timers; let the round being committed land; answer the rest ``UNAVAILABLE``."""
        self.closed = True
        for h in self._timers:
            h.cancel()
        self._timers.clear()
        for t in list(self._tasks):
            t.cancel()
        runner = self._runner
        if runner is not None:
            if not self._committing:
                runner.cancel()  # between rounds (or waiting out a store outage)
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(runner), 10)
        self._fail_all(_Unavailable())
        self._changed.set()


def _stored_rejection(seat: int, action_id: str, text: str, exc: Rejected) -> StoredRejection:
    """What the store keeps of a rejected action: enough for its one answer, and bounded."""
    detail = bounded(exc.detail, REJECTION_DETAIL)
    return StoredRejection(seat, action_id, command_digest(text), exc.code.value, detail)


def _release(waiters: list[asyncio.Future[None]]) -> None:
    """Wake the callers of :meth:`LiveGame.sync` (they then read the durable state)."""
    for w in waiters:
        if not w.done():
            w.set_result(None)


def _observed(fut: asyncio.Future[Any]) -> None:
    """Mark an answer read: its caller, if still there, reads it through its shield."""
    if not fut.cancelled():
        fut.exception()


def _answer(intent: _Intent, answer: Accepted | Rejected | BaseException) -> None:
    fut = intent.future
    if fut.done():
        return
    if isinstance(answer, (Accepted, Rejected)):
        fut.set_result(answer)
    else:
        fut.set_exception(answer)


class Superseded(Exception):
    """A timed action was planned for an earlier ``seq`` than the game is at now."""


class ActionIdReused(Exception):
    """The same ``action_id`` came back with a different command."""


class _Unavailable(Exception):
    """The game is being rebuilt or the server is stopping."""


class _Broken(Exception):
    """The stored rows of the game do not replay here: it must be rebuilt."""


Unavailable = _Unavailable
