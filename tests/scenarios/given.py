"""Given/when/then helpers that every game's scenario tests share.

Each test module binds them to its game, e.g. ``apply = partial(given.apply, GAME)``.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from cardcore import codec
from cardcore.engine import Game
from cardcore.errors import RejectCode, Rejected

AnyGame = Game[Any, Any, Any, Any, Any]


def apply(game: AnyGame, state: Any, seat: int, command: Any) -> tuple[list[Any], Any]:
    """When ``seat`` makes ``command``: the events, and the state after them."""
    events = list(game.decide(state, seat, command))
    for e in events:
        state = game.evolve(state, e)
    return events, state


def rejected(game: AnyGame, state: Any, seat: int, command: Any) -> RejectCode:
    """The code ``command`` is rejected with; fails if it is accepted or if it changed the state
    (compared with a deep copy taken before, so an in-place mutation is caught too)."""
    before = copy.deepcopy(state)
    with pytest.raises(Rejected) as info:
        game.decide(state, seat, command)
    assert state == before
    return info.value.code


def rules(game: AnyGame, **flags: Any) -> Any:
    """The game's rules with these flags, validated exactly as a setup validates them."""
    values = {k: codec.encode(v) for k, v in flags.items()}
    return game.make_setup(game.info.min_seats, 0, values).rules
