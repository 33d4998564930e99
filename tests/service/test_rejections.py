"""What one client can make the server store by sending actions it knows will be rejected
(issue 22, fault 1). Every rejected action that carries an ``action_id`` is stored, so that a
resend gets the same answer, even after a restart; the row was the whole command (up to 64 KB),
so 1,000 rejected 30 KB commands grew the database by 78 MB. Now a row holds the command's
digest, the code and a bounded detail, and a seat keeps its last ``REJECTIONS_KEPT``."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
from pathlib import Path

import grpc
import pytest

from cardcore_proto import game_service_pb2 as pb
from cardcore_proto import game_service_pb2_grpc as pb_grpc
from cardcore_server.app import Application, GameSpec
from cardcore_server.errors import ServiceError
from cardcore_server.live import answers
from cardcore_server.store import SeatSpec, SqliteStore, command_digest

from .helpers import ServerProcess, auth

FLOOD = 1000
GROWTH_BOUND = 1_000_000
"""Bytes the database may grow by for the flood: a row is about 300 bytes (a 128-character
action_id, a 64-digit digest, code, detail, keys), in pages of SQLite's B-tree."""


def size(db: str) -> int:
    """The database's bytes on disk, its write-ahead log included."""
    return sum(os.path.getsize(p) for p in (db, db + "-wal") if os.path.exists(p))


def test_a_flood_of_rejected_actions_stays_small_and_each_keeps_its_answer(
    fresh_server: ServerProcess,
) -> None:
    fresh_server.start()
    channel = grpc.insecure_channel(fresh_server.target)
    stub = pb_grpc.GameServiceStub(channel)
    human = pb.SeatAssignment(kind=pb.SEAT_KIND_HUMAN)
    created = stub.CreateGame(pb.CreateGameRequest(game="palace", seats=[human, human]))
    channel.close()
    token = created.seat_tokens[0].token
    assert fresh_server.stop() == 0  # every write folded into the file: the size to grow from
    before = size(fresh_server.db)
    # A Play before the setup is over is rejected (InvalidPhase) whatever cards it names:
    # 5,000 of them make a 30 KB command.
    big = json.dumps({"kind": "Play", "cards": ["QS"] * 5_000})
    assert len(big) > 30_000

    def action_id(i: int) -> str:
        return f"{i:06d}".ljust(128, "x")  # the longest action_id there is

    async def send_all() -> list[str]:
        async with grpc.aio.insecure_channel(fresh_server.target) as ch:
            aio = pb_grpc.GameServiceStub(ch)
            lane = asyncio.Semaphore(8)

            async def send(i: int) -> str:
                request = pb.SubmitActionRequest(
                    game_id=created.game_id,
                    action_id=action_id(i),
                    command=pb.GameValue(kind="Play", json=big),
                )
                async with lane:
                    try:
                        await aio.SubmitAction(request, metadata=auth(token))
                    except grpc.aio.AioRpcError as exc:
                        return f"{exc.code().name}: {exc.details()}"
                return "OK"

            return await asyncio.gather(*(send(i) for i in range(FLOOD)))

    fresh_server.start()
    first = asyncio.run(send_all())
    assert set(first) == {"FAILED_PRECONDITION: the setup is not over (swap, then ready)"}
    assert fresh_server.stop() == 0
    grown = size(fresh_server.db) - before
    assert grown < GROWTH_BOUND, f"{FLOOD} rejected 30 KB commands grew the store {grown} B"
    # After a restart, each action_id resent gets the answer it got (never decided again).
    fresh_server.start()
    assert asyncio.run(send_all()) == first
    print(f"{FLOOD} rejected {len(big)}-character commands: the store grew {grown} bytes")


def test_a_seat_keeps_its_last_rejections(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the cap (8 here) a seat's oldest rejection is forgotten, in the store as in
    memory: resent, it is decided anew (a different command under its id is no longer
    ``ActionIdReused``); the last 8 keep their answers, a restart included."""
    monkeypatch.setattr(answers, "REJECTIONS_KEPT", 8)
    db = str(tmp_path / "s.db")
    play = json.dumps({"kind": "Play", "cards": ["QS"]})

    async def submit(app: Application, token: str, gid: str, aid: str, text: str) -> str:
        try:
            await app.submit(token, gid, json.loads(text), action_id=aid)
        except ServiceError as exc:
            return f"{exc.reason}: {exc.message}"
        return "OK"

    async def main() -> None:
        app = Application(SqliteStore(db))
        await app.start()
        made = await app.create_game(GameSpec("palace", [SeatSpec("human"), SeatSpec("human")]))
        gid, token = made.game_id, dict(made.seat_tokens)[0]
        for i in range(12):
            assert (await submit(app, token, gid, f"a{i}", play)).startswith("InvalidPhase")
        await app.close()
        with sqlite3.connect(db) as conn:
            rows = conn.execute("SELECT action_id, command FROM rejections ORDER BY version")
            digest = command_digest('{"cards":["QS"],"kind":"Play"}')  # of the canonical JSON
            assert [(a, c) for a, c in rows] == [(f"a{i}", digest) for i in range(4, 12)]
        app = Application(SqliteStore(db))
        await app.start()
        other = json.dumps({"kind": "Ready"})
        # remembered: another command under its id is refused as a reused id
        assert (await submit(app, token, gid, "a11", other)).startswith("Malformed: action_id")
        assert (await submit(app, token, gid, "a4", play)).startswith("InvalidPhase")
        # forgotten: decided as a new action (Ready is legal now)
        assert await submit(app, token, gid, "a0", other) == "OK"
        await app.close()

    asyncio.run(main())
