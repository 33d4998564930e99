"""Bots as clients of the play channel (issue 27: "the same bots can take a seat on the server"):
``cardcore_client.botseat`` seats a bot protocol v1 program, or one of cardcore's own bots, in a
real server's game; the game is played to its end through the server, and a bot that crashes
resigns its seat instead of leaving the game waiting."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from cardcore.log import loads, verify
from cardcore_client import Client
from cardcore_client.botseat import play_seat

from .test_play_client import serving

BOTS = Path(__file__).resolve().parents[2] / "examples" / "bots"
PROGRAM = f"cmd:{sys.executable} {BOTS / 'random_bot.py'}"
WAIT_S = 60.0


def test_two_programs_play_a_whole_game_on_the_server(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(tmp_path) as running, Client(f"127.0.0.1:{running.port}") as client:
            created = await client.create_game("speed", ["human", "human"])
            seats = [client.game(created.game_id, created.seat_tokens[s]) for s in (0, 1)]
            async with asyncio.timeout(WAIT_S):
                reports = await asyncio.gather(
                    play_seat(seats[0], PROGRAM, seed=1), play_seat(seats[1], "random", seed=2)
                )
            assert [r.seat for r in reports] == [0, 1]
            assert all(r.outcome is not None and not r.resigned for r in reports)
            assert reports[0].acted > 0 and reports[1].acted > 0
            log, complete = await seats[0].log()
            assert complete
            lines = [json.loads(x) for x in log.splitlines()]
            by_seat = {line.get("seat") for line in lines[2:-1]}
            assert {0, 1} <= by_seat, "both bots' actions are in the server's log"
            report = verify(loads(log))
            assert report.revealed and report.outcome is not None

    asyncio.run(main())


def test_a_program_that_crashes_resigns_its_seat(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(tmp_path) as running, Client(f"127.0.0.1:{running.port}") as client:
            created = await client.create_game("ratscrew", ["human", "human"])
            me, other = (client.game(created.game_id, created.seat_tokens[s]) for s in (0, 1))
            # exits on its first decision (the server sends no hints, so this bot, which plays
            # the sensible commands the hints name, would only pass before it)
            crash = f"cmd:{sys.executable} {BOTS / 'crash_bot.py'} 1"
            async with asyncio.timeout(WAIT_S):
                mine, theirs = await asyncio.gather(
                    play_seat(me, crash, seed=1), play_seat(other, PROGRAM, seed=2)
                )
            assert mine.resigned and mine.faults[-1][0] == "crash", mine.faults
            assert "exit" in mine.faults[-1][1]
            assert theirs.outcome is not None and theirs.outcome.winners == (1,)
            log, _ = await me.log()
            last_action = json.loads(log.splitlines()[-2])
            assert last_action["seat"] == 0 and last_action["action"]["kind"] == "Resign"

    asyncio.run(main())
