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
    ("build", "field"),
    [
        (lambda: spit.Play(source=True, target=0), "spit.Play.source"),  # type: ignore[arg-type]
        (lambda: spit.Flip(pile=False), "spit.Flip.pile"),  # type: ignore[arg-type]
        (lambda: palace.PlayFaceDown(index=True), "palace.PlayFaceDown.index"),  # type: ignore[arg-type]
        (lambda: speed.Play(Card.parse("AS"), True), "speed.Play.to"),  # type: ignore[arg-type]
        (lambda: ratscrew.Slap(expect_epoch=False), "ratscrew.Slap.expect_epoch"),  # type: ignore[arg-type]
    ],
)
def test_a_bool_in_an_integer_field_of_a_command_is_refused(build: object, field: str) -> None:
    """``True == 1`` would pass the rules and the log would then record ``true`` where a number
    belongs (verify fails): the command is refused when it is built, naming the field, so no
    match ever sees it (tests/unit/test_command_types.py checks every field of every command)."""
    from cardcore.commands import FieldTypeError

    with pytest.raises(FieldTypeError) as err:
        build()  # type: ignore[operator]
    assert err.value.field == field
