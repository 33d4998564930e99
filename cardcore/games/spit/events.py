"""Spit's events (docs/games/spit.md): native classes (issue 24). Each is a plain class with
annotated attributes and an ``__init__`` that takes them in order, which mypyc compiles to a C
struct the rules build and read natively; :func:`cardcore.kit.native_records` (below) gives them,
once, what the codec, ``match``, ``==``, ``repr`` and ``str`` read of a record (their annotations
and dataclass fields), frozen as a record is. Below them, the events as a viewer sees them
(:func:`redact`, with the layouts' face-down cards hidden: :func:`hide_layout`, :func:`tops_up`)
and each in plain words (:func:`narrate`, docs/disputes.md#what-happened-replay).

:class:`PlayStarted`, which has no field, stays a record of :mod:`.declarations`
(``kit.native_records`` leaves a record as it is: it has nothing to read natively).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal, assert_never

from ... import kit
from ...cards import HIDDEN, Card, SeenCard
from ...engine import Role, Viewer
from .declarations import PlayStarted


class Dealt:
    """The deck was shuffled (stream 0) and dealt 26 a player, and each packet laid out:
    ``layouts[seat][pile]`` bottom→top (face-down cards hidden but to the referee) and
    ``spit_cards[seat]`` top first (face down to everyone)."""

    __match_args__: Final = ("layouts", "spit_cards")
    layouts: tuple[tuple[tuple[SeenCard, ...], ...], ...]
    spit_cards: tuple[tuple[SeenCard, ...], ...]

    def __init__(
        self,
        layouts: tuple[tuple[tuple[SeenCard, ...], ...], ...],
        spit_cards: tuple[tuple[SeenCard, ...], ...],
    ) -> None:
        self.layouts = layouts
        self.spit_cards = spit_cards


class SpitCalled:
    """``seat`` called "Spit!" naming ``target`` (recorded; the effect waits for both calls)."""

    __match_args__: Final = ("seat", "target")
    seat: int
    target: int | None

    def __init__(self, seat: int, target: int | None) -> None:
        self.seat = seat
        self.target = target


class Spat:
    """``seat`` turned its top spit card ``card`` onto spit pile ``target`` (starting it if it did
    not exist). ``lock``: this was the first solo spit, which locks ``target`` for the round.
    Clears the recorded calls."""

    __match_args__: Final = ("seat", "card", "target", "lock")
    seat: int
    card: Card
    target: int
    lock: bool

    def __init__(self, seat: int, card: Card, target: int, lock: bool) -> None:
        self.seat = seat
        self.card = card
        self.target = target
        self.lock = lock


class CardPlayed:
    """``seat`` played ``card`` from its stock pile ``source`` onto spit pile ``target``."""

    __match_args__: Final = ("seat", "source", "target", "card")
    seat: int
    source: int
    target: int
    card: Card

    def __init__(self, seat: int, source: int, target: int, card: Card) -> None:
        self.seat = seat
        self.source = source
        self.target = target
        self.card = card


class Flipped:
    """``seat`` turned up ``card`` on its stock pile ``pile`` (``auto``: by the auto_flip rule)."""

    __match_args__: Final = ("seat", "pile", "card", "auto")
    seat: int
    pile: int
    card: Card
    auto: bool

    def __init__(self, seat: int, pile: int, card: Card, auto: bool) -> None:
        self.seat = seat
        self.pile = pile
        self.card = card
        self.auto = auto


class Moved:
    """``seat`` moved ``card`` from stock pile ``source`` into the empty space ``target``."""

    __match_args__: Final = ("seat", "source", "target", "card")
    seat: int
    source: int
    target: int
    card: Card

    def __init__(self, seat: int, source: int, target: int, card: Card) -> None:
        self.seat = seat
        self.source = source
        self.target = target
        self.card = card


class Stacked:
    """``seat`` stacked ``card`` from stock pile ``source`` onto the equal rank on ``target``."""

    __match_args__: Final = ("seat", "source", "target", "card")
    seat: int
    source: int
    target: int
    card: Card

    def __init__(self, seat: int, source: int, target: int, card: Card) -> None:
        self.seat = seat
        self.source = source
        self.target = target
        self.card = card


class RoundEnded:
    """The round ended: (A) ``layout_empty`` — ``seat`` emptied its layout — or (B) ``stuck``.
    ``claim``: how the spit piles are claimed (``slap`` → phase SLAP, ``choose`` → phase CHOOSE
    with ``seat`` choosing, ``none`` → one spit pile, handed out at once)."""

    __match_args__: Final = ("reason", "seat", "claim")
    reason: Literal["layout_empty", "stuck"]
    seat: int | None
    claim: Literal["slap", "choose", "none"]

    def __init__(
        self,
        reason: Literal["layout_empty", "stuck"],
        seat: int | None,
        claim: Literal["slap", "choose", "none"],
    ) -> None:
        self.reason = reason
        self.seat = seat
        self.claim = claim


class PileClaimed:
    """``seat`` claimed spit pile ``target`` ``by`` slapping it first or choosing it."""

    __match_args__: Final = ("seat", "target", "by")
    seat: int
    target: int
    by: Literal["slap", "choose"]

    def __init__(self, seat: int, target: int, by: Literal["slap", "choose"]) -> None:
        self.seat = seat
        self.target = target
        self.by = by


class NewLayout:
    """The spit piles went to ``takers`` (seat per pile, None for a pile that did not exist). Each
    player's new packet (pile taken + own spit cards + own layout cards) was shuffled, seat ``p``
    with stream ``shuffles + 1 + p``, and laid out: ``layouts`` bottom→top, ``spit_cards`` top
    first, hidden where face down. If ``winner`` is set, that player's packet was empty and the
    game is over: nothing is laid out and each packet stays face down in ``spit_cards``."""

    __match_args__: Final = ("takers", "layouts", "spit_cards", "winner")
    takers: tuple[int | None, int | None]
    layouts: tuple[tuple[tuple[SeenCard, ...], ...], ...]
    spit_cards: tuple[tuple[SeenCard, ...], ...]
    winner: int | None

    def __init__(
        self,
        takers: tuple[int | None, int | None],
        layouts: tuple[tuple[tuple[SeenCard, ...], ...], ...],
        spit_cards: tuple[tuple[SeenCard, ...], ...],
        winner: int | None,
    ) -> None:
        self.takers = takers
        self.layouts = layouts
        self.spit_cards = spit_cards
        self.winner = winner


class Resigned:
    """``seat`` resigned (or the host forfeited it on a timer): the other seat wins at once
    (docs/games/common.md#leaving-a-game). It names no card: every card stays where it lies, as
    hidden as before."""

    __match_args__: Final = ("seat",)
    seat: int

    def __init__(self, seat: int) -> None:
        self.seat = seat


Event = (
    Dealt
    | SpitCalled
    | Spat
    | PlayStarted
    | CardPlayed
    | Flipped
    | Moved
    | Stacked
    | RoundEnded
    | PileClaimed
    | NewLayout
    | Resigned
)


kit.native_records(Event)  # every event but PlayStarted, a record already


# --------------------------------------------------------------------------- as seen


def tops_up(layout: Sequence[Sequence[SeenCard]]) -> tuple[int, ...]:
    """A layout as it is laid out (docs/games/spit.md#laying-out): each pile's top alone is face
    up, an empty space has none."""
    return tuple(1 if pile else 0 for pile in layout)


def hide_layout(
    layout: Sequence[Sequence[SeenCard]], ups: Sequence[int] | None = None
) -> tuple[tuple[SeenCard, ...], ...]:
    """A layout as a non-referee sees it: only the top ``up`` cards of each pile face up."""
    out = []
    for pile, up in zip(layout, tops_up(layout) if ups is None else ups, strict=True):
        down = len(pile) - up
        out.append((HIDDEN,) * down + tuple(pile[down:]) if down else tuple(pile))
    return tuple(out)


def redact(event: Event, viewer: Viewer) -> Event:
    """The event as ``viewer`` sees it: face-down layout cards and spit cards become ``??``."""
    kit.check_viewer(viewer, 2)  # two seats
    if viewer == Role.REFEREE:
        return event
    t = type(event)
    if t is Dealt or t is NewLayout:
        layouts = tuple(hide_layout(lay) for lay in event.layouts)  # type: ignore[union-attr]
        spit = tuple((HIDDEN,) * len(s) for s in event.spit_cards)  # type: ignore[union-attr]
        if t is Dealt:
            return Dealt(layouts, spit)
        return NewLayout(event.takers, layouts, spit, event.winner)  # type: ignore[union-attr]
    return event


# --------------------------------------------------------------------------- narration


def _layout_text(layout: Sequence[Sequence[SeenCard]]) -> str:
    return "-".join(str(len(p)) for p in layout)


def narrate(event: Event) -> str:
    """One adjudication in plain words."""
    match event:
        case Dealt(layouts, spit_cards):
            return "dealt 26 cards each; " + "; ".join(
                f"seat {p}: stock piles {_layout_text(lay)}, {len(sc)} spit cards"
                for p, (lay, sc) in enumerate(zip(layouts, spit_cards, strict=True))
            )
        case SpitCalled(seat, target):
            named = "" if target is None else f" (naming spit pile {target})"
            return f'seat {seat} called "Spit!"{named}'
        case Spat(seat, card, target, lock):
            locked = "; that pile is now locked for the solo spits" if lock else ""
            return f"seat {seat} spat {card.symbol} onto spit pile {target}{locked}"
        case PlayStarted():
            return "play starts"
        case CardPlayed(seat, source, target, card):
            return (
                f"seat {seat} played {card.symbol} on spit pile {target} (from stock pile {source})"
            )
        case Flipped(seat, pile, card, auto):
            how = " (automatically)" if auto else ""
            return f"seat {seat} turned up {card.symbol} on stock pile {pile}{how}"
        case Moved(seat, source, target, card):
            return f"seat {seat} moved {card.symbol} from stock pile {source} to the space {target}"
        case Stacked(seat, source, target, card):
            return f"seat {seat} stacked {card.symbol} from stock pile {source} onto pile {target}"
        case RoundEnded(reason, seat, claim):
            why = (
                f"seat {seat} emptied its layout"
                if reason == "layout_empty"
                else "stalemate, no spit cards left"
            )
            then = {
                "slap": "slap for the spit piles",
                "choose": f"seat {seat} chooses a spit pile",
                "none": "one spit pile, no slapping",
            }[claim]
            return f"round over ({why}): {then}"
        case PileClaimed(seat, target, by):
            verb = "slapped" if by == "slap" else "chose"
            return f"seat {seat} {verb} spit pile {target} first and takes it"
        case NewLayout(takers, layouts, spit_cards, winner):
            took = ", ".join(
                f"seat {p} takes spit pile {j}" for j, p in enumerate(takers) if p is not None
            )
            if winner is not None:
                return f"{took or 'no spit pile taken'}; seat {winner} has no cards left and wins"
            return f"{took}; new layouts: " + "; ".join(
                f"seat {p}: stock piles {_layout_text(lay)}, {len(sc)} spit cards"
                for p, (lay, sc) in enumerate(zip(layouts, spit_cards, strict=True))
            )
        case Resigned(seat):
            return f"seat {seat} resigned: seat {1 - seat} wins; the cards stay where they lie"
        case _:
            assert_never(event)
