"""The play channel under faults (docs/reference/play-channel.md): a stop answers the acts in
flight and then closes 1001; a client that stops reading is closed 4409 and cut off, never
holding the server's memory; a burst of 3,000 channel opens against a low cap is served or
refused retryably, and the server serves after it. In-process servers (the stop, the stall: a
module's bound shortened) or a subprocess (the burst)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidMessage, InvalidStatus

from cardcore_server.config import ServiceConfig
from cardcore_server.transports.connections import ConnectionLimits
from cardcore_server.transports.rest import channel as ws_channel
from cardcore_server.transports.server import Running, ServerOptions, start

from ..service.helpers import hang_store_commits


async def _server(tmp: Path, config: ServiceConfig | None = None, **limits: Any) -> Running:
    options = ServerOptions(
        port=0, rest_port=0, db=str(tmp / "s.db"), limits=ConnectionLimits(**limits)
    )
    return await start(options if config is None else replace(options, config=config))


@contextlib.asynccontextmanager
async def _table(
    tmp: Path, config: ServiceConfig | None = None, **limits: Any
) -> AsyncIterator[tuple[Running, int, httpx.AsyncClient, dict[str, Any]]]:
    """An in-process server, its REST port, a client of its REST API and a game of two human
    seats on it; the server stopped at the end (unless the test stopped it)."""
    running = await _server(tmp, config, **limits)
    port = running.rest_port
    assert port is not None
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            yield running, port, http, await _game(http)
    finally:
        if not running.app.gate.closing:
            await running.stop(grace_s=1.0)


async def _game(http: httpx.AsyncClient) -> dict[str, Any]:
    r = await http.post(
        "/v1/games",
        json={"game": "ratscrew", "seats": [{"kind": "human"}] * 2, "timeouts_ms": {"Collect": 0}},
    )
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


async def _open(port: int, gid: str, token: str, from_seq: int = 0) -> ClientConnection:
    ws = await connect(f"ws://127.0.0.1:{port}/v1/games/{gid}/play", open_timeout=10)
    await ws.send(json.dumps({"type": "auth", "token": token, "from_seq": from_seq}))
    assert json.loads(await ws.recv())["type"] == "ready"
    return ws


async def _frames_until_closed(ws: ClientConnection) -> tuple[list[dict[str, Any]], int, str]:
    frames: list[dict[str, Any]] = []
    try:
        while True:
            frames.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
    except ConnectionClosed as closed:
        assert closed.rcvd is not None
        return frames, closed.rcvd.code, closed.rcvd.reason


@pytest.mark.parametrize("store", ["answers", "hangs"])
def test_a_stop_answers_acts_in_flight_then_closes_1001(tmp_path: Path, store: str) -> None:
    async def main() -> None:
        async with _table(tmp_path) as (running, port, _http, game):
            ws = await _open(port, game["game_id"], game["seat_tokens"][0]["token"])
            if store == "hangs":
                hang_store_commits(running.app)
            await ws.send(
                json.dumps({"type": "act", "command": {"kind": "Play"}, "action_id": "x"})
            )
            await asyncio.sleep(0.2)
            stopping = asyncio.create_task(running.stop(grace_s=2.0))
            frames, code, reason = await _frames_until_closed(ws)
            await stopping
            answers = [f for f in frames if f["type"] in ("ack", "rejected")]
            assert len(answers) == 1 and answers[0]["action_id"] == "x", frames
            if store == "answers":
                assert answers[0]["type"] == "ack" and answers[0]["seq"] == 1
            else:  # the store never confirmed it: retryable, with the same action_id
                assert answers[0]["problem"]["code"] == "StoreUnavailable", answers
                assert answers[0]["problem"]["status"] == 503
            assert code == 1001 and "resume from seq" in reason, (code, reason)

    asyncio.run(main())


def test_a_client_that_stops_reading_is_closed_4409_and_cut_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ws_channel, "SEND_STALL_S", 0.5)

    async def main() -> None:
        async with _table(tmp_path) as (running, port, _http, game):
            gid, token = game["game_id"], game["seat_tokens"][0]["token"]
            # A raw client with a tiny receive window: it asks for views and never reads them.
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
            sock.connect(("127.0.0.1", port))
            sock.sendall(_upgrade(gid))
            sock.sendall(_masked({"type": "auth", "token": token}))
            # Far more than the socket buffers hold; sent from a thread, for the server stops
            # reading while it waits for room (and this loop runs the server).
            sending = asyncio.create_task(
                asyncio.to_thread(_send, sock, _masked({"type": "view"}) * 20000)
            )
            closed = running.app.metrics.play_closed.labels("websocket", "4409")
            for _ in range(100):
                await asyncio.sleep(0.1)
                if closed._value.get() >= 1:
                    break
            assert closed._value.get() == 1
            # ... and its transport is let go: reading now finds the end of the stream.
            sock.setblocking(False)
            await asyncio.sleep(1.0)
            ended = False
            for _ in range(400):
                try:
                    if not sock.recv(1 << 16):
                        ended = True
                        break
                except BlockingIOError:
                    await asyncio.sleep(0.01)
                except ConnectionResetError:
                    ended = True
                    break
            sock.close()
            await sending
            assert ended
            assert running.app.metrics.play_channels.labels("websocket")._value.get() == 0

    asyncio.run(main())


def _upgrade(gid: str) -> bytes:
    """A client's request to open the play channel of ``gid`` as a WebSocket."""
    return (
        f"GET /v1/games/{gid}/play HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n"
    ).encode()


def _send(sock: socket.socket, data: bytes) -> None:
    with contextlib.suppress(OSError):  # cut off: what it was sending goes nowhere
        sock.sendall(data)


def _masked(frame: dict[str, Any]) -> bytes:
    """One client text frame (masked, as RFC 6455 requires of a client; under 64 KiB)."""
    payload = json.dumps(frame).encode()
    mask = b"\x01\x02\x03\x04"
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    size = (
        bytes([0x80 | len(payload)]) if len(payload) < 126 else b"\xfe" + len(payload).to_bytes(2)
    )
    return b"\x81" + size + mask + masked


@pytest.mark.solo  # 3,000 sockets in 3 s: it would slow the timed tests running beside it
def test_a_burst_of_3000_opens_is_served_or_refused_retryably(tmp_path: Path) -> None:
    async def main() -> None:
        async with _table(tmp_path, max_connections=300) as (_running, port, http, game):
            gid, token = game["game_id"], game["seat_tokens"][0]["token"]
            outcomes: dict[str, int] = {}
            held: list[ClientConnection] = []

            async def one() -> None:
                try:
                    held.append(await _open(port, gid, token))
                    kind = "served"
                except InvalidStatus as refused:
                    assert refused.response.status_code == 503
                    kind = "refused 503"
                except ConnectionClosed as closed:
                    assert closed.rcvd is not None and closed.rcvd.code == 1013
                    kind = "closed 1013"
                except (InvalidMessage, ConnectionError, TimeoutError, OSError):
                    # closed by the cap before its request was in (the longest-waiting
                    # connection makes room, as for any request): a client retries
                    kind = "cut before its request"
                outcomes[kind] = outcomes.get(kind, 0) + 1

            await asyncio.gather(*(one() for _ in range(3000)))
            assert sum(outcomes.values()) == 3000
            print("3000 opens against a cap of 300:", outcomes)
            assert 0 < outcomes.get("served", 0) <= 300, outcomes
            for ws in held:
                await ws.close()
            await asyncio.sleep(0.3)
            # Served again at once, channels and requests alike.
            assert (await http.get("/healthz")).status_code == 200
            ws = await _open(port, gid, token)
            await ws.send(json.dumps({"type": "act", "command": {"kind": "Play"}}))
            assert json.loads(await ws.recv())["type"] in ("entry", "ack")
            await ws.close()

    asyncio.run(main())


def test_no_http_deadline_runs_on_an_open_channel(tmp_path: Path) -> None:
    """The upgrade request's header and body deadlines end with the upgrade: a channel open
    for longer than both still plays (a deadline once fired into the WebSocket's stream)."""

    async def main() -> None:
        async with _table(tmp_path, header_timeout_s=0.3, body_timeout_s=0.3) as (
            _running,
            port,
            _http,
            game,
        ):
            ws = await _open(port, game["game_id"], game["seat_tokens"][0]["token"])
            await asyncio.sleep(1.2)  # four deadlines' worth
            await ws.send(
                json.dumps({"type": "act", "command": {"kind": "Play"}, "action_id": "x"})
            )
            while True:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 5))
                if frame["type"] == "ack":
                    assert frame["seq"] == 1
                    break
            await ws.close()

    asyncio.run(main())


def test_fragmented_and_out_of_order_frames(tmp_path: Path) -> None:
    """A message in fragments (and sent before the 101 came back) is one frame, acted on once;
    a pong for a ping never sent is ignored."""

    async def main() -> None:
        async with _table(tmp_path) as (_running, port, http, game):
            gid, token = game["game_id"], game["seat_tokens"][0]["token"]
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(_upgrade(gid))
            writer.write(_masked({"type": "auth", "token": token}))
            # one act in three fragments: text (not final), continuation, continuation (final)
            act = json.dumps({"type": "act", "command": {"kind": "Play"}, "action_id": "f"})
            parts = [act[:10], act[10:30], act[30:]]
            for i, part in enumerate(parts):
                opcode = 0x1 if i == 0 else 0x0
                fin = 0x80 if i == len(parts) - 1 else 0
                writer.write(_masked_raw(part.encode(), fin | opcode))
            writer.write(_masked({"type": "pong", "nonce": 12345}))  # a pong for no ping
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            assert b" 101 " in head
            frames = await _read_frames(reader, until="ack")
            ack = next(f for f in frames if f["type"] == "ack")
            assert ack["action_id"] == "f" and ack["seq"] == 1
            writer.close()
            r = await http.get(
                f"/v1/games/{gid}/view", headers={"authorization": f"Bearer {token}"}
            )
            assert r.json()["seq"] == 2  # the deal and the one act

    asyncio.run(main())


def _masked_raw(payload: bytes, first_byte: int) -> bytes:
    mask = b"\x05\x06\x07\x08"
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    assert len(payload) < 126
    return bytes([first_byte, 0x80 | len(payload)]) + mask + masked


async def _read_frames(reader: asyncio.StreamReader, until: str) -> list[dict[str, Any]]:
    """Unmasked server frames until one of type ``until``."""
    frames: list[dict[str, Any]] = []
    while True:
        head = await asyncio.wait_for(reader.readexactly(2), 5)
        size = head[1] & 0x7F
        if size == 126:
            size = int.from_bytes(await reader.readexactly(2))
        elif size == 127:
            size = int.from_bytes(await reader.readexactly(8))
        frame = json.loads(await reader.readexactly(size))
        frames.append(frame)
        if frame["type"] == until:
            return frames


def test_each_act_counts_against_the_tokens_rate_limit(tmp_path: Path) -> None:
    """A channel is no way round the per-token limit a request meets: the open takes one of
    the token's two, the first act the other, the next is RateLimited (and changes nothing)."""

    async def main() -> None:
        async with _table(tmp_path, ServiceConfig(rate_per_token=1.0)) as (
            _running,
            port,
            _http,
            game,
        ):
            ws = await _open(port, game["game_id"], game["seat_tokens"][0]["token"])
            answers = []
            for action_id in ("a1", "a2"):
                await ws.send(
                    json.dumps({"type": "act", "command": {"kind": "Play"}, "action_id": action_id})
                )
                while True:
                    frame = json.loads(await asyncio.wait_for(ws.recv(), 5))
                    if frame["type"] in ("ack", "rejected"):
                        answers.append(frame)
                        break
            assert answers[0]["type"] == "ack" and answers[0]["seq"] == 1
            problem = answers[1]["problem"]
            assert (answers[1]["type"], problem["code"], problem["status"]) == (
                "rejected",
                "RateLimited",
                429,
            )
            assert int(problem["metadata"]["retry_after_s"]) >= 1
            await ws.close()

    asyncio.run(main())
