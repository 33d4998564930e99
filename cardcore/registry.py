"""The explicit list of every game cardcore plays (no registration magic: python-chess style).

Games are imported on first use: :func:`get_game` imports only the module of the game asked for,
and the first access to :data:`GAMES` imports all of them (PEP 562 ``__getattr__``), so
``import cardcore`` costs no game module. The table below is therefore written out by hand: it
must name exactly each game's ``info.name`` and ``info.aliases`` (tests/unit/test_import.py
checks it against the games themselves).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final, Literal, overload

from .engine import Game
from .errors import UnknownGame

if TYPE_CHECKING:
    # For the type checker only: at run time these imports would load every game eagerly.
    from .games import palace, ratscrew, slapjack, speed, spit

    GAMES: tuple[AnyGame, ...]
    """Every registered game, in catalogue order (imports every game on first access)."""

    RatscrewGame = Game[
        ratscrew.State, ratscrew.Command, ratscrew.Event, ratscrew.View, ratscrew.Rules
    ]
    SlapjackGame = Game[
        slapjack.State, slapjack.Command, slapjack.Event, slapjack.View, slapjack.Rules
    ]
    PalaceGame = Game[palace.State, palace.Command, palace.Event, palace.View, palace.Rules]
    SpitGame = Game[spit.State, spit.Command, spit.Event, spit.View, spit.Rules]
    SpeedGame = Game[speed.State, speed.Command, speed.Event, speed.View, speed.Rules]

AnyGame = Game[Any, Any, Any, Any, Any]  # a game whose types are not known: any of them

_MODULES: Final[tuple[str, ...]] = ("ratscrew", "slapjack", "palace", "spit", "speed")
"""The game modules of :mod:`cardcore.games`, in catalogue order."""

_NAMES: Final[tuple[str, ...]] = ("ratscrew", "slapjack", "palace", "spit", "speed")
"""Each game's ``info.name``, in catalogue order (what :class:`UnknownGame` lists)."""

_MODULE_OF: Final[dict[str, str]] = {
    "ratscrew": "ratscrew",
    "ers": "ratscrew",
    "slapjack": "slapjack",
    "palace": "palace",
    "shithead": "palace",
    "spit": "spit",
    "speed": "speed",
}
"""Every name and alias → the module that defines that game."""

_loaded: dict[str, AnyGame] = {}
"""Module name → its ``GAME``, filled as games are first used."""


def _load(module: str) -> AnyGame:
    game = _loaded.get(module)
    if game is None:
        game = _game_module(module).GAME
        _loaded[module] = game
    return game


def _game_module(module: str) -> ModuleType:
    """The module of a game, imported on first use: by its name, and only here.

    On purpose: the table above names every game, but a game's module is imported only when that
    game is first asked for, so ``import cardcore`` loads no game and a command that plays one
    game loads no other (tests/unit/test_import.py). Written as import statements, the five
    games would be loaded together with the registry."""
    return importlib.import_module(f"{__package__}.games.{module}")


if not TYPE_CHECKING:  # hidden from type checkers, which would let any name through it

    def __getattr__(name: str) -> Any:
        """``GAMES`` on first access: import every game, then keep the tuple as a plain global (so
        later reads never come here)."""
        if name == "GAMES":
            games = tuple(_load(m) for m in _MODULES)
            globals()["GAMES"] = games
            return games
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), "GAMES"})


# The overloads give ``get_game("ers")`` its game's own types (lowercase literal names; any
# other spelling is still accepted at run time and typed as a game of unknown types).
@overload
def get_game(name: Literal["ratscrew", "ers"]) -> RatscrewGame: ...
@overload
def get_game(name: Literal["slapjack"]) -> SlapjackGame: ...
@overload
def get_game(name: Literal["palace", "shithead"]) -> PalaceGame: ...
@overload
def get_game(name: Literal["spit"]) -> SpitGame: ...
@overload
def get_game(name: Literal["speed"]) -> SpeedGame: ...
@overload
def get_game(name: str) -> AnyGame: ...
def get_game(name: str) -> AnyGame:
    """The game with this name or alias (``"ers"`` → ratscrew); raises :class:`UnknownGame`.
    Imports that game's module on first use, and no other."""
    try:
        module = _MODULE_OF[name.lower()]
    except (KeyError, AttributeError):
        raise UnknownGame(str(name), _NAMES) from None
    game = _loaded.get(module)
    return game if game is not None else _load(module)
