"""The log's one-pass encoders give exactly what the generic path gives.

The log writer encodes each command and event once into its JSON value *and* its canonical text
(:func:`cardcore.codec.encode_with_text`), hashes the line from those texts and keeps the line's
canonical bytes (:meth:`cardcore.log.LogWriter.line_bytes`). Golden logs pin the bytes for a few
games; here every line, command and event of random playouts of every registered game is checked
against ``json.dumps`` of the generic encoding, and canonical JSON against ``json.dumps`` for
arbitrary JSON values (escapes, non-ASCII, nesting).
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum, IntEnum, StrEnum
from typing import Any, Literal, NamedTuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardcore import codec, registry
from cardcore.cards import _BY_TEXT as _CARDS
from cardcore.cards import HIDDEN, Card, Hidden
from cardcore.kit import codegen
from cardcore.log import verify
from cardcore.match import Match


def reference(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def playout(game: Any, seats: int, seed: int, steps: int) -> Match[Any, Any, Any, Any, Any]:
    match = Match(game, game.make_setup(seats, seed))
    rng = random.Random(seed)
    at = 0
    for _ in range(steps):
        if match.outcome is not None:
            break
        options = [(s, c) for s in range(seats) for c in game.legal_commands(match.state, s)]
        if not options:
            break
        seat, command = rng.choice(options)
        at += rng.randrange(0, 400)
        events = match.submit(seat, command, at)
        for value in (command, *events):
            plain = codec.encode(value)
            assert codec.encode_with_text(value) == (plain, reference(plain))
            assert codec.canonical_text_of(value) == reference(plain)
    return match


def test_every_line_of_every_game_is_the_generic_encoding() -> None:
    for game in registry.GAMES:
        for seats in sorted({game.info.min_seats, min(game.info.max_seats, 4)}):
            for seed in range(3):
                match = playout(game, seats, seed, 300)
                writer = match.writer
                assert writer is not None
                for i, line in enumerate(writer.lines):
                    assert writer.line_bytes(i) == reference(line).encode(), (game.info.name, i)
                report = verify(writer.lines)  # raises on a bad hash or a re-decided mismatch
                assert report.entries == match.seq, game.info.name


def test_a_rewound_writer_keeps_bytes_in_step() -> None:
    game = registry.GAMES[0]
    match = playout(game, 2, 1, 40)
    assert match.outcome is None
    cp = match.checkpoint()
    kept = len(match.writer.lines) if match.writer else 0
    seat = next(s for s in range(2) if game.legal_commands(match.state, s))
    match.submit(seat, game.legal_commands(match.state, seat)[0], match.last_at_ms)
    match.rewind(cp)
    writer = match.writer
    assert writer is not None and len(writer.lines) == kept
    for i, line in enumerate(writer.lines):
        assert writer.line_bytes(i) == reference(line).encode()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(json_values)
def test_canonical_text_is_json_dumps(value: Any) -> None:
    assert codec.canonical_text(value) == reference(value)
    assert codec.canonical_bytes(value) == reference(value).encode()


# --------------------------------------------------------------------------- every type, any value


def reference_encode(value: Any) -> Any:
    """The generic recursive encoder the per-class encoders replaced (the definition)."""
    cls = type(value)
    if dataclasses.is_dataclass(cls):
        out: dict[str, Any] = {"kind": cls.__name__}
        for f in dataclasses.fields(cls):
            out[f.name] = reference_encode(getattr(value, f.name))
        return out
    if cls is Card:
        return value.text
    if cls is Hidden:
        return "??"
    if issubclass(cls, Enum):
        return value.value
    if cls in (int, str, bool, type(None)):
        return value
    if issubclass(cls, tuple | list):
        return [reference_encode(x) for x in value]
    if issubclass(cls, frozenset | set):
        return sorted([reference_encode(x) for x in value], key=reference)
    if issubclass(cls, Mapping):
        return {str(reference_encode(k)): reference_encode(x) for k, x in value.items()}
    raise TypeError(f"cardcore cannot encode a {cls.__name__}")


def same(a: Any, b: Any) -> bool:
    """Equal with the same types and key order (``True`` is not ``1``, ``[1]`` is not ``(1,)``)."""
    return json.dumps(a) == json.dumps(b) and type(a) is type(b)


def check(value: Any) -> None:
    try:
        expected = reference_encode(value)
        text = reference(expected)
    except (TypeError, ValueError) as exc:
        with pytest.raises(type(exc)):
            codec.encode_with_text(value)
        with pytest.raises(type(exc)):
            codec.encode(value)
        with pytest.raises(type(exc)):
            codec.text_encoder(type(value))(value)
        return
    got, got_text = codec.encode_with_text(value)
    assert same(got, expected), (value, got, expected)
    assert got_text == text, (value, got_text, text)
    assert same(codec.encode(value), expected)
    assert codec.canonical_text_of(value) == text
    assert codec.text_encoder(type(value))(value) == text
    written_text = from_source(type(value), text=True)
    if written_text is not None:
        assert written_text(value) == text
    assert codec.canonical_text(expected) == text
    assert codec.encode_all_with_text([value, value]) == ([expected, expected], f"[{text},{text}]")
    written = from_source(type(value))
    if written is not None:
        got, got_text = written(value)
        assert same(got, expected), (value, got, expected)
        assert got_text == text, (value, got_text, text)


def from_source(cls: type, *, text: bool = False) -> Any:
    """The encoder compiled from :func:`codec.pair_source` of ``cls`` (``text``: of its text
    only), as the log writer compiles it, or None where the codec writes none."""
    source = codec.pair_source(cls, text=text)
    return None if source is None else codegen.function("pair", ["v"], *source)


class Colour(StrEnum):
    RED = "red"
    ODD = 'o"d\\d'


class Level(IntEnum):
    LOW = 1
    HIGH = 2


class Pair(NamedTuple):
    left: int
    right: str


@dataclass(frozen=True)
class Empty:
    pass


@dataclass(frozen=True)
class Tricky:
    """Fields of every shape the codec handles, with values the games never send."""

    name: str
    count: int
    flag: bool
    maybe: int | None
    card: Card | Hidden
    colour: Colour
    level: Level
    tags: frozenset[str]
    counts: dict[str, int]
    by_number: dict[int, str]
    nested: tuple[tuple[int, ...], ...]
    mixed: tuple[int | bool | str | Card | None, ...]
    listed: list[Any]
    pair: Pair
    inner: Empty | None
    deep: Any


@dataclass(frozen=True)
class Declared:
    """A field of each declared type the written encoders write without asking the value its
    type: given values of any type here (a declared type is a promise they check)."""

    number: int
    maybe: int | None
    flag: bool
    name: str
    side: Literal["left", "right"]
    card: Card
    seen: Card | Hidden
    pair: tuple[int, int] | None
    deep: Any


@dataclass(frozen=True)
class Shadow:
    """A field named like the tag: encode() lets it win, as it always did."""

    kind: str
    b: int


cards = st.sampled_from(sorted(_CARDS.values(), key=lambda c: c.index))
st.register_type_strategy(Card, cards)
st.register_type_strategy(Hidden, st.just(HIDDEN))
texts = st.text(
    st.characters(codec="utf-8") | st.sampled_from('"\\/\b\f\n\r\t\x00\x1f\u2028\ud800')
)
scalars = st.none() | st.booleans() | st.integers() | texts | cards | st.just(HIDDEN)
anything = st.recursive(
    scalars | st.floats(allow_nan=False) | st.sampled_from([Colour.ODD, Level.HIGH, Empty()]),
    lambda inner: (
        st.tuples(inner, inner)
        | st.lists(inner, max_size=3)
        | st.frozensets(st.integers() | texts, max_size=3)
        | st.dictionaries(st.integers() | texts | st.booleans(), inner, max_size=3)
    ),
    max_leaves=8,
)
tricky = st.builds(
    Tricky,
    name=texts,
    maybe=st.none() | st.integers(),
    tags=st.frozensets(texts, max_size=4),
    counts=st.dictionaries(texts, st.integers(), max_size=3),
    by_number=st.dictionaries(st.integers(), texts, max_size=3),
    nested=st.lists(st.lists(st.integers(), max_size=3).map(tuple), max_size=3).map(tuple),
    mixed=st.lists(scalars, max_size=5).map(tuple),
    listed=st.lists(scalars, max_size=3),
    pair=st.builds(Pair, st.integers(), texts),
    inner=st.none() | st.just(Empty()),
    deep=anything,
)
game_types = [
    cls
    for game in registry.GAMES
    for cls in (*game.command_types, *game.event_types, game.view_type, game.rules_type)
]


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of([st.builds(cls) for cls in game_types]))
def test_any_value_of_every_game_type_is_the_generic_encoding(value: Any) -> None:
    check(value)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(tricky | st.builds(Shadow, texts, st.integers()) | anything)
def test_strings_that_need_escaping_and_odd_types_too(value: Any) -> None:
    check(value)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.builds(
        Declared,
        st.integers(),
        st.none() | st.integers(),
        st.booleans(),
        texts,
        st.sampled_from(["left", "right"]),
        cards,
        cards | st.just(HIDDEN),
        st.none() | st.tuples(st.integers(), st.integers()),
        anything,
    )
    | st.builds(Declared, *([anything] * 9))
)
def test_written_encoders_check_the_declared_types(value: Any) -> None:
    check(value)


def test_every_game_record_has_a_written_encoder() -> None:
    for cls in game_types:
        fields = dataclasses.fields(cls)
        assert (codec.pair_source(cls) is None) == (
            not fields or "kind" in {f.name for f in fields}
        )
    assert codec.pair_source(Shadow) is None
    assert codec.pair_source(Empty) is None
    assert codec.pair_source(int) is None


def test_every_card_and_edge_value() -> None:
    for card in [*_CARDS.values(), HIDDEN]:
        check(card)
        check((card, card))
    for value in [(), [], frozenset(), {}, Empty(), (True, 1), (1, True), (0, False), [2**80, -3]]:
        check(value)
    for value in [1.0, (1, 1.0), Shadow("x", 1.5), {1.5: 1}, object()]:
        check(value)  # the same TypeError (or ValueError) either way
