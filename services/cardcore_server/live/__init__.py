"""One running game: its sequencer, its durable log and streams, its timers and server bots.

:class:`LiveGame` (:mod:`.game`) composes one object per job: the :mod:`.sequencer` (one order
per game, decided on the durable state and committed by compare-and-set; rewound and caught up
when another server wrote first), :mod:`.catchup` (stored entries re-decided and checked line
for line, for a rebuild and a catch-up), :mod:`.fanout` (the durable state every view and stream
reads, and the streams waiting for more), :mod:`.timers` (timed actions and server bots, armed
on the server that owns the game) and :mod:`.answers` (one answer per ``action_id``).
"""

from .actions import (
    HOST_SEAT,
    Accepted,
    ActionIdReused,
    AnyGame,
    AnyMatch,
    HostAbort,
    RebuildError,
    Sign,
    Superseded,
    Unavailable,
)
from .catchup import replay_entry
from .fanout import DurableState
from .game import LiveGame
from .sequencer import CLIENT_WAIT_S, MAX_ROUND, RETRY_MAX_S, RETRY_MIN_S, wall_ms
from .timers import make_bot

__all__ = [
    "CLIENT_WAIT_S",
    "HOST_SEAT",
    "MAX_ROUND",
    "RETRY_MAX_S",
    "RETRY_MIN_S",
    "Accepted",
    "ActionIdReused",
    "AnyGame",
    "AnyMatch",
    "DurableState",
    "HostAbort",
    "LiveGame",
    "RebuildError",
    "Sign",
    "Superseded",
    "Unavailable",
    "make_bot",
    "replay_entry",
    "wall_ms",
]
