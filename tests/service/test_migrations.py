"""Schema migrations (issue 13): the store records its schema version (SQLite ``user_version``,
PostgreSQL ``schema_version``) and brings an earlier one forward at start. Tested on a database
written by the code of the previous commit (``git archive HEAD~1``, run in a subprocess), which
today's code opens, upgrades and serves on; a database of a newer schema is refused."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import tarfile
from io import BytesIO
from pathlib import Path

import pytest

from cardcore import log as clog
from cardcore_server.app import Application
from cardcore_server.errors import ServiceError
from cardcore_server.store import SCHEMA_VERSION, SqliteStore

from ..fresh_tree import extract

ROOT = Path(__file__).resolve().parents[2]
BIG_PLAY = json.dumps({"kind": "Play", "cards": ["QS"] * 2000})
"""Rejected (the setup is not over): before schema 5 its row held these 10 KB whole."""

WRITE = """
import asyncio, json, sys
from cardcore_server.app import Application, GameSpec
from cardcore_server.store import SeatSpec, SqliteStore

async def main():
    app = Application(SqliteStore(sys.argv[1]))
    await app.start()
    made = await app.create_game(GameSpec("palace", [SeatSpec("human"), SeatSpec("human")]))
    token = dict(made.seat_tokens)[0]
    try:  # a rejected action with an action_id: its answer is stored
        await app.submit(token, made.game_id, json.loads(sys.argv[2]), action_id="rejected-before")
        rejected = "accepted"
    except Exception as exc:
        rejected = str(exc)
    for _ in range(3):
        view = await app.view(token, made.game_id)
        if view.legal_commands:
            c = view.legal_commands[0]
            await app.submit(token, made.game_id, json.loads(c.json))
    await app.close()
    print(json.dumps({"game_id": made.game_id, "token": token, "rejected": rejected}))

asyncio.run(main())
"""


def previous_commit(tmp: Path) -> Path:
    """The previous commit's source tree (or skip: no git history here)."""
    try:
        data = subprocess.run(
            ["git", "-C", str(ROOT), "archive", "--format=tar", "HEAD~1"],
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"no previous commit to take a database from: {exc}")
    tree = tmp / "previous"
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        extract(tar, tree)
    return tree


def test_a_database_written_by_the_previous_commit_opens_and_serves(tmp_path: Path) -> None:
    tree = previous_commit(tmp_path)
    db = tmp_path / "old.db"
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(str(tree / p) for p in ("", "services", "clients/python")),
    )
    done = subprocess.run(
        [sys.executable, "-c", WRITE, str(db), BIG_PLAY],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    made = json.loads(done.stdout.strip().splitlines()[-1])

    async def now() -> None:
        app = Application(SqliteStore(str(db)))
        await app.start()
        try:
            with pytest.raises(ServiceError) as again:  # the same answer as before the upgrade
                await app.submit(
                    made["token"],
                    made["game_id"],
                    json.loads(BIG_PLAY),
                    action_id="rejected-before",
                )
            assert str(again.value) == made["rejected"]
            view = await app.view(made["token"], made["game_id"])
            assert view.seq >= 1
            if view.legal_commands:
                c = view.legal_commands[0]
                await app.submit(made["token"], made["game_id"], json.loads(c.json))
            copy = await app.log(made["token"], made["game_id"])
            assert clog.verify(clog.loads(copy.log_jsonl)).copy == "0"
        finally:
            await app.close()

    asyncio.run(now())
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        (kept,) = conn.execute("SELECT command FROM rejections").fetchall()
        assert len(kept[0]) == 64, "schema 5: the command's digest, not the command"


def test_a_store_of_a_newer_schema_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    with sqlite3.connect(db) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")

    async def main() -> None:
        with pytest.raises(ValueError, match="newer cardcore"):
            await SqliteStore(str(db)).open()

    asyncio.run(main())
