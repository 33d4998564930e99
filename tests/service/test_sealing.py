"""Secrets at rest (issue 13): with ``--secrets-key`` the seeds and salts of games are sealed
(AES-GCM) in the store, so a copy of the database file alone does not reveal a game still in
play; the server serves it on with the key, refuses it without, and a finished game's end line
reveals the seed and salt as always."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from cardcore import log as clog
from cardcore_client import Client

from .helpers import ServerProcess

KEY = "ab" * 32
SEED = 123456789012345678


def test_a_copy_of_the_database_does_not_reveal_a_game_in_play(tmp_path: Path) -> None:
    key_file = tmp_path / "secrets.key"
    key_file.write_text(KEY)
    args = ["--allow-client-seed", "--collect-window-ms", "0", "--secrets-key", str(key_file)]
    proc = ServerProcess(tmp_path, *args).start()
    try:

        async def create() -> tuple[str, str, str, str]:
            async with Client(proc.target) as c:
                game = await c.create_game("speed", ["human", "human"], seed=SEED)
                table = await c.create_game("spit", ["human", "invite"], seed=SEED + 1)
                return (
                    game.game_id,
                    game.seat_tokens[0],
                    table.game_id,
                    table.seat_tokens[0],
                )

        gid, token, _, _ = asyncio.run(create())
        proc.stop()
        copy = tmp_path / "stolen.db"
        shutil.copy(proc.db, copy)
        stolen = copy.read_bytes()
        for seed in (SEED, SEED + 1):
            assert str(seed).encode() not in stolen, "a seed in the clear"
        assert b"enc1:" in stolen

        # Without the key the server does not serve the sealed game (and says why).
        bare = ServerProcess(tmp_path, "--collect-window-ms", "0", name="bare", db=str(copy))
        bare.start()
        try:

            async def refused() -> str:
                async with Client(bare.target, attempts=1) as c:
                    try:
                        await c.game(gid, token).view()
                    except Exception as exc:  # UNAVAILABLE: the game could not be loaded
                        return str(exc)
                return ""

            assert "UNAVAILABLE" in asyncio.run(refused())
        finally:
            bare.stop()
        assert "sealed" in bare.log_text()

        # With the key it plays on; at the end the log reveals seed and salt, as always.
        proc.start()

        async def finish() -> bytes:
            async with Client(proc.target) as c:
                me = c.game(gid, token)
                await me.resign()
                data, complete = await me.log()
                assert complete
                return data

        lines = clog.loads(asyncio.run(finish()))
        assert clog.verify(lines).revealed
        salt = bytes.fromhex(lines[-1]["salt"])
        assert salt not in stolen and lines[-1]["salt"].encode() not in stolen
    finally:
        proc.stop()


def test_a_bad_key_is_refused(tmp_path: Path) -> None:
    proc = ServerProcess(tmp_path, "--secrets-key", "not-a-key")
    with pytest.raises(RuntimeError, match="server did not start"):
        proc.start()
    assert "--secrets-key" in proc.log_text()
