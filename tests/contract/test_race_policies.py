"""Both race policies, every real-time game (docs/games/common.md#race-policy): seeded games
whose seats sit at different distances, played under ``arrival`` and under ``compensated``,
each log verified and replayed byte for byte. The rules decide alike under both (a credit moves
``at_ms``, never a decision): the same actions in the same order give the same events."""

from __future__ import annotations

import pytest

from cardcore import log
from cardcore.bots import seat_bots
from cardcore.fairness import play_raced
from cardcore.match import Match
from cardcore.registry import get_game

REALTIME = ("ratscrew", "slapjack", "spit", "speed")
POLICIES = {
    "arrival": {},
    "compensated": {"race_policy": "compensated", "race_cap_ms": 60},
}


@pytest.mark.parametrize("policy", list(POLICIES))
@pytest.mark.parametrize("name", REALTIME)
def test_a_game_at_two_distances_verifies_and_replays(name: str, policy: str) -> None:
    game = get_game(name)
    for seed in (3, 4):
        setup = game.make_setup(2, seed, POLICIES[policy], event_limit=600)
        match = Match(game, setup)
        play_raced(match, seat_bots("reaction", 2, seed), (0, 75))  # 75 ms: past the cap
        data = match.dumps()
        lines = log.loads(data)
        report = log.verify(lines)
        assert report.race_policy == ("compensated:60" if policy == "compensated" else "arrival")
        seated = [ln for ln in lines[2:] if ln.get("type") == "entry"]
        if policy == "compensated":
            assert lines[0]["format"] == 3
            assert all(ln["race"]["delay_ms"] in (0, 75) for ln in seated)
            far = [ln for ln in seated if ln["race"]["delay_ms"] == 75]
            assert far and all(ln["race"]["received_ms"] - ln["at_ms"] == 60 for ln in far)
        else:
            assert lines[0]["format"] == 1 and not any("race" in ln for ln in lines)
        assert Match.loads(data, seed=seed).dumps() == data


@pytest.mark.parametrize("name", REALTIME)
def test_the_credit_moves_time_never_a_decision(name: str) -> None:
    """The actions of a compensated game, submitted at their credited times to a game under
    ``arrival``, give the same events, entry for entry."""
    game = get_game(name)
    raced = Match(game, game.make_setup(2, 9, POLICIES["compensated"], event_limit=400))
    play_raced(raced, seat_bots("reaction", 2, 9), (40, 0))
    plain = Match(game, game.make_setup(2, 9, event_limit=400))
    assert raced.writer is not None and plain.writer is not None
    for line in raced.writer.lines[2:]:
        if line.get("type") != "entry":
            continue
        plain.submit(line["seat"], game.decode_command(line["action"]), line["at_ms"])
        assert plain.writer.lines[-1 if plain.outcome is None else -2]["events"] == line["events"]
    assert plain.outcome == raced.outcome
