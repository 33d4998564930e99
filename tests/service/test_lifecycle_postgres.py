"""The lifecycle with two server processes on one PostgreSQL database: joins race across
servers (one winner), a table created on one server is dealt by a join on the other, and a
forfeit clock fires exactly once, also when the server that owns it is SIGKILLed and the other
takes the game over."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from cardcore import log as clog
from cardcore_client import Client, Rejection

from .helpers import ServerProcess

ARGS = ("--allow-client-seed", "--collect-window-ms", "0")


def test_joins_race_across_servers_and_a_forfeit_fires_once(pg_url: str, tmp_path: Path) -> None:
    a = ServerProcess(tmp_path, *ARGS, name="a", db=pg_url).start()
    b = ServerProcess(tmp_path, *ARGS, name="b", db=pg_url).start()
    try:

        async def main() -> tuple[str, str]:
            ca, cb = Client(a.target), Client(b.target)
            racers = [Client(a.target if i % 2 else b.target) for i in range(20)]
            try:
                t = await ca.create_game(
                    "speed", ["human", "anyone"], seed=31, public=True, idle_timeout_ms=1500
                )
                results = await asyncio.gather(
                    *(r.join(game_id=t.game_id) for r in racers), return_exceptions=True
                )
                won = [r for r in results if not isinstance(r, BaseException)]
                lost = [r for r in results if isinstance(r, BaseException)]
                assert len(won) == 1, results
                assert all(
                    isinstance(r, Rejection) and r.code in ("TableFull", "GameStarted")
                    for r in lost
                ), lost
                # Both servers see the dealt game, whichever dealt it.
                for c in (ca, cb):
                    assert (await c.game(t.game_id, won[0].token).view()).seat == 1
                return t.game_id, won[0].token
            finally:
                for c in (ca, cb, *racers):
                    await c.close()

        game_id, token = asyncio.run(main())
        # Neither seat acts: the idle clock forfeits one seat, which ends the two-seat game.
        # Kill whichever server dealt it now: the other takes the game over and fires it.
        owner = a if "table_started" in a.log_text() else b
        other = b if owner is a else a
        owner.kill()

        async def after() -> None:
            c = Client(other.target)
            try:
                me = c.game(game_id, token)
                deadline = time.monotonic() + 20
                while time.monotonic() < deadline and (await me.view()).outcome is None:
                    await asyncio.sleep(0.1)
                data, complete = await me.log()
                lines = clog.loads(data)
                assert complete, other.log_text()[-2000:]
                timed = [
                    ln
                    for ln in lines
                    if ln.get("type") == "entry" and ln["action"].get("by") == "timer"
                ]
                assert len(timed) == 1
                assert clog.verify(lines).outcome is not None
            finally:
                await c.close()

        asyncio.run(after())
    finally:
        for p in (a, b):
            if p.alive():
                p.stop()
