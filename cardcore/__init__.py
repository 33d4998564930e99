"""cardcore: deterministic, seeded, replayable, event-sourced card game engines.

Five games — Egyptian Ratscrew, Slapjack, Palace (Shithead), Spit and Speed — as pure deciders
(:mod:`cardcore.engine`), a single sequencer (:class:`cardcore.match.Match`), a tamper-evident log
(:mod:`cardcore.log`) and seeded bots (:mod:`cardcore.bots`). Standard library only: no clock, no
global RNG, no I/O.

``import cardcore`` imports nothing else: each public name below is imported from its module on
first access (PEP 562 ``__getattr__``), and a game's module only when that game is first used
(:mod:`cardcore.registry`). So a command that needs one game, or none (``cardcore --help``, a
client that only names types), does not pay for all five.
"""

from __future__ import annotations

from .version import __version__  # one tiny module; hatch reads the version from it

TYPE_CHECKING = False
"""Not :data:`typing.TYPE_CHECKING`: importing :mod:`typing` alone would cost more than the rest
of this module (type checkers treat any ``TYPE_CHECKING`` name as true)."""
if TYPE_CHECKING:
    # What the type checker (and a reader) sees: the names as eager imports.
    from .cards import HIDDEN, Card
    from .commands import CommandSyntaxError, FieldTypeError
    from .engine import Game, GameInfo, Outcome, Role, Setup, Termination, Viewer
    from .errors import (
        CardcoreError,
        CorruptLog,
        DecodeError,
        InvalidSetup,
        RejectCode,
        Rejected,
        UnknownGame,
    )
    from .match import Match
    from .registry import GAMES, get_game

_HOME: dict[str, str] = {
    "HIDDEN": "cards",
    "Card": "cards",
    "CommandSyntaxError": "commands",
    "FieldTypeError": "commands",
    "Game": "engine",
    "GameInfo": "engine",
    "Outcome": "engine",
    "Role": "engine",
    "Setup": "engine",
    "Termination": "engine",
    "Viewer": "engine",
    "CardcoreError": "errors",
    "CorruptLog": "errors",
    "DecodeError": "errors",
    "InvalidSetup": "errors",
    "RejectCode": "errors",
    "Rejected": "errors",
    "UnknownGame": "errors",
    "Match": "match",
    "GAMES": "registry",
    "get_game": "registry",
}
"""Each lazily imported public name → the submodule that defines it."""


if not TYPE_CHECKING:  # hidden from type checkers, which would let any name through it

    def __getattr__(name: str) -> object:
        home = _HOME.get(name)
        if home is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        # __import__ with a fromlist returns the submodule itself (no importlib to load)
        value = getattr(__import__(f"{__name__}.{home}", fromlist=[name]), name)
        globals()[name] = value  # later accesses are plain global reads
        return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME})


__all__ = [
    "GAMES",
    "HIDDEN",
    "Card",
    "CardcoreError",
    "CommandSyntaxError",
    "CorruptLog",
    "DecodeError",
    "FieldTypeError",
    "Game",
    "GameInfo",
    "InvalidSetup",
    "Match",
    "Outcome",
    "RejectCode",
    "Rejected",
    "Role",
    "Setup",
    "Termination",
    "UnknownGame",
    "Viewer",
    "__version__",
    "get_game",
]
