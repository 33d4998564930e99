"""Crash safety over the play channel: three seats play ERS, each over its own WebSocket, while
the server is SIGKILLed at 4 seeded random moments and restarted on the same database. Each
client resumes from the last seq it saw and re-sends its unanswered act with the same
action_id. Afterwards every acknowledged act is in the log at its seq, by its seat, and every
seat's channel saw each entry exactly once, in order (tests/service/test_crash.py is the same
over gRPC)."""

from __future__ import annotations

import asyncio
import json
import random
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidMessage, InvalidStatus

from cardcore import codec
from cardcore import log as clog

from ..service.test_crash import SEATS, long_game_seed
from .helpers import RestServer, bearer

KILLS = 4


async def _seat(
    srv: RestServer,
    gid: str,
    token: str,
    seat: int,
    acked: list[tuple[int, int, str, str]],
    seen: list[int],
    over: asyncio.Event,
) -> None:
    """Play the seat's non-slap commands until its channel brings the game's end, through
    every crash."""
    rng = random.Random(seat)
    pending: dict[str, Any] | None = None  # the act sent and not yet answered
    n = 0
    ended = False
    while not ended:
        try:
            url = f"ws://127.0.0.1:{srv.rest_port}/v1/games/{gid}/play"
            async with connect(url, open_timeout=2) as ws:
                await ws.send(json.dumps({"type": "auth", "token": token, "from_seq": len(seen)}))
                if pending is not None:  # its answer was lost with the server: ask again
                    await ws.send(json.dumps(pending))
                else:
                    await ws.send(json.dumps({"type": "view"}))
                async for text in ws:
                    frame = json.loads(text)
                    kind = frame["type"]
                    if kind == "entry":
                        seen.append(frame["entry"]["seq"])
                    elif kind == "ping":
                        await ws.send(json.dumps({"type": "pong", "nonce": frame["nonce"]}))
                    elif kind in ("ack", "rejected"):
                        if kind == "ack":
                            assert pending is not None
                            canonical = codec.canonical_text(pending["command"])
                            acked.append((frame["seq"], seat, frame["action_id"], canonical))
                        pending = None
                        await ws.send(json.dumps({"type": "view"}))
                    elif kind == "view":
                        if frame["outcome"] is not None:
                            over.set()
                        commands = [c for c in frame["legal_commands"] if c["kind"] != "Slap"]
                        if not commands:
                            await asyncio.sleep(0.003)
                            await ws.send(json.dumps({"type": "view"}))
                            continue
                        pending = {
                            "type": "act",
                            "command": rng.choice(commands),
                            "action_id": f"s{seat}-{n}",
                        }
                        n += 1
                        await ws.send(json.dumps(pending))
                    elif kind == "end":
                        ended = True
                        over.set()
        except (ConnectionClosed, InvalidMessage, InvalidStatus, OSError, TimeoutError):
            await asyncio.sleep(0.05)  # the server is down: try again


def test_sigkill_loses_no_act_acknowledged_over_the_channel(tmp_path: Path) -> None:
    srv = RestServer(tmp_path, "--collect-window-ms", "0", "--allow-client-seed").start()
    rng = random.Random(20261205)
    with httpx.Client(base_url=srv.url, timeout=10) as http:
        r = http.post(
            "/v1/games",
            json={
                "game": "ratscrew",
                "seats": [{"kind": "human"}] * SEATS,
                "seed": long_game_seed(),
                "event_limit": 4000,
                "timeouts_ms": {"Collect": 0},
            },
        )
        assert r.status_code == 201, r.text
        created = r.json()
    gid = created["game_id"]
    tokens = {t["seat"]: t["token"] for t in created["seat_tokens"]}
    acked: list[tuple[int, int, str, str]] = []
    seen: dict[int, list[int]] = {s: [] for s in tokens}

    async def main() -> None:
        over = asyncio.Event()
        seats = [
            asyncio.create_task(_seat(srv, gid, tokens[s], s, acked, seen[s], over)) for s in tokens
        ]
        for _ in range(KILLS):
            goal = len(acked) + rng.randint(3, 25)
            deadline = time.monotonic() + 30
            while len(acked) < goal and time.monotonic() < deadline:
                await asyncio.sleep(0.001)
            assert not over.is_set(), "the game ended before all kills"
            await asyncio.sleep(rng.random() * 0.01)  # anywhere, mid-commit included
            srv.kill()
            await asyncio.sleep(rng.random() * 0.2)
            srv.start()
        goal = len(acked) + 20  # play on a little after the last restart, then end the game
        deadline = time.monotonic() + 30
        while len(acked) < goal and time.monotonic() < deadline and not over.is_set():
            await asyncio.sleep(0.001)
        async with httpx.AsyncClient(base_url=srv.url, timeout=10) as http:
            abort = await http.post(
                f"/v1/games/{gid}/abort", headers=bearer(created["creator_token"])
            )
            assert abort.status_code == 200 or over.is_set(), abort.text
        await asyncio.wait_for(over.wait(), 30)
        await asyncio.wait_for(asyncio.gather(*seats), 30)

    try:
        asyncio.run(main())
        with httpx.Client(base_url=srv.url, timeout=10) as http:
            full = http.get(f"/v1/games/{gid}/log", headers=bearer(created["spectator_token"]))
    finally:
        srv.stop()
    lines = clog.loads(full.content)
    clog.verify(lines)
    entries = {line["seq"]: line for line in lines if line["type"] == "entry"}
    assert sorted(entries) == list(range(len(entries)))
    assert len(acked) > 30
    for seq, seat, _action_id, command in acked:
        assert entries[seq]["seat"] == seat
        assert codec.canonical_text(entries[seq]["action"]) == command
    assert len({a[0] for a in acked}) == len(acked), "an acknowledged seq was reused"
    for seat, seqs in seen.items():
        assert seqs == list(range(len(entries))), f"seat {seat} saw a gap or a duplicate"
    assert srv.starts == KILLS + 1
