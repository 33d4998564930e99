"""The play channel's WebSocket (docs/reference/play-channel.md) against a real server on
127.0.0.1, next to a no-op WebSocket echo on the same stack (uvicorn's websockets sans-I/O
protocol, a raw ASGI app) measured in the same run with the same client code:

* sequential acts, 1 and 8 games at once (a client per game, both seats' channels): acts/s,
  p50/p99 from the act to its ``ack``, and the server's CPU per action (utime + stime over the
  timed loop, /proc/PID/stat) next to the echo's per round trip;
* fan-out: one game, its actor and 8 spectator channels; the next act once the ack and all 8
  copies arrived: acts/s, all-8-seen p50, server CPU per action;
* gRPC's ``Play``, sequential, next to a no-op unary grpc.aio call (the issue's bar: 0.8× its
  rate).

A durable store (SQLite, WAL, synchronous=FULL) on the temporary folder's disk; the server's
CPU per action says what the channel and the application cost beside the transport. Run with
``make bench``. Next to boardgame.io and Colyseus: the shared servers harness
(``../shared/bench/servers``) has no play-channel rows and cannot be changed from here, so
``bash benchmarks/servers/run.sh OUT_DIR`` runs a copy of it with them added (WebSocket
sequential, tmpfs, x8 and fan-out; gRPC ``Play`` sequential; benchmarks/servers/README.md).
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple, cast

import grpc
import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect

from cardcore_proto import game_service_pb2 as pb

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.conftest import Noop, served
from benchmarks.test_service import (
    CpuMeter,
    compare,
    longest_game_seed,
    noop_unary,
    report,
    run_clients,
    server_pid,
    summary,
)
from tests.rest.helpers import RestServer

ECHO_SERVER = r"""
import asyncio, socket, sys, uvicorn

async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            else:
                await send({"type": "lifespan.shutdown.complete"})
                return
    await receive()  # websocket.connect
    await send({"type": "websocket.accept"})
    while True:
        message = await receive()
        if message["type"] != "websocket.receive":
            return
        await send({"type": "websocket.send", "text": message["text"]})

sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
sock.bind(("127.0.0.1", 0))
print(sock.getsockname()[1], flush=True)
config = uvicorn.Config(app, ws="websockets-sansio", ws_ping_interval=None, log_config=None,
                        ws_per_message_deflate=False, access_log=False)
asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))
"""


class Echo(NamedTuple):
    url: str
    pid: int


@pytest.fixture(scope="module")
def echo() -> Iterator[Echo]:
    with served(ECHO_SERVER) as (port, pid):
        yield Echo(f"ws://127.0.0.1:{port}/", pid)


@pytest.fixture(scope="module")
def rest_server() -> Iterator[RestServer]:
    with tempfile.TemporaryDirectory() as tmp:
        srv = RestServer(
            Path(tmp), "--allow-client-seed", "--collect-window-ms", "0", "--log-level", "warning"
        ).start()
        yield srv
        srv.stop()


TURN_EVENTS = ("CardPlayed", "TurnPassed", "ChallengeLapsed")


async def new_game(server: RestServer, seed: int) -> tuple[dict[str, Any], list[str]]:
    """An ERS game of two human seats (auto-collect: every act a Play), and its seat tokens in
    seat order."""
    async with httpx.AsyncClient(base_url=server.url) as http:
        r = await http.post(
            "/v1/games",
            json={
                "game": "ratscrew",
                "seats": [{"kind": "human"}] * 2,
                "rules": {"auto_collect": True},
                "seed": seed,
            },
        )
    g: dict[str, Any] = r.json()
    return g, [t["token"] for t in sorted(g["seat_tokens"], key=lambda t: t["seat"])]


class Table:
    """One ERS game played over two seat channels (and, for the fan-out, 8 spectators'): the
    seat to act plays or collects (no slaps); a new game when one ends."""

    def __init__(self, server: RestServer, seed: int, spectators: int = 0) -> None:
        self.server, self.seed, self.spectators = server, seed, spectators
        self.n = 0

    async def open(self) -> None:
        g, tokens = await new_game(self.server, self.seed)
        self.seed += 1
        url = f"ws://127.0.0.1:{self.server.rest_port}/v1/games/{g['game_id']}/play"
        self.seats = [await self._join(url, t) for t in tokens]
        self.watchers = [
            await self._join(url, g["spectator_token"]) for _ in range(self.spectators)
        ]
        self.turn, self.command, self.next_seq = 0, "Play", 1
        for ws in [*self.seats, *self.watchers]:  # the deal
            await self._entry(ws, 0)

    async def _join(self, url: str, token: str) -> ClientConnection:
        ws = await connect(url, compression=None, max_queue=None)
        await ws.send(json.dumps({"type": "auth", "token": token}))
        assert json.loads(await ws.recv())["type"] == "ready"
        return ws

    async def _entry(self, ws: ClientConnection, seq: int) -> dict[str, Any]:
        while True:
            frame = json.loads(await ws.recv())
            if frame["type"] == "entry" and frame["entry"]["seq"] == seq:
                entry: dict[str, Any] = frame["entry"]
                return entry
            if frame["type"] == "ping":
                await ws.send(json.dumps({"type": "pong", "nonce": frame["nonce"]}))

    async def step(self) -> float:
        """One act: its latency to the ack (to all 8 copies, with spectators)."""
        self.n += 1
        ws = self.seats[self.turn]
        start = time.perf_counter()
        await ws.send(
            json.dumps(
                {"type": "act", "command": {"kind": self.command}, "action_id": f"b{self.n}"}
            )
        )
        ack, entry = None, None
        while ack is None or entry is None:
            frame = json.loads(await ws.recv())
            if frame["type"] == "ack":
                ack = frame
            elif frame["type"] == "entry":
                entry = frame["entry"]
            elif frame["type"] == "ping":
                await ws.send(json.dumps({"type": "pong", "nonce": frame["nonce"]}))
        for watcher in self.watchers:
            await self._entry(watcher, ack["seq"])
        latency = time.perf_counter() - start
        other = self.seats[1 - self.turn]
        await self._entry(other, ack["seq"])
        if ack["outcome"] is not None:
            await self.close()
            await self.open()
            return latency
        for e in entry["events"]:
            if e["kind"] == "PileOwed":
                self.turn, self.command = e["seat"], "Collect"
            elif e["kind"] == "PileTaken":
                self.turn, self.command = e["seat"], "Play"
            elif e["kind"] in TURN_EVENTS and e.get("current") is not None:
                self.turn, self.command = e["current"], "Play"
        return latency

    async def close(self) -> None:
        for ws in [*self.seats, *self.watchers]:
            await ws.close()


class EchoTable:
    """The no-op: one text frame out, the same back."""

    def __init__(self, url: str) -> None:
        self.url = url

    async def open(self) -> None:
        self.ws = await connect(self.url, compression=None, max_queue=None)

    async def step(self) -> float:
        start = time.perf_counter()
        await self.ws.send('{"type":"act","command":{"kind":"Play"},"action_id":"b1"}')
        await self.ws.recv()
        return time.perf_counter() - start

    async def close(self) -> None:
        await self.ws.close()


async def run_tables(tables: list[Any], acts_each: int, pid: int) -> dict[str, float]:
    for t in tables:
        await t.open()
        for _ in range(20):
            await t.step()
    latencies: list[float] = []

    async def loop(t: Any) -> None:
        for _ in range(acts_each):
            latencies.append(await t.step())

    meter = CpuMeter(pid)
    start = time.perf_counter()
    await asyncio.gather(*(loop(t) for t in tables))
    out = summary(latencies, time.perf_counter() - start)
    out.update(meter.per_action(len(latencies)))
    for t in tables:
        await t.close()
    return out


@pytest.mark.parametrize("games", [1, 8])
def test_play_channel_vs_websocket_echo(
    benchmark: Any,
    capsys: pytest.CaptureFixture[str],
    rest_server: RestServer,
    echo: Echo,
    games: int,
) -> None:
    seed, _ = longest_game_seed(auto_collect=True)
    acts_each = 2000 // games

    async def run() -> dict[str, dict[str, float]]:
        base = await run_tables([EchoTable(echo.url) for _ in range(games)], acts_each, echo.pid)
        tables = [Table(rest_server, seed + 1000 * i) for i in range(games)]
        ours = await run_tables(tables, acts_each, server_pid(rest_server))
        return {"websocket echo": base, "play channel": ours}

    rows = benchmark.pedantic(lambda: asyncio.run(run()), rounds=1, iterations=1)
    base, ours = rows["websocket echo"], rows["play channel"]
    ratios = compare(ours, base, per_s="throughput")
    benchmark.extra_info.update({"echo": base, "channel": ours, **ratios})
    report(capsys, f"Play channel vs WebSocket echo, {games} game(s)", {**rows, "ratios": ratios})


def test_play_channel_fanout(
    benchmark: Any, capsys: pytest.CaptureFixture[str], rest_server: RestServer
) -> None:
    seed, _ = longest_game_seed(auto_collect=True)

    async def run() -> dict[str, float]:
        table = Table(rest_server, seed + 7, spectators=8)
        return await run_tables([table], 800, server_pid(rest_server))

    row = benchmark.pedantic(lambda: asyncio.run(run()), rounds=1, iterations=1)
    benchmark.extra_info.update(row)
    report(capsys, "Play channel fan-out, 8 spectators (latency: until all 8 have it)", {"": row})


class PlayCallTable:
    """One ERS game played over its two seats' gRPC ``Play`` calls (the same games as
    :class:`Table`): timed from the act to its ack."""

    def __init__(self, server: RestServer, seed: int) -> None:
        self.server, self.seed, self.n = server, seed, 0
        self.channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.grpc_port}")
        self.play = self.channel.stream_stream(
            "/cardcore.v1.GameService/Play",
            request_serializer=pb.PlayRequest.SerializeToString,
            response_deserializer=pb.PlayResponse.FromString,
        )

    async def open(self) -> None:
        g, tokens = await new_game(self.server, self.seed)
        self.seed += 1
        self.calls = [self.play(metadata=(("authorization", f"Bearer {t}"),)) for t in tokens]
        for call in self.calls:
            await call.write(pb.PlayRequest(open=pb.PlayOpen(game_id=g["game_id"])))
        for call in self.calls:
            await self._until(call, "entry")  # ready, then the deal
        self.turn, self.command = 0, pb.GameValue(kind="Play", json='{"kind":"Play"}')

    async def _until(self, call: Any, kind: str) -> Any:
        while True:
            msg = cast(pb.PlayResponse, await call.read())
            which = msg.WhichOneof("frame")
            if which == "ping":
                await call.write(pb.PlayRequest(pong=pb.PlayPong(nonce=msg.ping.nonce)))
            elif which == kind:
                return getattr(msg, kind)

    async def step(self) -> float:
        self.n += 1
        call = self.calls[self.turn]
        start = time.perf_counter()
        await call.write(
            pb.PlayRequest(act=pb.PlayAct(action_id=f"b{self.n}", command=self.command))
        )
        ack, entry = None, None
        while ack is None or entry is None:
            msg = cast(pb.PlayResponse, await call.read())
            which = msg.WhichOneof("frame")
            if which == "ack":
                ack = msg.ack
            elif which == "entry":
                entry = msg.entry
            elif which == "ping":
                await call.write(pb.PlayRequest(pong=pb.PlayPong(nonce=msg.ping.nonce)))
        latency = time.perf_counter() - start
        await self._until(self.calls[1 - self.turn], "entry")
        if ack.HasField("outcome"):
            await self.close_calls()
            await self.open()
            return latency
        for e in entry.events:
            fields = json.loads(e.json)
            if e.kind == "PileTaken":
                self.turn = fields["seat"]
            elif e.kind in TURN_EVENTS and fields.get("current") is not None:
                self.turn = fields["current"]
        return latency

    async def close_calls(self) -> None:
        for call in self.calls:
            call.cancel()

    async def close(self) -> None:
        await self.close_calls()
        await self.channel.close()


def test_grpc_play_vs_noop_unary(
    benchmark: Any, capsys: pytest.CaptureFixture[str], rest_server: RestServer, noop: Noop
) -> None:
    seed, _ = longest_game_seed(auto_collect=True)

    async def run() -> dict[str, dict[str, float]]:
        base = await run_clients(1, 2000, noop_unary(noop.target), noop.pid)
        ours = await run_tables(
            [PlayCallTable(rest_server, seed + 11)], 2000, server_pid(rest_server)
        )
        return {"noop unary": base, "gRPC Play": ours}

    rows = benchmark.pedantic(lambda: asyncio.run(run()), rounds=1, iterations=1)
    base, ours = rows["noop unary"], rows["gRPC Play"]
    ratios = compare(ours, base, per_s="throughput")
    benchmark.extra_info.update({"noop": base, "play": ours, **ratios})
    report(capsys, "gRPC Play vs no-op unary, sequential", {**rows, "ratios": ratios})
