"""Egyptian Ratscrew's events (docs/games/ratscrew.md): native classes (issue 24). Each is a plain
class with annotated attributes and an ``__init__`` that takes them in order, which mypyc compiles
to a C struct the rules build and read natively; :func:`cardcore.kit.native_records` (below) gives
them, once, what the codec, ``match``, ``==``, ``repr`` and ``str`` read of a record (their
annotations and dataclass fields), frozen as a record is.
"""

from __future__ import annotations

from typing import Final, Literal

from ... import kit
from ...cards import Card, SeenCard

SlapRule = Literal[
    "double", "sandwich", "top_bottom", "tens", "four_in_a_row", "marriage", "divorce", "joker"
]


class Dealt:
    """The deck was shuffled and dealt: each seat's stack, top first (face down to everyone)."""

    __match_args__: Final = ("stacks",)
    stacks: tuple[tuple[SeenCard, ...], ...]

    def __init__(self, stacks: tuple[tuple[SeenCard, ...], ...]) -> None:
        self.stacks = stacks


class CardPlayed:
    """``seat`` turned ``card`` face up onto the pile. ``current`` is who plays next (None while
    the pile is owed); ``challenge`` is ``(challenger, cards still owed)`` or None."""

    __match_args__: Final = ("seat", "card", "current", "challenge")
    seat: int
    card: Card
    current: int | None
    challenge: tuple[int, int] | None

    def __init__(
        self, seat: int, card: Card, current: int | None, challenge: tuple[int, int] | None
    ) -> None:
        self.seat = seat
        self.card = card
        self.current = current
        self.challenge = challenge


class PileOwed:
    """The challenge was lost (or nobody can play on): the pile is owed to ``seat``."""

    __match_args__: Final = ("seat",)
    seat: int

    def __init__(self, seat: int) -> None:
        self.seat = seat


class Slapped:
    """``seat`` slapped: ``rule`` it matched with the ``pattern`` cards, or a false slap."""

    __match_args__: Final = ("seat", "valid", "rule", "pattern")
    seat: int
    valid: bool
    rule: SlapRule | None
    pattern: tuple[Card, ...]

    def __init__(
        self, seat: int, valid: bool, rule: SlapRule | None, pattern: tuple[Card, ...]
    ) -> None:
        self.seat = seat
        self.valid = valid
        self.rule = rule
        self.pattern = pattern


class PileTaken:
    """``seat`` took the whole pile (``cards`` of them) under its stack and plays next."""

    __match_args__: Final = ("seat", "cards", "by")
    seat: int
    cards: int
    by: Literal["slap", "collect"]

    def __init__(self, seat: int, cards: int, by: Literal["slap", "collect"]) -> None:
        self.seat = seat
        self.cards = cards
        self.by = by


class PenaltyPaid:
    """A false slapper's top card went face down to the bottom of the pile (``to`` None) or to
    the bottom of seat ``to``'s stack. Nobody but the referee sees the card."""

    __match_args__: Final = ("seat", "card", "to")
    seat: int
    card: SeenCard
    to: int | None

    def __init__(self, seat: int, card: SeenCard, to: int | None) -> None:
        self.seat = seat
        self.card = card
        self.to = to


class TurnPassed:
    """The turn moved to ``current`` (after a false slap emptied the current player's stack)."""

    __match_args__: Final = ("current",)
    current: int | None

    def __init__(self, current: int | None) -> None:
        self.current = current


class ChallengeLapsed:
    """The challenger or the player owed the pile was eliminated: the claim is gone
    (docs/games/ratscrew.md#decisions, item 15)."""

    __match_args__: Final = ("current",)
    current: int | None

    def __init__(self, current: int | None) -> None:
        self.current = current


class PlayerEliminated:
    """``seat`` is out of the game (a false slap with no cards, or no cards under slap_in off)."""

    __match_args__: Final = ("seat",)
    seat: int

    def __init__(self, seat: int) -> None:
        self.seat = seat


class Resigned:
    """``seat`` resigned with three or more in the game (docs/games/common.md#leaving-a-game): its
    whole stack, ``cards`` top first, went in that order under the pile as burned cards (its top
    card at the very bottom; face down to everyone but the referee) and it is eliminated."""

    __match_args__: Final = ("seat", "cards")
    seat: int
    cards: tuple[SeenCard, ...]

    def __init__(self, seat: int, cards: tuple[SeenCard, ...]) -> None:
        self.seat = seat
        self.cards = cards


class GameResigned:
    """``seat`` resigned with two players left (docs/games/common.md#leaving-a-game): the game ends,
    ``winner`` wins. Nothing moves: the resigner's stack stays where it is."""

    __match_args__: Final = ("seat", "winner")
    seat: int
    winner: int

    def __init__(self, seat: int, winner: int) -> None:
        self.seat = seat
        self.winner = winner


Event = (
    Dealt
    | CardPlayed
    | PileOwed
    | Slapped
    | PileTaken
    | PenaltyPaid
    | TurnPassed
    | ChallengeLapsed
    | PlayerEliminated
    | Resigned
    | GameResigned
)


kit.native_records(Event)
