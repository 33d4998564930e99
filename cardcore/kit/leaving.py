"""Leaving a game (docs/games/common.md#leaving-a-game): :class:`Resign`, the one command class
every game has. A declaration the codec and the command syntax read by its annotations, so this
module stays Python in the compiled build (pyproject.toml [tool.cardcore.compiled]), as each
game's ``declarations.py`` does."""

from __future__ import annotations

from typing import Final

from .records import command

RESIGN_BY_TIMER: Final = "timer"


@command("resign [by {by}]")
class Resign:
    """Leave the game (docs/games/common.md#leaving-a-game), in any phase, while still in it. Every
    game has this one command class, so a host knows it without knowing the game.

    ``by``: ``None`` when the player resigns; ``"timer"`` when the host forfeits the seat on a
    time-out (a host refuses it from a client: only the host may mark an action as its own)."""

    by: str | None = None
