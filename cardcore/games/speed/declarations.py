"""Speed's declarations (docs/games/speed.md): the rules flags, the commands and the view — the
classes the kit, the codec and the schema read by their annotations. This module stays Python in
the compiled build (pyproject.toml [tool.cardcore.compiled]): stock mypyc writes annotations
lossily. The events are native classes, compiled: :mod:`.events` (but ``RoundVoided``, here).
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
# The events are native classes, compiled: :mod:`.events`; but for this one, which has no field
# (kit.native_records takes only classes with annotated fields).


@kit.record
class RoundVoided:
    """Dead stalemate (docs/games/speed.md#dead-stalemate, [ENGINE]): no flip can unblock the game;
    no winner, no score. Every card is re-dealt (a ``Dealt`` follows)."""


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
