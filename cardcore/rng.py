"""cardcore's own counter-based PRNG: SplitMix64 streams and an unbiased Fisher–Yates shuffle.

The algorithm is specified in ``docs/rng.md`` precisely enough to reimplement in any language, with
known-answer vectors that ``tests/unit/test_rng.py`` pins. It never changes under a given
:data:`ALGORITHM` name: a log records that name and replays with it.

Every draw is a pure function of ``(seed, stream, index)``: the game's seed, a stream number that
the game chooses for each random decision (0 = the deal, then one per later shuffle) and the
position of the draw within that stream. Nothing here reads a clock, the stdlib ``random``
or the OS.
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableSequence, Sequence
from typing import Final, TypeVar

from ._mypyc import compiled_class, i64

ALGORITHM: Final = "splitmix64-fisher-yates/1"
DERIVATION: Final = "sha256-deal-seed/1"
"""How a deal seed is made from the server's seed and the players' entropy (log format 2)."""
ENTROPY_BYTES: Final = 16
"""A player's contribution: exactly 128 bits."""
_DERIVATION_TAG: Final = b"cardcore-deal-seed/1"
_COMMITMENT_TAG: Final = b"cardcore-entropy-commitment/1"

MASK64: Final = (1 << 64) - 1
GAMMA: Final = 0x9E3779B97F4A7C15
_M1: Final = 0xBF58476D1CE4E5B9
_M2: Final = 0x94D049BB133111EB
MAX_SEED: Final = MASK64
_TWO64: Final = 1 << 64
_SAFE: Final = _TWO64 - (1 << 32)
"""Below every limit of a bound of at most 2**32 (:meth:`Rng.shuffle`)."""

T = TypeVar("T")


def mix64(z: int) -> int:
    """The SplitMix64 finaliser (Steele, Lea & Flood 2014) on a 64-bit unsigned integer."""
    z = ((z ^ (z >> 30)) * _M1) & MASK64
    z = ((z ^ (z >> 27)) * _M2) & MASK64
    return z ^ (z >> 31)


def stream_key(seed: int, stream: int) -> int:
    """The key of stream ``stream``: the ``stream``-th SplitMix64 output of ``seed``."""
    if _NATIVE:
        return _unsigned(_stream_word(seed, stream))
    return mix64((seed + GAMMA * (stream + 1)) & MASK64)


UNREVEALED: Final = -1
"""A seed that stands for "not known here": verifying a log whose seed is still secret."""


class SeedUnrevealed(ValueError):
    """A random draw was asked of :data:`UNREVEALED`: the outcome depends on the secret seed."""


def _signed(x: int) -> int:
    """A 64-bit unsigned value as the signed machine word of the same bits."""
    return x - _TWO64 if x >> 63 else x


# The compiled build's arithmetic (Rng._native): the same constants as signed machine words, and
# the masks that make an arithmetic right shift of a signed word a logical one.
_GAMMA_WORD: Final[i64] = _signed(GAMMA)
_M1_WORD: Final[i64] = _signed(_M1)
_M2_WORD: Final[i64] = _signed(_M2)
_LOW34: Final[i64] = (1 << 34) - 1
_LOW37: Final[i64] = (1 << 37) - 1
_LOW33: Final[i64] = (1 << 33) - 1
_MAX_WORD: Final[i64] = (1 << 63) - 1


class Rng:
    """The draws of one stream: ``next_u64`` returns output 0, 1, 2, … of that stream.

    Output ``k`` is ``mix64(key + GAMMA * (k + 1))`` with ``key = stream_key(seed, stream)``.

    Two ways to the same numbers, one per build (the known-answer vectors of docs/rng.md pin
    both: tests/unit/test_rng.py runs on each). Interpreted, the arithmetic is Python's, masked
    to 64 bits after each product. Compiled (mypyc), it is the machine's: the key and the count
    are declared :data:`~cardcore._mypyc.i64`, 64-bit words whose products wrap, and the shifts
    are masked to be logical; Python's integers there took 6x as long (a 128-bit product
    boxed at every step: 1.3 us against 0.19 us a draw, timeit)."""

    __slots__ = ("_count", "_key")

    def __init__(self, seed: int, stream: int = 0) -> None:
        if seed == UNREVEALED:
            raise SeedUnrevealed("this draw depends on the seed, which is not revealed")
        if not 0 <= seed <= MAX_SEED:
            raise ValueError(f"seed must be an integer in [0, 2**64): {seed!r}")
        if not 0 <= stream <= MASK64:
            raise ValueError(f"stream must be an integer in [0, 2**64): {stream!r}")
        self._key: i64 = _stream_word(seed, stream)  # the bits of the key, as a word
        self._count: i64 = 0

    def next_u64(self) -> int:
        self._count = n = self._count + 1
        if _NATIVE:
            return _unsigned(_native(self._key, n))
        z = (self._key + GAMMA * n) & MASK64  # mix64, inlined: this is the hot path of bots
        z = ((z ^ (z >> 30)) * _M1) & MASK64
        z = ((z ^ (z >> 27)) * _M2) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``, by rejection: draws at or above the largest multiple
        of ``n`` that fits in 64 bits are discarded, so no value is favoured."""
        if not 0 < n <= MASK64:
            raise ValueError(f"bound must be in [1, 2**64): {n!r}")
        if _NATIVE and n >> 63 == 0:  # n fits a word (compared as an int, never converted)
            return self._below_native(n)
        limit = _TWO64 - (_TWO64 % n)
        while True:
            x = self.next_u64()
            if x < limit:
                return x % n

    def _below_native(self, n: i64) -> i64:
        """:meth:`below` in 64-bit words (the compiled build; ``n`` < 2**63). A draw whose
        unsigned value is at or above ``2**64 - r`` (``r = 2**64 % n``) is a negative word of
        at least ``-r``; an accepted negative word stands for itself plus ``2**64``, so its value
        modulo ``n`` is ``word % n + r``, modulo ``n``."""
        half = _MAX_WORD % n  # (2**63 - 1) % n
        r = _add_mod(_add_mod(half, half, n), 2 % n, n)  # 2**64 % n
        key = self._key
        while True:
            self._count = count = self._count + 1
            word = _native(key, count)
            if word >= 0:
                return word % n
            if word < -r:
                return _add_mod(word % n, r, n)

    def chance(self, numerator: int, denominator: int) -> bool:
        """True with probability ``numerator / denominator`` (integers only: no floats)."""
        return self.below(denominator) < numerator

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher–Yates in place: for i = len-1 down to 1, swap item i with item below(i+1).

        The draws are exactly :meth:`next_u64`'s and :meth:`below`'s (inlined in the interpreted
        build: every deal and re-shuffle runs through here, and the calls were most of its cost;
        the known-answer vectors of docs/rng.md pin that the results are the same)."""
        if _NATIVE:
            if isinstance(items, list):  # every deal: a list, read and written natively (a
                cards: list[T] = items  # MutableSequence's items are generic calls: 2.2x as long)
                for i in range(len(cards) - 1, 0, -1):
                    j = self._below_native(i + 1)
                    cards[i], cards[j] = cards[j], cards[i]
                return
            for i in range(len(items) - 1, 0, -1):
                j = self._below_native(i + 1)
                items[i], items[j] = items[j], items[i]
            return
        # Two savings on Python's integers, the same draws (15-18 % of a 52-card shuffle, timeit):
        # output n's input key + GAMMA * n is counted up by GAMMA, and a draw below _SAFE is
        # below every bound's limit (a bound of at most 2**32 rejects only draws at or above
        # 2**64 - bound), so the exact limit is worked out only for a draw above it.
        n = self._count
        counted = (self._key + GAMMA * n) & MASK64
        safe = _SAFE if len(items) <= 1 << 32 else 0
        for i in range(len(items) - 1, 0, -1):
            bound = i + 1
            while True:
                n += 1
                counted = (counted + GAMMA) & MASK64
                z = ((counted ^ (counted >> 30)) * _M1) & MASK64
                z = ((z ^ (z >> 27)) * _M2) & MASK64
                z ^= z >> 31
                if z < safe or z < _TWO64 - (_TWO64 % bound):
                    break
            j = z % bound
            items[i], items[j] = items[j], items[i]
        self._count = n


def _native(key: i64, n: i64) -> i64:
    """Output ``n`` of the stream of ``key`` in 64-bit words: :meth:`Rng.next_u64`'s compiled
    way (interpreted, ``i64`` is ``int`` and nothing wraps: never called there)."""
    z = key + _GAMMA_WORD * n
    z = (z ^ ((z >> 30) & _LOW34)) * _M1_WORD
    z = (z ^ ((z >> 27) & _LOW37)) * _M2_WORD
    return z ^ ((z >> 31) & _LOW33)


def _add_mod(a: i64, b: i64, n: i64) -> i64:
    """``(a + b) % n`` for ``a`` and ``b`` in ``[0, n)``, without a sum past ``2**63``."""
    return a - (n - b) if a >= n - b else a + b


def _stream_word(seed: int, stream: int) -> i64:
    """:func:`stream_key`'s bits as a word; compiled, worked out in words (:func:`_native`,
    which is the same SplitMix64 step: Python's integers took 4x as long, a key per deal)."""
    if _NATIVE:
        return _native(_signed(seed & MASK64), _signed((stream + 1) & MASK64))
    return _signed(stream_key(seed, stream))


def _unsigned(word: i64) -> int:
    """The 64-bit unsigned value of a word's bits."""
    x: int = word
    return x + _TWO64 if x < 0 else x


_NATIVE: Final = compiled_class(Rng)
"""Whether this module is the compiled one, whose ``i64`` arithmetic wraps (:class:`Rng`)."""


def derive_deal_seed(server_seed: int, contributions: Sequence[tuple[int, bytes]]) -> int:
    """The seed a game deals with when players add entropy (docs/rng.md, "The deal seed"):

    ``SHA-256("cardcore-deal-seed/1" || server_seed as 8 bytes big-endian || for each
    contribution in increasing seat order: seat as 4 bytes big-endian || its 16 bytes)``, of
    which the first 8 bytes, big-endian, are the deal seed. The server commits to its seed before
    anyone contributes, and every contribution is recorded, so no single party chooses the deal.

    ``contributions``: ``(seat, 16 bytes)`` pairs, at most one per seat (any order)."""
    if not 0 <= server_seed <= MAX_SEED:
        raise ValueError(f"server seed must be an integer in [0, 2**64): {server_seed!r}")
    h = hashlib.sha256(_DERIVATION_TAG)
    h.update(server_seed.to_bytes(8, "big"))
    seen: set[int] = set()
    for seat, entropy in sorted(contributions):
        if not 0 <= seat < 2**32 or seat in seen:
            raise ValueError(f"contribution seat {seat!r}: out of range or given twice")
        if len(entropy) != ENTROPY_BYTES:
            raise ValueError(f"a contribution is exactly {ENTROPY_BYTES} bytes")
        seen.add(seat)
        h.update(seat.to_bytes(4, "big"))
        h.update(entropy)
    return int.from_bytes(h.digest()[:8], "big")


def entropy_commitment(entropy: bytes) -> str:
    """What a seat publishes before the start instead of its entropy (docs/rng.md, "Committed
    entropy"): ``SHA-256("cardcore-entropy-commitment/1" || entropy)`` in lowercase hex. The
    entropy itself is revealed once nobody can join or leave, and must hash to this."""
    if len(entropy) != ENTROPY_BYTES:
        raise ValueError(f"a contribution is exactly {ENTROPY_BYTES} bytes")
    return hashlib.sha256(_COMMITMENT_TAG + entropy).hexdigest()


def shuffled(seed: int, stream: int, items: list[T]) -> list[T]:
    """A shuffled copy of ``items`` drawn from ``(seed, stream)``."""
    out = list(items)
    Rng(seed, stream).shuffle(out)
    return out
