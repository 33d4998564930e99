"""The pieces every game's position notation and position check are made of (docs/notation.md).

A notation is one line: the game's name, the rules field when the rules are not the default
ones (``[jokers=1,num_decks=2]``: :func:`join` writes it, :func:`read_rules` reads it), then the
game's fields in a fixed order, separated by single spaces (no field contains a space). Inside a
field:

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

import functools
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Final, TypeVar, cast

from . import codec
from .cards import HIDDEN, Card, SeenCard, standard_deck
from .engine import FlagInfo, R, parse_rules, rule_flags
from .errors import InvalidPosition, InvalidSetup

T = TypeVar("T")

EMPTY: Final = "-"
HIDDEN_TEXT: Final = "??"
MAX_NOTATION: Final = 100_000
"""Longest notation text parsed (eight decks dealt out fit many times over)."""


# --------------------------------------------------------------------------- the rules field

RULES_OPEN: Final = "["
RULES_CLOSE: Final = "]"
_WORD: Final = re.compile(r"[A-Za-z0-9_]+")


def rules_text(rules: object) -> str | None:
    """The rules field of a position: the flags not at their default, in the order the rules
    declare them, ``[name=value,...]`` (docs/notation.md#the-rules-field); None for the default
    rules, whose field is left out."""
    parts = []
    for flag in _flags(cast(type, type(rules))):
        value = codec.encode(getattr(rules, flag.name))
        if not _same_json(value, flag.default):
            parts.append(f"{flag.name}={_flag_text(value, flag.name)}")
    return f"{RULES_OPEN}{','.join(parts)}{RULES_CLOSE}" if parts else None


def read_rules(text: str, game: str, rules_type: type[R], rules: R | None) -> tuple[str, R]:
    """``(text without its rules field, the position's rules)``: the rules the text carries
    after the game's name, else ``rules``, else the default rules. A text that carries rules
    and ``rules`` must agree: a position is never read under rules other than its own. Raises
    :class:`InvalidPosition` (``field`` "rules" or ``rules.<flag>``)."""
    if rules is not None and type(rules) is not rules_type:
        raise InvalidPosition(
            "rules", f"must be {game} rules ({rules_type.__name__}), got {type(rules).__name__}"
        )
    if not isinstance(text, str) or len(text) > MAX_NOTATION:
        return text, rules if rules is not None else rules_type()  # split() says what is wrong
    head, _, rest = text.strip().partition(" ")
    field, _, tail = rest.partition(" ")
    if not field.startswith(RULES_OPEN):
        return text, rules if rules is not None else rules_type()
    own = parse_rules_field(field, rules_type)
    if rules is not None and own != rules:
        given = rules_text(rules) or "the default rules"
        raise InvalidPosition(
            "rules", f"the text says {field[:80]}, the rules given are {given[:80]}"
        )
    return f"{head} {tail}", own


def parse_rules_field(field: str, rules_type: type[R]) -> R:
    """The rules a rules field ``[name=value,...]`` describes: flags in their declared order,
    each once and not at its default (one text per position). Raises :class:`InvalidPosition`."""
    inner = field[len(RULES_OPEN) : -len(RULES_CLOSE)]
    if not field.endswith(RULES_CLOSE) or not inner:
        raise InvalidPosition("rules", f"must be [flag=value,...]; got {field[:40]!r}")
    flags = {f.name: (i, f) for i, f in enumerate(_flags(cast(type, rules_type)))}
    values: dict[str, codec.JSON] = {}
    last = -1
    for item in inner.split(","):
        name, eq, raw = item.partition("=")
        known = flags.get(name)
        if not eq or known is None:
            raise InvalidPosition(
                "rules", f"not a flag=value of this game: {item[:40]!r} (flags: {', '.join(flags)})"
            )
        at, flag = known
        if at <= last:
            raise InvalidPosition(
                "rules",
                f"{name} is out of order: flags are written in the order {', '.join(flags)}",
            )
        last = at
        values[name] = _flag_json(flag.schema, raw, f"rules.{name}")
        if _same_json(values[name], flag.default):
            raise InvalidPosition(f"rules.{name}", f"{raw[:20]} is the default: leave it out")
    try:
        return parse_rules(rules_type, values)
    except InvalidSetup as exc:
        raise InvalidPosition(exc.field, exc.message) from None


@functools.cache
def _flags(rules_type: type) -> tuple[FlagInfo, ...]:
    return rule_flags(rules_type)


def _same_json(a: codec.JSON, b: codec.JSON) -> bool:
    """Equal JSON values, ``true`` never equal to ``1`` (Python's ``True == 1``)."""
    return codec.canonical_text(a) == codec.canonical_text(b)


def _flag_text(value: codec.JSON, name: str) -> str:
    """A flag's JSON value in the rules field: ``true``/``false``, a number, a word, ``-`` for
    null; a list's items joined by ``+``, an object's ``key:value`` pairs (by key) joined by
    ``+`` (``-`` when empty)."""
    if value is None:
        return EMPTY
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "+".join(_flag_text(v, name) for v in value) or EMPTY
    if isinstance(value, dict):
        pairs = (f"{_word(k, name)}:{_flag_text(value[k], name)}" for k in sorted(value))
        return "+".join(pairs) or EMPTY
    return _word(value, name)


def _word(value: object, name: str) -> str:
    if not isinstance(value, str) or not _WORD.fullmatch(value):
        raise ValueError(f"rules.{name}: {value!r:.40} has no text in the rules field")
    return value


def _flag_json(schema: codec.JSON, text: str, path: str) -> codec.JSON:
    """The JSON value of a flag's text, read by the flag's JSON schema (:func:`_flag_text`'s
    inverse); :func:`parse_rules` then checks it as it checks any setup's flags."""
    if "anyOf" in schema:
        if text == EMPTY:
            return None
        return _flag_json(next(s for s in schema["anyOf"] if s.get("type") != "null"), text, path)
    kind = schema.get("type")
    if kind == "boolean":
        if text not in ("true", "false"):
            raise InvalidPosition(path, f"must be true or false, got {text[:20]!r}")
        return text == "true"
    if kind == "integer":
        return parse_int(text, path)
    if kind == "array":
        items = [] if text == EMPTY else text.split("+")
        return [_flag_json(schema.get("items", {}), t, path) for t in items]
    if kind == "object":
        out: dict[str, codec.JSON] = {}
        for pair in [] if text == EMPTY else text.split("+"):
            key, colon, raw = pair.partition(":")
            if not colon or not _WORD.fullmatch(key) or key in out:
                raise InvalidPosition(
                    path, f"must be key:value pairs joined by +, got {text[:40]!r}"
                )
            out[key] = _flag_json(schema.get("additionalProperties", {}), raw, f"{path}.{key}")
        return out
    if not _WORD.fullmatch(text):
        raise InvalidPosition(path, f"not a word: {text[:20]!r}")
    return text  # a choice: parse_rules checks it is one of the flag's


# --------------------------------------------------------------------------- fields


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


def join(game: str, fields: Iterable[str], rules: object = None) -> str:
    """The notation: the game's name, the rules field when ``rules`` are not the default rules
    (:func:`rules_text`), then the fields."""
    extra = rules_text(rules) if rules is not None else None
    return " ".join((game, *((extra,) if extra else ()), *fields))


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
