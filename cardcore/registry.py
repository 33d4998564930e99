"""The explicit list of every game cardcore plays (no registration magic: python-chess style)."""

from __future__ import annotations

from typing import Any, Final

from .engine import Game
from .errors import UnknownGame
from .games import palace, ratscrew, slapjack, speed, spit

AnyGame = Game[Any, Any, Any, Any, Any]

GAMES: Final[tuple[AnyGame, ...]] = (
    ratscrew.GAME,
    slapjack.GAME,
    palace.GAME,
    spit.GAME,
    speed.GAME,
)
"""Every registered game, in catalogue order."""

_BY_NAME: Final[dict[str, AnyGame]] = {
    name: g for g in GAMES for name in (g.info.name, *g.info.aliases)
}


def get_game(name: str) -> AnyGame:
    """The game with this name or alias (``"ers"`` → ratscrew); raises :class:`UnknownGame`."""
    try:
        return _BY_NAME[name.lower()]
    except (KeyError, AttributeError):
        raise UnknownGame(str(name), tuple(g.info.name for g in GAMES)) from None
