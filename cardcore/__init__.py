"""cardcore: deterministic, seeded, replayable, event-sourced card game engines.

Five games — Egyptian Ratscrew, Slapjack, Palace (Shithead), Spit and Speed — as pure deciders
(:mod:`cardcore.engine`), a single sequencer (:class:`cardcore.match.Match`), a tamper-evident log
(:mod:`cardcore.log`) and seeded bots (:mod:`cardcore.bots`). Standard library only: no clock, no
global RNG, no I/O.
"""

from .cards import HIDDEN, Card
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
from .version import __version__

__all__ = [
    "GAMES",
    "HIDDEN",
    "Card",
    "CardcoreError",
    "CorruptLog",
    "DecodeError",
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
