"""Speed's declarations (docs/games/speed.md): the rules flags, the commands, the events and the
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

Phase = Literal["READY", "PLAY", "OVER"]
ScoreCounts = Literal["stock", "stock_and_hand"]

# --------------------------------------------------------------------------- rules


@dataclass(frozen=True, slots=True)
class Rules:
    """The variant flags, with their defaults (docs/games/speed.md#variant-flags)."""

    side_pile_size: int = flag(
        10, "cards in each side pile (5: personal piles of 20)", min=1, max=20
    )
    hand_size: int = flag(5, "cards a full hand holds", min=1, max=10)
    auto_refill: bool = flag(True, "refill the hand after each play (False: explicit draw)")
    wrap: bool = flag(True, "ranks turn the corner: K–A–2 are adjacent")
    allow_equal_rank: bool = flag(False, "a card may also be played on one of equal rank")
    multi_card_play: bool = flag(False, "one play may place a run of cards, each fitting the last")
    jokers: int = flag(0, "wild jokers in the deck (0 or 2; each draw pile one card larger)", max=2)
    target_score: int | None = flag(None, "play rounds until a total reaches this score", min=1)
    score_counts: ScoreCounts = flag("stock", "what the round winner scores: loser's draw pile …")
    best_of: int | None = flag(None, "play a best-of-N series of won rounds (odd N)", min=1)

    race_policy: Literal["arrival", "compensated"] = races.policy_flag()
    race_cap_ms: int = races.cap_flag()

    def __post_init__(self) -> None:
        check_rules(self)  # types, Literal values and bounds, as make_setup checks them
        races.check_race_flags(self)
        if self.jokers not in (0, 2):
            raise InvalidSetup("rules.jokers", f"must be 0 or 2, got {self.jokers}")
        if self.best_of is not None:
            if self.target_score is not None:
                raise InvalidSetup(
                    "rules.best_of",
                    "best_of and target_score are mutually exclusive "
                    "(docs/games/speed.md#variant-flags)",
                )
            if self.best_of % 2 == 0:
                raise InvalidSetup("rules.best_of", f"must be odd, got {self.best_of}")
        personal = personal_size(self)
        if personal < self.hand_size:
            raise InvalidSetup(
                "rules.side_pile_size",
                f"leaves {personal} cards per player, fewer than hand_size {self.hand_size}",
            )


def personal_size(rules: Rules) -> int:
    """``M = (deck − 2 − 2S) / 2`` cards per player, hand included (docs/games/speed.md#setup,
    docs/games/speed.md#variant-flags jokers)."""
    return (52 + rules.jokers - 2 - 2 * rules.side_pile_size) // 2


# --------------------------------------------------------------------------- commands


@kit.command("play {card} {to} [on {expect_top}] [then {then}]")
class Play:
    """Play ``card`` from your hand onto centre pile ``to`` (0 or 1). ``expect_top``: the top card
    you saw on that pile (else ``StaleAction``). ``then``: further hand cards placed after it in
    order, each fitting the previous one (only with ``multi_card_play``)."""

    card: Card
    to: int
    expect_top: Card | None = None
    then: tuple[Card, ...] = ()


@kit.command("flip")
class Flip:
    """Call "flip": the start call in ``READY``, the stalemate call in ``PLAY`` (a joint call)."""


@kit.command("draw")
class Draw:
    """Draw the top card of your draw pile into your hand (only with ``auto_refill=False``)."""


Command = Play | Flip | Draw | kit.Resign

FLIP: Final = Flip()
DRAW: Final = Draw()

# --------------------------------------------------------------------------- events


@kit.record
class Dealt:
    """Round ``round`` was dealt from the shuffle of RNG stream ``stream`` (0 for the first deal).

    ``centre``: the two face-down centre cards; ``sides``: the side piles, top first; ``hands``:
    each seat's hand; ``draws``: each seat's draw pile, top first. A seat sees only its own hand."""

    round: int
    stream: int
    centre: tuple[SeenCard, ...]
    sides: tuple[tuple[SeenCard, ...], ...]
    hands: tuple[tuple[SeenCard, ...], ...]
    draws: tuple[tuple[SeenCard, ...], ...]


@kit.record
class FlipCalled:
    """``seat`` called "flip" (``stalemate``: during play; else the start call). A repeated call
    is recorded but counts once (docs/games/common.md#joint-calls)."""

    seat: int
    stalemate: bool


@kit.record
class Started:
    """Both players called: the centre cards were turned face up. Phase ``PLAY``."""

    centre: tuple[Card, ...]


@kit.record
class CardPlayed:
    """``seat`` played ``card`` from its hand onto centre pile ``to``."""

    seat: int
    card: Card
    to: int


@kit.record
class CardDrawn:
    """``seat`` drew the top card of its draw pile into its hand (only the drawer sees it)."""

    seat: int
    card: SeenCard


@kit.record
class SidePileRebuilt:
    """Side pile ``pile`` was empty: the cards under centre pile ``pile``'s top were shuffled
    (RNG stream ``stream``) into a new side pile, ``cards`` top first (face down to the players)."""

    pile: int
    stream: int
    cards: tuple[SeenCard, ...]


@kit.record
class SideCardsTurned:
    """The stalemate flip: the top card of each side pile turned face up onto the centre pile it
    feeds (``cards[j]`` onto ``Cj``; None when ``Rj`` had no card). Calls are cleared."""

    cards: tuple[Card | None, ...]


@kit.record
class RoundVoided:
    """Dead stalemate (docs/games/speed.md#dead-stalemate, [ENGINE]): no flip can unblock the game;
    no winner, no score. Every card is re-dealt (a ``Dealt`` follows)."""


@kit.record
class RoundWon:
    """``seat`` emptied its hand and draw pile: it wins the round and scores ``points``.
    ``scores`` and ``wins`` are the new totals; ``final``: the game is over (else a re-deal
    follows)."""

    seat: int
    points: int
    scores: tuple[int, ...]
    wins: tuple[int, ...]
    final: bool


@kit.record
class Resigned:
    """``seat`` resigned (or the host forfeited it on a timer): the other seat wins the game —
    the whole match — at once (docs/games/common.md#leaving-a-game); nobody scores. It names no
    card: every card stays where it lies, as hidden as before."""

    seat: int


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


# --------------------------------------------------------------------------- view


@kit.view
class View:
    """What one viewer sees: its own hand and every face-up card. Other hands, draw piles and side
    piles are face down (``??``, so their sizes show) except to the referee."""

    phase: Phase
    round: int
    hands: tuple[tuple[SeenCard, ...], ...]
    draws: tuple[tuple[SeenCard, ...], ...]
    sides: tuple[tuple[SeenCard, ...], ...]
    centre: tuple[tuple[SeenCard, ...], ...]
    """Bottom→top; the tops are ``centre[j][-1]`` (face down before the start)."""
    calls: tuple[int, ...]
    scores: tuple[int, ...]
    wins: tuple[int, ...]
    winner: int | None
