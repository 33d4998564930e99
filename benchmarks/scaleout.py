"""Scale-out benchmark: SubmitAction throughput of 1 server on SQLite and of 1, 2 and 3 servers
on one PostgreSQL database, measured in the same run.

    .venv/bin/python benchmarks/scaleout.py [OUT_DIR] [--rounds 5] [--max-s 1.5] [--smoke]
        [--code REV_OR_DIR] [--only SUBSTR,...] [--list] [--pg-url URL] [--db-dir DIR]

OUT_DIR defaults to /tmp/scaleout-bench; it gets ``table.md``, ``results.json`` (environment,
summary, per-round metrics, errors, raw latencies) and ``logs/`` (every server's and the worker's
stderr). A default run (5 rounds x 1.5 s per variant) takes ~2.5 min on an idle 2-core machine;
``--smoke`` (2 rounds x 0.3 s, ~35 s) checks the script, it is not a result. ``--code REV`` runs
the servers from a ``git archive`` of that revision (e.g. to compare two commits, or to measure
the last commit while the working tree is being edited); by default they run this checkout's
working tree as it is. Run it on an otherwise idle machine: the header warns when the whole
machine was busier than our processes, or when PostgreSQL restarted during the run.
Stdlib + the cardcore venv only (grpcio, psycopg, the generated stubs ``cardcore_proto``); it
talks to the servers through the public gRPC API only, so it runs against any version of the
service that keeps the proto.

Deployments (each round starts each deployment's servers on a fresh store, runs its workloads,
stops the servers and drops the store, then goes on to the next deployment: rounds interleave the
deployments A B C D A B C D ..., and the servers of one deployment never see another's writes):

* ``sqlite``: 1 server, a SQLite file under /var/tmp (durable: WAL, fsync per commit);
* ``pg1`` / ``pg2`` / ``pg3``: 1, 2 or 3 servers on one PostgreSQL database (a scratch schema
  of its own per deployment and round, ``options=-csearch_path=...``; dropped afterwards).

Every server: ``python -m cardcore.cli serve --port 0 --db URL --allow-client-seed
--collect-window-ms 0 --log-level warning --no-rest`` on 127.0.0.1.

Workloads (a ratscrew game, 2 human seats, rules ``{"auto_collect": true}``, long seeds, so every
action is a ``{"kind":"Play"}`` sent with the token of the seat whose turn the previous answer
named; games are created before the clock starts):

* ``seq``: 1 client, 1 game, each move awaited; with N servers move k goes to server k mod N
  (every move lands on a server that did not make the previous one: the cross-server worst case);
* ``seq-pinned`` (N > 1): the same, every move to server 0 (where the games were created);
* ``x8``: 8 games at once, one client (asyncio task, channels of its own) each; game i is created
  on and played through server i mod N;
* ``x8-cross`` (N > 1): game i created on server i mod N, each move to a random server.

A move that fails is retried (the same action_id after UNAVAILABLE/DEADLINE_EXCEEDED, as the
service asks; a new one after a rejection, which is stored under its action_id), after 1, 2, 4 ...
ms (at most 50 ms), to the same server (a random one in ``x8-cross``); after 40 failed attempts
or 3 s the game is abandoned and the next one taken. Every failed attempt is counted by gRPC code
and ``ErrorInfo.reason``; a move's latency is from its first send to its acceptance. No workload
has two actions of one game in flight at once (each client awaits its move), so what the
cross-server variants measure is the cost of a server catching up with another's writes, not
two servers racing for the same seq.

Figures per variant and round: moves/s (accepted moves / wall time of the timed loop), p50/p99
latency per move, and CPU per move (utime+stime from /proc/PID/stat over the timed loop only,
10 ms ticks): the deployment's server processes summed; PostgreSQL = every process of the
``postgres`` user (``pgrep -u postgres``: backends, walwriter, checkpointer, ... including any
other client's backends), and of it the backends of our servers' own connections (found from
the servers' TCP sockets and pg_stat_activity.client_port); the client worker. Each cell of the
table is the median over rounds (min-max).

Copied from the same-run harness tools/perf/servers (bench.py / py_worker.py; not imported, as it
lives outside this repository): the ratscrew turn bookkeeping (``Game``), the pool of
pre-created games and the timed loop with its untimed game switches (``Client``, ``play``),
``proc_cpu_s``, ``pct``/``mmm``/``fmt``, the fsync probe, the JSON-lines worker protocol and the
stop-by-PID process handling; the seeds are the first 48 of its ``seeds.json``. From
tests/service/pg.py: ``with_search_path``; from tests/service/helpers.py: the ready line.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import json
import math
import os
import platform
import queue
import random
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import grpc
from google.rpc import error_details_pb2, status_pb2

from cardcore_proto import game_service_pb2 as pb

REPO = Path(__file__).resolve().parents[1]
DEFAULT_PG = os.environ.get(
    "CARDCORE_TEST_PG", "postgresql://cardcore:cardcore@127.0.0.1:5432/cardcore_test"
)
DEFAULT_OUT = Path("/tmp/scaleout-bench")
SERVER_FLAGS = (
    "--allow-client-seed",
    "--collect-window-ms",
    "0",
    "--log-level",
    "warning",
    "--no-rest",
)
READY = "cardcore serving on "
RULES = {"auto_collect": True}
# (seed, moves of its no-slap game): tools/perf/servers/seeds.json (find_seeds.py), first 48.
SEEDS = [
    (3754, 1392), (3023, 1390), (81, 1362), (684, 1341), (1495, 1340), (2540, 1327),
    (2334, 1306), (2135, 1295), (3216, 1271), (1434, 1265), (2279, 1259), (3851, 1258),
    (2849, 1257), (3943, 1254), (122, 1234), (563, 1226), (473, 1205), (922, 1186),
    (1092, 1177), (2534, 1158), (917, 1128), (3719, 1122), (1261, 1121), (754, 1120),
    (2180, 1119), (658, 1115), (646, 1114), (1297, 1106), (3957, 1101), (3266, 1101),
    (1350, 1089), (643, 1055), (2626, 1048), (3132, 1047), (298, 1042), (3845, 1031),
    (16, 1029), (2504, 1021), (1491, 1019), (3520, 1018), (955, 1015), (2714, 990),
    (3359, 983), (818, 977), (1655, 976), (1199, 974), (2589, 969), (1442, 969),
]  # fmt: skip

CALL_TIMEOUT_S = 10.0  # every gRPC call
MAX_ATTEMPTS = 40  # per move, then the game is abandoned
MOVE_MAX_S = 3.0  # per move, retries included
WORKER_TIMEOUT_S = 90.0  # per variant run
SERVER_STOP_S = 15.0
OTHER_LOAD_CORES = 0.25  # whole machine busy beyond our processes: flagged in the header

pc = time.perf_counter


# ------------------------------------------------------------------ deployments and workloads


@dataclass(frozen=True)
class Deployment:
    id: str
    servers: int
    store: str  # sqlite | pg
    label: str


@dataclass(frozen=True)
class Workload:
    id: str
    mode: str  # seq | x8
    route: str  # alt: move k -> server k mod N | pin: server 0 | own: client i -> i mod N | random
    label: str
    multi_only: bool = False


DEPLOYMENTS = (
    Deployment("sqlite", 1, "sqlite", "1 server, SQLite (durable)"),
    Deployment("pg1", 1, "pg", "1 server, PostgreSQL"),
    Deployment("pg2", 2, "pg", "2 servers, one PostgreSQL DB"),
    Deployment("pg3", 3, "pg", "3 servers, one PostgreSQL DB"),
)
WORKLOADS = (
    Workload("seq", "seq", "alt", "1 client; move k to server k mod N"),
    Workload("seq-pinned", "seq", "pin", "1 client; every move to server 0", multi_only=True),
    Workload("x8", "x8", "own", "8 games; game i on server i mod N"),
    Workload("x8-cross", "x8", "random", "8 games; each move to a random server", multi_only=True),
)
MODE_PARAMS = {
    # rate_guess: moves/s one client may reach, to size its pool of pre-created games (a faster
    # run makes one more game, untimed)
    "seq": {"warmup": 100, "max_moves": 10_000, "clients": 1, "rate_guess": 2000},
    "x8": {"warmup": 20, "max_moves": 4_000, "clients": 8, "rate_guess": 600},  # per client
}
SECTIONS = {
    "seq": "Sequential: 1 client, 1 game, each move awaited before the next",
    "x8": "Throughput: 8 games at once, 1 client each",
}


def workloads_of(dep: Deployment) -> list[Workload]:
    return [w for w in WORKLOADS if dep.servers > 1 or not w.multi_only]


def variant_ids() -> list[tuple[str, Deployment, Workload]]:
    return [(f"{d.id}.{w.id}", d, w) for d in DEPLOYMENTS for w in workloads_of(d)]


# ------------------------------------------------------------------ /proc


CLK_TCK = os.sysconf("SC_CLK_TCK")


def proc_cpu_s(pid: int) -> float | None:
    """utime + stime of a process (all its threads), from /proc; None if it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK
    except (OSError, IndexError, ValueError):
        return None


def machine_busy_s() -> float | None:
    """CPU seconds the whole machine spent busy (all CPUs), from /proc/stat."""
    try:
        f = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    except (OSError, ValueError):
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = f
    return (user + nice + system + irq + softirq + steal) / CLK_TCK


def postgres_pids() -> list[int]:
    """Every process of the ``postgres`` user (``pgrep -u postgres``)."""
    try:
        out = subprocess.run(
            ["pgrep", "-u", "postgres"], capture_output=True, text=True, timeout=5, check=False
        )
        return [int(x) for x in out.stdout.split()]
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return []


def _tcp_sockets() -> dict[int, tuple[int, int]]:
    """inode -> (local port, remote port) of every TCP socket of this network namespace."""
    out: dict[int, tuple[int, int]] = {}
    for name in ("tcp", "tcp6"):
        try:
            lines = Path(f"/proc/net/{name}").read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            try:
                out[int(f[9])] = (int(f[1].rsplit(":", 1)[1], 16), int(f[2].rsplit(":", 1)[1], 16))
            except (IndexError, ValueError):
                continue
    return out


def our_backends(server_pids: list[int], pg_url: str) -> list[int]:
    """The PostgreSQL backend PIDs of the servers' connections: the servers' TCP sockets to the
    database's port, matched with pg_stat_activity.client_port."""
    import psycopg

    pg_port = urlsplit(pg_url).port or 5432
    socks = _tcp_sockets()
    ports: list[int] = []
    for pid in server_pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if link.startswith("socket:["):
                local, remote = socks.get(int(link[8:-1]), (0, 0))
                if remote == pg_port:
                    ports.append(local)
    if not ports:
        return []
    with psycopg.connect(pg_url, connect_timeout=5, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE client_port = ANY(%s)", (ports,)
        ).fetchall()
    return [int(r[0]) for r in rows]


class Meter:
    """CPU of the servers, of PostgreSQL and of this worker over the timed loop only."""

    def __init__(self, server_pids: list[int], ours: list[int]) -> None:
        self.server_pids = server_pids
        self.ours = ours

    @staticmethod
    def _cpu(pids: list[int]) -> dict[int, float]:
        return {p: c for p in pids if (c := proc_cpu_s(p)) is not None}

    def start(self) -> None:
        self.s0 = self._cpu(self.server_pids)
        self.pg0 = self._cpu(postgres_pids())
        self.ours0 = self._cpu(self.ours)
        self.c0 = time.process_time()
        self.m0 = machine_busy_s()

    def stop(self) -> dict[str, Any]:
        c1 = time.process_time()
        m1 = machine_busy_s()
        s1 = self._cpu(self.server_pids)
        pg1 = self._cpu(postgres_pids())
        ours1 = self._cpu(self.ours)

        def delta(a: dict[int, float], b: dict[int, float], new_ok: bool) -> float:
            # a process that started during the loop counts whole (new_ok); one that ended
            # during it is lost (counted in pg_pids_gone)
            return sum(v - a.get(p, 0.0) for p, v in b.items() if new_ok or p in a)

        return {
            "server_cpu_s": delta(self.s0, s1, False) if len(s1) == len(self.server_pids) else None,
            "pg_cpu_s": delta(self.pg0, pg1, True) if pg1 else None,
            "pg_ours_cpu_s": delta(self.ours0, ours1, False) if self.ours else None,
            "client_cpu_s": c1 - self.c0,
            "machine_cpu_s": m1 - self.m0 if m1 is not None and self.m0 is not None else None,
            "pg_pids": len(pg1),
            "pg_pids_gone": len(set(self.pg0) - set(pg1)),
            "pg_ours_pids": len(self.ours),
        }


# ------------------------------------------------------------------ the client worker (--worker)

SVC = "/cardcore.v1.GameService/"
PLAY = pb.GameValue(kind="Play", json='{"kind":"Play"}')
COLLECT = pb.GameValue(kind="Collect", json='{"kind":"Collect"}')
TURN_EVENTS = ("CardPlayed", "TurnPassed", "ChallengeLapsed")


def open_channel(target: str) -> grpc.aio.Channel:
    # one TCP connection per channel: one client = its own connection(s)
    return grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])


def error_key(exc: grpc.aio.AioRpcError) -> str:
    """``CODE/reason`` from the status details' ErrorInfo (the details text if there is none)."""
    reason = ""
    for key, value in exc.trailing_metadata() or ():
        if key == "grpc-status-details-bin" and isinstance(value, bytes):
            with contextlib.suppress(Exception):
                for detail in status_pb2.Status.FromString(value).details:
                    if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                        info = error_details_pb2.ErrorInfo()
                        detail.Unpack(info)
                        reason = info.reason
    if not reason:
        reason = (exc.details() or "")[:60]
    return f"{exc.code().name}/{reason}"


class Game:
    """One ratscrew game: its tokens, whose turn it is and which command is legal (py_worker)."""

    def __init__(self, created: pb.CreateGameResponse) -> None:
        self.game_id = created.game_id
        tokens = {t.seat: t.token for t in created.seat_tokens}
        self.metadata = [(("authorization", f"Bearer {tokens[s]}"),) for s in range(2)]
        self.turn, self.command, self.over = 0, PLAY, False

    def after(self, r: pb.SubmitActionResponse) -> None:
        if r.HasField("outcome"):
            self.over = True
            return
        for e in r.entry.events:
            if e.kind in TURN_EVENTS:
                current = json.loads(e.json).get("current")
                if current is not None:
                    self.turn, self.command = current, PLAY
            elif e.kind == "PileTaken":
                self.turn, self.command = json.loads(e.json)["seat"], PLAY
            elif e.kind == "PileOwed":  # not with auto_collect; kept so any rules work
                self.turn, self.command = json.loads(e.json)["seat"], COLLECT


class Client:
    """One client: a channel to each server it uses, a pool of games created on its home server
    before the clock starts (the next takes over without a call when one ends), and the route
    of each move."""

    def __init__(
        self, targets: list[str], home: int, route: str, first_seed: int, moves: int, rng: int
    ) -> None:
        used = range(len(targets)) if route in ("alt", "random") else [home]
        self.channels = {i: open_channel(targets[i]) for i in used}
        self.submit = {
            i: ch.unary_unary(
                SVC + "SubmitAction",
                request_serializer=pb.SubmitActionRequest.SerializeToString,
                response_deserializer=pb.SubmitActionResponse.FromString,
            )
            for i, ch in self.channels.items()
        }
        self.create = self.channels[home].unary_unary(
            SVC + "CreateGame",
            request_serializer=pb.CreateGameRequest.SerializeToString,
            response_deserializer=pb.CreateGameResponse.FromString,
        )
        self.n_servers, self.home, self.route = len(targets), home, route
        self.rng = random.Random(rng)
        self.seed_i, self.moves_needed = first_seed, moves
        self.pool: list[Game] = []
        self.game: Game | None = None
        self.k = 0  # moves started (the alt route's counter)
        self.ids = 0  # action ids used
        self.reset()

    def reset(self) -> None:
        self.errors: Counter[str] = Counter()
        self.retried = 0  # accepted moves that needed more than one attempt
        self.gave_up = 0  # moves given up (their game abandoned)
        self.games_used = 0

    async def _new_game(self) -> Game:
        seed = SEEDS[self.seed_i % len(SEEDS)][0]
        self.seed_i += 1
        req = pb.CreateGameRequest(
            game="ratscrew",
            seats=[pb.SeatAssignment(kind=pb.SEAT_KIND_HUMAN)] * 2,
            rules_json=json.dumps(RULES),
            seed=seed,
        )
        return Game(await self.create(req, timeout=CALL_TIMEOUT_S))

    async def prepare(self) -> None:
        shortest = min(m for _, m in SEEDS)
        for _ in range(math.ceil(self.moves_needed / shortest) + 1):
            self.pool.append(await self._new_game())
        self.game = self.pool.pop(0)

    async def next_game(self) -> None:
        self.games_used += 1
        self.game = self.pool.pop(0) if self.pool else await self._new_game()

    def _pick(self) -> int:
        if self.route == "alt":
            return self.k % self.n_servers
        if self.route == "random":
            return self.rng.randrange(self.n_servers)
        return self.home

    def _action_id(self) -> str:
        self.ids += 1
        return f"m{self.ids}"

    async def step(self) -> bool:
        """One move, retried as the docstring of this file says; False if it was given up."""
        g = self.game
        assert g is not None
        target = self._pick()
        self.k += 1
        aid = self._action_id()
        t0 = pc()
        attempt = 0
        while True:
            req = pb.SubmitActionRequest(game_id=g.game_id, action_id=aid, command=g.command)
            try:
                r = await self.submit[target](
                    req, metadata=g.metadata[g.turn], timeout=CALL_TIMEOUT_S
                )
            except grpc.aio.AioRpcError as exc:
                self.errors[error_key(exc)] += 1
                attempt += 1
                if attempt >= MAX_ATTEMPTS or pc() - t0 > MOVE_MAX_S:
                    self.gave_up += 1
                    return False
                code = exc.code()
                if code not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                    aid = self._action_id()  # a rejection is stored under its action_id
                if self.route == "random":
                    target = self.rng.randrange(self.n_servers)
                await asyncio.sleep(min(0.05, 0.001 * 2 ** (attempt - 1)))
                continue
            if attempt:
                self.retried += 1
            g.after(r)
            return True

    async def close(self) -> None:
        for ch in self.channels.values():
            await ch.close()


async def play(c: Client, max_moves: int, deadline: float, lat: list[float]) -> tuple[int, float]:
    """Moves until max_moves or the deadline; returns (accepted moves, untimed seconds)."""
    moves, untimed = 0, 0.0
    while moves < max_moves and pc() < deadline:
        t = pc()
        ok = await c.step()
        if ok:
            lat.append(pc() - t)
            moves += 1
        assert c.game is not None
        if not ok or c.game.over:
            t = pc()
            await c.next_game()
            untimed += pc() - t
    return moves, untimed


async def gather_all(coros: list[Any]) -> list[Any]:
    """asyncio.gather that cancels the others when one fails (no task outlives its run)."""
    tasks = [asyncio.ensure_future(c) for c in coros]
    try:
        return await asyncio.gather(*tasks)
    except BaseException:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


async def run_variant(cmd: dict[str, Any]) -> dict[str, Any]:
    targets: list[str] = cmd["targets"]
    n = len(targets)
    route = cmd["route"]
    need = cmd["warmup"] + min(cmd["max_moves"], math.ceil(cmd["max_s"] * cmd["rate_guess"]))
    clients = [
        Client(
            targets,
            home=i % n if route in ("own", "random") else 0,
            route=route,
            first_seed=7 * i,
            moves=need,
            rng=1000 * cmd["round"] + i,
        )
        for i in range(cmd["clients"])
    ]
    try:
        for c in clients:
            await c.prepare()
        await gather_all([play(c, cmd["warmup"], pc() + 30, []) for c in clients])
        warmup_errors = sum((c.errors for c in clients), Counter())
        for c in clients:
            c.reset()
        ours = our_backends(cmd["server_pids"], cmd["pg_url"]) if cmd.get("pg_url") else []
        meter = Meter(cmd["server_pids"], ours)
        lat: list[float] = []
        meter.start()
        start = pc()
        done = await gather_all(
            [play(c, cmd["max_moves"], start + cmd["max_s"], lat) for c in clients]
        )
        end = pc()
        cpu = meter.stop()
    finally:
        for c in clients:
            await c.close()
    untimed = max(u for _, u in done)
    return {
        "ok": True,
        "lat_ms": [x * 1000 for x in lat],
        "moves": sum(m for m, _ in done),
        "wall_s": end - start - untimed,
        "untimed_s": untimed,
        "window_s": end - start,
        "errors": dict(sum((c.errors for c in clients), Counter())),
        "warmup_errors": dict(warmup_errors),
        "retried_moves": sum(c.retried for c in clients),
        "gave_up": sum(c.gave_up for c in clients),
        "games_switched": sum(c.games_used for c in clients),
        **cpu,
    }


async def handle(cmd: dict[str, Any]) -> dict[str, Any]:
    try:
        return await asyncio.wait_for(run_variant(cmd), cmd.get("timeout_s", WORKER_TIMEOUT_S))
    except Exception as exc:  # report, keep serving
        import traceback

        return {
            "ok": False,
            "error": f"{type(exc).__name__}: {exc}",
            "trace": traceback.format_exc(),
        }


def worker_main() -> int:
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    print(json.dumps({"ready": True, "grpcio": grpc.__version__}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        cmd = json.loads(line)
        if cmd.get("op") == "quit":
            break
        out = loop.run_until_complete(handle(cmd))
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
    loop.close()
    return 0


# ------------------------------------------------------------------ processes (coordinator)


def _die_with_parent() -> None:
    """In the child before exec: SIGTERM when this script dies, however it dies (Linux)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class Started:
    """A process we started; stop() ends it (and only it) by PID."""

    def __init__(
        self,
        name: str,
        argv: list[str],
        log: TextIO,
        pipe_stdin: bool = False,
        code: Path | None = None,
    ) -> None:
        self.name = name
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1"}
        if code is not None and code != REPO:  # run that checkout's code, not the venv's
            paths = [code, code / "services", code / "clients" / "python"]
            env["PYTHONPATH"] = os.pathsep.join(str(p) for p in paths)
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if pipe_stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            bufsize=1,
            cwd=code or REPO,
            env=env,
            preexec_fn=_die_with_parent,  # noqa: PLW1509 — no threads touch it before exec
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def readline(self, timeout: float) -> str:
        try:
            line = self.lines.get(timeout=max(0.05, timeout))
        except queue.Empty:
            raise TimeoutError(f"{self.name}: no answer within {timeout:.0f} s") from None
        if line is None:
            raise RuntimeError(f"{self.name} exited (rc={self.proc.poll()})")
        return line

    def signal_stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)

    def wait_stopped(self) -> int | None:
        try:
            return self.proc.wait(SERVER_STOP_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait(5)


class Server(Started):
    def __init__(self, name: str, db: str, log: TextIO, code: Path) -> None:
        argv = [sys.executable, "-m", "cardcore.cli", "serve", "--port", "0", "--db", db]
        super().__init__(name, [*argv, *SERVER_FLAGS], log, code=code)
        self.target = ""

    def wait_ready(self, deadline: float) -> None:
        while True:
            line = self.readline(deadline - time.monotonic()).strip()
            if line.startswith(READY):
                self.target = f"127.0.0.1:{int(line.rsplit(':', 1)[1])}"
                return


class WorkerSlot:
    """The client worker, restarted after it timed out or died (a late answer must never be
    read as the next variant's)."""

    def __init__(self, log: TextIO) -> None:
        self.log = log
        self.worker: Worker | None = None
        self.restarts = 0

    def run(self, cmd: dict[str, Any], timeout: float) -> dict[str, Any]:
        if self.worker is None:
            self.worker = Worker(self.log)
        try:
            return self.worker.run(cmd, timeout)
        except (TimeoutError, RuntimeError, OSError, ValueError):
            self.stop()
            self.restarts += 1
            raise

    def stop(self) -> None:
        if self.worker is not None:
            self.worker.quit()
            self.worker.signal_stop()
            self.worker.wait_stopped()
            self.worker = None


class Worker(Started):
    def __init__(self, log: TextIO) -> None:
        argv = [sys.executable, str(Path(__file__).resolve()), "--worker"]
        super().__init__("worker", argv, log, pipe_stdin=True)
        try:
            self.hello = json.loads(self.readline(60))
        except Exception:
            self.signal_stop()
            self.wait_stopped()
            raise

    def run(self, cmd: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({**cmd, "timeout_s": timeout}) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.readline(timeout + 15))

    def quit(self) -> None:
        with contextlib.suppress(Exception):
            assert self.proc.stdin is not None
            self.proc.stdin.write('{"op": "quit"}\n')
            self.proc.stdin.close()
            self.proc.wait(5)


# ------------------------------------------------------------------ stores


def with_search_path(url: str, schema: str) -> str:
    """``url`` with ``options=-csearch_path=<schema>`` (copied from tests/service/pg.py)."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "options"]
    query.append(("options", f"-csearch_path={schema}"))
    return urlunsplit(parts._replace(query=urlencode(query)))


def shown(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@")))


class Schemas:
    """Scratch schemas: created per deployment and round, dropped after it (and at the end)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.live: set[str] = set()
        self.tag = secrets.token_hex(3)

    def _exec(self, sql: str) -> None:
        """Run ``sql``; while the server cannot be reached (e.g. it is restarting) retry for
        up to ~30 s."""
        import psycopg

        for attempt in range(10):
            try:
                with psycopg.connect(self.url, connect_timeout=5, autocommit=True) as conn:
                    conn.execute(sql)
                return
            except psycopg.OperationalError:
                if attempt == 9:
                    raise
                time.sleep(3)

    def create(self, name: str) -> str:
        schema = f"scaleout_{self.tag}_{name}"
        self._exec(f"CREATE SCHEMA {schema}")
        self.live.add(schema)
        return with_search_path(self.url, schema)

    def drop(self, url: str | None = None) -> None:
        names = list(self.live) if url is None else [self._name(url)]
        for schema in names:
            try:
                self._exec(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
                self.live.discard(schema)
            except Exception as exc:  # keep going: report it
                print(f"could not drop schema {schema}: {exc}", file=sys.stderr)

    @staticmethod
    def _name(url: str) -> str:
        options = dict(parse_qsl(urlsplit(url).query))["options"]
        return options.split("=", 1)[1]


def pg_info(url: str) -> dict[str, Any]:
    import psycopg

    with psycopg.connect(url, connect_timeout=5, autocommit=True) as conn:
        info = {
            k: conn.execute(f"SHOW {k}").fetchone()[0]  # type: ignore[index]
            for k in (
                "server_version",
                "synchronous_commit",
                "fsync",
                "wal_sync_method",
                "commit_delay",
                "max_connections",
            )
        }
        info["postmaster_start"] = str(
            conn.execute("SELECT pg_postmaster_start_time()").fetchone()[0]
        )  # type: ignore[index]
        info["other_sessions_at_start"] = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' "
            "AND pid <> pg_backend_pid()"
        ).fetchone()[0]  # type: ignore[index]
    return info


# ------------------------------------------------------------------ statistics


def pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(p * len(s)))]


def metrics(r: dict[str, Any]) -> dict[str, Any]:
    nan = float("nan")
    lat, moves, wall = r["lat_ms"], r["moves"], r["wall_s"]

    def per_move(key: str) -> float:
        v = r.get(key)
        return 1e6 * v / moves if v is not None and moves else nan

    cpu = [r.get(k) for k in ("server_cpu_s", "pg_cpu_s", "client_cpu_s")]
    window = r.get("window_s", wall)  # the meter's span: the timed loop with its game switches
    return {
        "moves": moves,
        "wall_s": wall,
        "moves_per_s": moves / wall if wall > 0 else nan,
        "p50_ms": pct(lat, 0.50) if lat else nan,
        "p99_ms": pct(lat, 0.99) if lat else nan,
        "mean_ms": statistics.fmean(lat) if lat else nan,
        "server_cpu_us_per_move": per_move("server_cpu_s"),
        "pg_cpu_us_per_move": per_move("pg_cpu_s"),
        "pg_ours_cpu_us_per_move": per_move("pg_ours_cpu_s"),
        "client_cpu_us_per_move": per_move("client_cpu_s"),
        "cores_busy": sum(c for c in cpu if c is not None) / window if window > 0 else nan,
        "machine_cores_busy": r["machine_cpu_s"] / window
        if r.get("machine_cpu_s") is not None and window > 0
        else nan,
        "errors": r.get("errors", {}),
        "warmup_errors": r.get("warmup_errors", {}),
        "error_count": sum(r.get("errors", {}).values()),
        "retried_moves": r.get("retried_moves", 0),
        "gave_up": r.get("gave_up", 0),
        "untimed_s": r.get("untimed_s", 0.0),
        "pg_pids": r.get("pg_pids"),
        "pg_pids_gone": r.get("pg_pids_gone"),
        "pg_ours_pids": r.get("pg_ours_pids"),
    }


def mmm(xs: list[float]) -> tuple[float, float, float] | None:
    xs = [x for x in xs if x == x]
    return (statistics.median(xs), min(xs), max(xs)) if xs else None


def fmt(t: tuple[float, float, float] | None, digits: int = 2) -> str:
    if t is None:
        return "n/a"

    def f(x: float) -> str:
        if abs(x) >= 100:
            return f"{x:,.0f}"
        if abs(x) >= 10:
            return f"{x:.1f}"
        return f"{x:.{digits}f}"

    return f"{f(t[0])} ({f(t[1])}–{f(t[2])})"


def summarize(
    rounds: list[dict[str, dict[str, Any] | None]], selected: list[str]
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for vid, dep, wl in variant_ids():
        if vid not in selected:
            continue
        per = [r.get(vid) for r in rounds if vid in r]
        ok = [m for m in per if m]
        row: dict[str, Any] = {
            "deployment": dep.label,
            "workload": wl.label,
            "mode": wl.mode,
            "rounds_ok": len(ok),
            "rounds": len(per),
        }
        for k in (
            "moves_per_s",
            "p50_ms",
            "p99_ms",
            "server_cpu_us_per_move",
            "pg_cpu_us_per_move",
            "pg_ours_cpu_us_per_move",
            "client_cpu_us_per_move",
            "cores_busy",
            "machine_cores_busy",
        ):
            row[k] = mmm([m[k] for m in ok])
        ref = f"pg1.{wl.mode}"
        ratio = []
        for r in rounds:  # pairwise, within the same round
            a, b = r.get(vid), r.get(ref)
            if a and b and b["moves_per_s"] > 0:
                ratio.append(a["moves_per_s"] / b["moves_per_s"])
        row["vs_pg1"] = mmm(ratio)
        errors: Counter[str] = Counter()
        warm: Counter[str] = Counter()
        for m in ok:
            errors.update(m["errors"])
            warm.update(m["warmup_errors"])
        row["errors"] = dict(errors.most_common())
        row["warmup_errors"] = dict(warm.most_common())
        row["error_count"] = sum(errors.values())
        row["moves_total"] = sum(m["moves"] for m in ok)
        row["retried_moves"] = sum(m["retried_moves"] for m in ok)
        row["gave_up"] = sum(m["gave_up"] for m in ok)
        out[vid] = row
    return out


def table(summary: dict[str, Any], header: list[str]) -> str:
    lines = [*header, ""]
    cols = [
        "deployment",
        "workload",
        "moves/s",
        "÷ pg1",
        "p50 ms",
        "p99 ms",
        "server CPU µs/move",
        "PG CPU µs/move (all postgres procs)",
        "PG CPU µs/move (our backends)",
        "client CPU µs/move",
        "cores busy: ours / whole machine",
        "failed attempts / retried moves / given up (of moves)",
    ]
    for mode, title in SECTIONS.items():
        rows = [(vid, r) for vid, r in summary.items() if r["mode"] == mode]
        if not rows:
            continue
        lines += [f"### {title}", "", "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        for vid, r in rows:
            name = vid.split(".")[0]
            if r["rounds_ok"] < r["rounds"]:
                name += f" ({r['rounds'] - r['rounds_ok']} round(s) failed)"
            cells = [
                name,
                vid.split(".", 1)[1],
                fmt(r["moves_per_s"], 0),
                fmt(r["vs_pg1"]) if not vid.startswith("pg1.") else "1",
                fmt(r["p50_ms"]),
                fmt(r["p99_ms"]),
                fmt(r["server_cpu_us_per_move"], 0),
                fmt(r["pg_cpu_us_per_move"], 0),
                fmt(r["pg_ours_cpu_us_per_move"], 0),
                fmt(r["client_cpu_us_per_move"], 0),
                f"{fmt(r['cores_busy'])} / {fmt(r['machine_cores_busy'])}",
                f"{r['error_count']} / {r['retried_moves']} / {r['gave_up']} "
                f"(of {r['moves_total']:,})",
            ]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    errs = [(vid, r) for vid, r in summary.items() if r["errors"] or r["warmup_errors"]]
    if errs:
        lines += [
            "Failed attempts by gRPC code/reason, all rounds (timed loop; warm-up apart):",
            "",
        ]
        for vid, r in errs:
            timed = ", ".join(f"{k} ×{v}" for k, v in r["errors"].items()) or "none"
            warm = ", ".join(f"{k} ×{v}" for k, v in r["warmup_errors"].items())
            lines.append(f"* `{vid}`: {timed}" + (f"; warm-up: {warm}" if warm else ""))
        lines.append("")
    lines.append(
        "Each cell: median over rounds (min–max). ÷ pg1: moves/s over the 1-server PostgreSQL "
        "row of the same section, taken within each round. Latency: a move's first send to its "
        "acceptance (retries included). CPU per move: utime+stime (all threads, /proc, 10 ms "
        "ticks) over the timed loop, divided by the accepted moves: the deployment's servers "
        "summed; every `postgres` process (pgrep -u postgres: also walwriter etc. and anyone "
        "else's backends); the backends of our servers' connections; the client worker. "
        "Cores busy: (servers + all postgres + client) CPU / wall time, and the whole machine's "
        "busy CPU (/proc/stat) over the same loop: a gap between them is someone else's load."
    )
    return "\n".join(lines)


# ------------------------------------------------------------------ environment


def fsync_probe(directory: Path, n: int = 200) -> dict[str, float]:
    """p50/p99 of write(200 B) + fsync on the SQLite store's filesystem (bench.py)."""
    path = directory / "fsync-probe"
    lat = []
    with open(path, "wb") as f:
        for _ in range(n):
            t = pc()
            f.write(b"x" * 200)
            f.flush()
            os.fsync(f.fileno())
            lat.append((pc() - t) * 1000)
    path.unlink()
    return {"p50_ms": pct(lat, 0.5), "p99_ms": pct(lat, 0.99)}


def git(*args: str, cwd: Path = REPO) -> str:
    try:
        out = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=30, check=False
        )
        return out.stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def git_state() -> dict[str, Any]:
    """HEAD and the uncommitted files of the code the servers run (this checkout)."""
    return {
        "head": git("rev-parse", "HEAD") or "?",
        "dirty": git("status", "--porcelain", "--", "services", "cardcore", "clients").splitlines(),
    }


def export_code(spec: str, scratch: Path) -> tuple[Path, dict[str, Any]]:
    """``--code``: a directory (another checkout) as it is, or a git revision of this repository
    exported with ``git archive`` into ``scratch`` (the working tree is not touched); the
    generated stubs (gitignored) are copied from this checkout, refused if the proto differs."""
    if spec in ("", "."):
        return REPO, {"code": "this checkout's working tree", **git_state()}
    d = Path(spec)
    if d.is_dir():
        d = d.resolve()
        if not (d / "services" / "cardcore_server" / "_pb").is_dir():
            raise SystemExit(
                f"--code {d}: no services/cardcore_server/_pb (run `make proto` there)"
            )
        return d, {"code": f"directory {d}", "head": git("rev-parse", "HEAD", cwd=d) or "?"}
    sha = git("rev-parse", "--verify", f"{spec}^{{commit}}")
    if not sha:
        raise SystemExit(f"--code {spec}: neither a directory nor a git revision of {REPO}")
    if git("diff", "--name-only", sha, "--", "proto"):
        raise SystemExit(
            f"--code {spec}: its proto/ differs from this checkout's; export it, "
            "run `make proto` there and pass the directory"
        )
    dest = scratch / f"code-{sha[:12]}"
    dest.mkdir()
    archive = subprocess.run(["git", "archive", sha], cwd=REPO, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    pb_dir = REPO / "services" / "cardcore_server" / "_pb"
    shutil.copytree(pb_dir, dest / "services" / "cardcore_server" / "_pb")
    return dest, {"code": f"git archive {spec} ({sha[:12]})", "head": sha, "dirty": []}


def scan_log(path: Path, offset: int) -> dict[str, int]:
    """level/event -> count of the warning-or-worse JSON log lines written after ``offset``."""
    out: Counter[str] = Counter()
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            f.seek(offset)
            for line in f:
                try:
                    rec = json.loads(line)
                    key = f"{rec.get('level', '?')}/{rec.get('event', '?')}"
                except (ValueError, AttributeError):
                    key = "non-json: " + line.strip()[:80]
                out[key] += 1
    except OSError:
        pass
    return dict(out)


# ------------------------------------------------------------------ main


def run_block(
    dep: Deployment,
    rnd: int,
    wls: list[Workload],
    ns: argparse.Namespace,
    worker: WorkerSlot,
    schemas: Schemas | None,
    sqlite_dir: Path,
    log_dir: Path,
    logs: dict[str, TextIO],
    raw: list[dict[str, Any]],
    server_log_findings: dict[str, Counter[str]],
) -> dict[str, dict[str, Any] | None]:
    """One deployment in one round: a fresh store, its servers, its workloads, then stop."""
    results: dict[str, dict[str, Any] | None] = {}
    if dep.store == "sqlite":
        db = str(sqlite_dir / f"{dep.id}-r{rnd}.db")
    else:
        assert schemas is not None
        db = schemas.create(f"{dep.id}_r{rnd}")
    servers: list[Server] = []
    offsets: dict[str, int] = {}
    try:
        t0 = time.monotonic()
        for i in range(dep.servers):
            name = f"{dep.id}-s{i}"
            if name not in logs:  # one file per server slot and run, every round in it
                logs[name] = open(log_dir / f"{name}.log", "w")  # noqa: SIM115
            log = logs[name]
            log.write(f'{{"bench": "round {rnd} starts"}}\n')
            log.flush()
            offsets[name] = os.path.getsize(log_dir / f"{name}.log")
            servers.append(Server(name, db, log, ns.code_dir))
        deadline = time.monotonic() + 60
        for s in servers:
            s.wait_ready(deadline)
        up_s = time.monotonic() - t0
        for wl in wls:
            vid = f"{dep.id}.{wl.id}"
            params = dict(MODE_PARAMS[wl.mode])
            if ns.smoke:
                params["warmup"] = min(params["warmup"], 20)
            cmd = {
                "variant": vid,
                "round": rnd,
                "mode": wl.mode,
                "route": wl.route,
                "targets": [s.target for s in servers],
                "server_pids": [s.proc.pid for s in servers],
                "pg_url": db if dep.store == "pg" else None,
                "max_s": ns.max_s,
                **params,
            }
            t = time.monotonic()
            try:
                r = worker.run(cmd, timeout=WORKER_TIMEOUT_S)
            except (TimeoutError, RuntimeError, OSError, ValueError) as exc:
                r = {"ok": False, "error": f"worker: {type(exc).__name__}: {exc} (restarted)"}
            elapsed = time.monotonic() - t
            if r.get("ok") and r.get("moves"):
                m = metrics(r)
                results[vid] = m
                msg = (
                    f"{m['moves_per_s']:7.0f} moves/s  p50 {m['p50_ms']:7.3f} ms  "
                    f"p99 {m['p99_ms']:8.3f} ms  srv {m['server_cpu_us_per_move']:5.0f} µs  "
                    f"pg {m['pg_cpu_us_per_move']:5.0f} µs  errors {m['error_count']}"
                    f"  ({m['moves']} moves, {elapsed:.1f} s)"
                )
            else:
                results[vid] = None
                msg = f"FAILED: {r.get('error') or 'no move accepted'}"
                (log_dir / f"fail-r{rnd}-{vid}.txt").write_text(json.dumps(r, indent=1))
            raw.append(
                {
                    "round": rnd,
                    "variant": vid,
                    "cmd": {k: v for k, v in cmd.items() if k != "pg_url"},
                    "elapsed_s": elapsed,
                    "servers_up_s": up_s,
                    "metrics": results[vid],
                    "lat_ms": [round(x, 3) for x in r.get("lat_ms", [])],
                }
            )
            print(f"  r{rnd} {vid:<16} {msg}", flush=True)
            time.sleep(0.2)  # let sockets close between variants
    finally:
        for s in servers:
            s.signal_stop()
        for s in servers:
            rc = s.wait_stopped()
            if rc not in (0, None, -signal.SIGTERM):
                server_log_findings[dep.id][f"exit code {rc}"] += 1
        for name, off in offsets.items():
            logs[name].flush()
            server_log_findings[dep.id].update(scan_log(log_dir / f"{name}.log", off))
        if dep.store == "sqlite":
            for p in sqlite_dir.glob(f"{dep.id}-r{rnd}.db*"):
                p.unlink(missing_ok=True)
        elif schemas is not None:
            schemas.drop(db)
    return results


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("out_dir", type=Path, nargs="?", default=DEFAULT_OUT)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--max-s", type=float, default=1.5, help="timed seconds per variant and round")
    ap.add_argument("--smoke", action="store_true", help="2 rounds x 0.3 s: a check, not a result")
    ap.add_argument("--only", default="", help="comma-separated substrings of variant ids")
    ap.add_argument("--list", action="store_true", help="list the variants and exit")
    ap.add_argument("--pg-url", default=DEFAULT_PG, help="PostgreSQL (env CARDCORE_TEST_PG)")
    ap.add_argument("--db-dir", type=Path, default=Path("/var/tmp"), help="for the SQLite file")
    ap.add_argument(
        "--budget-s", type=float, default=270, help="start no new round after this many seconds"
    )
    ap.add_argument(
        "--code",
        default="",
        help="the server code to run: a git revision of this repository (exported with git "
        "archive to a temp dir; the working tree is not touched) or another checkout's directory "
        "(default: this checkout's working tree, as it is)",
    )
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ns = ap.parse_args()
    if ns.worker:
        return worker_main()
    if ns.list:
        for vid, dep, wl in variant_ids():
            print(f"{vid:<16} {dep.label}; {wl.label}")
        return 0
    if ns.smoke:
        ns.rounds, ns.max_s = 2, 0.3
    if ns.rounds < 1 or ns.max_s <= 0:
        ap.error("--rounds must be >= 1 and --max-s > 0")
    selected = [
        vid
        for vid, _, _ in variant_ids()
        if not ns.only or any(s and s in vid for s in ns.only.split(","))
    ]
    if not selected:
        ap.error("--only matched no variant")
    blocks = [
        (dep, [w for w in workloads_of(dep) if f"{dep.id}.{w.id}" in selected])
        for dep in DEPLOYMENTS
    ]
    blocks = [(d, ws) for d, ws in blocks if ws]
    need_pg = any(d.store == "pg" for d, _ in blocks)

    out: Path = ns.out_dir
    log_dir = out / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    t_begin = time.monotonic()
    load_begin = os.getloadavg()
    env: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%d %H:%M:%S %z"),
        "host": platform.node(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "grpcio": grpc.__version__,
        "git_start": git_state(),
        "code": None,
        "rounds": ns.rounds,
        "max_s": ns.max_s,
        "smoke": ns.smoke,
        "server_flags": list(SERVER_FLAGS),
        "pg_url": shown(ns.pg_url) if need_pg else None,
    }
    if need_pg:
        try:
            env["pg"] = pg_info(ns.pg_url)
        except Exception as exc:
            print(f"PostgreSQL not reachable at {shown(ns.pg_url)}: {exc}", file=sys.stderr)
            print("(use --pg-url, or --only sqlite)", file=sys.stderr)
            return 2

    def on_signal(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
    sqlite_dir = Path(tempfile.mkdtemp(prefix="scaleout-", dir=str(ns.db_dir)))
    code_scratch = Path(tempfile.mkdtemp(prefix="scaleout-code-"))
    try:
        ns.code_dir, env["code"] = export_code(ns.code, code_scratch)
    except BaseException:
        shutil.rmtree(sqlite_dir, ignore_errors=True)
        shutil.rmtree(code_scratch, ignore_errors=True)
        raise
    schemas = Schemas(ns.pg_url) if need_pg else None
    logs: dict[str, TextIO] = {}
    rounds: list[dict[str, dict[str, Any] | None]] = []
    raw: list[dict[str, Any]] = []
    findings: dict[str, Counter[str]] = {d.id: Counter() for d in DEPLOYMENTS}
    worker: WorkerSlot | None = None
    try:
        env["sqlite_dir"] = str(sqlite_dir)
        env["fsync_probe_sqlite_dir"] = fsync_probe(sqlite_dir)
        worker_log = open(log_dir / "worker.log", "w")  # noqa: SIM115
        logs["worker"] = worker_log
        worker = WorkerSlot(worker_log)
        worker.worker = Worker(worker_log)
        env["worker_grpcio"] = worker.worker.hello.get("grpcio")
        print(
            f"{len(selected)} variants x {ns.rounds} round(s) x {ns.max_s} s; fsync on "
            f"{sqlite_dir}: p50 {env['fsync_probe_sqlite_dir']['p50_ms']:.2f} ms; "
            f"load {load_begin[0]:.2f}",
            flush=True,
        )
        for rnd in range(1, ns.rounds + 1):
            if rnd > 1 and time.monotonic() - t_begin > ns.budget_s:
                print(f"time budget reached: stopping after {rnd - 1} round(s)", flush=True)
                break
            t_round = time.monotonic()
            results: dict[str, dict[str, Any] | None] = {}
            for dep, wls in blocks:
                try:
                    results.update(
                        run_block(
                            dep, rnd, wls, ns, worker, schemas, sqlite_dir, log_dir, logs, raw,
                            findings,
                        )
                    )  # fmt: skip
                except (TimeoutError, RuntimeError, OSError) as exc:  # e.g. a server did not start
                    print(f"  r{rnd} {dep.id}: FAILED: {exc}", flush=True)
                    findings[dep.id][f"block failed: {exc}"] += 1
                    results.update({f"{dep.id}.{w.id}": None for w in wls})
            rounds.append(results)
            print(
                f"round {rnd}/{ns.rounds} done in {time.monotonic() - t_round:.1f} s; "
                f"load {os.getloadavg()[0]:.2f}",
                flush=True,
            )
    except KeyboardInterrupt:
        print("interrupted: stopping", file=sys.stderr)
    finally:
        if worker is not None:
            worker.stop()
            env["worker_restarts"] = worker.restarts
        if schemas is not None:
            schemas.drop()
        shutil.rmtree(sqlite_dir, ignore_errors=True)
        shutil.rmtree(code_scratch, ignore_errors=True)
        for f in logs.values():
            f.close()

    if not rounds:
        print("no round completed", file=sys.stderr)
        return 1
    env["load_begin"] = load_begin
    env["load_end"] = os.getloadavg()
    env["total_s"] = time.monotonic() - t_begin
    env["git_end"] = git_state()
    if "pg" in env:
        try:
            env["pg_end"] = pg_info(ns.pg_url)
        except Exception as exc:
            env["pg_end"] = {"error": str(exc)}
        if env["pg_end"].get("postmaster_start") != env["pg"]["postmaster_start"]:
            print("warning: PostgreSQL restarted during the run", file=sys.stderr)
    if ns.code_dir == REPO and env["git_end"] != env["git_start"]:
        print("warning: the working tree changed during the run", file=sys.stderr)
    env["server_log_findings"] = {k: dict(v) for k, v in findings.items() if v}
    summary = summarize(rounds, selected)
    code = env["code"]
    dirty = code.get("dirty") or []
    header = [
        "## cardcore scale-out: SubmitAction on 1 SQLite server vs 1/2/3 servers on one "
        "PostgreSQL" + (" — SMOKE RUN (not a result)" if ns.smoke else ""),
        "",
        f"{env['when']} · {env['cpus']} CPUs · load avg {load_begin[0]:.2f} → "
        f"{env['load_end'][0]:.2f} · {len(rounds)} round(s) × {ns.max_s} s per variant · "
        f"python {env['python']} · grpcio {env['grpcio']} · total {env['total_s']:.0f} s",
        f"server code: {code['code']}, {str(code.get('head'))[:12]}"
        + (f" + {len(dirty)} uncommitted file(s) in cardcore/services/clients" if dirty else "")
        + (
            " (CHANGED during the run)"
            if ns.code_dir == REPO and env["git_end"] != env["git_start"]
            else ""
        )
        + f" · SQLite on {sqlite_dir.parent} (write+fsync p50 "
        f"{env['fsync_probe_sqlite_dir']['p50_ms']:.2f} ms)"
        + (
            f" · PostgreSQL {env['pg']['server_version']} (synchronous_commit="
            f"{env['pg']['synchronous_commit']}, fsync={env['pg']['fsync']}, "
            f"{env['pg']['other_sessions_at_start']} other session(s) at start)"
            if "pg" in env
            else ""
        ),
    ]
    runs = [m for r in rounds for m in r.values() if m]
    busy = [m for m in runs if m["machine_cores_busy"] - m["cores_busy"] > OTHER_LOAD_CORES]
    if busy:
        header.append(
            f"**WARNING: {len(busy)} of {len(runs)} timed loops ran next to someone else's load "
            f"(whole machine busy > ours + {OTHER_LOAD_CORES} cores): figures are unreliable.**"
        )
    if "pg_end" in env and env["pg_end"].get("postmaster_start") != env["pg"]["postmaster_start"]:
        header.append("**WARNING: PostgreSQL restarted during the run.**")
    text = table(summary, header)
    if env["server_log_findings"]:
        text += "\n\nServer log lines at warning or worse (all rounds): " + "; ".join(
            f"{d}: " + ", ".join(f"{k} ×{v}" for k, v in c.items())
            for d, c in env["server_log_findings"].items()
        )
    print()
    print(text)
    (out / "table.md").write_text(text + "\n")
    (out / "results.json").write_text(
        json.dumps({"env": env, "summary": summary, "rounds": rounds, "raw": raw}, indent=1)
    )
    print(f"\nwrote {out / 'table.md'} and {out / 'results.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
