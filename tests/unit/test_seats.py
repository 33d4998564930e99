"""A seat is checked once (issue 23): by :class:`~cardcore.match.Match` for every action it decides,
and by the one kit check (:func:`cardcore.kit.seated` / :func:`cardcore.kit.viewed`) that a game's
functions declare for a caller that asks them directly; the rules below trust it. Whichever path a
bad seat takes, it is refused as before: :class:`~cardcore.errors.InvalidSeat`, in the words of
:func:`cardcore.engine.check_seat`, before anything changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from cardcore import kit
from cardcore.engine import Game, Role, check_seat
from cardcore.errors import InvalidSeat
from cardcore.match import Match
from cardcore.registry import GAMES, get_game

AnyGame = Game[Any, Any, Any, Any, Any]

BAD_SEATS: tuple[object, ...] = (3, -1, True, False, 1.0, "0", None)
"""Not a seat of a three-seat game (two-seat games: 2 and 3 are out of range too)."""

CONVERTED = ("ratscrew", "slapjack", "palace", "spit", "speed")
"""Games whose functions declare the kit's seat check (tests/unit/test_game_modules.py)."""


def refusal(seats: int, seat: object) -> str:
    """What :func:`check_seat` says of ``seat``: the words every path must refuse it in."""
    with pytest.raises(InvalidSeat) as info:
        check_seat(seats, seat)
    return str(info.value)


def assert_refused(call: Callable[[], object], seats: int, seat: object) -> None:
    with pytest.raises(InvalidSeat) as info:
        call()
    assert str(info.value) == refusal(seats, seat)


def started(game: AnyGame) -> Match[Any, Any, Any, Any, Any]:
    return Match(game, game.make_setup(min(3, game.info.max_seats), 7))


@pytest.mark.parametrize("game", GAMES, ids=[g.name for g in GAMES])
@pytest.mark.parametrize("seat", BAD_SEATS, ids=repr)
def test_match_refuses_a_bad_seat_on_every_path(game: AnyGame, seat: Any) -> None:
    match = started(game)
    seats = match.setup.seats
    before = (match.state, match.seq, len(match.writer.lines) if match.writer else 0)
    command = match.legal_commands(0)[0]
    assert_refused(lambda: match.submit(seat, command, 1), seats, seat)
    assert_refused(lambda: match.check(seat, command), seats, seat)
    assert_refused(lambda: match.legal_commands(seat), seats, seat)
    # A viewer is the game's own check (kit.viewed), for the games converted so far.
    if game.name in CONVERTED and not isinstance(seat, str) and seat is not None:
        assert_refused(lambda: match.view(seat), seats, seat)
    assert (match.state, match.seq, len(match.writer.lines) if match.writer else 0) == before
    match.submit(0, command, 1)  # nothing was spoilt


@pytest.mark.parametrize("name", CONVERTED)
@pytest.mark.parametrize("seat", BAD_SEATS, ids=repr)
def test_a_converted_games_functions_refuse_a_bad_seat_alike(name: str, seat: Any) -> None:
    game = get_game(name)
    state = started(game).state
    seats = state.setup.seats
    command = game.legal_commands(state, 0)[0]
    assert_refused(lambda: game.decide(state, seat, command), seats, seat)
    assert_refused(lambda: game.legal_commands(state, seat), seats, seat)
    assert_refused(lambda: game.is_sensible(state, seat, command), seats, seat)
    if not isinstance(seat, str) and seat is not None:
        assert_refused(lambda: game.view(state, seat), seats, seat)
        assert game.format_position is not None
        assert_refused(lambda: game.format_position(state, seat), seats, seat)  # type: ignore[misc]
    assert game.view(state, Role.SPECTATOR) == game.view(state, Role.SPECTATOR)


@pytest.mark.parametrize("name", CONVERTED)
def test_match_checks_once_and_asks_the_rule_behind_the_games_check(name: str) -> None:
    game = get_game(name)
    match = started(game)
    if isinstance(match.state, kit.NativeState):
        # a native game's rule checks its seat in its own first line (kit.seat_of: a direct call
        # in the compiled build), no wrapper: Match asks the rule as it is, which refuses a bad
        # seat itself in check_seat's words (Match checks before it too)
        assert kit.trusted(game.decide) is game.decide and match._decide is game.decide
        command = match.legal_commands(0)[0]
        for seat in BAD_SEATS:
            with pytest.raises(InvalidSeat) as info:
                match._decide(match.state, seat, command)  # type: ignore[arg-type]
            assert str(info.value) == refusal(match.setup.seats, seat)
        return
    assert kit.trusted(game.decide) is not game.decide  # the game declares kit.seated
    assert match._decide is kit.trusted(game.decide)  # Match's own check is the one it needs


@pytest.mark.parametrize("game", GAMES, ids=[g.name for g in GAMES])
@pytest.mark.parametrize("viewer", ["bogus", "Referee", "0", ""], ids=repr)
def test_a_string_that_is_no_role_is_refused_as_a_viewer(game: AnyGame, viewer: str) -> None:
    """``kit.check_viewer``: a misspelt role is an error naming what a viewer may be, never the
    table shown as to a spectator; the roles themselves (as their enum or their text) pass."""
    state = started(game).state
    with pytest.raises(InvalidSeat, match="a seat number, 'spectator' or 'referee'"):
        game.view(state, viewer)  # type: ignore[arg-type]
    assert game.format_position is not None
    with pytest.raises(InvalidSeat, match="not a viewer"):
        game.format_position(state, viewer)  # type: ignore[arg-type]
    for role in Role:
        assert game.view(state, role.value) == game.view(state, role)  # type: ignore[arg-type]
