"""Mechanics more than one game plays by, written once: turn order, slap patterns, joint calls.

A game module imports these instead of writing its own; each is the rule text of rules.md it
cites, kept small enough to read beside it. (Positions' notation and checks are in
:mod:`cardcore.notation`.)
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Final, Literal

from .cards import Card

# --------------------------------------------------------------------------- turn order


def next_holder(stacks: Sequence[Sequence[Card]], out: Collection[int], p: int) -> int | None:
    """The first seat after ``p`` (clockwise, wrapping), other than ``p``, not in ``out`` and
    holding a card; None when there is none (ERS §1.2, Slapjack §4.2)."""
    n = len(stacks)
    for i in range(1, n):
        q = (p + i) % n
        if stacks[q] and q not in out:
            return q
    return None


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
    """The pattern the top of ``pile`` (bottom→top) makes, double first (ERS §1.4, shared by
    Slapjack §4.4): two cards of a rank on top, or two of a rank with one other between."""
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
    """A joint call (rules.md §0.4.6): ``calls`` after ``seat`` calls, and whether every one of
    the ``seats`` has now called (the call takes effect, and the set starts empty again)."""
    after = calls | {seat}
    if len(after) == seats:
        return frozenset(), True
    return after, False
