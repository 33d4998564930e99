"""War's rules, one clause at a time (given a position / when a seat acts / then these events).

The contract suite (tests/contract) runs War as it runs every registered game; these pin what
the contract cannot know: what the rules in the module docstring say happens.
"""

from __future__ import annotations

import pytest

from cardcore import log
from cardcore.cards import Card
from cardcore.engine import Role, Termination
from cardcore.errors import InvalidPosition, InvalidSetup, RejectCode, Rejected
from cardcore.match import Match
from tests.war.war import (
    COLLECT,
    GAME,
    TURN,
    Burned,
    Collected,
    Command,
    Rules,
    State,
    Turned,
    decide,
    evolve,
    outcome,
    parse_position,
)


def pos(text: str, **rules: object) -> State:
    return parse_position(f"war {text}", Rules(**rules))  # type: ignore[arg-type]


def play(state: State, *moves: tuple[int, object]) -> State:
    for seat, command in moves:
        for event in decide(state, seat, command):  # type: ignore[arg-type]
            state = evolve(state, event)
    return state


def rejected(state: State, seat: int, command: object) -> RejectCode:
    with pytest.raises(Rejected) as exc:
        decide(state, seat, command)  # type: ignore[arg-type]
    return exc.value.code


def c(text: str) -> Card:
    return Card.parse(text)


def test_rule1_deal_alternates_from_seat_0() -> None:
    match = Match(GAME, GAME.make_setup(2, 5), record=False)
    a, b = match.state.stacks
    assert len(a) == len(b) == 26 and len(set(a + b)) == 52


def test_rule2_turn_in_either_order_then_wait() -> None:
    state = pos("7H,2C/KD,9S -/- - -")
    assert decide(state, 1, TURN) == [Turned(1, c("KD"))]
    after = play(state, (1, TURN))
    assert rejected(after, 1, TURN) is RejectCode.NOT_YOUR_TURN


def test_rule3_higher_rank_collects_winner_card_first() -> None:
    state = play(pos("7H,2C/KD,9S -/- - -"), (0, TURN), (1, TURN))
    assert rejected(state, 0, TURN) is RejectCode.INVALID_PHASE  # nobody turns before
    assert rejected(state, 0, COLLECT) is RejectCode.NOT_COLLECTOR
    assert decide(state, 1, COLLECT) == [Collected(1, 2)]
    assert play(state, (1, COLLECT)).stacks == ((c("2C"),), (c("9S"), c("KD"), c("7H")))


@pytest.mark.parametrize(("aces_high", "winner"), [(True, 0), (False, 1)])
def test_rule3_aces_high_or_low(aces_high: bool, winner: int) -> None:
    state = play(pos("AS,2C/KD,9S -/- - -", aces_high=aces_high), (0, TURN), (1, TURN))
    assert decide(state, winner, COLLECT) == [Collected(winner, 2)]


def test_rule4_tie_burns_then_turns_again_and_winner_takes_all_in_order() -> None:
    state = pos("5S,8H,2C/5D,JC,KD -/- - -")
    assert decide(play(state, (0, TURN)), 1, TURN) == [
        Turned(1, c("5D")),
        Burned(0, (c("8H"),)),
        Burned(1, (c("JC"),)),
    ]
    war = play(state, (0, TURN), (1, TURN))
    assert (war.up, war.down, war.turned) == ((c("5S"), c("5D")), (c("8H"), c("JC")), (None, None))
    done = play(war, (0, TURN), (1, TURN), (1, COLLECT))
    # Face-up cards battle by battle, the winner's first, then the burned cards in order.
    assert done.stacks[1] == tuple(c(t) for t in ("5D", "5S", "KD", "2C", "8H", "JC"))
    assert outcome(done) is not None and outcome(done).winners == (1,)  # type: ignore[union-attr]


def test_rule4_burn_keeps_a_card_to_turn() -> None:
    war = play(pos("5S,8H/5D,JC,KD,QH -/- - -", war_burn=3), (0, TURN), (1, TURN))
    assert war.stacks == ((c("8H"),), (c("QH"),))
    assert war.down == (c("JC"), c("KD"))


def test_rule4_no_card_to_go_on_loses_the_war() -> None:
    war = play(pos("5S/5D,JC -/- - -"), (0, TURN), (1, TURN))
    assert decide(war, 1, COLLECT) == [Collected(1, 2)]
    assert rejected(war, 0, TURN) is RejectCode.INVALID_PHASE


def test_rule4_neither_can_go_on_ends_with_no_winner() -> None:
    war = play(pos("5S/5D -/- - -"), (0, TURN), (1, TURN))
    result = outcome(war)
    assert result is not None and result.termination is Termination.OUT_OF_CARDS
    assert result.winners == ()
    assert rejected(war, 0, TURN) is RejectCode.GAME_OVER


def test_rules_are_checked_when_built_directly() -> None:
    with pytest.raises(InvalidSetup, match=r"rules\.war_burn"):
        Rules(war_burn=4)


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("7H/KD -/- - - extra", "notation"),  # five fields
        ("7H,7H/KD -/- - -", "cards"),  # a card twice
        ("7H/KD 5S/5D - -", "turned"),  # a tie left in turned
        ("7H/KD -/- 5S -", "up"),  # half a pair
        ("-/KD -/- - -", "stacks"),  # over: seat 1 holds every card
        ("7H/KD -/- - ??", "down"),  # a viewer's text does not parse
    ],
)
def test_positions_that_no_game_reaches_are_refused(text: str, field: str) -> None:
    with pytest.raises(InvalidPosition) as exc:
        pos(text)
    assert exc.value.field.startswith(field), exc.value


def test_the_worked_example_of_the_docs() -> None:
    """docs/adding-a-game.md#7-the-notation: the notation, and a match started from it that
    verifies."""
    text = "war 7H,2C/KD,9S,4C -/- 5S,5D 8H,JC"
    state = parse_position(text, None)
    assert GAME.format_position is not None
    assert GAME.format_position(state, Role.REFEREE) == text
    assert GAME.format_position(state, 0) == "war ??,??/??,??,?? -/- 5S,5D ??,??"
    match = Match.from_position(GAME, state, seed=8)
    moves: list[tuple[int, Command]] = [(0, TURN), (1, TURN), (1, COLLECT)]
    for seat, command in moves:
        match.submit(seat, command, 0)
    assert match.writer is not None
    assert log.verify(match.writer.lines, game=GAME).entries == match.seq
