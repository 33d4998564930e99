"""Palace's observation and actions (docs/rl.md#palace-observation,
docs/rl.md#palace-actions).

A seat sees its own hand, everyone's face-up cards, the pile and the burned cards; every other
card only as a count. The observation holds the seat's hand and each seat's face-up cards as card
counts (their order means nothing), each seat's hand, face-down and standing, the pile's size,
top cards and ranks, and the turn (phase, current seat, follow-up, direction, the add-drawn
window, the last face-down card turned up).

The actions, fixed for a setup of ``k = cards_per_area`` and ``d = num_decks``: ``ready``,
``pickup``, a swap of hand slot ``i`` with face-up slot ``j`` (``k × k``; slots count the seat's
cards in card-code order), a blind play of face-down card ``i`` (``k``), and one play and one
add-drawn per *form* of a set of one rank: the rank and how many cards of each suit (``(d + 1)^4
− 1`` forms per rank, 15 with one deck: the non-empty sets of suits), plus 1 to ``jokers × d``
jokers. More than two decks (255 forms per rank, over 6,600 actions) are not offered.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from itertools import product
from typing import Any, Final, cast

from ..cards import HIDDEN, JOKER, SUITS, Card
from ..engine import Setup
from ..errors import InvalidSetup
from ..games.palace import (
    PICKUP,
    READY,
    AddDrawn,
    Pickup,
    Play,
    PlayFaceDown,
    Ready,
    Rules,
    Swap,
    View,
)
from .base import (
    CARD_CODES,
    CODE,
    HIDDEN_CODE,
    PAD,
    Catalogue,
    Field,
    Layout,
    card_counts,
    flags,
    lengths,
    seats_for,
)

TOPS: Final = 4
"""Top cards of the pile shown (four of a kind burns)."""
RANK_SLOTS: Final = 14
"""Rank counts: the joker (rank index 0), then A..K (1..13)."""
MAX_DECKS: Final = 2
"""The most decks whose plays the catalogue offers (``(d + 1)^4 − 1`` forms per rank)."""


def layout(setup: Setup[Rules]) -> Layout:
    """The fields of :func:`encode` for ``setup``."""
    n, rules = setup.seats, setup.rules
    d, k = rules.num_decks, rules.cards_per_area
    deck = (52 + rules.jokers) * d
    copies = d * max(1, rules.jokers)  # the most cards one code may count (jokers: per deck)
    return Layout(
        (
            Field("phase", 1, 0, 1, "0 swapping (setup), 1 play"),
            Field("current", 1, 0, n, "whose turn it is (seat code; 0 nobody)"),
            Field("follow_up", 1, 0, 1, "1: the current player must play again (no pick-up)"),
            Field("direction", 1, 0, 1, "0 clockwise (seat order), 1 reversed (jokers)"),
            Field("window_seat", 1, 0, n, "the add-drawn window's seat (seat code; 0 none)"),
            Field("window_rank", 1, 0, 14, "its rank + 1 (1 joker, 2..14 A..K; 0 none)"),
            Field("window_drawn", 1, 0, k, "cards its last draw took"),
            Field("revealed", 1, 0, HIDDEN_CODE - 1, "the face-down card last turned (code)"),
            Field("stock", 1, 0, deck, "cards in the stock"),
            Field("burned", 1, 0, deck, "burned cards"),
            Field("set_aside", 1, 0, deck, "cards of resigned seats, out of the game"),
            Field("pile", 1, 0, deck, "cards in the pile"),
            Field("top", TOPS, 0, HIDDEN_CODE - 1, "the pile's top cards, top first (codes)"),
            Field("pile_ranks", RANK_SLOTS, 0, deck, "the pile's cards by rank (joker, A..K)"),
            Field("hand", n, 0, deck, "cards in each hand (observer first)"),
            Field("down", n, 0, k, "face-down cards of each seat"),
            Field("ready", n, 0, 1, "1: that seat is done swapping"),
            Field("place", n, 0, n, "k: that seat was the k-th to leave (out or resigned)"),
            Field("resigned", n, 0, 1, "1: that seat resigned"),
            Field("my_hand", CARD_CODES, 0, copies, "the observer's hand (card counts)"),
            Field("up", CARD_CODES * n, 0, copies, "each seat's face-up cards (card counts)"),
        )
    )


def encode(view: View, seat: int) -> tuple[int, ...]:
    """Seat ``seat``'s observation from its ``view`` (:func:`layout`'s fields)."""
    hands = view.hands
    table = seats_for(len(hands), seat)
    codes, order = table.codes, table.order
    current, window, finished = view.current, view.window, view.finished
    mine = hands[seat]
    if mine and mine[0] is HIDDEN:
        raise ValueError(f"not seat {seat}'s view: its hand is face down in it")
    return (
        0 if view.phase == "setup" else 1,
        0 if current is None else codes[current],
        1 if view.follow_up else 0,
        0 if view.direction == 1 else 1,
        *((0, 0, 0) if window is None else (codes[window[0]], window[1] + 1, window[2])),
        CODE[view.revealed],
        len(view.stock),
        len(view.burned),
        len(view.set_aside),
        *_pile_fields(view.pile),
        *lengths(hands, order),
        *lengths(view.down, order),
        *flags(view.ready, table),
        *(_places(finished, order) if finished else table.zeros),
        *flags(view.resigned, table),
    ) + _card_counts(mine, view.up, order)


@functools.lru_cache(maxsize=4096)
def _card_counts(
    mine: tuple[Card, ...], up: tuple[tuple[Card, ...], ...], order: tuple[int, ...]
) -> tuple[int, ...]:
    """The fields ``my_hand`` and ``up``, worked out once per hand and face-up cards (they
    change seldom; most steps change neither) and joined in one copy (unpacking their 159
    items into the observation would cost twice as much)."""
    return tuple(card_counts(mine)) + _up_counts(up, order)


@functools.lru_cache(maxsize=4096)
def _up_counts(up: tuple[tuple[Card, ...], ...], order: tuple[int, ...]) -> tuple[int, ...]:
    """The ``up`` field: every seat's face-up cards, which change seldom (a play from them)."""
    out: list[int] = []
    for s in order:
        out += card_counts(up[s])
    return tuple(out)


@functools.lru_cache(maxsize=4096)
def _pile_fields(pile: tuple[Card, ...]) -> tuple[int, ...]:
    """The fields ``pile``, ``top`` and ``pile_ranks`` of a pile (bottom→top)."""
    ranks = [0] * RANK_SLOTS
    for card in pile:
        ranks[card.rank] += 1
    top = [CODE[c] for c in pile[: -TOPS - 1 : -1]]
    return (len(pile), *top, *PAD[TOPS - len(top)], *ranks)


def _places(finished: tuple[int, ...], order: tuple[int, ...]) -> list[int]:
    """Each seat's place among those that left (1 the first; 0 still in), observer first."""
    return [finished.index(s) + 1 if s in finished else 0 for s in order]


# --------------------------------------------------------------------------- actions

Form = tuple[int, tuple[int, ...]]
"""A set of one rank: the rank index and how many cards of each suit (the joker: ``(count,)``)."""


@functools.cache
def forms(decks: int, jokers: int) -> tuple[tuple[Card, ...], ...]:
    """Every set of one rank a play may hold, as its cards in card order: ranks A..K, each with
    its per-suit counts in ``itertools.product`` order, then 1 to ``jokers × decks`` jokers."""
    out: list[tuple[Card, ...]] = []
    for rank in range(1, 14):
        for counts in product(range(decks + 1), repeat=len(SUITS)):
            if any(counts):
                cards = (
                    Card.of(rank, s) for s, c in zip(SUITS, counts, strict=True) for _ in range(c)
                )
                out.append(tuple(cards))
    out += [(JOKER,) * c for c in range(1, jokers * decks + 1)]
    return tuple(out)


def _form_key(cards: Sequence[Card]) -> tuple[Card, ...]:
    """The cards of a set in card order: the key of its form."""
    return tuple(sorted(cards))


def _own_seat(view: View) -> int | None:
    """The seat whose view this is, when it holds cards: a view shows its own hand alone face
    up (hands of other seats are face down); None when its hand is empty."""
    for s, hand in enumerate(view.hands):
        if hand and hand[0] is not HIDDEN:
            return s
    return None


def _sorted_areas(view: View, seat: int) -> tuple[list[Card], list[Card]]:
    """Seat ``seat``'s hand (face up to it) and face-up cards, each in card order: its slots."""
    return sorted(cast(tuple[Card, ...], view.hands[seat])), sorted(view.up[seat])


class PalaceCatalogue(Catalogue):
    """Palace's actions under one setup (the module docstring); raises :class:`InvalidSetup`
    (``rules.num_decks``) for more than :data:`MAX_DECKS` decks."""

    def __init__(self, setup: Setup[Rules]) -> None:
        rules = setup.rules
        if rules.num_decks > MAX_DECKS:
            raise InvalidSetup(
                "rules.num_decks",
                f"the action catalogue offers Palace with at most {MAX_DECKS} decks "
                f"(plays as a rank and a count per suit: {4**4 - 1} forms per rank with 3 decks)",
            )
        k = self.k = rules.cards_per_area
        sets = forms(rules.num_decks, rules.jokers)
        self.swap_at = 2
        self.blind_at = self.swap_at + k * k
        self.play_at = self.blind_at + k
        self.add_at = self.play_at + len(sets)
        names = ["ready", "pickup"]
        names += [f"swap hand[{i}] with up[{j}]" for i in range(k) for j in range(k)]
        names += [f"blind down[{i}]" for i in range(k)]
        names += [str(Play(cards)) for cards in sets]
        names += [str(AddDrawn(cards)) for cards in sets]
        super().__init__("palace", names)
        self._forms = sets
        self._form_index: dict[tuple[Card, ...], int] = {c: i for i, c in enumerate(sets)}
        self._blinds = tuple(PlayFaceDown(i) for i in range(k))

    def _form(self, cards: tuple[Card, ...]) -> int | None:
        """The form index of a play's cards, in any order; None for no form."""
        i = self._form_index.get(cards)
        if i is None:
            i = self._form_index.get(_form_key(cards))
        return i

    def index_of(self, command: object, view: Any) -> int | None:
        t = type(command)
        if t is Play or t is AddDrawn:
            i = self._form(command.cards)  # type: ignore[attr-defined]
            if i is None:
                return None
            return (self.play_at if t is Play else self.add_at) + i
        if t is PlayFaceDown:
            i = command.index  # type: ignore[attr-defined]
            return self.blind_at + i if 0 <= i < self.k else None
        if t is Swap:
            return self._swap_slot(command, self._slots(view))  # type: ignore[arg-type]
        return 0 if t is Ready else 1 if t is Pickup else None

    def command_at(self, index: int, view: Any) -> object | None:
        index = self._check(index)
        if index >= self.add_at:
            return AddDrawn(self._forms[index - self.add_at])
        if index >= self.play_at:
            return Play(self._hand_first(self._forms[index - self.play_at], view))
        if index >= self.blind_at:
            return self._blinds[index - self.blind_at]
        if index >= self.swap_at:
            return self._swap_at(index - self.swap_at, view)
        return READY if index == 0 else PICKUP

    def _swap_at(self, slot: int, view: View) -> Swap | None:
        seat = _own_seat(view)
        if seat is None:
            return None
        i, j = divmod(slot, self.k)
        hand, up = _sorted_areas(view, seat)
        if i >= len(hand) or j >= len(up):
            return None
        return Swap(hand[i], up[j])

    @staticmethod
    def _hand_first(cards: tuple[Card, ...], view: View) -> tuple[Card, ...]:
        """A play's cards as a seat lists them: those its hand holds first, then those it plays
        from its face-up cards (``combine_hand_and_up``), each part in card order."""
        seat = _own_seat(view)
        if seat is None:
            return cards
        held = list(view.hands[seat])
        first, rest = [], []
        for card in cards:
            if card in held:
                held.remove(card)
                first.append(card)
            else:
                rest.append(card)
        return (*first, *rest)

    def mask(self, view: Any, legal: Sequence[object]) -> tuple[bool, ...]:
        found: list[int] = []
        form_index, play_at, add_at = self._form_index, self.play_at, self.add_at
        slots: tuple[dict[Card, int], dict[Card, int]] | None = None
        for command in legal:
            t = type(command)
            if t is Play or t is AddDrawn:
                i = form_index.get(command.cards)  # type: ignore[attr-defined]
                if i is None:
                    i = self._form(command.cards)  # type: ignore[attr-defined]
                    if i is None:
                        continue
                found.append((play_at if t is Play else add_at) + i)
                continue
            if t is Swap:
                if slots is None:
                    slots = self._slots(view)
                at = self._swap_slot(command, slots)  # type: ignore[arg-type]
            else:
                at = self.index_of(command, view)
            if at is not None:
                found.append(at)
        return self._masked(tuple(found))

    def _slots(self, view: View) -> tuple[dict[Card, int], dict[Card, int]]:
        """Each card's hand slot and face-up slot, for the seat whose view this is (its first
        slot, for a card held twice); empty when its hand is."""
        seat = _own_seat(view)
        if seat is None:
            return {}, {}
        hand, up = _sorted_areas(view, seat)
        return (
            {c: i for i, c in reversed(list(enumerate(hand[: self.k])))},
            {c: j for j, c in reversed(list(enumerate(up[: self.k])))},
        )

    def _swap_slot(
        self, command: Swap, slots: tuple[dict[Card, int], dict[Card, int]]
    ) -> int | None:
        i, j = slots[0].get(command.hand_card), slots[1].get(command.up_card)
        if i is None or j is None:
            return None
        return self.swap_at + i * self.k + j


make_catalogue = PalaceCatalogue
