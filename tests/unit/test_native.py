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

from cardcore import kit
from cardcore.cards import Card
from cardcore.engine import Outcome, Setup, check_seat, with_setup
from cardcore.errors import InvalidPosition, InvalidSeat
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
