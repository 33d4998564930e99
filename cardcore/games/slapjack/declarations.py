"""Slapjack's declarations (docs/games/slapjack.md): the rules flags, the commands and the view —
the classes the kit, the codec and the schema read by their annotations. This module stays Python
in the compiled build (pyproject.toml [tool.cardcore.compiled]): stock mypyc writes annotations
lossily. The events are native classes, compiled: :mod:`.events`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from ... import kit, races
from ...cards import SeenCard
from ...engine import check_rules, flag
from ...errors import InvalidSetup
from .events import SlapTarget

# --------------------------------------------------------------------------- rules


@dataclass(frozen=True, slots=True)
class Rules:
    """The variant flags, with their defaults (docs/games/slapjack.md#variant-flags)."""

    slap_targets: frozenset[SlapTarget] = flag(
        frozenset({"jack"}),
        "what may be slapped: the jack, plus double / sandwich "
        "(docs/games/ratscrew.md#slap-patterns)",
    )
    shuffle_after_win: bool = flag(True, "a won pile is shuffled into the winner's whole stack")
    false_slap_penalty: int = flag(1, "cards a false slapper gives away", min=0, max=52)
    penalty_recipient: Literal["player_of_top_card", "current_player"] = flag(
        "player_of_top_card", "who receives a false slapper's penalty card"
    )
    next_after_win: Literal["rotation", "winner", "left_of_winner"] = flag(
        "rotation", "who plays after a pile is won"
    )
    out_of_cards: Literal["next_jack", "eliminate_now", "slap_in_unlimited"] = flag(
        "next_jack", "a player with no cards: waits for the next jack, is out, or waits forever"
    )
    zero_card_false_slap: Literal["eliminate", "ignore"] = flag(
        "eliminate", "a false slap by a player with no cards"
    )
    num_decks: int = flag(1, "52-card decks shuffled together", min=1, max=8)

    race_policy: Literal["arrival", "compensated"] = races.policy_flag()
    race_cap_ms: int = races.cap_flag()

    def __post_init__(self) -> None:
        check_rules(self)  # types, Literal values and bounds, as make_setup checks them
        races.check_race_flags(self)
        # The game is Slapjack: a Jack is always a target; docs/games/slapjack.md#variant-flags
        # lists double and sandwich as additions ("+ double"). It also guarantees the end of
        # docs/games/slapjack.md#playing-a-card, step 3 (a Jack resurfaces).
        if "jack" not in self.slap_targets:
            raise InvalidSetup(
                "rules.slap_targets",
                "must include 'jack' (the jack plus extras: docs/games/slapjack.md#variant-flags)",
            )


# --------------------------------------------------------------------------- commands


@kit.command("play")
class Play:
    """Turn the top card of your stack face up onto the pile (your turn)."""


@kit.command("slap [epoch {expect_epoch}]")
class Slap:
    """Slap the pile. ``expect_epoch``: the pile you saw (else ``StaleAction``,
    docs/games/slapjack.md#races)."""

    expect_epoch: int | None = None


Command = Play | Slap | kit.Resign

PLAY: Final = Play()
SLAP: Final = Slap()

# --------------------------------------------------------------------------- view


@kit.view
class View:
    """What one viewer sees. Stacks are all face down (``??``) except to the referee."""

    stacks: tuple[tuple[SeenCard, ...], ...]
    pile: tuple[SeenCard, ...]
    """The whole pile bottom→top: the burned cards of resigners face down (``??`` but to the
    referee), then the played cards, face up; the last ``len(played_by)`` are the played ones."""
    played_by: tuple[int, ...]
    """Who played each played card (the top of ``pile``), in the same order."""
    epoch: int
    current: int | None
    awaiting: tuple[int, ...]
    """Players still in with no card, waiting for the next Jack (docs/games/slapjack.md#status)."""
    eliminated: tuple[int, ...]
    slappable: bool
