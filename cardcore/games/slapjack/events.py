"""Slapjack's events (docs/games/slapjack.md): native classes (issue 24). Each is a plain class with
annotated attributes and an ``__init__`` that takes them in order, which mypyc compiles to a C
struct the rules build and read natively; :func:`cardcore.kit.native_records` (below) gives them,
once, what the codec, ``match``, ``==``, ``repr`` and ``str`` read of a record (their annotations
and dataclass fields), frozen as a record is.
"""

from __future__ import annotations

from typing import Final, Literal

from ... import kit
from ...cards import Card, SeenCard

SlapTarget = Literal["jack", "double", "sandwich"]


class Dealt:
    """The deck was shuffled and dealt: each seat's stack, top first (face down to everyone)."""

    __match_args__: Final = ("stacks",)
    stacks: tuple[tuple[SeenCard, ...], ...]

    def __init__(self, stacks: tuple[tuple[SeenCard, ...], ...]) -> None:
        self.stacks = stacks


class CardPlayed:
    """``seat`` turned ``card`` face up onto the pile; ``current`` plays next (None: nobody holds
    a card and the pile must be slapped, docs/games/slapjack.md#playing-a-card, step 3)."""

    __match_args__: Final = ("seat", "card", "current")
    seat: int
    card: Card
    current: int | None

    def __init__(self, seat: int, card: Card, current: int | None) -> None:
        self.seat = seat
        self.card = card
        self.current = current


class Slapped:
    """``seat`` slapped: on the ``target`` made of the ``pattern`` cards, or a false slap."""

    __match_args__: Final = ("seat", "valid", "target", "pattern")
    seat: int
    valid: bool
    target: SlapTarget | None
    pattern: tuple[Card, ...]

    def __init__(
        self, seat: int, valid: bool, target: SlapTarget | None, pattern: tuple[Card, ...]
    ) -> None:
        self.seat = seat
        self.valid = valid
        self.target = target
        self.pattern = pattern


class PileTaken:
    """``seat`` put the whole pile (``cards`` of them, burned ones included) under its stack, by a
    slap or because nobody else held a card (``"return"``, docs/games/slapjack.md#playing-a-card,
    step 3, or the last holder resigned: see :func:`_decide_resign`); ``current`` plays next."""

    __match_args__: Final = ("seat", "cards", "by", "current")
    seat: int
    cards: int
    by: Literal["slap", "return"]
    current: int

    def __init__(self, seat: int, cards: int, by: Literal["slap", "return"], current: int) -> None:
        self.seat = seat
        self.cards = cards
        self.by = by
        self.current = current


class StackShuffled:
    """``seat``'s whole stack was shuffled (``shuffle_after_win``) into ``stack``, top first.
    Stream ``shuffles + 1`` of the seed; nobody but the referee sees the order."""

    __match_args__: Final = ("seat", "stack")
    seat: int
    stack: tuple[SeenCard, ...]

    def __init__(self, seat: int, stack: tuple[SeenCard, ...]) -> None:
        self.seat = seat
        self.stack = stack


class PenaltyPaid:
    """A false slapper's top card went face down to the bottom of seat ``to``'s stack. Nobody but
    the referee sees the card."""

    __match_args__: Final = ("seat", "card", "to")
    seat: int
    card: SeenCard
    to: int

    def __init__(self, seat: int, card: SeenCard, to: int) -> None:
        self.seat = seat
        self.card = card
        self.to = to


class TurnPassed:
    """The turn moved to ``current`` (the current player paid their last card in a penalty)."""

    __match_args__: Final = ("current",)
    current: int | None

    def __init__(self, current: int | None) -> None:
        self.current = current


class PlayerEliminated:
    """``seat`` is out of the game: it missed the Jack it was waiting for, false-slapped with no
    cards, or ran out of cards under ``out_of_cards="eliminate_now"``."""

    __match_args__: Final = ("seat",)
    seat: int

    def __init__(self, seat: int) -> None:
        self.seat = seat


class Resigned:
    """``seat`` left the game (docs/games/common.md#leaving-a-game) and is eliminated. Its whole
    ``stack`` (top first; face down to everyone, the referee excepted) went under the pile in that
    order: the first card of ``stack`` is now the very bottom card, so whoever takes the pile draws
    them as the resigner would have played them. ``current`` plays next (the turn passed if it was
    ``seat``'s). ``winner``: the other player, when only two were in the game; the game is over
    (``RESIGNED``), else None."""

    __match_args__: Final = ("seat", "stack", "current", "winner")
    seat: int
    stack: tuple[SeenCard, ...]
    current: int | None
    winner: int | None

    def __init__(
        self, seat: int, stack: tuple[SeenCard, ...], current: int | None, winner: int | None
    ) -> None:
        self.seat = seat
        self.stack = stack
        self.current = current
        self.winner = winner


Event = (
    Dealt
    | CardPlayed
    | Slapped
    | PileTaken
    | StackShuffled
    | PenaltyPaid
    | TurnPassed
    | PlayerEliminated
    | Resigned
)


kit.native_records(Event)
