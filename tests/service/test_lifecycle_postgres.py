"""The lifecycle with two server processes on one PostgreSQL database: joins race across
servers (one winner), a table created on one server is dealt by a join on the other, and a
forfeit clock fires exactly once, also when the server that owns it is SIGKILLed and the other
takes the game over."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import Any

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


def test_presence_is_the_same_on_every_server(pg_url: str, tmp_path: Path) -> None:
    """A seat streaming from A is present on B too (GetTable, the listing, GetView); it leaves
    when the stream closes, and when A is SIGKILLed with the stream open (its lease lapses)."""
    a = ServerProcess(tmp_path, *ARGS, name="a", db=pg_url).start()
    b = ServerProcess(tmp_path, *ARGS, name="b", db=pg_url).start()

    async def until(check: Any, want: object, within_s: float) -> float:
        started = time.monotonic()
        while (got := await check()) != want:
            assert time.monotonic() - started < within_s, (got, want)
            await asyncio.sleep(0.05)
        return time.monotonic() - started

    async def hold(c: Client, game_id: str, token: str) -> None:
        async for _ in c.game(game_id, token).stream():
            pass

    async def waiting_table() -> None:
        ca, cb = Client(a.target), Client(b.target)
        try:
            # A table still waiting for its third player: GetTable and the listing.
            t = await ca.create_game("palace", ["human", "anyone", "anyone"], public=True)
            joined = await cb.join(game_id=t.game_id)
            at_b = await cb.watch(t.game_id)

            async def seen_on_b() -> tuple[object, ...]:
                listed = (await cb.list_tables("palace"))[0]
                return (
                    tuple(s.present for s in (await at_b.table()).seats),
                    [tuple(s.present for s in x.seats) for x in listed if x.game_id == t.game_id],
                )

            assert await seen_on_b() == ((False, False, False), [(False, False, False)])
            seat0 = asyncio.create_task(hold(ca, t.game_id, t.seat_tokens[0]))  # through A
            await until(seen_on_b, ((True, False, False), [(True, False, False)]), 1.0)
            seat1 = asyncio.create_task(hold(cb, t.game_id, joined.token))  # through B
            await until(seen_on_b, ((True, True, False), [(True, True, False)]), 1.0)
            seat0.cancel()
            await until(seen_on_b, ((False, True, False), [(False, True, False)]), 1.0)
            seat1.cancel()
            await until(seen_on_b, ((False, False, False), [(False, False, False)]), 1.0)
        finally:
            for c in (ca, cb):
                await c.close()

    async def a_killed() -> None:
        ca, cb = Client(a.target), Client(b.target)
        try:
            g = await ca.create_game("spit", ["human", "human"], seed=5)
            at_b = cb.game(g.game_id, g.seat_tokens[1])

            async def present() -> tuple[int, ...]:
                return (await at_b.view()).present_seats

            assert await present() == ()
            holding = asyncio.create_task(hold(ca, g.game_id, g.seat_tokens[0]))
            await until(present, (0,), 1.0)
            a.kill()
            # gone once A's lease lapses (3 s), not at once: B cannot tell a kill from a pause
            took = await until(present, (), 6.0)
            assert took > 1.0, took
            holding.cancel()
            with contextlib.suppress(BaseException):
                await holding
        finally:
            for c in (ca, cb):
                with contextlib.suppress(BaseException):
                    await c.close()

    try:
        asyncio.run(waiting_table())
        asyncio.run(a_killed())
    finally:
        for p in (a, b):
            if p.alive():
                p.stop()
