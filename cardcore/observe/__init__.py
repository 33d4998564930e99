"""Observations and actions for learning agents, in the core: plain tuples of ints, no numpy
(docs/rl.md). The PettingZoo environments (:mod:`cardcore.rl`, the ``cardcore[rl]`` extra) are
built on these; anyone else may use them as they are.

* :func:`encode` ``(view, seat)``: a seat's observation, from its view only
  (``game.view(state, seat)``, where the cards it may not see are already hidden), written
  seat-relative (the observer first) with the card codes of :mod:`cardcore.observe.base`. A view
  does not say whose it is (Egyptian Ratscrew's is the same for every seat), so the seat is the
  second argument;
* :func:`layout` ``(game, setup)``: the observation's :class:`Layout` (its fields, sizes and
  bounds), fixed for a setup;
* :func:`catalogue` ``(game, setup)``: the game's fixed discrete actions under that setup
  (:class:`Catalogue`: names, ``index_of``, ``command_at``, ``mask``).

One module per game says what its observation holds and what its actions are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from ..engine import Setup
from ..errors import InvalidSetup
from ..games import palace as palace_game
from ..games import ratscrew as ratscrew_game
from ..games import slapjack as slapjack_game
from ..games import speed as speed_game
from ..games import spit as spit_game
from ..registry import get_game
from . import palace, ratscrew, slapjack, speed, spit
from .base import (
    CARD_CODES,
    CODE,
    HIDDEN_CODE,
    JOKER_CODE,
    NO_CARD,
    Catalogue,
    Field,
    Layout,
    code_of,
)

__all__ = [
    "CARD_CODES",
    "CODE",
    "HIDDEN_CODE",
    "JOKER_CODE",
    "NO_CARD",
    "Catalogue",
    "Field",
    "Layout",
    "catalogue",
    "code_of",
    "encode",
    "encoder",
    "layout",
]

_ENCODERS: Final[dict[type, Callable[[Any, int], tuple[int, ...]]]] = {
    ratscrew_game.View: ratscrew.encode,
    slapjack_game.View: slapjack.encode,
    palace_game.View: palace.encode,
    spit_game.View: spit.encode,
    speed_game.View: speed.encode,
}

_MODULES: Final[dict[str, Any]] = {
    "ratscrew": ratscrew,
    "slapjack": slapjack,
    "palace": palace,
    "spit": spit,
    "speed": speed,
}


def encode(view: object, seat: int) -> tuple[int, ...]:
    """Seat ``seat``'s observation: ``view`` (``game.view(state, seat)``) as a tuple of ints,
    laid out as :func:`layout` says for its game and setup. The game is the view's type. Raises
    ``TypeError`` for anything else than a game's view, :class:`~cardcore.errors.InvalidSeat`
    for a seat the game does not have."""
    encoder = _ENCODERS.get(type(view))
    if encoder is None:
        raise TypeError(f"not the view of a cardcore game: {type(view).__name__}")
    return encoder(view, seat)


def encoder(game: str) -> Callable[[Any, int], tuple[int, ...]]:
    """:func:`encode` of ``game``'s views only (a name or alias): the same function without the
    dispatch on the view's type, for a caller that encodes one game's views many times (the
    environments of :mod:`cardcore.rl`). Raises ``ValueError`` for an unknown game."""
    return _MODULES[get_game(game).name].encode  # type: ignore[no-any-return]


def _module(game: str, setup: Setup[Any]) -> Any:
    """The observation module of ``game`` (a name or alias), once ``setup`` is one of its."""
    played = get_game(game)
    if not isinstance(setup.rules, played.rules_type):
        raise InvalidSetup(
            "rules", f"not {played.name} rules: {type(setup.rules).__module__}.Rules"
        )
    played.validate_setup(setup)
    return _MODULES[played.name]


def layout(game: str, setup: Setup[Any]) -> Layout:
    """The :class:`Layout` of ``game``'s observations under ``setup`` (fixed for the setup).
    Raises ``ValueError`` for an unknown game, :class:`~cardcore.errors.InvalidSetup` for a
    setup that is not one of the game's."""
    return _module(game, setup).layout(setup)  # type: ignore[no-any-return]


def catalogue(game: str, setup: Setup[Any]) -> Catalogue:
    """``game``'s :class:`Catalogue` of actions under ``setup``. Raises
    :class:`~cardcore.errors.InvalidSetup` naming the flag of a variant the catalogue cannot
    offer (Palace with more than two decks)."""
    return _module(game, setup).make_catalogue(setup)  # type: ignore[no-any-return]
