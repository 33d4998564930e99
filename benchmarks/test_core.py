"""Core engine throughput: seeded bot playouts per game, replay and verify, next to a bare
pure-Python 2-deque War loop measured in the same run (issue: ≥ 1/25 of it, aim 1/10)."""

from __future__ import annotations

from collections import deque
from typing import Any

import pytest

from cardcore import log
from cardcore.bots import play_out, seat_bots
from cardcore.cards import standard_deck
from cardcore.match import Match
from cardcore.registry import GAMES, get_game
from cardcore.rng import Rng, shuffled

WAR_STEPS = 200_000


def war_loop(steps: int) -> int:
    """The bare baseline: two deques, flip one card each, higher rank takes both (ties: seat 0)."""
    done = 0
    game = 0
    while done < steps:
        deck = [c.rank for c in shuffled(game, 0, standard_deck())]
        a, b = deque(deck[0::2]), deque(deck[1::2])
        game += 1
        while a and b and done < steps:
            x, y = a.popleft(), b.popleft()
            if x >= y:
                a.append(x)
                a.append(y)
            else:
                b.append(y)
                b.append(x)
            done += 1
    return done


def test_bare_war_loop(benchmark: Any, figures: dict[str, float]) -> None:
    steps = benchmark.pedantic(war_loop, args=(WAR_STEPS,), rounds=5, iterations=1)
    figures["bare War loop steps/s"] = steps / benchmark.stats.stats.mean


def playouts(name: str, games: int, bots: str) -> int:
    game = get_game(name)
    seats = 3 if game.info.max_seats >= 3 else 2
    actions = 0
    for seed in range(games):
        match = Match(game, game.make_setup(seats, seed), record=False)
        if bots == "one random chooser":
            actions += _single_chooser(match, seed)
        else:
            actions += play_out(match, seat_bots("reaction", seats, seed)).actions
    return actions


def _single_chooser(match: Match[Any, Any, Any, Any, Any], seed: int) -> int:
    """A random playout in the classic sense: one bot picks among every seat's legal commands."""
    game, seats, n, now = match.game, match.setup.seats, 0, 0
    rng = Rng(seed, 1)
    while match.outcome is None and n < 20_000:
        options = [(s, c) for s in range(seats) for c in game.legal_commands(match.state, s)]
        sensible = [o for o in options if game.is_sensible(match.state, o[0], o[1])]
        pool = sensible or options
        seat, cmd = pool[rng.below(len(pool))]
        now += 1
        match.submit(seat, cmd, now)
        n += 1
    return n


@pytest.mark.parametrize("bots", ["reaction bots", "one random chooser"])
@pytest.mark.parametrize("name", [g.name for g in GAMES])
def test_playouts(benchmark: Any, figures: dict[str, float], name: str, bots: str) -> None:
    actions = benchmark.pedantic(playouts, args=(name, 20, bots), rounds=3, iterations=1)
    figures[f"{name} playout steps/s ({bots})"] = actions / benchmark.stats.stats.mean


@pytest.fixture(scope="module")
def ers_logs() -> list[list[dict[str, Any]]]:
    game = get_game("ratscrew")
    out = []
    for seed in range(10):
        match = Match(game, game.make_setup(3, seed))
        play_out(match, seat_bots("reaction", 3, seed))
        assert match.writer is not None
        out.append(match.writer.lines)
    return out


def test_replay_evolve_only(benchmark: Any, figures: dict[str, float], ers_logs: Any) -> None:
    """Replay proper: apply already-decoded events (what a host holding a game in memory does)."""
    game = get_game("ratscrew")
    decoded = [(log_lines, [s.events for s in log.replay(log_lines)]) for log_lines in ers_logs]

    def run() -> int:
        n = 0
        evolve = game.evolve
        for lines, entries in decoded:
            state = game.initial_state(game.make_setup(lines[0]["setup"]["seats"], 0))
            for events in entries:
                for e in events:
                    state = evolve(state, e)
                n += len(events)
        return n

    events = benchmark.pedantic(run, rounds=5, iterations=1)
    figures["ratscrew replay (evolve only) events/s"] = events / benchmark.stats.stats.mean


def test_replay(benchmark: Any, figures: dict[str, float], ers_logs: Any) -> None:
    """Replay from the JSON log: decode every event, then evolve."""

    def run() -> int:
        events = 0
        for lines in ers_logs:
            for step in log.replay(lines):
                events += len(step.events)
        return events

    events = benchmark.pedantic(run, rounds=3, iterations=1)
    figures["ratscrew replay from log (decode + evolve) events/s"] = (
        events / benchmark.stats.stats.mean
    )


def test_verify(benchmark: Any, figures: dict[str, float], ers_logs: Any) -> None:
    def run() -> int:
        return sum(log.verify(lines).entries for lines in ers_logs)

    entries = benchmark.pedantic(run, rounds=3, iterations=1)
    figures["ratscrew verify entries/s"] = entries / benchmark.stats.stats.mean
