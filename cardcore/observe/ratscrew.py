"""Egyptian Ratscrew's observation and actions (docs/rl.md#ratscrew-observation,
docs/rl.md#ratscrew-actions).

Nobody sees a stack, its owner included, so a seat's observation is its stack's size and the
others', the pile's size, its top cards and its first played card (what every slap pattern of
docs/games/ratscrew.md#slap-patterns looks at: at most four cards from the top, and the bottom
one for ``top_bottom``), and where the turn and any challenge stand. Three actions: play, slap,
collect (a slap and a collect carry no expectation: ``expect_epoch`` and ``seen_count`` None).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Final

from ..cards import SeenCard
from ..engine import Setup
from ..games.ratscrew import COLLECT, PLAY, SLAP, Collect, Play, Rules, Slap, View
from .base import (
    CODE,
    HIDDEN_CODE,
    NO_CARD,
    PAD,
    Catalogue,
    Field,
    Layout,
    flags,
    lengths,
    seats_for,
)

TOPS: Final = 4
"""Top cards shown: the longest slap pattern, four in a row, spans four."""


def layout(setup: Setup[Rules]) -> Layout:
    """The fields of :func:`encode` for ``setup``."""
    n, rules = setup.seats, setup.rules
    deck = (52 + rules.jokers) * rules.num_decks
    owed = max(rules.challenge_counts.values(), default=0)
    return Layout(
        (
            Field("stack", n, 0, deck, "cards in each stack (observer first)"),
            Field("eliminated", n, 0, 1, "1: that seat is out"),
            Field("current", 1, 0, n, "whose turn it is to play (seat code; 0 nobody)"),
            Field("challenger", 1, 0, n, "who challenged (seat code; 0 no challenge)"),
            Field("owed", 1, 0, owed, "cards the challenged player still owes"),
            Field("owed_to", 1, 0, n, "who the pile is owed to, to collect (seat code)"),
            Field("slappable", 1, 0, 1, "1: the pile matches a slap pattern now"),
            Field("pile", 1, 0, deck, "cards in the pile (burned ones included)"),
            Field("played", 1, 0, deck, "played (face-up) cards in the pile"),
            Field("top", TOPS, 0, HIDDEN_CODE, "the pile's top cards, top first (card codes)"),
            Field("bottom", 1, 0, HIDDEN_CODE - 1, "the first played card of the pile (code)"),
        )
    )


def encode(view: View, seat: int) -> tuple[int, ...]:
    """Seat ``seat``'s observation from its ``view`` (:func:`layout`'s fields)."""
    stacks = view.stacks
    table = seats_for(len(stacks), seat)
    codes = table.codes
    challenge, current, owed_to = view.challenge, view.current, view.owed_to
    return (
        *lengths(stacks, table.order),
        *flags(view.eliminated, table),
        0 if current is None else codes[current],
        *((0, 0) if challenge is None else (codes[challenge[0]], challenge[1])),
        0 if owed_to is None else codes[owed_to],
        1 if view.slappable else 0,
        *_pile_fields(view.pile, view.played_count),
    )


@functools.lru_cache(maxsize=4096)
def _pile_fields(pile: tuple[SeenCard, ...], played: int) -> tuple[int, ...]:
    """The fields ``pile``, ``played``, ``top`` and ``bottom`` of a pile (bottom→top) whose last
    ``played`` cards were played: worked out once per pile, which most steps leave as it was
    (a slap that misses, a seat that waits)."""
    top = [CODE[c] for c in pile[: -TOPS - 1 : -1]]
    bottom = CODE[pile[-played]] if played else NO_CARD
    return (len(pile), played, *top, *PAD[TOPS - len(top)], bottom)


_ACTIONS: Final = {Play: 0, Slap: 1, Collect: 2}
_COMMANDS: Final = (PLAY, SLAP, COLLECT)


class RatscrewCatalogue(Catalogue):
    """``play``, ``slap``, ``collect``: the same for every variant."""

    def __init__(self, setup: Setup[Rules]) -> None:
        super().__init__("ratscrew", ("play", "slap", "collect"))

    def index_of(self, command: object, view: Any) -> int | None:
        return _ACTIONS.get(type(command))

    def command_at(self, index: int, view: Any) -> object | None:
        return _COMMANDS[self._check(index)]

    def mask(self, view: Any, legal: Sequence[object]) -> tuple[bool, ...]:
        kinds = {type(c) for c in legal}
        return (Play in kinds, Slap in kinds, Collect in kinds)


make_catalogue = RatscrewCatalogue
