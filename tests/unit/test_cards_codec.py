"""Cards and the canonical JSON codec."""

from __future__ import annotations

import pickle
from dataclasses import dataclass
from typing import Literal

import pytest

from cardcore import codec
from cardcore.cards import HIDDEN, JOKER, Card, SeenCard, parse_cards, standard_deck
from cardcore.errors import DecodeError


def test_card_text_round_trip_and_interning() -> None:
    for c in standard_deck(jokers_per_deck=1):
        assert Card.parse(str(c)) is c
        assert Card.parse(c.symbol) is c
    assert Card.parse("TH") is Card.parse("10H") is Card.parse("10♥")
    assert str(Card.parse("qs")) == "QS"
    assert repr(Card.parse("QS")) == "Card.parse('QS')"
    assert pickle.loads(pickle.dumps(Card.parse("AD"))) is Card.parse("AD")
    assert Card.parse("JK") is JOKER and JOKER.is_joker


@pytest.mark.parametrize("bad", ["", "Q", "1S", "QX", "11H", "??"])
def test_card_parse_errors_quote_input(bad: str) -> None:
    with pytest.raises(ValueError, match="not a card"):
        Card.parse(bad)


def test_cards_are_immutable() -> None:
    with pytest.raises(AttributeError):
        Card.parse("QS").rank = 3  # type: ignore[misc]


@dataclass(frozen=True, slots=True)
class Sample:
    card: Card
    seen: tuple[SeenCard, ...]
    mode: Literal["a", "b"]
    maybe: int | None = None
    tags: frozenset[str] = frozenset()


def test_codec_round_trip_and_canonical_bytes() -> None:
    value = Sample(Card.parse("10H"), (HIDDEN, Card.parse("AS")), "b", 3, frozenset({"z", "a"}))
    data = codec.encode(value)
    assert data == {
        "kind": "Sample", "card": "10H", "seen": ["??", "AS"], "mode": "b", "maybe": 3,
        "tags": ["a", "z"],
    }  # fmt: skip
    assert codec.decode(Sample, data) == value
    assert codec.canonical_bytes(data) == (
        b'{"card":"10H","kind":"Sample","maybe":3,"mode":"b","seen":["??","AS"],"tags":["a","z"]}'
    )


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"kind": "Other"}, "kind"),
        ({"kind": "Sample", "seen": [], "mode": "a"}, "card"),
        ({"kind": "Sample", "card": "XX", "seen": [], "mode": "a"}, "card"),
        ({"kind": "Sample", "card": "AS", "seen": ["ZZ"], "mode": "a"}, "seen[0]"),
        ({"kind": "Sample", "card": "AS", "seen": [], "mode": "c"}, "mode"),
        ({"kind": "Sample", "card": "AS", "seen": [], "mode": "a", "maybe": True}, "maybe"),
        ({"kind": "Sample", "card": "AS", "seen": [], "mode": "a", "extra": 1}, "extra"),
        ([], ""),
    ],
)
def test_codec_errors_name_the_field(data: object, field: str) -> None:
    with pytest.raises(DecodeError) as info:
        codec.decode(Sample, data)
    assert info.value.field == field


def test_parse_json_refuses_floats() -> None:
    with pytest.raises(DecodeError, match="float"):
        codec.parse_json('{"a": 1.5}')
    with pytest.raises(DecodeError, match="invalid JSON"):
        codec.parse_json("{")


def test_schema_describes_fields() -> None:
    schema = codec.json_schema(Sample)
    assert schema["required"] == ["kind", "card", "seen", "mode"]
    assert schema["properties"]["mode"] == {"enum": ["a", "b"]}
    assert parse_cards("KC, 3D") == (Card.parse("KC"), Card.parse("3D"))
