"""A bot takes a seat on a cardcore server: the same bots the ladder runs — a program speaking
bot protocol v1 (``cmd:…``), a Python class (``module:Class``), ``random`` or ``reaction`` — as
a client of the seat's play channel (docs/bots.md#on-a-server).

    pip install . './clients/python[bots]'   # from a clone: the engine reads views, commands
    python -m cardcore_client.botseat --target HOST:PORT --game-id ID --join 'cmd:node bot.js'
    python -m cardcore_client.botseat --target HOST:PORT --game-id ID --token TOKEN random

Each time the game changes, the bot is shown the seat's view and legal commands as the server
gives them (:meth:`PlaySession.view`; never more than the seat sees) and answers as it would to
the ladder's referee. Here the clock is the real one: a requested delay is slept, and a change
of the game meanwhile makes the bot decide again on the new view instead (as a player who sees
the table move would). The server decides races by its own race policy.

A decision the bot loses (docs/bots.md#faults: it timed out, answered garbage, or proposed a
command the server then refused) costs only that decision; a bot that crashed resigns its seat,
as the ladder forfeits it, so the game never waits on a dead program. :func:`play_seat` returns
what happened, faults included.

This module needs the engine (``cardcore``) to decode views and commands and to run the bot;
the rest of the client never imports it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import secrets
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cardcore import codec
from cardcore.arena.process import close_bots, load_bot
from cardcore.bots import Bot, Legal
from cardcore.engine import Game
from cardcore.log.header import setup_of
from cardcore.referee import BotFault
from cardcore.registry import get_game

from .client import CallError, Client, GameClient, PlaySession, View

AnyGame = Game[Any, Any, Any, Any, Any]


@dataclass
class SeatReport:
    """What a bot did in its seat: its accepted actions, the decisions it lost (``kind``:
    ``crash``, ``timeout``, ``garbage``, ``illegal``, or ``refused`` for a command the server
    rejected, with the rejection's code), and whether it resigned because it crashed."""

    seat: int
    acted: int = 0
    faults: list[tuple[str, str]] = field(default_factory=list)
    resigned: bool = False
    outcome: Any = None


async def play_seat(
    game_client: GameClient, spec: str, *, seed: int | None = None, **bot_options: Any
) -> SeatReport:
    """Play ``game_client``'s seat with the bot ``spec`` (:func:`cardcore.arena.process.load_bot`:
    ``bot_options`` are its keywords, e.g. ``deadline_ms``) until the game ends; ``seed``: the
    bot's own (random when None)."""
    async with game_client.play() as session:
        game, setup = await _game_and_setup(game_client)
        seat = session.seat
        assert seat is not None, "a seat's token opens a seat's play channel"
        bot_seed = secrets.randbits(63) if seed is None else seed
        bot = await asyncio.to_thread(load_bot, spec, seat, game, setup, bot_seed, **bot_options)
        report = SeatReport(seat)
        try:
            await _play(session, game_client, game, bot, report)
        finally:
            await asyncio.to_thread(close_bots, [bot])
        return report


async def _game_and_setup(game_client: GameClient) -> tuple[AnyGame, Any]:
    """The game and its public setup, from the log's header (the seed is the server's secret:
    the setup the bot is shown carries 0 in its place, as its ``hello`` never shows a seed)."""
    log, _ = await game_client.log()
    header = json.loads(log.split(b"\n", 1)[0])
    game = get_game(header["game"])
    return game, setup_of(game, header, 0)


async def _play(
    session: PlaySession, game_client: GameClient, game: AnyGame, bot: Bot, report: SeatReport
) -> None:
    """The loop of :func:`play_seat`: decide on each new view, act once the delay is over unless
    the game moved first. A bot that proposes again, after a change, the command it was waiting
    to play keeps the time it had waited (its reaction began at the first sight of it): else a
    seat that acts at once and often could keep any slower seat from ever acting."""
    changed = asyncio.Event()
    follower = asyncio.create_task(_follow(session, changed))
    loop = asyncio.get_running_loop()
    pending: tuple[Any, float] | None = None  # (command, when to play it, in loop time)
    try:
        while True:
            changed.clear()
            now = await session.view()
            if now.outcome is not None or follower.done():
                report.outcome = now.outcome
                return
            proposal = await _ask(bot, game, now, report)
            if report.resigned:
                await game_client.resign()
                return
            if proposal is None:
                pending = None
                await _wait(changed, follower, None)
                continue
            delay_ms, command = proposal
            due = loop.time() + delay_ms / 1000
            if pending is not None and pending[0] == command:
                due = min(due, pending[1])
            pending = (command, due)
            if await _wait(changed, follower, max(0.0, due - loop.time())):
                continue  # the game moved while the bot waited: decide again on the new view
            pending = None
            await _act(session, command, report)
    finally:
        follower.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await follower


async def _act(session: PlaySession, command: Any, report: SeatReport) -> None:
    """Send the command; a rejection (the game moved on, a race lost) costs the decision."""
    try:
        await session.act(codec.encode(command))
        report.acted += 1
    except CallError as exc:
        report.faults.append(("refused", f"{exc.reason}: {exc.message}"[:200]))


async def _follow(session: PlaySession, changed: asyncio.Event) -> None:
    """Set ``changed`` at each entry the seat receives; returns when the game ends (the
    session's entries end with it)."""
    async for _ in session:
        changed.set()


async def _wait(
    changed: asyncio.Event, follower: asyncio.Task[None], timeout: float | None
) -> bool:
    """Wait for a change (True) or the timeout (False); a finished follower is a change."""
    if follower.done():
        return True
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(changed.wait(), timeout)
        return True
    return False


async def _ask(bot: Bot, game: AnyGame, now: View, report: SeatReport) -> tuple[int, Any] | None:
    """The bot's proposal on the server's view: its legal commands as the server gives them,
    without hints (the server does not send them); a lost decision is recorded and is a pass,
    and a crash marks the seat to resign."""
    view = codec.decoder(game.view_type)(now.view.data, "view")
    commands = tuple(game.decode_command(c.data) for c in now.legal_commands)
    try:
        return await asyncio.to_thread(bot.propose, view, Legal(commands, None))
    except BotFault as fault:
        report.faults.append((fault.kind, fault.detail))
        report.resigned = fault.kind == "crash"
        return None


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m cardcore_client.botseat",
        description="A bot (cmd:<program>, module:Class, random, reaction) plays a seat of a game "
        "on a cardcore server through the seat's play channel.",
    )
    parser.add_argument("bot", help="cmd:<argv> (bot protocol v1), module:Class, random, reaction")
    parser.add_argument("--target", required=True, help="the server's gRPC address, HOST:PORT")
    parser.add_argument("--game-id", required=True)
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--token", help="the seat's token")
    who.add_argument("--join", action="store_true", help="join the table's first open seat")
    parser.add_argument("--tls", action="store_true", help="the server speaks TLS")
    parser.add_argument("--deadline-ms", type=int, default=None, help="a program's decision time")
    return parser.parse_args(argv)


async def _main(args: argparse.Namespace) -> SeatReport:
    async with Client(args.target, tls=args.tls) as client:
        token = args.token or (await client.join(game_id=args.game_id)).token
        options = {} if args.deadline_ms is None else {"deadline_ms": args.deadline_ms}
        return await play_seat(client.game(args.game_id, token), args.bot, **options)


def main(argv: Sequence[str] | None = None) -> int:
    """Play the seat; print what happened as one JSON line; exit 0 (1 when the bot crashed)."""
    args = _arguments(argv)
    report = asyncio.run(_main(args))
    outcome = None if report.outcome is None else str(report.outcome)
    summary = {"seat": report.seat, "acted": report.acted, "outcome": outcome}
    print(json.dumps(summary | {"faults": report.faults, "resigned": report.resigned}))
    return 1 if report.resigned else 0


if __name__ == "__main__":
    sys.exit(main())
