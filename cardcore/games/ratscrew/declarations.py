"""Egyptian Ratscrew's declarations (docs/games/ratscrew.md): the rules flags, the commands and
the view — the classes the kit, the codec and the schema read by their annotations. This module
stays Python in the compiled build (pyproject.toml [tool.cardcore.compiled]): stock mypyc writes
annotations lossily. The events are native classes, compiled: :mod:`.events`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from ... import kit, races
from ...cards import RANKS, SeenCard
from ...engine import check_rules, flag
from ...errors import InvalidSetup
from .events import SlapRule

# --------------------------------------------------------------------------- rules


@dataclass(frozen=True, slots=True)
class Rules:
    """The variant flags, with their defaults (docs/games/ratscrew.md#variant-flags)."""

    slap_rules: frozenset[SlapRule] = flag(
        frozenset({"double", "sandwich"}), "patterns that make the pile slappable"
    )
    challenge_counts: dict[str, int] = flag(
        {"J": 1, "Q": 2, "K": 3, "A": 4}, "rank → cards the next player must play"
    )
    false_slap_penalty: int = flag(1, "cards a false slapper burns", min=0, max=52)
    false_slap_destination: Literal["pile_bottom", "to_player_of_top_card"] = flag(
        "pile_bottom", "where a false slapper's penalty cards go"
    )
    late_slap: Literal["penalize", "reject"] = flag(
        "penalize", "a slap whose seen_count is out of date: false slap, or StaleAction"
    )
    slap_in: bool = flag(True, "a player with no cards stays in and may slap back in")
    zero_card_false_slap: Literal["eliminate", "ignore"] = flag(
        "eliminate", "a false slap by a player with no cards"
    )
    challenge_exhausted: Literal["challenger_wins", "pass_to_next"] = flag(
        "challenger_wins", "a challenged player who runs out of cards"
    )
    auto_collect: bool = flag(False, "an owed pile is taken at once (no slap window)")
    num_decks: int = flag(1, "52-card decks shuffled together", min=1, max=8)
    jokers: int = flag(0, "jokers per deck", min=0, max=2)

    race_policy: Literal["arrival", "compensated"] = races.policy_flag()
    race_cap_ms: int = races.cap_flag()

    def __post_init__(self) -> None:
        check_rules(self)  # types, Literal values and bounds, as make_setup checks them
        races.check_race_flags(self)
        for rank, count in self.challenge_counts.items():
            if rank not in RANKS:
                raise InvalidSetup(
                    f"rules.challenge_counts.{rank}", "not a rank (A, 2..10, J, Q, K)"
                )
            if not 1 <= count <= 52:
                raise InvalidSetup(f"rules.challenge_counts.{rank}", f"must be 1..52, got {count}")
        if "joker" in self.slap_rules and self.jokers == 0:
            raise InvalidSetup("rules.slap_rules", "the joker rule needs jokers > 0")


# --------------------------------------------------------------------------- commands


@kit.command("play")
class Play:
    """Turn the top card of your stack onto the pile (your turn, nothing owed)."""


@kit.command("slap [epoch {expect_epoch}] [seen {seen_count}]")
class Slap:
    """Slap the pile. ``expect_epoch``: the pile you saw (else ``StaleAction``); ``seen_count``:
    the number of played cards you saw (checked under ``late_slap="reject"``)."""

    expect_epoch: int | None = None
    seen_count: int | None = None


@kit.command("collect")
class Collect:
    """Take the pile you are owed after a lost challenge."""


Command = Play | Slap | Collect | kit.Resign

PLAY: Final = Play()
SLAP: Final = Slap()
COLLECT: Final = Collect()

# --------------------------------------------------------------------------- view


@kit.view
class View:
    """What one viewer sees. Stacks are all face down (``??``) except to the referee."""

    stacks: tuple[tuple[SeenCard, ...], ...]
    pile: tuple[SeenCard, ...]
    """The whole pile bottom→top: burned cards face down, then the played cards."""
    played_count: int
    epoch: int
    current: int | None
    challenge: tuple[int, int] | None
    owed_to: int | None
    eliminated: tuple[int, ...]
    slappable: bool
