"""Viewers' copies through a real server: for every game, two human seats (and a bot where the
game seats three) play random legal commands from their own views; at five moments seat 0 and
the spectator download the log (``GetLog``: a copy, the game in progress). ``cardcore verify``
on each copy, in a process of its own, answers "consistent so far" (exit 3), never invalid and
never a traceback; after the end the final log verifies (exit 0) and every copy taken is in it,
unchanged (``cardcore verify --receipts COPY FINAL``, exit 0)."""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cardcore import log as clog
from cardcore import registry
from cardcore_client import Client, GameClient, Rejection

from .helpers import ServerProcess

MOMENTS = (0, 2, 5, 9, 14)
"""The humans' accepted actions after which the copies are downloaded."""
CLI = (sys.executable, "-m", "cardcore.cli")


async def play_random(seats: dict[int, GameClient], rng: random.Random, actions: int) -> bool:
    """Random legal commands of the seats' own views until ``actions`` were accepted; False if
    the game ended first."""
    taken = 0
    while taken < actions:
        views = {s: await g.view() for s, g in seats.items()}
        if any(v.outcome is not None for v in views.values()):
            return False
        movers = [s for s, v in views.items() if v.legal_commands]
        if not movers:
            await asyncio.sleep(0.01)  # the bot's turn
            continue
        seat = rng.choice(movers)
        try:
            await seats[seat].submit(rng.choice(views[seat].legal_commands))
        except Rejection:
            continue  # the bot acted first
        taken += 1
    return True


async def finish(seats: dict[int, GameClient]) -> None:
    for g in seats.values():
        if (await g.view()).outcome is not None:
            return
        try:
            await g.resign()
        except Rejection as exc:
            assert exc.code in ("PlayerEliminated", "PlayerFinished", "GameOver")


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *argv], capture_output=True, text=True, check=False, timeout=60)


@pytest.mark.parametrize("name", [g.info.name for g in registry.GAMES])
def test_copies_downloaded_during_play_verify_and_are_in_the_final_log(
    server: ServerProcess, name: str, tmp_path: Path
) -> None:
    game = registry.get_game(name)
    kinds = ["human", "human"] + (["random"] if game.info.max_seats > 2 else [])
    copies: list[tuple[Path, str]] = []
    final = tmp_path / "final.jsonl"

    async def main() -> None:
        c = Client(server.target)
        try:
            created = await c.create_game(
                name, kinds, seed=31, timeouts_ms={}, bot_delay_ms=(5, 25)
            )
            seats = {s: c.game(created.game_id, t) for s, t in created.seat_tokens.items()}
            watchers = {
                "0": seats[0],
                "spectator": c.game(created.game_id, created.spectator_token),
            }
            rng = random.Random(name)
            done = 0
            for moment in MOMENTS:
                if not await play_random(seats, rng, moment - done):
                    break
                done = moment
                for viewer, g in watchers.items():
                    data, complete = await g.log()
                    if complete:
                        break
                    path = tmp_path / f"copy-{viewer}-{moment}.jsonl"
                    path.write_bytes(data)
                    copies.append((path, viewer))
            await finish(seats)
            data, complete = await seats[1].log()
            assert complete
            final.write_bytes(data)
        finally:
            await c.close()

    asyncio.run(main())
    assert len(copies) == 2 * len(MOMENTS), f"{name}: the game ended before the last moment"
    for path, viewer in copies:
        header = clog.loads(path.read_bytes())[0]
        assert header["copy"] == {"viewer": viewer}
    with ThreadPoolExecutor(4) as pool:
        checks = list(pool.map(lambda pv: cli("verify", str(pv[0])), copies))
        receipts = list(
            pool.map(lambda pv: cli("verify", "--receipts", str(pv[0]), str(final)), copies)
        )
    for (path, viewer), got in zip(copies, checks, strict=True):
        assert got.returncode == 3, f"{path.name}: {got.stdout}{got.stderr}"
        whose = "seat 0's" if viewer == "0" else "the spectator's"
        assert got.stdout.startswith(f"consistent so far: {name}, {whose} copy, "), got.stdout
        assert "Traceback" not in got.stdout + got.stderr
    got = cli("verify", str(final))
    assert got.returncode == 0 and got.stdout.startswith(
        f"self-consistent, not authenticated: {name}"
    ), got.stdout + got.stderr
    for (path, _), got in zip(copies, receipts, strict=True):
        assert got.returncode == 0, f"{path.name}: {got.stdout}{got.stderr}"
        assert (
            got.stdout.startswith("valid against your ")
            and "in the final log unchanged" in got.stdout
        )
        assert "Traceback" not in got.stdout + got.stderr
