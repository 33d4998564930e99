"""``cardcore demo``: a server on a free port, one game of every registered game, a short report.

Each game has one seat played by this process through the Python client (it streams the game,
reads its view and legal commands, and submits one of them at random — races included) and the
other seats played by the server's reaction bots. Each finished log is downloaded with the
client's token and checked with ``cardcore verify``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Final

from cardcore import registry
from cardcore.cli import whole_number
from cardcore_client import Client, Rejection

from . import logs
from .app import MAX_EVENT_LIMIT
from .config import ServiceConfig
from .transports.server import ServerOptions, start


@dataclass(frozen=True, slots=True)
class GameReport:
    game: str
    seats: int
    entries: int
    client_actions: int
    client_rejections: int
    termination: str
    winners: tuple[int, ...]
    verified: bool
    verify_output: str
    seconds: float


async def _play_one(target: str, name: str, seats: int, seed: int, event_limit: int) -> GameReport:
    started = time.perf_counter()
    async with Client(target) as client:
        created = await client.create_game(
            name,
            ["human"] + ["reaction"] * (seats - 1),
            event_limit=event_limit,
            bot_delay_ms=(1, 8),
        )
        me = client.game(created.game_id, created.seat_tokens[0])
        rng = random.Random(seed)
        actions = rejections = 0
        changed = asyncio.Event()
        entries = 0

        async def follow() -> None:
            nonlocal entries
            async for _entry in me.stream(0):
                entries += 1
                changed.set()
            changed.set()

        follower = asyncio.create_task(follow())
        try:
            while True:
                view = await me.view()
                if view.outcome is not None:
                    break
                if view.legal_commands:
                    command = rng.choice(view.legal_commands)
                    try:
                        await me.submit(command)
                        actions += 1
                    except Rejection:
                        rejections += 1  # lost a race: the state moved on
                    await asyncio.sleep(rng.uniform(0.001, 0.010))
                else:
                    changed.clear()
                    try:
                        await asyncio.wait_for(changed.wait(), 0.05)
                    except TimeoutError:
                        pass
            await asyncio.wait_for(follower, 30)
        finally:
            follower.cancel()
        log_bytes, complete = await me.log()
    with tempfile.NamedTemporaryFile("wb", suffix=".jsonl", delete=False) as f:
        f.write(log_bytes)
        path = f.name
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "cardcore.cli", "verify", path],
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        os.unlink(path)
    assert view.outcome is not None
    return GameReport(
        game=name,
        seats=seats,
        entries=entries,
        client_actions=actions,
        client_rejections=rejections,
        termination=view.outcome.termination,
        winners=view.outcome.winners,
        verified=complete and proc.returncode == 0,
        verify_output=(proc.stdout + proc.stderr).strip().splitlines()[-1:][0]
        if (proc.stdout + proc.stderr).strip()
        else "",
        seconds=time.perf_counter() - started,
    )


async def run_demo(seed: int, event_limit: int, db: str | None) -> list[GameReport]:
    with tempfile.TemporaryDirectory() as tmp:
        options = ServerOptions(
            host="127.0.0.1", port=0, db=db or os.path.join(tmp, "demo.db"), config=ServiceConfig()
        )
        running = await start(options)
        target = f"127.0.0.1:{running.port}"
        print(f"cardcore demo: server on {target}", flush=True)
        try:
            reports = []
            for i, game in enumerate(registry.GAMES):
                seats = max(2, game.info.min_seats)
                report = await _play_one(target, game.info.name, seats, seed + i, event_limit)
                reports.append(report)
                print(_line(report), flush=True)
            return reports
        finally:
            await running.stop(1.0)


def _line(r: GameReport) -> str:
    ok = "verified" if r.verified else f"VERIFY FAILED ({r.verify_output})"
    winners = ",".join(map(str, r.winners)) or "-"
    return (
        f"  {r.game:<10} {r.seats} seats  {r.entries:>5} entries  client: {r.client_actions:>4} "
        f"actions, {r.client_rejections:>3} rejected  end: {r.termination:<13} "
        f"winners: {winners:<5} log {ok}  ({r.seconds:.1f} s)"
    )


DESCRIPTION: Final = (
    "Start a server on a free port and play one game of every game on it: one seat played by "
    "this process through the Python client (a random legal command each time, races "
    "included), the others by the server's bots. Each finished log is downloaded and checked "
    "with cardcore verify. Exit 0 when every log verifies, 1 otherwise."
)
"""``cardcore demo --help``: plain text (the module's docstring is reStructuredText)."""


def demo_main(args: list[str]) -> int:
    """``cardcore demo [--seed N] [--event-limit N]``; exits non-zero if a log fails to verify."""
    p = argparse.ArgumentParser(prog="cardcore demo", description=DESCRIPTION)
    p.add_argument(
        "--seed",
        type=whole_number(0),
        default=1,
        metavar="N",
        help="seed of the client's choices; game i uses N + i (default %(default)s)",
    )
    p.add_argument(
        "--event-limit",
        type=whole_number(1, MAX_EVENT_LIMIT),
        default=3000,
        metavar="N",
        help="events after which a game ends unfinished (default %(default)s)",
    )
    p.add_argument(
        "--db",
        default=None,
        metavar="PATH",
        help="keep the server's SQLite database at PATH (default: a temporary one)",
    )
    ns = p.parse_args(args)
    logs.configure(stream=open(os.devnull, "w"), level="warning")  # noqa: SIM115
    reports = asyncio.run(run_demo(ns.seed, ns.event_limit, ns.db))
    bad = [r for r in reports if not r.verified]
    print(
        f"cardcore demo: {len(reports)} games played, "
        f"{len(reports) - len(bad)} logs verified, {len(bad)} failed"
    )
    return 1 if bad else 0
