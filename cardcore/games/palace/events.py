"""Palace's events (docs/games/palace.md): native classes (issue 24). Each is a plain class with
annotated attributes and an ``__init__`` that takes them in order, which mypyc compiles to a C
struct the rules build and read natively; :func:`cardcore.kit.native_records` (below) gives them,
once, what the codec, ``match``, ``==``, ``repr`` and ``str`` read of a record (their annotations
and dataclass fields), frozen as a record is.

:class:`CardsPlayed`, :class:`TurnPassed` and :class:`PlayerResigned` each have a field with a
default (a log or a caller may leave it out), written in their ``__init__``: the kit keeps it.
"""

from __future__ import annotations

from typing import Final, final

from ... import kit
from ...cards import Card, SeenCard
from .declarations import BurnKind, TakeReason


class Dealt:
    """The deck was shuffled and dealt: face-down, face-up and hand cards per seat, and the stock
    (top first). Only the face-up cards are public; a seat sees its own hand."""

    __match_args__: Final = ("down", "up", "hands", "stock")
    down: tuple[tuple[SeenCard, ...], ...]
    up: tuple[tuple[Card, ...], ...]
    hands: tuple[tuple[SeenCard, ...], ...]
    stock: tuple[SeenCard, ...]

    def __init__(
        self,
        down: tuple[tuple[SeenCard, ...], ...],
        up: tuple[tuple[Card, ...], ...],
        hands: tuple[tuple[SeenCard, ...], ...],
        stock: tuple[SeenCard, ...],
    ) -> None:
        self.down = down
        self.up = up
        self.hands = hands
        self.stock = stock


class Swapped:
    """``seat`` put ``hand_card`` face up in place of ``up_card``, which went into its hand."""

    __match_args__: Final = ("seat", "hand_card", "up_card")
    seat: int
    hand_card: Card
    up_card: Card

    def __init__(self, seat: int, hand_card: Card, up_card: Card) -> None:
        self.seat = seat
        self.hand_card = hand_card
        self.up_card = up_card


class Readied:
    """``seat`` is ready (a repeated call changes nothing)."""

    __match_args__: Final = ("seat",)
    seat: int

    def __init__(self, seat: int) -> None:
        self.seat = seat


class PlayStarted:
    """Everyone was ready: the play phase begins and ``starter`` leads
    (docs/games/palace.md#starter)."""

    __match_args__: Final = ("starter",)
    starter: int

    def __init__(self, starter: int) -> None:
        self.starter = starter


@final
class CardsPlayed:
    """``seat`` put ``from_hand`` then ``from_up`` on the pile; ``out_of_turn`` for a completion."""

    __match_args__: Final = ("seat", "from_hand", "from_up", "out_of_turn")
    seat: int
    from_hand: tuple[Card, ...]
    from_up: tuple[Card, ...]
    out_of_turn: bool

    def __init__(
        self,
        seat: int,
        from_hand: tuple[Card, ...],
        from_up: tuple[Card, ...],
        out_of_turn: bool = False,
    ) -> None:
        self.seat = seat
        self.from_hand = from_hand
        self.from_up = from_up
        self.out_of_turn = out_of_turn


@final
class FaceDownTurned:
    """``seat`` turned up its face-down card at ``index`` (``card``) onto the pile."""

    __match_args__: Final = ("seat", "index", "card")
    seat: int
    index: int
    card: Card

    def __init__(self, seat: int, index: int, card: Card) -> None:
        self.seat = seat
        self.index = index
        self.card = card


class CardsAdded:
    """``seat`` added just-drawn ``cards`` to the pile (docs/games/palace.md#add-drawn-window)."""

    __match_args__: Final = ("seat", "cards")
    seat: int
    cards: tuple[Card, ...]

    def __init__(self, seat: int, cards: tuple[Card, ...]) -> None:
        self.seat = seat
        self.cards = cards


@final
class PileBurned:
    """The whole pile (``cards`` of them) left the game, burned by ``seat``'s ten or four."""

    __match_args__: Final = ("seat", "cards", "by")
    seat: int
    cards: int
    by: BurnKind

    def __init__(self, seat: int, cards: int, by: BurnKind) -> None:
        self.seat = seat
        self.cards = cards
        self.by = by


@final
class CardsDrawn:
    """``seat`` drew ``cards`` from the top of the stock (face down to everyone else)."""

    __match_args__: Final = ("seat", "cards")
    seat: int
    cards: tuple[SeenCard, ...]

    def __init__(self, seat: int, cards: tuple[SeenCard, ...]) -> None:
        self.seat = seat
        self.cards = cards


@final
class PileTaken:
    """``seat`` took the whole pile (``cards`` of them) into its hand."""

    __match_args__: Final = ("seat", "cards", "reason")
    seat: int
    cards: int
    reason: TakeReason

    def __init__(self, seat: int, cards: int, reason: TakeReason) -> None:
        self.seat = seat
        self.cards = cards
        self.reason = reason


class PlayerWentOut:
    """``seat`` has no cards left: it finished in ``place`` (1 = first)."""

    __match_args__: Final = ("seat", "place")
    seat: int
    place: int

    def __init__(self, seat: int, place: int) -> None:
        self.seat = seat
        self.place = place


class DirectionReversed:
    """Jokers reversed the direction of play; ``direction`` is now +1 or -1."""

    __match_args__: Final = ("direction",)
    direction: int

    def __init__(self, direction: int) -> None:
        self.direction = direction


@final
class TurnPassed:
    """Who acts next: ``current`` (None once the game is over), whether it owes a ``follow_up``
    (must play again, no pick-up), the open add-drawn ``window`` ``(seat, rank, drawn count)``
    and the seats an 8 ``skipped``."""

    __match_args__: Final = ("current", "follow_up", "window", "skipped")
    current: int | None
    follow_up: bool
    window: tuple[int, int, int] | None
    skipped: tuple[int, ...]

    def __init__(
        self,
        current: int | None,
        follow_up: bool,
        window: tuple[int, int, int] | None,
        skipped: tuple[int, ...] = (),
    ) -> None:
        self.current = current
        self.follow_up = follow_up
        self.window = window
        self.skipped = skipped


class PlayerResigned:
    """``seat`` left the game (docs/games/common.md#leaving-a-game): its ``cards`` (hand, face-up
    and face-down) are set aside face down and it is out. ``by`` is the command's: None, or
    ``"timer"`` for a seat the host forfeited on a time-out (the same effect). Names no card:
    nothing to redact."""

    __match_args__: Final = ("seat", "cards", "by")
    seat: int
    cards: int
    by: str | None

    def __init__(self, seat: int, cards: int, by: str | None = None) -> None:
        self.seat = seat
        self.cards = cards
        self.by = by


Event = (
    Dealt
    | Swapped
    | Readied
    | PlayStarted
    | CardsPlayed
    | FaceDownTurned
    | CardsAdded
    | PileBurned
    | CardsDrawn
    | PileTaken
    | PlayerWentOut
    | DirectionReversed
    | TurnPassed
    | PlayerResigned
)


kit.native_records(Event)
