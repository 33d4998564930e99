"""What a Palace viewer sees (``view``, ``redact``, the zones and who sees them) and reads
(``narrate``: each adjudication in plain words).
"""

from __future__ import annotations

from typing import Final, assert_never

from ... import kit
from ...cards import HIDDEN, SeenCard, rank_name
from ...engine import Role, Viewer, check_seat
from ...errors import InvalidSeat
from .declarations import View
from .events import (
    CardsAdded,
    CardsDrawn,
    CardsPlayed,
    Dealt,
    DirectionReversed,
    Event,
    FaceDownTurned,
    PileBurned,
    PileTaken,
    PlayerResigned,
    PlayerWentOut,
    PlayStarted,
    Readied,
    Swapped,
    TurnPassed,
)
from .rules import State, _cards_text

# --------------------------------------------------------------------------- views, redaction


def _sees_hand(viewer: Viewer, seat: int) -> bool:
    return viewer == Role.REFEREE or viewer == seat


@kit.viewed
def view(state: State, viewer: Viewer) -> View:
    """What ``viewer`` sees; a seat viewer that is not a seat raises ``InvalidSeat`` (a bool would
    otherwise pass for seat 1, ``True == 1``, and an out-of-range one see nothing)."""
    referee = viewer == Role.REFEREE
    hands: tuple[tuple[SeenCard, ...], ...] = tuple(
        h if _sees_hand(viewer, q) else (HIDDEN,) * len(h) for q, h in enumerate(state.hands)
    )
    down: tuple[tuple[SeenCard, ...], ...] = (
        state.down if referee else tuple((HIDDEN,) * len(d) for d in state.down)
    )
    stock: tuple[SeenCard, ...] = state.stock if referee else (HIDDEN,) * len(state.stock)
    set_aside: tuple[SeenCard, ...] = (
        state.set_aside if referee else (HIDDEN,) * len(state.set_aside)
    )
    return View(
        phase=state.phase,
        hands=hands,
        up=state.up,
        down=down,
        stock=stock,
        pile=state.pile,
        burned=state.burned,
        current=state.current,
        follow_up=state.follow_up,
        direction=state.direction,
        ready=tuple(sorted(state.ready)),
        finished=state.finished,
        window=state.window,
        revealed=state.revealed,
        set_aside=set_aside,
        resigned=state.resigned,
    )


def redact(event: Event, viewer: Viewer) -> Event:
    """The event as ``viewer`` sees it: others' hands, face-down cards, the stock and others'
    draws are face down but to the referee."""
    if viewer == Role.REFEREE:
        return event
    if type(viewer) is bool:
        check_seat(1, viewer)  # raises InvalidSeat: True is not seat 1
    if type(viewer) is int and viewer < 0:
        raise InvalidSeat(f"no seat {viewer}: seats count from 0")  # no event knows the seats
    if type(event) is CardsDrawn:
        if viewer == event.seat:
            return event
        return CardsDrawn(event.seat, (HIDDEN,) * len(event.cards))
    if type(event) is Dealt:
        kit.check_viewer(viewer, len(event.hands))
        return Dealt(
            tuple((HIDDEN,) * len(d) for d in event.down),
            event.up,
            tuple(h if viewer == q else (HIDDEN,) * len(h) for q, h in enumerate(event.hands)),
            (HIDDEN,) * len(event.stock),
        )
    return event


ZONES: Final = kit.Zones(
    kit.Zone("hands", "owner", per_seat=True),
    kit.Zone("up", "everyone", per_seat=True),
    kit.Zone("down", "nobody", per_seat=True),
    kit.Zone("stock", "nobody"),
    kit.Zone("pile", "everyone"),
    kit.Zone("burned", "everyone"),
    kit.Zone("set_aside", "nobody"),
)
"""Where the cards of a Palace state lie, and who sees them: cards_in_play and shuffle_hidden
(the add-drawn window counts positions, so it stays consistent). The set-aside cards of resigned
seats left the game face down (docs/games/common.md#leaving-a-game): nobody sees them, whoever saw
some of them before."""

shuffle_hidden = ZONES.shuffle_hidden
cards_in_play = ZONES.cards


# --------------------------------------------------------------------------- narration


def narrate(event: Event) -> str:
    """One adjudication in plain words."""
    match event:
        case Dealt(down, _, hands, stock):
            sizes = ", ".join(
                f"seat {q}: {len(d)} down, {len(u)} up, {len(h)} in hand"
                for q, (d, u, h) in enumerate(zip(down, event.up, hands, strict=True))
            )
            return f"dealt {sizes}; {len(stock)} cards in the stock"
        case Swapped(seat, hand_card, up_card):
            return f"seat {seat} put {hand_card.symbol} face up and took {up_card.symbol} in hand"
        case Readied(seat):
            return f"seat {seat} is ready"
        case PlayStarted(starter):
            return f"everybody is ready: seat {starter} starts"
        case CardsPlayed():
            return _played_text(event)
        case FaceDownTurned(seat, index, card):
            return f"seat {seat} turned up face-down card {index}: {card.symbol}"
        case CardsAdded(seat, cards):
            return f"seat {seat} added just-drawn {_cards_text(cards)}"
        case PileBurned(seat, cards, by):
            why = "a 10" if by == "ten" else "four of a kind"
            return f"{why}: the pile burns ({cards} cards), by seat {seat}"
        case CardsDrawn(seat, drawn):
            if drawn and drawn[0] is HIDDEN:  # another seat's draw: how many, not which
                return f"seat {seat} drew {len(drawn)} card{'s' if len(drawn) != 1 else ''}"
            return f"seat {seat} drew {_cards_text(drawn)}"
        case PileTaken(seat, cards, reason):
            why = {
                "pickup": "picks up the pile",
                "failed_blind": "cannot play the blind card: takes it with the pile",
                "special_finish": "may not go out on a power card: takes the pile",
            }[reason]
            return f"seat {seat} {why} ({cards} cards)"
        case PlayerWentOut(seat, place):
            return f"seat {seat} has no cards left: out in place {place}"
        case PlayerResigned(seat, cards, by):
            who = f"seat {seat} resigned" if by is None else f"seat {seat} forfeited ({by})"
            leave = "card leaves" if cards == 1 else "cards leave"
            return f"{who}; its {cards} {leave} the game face down"
        case DirectionReversed(direction):
            return "play reverses: now " + ("clockwise" if direction == 1 else "anticlockwise")
        case TurnPassed():
            return _turn_text(event)
        case _:
            assert_never(event)


def _played_text(event: CardsPlayed) -> str:
    seat, cards = event.seat, event.from_hand + event.from_up
    if event.out_of_turn:
        return (
            f"seat {seat} completed four {rank_name(cards[0].rank)}s out of turn with "
            f"{_cards_text(cards)}"
        )
    if not event.from_up:
        where = "hand"
    else:
        where = "face-up cards" if not event.from_hand else "hand and up"
    return f"seat {seat} played {_cards_text(cards)} from {where}"


def _turn_text(event: TurnPassed) -> str:
    if event.current is None:
        return "one player is left holding cards: the game is over"
    text = f"seat {event.current} {'plays again' if event.follow_up else 'to play'}"
    if event.skipped:
        text += " (skipped " + ", ".join(f"seat {q}" for q in event.skipped) + ")"
    if event.window is not None:
        text += f"; seat {event.window[0]} may add just-drawn {rank_name(event.window[1])}s"
    return text
