"""Idempotent creation: a client's random key makes a retried CreateGame get the same game and
the same tokens, never a second game.

The key is a secret (whoever sends it with the same credentials gets the game's every token),
so it must be one nobody guesses (:func:`check_idempotency_key`); a retry must ask for the same
game again (:func:`request_hash`); and retries of one creation arriving at once are taken one
at a time (:class:`Creations`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import math
import re
from collections import Counter
from collections.abc import AsyncIterator
from typing import Final

from cardcore import codec

from ..errors import invalid
from .plan import Plan
from .values import GameSpec

_KEY_RE: Final = re.compile(r"^[A-Za-z0-9_-]{1,128}$")
_HEX_RE: Final = re.compile(r"^[0-9a-fA-F]+$")
KEY_BITS: Final = 128
"""The least randomness an idempotency key must show (:func:`check_idempotency_key`)."""
KEY_RULE: Final = (
    "a random secret of 32 to 128 hex digits, or 22 to 128 characters of A-Z a-z 0-9 - _ "
    "(e.g. a random UUID)"
)


def check_idempotency_key(key: str) -> None:
    """An idempotency key is a secret: whoever sends it (with the same credentials) gets the
    game's every token. So it must be one nobody guesses: at least :data:`KEY_BITS` random
    bits, as far as its length and alphabet tell (32 hex digits, or 22 characters of
    base64url; a random UUID in either form is one), and not made of repeats or runs (an
    error names the field, never quotes the key)."""
    if not _KEY_RE.match(key):
        raise invalid("idempotency_key", f"{KEY_RULE}; this one has another character")
    bits_per_char = 4 if _HEX_RE.match(key) else 6
    if len(key) * bits_per_char < KEY_BITS:
        raise invalid("idempotency_key", f"{KEY_RULE}; this one is too short")
    if _guessable(key):
        raise invalid("idempotency_key", f"{KEY_RULE}; this one is too easy to guess")


def _guessable(key: str) -> bool:
    """Repeats (few distinct characters, by its empirical entropy: under 48 bits in all) or
    runs (over 3/4 of neighbours a step apart: ``0123…``, ``aaaa…``). Random keys pass with a
    wide margin: of 10^6 each of 22 base64url characters, 32 hex digits and UUIDs, none was
    refused; the lowest entropy was 69 bits, the most stepped 55 % of neighbours."""
    counts = Counter(key)
    entropy = -sum(n * math.log2(n / len(key)) for n in counts.values())
    steps = sum(abs(ord(a) - ord(b)) <= 1 for a, b in itertools.pairwise(key))
    return entropy < 48 or steps > 0.75 * (len(key) - 1)


def request_hash(spec: GameSpec, plan: Plan) -> str:
    """What a retry with the same idempotency key must ask for again, as a hash (its rules as
    canonical JSON: the same rules are the same request however a client wrote them)."""
    data = {
        "game": plan.game.info.name,
        "seats": [s.to_json() for s in spec.seats],
        "seat_open": list(spec.seat_open),
        "rules_json": codec.canonical_text(plan.rules) if plan.rules else "",
        "seed": spec.seed,
        "event_limit": spec.event_limit,
        "timeouts_ms": dict(spec.timeouts_ms),
        "public": spec.public,
        "start_deadline_ms": spec.start_deadline_ms,
        "clocks": [spec.turn_timeout_ms, spec.idle_timeout_ms, spec.abandon_timeout_ms],
        "entropy": [e.hex() for e in spec.entropy],
    }
    if any(spec.entropy_commitments):  # only then: earlier requests keep their hashes
        data["entropy_commitments"] = [c.hex() for c in spec.entropy_commitments]
    return hashlib.sha256(codec.canonical_bytes(data)).hexdigest()


class Creations:
    """Creations under way, by the game id an idempotency key makes: one at a time each."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, list[int]]] = {}

    @contextlib.asynccontextmanager
    async def one_at_a_time(self, game_id: str) -> AsyncIterator[bool]:
        """Hold ``game_id``'s turn; yields whether another creation held it first."""
        lock, users = self._locks.setdefault(game_id, (asyncio.Lock(), [0]))
        users[0] += 1
        waited = lock.locked()
        try:
            async with lock:
                yield waited
        finally:
            users[0] -= 1
            if not users[0]:
                del self._locks[game_id]
