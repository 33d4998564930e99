"""The rules several games share, written once: turn order, the double and sandwich slap
patterns, and joint calls (docs/games/common.md). Leaving a game, the one command every game
shares, is :mod:`.leaving`."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Final, Literal

from ..cards import Card

# --------------------------------------------------------------------------- turn order


def next_holder(stacks: Sequence[Sequence[Card]], out: Collection[int], p: int) -> int | None:
    """The first seat after ``p`` (clockwise, wrapping), other than ``p``, not in ``out`` and
    holding a card; None when there is none (docs/games/ratscrew.md#setup,
    docs/games/slapjack.md#playing-a-card)."""
    for q in _AFTER[len(stacks)][p]:
        if stacks[q] and q not in out:
            return q
    return None


MAX_SEATS: Final = 16
"""The most seats the kit's turn order serves (every game takes 8 or fewer)."""


def _after(n: int, p: int) -> tuple[int, ...]:
    """The seats after ``p`` of ``n``, clockwise: ``p + 1``, ..., ``p - 1``."""
    return tuple((p + i) % n for i in range(1, n)) if p < n else ()


_AFTER: Final = ((),) + tuple(
    tuple(_after(n, p) for p in range(MAX_SEATS)) for n in range(1, MAX_SEATS + 1)
)
"""``_after`` of every seat count and seat, as ``_AFTER[n][p]``: a turn passes once or more per
step, and a tuple to walk costs 40 ns less than the modular arithmetic (timeit, 3 seats: 137 ns
against 176 ns). A tuple of tuples rather than a :func:`~cardcore.kit.tabulate` table keyed by
the pair: two small ints index it at C speed, where a look-up by pair builds and hashes the pair
(``next_holder`` 79 ns against 120 ns, the next seat holding a card)."""


def next_in_game(n: int, out: Collection[int], p: int) -> int | None:
    """The first of ``n`` seats after ``p``, other than ``p``, not in ``out`` (cards or not)."""
    for i in range(1, n):
        q = (p + i) % n
        if q not in out:
            return q
    return None


# --------------------------------------------------------------------------- slap patterns


PairPattern = Literal["double", "sandwich"]
DOUBLE: Final = "double"
SANDWICH: Final = "sandwich"


def double_or_sandwich(
    pile: Sequence[Card], double: bool, sandwich: bool
) -> tuple[PairPattern, tuple[Card, ...]] | None:
    """The pattern the top of ``pile`` (bottom→top) makes, double first
    (docs/games/ratscrew.md#slap-patterns, shared by docs/games/slapjack.md#variant-flags): two
    cards of a rank on top, or two of a rank with one other between."""
    n = len(pile)
    if n < 2:
        return None
    top = pile[-1]
    second = pile[-2]
    if double and second.rank == top.rank:
        return DOUBLE, (second, top)
    if sandwich and n >= 3:
        third = pile[-3]
        if third.rank == top.rank and second.rank != top.rank:
            return SANDWICH, (third, second, top)
    return None


# --------------------------------------------------------------------------- joint calls


def joint_call(calls: frozenset[int], seat: int, seats: int) -> tuple[frozenset[int], bool]:
    """A joint call (docs/games/common.md#joint-calls): ``calls`` after ``seat`` calls, and whether
    every one of the ``seats`` has now called (the call takes effect, and the set starts empty
    again)."""
    after = calls | {seat}
    if len(after) == seats:
        return frozenset(), True
    return after, False
