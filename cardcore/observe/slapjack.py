"""Slapjack's observation and actions (docs/rl.md#slapjack-observation,
docs/rl.md#slapjack-actions).

Nobody sees a stack, its owner included: a seat's observation is every stack's size, who waits
for a Jack and who is out, the pile's size and its top three cards (a double or a sandwich spans
three) with the seat that played the top one (a false slapper pays that seat under
``penalty_recipient="player_of_top_card"``), and whose turn it is. Two actions: play and slap
(a slap carries no expectation: ``expect_epoch`` None).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Final

from ..cards import SeenCard
from ..engine import Setup
from ..games.slapjack import PLAY, SLAP, Play, Rules, Slap, View
from .base import CODE, HIDDEN_CODE, PAD, Catalogue, Field, Layout, flags, lengths, seats_for

TOPS: Final = 3
"""Top cards shown: a sandwich spans three."""


def layout(setup: Setup[Rules]) -> Layout:
    """The fields of :func:`encode` for ``setup``."""
    n = setup.seats
    deck = 52 * setup.rules.num_decks
    return Layout(
        (
            Field("stack", n, 0, deck, "cards in each stack (observer first)"),
            Field("awaiting", n, 0, 1, "1: that seat has no card and waits for the next Jack"),
            Field("eliminated", n, 0, 1, "1: that seat is out"),
            Field("current", 1, 0, n, "whose turn it is to play (seat code; 0 nobody)"),
            Field("slappable", 1, 0, 1, "1: the pile holds a target now"),
            Field("pile", 1, 0, deck, "cards in the pile (burned ones included)"),
            Field("played", 1, 0, deck, "played (face-up) cards in the pile"),
            Field("top", TOPS, 0, HIDDEN_CODE, "the pile's top cards, top first (card codes)"),
            Field("top_by", 1, 0, n, "who played the top card (seat code; 0 none)"),
        )
    )


def encode(view: View, seat: int) -> tuple[int, ...]:
    """Seat ``seat``'s observation from its ``view`` (:func:`layout`'s fields)."""
    stacks = view.stacks
    table = seats_for(len(stacks), seat)
    codes = table.codes
    current, played_by = view.current, view.played_by
    return (
        *lengths(stacks, table.order),
        *flags(view.awaiting, table),
        *flags(view.eliminated, table),
        0 if current is None else codes[current],
        1 if view.slappable else 0,
        *_pile_fields(view.pile, len(played_by)),
        codes[played_by[-1]] if played_by else 0,
    )


@functools.lru_cache(maxsize=4096)
def _pile_fields(pile: tuple[SeenCard, ...], played: int) -> tuple[int, ...]:
    """The fields ``pile``, ``played`` and ``top`` of a pile (bottom→top): worked out once per
    pile, which most steps leave as it was."""
    top = [CODE[c] for c in pile[: -TOPS - 1 : -1]]
    return (len(pile), played, *top, *PAD[TOPS - len(top)])


class SlapjackCatalogue(Catalogue):
    """``play`` and ``slap``: the same for every variant."""

    def __init__(self, setup: Setup[Rules]) -> None:
        super().__init__("slapjack", ("play", "slap"))

    def index_of(self, command: object, view: Any) -> int | None:
        t = type(command)
        return 0 if t is Play else 1 if t is Slap else None

    def command_at(self, index: int, view: Any) -> object | None:
        return (PLAY, SLAP)[self._check(index)]

    def mask(self, view: Any, legal: Sequence[object]) -> tuple[bool, ...]:
        kinds = {type(c) for c in legal}
        return (Play in kinds, Slap in kinds)


make_catalogue = SlapjackCatalogue
