"""Playing cards: interned, hashable value objects with a text round-trip.

A card is written rank + suit letter, ``"QS"``, ``"10H"``, ``"AD"``; a joker is ``"JK"``.
:meth:`Card.parse` also accepts the suit symbols of the rules pages (``"Q♠"``,
docs/games/common.md#cards) and ``T`` for ten. Every card is a shared instance (``Card.parse("QS")
is Card.parse("QS")``), so building a deck or comparing cards allocates nothing; two physical cards
of the same rank and suit from two decks are the same value, which is all any rule looks at
(docs/games/ratscrew.md#decisions, item 14).

Zones are written as in docs/games/common.md#piles: personal stacks top first, table piles bottom
first.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from ._mypyc import compiled_class

RANKS: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: Final = ("S", "H", "D", "C")
SUIT_SYMBOLS: Final = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_SYMBOL_TO_SUIT: Final = {v: k for k, v in SUIT_SYMBOLS.items()}

JOKER_RANK: Final = 0
"""Rank index of a joker; ranks A..K are 1..13 (docs/games/common.md#cards)."""


class Card:
    """One playing card. Use :meth:`parse` or :meth:`of`; instances are interned.

    ``rank`` is 1 (ace) .. 13 (king), or 0 for a joker; ``suit`` is one of ``S H D C``
    (``""`` for a joker); ``index`` is a small integer unique to the card value (0..52).
    """

    __slots__ = ("index", "rank", "suit", "text")

    index: int
    rank: int
    suit: str
    text: str

    def __init__(self, index: int, rank: int, suit: str, text: str, key: object = None) -> None:
        # Made once per card, by this module (_build); never by a user, who gets the card.
        if key is not _INTERNING:
            raise TypeError("use Card.parse('QS') or Card.of(rank, suit)")
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "rank", rank)
        object.__setattr__(self, "suit", suit)
        object.__setattr__(self, "text", text)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Card.parse, (self.text,))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self

    def __hash__(self) -> int:
        # Declared for the compiled build: a class that orders (__lt__) gets no hash unless it
        # inherits one, and a class compiled by mypyc inherits none (cards are dict keys). The
        # interpreted build deletes it below and keeps object's, in C.
        return self.index

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card.parse({self.text!r})"

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    # Cards are interned, so equality is identity, as object's is. It is declared because a
    # class that orders (__lt__) gets CPython's generic rich comparison for == too, which looks
    # __eq__ up by name on every call: 290 ns a comparison against 120 ns with these (timeit,
    # Python 3.11), paid for each element of every `in`, `.index` and `.count` on cards in the
    # rules. Anything but a card is left to the other operand, as object's == leaves it.
    def __eq__(self, other: object) -> bool:
        return self is other if type(other) is Card else NotImplemented

    def __ne__(self, other: object) -> bool:
        return self is not other if type(other) is Card else NotImplemented

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER_RANK

    @property
    def is_red(self) -> bool:
        """Hearts and diamonds are red (docs/games/common.md#cards); a joker has no colour."""
        return self.suit in ("H", "D")

    @property
    def rank_text(self) -> str:
        return "JK" if self.rank == JOKER_RANK else RANKS[self.rank - 1]

    @property
    def symbol(self) -> str:
        """The card as the rules pages write it (docs/games/common.md#cards): ``"10♥"``, ``"Q♠"``,
        ``"JK"``."""
        if self.rank == JOKER_RANK:
            return "JK"
        return RANKS[self.rank - 1] + SUIT_SYMBOLS[self.suit]

    @staticmethod
    def of(rank: int, suit: str) -> Card:
        """The card of rank index 1..13 (0 = joker, suit ignored) and suit letter."""
        if rank == JOKER_RANK:
            return JOKER
        if not 1 <= rank <= 13 or suit not in SUITS:
            raise ValueError(f"no such card: rank={rank!r} suit={suit!r}")
        return _BY_INDEX[SUITS.index(suit) * 13 + rank - 1]

    @staticmethod
    def parse(text: str) -> Card:
        """Parse ``"QS"``, ``"10H"``, ``"TH"``, ``"Q♠"`` or ``"JK"``; raises ``ValueError``."""
        card = _BY_TEXT.get(text)
        if card is not None:
            return card
        raw = text.strip().upper()
        if raw in ("JK", "JOKER"):
            return JOKER
        if len(raw) >= 2:
            rank_text, suit_text = raw[:-1], raw[-1]
            suit_text = _SYMBOL_TO_SUIT.get(text.strip()[-1], suit_text)
            if rank_text == "T":
                rank_text = "10"
            if rank_text in RANKS and suit_text in SUITS:
                return Card.of(RANKS.index(rank_text) + 1, suit_text)
        raise ValueError(f"not a card: {text!r} (expected e.g. 'QS', '10H', 'Q♠' or 'JK')")


if not compiled_class(Card):  # interpreted: object's hash, 3-5 % of Spit's step
    del Card.__hash__

_INTERNING: Final = object()
"""The key of :class:`Card`'s constructor: only :func:`_build` makes cards."""


def _build() -> tuple[tuple[Card, ...], Card]:
    cards = [
        Card(s * 13 + r - 1, r, suit, RANKS[r - 1] + suit, _INTERNING)
        for s, suit in enumerate(SUITS)
        for r in range(1, 14)
    ]
    return tuple(cards), Card(52, JOKER_RANK, "", "JK", _INTERNING)


_BY_INDEX, JOKER = _build()
_BY_TEXT: Final = {c.text: c for c in (*_BY_INDEX, JOKER)}


class Hidden:
    """The face-down card: what a redacted view or event shows for a card the viewer may not see.

    There is one instance, :data:`HIDDEN`; it is written ``"??"``.
    """

    __slots__ = ()
    text: Final = "??"

    def __str__(self) -> str:
        return "??"

    def __repr__(self) -> str:
        return "HIDDEN"

    def __reduce__(self) -> str:
        return "HIDDEN"


HIDDEN: Final = Hidden()

SeenCard = Card | Hidden
"""A card as one viewer sees it: its face, or :data:`HIDDEN`."""

_CARDS_ONLY: Final = frozenset({Card})
_NATIVE: Final = compiled_class(Card)
"""Whether this module is the compiled one (:func:`known` reads cards natively there)."""


def known(seen: Iterable[SeenCard]) -> tuple[Card, ...]:
    """The known cards of ``seen`` (those that are not :data:`HIDDEN`), in order: how a game's
    ``evolve`` reads the cards of an event it is given. That event is the full one (every card
    known), so ``seen`` itself is returned when it is a tuple of cards, found in C by their types
    (a Python step per card costs twice as much, and a deal reads every card); compiled, by a
    native loop (there ``map(type, ...)`` is a call through Python per card: 3x as long)."""
    if type(seen) is tuple:
        if not _NATIVE:
            if _CARDS_ONLY.issuperset(map(type, seen)):
                return seen  # every entry is a Card
        elif all(type(c) is Card for c in seen):  # mypyc's own loop, no generator
            return seen
    return tuple(c for c in seen if isinstance(c, Card))


def standard_deck(num_decks: int = 1, jokers_per_deck: int = 0) -> list[Card]:
    """Unshuffled deck(s): suits S H D C, each A..K, then jokers; deck after deck."""
    one = list(_BY_INDEX) + [JOKER] * jokers_per_deck
    return one * num_decks


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse a space- or comma-separated list of cards, e.g. ``"KC 3D"`` (for tests)."""
    return tuple(Card.parse(t) for t in text.replace(",", " ").split())


def rank_name(rank: int) -> str:
    """``"A"``, ``"10"``, ``"K"`` or ``"JK"`` for a rank index."""
    return "JK" if rank == JOKER_RANK else RANKS[rank - 1]


def ranks_adjacent(a: int, b: int, *, wrap: bool = True) -> bool:
    """True iff rank indices differ by one, with K–A–2 adjacency when ``wrap``
    (docs/games/common.md#cards)."""
    if a == JOKER_RANK or b == JOKER_RANK:
        return False
    d = abs(a - b)
    return d == 1 or (wrap and d == 12)
