"""Slap races over the real service, one seat behind a link 50 ms slower each way
(docs/games/common.md#fairness measures the same in the simulator).

``.venv/bin/python -m benchmarks.races [--races 100] [--delay-ms 50] [--cap-ms 80]``

Two clients play Slapjack (targets jack, double and sandwich: a race every few cards) over the
WebSocket play channel of an in-process server: seat 0 directly, seat 1 through
:class:`~tests.service.delayproxy.DelayProxy`. Each client follows the game from its entries
alone, as a player at a screen does. On a slappable pile it slaps after a human reaction time
(uniform 180-260 ms, as ``cardcore fairness --reaction human``), with the pile's epoch as its
expectation; on its turn it plays at once, but not onto a slappable pile (it waits for the race
to be decided). Each race a valid slap decides counts for its seat. Run under ``arrival`` and
under ``compensated:CAP``, it prints the nearer seat's share of the races with a 95 % interval,
the credits the log recorded and how many were clamped. Not part of ``make test``: 100 races a
policy take about a minute and a half at human reaction times.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import random
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from cardcore_server.app import Application, GameSpec
from cardcore_server.config import ServiceConfig
from cardcore_server.store import SeatSpec
from cardcore_server.transports.server import ServerOptions, start
from tests.service.delayproxy import DelayProxy

REACTION_MS = (180, 260)
PLAY_MS = 20
"""A turn's card goes down this long after the seat sees its turn (not a race)."""
RULES: dict[str, Any] = {"slap_targets": ["jack", "double", "sandwich"]}


def slappable(pile: list[str]) -> bool:
    ranks = [card[:-1] for card in pile[-3:]]
    return bool(ranks) and (
        ranks[-1] == "J"
        or (len(ranks) >= 2 and ranks[-1] == ranks[-2])
        or (len(ranks) == 3 and ranks[-1] == ranks[-3])
    )


@dataclass
class Seat:
    """One client: its channel, and the table as its entries tell it."""

    seat: int
    socket: ClientConnection
    rng: random.Random
    pile: list[str] = field(default_factory=list)
    epoch: int = 0
    current: int | None = 0
    over: bool = False
    pending: asyncio.Task[None] | None = None
    acts: int = 0

    async def act(self, command: dict[str, Any], after_ms: float) -> None:
        await asyncio.sleep(after_ms / 1000)
        self.acts += 1
        frame = {"type": "act", "command": command, "action_id": f"s{self.seat}-{self.acts}"}
        await self.socket.send(json.dumps(frame))

    def decide(self) -> None:
        """What this seat does about the table it now sees (a new decision replaces the last)."""
        if self.pending is not None:
            self.pending.cancel()
            self.pending = None
        if self.over:
            return
        if slappable(self.pile):
            reaction = self.rng.uniform(*REACTION_MS)
            slap = {"kind": "Slap", "expect_epoch": self.epoch}
            self.pending = asyncio.ensure_future(self.act(slap, reaction))
        elif self.current == self.seat:
            self.pending = asyncio.ensure_future(self.act({"kind": "Play"}, PLAY_MS))

    def see(self, entry: dict[str, Any], races: list[int]) -> None:
        for event in entry["events"]:
            kind = event["kind"]
            if kind == "CardPlayed":
                self.pile.append(event["card"])
                self.current = event["current"]
            elif kind == "PileTaken":
                self.pile, self.epoch, self.current = [], self.epoch + 1, event["current"]
            elif kind in ("TurnPassed", "Resigned"):
                self.current = event.get("current", self.current)
            elif kind == "Slapped" and event["valid"] and self.seat == 0:
                races.append(event["seat"])  # counted once, by seat 0's client


async def play(
    app: Application,
    rest_port: int,
    proxy_port: int,
    rules: dict[str, Any],
    races: list[int],
    wanted: int,
    seed: int,
) -> list[dict[str, Any]]:
    """One game (or until ``wanted`` races are decided); its log's lines."""
    spec = GameSpec(game="slapjack", seats=(SeatSpec("human"), SeatSpec("human")), rules=rules)
    made = await app.create_game(spec)
    tokens = dict(made.seat_tokens)
    seats: list[Seat] = []
    ended = asyncio.Event()

    async def follow(s: Seat) -> None:
        async for text in s.socket:
            frame = json.loads(text)
            if frame["type"] == "ping":
                await s.socket.send(json.dumps({"type": "pong", "nonce": frame["nonce"]}))
            elif frame["type"] == "entry":
                s.see(frame["entry"], races)
                s.decide()
                if len(races) >= wanted:
                    ended.set()
            elif frame["type"] == "end":
                s.over = True
                ended.set()

    followers = []
    for seat, port in ((0, rest_port), (1, proxy_port)):
        url = f"ws://127.0.0.1:{port}/v1/games/{made.game_id}/play"
        socket = await connect(url)
        s = Seat(seat, socket, random.Random(seed * 2 + seat))
        seats.append(s)
        followers.append(asyncio.ensure_future(follow(s)))
        await socket.send(json.dumps({"type": "auth", "token": tokens[seat]}))
    await asyncio.sleep(1.2)  # both round trips measured (a ping at open, the next after 1 s)
    for s in seats:
        s.decide()
    await ended.wait()
    for s in seats:
        s.over = True
        if s.pending is not None:
            s.pending.cancel()
    for f in followers:
        f.cancel()
    for s in seats:
        await s.socket.close()
    live = await app.play.live(made.game_id)
    return live.lines[: live.durable_lines]


async def measure(policy: str, races_wanted: int, delay_ms: int, cap_ms: int) -> dict[str, Any]:
    rules = dict(RULES)
    if policy == "compensated":
        rules |= {"race_policy": "compensated", "race_cap_ms": cap_ms}
    with tempfile.TemporaryDirectory() as tmp:
        options = ServerOptions(
            port=0, rest_port=0, db=str(Path(tmp) / "races.db"), config=ServiceConfig()
        )
        running = await start(options)
        try:
            assert running.rest_port is not None
            races: list[int] = []
            credits: list[int] = []
            clamped = 0
            async with DelayProxy(running.rest_port, delay_ms / 1000) as proxy:
                seed = 0
                while len(races) < races_wanted:
                    lines = await play(
                        running.app,
                        running.rest_port,
                        proxy.port,
                        rules,
                        races,
                        races_wanted,
                        seed,
                    )
                    seed += 1
                    for line in lines:
                        race = line.get("race")
                        if race is not None and line["seat"] == 1:
                            credits.append(race["received_ms"] - line["at_ms"])
                        clamped += bool(race and race["clamped"])
        finally:
            await running.stop(grace_s=0.5)
    races = races[:races_wanted]
    near = races.count(0) / len(races)
    half = 1.96 * math.sqrt(near * (1 - near) / len(races))
    return {
        "policy": policy if policy == "arrival" else f"compensated:{cap_ms}",
        "races": len(races),
        "near_wins": round(near, 3),
        "ci95": [round(max(0.0, near - half), 3), round(min(1.0, near + half), 3)],
        "far_credit_ms_median": sorted(credits)[len(credits) // 2] if credits else 0,
        "clamped": clamped,
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--races", type=int, default=100)
    parser.add_argument("--delay-ms", type=int, default=50)
    parser.add_argument("--cap-ms", type=int, default=80)
    args = parser.parse_args(argv)
    for policy in ("arrival", "compensated"):
        result = asyncio.run(measure(policy, args.races, args.delay_ms, args.cap_ms))
        print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
