"""Spit's declarations (docs/games/spit.md): the rules flags, the commands and the view — the
classes the kit, the codec and the schema read by their annotations. This module stays Python in
the compiled build (pyproject.toml [tool.cardcore.compiled]): stock mypyc writes annotations
lossily. The events are native classes, compiled: :mod:`.events` (but ``PlayStarted``, here).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from ... import kit, races
from ...cards import Card, SeenCard, ranks_adjacent, standard_deck
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


# --------------------------------------------------------------------------- what fits

_DECK: Final = tuple(standard_deck())
_FLAGS: Final = (False, True)


def _fits(card: Card, top: Card, wrap: bool, equal: bool, alternate: bool) -> bool:
    """One rank up or down (K–A–2 with ``wrap``: :func:`cardcore.cards.ranks_adjacent`), equal
    with ``allow_equal_rank``, of the other colour with ``alternate_colours``
    (docs/games/spit.md#playing, docs/games/spit.md#variant-flags)."""
    rank_fits = ranks_adjacent(card.rank, top.rank, wrap=wrap) or (equal and card.rank == top.rank)
    return rank_fits and (not alternate or card.is_red != top.is_red)


def _fitting(top: Card, wrap: bool, equal: bool, alternate: bool) -> frozenset[Card]:
    """The cards that may go on ``top`` (:func:`_fits`)."""
    return frozenset(c for c in _DECK if _fits(c, top, wrap, equal, alternate))


def _fitting_by_top(wrap: bool, equal: bool, alternate: bool) -> tuple[frozenset[Card], ...]:
    """:func:`_fitting` of each top card, by ``Card.index``."""
    return tuple(_fitting(top, wrap, equal, alternate) for top in _DECK)


_FITTING: Final = kit.tabulate(_fitting_by_top, _FLAGS, _FLAGS, _FLAGS)
"""The cards that fit on each top card under each combination of the flags: a set lookup per
candidate play (the rules keep their rules' row: ``Setting.fitting``)."""


def fitting(rules: Rules) -> tuple[frozenset[Card], ...]:
    """The cards that may go on each spit pile top (by ``Card.index``) under ``rules``."""
    return _FITTING[rules.wrap, rules.allow_equal_rank, rules.alternate_colours]


def fits(card: Card, top: Card, rules: Rules) -> bool:
    """May ``card`` go on spit pile top ``top``? One rank up or down, K–A–2 with ``wrap``; equal
    with ``allow_equal_rank``; of the other colour with ``alternate_colours``
    (docs/games/spit.md#playing, docs/games/spit.md#variant-flags)."""
    return card in fitting(rules)[top.index]


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
# The events are native classes, compiled: :mod:`.events`; but for this one, which has no field
# (kit.native_records takes only classes with annotated fields).


@kit.record
class PlayStarted:
    """Both players called at the start of a round: phase ``PLAY``."""


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
