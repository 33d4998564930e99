"""Service benchmarks against a real server on 127.0.0.1, each next to its same-run baseline.

* SubmitAction throughput and p50/p99 latency with 1 and 8 concurrent clients (durable appends:
  WAL, synchronous=FULL, group commit), next to a no-op unary gRPC call on a no-op grpc.aio server
  measured in the same run with the same client code;
* StreamEvents entries/s (catching up a finished game; batched), next to a no-op server stream's
  messages/s;
* 1,000 live games on one server: p99 submit latency next to a single game's.

Figures are wall-clock, measured here (pytest-benchmark's own timer sees one round of each run);
they are printed and stored in ``extra_info``. Run with ``make bench``.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, Final

import grpc
import pytest

from cardcore import registry
from cardcore.match import Match
from cardcore_client import Client
from cardcore_server._pb import game_service_pb2 as pb

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.service.helpers import ServerProcess

NOOP_SERVER = r"""
import asyncio, sys, grpc

async def unary(request, context):
    return b""

async def stream(request, context):
    n = int(request.decode() or "0")
    for _ in range(n):
        yield b"\x0a\x02ok"

async def main():
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bench.Noop", {
        "Unary": grpc.unary_unary_rpc_method_handler(unary),
        "Stream": grpc.unary_stream_rpc_method_handler(stream),
    }),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(port, flush=True)
    await server.wait_for_termination()

asyncio.run(main())
"""


@pytest.fixture(scope="module")
def noop() -> Iterator[str]:
    proc = subprocess.Popen([sys.executable, "-c", NOOP_SERVER], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    port = int(proc.stdout.readline())
    yield f"127.0.0.1:{port}"
    proc.terminate()
    proc.wait(10)


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    with tempfile.TemporaryDirectory() as tmp:
        srv = ServerProcess(
            Path(tmp), "--allow-client-seed", "--collect-window-ms", "0", "--log-level", "warning"
        ).start()
        yield srv
        srv.stop()


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
    n_clients: int, calls_each: int, make: Callable[[int], Awaitable[Callable[[], Awaitable[Any]]]]
) -> dict[str, float]:
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

    start = time.perf_counter()
    await asyncio.gather(*(loop(w) for w in workers))
    return summary(latencies, time.perf_counter() - start)


PLAY: Final = pb.GameValue(kind="Play", json='{"kind":"Play"}')
COLLECT: Final = pb.GameValue(kind="Collect", json='{"kind":"Collect"}')


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
        for e in r.entry.events:
            if e.kind == "PileOwed":
                self.turn, self.command = json.loads(e.json)["seat"], COLLECT
            elif e.kind == "PileTaken":
                self.turn, self.command = json.loads(e.json)["seat"], PLAY
            elif e.kind in ("CardPlayed", "TurnPassed", "ChallengeLapsed"):
                current = json.loads(e.json).get("current")
                if current is not None:
                    self.turn, self.command = current, PLAY

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


def longest_game_seed(seats: int = 2, tries: int = 300) -> tuple[int, int]:
    """The seed (of the first ``tries``) whose no-slap ERS game is longest, and its length."""
    game = registry.get_game("ratscrew")
    best = (0, 0)
    for seed in range(tries):
        m = Match(game, game.make_setup(seats, seed))
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


@pytest.mark.parametrize("n_clients", [1, 8])
def test_submit_action_vs_noop_unary(
    benchmark: Any,
    capsys: pytest.CaptureFixture[str],
    server: ServerProcess,
    noop: str,
    n_clients: int,
) -> None:
    calls_each = 3000 // n_clients

    async def run() -> dict[str, dict[str, float]]:
        clients: list[Client] = []
        base = await run_clients(n_clients, calls_each, noop_unary(noop))
        ours = await run_clients(n_clients, calls_each, submits(server.target, clients))
        for c in clients:
            await c.close()
        return {"noop unary": base, "SubmitAction": ours}

    rows = benchmark.pedantic(lambda: asyncio.run(run()), rounds=1, iterations=1)
    base, ours = rows["noop unary"], rows["SubmitAction"]
    ratios = {
        "throughput_ratio": ours["per_s"] / base["per_s"],
        "p50_ratio": ours["p50_ms"] / base["p50_ms"],
        "p99_ratio": ours["p99_ms"] / base["p99_ms"],
    }
    benchmark.extra_info.update({"noop": base, "submit": ours, **ratios})
    report(
        capsys, f"SubmitAction vs no-op unary, {n_clients} client(s)", {**rows, "ratios": ratios}
    )


def test_stream_events_vs_noop_stream(
    benchmark: Any, capsys: pytest.CaptureFixture[str], server: ServerProcess, noop: str
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

        channel = grpc.aio.insecure_channel(noop)
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


async def _ret(fn: Callable[[], Awaitable[Any]]) -> Callable[[], Awaitable[Any]]:
    return fn


if os.environ.get("CARDCORE_BENCH_QUICK"):
    pytestmark = pytest.mark.skip("quick mode")
