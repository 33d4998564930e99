"""Rules every game shares (docs/games/common.md) that no one game's scenarios show: what the host
does to a seat or to a game from outside the rules. Each runs on every registered game, from the
deal."""

from __future__ import annotations

from typing import Any

import pytest

from cardcore import kit, log, registry
from cardcore.engine import Outcome, Termination
from cardcore.errors import RejectCode, Rejected
from cardcore.match import Match

GAMES = [g.info.name for g in registry.GAMES]


def dealt(name: str) -> Match[Any, Any, Any, Any, Any]:
    game = registry.get_game(name)
    return Match(game, game.make_setup(game.info.min_seats, 11), game_id="g")


def logged(match: Match[Any, Any, Any, Any, Any]) -> list[log.LogLine]:
    assert match.writer is not None
    return log.loads(log.dumps(match.writer.lines))


@pytest.mark.parametrize("name", GAMES)
def test_a_timers_forfeit_is_a_resignation_marked_as_the_hosts(name: str) -> None:
    """docs/games/common.md#forfeit"""
    player, timer = dealt(name), dealt(name)
    player.submit(1, kit.Resign(), 5)
    timer.submit(1, kit.Resign(by=kit.RESIGN_BY_TIMER), 5)
    assert timer.outcome is not None and timer.outcome.termination is Termination.RESIGNED
    assert timer.state == player.state and timer.outcome == player.outcome
    entry = logged(timer)[-2]  # the last entry, before the end line
    assert entry["seat"] == 1 and entry["action"] == {"kind": "Resign", "by": "timer"}
    assert logged(player)[-2]["action"] == {"kind": "Resign", "by": None}


@pytest.mark.parametrize("name", GAMES)
def test_an_abort_ends_the_game_with_no_winners_no_losers_and_the_seed_revealed(name: str) -> None:
    """docs/games/common.md#abort"""
    match = dealt(name)
    seat = next(s for s in range(match.setup.seats) if match.legal_commands(s))
    match.submit(seat, match.legal_commands(seat)[0], 5)
    assert match.outcome is None
    match.abort(10, "creator")
    assert match.outcome == Outcome(Termination.ABORTED, winners=(), losers=())
    report = log.verify(logged(match))
    assert report.revealed and report.outcome == match.outcome
    with pytest.raises(Rejected) as info:
        match.submit(seat, kit.Resign(), 20)
    assert info.value.code is RejectCode.GAME_OVER
