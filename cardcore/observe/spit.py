"""Spit's observation and actions (docs/rl.md#spit-observation,
docs/rl.md#spit-actions).

A seat sees the face-up cards of both layouts and the spit piles; face-down cards (its own
included) only as counts. The observation holds, for each stock pile of each layout (the
observer's first), its face-down and face-up counts and its top card; the spit cards each seat
holds; the spit piles' sizes and tops; the calls, the lock, the chooser, whether play is stuck,
and the phase.

The actions, by pile numbers (fixed for a setup of ``P = num_stock_piles``): play stock pile
``i`` onto spit pile ``j`` (``P × 2``), flip stock pile ``i`` (``P``), move stock pile ``i`` into
the space ``k`` (``P × (P − 1)``), stack ``i`` onto ``k`` (``P × (P − 1)``, with
``stack_equal_in_layout`` only), spit (alone, or naming spit pile 0 or 1), slap spit pile ``j``,
take spit pile ``j`` (with ``pile_claim="choose"`` only). A play carries no expectation
(``expect_top`` None).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Final

from ..cards import HIDDEN, SeenCard
from ..engine import Setup
from ..games.spit import Flip, Move, Play, Rules, Slap, Spit, Stack, TakePile, View
from .base import CODE, HIDDEN_CODE, MASKS_KEPT, NO_CARD, Catalogue, Field, Layout, seats_for

_PHASES: Final = {"READY": 0, "PLAY": 1, "SLAP": 2, "CHOOSE": 3, "OVER": 4}
DECK: Final = 52


def layout(setup: Setup[Rules]) -> Layout:
    """The fields of :func:`encode` for ``setup``."""
    p = 2 * setup.rules.num_stock_piles
    return Layout(
        (
            Field("phase", 1, 0, 4, "0 ready, 1 play, 2 slap for the spit piles, 3 choose, 4 over"),
            Field("down", p, 0, DECK, "face-down cards of each stock pile (observer's first)"),
            Field("up", p, 0, DECK, "face-up cards of each stock pile"),
            Field("top", p, 0, HIDDEN_CODE, "each stock pile's top card (0 empty, 54 face down)"),
            Field("spit_cards", 2, 0, DECK, "each seat's spit cards"),
            Field("spit_pile", 2, 0, DECK, "cards in spit piles 0 and 1 (0: no such pile)"),
            Field("spit_top", 2, 0, HIDDEN_CODE - 1, "their top cards"),
            Field("called", 2, 0, 1, "1: that seat has called Spit!"),
            Field("call_target", 2, 0, 2, "the spit pile its call named, + 1 (0 none)"),
            Field("locked", 1, 0, 2, "the spit pile the lone spits are locked to, + 1 (0 none)"),
            Field("chooser", 1, 0, 2, "who chooses a spit pile (seat code; 0 nobody)"),
            Field("stuck", 1, 0, 1, "1: neither seat can play (a stalemate call is due)"),
            Field("winner", 1, 0, 2, "who won (seat code; 0 nobody yet)"),
        )
    )


def encode(view: View, seat: int) -> tuple[int, ...]:
    """Seat ``seat``'s observation from its ``view`` (:func:`layout`'s fields)."""
    table = seats_for(2, seat)
    codes, other = table.codes, table.order[1]
    mine, theirs = map(_layout_fields, table.pick(view.layouts))
    counts, called, targets = view.spit_counts, view.called, view.call_targets
    s0, s1 = view.spit_piles
    t0, t1 = targets[seat], targets[other]
    chooser, winner, locked = view.chooser, view.winner, view.locked
    return (
        _PHASES[view.phase],
        *mine[0],
        *theirs[0],
        *mine[1],
        *theirs[1],
        *mine[2],
        *theirs[2],
        counts[seat],
        counts[other],
        len(s0),
        len(s1),
        CODE[s0[-1]] if s0 else NO_CARD,
        CODE[s1[-1]] if s1 else NO_CARD,
        1 if called[seat] else 0,
        1 if called[other] else 0,
        0 if t0 is None else t0 + 1,
        0 if t1 is None else t1 + 1,
        0 if locked is None else locked + 1,
        0 if chooser is None else codes[chooser],
        1 if view.stuck else 0,
        0 if winner is None else codes[winner],
    )


Piles = tuple[tuple[SeenCard, ...], ...]


@functools.lru_cache(maxsize=4096)
def _layout_fields(layout: Piles) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """One seat's ``down``, ``up`` and ``top`` fields, kept for the next observation that shows
    the same layout (most actions change one layout of two)."""
    downs = tuple([pile.count(HIDDEN) for pile in layout])
    ups = tuple([len(pile) - down for pile, down in zip(layout, downs, strict=True)])
    return downs, ups, tuple([CODE[pile[-1]] if pile else NO_CARD for pile in layout])


class SpitCatalogue(Catalogue):
    """Spit's actions under one setup (the module docstring)."""

    def __init__(self, setup: Setup[Rules]) -> None:
        rules = setup.rules
        p = self.piles = rules.num_stock_piles
        pairs = [(i, k) for i in range(p) for k in range(p) if k != i]
        self._pair_at = {pair: n for n, pair in enumerate(pairs)}
        commands: list[object] = [Play(i, j) for i in range(p) for j in (0, 1)]
        commands += [Flip(i) for i in range(p)]
        commands += [Move(i, k) for i, k in pairs]
        if rules.stack_equal_in_layout:
            commands += [Stack(i, k) for i, k in pairs]
        commands += [Spit(), Spit(0), Spit(1), Slap(0), Slap(1)]
        if rules.pile_claim == "choose":
            commands += [TakePile(0), TakePile(1)]
        self._commands = tuple(commands)
        self._known: dict[int, tuple[object, int | None]] = {}
        self._at: dict[type, int] = {}
        for n, command in reversed(list(enumerate(commands))):
            self._at[type(command)] = n  # each kind's first action
        super().__init__("spit", [_name(c) for c in commands])

    def index_of(self, command: object, view: Any) -> int | None:
        t = type(command)
        at = self._at.get(t)
        if at is None:
            return None
        p = self.piles
        if t is Play:
            i: int = command.source  # type: ignore[attr-defined]
            j: int = command.target  # type: ignore[attr-defined]
            return at + 2 * i + j if 0 <= i < p and (j == 0 or j == 1) else None
        if t is Flip:
            i = command.pile  # type: ignore[attr-defined]
            return at + i if 0 <= i < p else None
        if t is Move or t is Stack:
            n = self._pair_at.get((command.source, command.target))  # type: ignore[attr-defined]
            return None if n is None else at + n
        target: int | None = command.target  # type: ignore[attr-defined]
        if t is Spit and target is None:
            return at
        if target != 0 and target != 1:
            return None
        return at + 1 + target if t is Spit else at + target

    def command_at(self, index: int, view: Any) -> object | None:
        return self._commands[self._check(index)]

    def mask(self, view: Any, legal: Sequence[object]) -> tuple[bool, ...]:
        # A Spit action does not depend on the view, and the rules list the same command
        # objects again and again (built once, in tables): each one's action is looked up by
        # its identity, once found.
        known, found = self._known, []
        for command in legal:
            hit = known.get(id(command))
            i = hit[1] if hit is not None else self._learn(command)
            if i is not None:
                found.append(i)
        return self._masked(tuple(found))

    def _learn(self, command: object) -> int | None:
        i = self.index_of(command, None)
        if len(self._known) < MASKS_KEPT:  # held, so its id stays its own
            self._known[id(command)] = (command, i)
        return i


def _name(command: object) -> str:
    """An action's name, in pile words: ``"play stock[2] on spit[1]"``."""
    if isinstance(command, Play):
        return f"play stock[{command.source}] on spit[{command.target}]"
    if isinstance(command, Flip):
        return f"flip stock[{command.pile}]"
    if isinstance(command, Move):
        return f"move stock[{command.source}] to space stock[{command.target}]"
    if isinstance(command, Stack):
        return f"stack stock[{command.source}] on stock[{command.target}]"
    if isinstance(command, Spit):
        return "spit" if command.target is None else f"spit onto spit[{command.target}]"
    if isinstance(command, Slap):
        return f"slap spit[{command.target}]"
    assert isinstance(command, TakePile)
    return f"take spit[{command.target}]"


make_catalogue = SpitCatalogue
