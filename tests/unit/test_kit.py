"""cardcore.kit: the mechanics the games share, tested on their own."""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

import pytest

from cardcore import kit
from cardcore.cards import Card, parse_cards
from cardcore.engine import Role
from cardcore.errors import InvalidPosition
from cardcore.rng import Rng


class Table(NamedTuple):
    hands: tuple[tuple[Card, ...], ...]
    layouts: tuple[tuple[tuple[Card, ...], ...], ...]
    up: tuple[tuple[int, ...], ...]
    centre: tuple[tuple[Card, ...], ...]
    started: bool


ZONES = kit.Zones(
    kit.Zone("hands", "owner", per_seat=True),
    kit.Zone("layouts", "nobody", per_seat=True, piles=True, face_up="up"),
    kit.Zone("centre", "everyone", piles=True, hidden_while=lambda t: not t.started),
)
TABLE = Table(
    hands=(parse_cards("AS 2S 3S"), parse_cards("4S 5S 6S")),
    layouts=((parse_cards("7S 8S"), parse_cards("9S")), (parse_cards("10S JS QS"), ())),
    up=((1, 1), (1, 0)),
    centre=(parse_cards("KS"), parse_cards("AH")),
    started=True,
)


def places(table: Table) -> dict[str, object]:
    return {f: getattr(table, f) for f in ("hands", "layouts", "centre")}


def test_cards_lists_every_zone_in_order() -> None:
    assert ZONES.cards(TABLE) == list(parse_cards("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AH"))


@pytest.mark.parametrize("viewer", [0, 1, Role.SPECTATOR])
def test_shuffle_hidden_moves_only_what_the_viewer_cannot_see(viewer: object) -> None:
    fixed = {  # what the viewer sees stays in its place: own hand, face-up tops, the centre
        0: ["hands[0]"],
        1: ["hands[1]"],
        Role.SPECTATOR: [],
    }[viewer]  # type: ignore[index]
    moved = 0
    for i in range(40):
        alt = ZONES.shuffle_hidden(TABLE, viewer, Rng(i, 3))  # type: ignore[arg-type]
        assert Counter(ZONES.cards(alt)) == Counter(ZONES.cards(TABLE))
        assert alt.centre == TABLE.centre and alt.up == TABLE.up and alt.started
        for seat in (0, 1):  # the face-up tops never move; pile sizes never change
            for pile, alt_pile, up in zip(
                TABLE.layouts[seat], alt.layouts[seat], TABLE.up[seat], strict=True
            ):
                assert len(alt_pile) == len(pile)
                assert alt_pile[len(pile) - up :] == pile[len(pile) - up :]
            assert len(alt.hands[seat]) == len(TABLE.hands[seat])
        if "hands[0]" in fixed:
            assert alt.hands[0] == TABLE.hands[0]
        if "hands[1]" in fixed:
            assert alt.hands[1] == TABLE.hands[1]
        moved += alt != TABLE
    assert moved >= 35  # 5 or more hidden cards: the identity arrangement is rare


def test_the_referee_sees_everything_and_hidden_while_hides_a_zone() -> None:
    assert ZONES.shuffle_hidden(TABLE, Role.REFEREE, Rng(1, 1)) is TABLE
    before = TABLE._replace(started=False)
    moved = sum(
        ZONES.shuffle_hidden(before, 0, Rng(i, 1)).centre != before.centre for i in range(40)
    )
    assert moved > 0  # before the start the centre cards are face down to everyone


def test_check_cards_names_the_pile_with_one_too_many() -> None:
    deck = list(parse_cards("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AH"))
    ZONES.check_cards(TABLE, deck)
    doubled = TABLE._replace(centre=(parse_cards("KS"), parse_cards("7S")))
    with pytest.raises(InvalidPosition) as err:
        ZONES.check_cards(doubled, deck)
    assert err.value.field == "centre[1]"
    with pytest.raises(InvalidPosition) as err:
        ZONES.check_cards(TABLE._replace(hands=((1,), ())), deck)  # type: ignore[arg-type]
    assert err.value.field == "hands[0]"


def test_turn_order_patterns_and_joint_calls() -> None:
    stacks = ((Card.parse("AS"),), (), (Card.parse("2S"),), (Card.parse("3S"),))
    assert kit.next_holder(stacks, frozenset({2}), 0) == 3
    assert kit.next_holder(stacks, frozenset({2, 3}), 0) is None
    assert kit.next_in_game(4, frozenset({1}), 0) == 2
    assert kit.double_or_sandwich(parse_cards("5H 5S"), True, True) == (
        "double",
        parse_cards("5H 5S"),
    )
    assert kit.double_or_sandwich(parse_cards("5H 5S"), False, True) is None
    pile = parse_cards("5H 9C 5S")
    assert kit.double_or_sandwich(pile, True, True) == ("sandwich", pile)
    assert kit.double_or_sandwich(parse_cards("5H 5C 5S"), False, True) is None
    calls, done = kit.joint_call(frozenset(), 1, 2)
    assert calls == {1} and not done
    assert kit.joint_call(calls, 1, 2) == (calls, False)  # calling again changes nothing
    assert kit.joint_call(calls, 0, 2) == (frozenset(), True)
