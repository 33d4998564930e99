"""The kit's native states (:mod:`cardcore.kit.native`) and events
(:func:`cardcore.kit.native_records`), issue 24, on both builds (the compiled build cannot subclass
a compiled class at run time: the games' own states and events are the subjects).

A native state gives what a ``NamedTuple`` state gave: equality and hash by value, a ``repr`` that
reads back, ``_replace`` (a field of the wrong type refused as ``InvalidPosition`` naming it, in
both builds, when a position is built), pickling and copying, and its outcome kept."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import Any, get_type_hints

import pytest

import cardcore
from cardcore import codec, kit
from cardcore._mypyc import compiled_class
from cardcore.cards import Card
from cardcore.engine import Outcome, Setup, check_seat, with_setup
from cardcore.errors import DecodeError, InvalidPosition, InvalidSeat
from cardcore.games import palace, ratscrew, slapjack, speed, spit
from cardcore.kit.native import fields_of
from cardcore.match import Match

NATIVE = (ratscrew, slapjack, speed, spit, palace)
"""The games whose state is a :class:`cardcore.kit.NativeState`."""
ELIMINATING = (ratscrew, slapjack)
"""Those of them whose state has ``eliminated`` (and ``current``), which the tests of
``_replace`` and of positions change."""


def played_state(game: Any, actions: int = 12) -> Any:
    seats = min(3, game.GAME.info.max_seats)
    match = Match(game.GAME, game.GAME.make_setup(seats, 5))
    for _ in range(actions):
        seat = next(s for s in range(seats) if match.legal_commands(s))
        match.submit(seat, match.legal_commands(seat)[0], 1)
    return match.state


@pytest.mark.parametrize("game", NATIVE, ids=lambda g: g.__name__)
def test_a_native_state_is_equal_hashed_shown_and_pickled_by_value(game: Any) -> None:
    state = played_state(game)
    assert isinstance(state, kit.NativeState)
    fields = fields_of(type(state))
    assert fields[0] == "setup" and len(set(fields)) == len(fields)
    twin = type(state)(*(getattr(state, f) for f in fields))
    assert twin == state and (twin != state) is False  # (no hash: the rules hold a dict)
    assert twin is not state and twin.next() == state
    other = Setup(state.setup.seats, state.setup.seed + 1, state.setup.rules)
    assert state != state._replace(setup=other)
    assert state.__eq__(object()) is NotImplemented
    assert pickle.loads(pickle.dumps(state)) == state
    assert copy.deepcopy(state) == state
    namespace = {
        type(state).__name__: type(state),
        "Setup": Setup,
        "Card": Card,
        **vars(game),
    }
    assert eval(repr(state), namespace) == state  # the repr reads back
    assert repr(state).startswith(f"{type(state).__name__}(setup=Setup(")


@pytest.mark.parametrize("game", ELIMINATING, ids=lambda g: g.__name__)
def test_replace_changes_the_fields_named_and_keeps_nothing_derived(game: Any) -> None:
    state = played_state(game)
    assert state.ended is None and state.ended is None  # kept: asked twice
    over = state._replace(eliminated=frozenset({1, 2}))
    assert isinstance(over.ended, Outcome) and over.epoch == state.epoch
    setup = Setup(state.setup.seats, 99, state.setup.rules)
    assert with_setup(state, setup).setup is setup
    with pytest.raises(TypeError, match="no field 'nope'"):
        state._replace(nope=1)


@pytest.mark.parametrize("game", ELIMINATING, ids=lambda g: g.__name__)
def test_a_position_with_a_field_of_the_wrong_type_names_the_field(game: Any) -> None:
    with pytest.raises(InvalidPosition) as info:
        game.check_position(played_state(game)._replace(eliminated={1}))
    assert info.value.field == "eliminated"
    with pytest.raises(InvalidPosition) as info:
        game.position([[Card.parse("5S")], [Card.parse("6S")]], current="0")
    assert info.value.field == "current"


@pytest.mark.parametrize("seat", [3, -1, True, 1.0, "0", None], ids=repr)
def test_seat_of_passes_a_seat_and_refuses_anything_else_as_check_seat_does(seat: Any) -> None:
    assert kit.seat_of(3, 2) == 2
    with pytest.raises(InvalidSeat) as refused:
        kit.seat_of(3, seat)
    with pytest.raises(InvalidSeat) as expected:
        check_seat(3, seat)
    assert str(refused.value) == str(expected.value)


# --------------------------------------------------------------------------- native events

NATIVE_EVENTS = {
    "ratscrew": ratscrew,
    "slapjack": slapjack,
    "speed": speed,
    "spit": spit,
    "palace": palace,
}
"""The games whose events are native classes (:func:`cardcore.kit.native_records`)."""


@pytest.mark.parametrize("name", NATIVE_EVENTS)
def test_a_native_event_is_a_frozen_record(name: str) -> None:
    game = NATIVE_EVENTS[name].GAME
    for event_type in game.event_types:
        assert dataclasses.is_dataclass(event_type), event_type
        names = tuple(f.name for f in dataclasses.fields(event_type))
        assert event_type.__match_args__ == names
        hints = get_type_hints(event_type)
        assert tuple(hints) == names and "Final" not in repr(hints)


def test_a_native_event_is_frozen_shown_and_pickled_as_a_record() -> None:
    card = Card.parse("QS")
    played = ratscrew.CardPlayed(0, card, 1, None)
    assert repr(played) == "CardPlayed(seat=0, card=Card.parse('QS'), current=1, challenge=None)"
    assert str(played) == "CardPlayed(seat=0, card=QS, current=1, challenge=-)"
    twin = ratscrew.CardPlayed(0, card, 1, None)
    assert played == twin and hash(played) == hash(twin) and played != ratscrew.PileOwed(0)
    assert pickle.loads(pickle.dumps(played)) == played and copy.copy(played) == played
    with pytest.raises(dataclasses.FrozenInstanceError):
        played.seat = 3  # type: ignore[misc]
    match played:
        case ratscrew.CardPlayed(seat, _, current, None):
            assert (seat, current) == (0, 1)
        case _:
            pytest.fail("the positional pattern did not match")


DEFAULTS = {  # a native event with a default → the fields given, the field left out, its default
    "CardsPlayed": (palace.CardsPlayed, (0, (Card.parse("4S"),), ()), "out_of_turn", False),
    "TurnPassed": (palace.TurnPassed, (None, False, None), "skipped", ()),
    "PlayerResigned": (palace.PlayerResigned, (1, 9), "by", None),
}
"""Palace's events whose last field has a default, written in their ``__init__``."""


@pytest.mark.parametrize("name", DEFAULTS)
def test_a_native_events_default_is_kept_as_a_records_is(name: str) -> None:
    event_type, given, left_out, default = DEFAULTS[name]
    assert compiled_class(event_type) is cardcore.compiled  # native in the compiled build
    kept = [(f.name, f.default) for f in dataclasses.fields(event_type)]
    assert kept[-1] == (left_out, default)
    assert all(d is dataclasses.MISSING for _, d in kept[:-1])
    event, full = event_type(*given), event_type(*given, default)
    assert getattr(event, left_out) == default and type(getattr(event, left_out)) is type(default)
    assert event == full and hash(event) == hash(full) and repr(event) == repr(full)
    assert event_type(*given, **{left_out: default}) == event
    assert repr(event).endswith(f", {left_out}={default!r})")
    assert eval(repr(event), {name: event_type, "Card": Card}) == event
    assert pickle.loads(pickle.dumps(event)) == event and copy.copy(event) == event
    schema = codec.schema_of(event_type)
    assert left_out in schema["properties"]
    assert schema["required"] == ["kind", *(n for n, _ in kept[:-1])]  # the default optional
    line = codec.encode(event)
    assert line[left_out] == codec.encode(default)
    del line[left_out]
    assert palace.GAME.decode_event(line) == event  # a line without it decodes
    del line[kept[0][0]]
    with pytest.raises(DecodeError, match="missing field"):
        palace.GAME.decode_event(line)


@pytest.mark.parametrize("default", [frozenset(), 1.5, (1,), [], Card.parse("QS")], ids=repr)
def test_a_native_events_default_that_is_not_a_simple_literal_is_refused(default: Any) -> None:
    class Scored:
        points: Any

        def __init__(self, points: Any = default) -> None:
            self.points = points

    with pytest.raises(TypeError, match=r"Scored: the default of points is .*: a native event's"):
        kit.native_records(Scored)


def test_a_native_events_init_takes_its_fields_in_order() -> None:
    class Scored:
        seat: int
        points: int

        def __init__(self, points: int = 0, seat: int = 0) -> None:
            self.seat = seat
            self.points = points

    with pytest.raises(TypeError, match="__init__ takes its fields, in the order declared"):
        kit.native_records(Scored)
