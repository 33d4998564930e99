"""What every game's observation and action catalogue share: the card codes, the layout of an
observation (:class:`Field`, :class:`Layout`), the seat-relative order of seats and the
:class:`Catalogue` base.

**Card codes** (one scheme for every game, docs/rl.md#observations): ``0`` no card (an empty
slot, an empty pile's top), ``1..52`` a card, ``Card.index + 1`` (spades A..K are 1..13, hearts
14..26, diamonds 27..39, clubs 40..52), ``53`` a joker, ``54`` a card that is there but face down
to the observer (:data:`cardcore.cards.HIDDEN`). A *card count* field has one position per card
code 1..53 (position ``i`` counts the cards of code ``i + 1``): the form of a zone whose order
does not matter, such as a Palace hand.

**Seats** are written relative to the observer, so one policy can play any seat: a per-seat
field lists the observer first, then the others in seat order from it (``seat + 1``, ``seat + 2``,
... modulo the seat count); a field naming a seat holds ``0`` for nobody, ``1`` for the observer,
``2`` for the next seat, and so on (:class:`Seats`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence, Sized
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, Final, NamedTuple

from ..cards import HIDDEN, JOKER, Card, standard_deck
from ..engine import check_seat
from ..kit import MAX_SEATS

NO_CARD: Final = 0
"""The code of no card: an empty slot or an empty pile's top."""
JOKER_CODE: Final = 53
HIDDEN_CODE: Final = 54
"""The code of a card that is there but face down to the observer."""
CARD_CODES: Final = 53
"""Card codes 1..53 (a card or a joker): the positions of a card count field."""

CODE: Final[dict[object, int]] = {c: c.index + 1 for c in (*standard_deck(), JOKER)}
"""A card's code (``CODE[card]``), and :data:`HIDDEN`'s; ``None`` is :data:`NO_CARD`."""
CODE[HIDDEN] = HIDDEN_CODE
CODE[None] = NO_CARD

CARD_OF_CODE: Final[tuple[Card | None, ...]] = (None, *standard_deck(), JOKER)
"""The card of each code 0..53 (None for code 0)."""


def code_of(card: object) -> int:
    """The code of a card, :data:`HIDDEN` or None (the module docstring's scheme)."""
    return CODE[card]


@dataclass(frozen=True, slots=True)
class Field:
    """``size`` consecutive integers of an observation, each in ``[low, high]``."""

    name: str
    size: int
    low: int
    high: int
    doc: str


@dataclass(frozen=True, slots=True)
class Layout:
    """The fields of a game's observations under one setup, in order. Fixed for a setup:
    ``len(encode(view, seat)) == layout.size`` for every view of such a game."""

    fields: tuple[Field, ...]

    @property
    def size(self) -> int:
        return sum(f.size for f in self.fields)

    def lows(self) -> tuple[int, ...]:
        """The least value of each position."""
        return tuple(f.low for f in self.fields for _ in range(f.size))

    def highs(self) -> tuple[int, ...]:
        """The greatest value of each position."""
        return tuple(f.high for f in self.fields for _ in range(f.size))

    def span(self, name: str) -> slice:
        """The positions of field ``name`` (``observation[layout.span("hand")]``); raises
        ``KeyError`` for a field the layout does not have."""
        at = 0
        for f in self.fields:
            if f.name == name:
                return slice(at, at + f.size)
            at += f.size
        raise KeyError(f"no field {name!r} in this layout: {', '.join(self.names())}")

    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)


class Seats(NamedTuple):
    """How observer ``seat`` of an ``n``-seat game lists and names seats (built once per pair)."""

    order: tuple[int, ...]
    """The seats in the observer's order: itself, then the others in seat order from it."""
    codes: tuple[int, ...]
    """``codes[s]``: how a field naming seat ``s`` writes it (1 the observer, 2 the next, ...)."""
    pick: Callable[[Sequence[Any]], tuple[Any, ...]]
    """A per-seat sequence in the observer's order (an ``itemgetter`` of ``order``)."""
    zeros: tuple[int, ...]
    """``n`` zeros: a per-seat flag field where no seat has the flag."""


def _seats(n: int, seat: int) -> Seats:
    order = tuple((seat + k) % n for k in range(n))
    pick = itemgetter(*order) if n > 1 else lambda seq: (seq[order[0]],)
    return Seats(order, tuple((s - seat) % n + 1 for s in range(n)), pick, (0,) * n)


_SEATS: Final = tuple(tuple(_seats(n, seat) for seat in range(n)) for n in range(MAX_SEATS + 1))


def seats_for(seats: int, seat: int) -> Seats:
    """The :class:`Seats` of observer ``seat`` in a ``seats``-seat game. Raises
    :class:`~cardcore.errors.InvalidSeat` for a seat that is not one of ``seats``."""
    if type(seat) is not int or not 0 <= seat < seats:
        check_seat(seats, seat)  # raises, naming what is wrong
    return _SEATS[seats][seat]


def flags(members: tuple[int, ...], table: Seats) -> tuple[int, ...]:
    """A per-seat flag field: 1 for each seat of ``members``, in the observer's order."""
    if not members:
        return table.zeros
    return _flags(members, table.order)


@functools.lru_cache(maxsize=4096)
def _flags(members: tuple[int, ...], order: tuple[int, ...]) -> tuple[int, ...]:
    return tuple([1 if s in members else 0 for s in order])


def lengths(zones: Sequence[Sized], order: tuple[int, ...]) -> tuple[int, ...] | list[int]:
    """A per-seat size field: the size of each seat's zone, in the observer's ``order`` (two
    seats, the common case, without a comprehension: a third of the time)."""
    if len(order) == 2:
        a, b = order
        return len(zones[a]), len(zones[b])
    return [len(zones[s]) for s in order]


PAD: Final = tuple((NO_CARD,) * k for k in range(16))
"""``PAD[k]``: ``k`` codes of no card, to fill the top cards of a short pile."""


def card_counts(cards: Iterable[Card]) -> list[int]:
    """A card count field (:data:`CARD_CODES` positions) of face-up ``cards``."""
    out = [0] * CARD_CODES
    for card in cards:  # a plain loop: faster here than any map or Counter (timeit, 3.11)
        out[card.index] += 1
    return out


MASKS_KEPT: Final = 4096
"""Masks a catalogue keeps once built (:meth:`Catalogue._masked`)."""


class Catalogue:
    """A game's fixed discrete actions under one setup: action ``i`` is :meth:`name` ``(i)``;
    :meth:`command_at` builds the command it means for the seat whose view is given (its
    expectations None), :meth:`index_of` finds a command's action, :meth:`mask` marks the
    actions some legal command maps to. A subclass per game fills ``_names`` and the three
    methods. ``Resign`` is never an action: an agent never resigns."""

    game: str
    _names: tuple[str, ...]

    def __init__(self, game: str, names: Sequence[str]) -> None:
        self.game = game
        self._names = tuple(names)
        self._blank = [False] * len(self._names)
        self._masks: dict[tuple[int, ...], tuple[bool, ...]] = {(): tuple(self._blank)}

    def _masked(self, indices: tuple[int, ...]) -> tuple[bool, ...]:
        """The mask with exactly ``indices`` True. Masks repeat (a seat's few choices recur), and
        a long tuple costs microseconds to build: each is built once and kept (up to
        :data:`MASKS_KEPT` of them; beyond, built every time)."""
        mask = self._masks.get(indices)
        if mask is None:
            out = self._blank.copy()
            for i in indices:
                out[i] = True
            mask = tuple(out)
            if len(self._masks) < MASKS_KEPT:
                self._masks[indices] = mask
        return mask

    @property
    def size(self) -> int:
        """The number of actions (fixed for the setup)."""
        return len(self._names)

    def name(self, index: int) -> str:
        """What action ``index`` does, in words (``"play hand[2] on centre[1]"``)."""
        return self._names[self._check(index)]

    def names(self) -> tuple[str, ...]:
        return self._names

    def _check(self, index: int) -> int:
        if type(index) is not int or not 0 <= index < len(self._names):
            raise ValueError(
                f"{self.game}: no action {index!r} (the catalogue has {len(self._names)}, 0 to "
                f"{len(self._names) - 1})"
            )
        return index

    def index_of(self, command: object, view: Any) -> int | None:
        """The action of ``command`` (expectations ignored) for the seat whose ``view`` this is;
        None for a command this catalogue does not offer (``Resign``, Speed's multi-card run)."""
        raise NotImplementedError

    def command_at(self, index: int, view: Any) -> object | None:
        """The command action ``index`` means now for the seat whose ``view`` this is (its
        expectations None); None when it means nothing now (an empty slot)."""
        raise NotImplementedError

    def mask(self, view: Any, legal: Sequence[object]) -> tuple[bool, ...]:
        """``size`` booleans: True where some command of ``legal`` (the seat's legal commands)
        maps to that action."""
        index_of = self.index_of
        found = [index_of(command, view) for command in legal]
        return self._masked(tuple([i for i in found if i is not None]))
