"""Validation at the library's boundaries (issue 10 item 4): rules built directly are checked
exactly as ``make_setup`` checks JSON flags, and a seat must be an ``int`` of the game."""

from __future__ import annotations

import pytest

from cardcore import InvalidSetup, Match
from cardcore.cards import Card
from cardcore.engine import check_rules, check_seat
from cardcore.errors import InvalidSeat
from cardcore.games import palace, ratscrew, slapjack, speed, spit
from cardcore.games.ratscrew import PLAY


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: ratscrew.Rules(slap_rules=frozenset({"mariage"})), "rules.slap_rules"),  # type: ignore[arg-type]
        (lambda: palace.Rules(four_of_a_kind_burn="consecutiv"), "rules.four_of_a_kind_burn"),  # type: ignore[arg-type]
        (lambda: slapjack.Rules(false_slap_penalty=-1), "rules.false_slap_penalty"),
        (lambda: ratscrew.Rules(slap_in=1), "rules.slap_in"),  # type: ignore[arg-type]
        (lambda: ratscrew.Rules(num_decks=True), "rules.num_decks"),
        (lambda: ratscrew.Rules(num_decks=9), "rules.num_decks"),
        (lambda: spit.Rules(num_stock_piles=6), "rules.num_stock_piles"),
        (lambda: speed.Rules(jokers=-1), "rules.jokers"),
    ],
)
def test_rules_built_directly_are_validated(build: object, field: str) -> None:
    with pytest.raises(InvalidSetup) as err:
        build()  # type: ignore[operator]
    assert err.value.field.startswith(field), err.value


def test_a_set_of_slap_rules_is_normalised_to_a_frozenset() -> None:
    rules = ratscrew.Rules(slap_rules={"double"})  # type: ignore[arg-type]
    assert rules.slap_rules == frozenset({"double"}) and type(rules.slap_rules) is frozenset
    assert rules == ratscrew.Rules(slap_rules=frozenset({"double"}))
    hash(rules.slap_rules)  # usable as part of a key, as every other rules value
    check_rules(rules)  # idempotent


def test_rules_and_make_setup_agree() -> None:
    """Every flag value make_setup accepts, Rules(...) accepts, and the two are equal."""
    for game in (ratscrew, slapjack, palace, spit, speed):
        assert game.GAME.make_setup(2, 1).rules == game.Rules()


@pytest.mark.parametrize("seat", [False, True, -1, 2, 1.0, "0", None])
def test_a_seat_is_an_int_of_the_game(seat: object) -> None:
    match = Match(ratscrew.GAME, ratscrew.GAME.make_setup(2, 7))
    before = (match.seq, match.state, len(match.writer.lines if match.writer else []))
    with pytest.raises(InvalidSeat):
        match.submit(seat, PLAY, at_ms=1)  # type: ignore[arg-type]
    assert (match.seq, match.state, len(match.writer.lines if match.writer else [])) == before
    with pytest.raises(ValueError):  # InvalidSeat is a ValueError
        check_seat(2, seat)


def test_check_seat_passes_a_seat() -> None:
    assert check_seat(3, 2) == 2


@pytest.mark.parametrize(
    ("game", "command"),
    [
        (spit.GAME, spit.Play(source=True, target=0)),  # type: ignore[arg-type]
        (spit.GAME, spit.Flip(pile=False)),  # type: ignore[arg-type]
        (palace.GAME, palace.PlayFaceDown(index=True)),  # type: ignore[arg-type]
        (speed.GAME, speed.Play(Card.parse("AS"), True)),  # type: ignore[arg-type]
        (ratscrew.GAME, ratscrew.Slap(expect_epoch=False)),  # type: ignore[arg-type]
    ],
)
def test_a_bool_in_an_integer_field_of_a_command_is_refused(game: object, command: object) -> None:
    """``True == 1`` would pass the rules and the log would then record ``true`` where a number
    belongs (verify fails): Match refuses it first, naming the field, and records nothing."""
    from cardcore.errors import DecodeError

    match = Match(game, game.make_setup(2, 3))  # type: ignore[attr-defined]
    lines = list(match.writer.lines) if match.writer else []
    for seat in (0, 1):
        with pytest.raises(DecodeError) as err:
            match.submit(seat, command, at_ms=1)
        assert err.value.field.startswith("command.")
        with pytest.raises(DecodeError):
            match.check(seat, command)
    assert match.seq == 1 and (match.writer.lines if match.writer else []) == lines
