"""Races: 8 clients slap the same slappable ERS pile at once, through a real server.

Exactly one slap wins; every other one gets what its place in the sequencer's order gives under the
rules (docs/games/ratscrew.md#slapping: ``EmptyPile`` once the pile is taken, ``StaleAction`` for a
slap that named the old ``expect_epoch``), and every client's stream shows the same order as the
log.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from cardcore import codec, registry
from cardcore import log as clog
from cardcore.errors import Rejected
from cardcore.games import ratscrew
from cardcore.match import Match
from cardcore_client import Client, Rejection

from .helpers import ServerProcess

SEATS = 8


def find_early_slappable_pile() -> tuple[int, list[tuple[int, Any]]]:
    """A seed and the non-slap actions (seat, command) after which the pile is slappable."""
    game = registry.get_game("ratscrew")
    for seed in range(2000):
        m = Match(game, game.make_setup(SEATS, seed))
        actions: list[tuple[int, Any]] = []
        for _ in range(40):
            if ratscrew.slap_match(m.state.played, m.state.setup.rules.slap_rules) is not None:
                return seed, actions
            for seat in range(SEATS):
                cmds = [c for c in m.legal_commands(seat) if not isinstance(c, ratscrew.Slap)]
                if cmds:
                    m.submit(seat, cmds[0], 0)
                    actions.append((seat, cmds[0]))
                    break
    raise AssertionError("no seed gives an early slappable pile")


async def race(target: str) -> None:
    seed, actions = find_early_slappable_pile()
    clients = [Client(target) for _ in range(SEATS)]
    try:
        created = await clients[0].create_game(
            "ratscrew", ["human"] * SEATS, seed=seed, timeouts_ms={"Collect": 0}
        )
        seats = [c.game(created.game_id, created.seat_tokens[i]) for i, c in enumerate(clients)]
        for seat, command in actions:
            await seats[seat].submit(codec.canonical_text(codec.encode(command)))
        views = await asyncio.gather(*(s.view() for s in seats))  # warm every channel
        epoch = views[0].view.data["epoch"]
        assert views[0].view.data["slappable"]
        race_from = views[0].seq

        streamed: list[list[tuple[int, int | None, str]]] = [[] for _ in range(SEATS)]

        async def follow(i: int) -> None:
            async for e in seats[i].stream(0):
                streamed[i].append((e.seq, e.seat, e.action.json))
                if e.seq >= race_from:
                    return

        followers = [asyncio.create_task(follow(i)) for i in range(SEATS)]
        # half the slaps name the epoch they saw, half do not
        slaps = [
            {"kind": "Slap", "expect_epoch": epoch} if i % 2 else {"kind": "Slap"}
            for i in range(SEATS)
        ]
        results = await asyncio.gather(
            *(seats[i].submit(slaps[i]) for i in range(SEATS)), return_exceptions=True
        )
        await asyncio.wait_for(asyncio.gather(*followers), 20)

        winners = [i for i, r in enumerate(results) if not isinstance(r, BaseException)]
        assert len(winners) == 1, results
        win = results[winners[0]]
        assert not isinstance(win, BaseException)
        kinds = [e.kind for e in win.entry.events]
        assert kinds[:2] == ["Slapped", "PileTaken"], kinds
        assert win.entry.events[0].data["valid"] is True

        # the losers got exactly what the rules give at their place in the order
        # (a seat's download is its copy, hidden cards and all: the state is rebuilt from the
        # seed the test chose and the copy's actions, which every viewer sees)
        log_bytes, _ = await seats[0].log()
        lines = clog.loads(log_bytes)
        game = registry.get_game("ratscrew")
        rebuilt = Match(game, game.make_setup(SEATS, seed), record=False)
        for line in lines[2:]:
            rebuilt.submit(line["seat"], game.decode_command(line["action"]), line["at_ms"])
        final_state = rebuilt.state
        for i, r in enumerate(results):
            if i in winners:
                continue
            assert isinstance(r, Rejection), r
            command = game.decode_command(slaps[i])
            try:
                game.decide(final_state, i, command)
            except Rejected as exc:
                expected = exc.code.value
            else:
                raise AssertionError("a losing slap would be accepted")
            assert r.code == expected
            assert r.code == ("StaleAction" if i % 2 else "EmptyPile")

        # every client's stream shows the log's order
        log_order = [
            (
                line["seq"],
                line["seat"],
                json.dumps(line["action"], sort_keys=True, separators=(",", ":")),
            )
            for line in lines
            if line["type"] == "entry"
        ]
        for i in range(SEATS):
            assert streamed[i] == log_order[: len(streamed[i])]
            assert streamed[i][-1][0] == race_from
            assert streamed[i][-1][1] == winners[0]
    finally:
        for c in clients:
            await c.close()


def test_eight_clients_slap_the_same_pile(server: ServerProcess) -> None:
    asyncio.run(race(server.target))
