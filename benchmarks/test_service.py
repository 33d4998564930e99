"""Service benchmarks against a real server on 127.0.0.1, each next to its same-run baseline.

* SubmitAction throughput and p50/p99 latency with 1 and 8 concurrent clients (durable appends:
  WAL, synchronous=FULL, group commit), next to a no-op unary gRPC call on a no-op grpc.aio server
  measured in the same run with the same client code;
* StreamEvents entries/s (catching up a finished game; batched), next to a no-op server stream's
  messages/s;
* fan-out: one game, one actor and 8 spectators (a channel each, live StreamEvents), the next move
  sent once the actor's ack and all 8 copies arrived: moves/s, all-8-seen p50/p99, ack p50, next to
  a no-op unary call that pushes one message to 8 open no-op server streams;
* server CPU per action (utime + stime of the server process over the timed loop, from
  /proc/PID/stat; 10 ms ticks) for SubmitAction, the fan-out and their no-op baselines;
* 1,000 live games on one server: p99 submit latency next to a single game's.

Figures are wall-clock, measured here (pytest-benchmark's own timer sees one round of each run);
they are printed and stored in ``extra_info``. Run with ``make bench``.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any, Final

import grpc
import pytest

from cardcore import registry
from cardcore.match import Match
from cardcore_client import Client
from cardcore_proto import game_service_pb2 as pb
from cardcore_proto import game_service_pb2_grpc as pb_grpc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.conftest import Noop
from tests.service.helpers import ServerProcess


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    with tempfile.TemporaryDirectory() as tmp:
        srv = ServerProcess(
            Path(tmp), "--allow-client-seed", "--collect-window-ms", "0", "--log-level", "warning"
        ).start()
        yield srv
        srv.stop()


def server_pid(server: ServerProcess) -> int:
    assert server.proc is not None
    return server.proc.pid


CLK_TCK: Final = os.sysconf("SC_CLK_TCK")


def proc_cpu_s(pid: int) -> float:
    """utime + stime of a process, all its threads (/proc/PID/stat fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


class CpuMeter:
    """Server and client (this process) CPU over a timed loop, in µs per action."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.server0, self.client0 = proc_cpu_s(pid), time.process_time()

    def per_action(self, actions: int) -> dict[str, float]:
        server = proc_cpu_s(self.pid) - self.server0
        client = time.process_time() - self.client0
        return {"server_cpu_us": 1e6 * server / actions, "client_cpu_us": 1e6 * client / actions}


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def summary(latencies: list[float], elapsed: float) -> dict[str, float]:
    return {
        "calls": len(latencies),
        "per_s": len(latencies) / elapsed,
        "p50_ms": pct(latencies, 0.50) * 1000,
        "p99_ms": pct(latencies, 0.99) * 1000,
        "mean_ms": statistics.fmean(latencies) * 1000,
    }


async def run_clients(
    n_clients: int,
    calls_each: int,
    make: Callable[[int], Awaitable[Callable[[], Awaitable[Any]]]],
    pid: int | None = None,
) -> dict[str, float]:
    """``pid``: the server's, to add its CPU per call over the timed loop."""
    workers = [await make(i) for i in range(n_clients)]
    for w in workers:  # warm up each connection and code path
        for _ in range(20):
            await w()
    latencies: list[float] = []

    async def loop(w: Callable[[], Awaitable[Any]]) -> None:
        for _ in range(calls_each):
            t = time.perf_counter()
            await w()
            latencies.append(time.perf_counter() - t)

    meter = CpuMeter(pid) if pid is not None else None
    start = time.perf_counter()
    await asyncio.gather(*(loop(w) for w in workers))
    out = summary(latencies, time.perf_counter() - start)
    if meter is not None:
        out.update(meter.per_action(len(latencies)))
    return out


AUTO_COLLECT: Final = {"auto_collect": True}
PLAY: Final = pb.GameValue(kind="Play", json='{"kind":"Play"}')
COLLECT: Final = pb.GameValue(kind="Collect", json='{"kind":"Collect"}')
TURN_EVENTS: Final = ("CardPlayed", "TurnPassed", "ChallengeLapsed")


def next_turn(events: Any, turn: int, command: Any) -> tuple[int, Any]:
    """The seat to act and its command (Play or Collect; no slaps) after an entry's events."""
    for e in events:
        if e.kind == "PileOwed":
            turn, command = json.loads(e.json)["seat"], COLLECT
        elif e.kind == "PileTaken":
            turn, command = json.loads(e.json)["seat"], PLAY
        elif e.kind in TURN_EVENTS:
            current = json.loads(e.json).get("current")
            if current is not None:
                turn, command = current, PLAY
    return turn, command


class ErsDriver:
    """Drives one ERS game with accepted actions only (the seat to act plays or collects; no
    slaps), starting a new game when one ends. Submits through the raw stub, so the client's
    own cost stays close to the no-op call's."""

    def __init__(self, client: Client, seed: int, seats: int = 2) -> None:
        self.client = client
        self.seed = seed
        self.seats = seats
        self.n = 0
        self.stub = client.stub

    async def new_game(self, seed: int | None = None) -> None:
        self.seed = seed if seed is not None else self.seed + 1
        g = await self.client.create_game("ratscrew", ["human"] * self.seats, seed=self.seed)
        self.game_id = g.game_id
        self.tokens = [g.seat_tokens[i] for i in range(self.seats)]
        self.metadata = [(("authorization", f"Bearer {t}"),) for t in self.tokens]
        self.turn, self.command = 0, PLAY

    async def step(self) -> None:
        self.n += 1
        request = pb.SubmitActionRequest(
            game_id=self.game_id, action_id=f"b{self.n}", command=self.command
        )
        try:
            r = await self.stub.SubmitAction(request, metadata=self.metadata[self.turn])
        except grpc.aio.AioRpcError:  # cannot happen if the bookkeeping is right; recover
            await self._resync()
            return
        if r.HasField("outcome"):
            await self.new_game()
            return
        self.turn, self.command = next_turn(r.entry.events, self.turn, self.command)

    async def _resync(self) -> None:
        for seat in range(self.seats):
            v = await self.client.game(self.game_id, self.tokens[seat]).view()
            if v.outcome is not None:
                await self.new_game()
                return
            for c in v.legal_commands:
                if c.kind in ("Play", "Collect"):
                    self.turn, self.command = seat, PLAY if c.kind == "Play" else COLLECT
                    return


@cache
def longest_game_seed(
    seats: int = 2, tries: int = 300, auto_collect: bool = False
) -> tuple[int, int]:
    """The seed (of the first ``tries``) whose no-slap ERS game is longest, and its length."""
    game = registry.get_game("ratscrew")
    rules = AUTO_COLLECT if auto_collect else None
    best = (0, 0)
    for seed in range(tries):
        m = Match(game, game.make_setup(seats, seed, rules))
        while m.outcome is None:
            for s in range(seats):
                cmds = [c for c in m.legal_commands(s) if type(c).__name__ != "Slap"]
                if cmds:
                    m.submit(s, cmds[0], 0)
                    break
        best = max(best, (m.seq, seed))
    return best[1], best[0]


def noop_unary(target: str) -> Callable[[int], Awaitable[Callable[[], Awaitable[Any]]]]:
    async def make(i: int) -> Callable[[], Awaitable[Any]]:
        channel = grpc.aio.insecure_channel(target)
        call = channel.unary_unary("/bench.Noop/Unary")
        return lambda: call(b"")

    return make


def submits(
    target: str, clients: list[Client]
) -> Callable[[int], Awaitable[Callable[[], Awaitable[Any]]]]:
    async def make(i: int) -> Callable[[], Awaitable[Any]]:
        client = Client(target)
        clients.append(client)
        driver = ErsDriver(client, seed=1000 * (i + 1))
        await driver.new_game()
        return driver.step

    return make


def report(
    capsys: pytest.CaptureFixture[str], title: str, rows: dict[str, dict[str, float]]
) -> None:
    with capsys.disabled():
        print(f"\n{title}")
        for name, r in rows.items():
            extra = "  ".join(
                f"{k}={v:,.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in r.items()
            )
            print(f"  {name:<28} {extra}")


def compare(ours: dict[str, float], base: dict[str, float], **ratios: str) -> dict[str, float]:
    """``{name}_ratio`` = ours ÷ base for each figure ``key=name``, and the server CPU per
    action ours − base (``server_cpu_us_diff``): one run's cardcore figures next to its no-op's."""
    out = {f"{name}_ratio": ours[key] / base[key] for key, name in ratios.items()}
    out["server_cpu_us_diff"] = ours["server_cpu_us"] - base["server_cpu_us"]
    return out


@pytest.mark.parametrize("n_clients", [1, 8])
def test_submit_action_vs_noop_unary(
    benchmark: Any,
    capsys: pytest.CaptureFixture[str],
    server: ServerProcess,
    noop: Noop,
    n_clients: int,
) -> None:
    calls_each = 3000 // n_clients

    async def run() -> dict[str, dict[str, float]]:
        clients: list[Client] = []
        base = await run_clients(n_clients, calls_each, noop_unary(noop.target), noop.pid)
        ours = await run_clients(
            n_clients, calls_each, submits(server.target, clients), server_pid(server)
        )
        for c in clients:
            await c.close()
        return {"noop unary": base, "SubmitAction": ours}

    rows = benchmark.pedantic(lambda: asyncio.run(run()), rounds=1, iterations=1)
    base, ours = rows["noop unary"], rows["SubmitAction"]
    ratios = compare(ours, base, per_s="throughput", p50_ms="p50", p99_ms="p99")
    benchmark.extra_info.update({"noop": base, "submit": ours, **ratios})
    report(
        capsys, f"SubmitAction vs no-op unary, {n_clients} client(s)", {**rows, "ratios": ratios}
    )


def test_stream_events_vs_noop_stream(
    benchmark: Any, capsys: pytest.CaptureFixture[str], server: ServerProcess, noop: Noop
) -> None:
    async def run() -> dict[str, dict[str, float]]:
        client = Client(server.target)
        seed, _length = longest_game_seed()
        driver = ErsDriver(client, seed=seed)
        await driver.new_game(seed)
        game_id, token = driver.game_id, driver.tokens[0]
        while driver.game_id == game_id:  # play one whole (long) game
            await driver.step()
        metadata = (("authorization", f"Bearer {token}"),)
        request = pb.StreamEventsRequest(game_id=game_id)

        async def read_all() -> int:
            return sum(
                [len(b.entries) async for b in client.stub.StreamEvents(request, metadata=metadata)]
            )

        cold = time.perf_counter()
        n = await read_all()
        cold = time.perf_counter() - cold
        rounds, warm_n = 20, 0
        warm = time.perf_counter()
        for _ in range(rounds):
            warm_n += await read_all()
        warm = time.perf_counter() - warm
        await client.close()

        channel = grpc.aio.insecure_channel(noop.target)
        call = channel.unary_stream("/bench.Noop/Stream")
        msgs = 20000
        t = time.perf_counter()
        got = sum([1 async for _ in call(str(msgs).encode())])
        t = time.perf_counter() - t
        await channel.close()
        return {
            "noop stream": {"messages": got, "per_s": got / t},
            "StreamEvents (first read)": {"entries": n, "per_s": n / cold},
            "StreamEvents (cached)": {"entries": warm_n, "per_s": warm_n / warm},
        }

    rows = benchmark.pedantic(lambda: asyncio.run(run()), rounds=1, iterations=1)
    ratio = rows["StreamEvents (first read)"]["per_s"] / rows["noop stream"]["per_s"]
    benchmark.extra_info.update({**rows, "ratio_first_read": ratio})
    report(
        capsys,
        "StreamEvents entries/s vs no-op stream messages/s",
        {**rows, "ratio": {"first_read_x": ratio}},
    )


def test_thousand_live_games_latency(
    benchmark: Any, capsys: pytest.CaptureFixture[str], server: ServerProcess
) -> None:
    games = 1000
    calls = 3000

    async def run() -> dict[str, dict[str, float]]:
        client = Client(server.target)
        single = ErsDriver(client, seed=5)
        await single.new_game()
        one = await run_clients(1, calls, lambda i: _ret(single.step))
        drivers = []
        for i in range(games):
            d = ErsDriver(client, seed=10_000 + 10 * i)
            await d.new_game()
            await d.step()
            drivers.append(d)
        k = {"i": 0}

        async def round_robin() -> None:
            k["i"] += 1
            await drivers[k["i"] % games].step()

        many = await run_clients(1, calls, lambda i: _ret(round_robin))
        await client.close()
        return {"1 live game": one, f"{games} live games": many}

    rows = benchmark.pedantic(lambda: asyncio.run(run()), rounds=1, iterations=1)
    ratio = rows[f"{games} live games"]["p99_ms"] / rows["1 live game"]["p99_ms"]
    benchmark.extra_info.update({**rows, "p99_ratio": ratio})
    report(capsys, f"submit latency with {games} live games", {**rows, "ratio": {"p99_x": ratio}})


SPECTATORS: Final = 8


def open_channel(target: str) -> grpc.aio.Channel:
    """A channel with a TCP connection of its own (not shared through the global subchannel
    pool with the process's other channels to the same target): one client, one connection."""
    return grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])


class Spectators:
    """Follows streams that each yield lists of sequence numbers, which must be 0, 1, 2, ...
    ``arm(seq)`` gives a future resolved (with ``perf_counter()``) once every stream has
    delivered ``seq``; a stream that skips, repeats, fails or ends first sets its exception."""

    def __init__(self, streams: list[AsyncIterator[list[int]]]) -> None:
        self.next = [0] * len(streams)  # per stream: the seq it must deliver next
        self.target, self.count = -1, 0
        self.future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.errors: list[str] = []
        self.ended: set[int] = set()
        self.tasks = [asyncio.create_task(self._follow(i, s)) for i, s in enumerate(streams)]

    def arm(self, seq: int) -> asyncio.Future[float]:
        self.target = seq
        self.count = sum(1 for n in self.next if n > seq)
        self.future = asyncio.get_running_loop().create_future()
        if self.errors or any(self.next[i] <= seq for i in self.ended):
            self.future.set_exception(
                AssertionError("; ".join(self.errors) or f"a stream ended before {seq}")
            )
        elif self.count == len(self.next):
            self.future.set_result(time.perf_counter())
        return self.future

    def _fail(self, error: str) -> None:
        self.errors.append(error)
        if not self.future.done():
            self.future.set_exception(AssertionError(error))

    async def _follow(self, i: int, stream: AsyncIterator[list[int]]) -> None:
        try:
            async for seqs in stream:
                for seq in seqs:
                    if seq != self.next[i]:
                        self._fail(f"spectator {i}: seq {seq}, expected {self.next[i]}")
                        return
                    self.next[i] = seq + 1
                    if seq == self.target:
                        self.count += 1
                        if self.count == len(self.next) and not self.future.done():
                            self.future.set_result(time.perf_counter())
            self.ended.add(i)
            if self.next[i] <= self.target and not self.future.done():
                self.future.set_exception(AssertionError(f"spectator {i} ended at {self.next[i]}"))
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.CANCELLED:
                self._fail(f"spectator {i}: {exc.code().name} {exc.details()}")

    async def close(self) -> None:
        for t in self.tasks:
            t.cancel()
        for t in self.tasks:
            try:
                await t
            except asyncio.CancelledError:
                pass


async def fan_loop(
    specs: Spectators,
    move: Callable[[int], Awaitable[bool]],
    pid: int,
    warmup: int,
    max_moves: int,
    max_s: float,
) -> dict[str, float]:
    """``move(seq)`` makes the move that is entry ``seq`` (True once the game is over); the next
    move goes once it returned (the ack) and every spectator has delivered ``seq``. Stops at
    ``max_moves``, ``max_s`` or the game's end."""
    await asyncio.wait_for(specs.arm(0), 10)  # every stream is open and has delivered seq 0
    seq = 1

    async def one() -> tuple[float, float, bool]:
        nonlocal seq
        seen = specs.arm(seq)
        t = time.perf_counter()
        over = await move(seq)
        ack = time.perf_counter() - t
        all_seen = await asyncio.wait_for(seen, 10) - t
        seq += 1
        return ack, all_seen, over

    for _ in range(warmup):
        assert not (await one())[2], "the game ended in the warm-up"
    acks: list[float] = []
    latencies: list[float] = []
    meter = CpuMeter(pid)
    start = time.perf_counter()
    deadline = start + max_s
    while len(latencies) < max_moves and time.perf_counter() < deadline:
        ack, all_seen, over = await one()
        acks.append(ack)
        latencies.append(all_seen)
        if over:
            break
    wall = time.perf_counter() - start
    cpu = meter.per_action(len(latencies))
    await specs.close()
    assert not specs.errors, specs.errors
    assert specs.next == [seq] * len(specs.next), "a spectator missed an entry"
    return {
        "moves": len(latencies),
        "per_s": len(latencies) / wall,
        "all_seen_p50_ms": pct(latencies, 0.50) * 1000,
        "all_seen_p99_ms": pct(latencies, 0.99) * 1000,
        "ack_p50_ms": pct(acks, 0.50) * 1000,
        **cpu,
    }


async def noop_fanout(noop: Noop, **loop: Any) -> dict[str, float]:
    actor = open_channel(noop.target)
    publish: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = actor.unary_unary(
        "/bench.Noop/Publish"
    )
    channels = [open_channel(noop.target) for _ in range(SPECTATORS)]

    async def follow(channel: grpc.aio.Channel) -> AsyncIterator[list[int]]:
        call: grpc.aio.UnaryStreamMultiCallable[bytes, bytes] = channel.unary_stream(
            "/bench.Noop/Subscribe"
        )
        async for message in call(b""):
            yield [int(message)]

    async def move(seq: int) -> bool:
        assert await publish(str(seq).encode()) == b""
        return False

    specs = Spectators([follow(c) for c in channels])
    try:
        return await fan_loop(specs, move, noop.pid, **loop)
    finally:
        await specs.close()
        for c in [actor, *channels]:
            await c.close()


async def cardcore_fanout(server: ServerProcess, **loop: Any) -> dict[str, float]:
    seed, _length = longest_game_seed(tries=100, auto_collect=True)
    client = Client(server.target)
    g = await client.create_game("ratscrew", ["human"] * 2, rules=AUTO_COLLECT, seed=seed)
    seats = [(("authorization", f"Bearer {g.seat_tokens[s]}"),) for s in range(2)]
    spectator = (("authorization", f"Bearer {g.spectator_token}"),)
    channels = [open_channel(server.target) for _ in range(SPECTATORS)]

    async def follow(channel: grpc.aio.Channel) -> AsyncIterator[list[int]]:
        call = pb_grpc.GameServiceStub(channel).StreamEvents(
            pb.StreamEventsRequest(game_id=g.game_id), metadata=spectator
        )
        async for batch in call:
            yield [e.seq for e in batch.entries]

    state: dict[str, Any] = {"turn": 0, "command": PLAY}

    async def move(seq: int) -> bool:
        request = pb.SubmitActionRequest(
            game_id=g.game_id, action_id=f"f{seq}", command=state["command"]
        )
        r = await client.stub.SubmitAction(request, metadata=seats[state["turn"]])
        assert r.entry.seq == seq, f"acknowledged as seq {r.entry.seq}, expected {seq}"
        state["turn"], state["command"] = next_turn(r.entry.events, state["turn"], state["command"])
        return bool(r.HasField("outcome"))

    specs = Spectators([follow(c) for c in channels])
    try:
        return await fan_loop(specs, move, server_pid(server), **loop)
    finally:
        await specs.close()
        for c in channels:
            await c.close()
        await client.close()


def test_fanout_vs_noop_fanout(
    benchmark: Any, capsys: pytest.CaptureFixture[str], server: ServerProcess, noop: Noop
) -> None:
    """One actor and 8 spectators (a channel each) on one game, lock-step: the next move is
    sent once the ack and all 8 copies arrived. Ratios are cardcore ÷ no-op."""
    loop = {"warmup": 20, "max_moves": 1000, "max_s": 3.0}

    async def run() -> dict[str, dict[str, float]]:
        base = await noop_fanout(noop, **loop)
        ours = await cardcore_fanout(server, **loop)
        return {"noop unary + 8 streams": base, "SubmitAction + 8 streams": ours}

    rows = benchmark.pedantic(lambda: asyncio.run(run()), rounds=1, iterations=1)
    base, ours = rows["noop unary + 8 streams"], rows["SubmitAction + 8 streams"]
    ratios = compare(
        ours,
        base,
        per_s="throughput",
        all_seen_p50_ms="all_seen_p50",
        all_seen_p99_ms="all_seen_p99",
        ack_p50_ms="ack_p50",
    )
    benchmark.extra_info.update({"noop": base, "fanout": ours, **ratios})
    report(
        capsys,
        f"fan-out: 1 actor + {SPECTATORS} spectators vs no-op unary + {SPECTATORS} streams",
        {**rows, "ratios": ratios},
    )


async def _ret(fn: Callable[[], Awaitable[Any]]) -> Callable[[], Awaitable[Any]]:
    return fn


if os.environ.get("CARDCORE_BENCH_QUICK"):
    pytestmark = pytest.mark.skip("quick mode")
