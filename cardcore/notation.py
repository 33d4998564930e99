"""The pieces every game's position notation and position check are made of (docs/notation.md).

A notation is one line: the game's name, then the game's fields in a fixed order, separated by
single spaces (no field contains a space). Inside a field:

* a card is its text (``AS``, ``10H``, ``JK``); a card a viewer may not see is ``??`` (display
  only: such a text does not parse back);
* a sequence of cards is its cards joined by ``,`` in the order the game's state keeps them;
  the empty sequence is ``-``;
* one value per seat: the values joined by ``/`` in seat order;
* an integer is written in decimal (no sign, no leading zero); an absent value (None) is ``-``;
  a sequence of integers is joined by ``,`` in its order, a set of seats is its seats in
  increasing order joined by ``,`` (both ``-`` when empty).

The parsers raise :class:`~cardcore.errors.InvalidPosition` naming the field at fault; the
checks (:func:`check_cards`, :func:`check_cards_in`, :func:`check_seat_field`) name the state's
field.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Final, TypeVar

from .cards import HIDDEN, Card, SeenCard, standard_deck
from .errors import InvalidPosition

T = TypeVar("T")

EMPTY: Final = "-"
HIDDEN_TEXT: Final = "??"
MAX_NOTATION: Final = 100_000
"""Longest notation text parsed (eight decks dealt out fit many times over)."""


def split(text: str, game: str, names: Sequence[str]) -> list[str]:
    """The fields of ``text`` after the game's name, one per name; raises
    :class:`InvalidPosition` (field ``notation``) for another game or a wrong field count."""
    if not isinstance(text, str):
        raise InvalidPosition("notation", f"must be a string, got {type(text).__name__}")
    if len(text) > MAX_NOTATION:
        raise InvalidPosition("notation", f"longer than {MAX_NOTATION} characters")
    parts = text.strip().split(" ")
    if not parts or parts[0] != game:
        raise InvalidPosition("notation", f"must start with {game!r}, got {parts[0][:20]!r}")
    fields = parts[1:]
    if len(fields) != len(names):
        raise InvalidPosition(
            "notation",
            f"{game} takes {len(names)} fields ({' '.join(names)}), got {len(fields)}",
        )
    return fields


def join(game: str, fields: Iterable[str]) -> str:
    return " ".join((game, *fields))


# --------------------------------------------------------------------------- values


def card_text(card: SeenCard) -> str:
    return HIDDEN_TEXT if card is HIDDEN else str(card)


_CARDS: Final[dict[str, Card]] = {str(c): c for c in standard_deck(1, 1)}


def cards_text(cards: Iterable[SeenCard]) -> str:
    return ",".join(card_text(c) for c in cards) or EMPTY


def parse_card(text: str, field: str) -> Card:
    if text == HIDDEN_TEXT:
        raise InvalidPosition(field, "a hidden card (??) cannot be parsed: use the referee's text")
    card = _CARDS.get(text)
    if card is None:  # only the canonical text: not "qs", "TH", "Q♠" or "JOKER" (Card.parse's)
        raise InvalidPosition(field, f"not a card: {text[:20]!r} (e.g. AS, 10H, QC, JK)")
    return card


def parse_cards(text: str, field: str) -> tuple[Card, ...]:
    if text == EMPTY:
        return ()
    return tuple(parse_card(t, field) for t in text.split(","))


def per_seat_text(values: Iterable[T], item: Callable[[T], str]) -> str:
    return "/".join(item(v) for v in values)


def parse_per_seat(text: str, field: str, item: Callable[[str, str], T]) -> tuple[T, ...]:
    """``item(part, f"{field}[{seat}]")`` for each ``/``-separated part."""
    return tuple(item(part, f"{field}[{i}]") for i, part in enumerate(text.split("/")))


def int_text(value: int | None) -> str:
    return EMPTY if value is None else str(value)


def parse_int(text: str, field: str, *, lo: int = 0, hi: int | None = None) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > 18 or text[0] == "0" != text:
        raise InvalidPosition(field, f"not a non-negative integer: {text[:20]!r} (no leading 0)")
    value = int(text)
    if value < lo or (hi is not None and value > hi):
        bound = f"{lo}..{hi}" if hi is not None else f"at least {lo}"
        raise InvalidPosition(field, f"must be {bound}, got {value}")
    return value


def parse_opt_int(text: str, field: str, *, lo: int = 0, hi: int | None = None) -> int | None:
    return None if text == EMPTY else parse_int(text, field, lo=lo, hi=hi)


def ints_text(values: Iterable[int]) -> str:
    """A sequence of integers, in its order, joined by ``,``; empty: ``-``."""
    return ",".join(str(v) for v in values) or EMPTY


def parse_ints(text: str, field: str, *, lo: int = 0, hi: int | None = None) -> tuple[int, ...]:
    if text == EMPTY:
        return ()
    return tuple(parse_int(t, field, lo=lo, hi=hi) for t in text.split(","))


def seats_text(seats: Iterable[int]) -> str:
    return ",".join(str(s) for s in sorted(seats)) or EMPTY


def parse_seats(text: str, field: str, n_seats: int) -> frozenset[int]:
    if text == EMPTY:
        return frozenset()
    seats = [parse_int(t, field, hi=n_seats - 1) for t in text.split(",")]
    if len(set(seats)) != len(seats):
        raise InvalidPosition(field, f"a seat is listed twice: {text[:40]!r}")
    return frozenset(seats)


def parse_choice(text: str, field: str, choices: Sequence[str]) -> str:
    if text not in choices:
        raise InvalidPosition(field, f"must be one of {', '.join(choices)}; got {text[:20]!r}")
    return text


# --------------------------------------------------------------------------- checks


def check_cards(cards: Iterable[Card], deck: Sequence[Card], what: str = "cards") -> None:
    """Every card of a position comes from the setup's decks, none more often than they hold
    it (a hand-written position may hold fewer cards than the deck: a small test position).
    Raises :class:`InvalidPosition` naming ``what`` and the card."""
    check_cards_in(((what, cards),), deck)


def check_cards_in(places: Iterable[tuple[str, Iterable[Card]]], deck: Sequence[Card]) -> None:
    """:func:`check_cards` over the cards of several places (zones, piles) taken in order,
    naming the place where a card first appears once too often."""
    have = Counter(deck)
    seen: Counter[Card] = Counter()
    for what, cards in places:
        for card in cards:
            if not isinstance(card, Card):
                raise InvalidPosition(what, f"not a card: {card!r:.40}")
            seen[card] += 1
            if seen[card] > have[card]:
                decks = "this setup's decks" if have[card] else "no deck of this setup"
                raise InvalidPosition(
                    what, f"{card} appears {seen[card]} times; {decks} hold it {have[card]} times"
                )


def check_seat_field(value: int | None, seats: int, field: str, *, optional: bool = False) -> None:
    """``value`` is a seat of a ``seats``-seat game (or None when ``optional``)."""
    if value is None and optional:
        return
    if type(value) is not int or not 0 <= value < seats:
        raise InvalidPosition(field, f"must be a seat 0..{seats - 1}, got {value!r:.40}")
