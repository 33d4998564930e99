"""Palace's declarations (docs/games/palace.md): the rules flags, the commands and the view — the
classes the kit, the codec and the schema read by their annotations. This module stays Python in
the compiled build (pyproject.toml [tool.cardcore.compiled]): stock mypyc writes annotations
lossily. The events are native classes, compiled: :mod:`.events`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from ... import kit
from ...cards import Card, SeenCard
from ...engine import check_rules, flag
from ...errors import InvalidSetup

Phase = Literal["setup", "play"]
BurnKind = Literal["ten", "four_of_a_kind"]
TakeReason = Literal["pickup", "failed_blind", "special_finish"]

# --------------------------------------------------------------------------- rules


@dataclass(frozen=True, slots=True)
class Rules:
    """The variant flags, with their defaults (docs/games/palace.md#variant-flags)."""

    cards_per_area: int = flag(3, "cards face down, face up and in hand per player", min=1)
    """Any ``k >= 1`` whose deal fits the decks (``check_setup``: ``3·k·seats`` cards)."""
    two_follow_up: bool = flag(True, "the player of a 2 plays again on it")
    ten_follow_up: bool = flag(True, "the player of a 10 leads again after the burn")
    four_of_a_kind_burn: Literal["consecutive", "single_play", "off"] = flag(
        "consecutive", "four of a rank on top of the pile burns it (any plays, one play, never)"
    )
    out_of_turn_completion: bool = flag(True, "anyone may complete a four of a kind out of turn")
    add_drawn_same_rank: bool = flag(
        True, "just-drawn cards of the rank just played may be added until the next player acts"
    )
    voluntary_pickup: bool = flag(False, "a player may pick up the pile even when able to play")
    starter_rule: Literal["lowest_in_hand", "first_face_up_three", "left_of_dealer"] = flag(
        "lowest_in_hand", "who plays first once everybody is ready"
    )
    starter_must_play_lowest: bool = flag(False, "the first play must be the starter's lowest")
    seven_lower: bool = flag(False, "after a 7 the next play must be a 7 or lower (or a power)")
    eight_skip: bool = flag(False, "each 8 played skips the next player")
    three_invisible: bool = flag(False, "a 3 goes on anything and is transparent")
    nine_lower: bool = flag(False, "after a 9 the next play must be a 9 or lower (or a power)")
    jokers: int = flag(0, "jokers per deck: on anything, transparent, reverse the direction", max=2)
    finish_on_special: bool = flag(True, "a player may go out on a 2 or 10 (power cards)")
    combine_hand_and_up: bool = flag(
        False, "the last hand cards may be played with face-up cards of the same rank"
    )
    num_decks: int = flag(1, "52-card decks shuffled together", min=1, max=4)

    def __post_init__(self) -> None:
        check_rules(self)  # types, Literal values and bounds, as make_setup checks them
        # parse_rules checks the bounds of JSON values; direct construction is checked here.
        if self.cards_per_area < 1:
            raise InvalidSetup(
                "rules.cards_per_area", f"must be at least 1, got {self.cards_per_area}"
            )
        if not 0 <= self.jokers <= 2:
            raise InvalidSetup("rules.jokers", f"must be 0..2, got {self.jokers}")
        if not 1 <= self.num_decks <= 4:
            raise InvalidSetup("rules.num_decks", f"must be 1..4, got {self.num_decks}")


# --------------------------------------------------------------------------- commands


@kit.command("swap {hand_card} {up_card}")
class Swap:
    """Setup: exchange ``hand_card`` from your hand with ``up_card`` from your face-up cards."""

    hand_card: Card
    up_card: Card


@kit.command("ready")
class Ready:
    """Setup: you are done swapping."""


@kit.command("play {cards}")
class Play:
    """Play ``cards`` (one rank) from your active source; out of turn only to complete a four."""

    cards: tuple[Card, ...] = ()


@kit.command("blind {index}")
class PlayFaceDown:
    """Turn up and play your face-down card at position ``index`` (hand and face-up empty)."""

    index: int


@kit.command("pickup")
class Pickup:
    """Take the whole pile into your hand (only when you cannot play, by default)."""


@kit.command("add {cards}")
class AddDrawn:
    """Add just-drawn ``cards`` of the rank you just played, before the next player acts."""

    cards: tuple[Card, ...] = ()


Command = Swap | Ready | Play | PlayFaceDown | Pickup | AddDrawn | kit.Resign
"""``kit.Resign`` is every game's one resign command (docs/games/common.md#leaving-a-game): in any
phase, never listed by ``legal_commands`` and never sensible, so that no bot resigns by chance."""

READY: Final = Ready()
PICKUP: Final = Pickup()

# --------------------------------------------------------------------------- view


@kit.view
class View:
    """What one viewer sees: its own hand, everyone's face-up cards, the pile and burned cards;
    face-down cards, other hands, the stock and the set-aside cards of resigned seats only as
    ``??`` (all of it to the referee)."""

    phase: Phase
    hands: tuple[tuple[SeenCard, ...], ...]
    up: tuple[tuple[Card, ...], ...]
    down: tuple[tuple[SeenCard, ...], ...]
    stock: tuple[SeenCard, ...]
    pile: tuple[Card, ...]
    burned: tuple[Card, ...]
    current: int | None
    follow_up: bool
    direction: int
    ready: tuple[int, ...]
    finished: tuple[int, ...]
    window: tuple[int, int, int] | None
    revealed: Card | None
    set_aside: tuple[SeenCard, ...] = ()
    resigned: tuple[int, ...] = ()
