"""What goes into a live game and what comes back: the answer to an accepted action, the host's
own action (an abort), and the ways an action is not applied."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from cardcore.engine import Game, Outcome
from cardcore.log import LogLine
from cardcore.match import Match

AnyGame = Game[Any, Any, Any, Any, Any]
AnyMatch = Match[Any, Any, Any, Any, Any]

Sign = Callable[[str], dict[str, str]]
"""The server's signature of a log line's hash (:meth:`..signing.ServerKey.sign`)."""

HOST_SEAT: Final = -1
"""The seat an intent of the host's own (an abort) is queued under."""


@dataclass(frozen=True, slots=True)
class Accepted:
    """An accepted action: its full entry line and decoded events (redact before sending)."""

    seq: int
    line: LogLine
    events: tuple[Any, ...]
    outcome: Outcome | None
    replayed: bool


@dataclass(frozen=True, slots=True)
class HostAbort:
    """The host ends the game (docs/games/common.md#leaving-a-game): sequenced like an action,
    logged as an entry with no seat (:meth:`cardcore.match.Match.abort`). ``by``: "creator", "admin"
    or "timer"."""

    by: str


class RebuildError(Exception):
    """A stored game does not replay to its stored log (rules changed, or the store is corrupt)."""


class Superseded(Exception):
    """A timed action was planned for an earlier ``seq`` than the game is at now."""


class ActionIdReused(Exception):
    """The same ``action_id`` came back with a different command."""


class Unavailable(Exception):
    """The game is being rebuilt or the server is stopping."""


class Broken(Exception):
    """The stored rows of the game do not replay here: it must be rebuilt."""
