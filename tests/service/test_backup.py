"""``cardcore backup`` (issue 13): a consistent copy of the SQLite store taken while the server
serves and writes; a server started on the copy serves every game as it stood, and its logs
verify; a backup never overwrites a file."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

from cardcore import log as clog
from cardcore_client import Client

from .helpers import ServerProcess


def backup(db: str, to: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cardcore.cli", "backup", "--db", db, "--to", str(to)],
        capture_output=True,
        text=True,
        check=False,
    )


def test_an_online_backup_restores(tmp_path: Path) -> None:
    live = ServerProcess(tmp_path, "--collect-window-ms", "0").start()
    copy = tmp_path / "backup.db"
    try:

        async def before() -> list[tuple[str, str]]:
            async with Client(live.target) as c:
                games = []
                for name in ("speed", "palace", "ratscrew"):
                    t = await c.create_game(name, ["human", "random"])
                    games.append((t.game_id, t.seat_tokens[0]))
                done = await c.create_game("spit", ["human", "human"])
                await c.game(done.game_id, done.seat_tokens[0]).resign()
                games.append((done.game_id, done.seat_tokens[0]))
                return games

        games = asyncio.run(before())
        made = backup(live.db, copy)  # while the server runs (and its bots play)
        assert made.returncode == 0, made.stdout + made.stderr
        assert f"{len(games)} games" in made.stdout
        again = backup(live.db, copy)
        assert again.returncode == 2 and "never overwrites" in again.stderr
    finally:
        live.stop()
    restored = ServerProcess(tmp_path, "--collect-window-ms", "0", name="restored", db=str(copy))
    restored.start()
    try:

        async def after() -> None:
            async with Client(restored.target) as c:
                for game_id, token in games:
                    me = c.game(game_id, token)
                    assert (await me.view()).seat == 0
                    if (await me.view()).outcome is None:
                        await me.resign()
                    data, complete = await me.log()
                    assert complete and clog.verify(clog.loads(data)).revealed

        asyncio.run(after())
    finally:
        assert restored.stop() == 0
    assert backup(str(tmp_path / "missing.db"), tmp_path / "x.db").returncode == 2
