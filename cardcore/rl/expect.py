"""The expectations a real-time command carries (docs/games/common.md#expectations), filled
from the view the agent chose it on.

The catalogue builds commands without expectations (``Catalogue.command_at``). In the Parallel
environment an action lands a reaction time after the agent saw the table, so it carries what
the agent saw — the pile's epoch (and, in Egyptian Ratscrew, the played cards it saw), the top
of the centre or spit pile it plays on — and the rules refuse it as stale (``StaleAction``) when
the table changed in between, as a player's slap or card is refused at a real table. Only
what the view shows is written: nothing an agent could not know.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Final

from ..cards import Card


def _top(pile: Any) -> Card | None:
    """The top card of a pile written bottom→top, when it shows one (else no expectation)."""
    top = pile[-1] if pile else None
    return top if isinstance(top, Card) else None


def _ratscrew(command: Any, view: Any) -> Any:
    if type(command).__name__ != "Slap":
        return command
    return dataclasses.replace(command, expect_epoch=view.epoch, seen_count=view.played_count)


def _slapjack(command: Any, view: Any) -> Any:
    if type(command).__name__ != "Slap":
        return command
    return dataclasses.replace(command, expect_epoch=view.epoch)


def _speed(command: Any, view: Any) -> Any:
    if type(command).__name__ != "Play":
        return command
    return dataclasses.replace(command, expect_top=_top(view.centre[command.to]))


def _spit(command: Any, view: Any) -> Any:
    if type(command).__name__ != "Play":
        return command
    return dataclasses.replace(command, expect_top=_top(view.spit_piles[command.target]))


EXPECTATIONS: Final[dict[str, Callable[[Any, Any], Any]]] = {
    "ratscrew": _ratscrew,
    "slapjack": _slapjack,
    "speed": _speed,
    "spit": _spit,
}
"""Per real-time game: ``(command, view) -> the command with what the view shows expected``."""


def expecting(game: str, command: Any, view: Any) -> Any:
    """``command`` carrying the expectations of ``view`` (a game without any: as it is)."""
    fill = EXPECTATIONS.get(game)
    return command if fill is None else fill(command, view)
