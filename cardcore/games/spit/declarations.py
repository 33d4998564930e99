"""Spit's declarations (docs/games/spit.md): the rules flags, the commands, the events and the
view — the classes the kit, the codec and the schema read by their annotations. This module stays
Python in the compiled build (pyproject.toml [tool.cardcore.compiled]): stock mypyc writes
annotations lossily.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from ... import kit, races
from ...cards import Card, SeenCard
from ...engine import check_rules, flag
from ...errors import InvalidSetup

Phase = Literal["READY", "PLAY", "SLAP", "CHOOSE", "OVER"]

# --------------------------------------------------------------------------- rules


@dataclass(frozen=True, slots=True)
class Rules:
    """The variant flags, with their defaults (docs/games/spit.md#variant-flags)."""

    num_stock_piles: int = flag(5, "stock piles in a layout (5: 1..5 cards; 4: 1..4)", min=4, max=5)
    pile_claim: Literal["slap", "choose"] = flag(
        "slap", "after round end (A) with two spit piles: slap for them, or the emptier chooses"
    )
    alternate_colours: bool = flag(False, "a card played on a spit pile must differ in colour")
    allow_equal_rank: bool = flag(False, "an equal rank may also be played on a spit pile")
    stack_equal_in_layout: bool = flag(False, "allow stacking a face-up top on an equal rank")
    wrap: bool = flag(True, "ranks turn the corner: K–A–2 are adjacent")
    auto_flip: bool = flag(False, "face-down layout tops are turned up automatically")
    one_pile_stalemate_owner: Literal["starter", "fewer_layout_cards"] = flag(
        "starter", "who takes the only spit pile after a stalemate round end (B)"
    )

    race_policy: Literal["arrival", "compensated"] = races.policy_flag()
    race_cap_ms: int = races.cap_flag()

    def __post_init__(self) -> None:
        check_rules(self)  # types, Literal values and bounds, as make_setup checks them
        races.check_race_flags(self)
        if not 4 <= self.num_stock_piles <= 5:
            raise InvalidSetup(
                "rules.num_stock_piles", f"must be 4 or 5, got {self.num_stock_piles}"
            )


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

PLAY_STARTED: Final = PlayStarted()


# --------------------------------------------------------------------------- view


@kit.view
class View:
    """What one viewer sees: face-up layout cards and whole spit piles; face-down layout cards
    and spit cards only as ``??`` (counts), even the viewer's own — except to the referee."""

    phase: Phase
    round: int
    layouts: tuple[tuple[tuple[SeenCard, ...], ...], ...]
    spit_cards: tuple[tuple[SeenCard, ...], ...]
    spit_counts: tuple[int, ...]
    spit_piles: tuple[tuple[Card, ...], ...]
    called: tuple[bool, ...]
    call_targets: tuple[int | None, ...]
    locked: int | None
    chooser: int | None
    stuck: bool
    winner: int | None
