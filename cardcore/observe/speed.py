"""Speed's observation and actions (docs/rl.md#speed-observation,
docs/rl.md#speed-actions).

A seat sees its own hand and the centre tops; every other card only as a count. The observation
holds the seat's hand slot by slot (in hand order, the order of the actions' slots), every
pile's size, the centre tops, the calls, the scores and the round's phase.

The actions: a play of hand slot ``i`` onto centre pile ``j`` (``hand_size × 2``), ``flip``, and
``draw`` (with ``auto_refill`` off). A run of several cards (``multi_card_play``) is not an
action: :meth:`SpeedCatalogue.index_of` is None for it.

**The stalemate flip.** The rules let a seat call a stalemate flip only while no card of *either*
hand fits a centre pile (docs/games/speed.md#stalemate), and the other hand is hidden from it, so
whether ``flip`` is among its legal commands says something about a card it cannot see. The mask
does not use it: it marks ``flip`` during play when the seat's own legal commands hold no play
and no draw and both hands are as full as their draw piles allow (what the seat sees). When the
other hand holds a fitting card the rules refuse the call (``NotStuck``): the same thing a player
learns whose call is refused, and all of it the call discloses.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from typing import Any, Final

from ..cards import HIDDEN, Card, SeenCard
from ..engine import Setup
from ..games.speed import DRAW, FLIP, Draw, Flip, Play, Rules, View, personal_size
from .base import CARD_CODES, CODE, HIDDEN_CODE, NO_CARD, PAD, Catalogue, Field, Layout, seats_for

HAND_SLOTS: Final = next(f for f in dataclasses.fields(Rules) if f.name == "hand_size").metadata[
    "max"
]
"""The hand's slots in an observation: the most cards a hand may hold (``hand_size``'s bound),
so that a view alone fixes the observation's size; slots past ``hand_size`` stay 0."""

_PHASES: Final = {"READY": 0, "PLAY": 1, "OVER": 2}


def layout(setup: Setup[Rules]) -> Layout:
    """The fields of :func:`encode` for ``setup``."""
    rules = setup.rules
    deck = 52 + rules.jokers
    personal = personal_size(rules)
    if rules.target_score is not None:  # scores stop growing once one reaches the target
        most = rules.target_score - 1 + personal
    else:
        most = (rules.best_of or 1) * personal
    # Rounds won: best_of bounds them; under a target score a round may score nothing, so only
    # the event limit does.
    wins = (rules.best_of or 1) if rules.target_score is None else setup.event_limit
    return Layout(
        (
            Field("phase", 1, 0, 2, "0 ready (before the start flip), 1 play, 2 over"),
            Field("hand", HAND_SLOTS, 0, HIDDEN_CODE - 1, "the observer's hand, slot by slot"),
            Field("hand_size", 2, 0, rules.hand_size, "cards in each hand (observer first)"),
            Field("draw", 2, 0, personal, "cards in each draw pile"),
            Field("side", 2, 0, deck, "cards in side piles 0 and 1"),
            Field("centre", 2, 0, deck, "cards in centre piles 0 and 1"),
            Field("centre_top", 2, 0, HIDDEN_CODE, "the centre tops (54: face down)"),
            Field("called", 2, 0, 1, "1: that seat has called flip"),
            Field("score", 2, 0, most, "each seat's score"),
            Field("wins", 2, 0, wins, "rounds each seat has won"),
        )
    )


def encode(view: View, seat: int) -> tuple[int, ...]:
    """Seat ``seat``'s observation from its ``view`` (:func:`layout`'s fields)."""
    other = seats_for(2, seat).order[1]
    hands, draws, sides, calls, scores, wins = (
        view.hands,
        view.draws,
        view.sides,
        view.calls,
        view.scores,
        view.wins,
    )
    hand = hands[seat]
    if hand and hand[0] is HIDDEN:
        raise ValueError(f"not seat {seat}'s view: its hand is face down in it")
    c0, c1 = view.centre
    return (
        _PHASES[view.phase],
        *_hand_slots(hand),
        len(hand),
        len(hands[other]),
        len(draws[seat]),
        len(draws[other]),
        len(sides[0]),
        len(sides[1]),
        len(c0),
        len(c1),
        CODE[c0[-1]] if c0 else NO_CARD,
        CODE[c1[-1]] if c1 else NO_CARD,
        1 if seat in calls else 0,
        1 if other in calls else 0,
        scores[seat],
        scores[other],
        wins[seat],
        wins[other],
    )


@functools.lru_cache(maxsize=4096)
def _hand_slots(hand: tuple[SeenCard, ...]) -> tuple[int, ...]:
    """The ``hand`` field: worked out once per hand, which most steps leave as it was."""
    return (*[CODE[c] for c in hand], *PAD[HAND_SLOTS - len(hand)])


class SpeedCatalogue(Catalogue):
    """Speed's actions under one setup (the module docstring)."""

    def __init__(self, setup: Setup[Rules]) -> None:
        rules = setup.rules
        h = self.hand_size = rules.hand_size
        names = [f"play hand[{i}] on centre[{j}]" for i in range(h) for j in (0, 1)]
        self.flip_at = 2 * h
        self.draw_at = None if rules.auto_refill else self.flip_at + 1
        names.append("flip")
        if self.draw_at is not None:
            names.append("draw")
        super().__init__("speed", names)
        self._plays: list[Play | None] = [None] * (2 * CARD_CODES)
        """The play of card code ``k + 1`` onto pile ``j`` at ``2 * k + j``, once built."""

    def index_of(self, command: object, view: Any) -> int | None:
        t = type(command)
        if t is Play:
            return self._play_index(command, _own_hand(view))  # type: ignore[arg-type]
        if t is Flip:
            return self.flip_at
        return self.draw_at if t is Draw else None

    def _play_index(self, command: Play, hand: tuple[Any, ...]) -> int | None:
        to = command.to
        if command.then or (to != 0 and to != 1):
            return None  # a run, or no such pile
        i = _slot(hand, command.card)
        return 2 * i + to if 0 <= i < self.hand_size else None

    def command_at(self, index: int, view: Any) -> object | None:
        index = self._check(index)
        if index == self.flip_at:
            return FLIP
        if index == self.draw_at:
            return DRAW
        i, to = divmod(index, 2)
        hand = _own_hand(view)
        if i >= len(hand):
            return None
        # Plays are values (frozen, compared by their fields) and a card is interned with its
        # own index: each play is built once (building one checks its fields: 2 us).
        card: Card = hand[i]
        key = 2 * card.index + to
        play = self._plays[key]
        if play is None or play.card is not card:
            play = self._plays[key] = Play(card, to)
        return play

    def mask(self, view: Any, legal: Sequence[object]) -> tuple[bool, ...]:
        found: list[int] = []
        acts = False  # the seat has a play or a draw of its own
        hand: tuple[Any, ...] | None = None
        for command in legal:
            t = type(command)
            if t is Play:
                acts = True
                if hand is None:
                    hand = _own_hand(view)
                if command.then:  # type: ignore[attr-defined]
                    continue  # a run (multi_card_play) is no action
                slot = _slot(hand, command.card)  # type: ignore[attr-defined]
                i = 2 * slot + command.to  # type: ignore[attr-defined]
                if slot >= 0 and i < self.flip_at:
                    found.append(i)
            elif t is Draw:
                acts = True
                if self.draw_at is not None:
                    found.append(self.draw_at)
            elif t is Flip and view.phase == "READY":
                found.append(self.flip_at)  # the start call
        if not acts and view.phase == "PLAY" and view.winner is None and self._hands_full(view):
            found.append(self.flip_at)
        return self._masked(tuple(found))

    def _hands_full(self, view: View) -> bool:
        """Each hand is as full as its draw pile allows (sizes: what every seat sees)."""
        (h0, h1), (d0, d1), h = view.hands, view.draws, self.hand_size
        return (not d0 or len(h0) >= h) and (not d1 or len(h1) >= h)


def _slot(hand: tuple[Any, ...], card: object) -> int:
    """The first slot of ``hand`` holding ``card``, or -1. By identity, which is equality for
    cards (interned: one object per card, :class:`~cardcore.cards.Card`), where ``in`` and
    ``index`` compare through ``Card``'s Python comparison slots (it defines ``__lt__``): a
    quarter of a microsecond per card passed, two thirds of a mask's cost."""
    for i, held in enumerate(hand):
        if held is card:
            return i
    return -1


def _own_hand(view: View) -> tuple[Any, ...]:
    """The hand of the seat whose view this is: the one hand a seat's view shows face up (empty
    when that seat's hand is empty)."""
    for hand in view.hands:
        if hand and hand[0] is not HIDDEN:
            return hand
    return ()


make_catalogue = SpeedCatalogue
