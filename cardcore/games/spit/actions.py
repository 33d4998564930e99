"""Spit's actions (docs/games/spit.md): the commands a player makes, the events they lead to, and
each event in plain words (``narrate``, docs/disputes.md#what-happened-replay).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal, assert_never

from ... import kit
from ...cards import Card, SeenCard

# --------------------------------------------------------------------------- commands


@kit.command("play {source} {target} [on {expect_top}]")
class Play:
    """Play the face-up top of your stock pile ``source`` onto spit pile ``target``.
    ``expect_top``: the card you saw on top of that spit pile (else ``StaleAction``)."""

    source: int
    target: int
    expect_top: Card | None = None


@kit.command("flip {pile}")
class Flip:
    """Turn up the face-down top of your stock pile ``pile``."""

    pile: int


@kit.command("move {source} {target}")
class Move:
    """Move the face-up top of your stock pile ``source`` into your empty space ``target``."""

    source: int
    target: int


@kit.command("stack {source} {target}")
class Stack:
    """(``stack_equal_in_layout``) Put the face-up top of ``source`` on the face-up top of equal
    rank of your stock pile ``target``."""

    source: int
    target: int


@kit.command("spit [onto {target}]")
class Spit:
    """Call "Spit!": the start call in ``READY``, the stalemate call in ``PLAY`` (a joint call,
    docs/games/common.md#joint-calls). ``target`` names the spit pile a solo spitter spits onto
    (ignored otherwise)."""

    target: int | None = None


@kit.command("slap {target}")
class Slap:
    """Slap spit pile ``target`` to take it (phase ``SLAP``)."""

    target: int


@kit.command("take {target}")
class TakePile:
    """(``pile_claim="choose"``) Take spit pile ``target`` (phase ``CHOOSE``, the chooser only)."""

    target: int


Command = Play | Flip | Move | Stack | Spit | Slap | TakePile | kit.Resign

SPIT: Final = Spit()

# --------------------------------------------------------------------------- events


@kit.record
class Dealt:
    """The deck was shuffled (stream 0) and dealt 26 a player, and each packet laid out:
    ``layouts[seat][pile]`` bottom→top (face-down cards hidden but to the referee) and
    ``spit_cards[seat]`` top first (face down to everyone)."""

    layouts: tuple[tuple[tuple[SeenCard, ...], ...], ...]
    spit_cards: tuple[tuple[SeenCard, ...], ...]


@kit.record
class SpitCalled:
    """``seat`` called "Spit!" naming ``target`` (recorded; the effect waits for both calls)."""

    seat: int
    target: int | None


@kit.record
class Spat:
    """``seat`` turned its top spit card ``card`` onto spit pile ``target`` (starting it if it did
    not exist). ``lock``: this was the first solo spit, which locks ``target`` for the round.
    Clears the recorded calls."""

    seat: int
    card: Card
    target: int
    lock: bool


@kit.record
class PlayStarted:
    """Both players called at the start of a round: phase ``PLAY``."""


@kit.record
class CardPlayed:
    """``seat`` played ``card`` from its stock pile ``source`` onto spit pile ``target``."""

    seat: int
    source: int
    target: int
    card: Card


@kit.record
class Flipped:
    """``seat`` turned up ``card`` on its stock pile ``pile`` (``auto``: by the auto_flip rule)."""

    seat: int
    pile: int
    card: Card
    auto: bool


@kit.record
class Moved:
    """``seat`` moved ``card`` from stock pile ``source`` into the empty space ``target``."""

    seat: int
    source: int
    target: int
    card: Card


@kit.record
class Stacked:
    """``seat`` stacked ``card`` from stock pile ``source`` onto the equal rank on ``target``."""

    seat: int
    source: int
    target: int
    card: Card


@kit.record
class RoundEnded:
    """The round ended: (A) ``layout_empty`` — ``seat`` emptied its layout — or (B) ``stuck``.
    ``claim``: how the spit piles are claimed (``slap`` → phase SLAP, ``choose`` → phase CHOOSE
    with ``seat`` choosing, ``none`` → one spit pile, handed out at once)."""

    reason: Literal["layout_empty", "stuck"]
    seat: int | None
    claim: Literal["slap", "choose", "none"]


@kit.record
class PileClaimed:
    """``seat`` claimed spit pile ``target`` ``by`` slapping it first or choosing it."""

    seat: int
    target: int
    by: Literal["slap", "choose"]


@kit.record
class NewLayout:
    """The spit piles went to ``takers`` (seat per pile, None for a pile that did not exist). Each
    player's new packet (pile taken + own spit cards + own layout cards) was shuffled, seat ``p``
    with stream ``shuffles + 1 + p``, and laid out: ``layouts`` bottom→top, ``spit_cards`` top
    first, hidden where face down. If ``winner`` is set, that player's packet was empty and the
    game is over: nothing is laid out and each packet stays face down in ``spit_cards``."""

    takers: tuple[int | None, int | None]
    layouts: tuple[tuple[tuple[SeenCard, ...], ...], ...]
    spit_cards: tuple[tuple[SeenCard, ...], ...]
    winner: int | None


@kit.record
class Resigned:
    """``seat`` resigned (or the host forfeited it on a timer): the other seat wins at once
    (docs/games/common.md#leaving-a-game). It names no card: every card stays where it lies, as
    hidden as before."""

    seat: int


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

_RoundEvent = PlayStarted | RoundEnded | PileClaimed | NewLayout | Dealt | Resigned
"""The events that start, end and lay out rounds, or end the game: the rarer ones."""

PLAY_STARTED: Final = PlayStarted()

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
