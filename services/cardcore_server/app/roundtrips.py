"""Each seat's round trip to the server, measured on its play channels (docs/reference/
play-channel.md, "Round trips"): the server pings every :data:`PING_INTERVAL_S`, times each
answer, and keeps per seat the smallest of the last :data:`WINDOW` samples.

A moving minimum rather than a mean: a round trip is the network's delay plus whatever else was
in the way (a retransmit, a GC pause on either side, a busy event loop), and only the first part
is the player's connection. The minimum over a short window follows a connection that changes
(the window forgets a sample after about 16 s) and ignores a single slow sample. This is what a
seat sees as ``rtt_ms`` in its view, and what the sequencer will credit latency-compensated
races with (issue 26).
"""

from __future__ import annotations

import math
import secrets
from collections import deque
from collections.abc import Callable
from typing import Final

PING_INTERVAL_S: Final = 1.0
"""How often the server pings each open play channel."""

WINDOW: Final = 16
"""How many of a seat's latest samples its round trip is the minimum of."""

MAX_RTT_S: Final = 30.0
"""A pong later than this is not a sample (a client that was suspended, not a network)."""


def ping_nonce() -> int:
    """A ping's nonce: random, so that a client cannot answer a ping before it has it and so
    show a round trip shorter than its own (races are credited by it); below 2**53, so that a
    JavaScript client reads and echoes it exactly (JSON numbers and grpc-js longs are floats)."""
    return secrets.randbelow(2**53 - 1) + 1


class RoundTrips:
    """The round trips of every seat with a play channel open on this server, by game."""

    def __init__(self, observe: Callable[[float], None] = lambda _s: None) -> None:
        self._samples: dict[tuple[str, int], deque[float]] = {}
        self._channels: dict[tuple[str, int], int] = {}
        self._observe = observe

    def opened(self, game_id: str, seat: int) -> None:
        """A play channel of ``seat`` opened (a seat may have several: two tabs)."""
        key = (game_id, seat)
        self._channels[key] = self._channels.get(key, 0) + 1

    def closed(self, game_id: str, seat: int) -> None:
        """One of ``seat``'s channels closed; with its last, the seat's samples go."""
        key = (game_id, seat)
        left = self._channels.get(key, 0) - 1
        if left > 0:
            self._channels[key] = left
            return
        self._channels.pop(key, None)
        self._samples.pop(key, None)

    def sample(self, game_id: str, seat: int, seconds: float) -> None:
        """One ping answered after ``seconds``."""
        if not 0.0 <= seconds <= MAX_RTT_S or (game_id, seat) not in self._channels:
            return
        window = self._samples.get((game_id, seat))
        if window is None:
            window = self._samples[(game_id, seat)] = deque(maxlen=WINDOW)
        window.append(seconds)
        self._observe(seconds)

    def delay_ms(self, game_id: str, seat: int) -> int:
        """The seat's one-way delay, in whole milliseconds: half its round trip, rounded down
        (a credit never flatters: docs/games/common.md#race-policy); 0 while it has none."""
        window = self._samples.get((game_id, seat))
        return math.floor(min(window) * 500) if window else 0

    def rtt_ms(self, game_id: str, seat: int) -> int | None:
        """The seat's round trip in whole milliseconds (rounded up: never flattering), or
        ``None`` while it has no channel open or none has answered a ping yet."""
        window = self._samples.get((game_id, seat))
        if not window:
            return None
        return math.ceil(min(window) * 1000)
