"""Speed's events (docs/games/speed.md): native classes (issue 24). Each is a plain class with
annotated attributes and an ``__init__`` that takes them in order, which mypyc compiles to a C
struct the rules build and read natively; :func:`cardcore.kit.native_records` (below) gives them,
once, what the codec, ``match``, ``==``, ``repr`` and ``str`` read of a record (their annotations
and dataclass fields), frozen as a record is.

:class:`RoundVoided`, which has no field, stays a record of :mod:`.declarations` (nothing to
read natively); ``kit.native_records`` leaves a record as it is.
"""

from __future__ import annotations

from typing import Final

from ... import kit
from ...cards import Card, SeenCard
from .declarations import RoundVoided


class Dealt:
    """Round ``round`` was dealt from the shuffle of RNG stream ``stream`` (0 for the first deal).

    ``centre``: the two face-down centre cards; ``sides``: the side piles, top first; ``hands``:
    each seat's hand; ``draws``: each seat's draw pile, top first. A seat sees only its own hand."""

    __match_args__: Final = ("round", "stream", "centre", "sides", "hands", "draws")
    round: int
    stream: int
    centre: tuple[SeenCard, ...]
    sides: tuple[tuple[SeenCard, ...], ...]
    hands: tuple[tuple[SeenCard, ...], ...]
    draws: tuple[tuple[SeenCard, ...], ...]

    def __init__(  # noqa: PLR0917  # the fields, in order
        self,
        round: int,
        stream: int,
        centre: tuple[SeenCard, ...],
        sides: tuple[tuple[SeenCard, ...], ...],
        hands: tuple[tuple[SeenCard, ...], ...],
        draws: tuple[tuple[SeenCard, ...], ...],
    ) -> None:
        self.round = round
        self.stream = stream
        self.centre = centre
        self.sides = sides
        self.hands = hands
        self.draws = draws


class FlipCalled:
    """``seat`` called "flip" (``stalemate``: during play; else the start call). A repeated call
    is recorded but counts once (docs/games/common.md#joint-calls)."""

    __match_args__: Final = ("seat", "stalemate")
    seat: int
    stalemate: bool

    def __init__(self, seat: int, stalemate: bool) -> None:
        self.seat = seat
        self.stalemate = stalemate


class Started:
    """Both players called: the centre cards were turned face up. Phase ``PLAY``."""

    __match_args__: Final = ("centre",)
    centre: tuple[Card, ...]

    def __init__(self, centre: tuple[Card, ...]) -> None:
        self.centre = centre


class CardPlayed:
    """``seat`` played ``card`` from its hand onto centre pile ``to``."""

    __match_args__: Final = ("seat", "card", "to")
    seat: int
    card: Card
    to: int

    def __init__(self, seat: int, card: Card, to: int) -> None:
        self.seat = seat
        self.card = card
        self.to = to


class CardDrawn:
    """``seat`` drew the top card of its draw pile into its hand (only the drawer sees it)."""

    __match_args__: Final = ("seat", "card")
    seat: int
    card: SeenCard

    def __init__(self, seat: int, card: SeenCard) -> None:
        self.seat = seat
        self.card = card


class SidePileRebuilt:
    """Side pile ``pile`` was empty: the cards under centre pile ``pile``'s top were shuffled
    (RNG stream ``stream``) into a new side pile, ``cards`` top first (face down to the players)."""

    __match_args__: Final = ("pile", "stream", "cards")
    pile: int
    stream: int
    cards: tuple[SeenCard, ...]

    def __init__(self, pile: int, stream: int, cards: tuple[SeenCard, ...]) -> None:
        self.pile = pile
        self.stream = stream
        self.cards = cards


class SideCardsTurned:
    """The stalemate flip: the top card of each side pile turned face up onto the centre pile it
    feeds (``cards[j]`` onto ``Cj``; None when ``Rj`` had no card). Calls are cleared."""

    __match_args__: Final = ("cards",)
    cards: tuple[Card | None, ...]

    def __init__(self, cards: tuple[Card | None, ...]) -> None:
        self.cards = cards


class RoundWon:
    """``seat`` emptied its hand and draw pile: it wins the round and scores ``points``.
    ``scores`` and ``wins`` are the new totals; ``final``: the game is over (else a re-deal
    follows)."""

    __match_args__: Final = ("seat", "points", "scores", "wins", "final")
    seat: int
    points: int
    scores: tuple[int, ...]
    wins: tuple[int, ...]
    final: bool

    def __init__(
        self, seat: int, points: int, scores: tuple[int, ...], wins: tuple[int, ...], final: bool
    ) -> None:
        self.seat = seat
        self.points = points
        self.scores = scores
        self.wins = wins
        self.final = final


class Resigned:
    """``seat`` resigned (or the host forfeited it on a timer): the other seat wins the game —
    the whole match — at once (docs/games/common.md#leaving-a-game); nobody scores. It names no
    card: every card stays where it lies, as hidden as before."""

    __match_args__: Final = ("seat",)
    seat: int

    def __init__(self, seat: int) -> None:
        self.seat = seat


Event = (
    Dealt
    | FlipCalled
    | Started
    | CardPlayed
    | CardDrawn
    | SidePileRebuilt
    | SideCardsTurned
    | RoundVoided
    | RoundWon
    | Resigned
)


kit.native_records(Event)  # RoundVoided, a record already, is left as it is
