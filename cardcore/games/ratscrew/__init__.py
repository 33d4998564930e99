"""Egyptian Ratscrew (ERS), docs/games/ratscrew.md.

Players turn the top card of their face-down stack onto a central pile in turn. A royal (J/Q/K/A by
default) challenges the next player to play 1/2/3/4 cards; if none of them is royal the challenger
is owed the pile and takes it with ``Collect``. Anyone may ``Slap`` the pile at any moment: a slap
on a pattern (double, sandwich, … docs/games/ratscrew.md#slap-patterns) wins the pile; a false slap
is *legal* and penalised by burning cards under the pile (docs/games/ratscrew.md#slapping). Races
are decided by sequence order (docs/games/ratscrew.md#races, docs/games/common.md#the-sequencer).
The game ends when one player holds every card, or only one player is not eliminated.

Commands: ``Play``, ``Slap``, ``Collect`` and the shared :class:`cardcore.kit.Resign`
(docs/games/common.md#leaving-a-game), allowed to any seat still in the game at any moment. With two
players left a resignation ends the game at once (``GameResigned``: the other wins,
``Termination.RESIGNED``); with three or more the resigner's whole stack goes, in order, under the
pile as burned cards and the resigner is eliminated (``Resigned``), then the turn and any claim move
on by the existing rules. ``Resign`` is never among ``legal_commands`` (random bots must not resign
by chance) and never sensible.

Zones: stacks are top first; the pile is ``burned + played`` bottom→top (a burned card goes to the
very bottom, under every played card). Nobody sees any stack, its owner included, nor a burned card;
played cards are face up.

A small package: :mod:`.declarations` (the rules flags, commands and view: the classes read by
their annotations, which stay Python in the compiled build), :mod:`.events` (the events, native
classes made records by the kit, compiled), :mod:`.rules` (the rules: state,
``decide``, ``evolve``, views, ``outcome``, ``legal_commands``) and :mod:`.position` (positions,
their check and notation, docs/notation/ratscrew.md); this module is the game (``GAME``) and names
everything they define, so ``cardcore.games.ratscrew.X`` is every public name of the game.
"""

from __future__ import annotations

from typing import Final

from ... import kit
from ...engine import Game, GameInfo
from .declarations import (
    COLLECT,
    PLAY,
    SLAP,
    Collect,
    Command,
    Play,
    Rules,
    Slap,
    View,
)
from .events import (
    CardPlayed,
    ChallengeLapsed,
    Dealt,
    Event,
    GameResigned,
    PenaltyPaid,
    PileOwed,
    PileTaken,
    PlayerEliminated,
    Resigned,
    Slapped,
    SlapRule,
    TurnPassed,
)
from .position import (
    NOTATION_FIELDS,
    check_position,
    format_position,
    parse_position,
    position,
)
from .rules import (
    MAX_SEATS,
    MIN_SEATS,
    NAME,
    RULES_VERSION,
    SLAP_PATTERNS,
    SLAP_RULE_ORDER,
    ZONES,
    Pattern,
    Plan,
    State,
    cards_in_play,
    deal,
    decide,
    deck,
    evolve,
    initial_state,
    is_sensible,
    legal_commands,
    narrate,
    outcome,
    redact,
    shuffle_hidden,
    slap_match,
    view,
)

__all__ = (
    "COLLECT",
    "GAME",
    "MAX_SEATS",
    "MIN_SEATS",
    "NAME",
    "NOTATION_FIELDS",
    "PLAY",
    "RULES_VERSION",
    "SLAP",
    "SLAP_PATTERNS",
    "SLAP_RULE_ORDER",
    "ZONES",
    "CardPlayed",
    "ChallengeLapsed",
    "Collect",
    "Command",
    "Dealt",
    "Event",
    "GameResigned",
    "Pattern",
    "PenaltyPaid",
    "PileOwed",
    "PileTaken",
    "Plan",
    "Play",
    "PlayerEliminated",
    "Resigned",
    "Rules",
    "Slap",
    "SlapRule",
    "Slapped",
    "State",
    "TurnPassed",
    "View",
    "cards_in_play",
    "check_position",
    "deal",
    "decide",
    "deck",
    "evolve",
    "format_position",
    "initial_state",
    "is_sensible",
    "legal_commands",
    "narrate",
    "outcome",
    "parse_position",
    "position",
    "redact",
    "shuffle_hidden",
    "slap_match",
    "view",
)

GAME: Final[Game[State, Command, Event, View, Rules]] = Game(
    info=GameInfo(
        name=NAME,
        title="Egyptian Ratscrew",
        rules_version=RULES_VERSION,
        min_seats=MIN_SEATS,
        max_seats=MAX_SEATS,
        realtime=True,
        aliases=("ers",),
        replays_versions=("1",),  # version 2 only added Resign: every older action decides alike
    ),
    rules_type=Rules,
    command_types=kit.union_types(Command),
    event_types=kit.union_types(Event),
    view_type=View,
    initial_state=initial_state,
    deal=deal,
    decide=decide,
    evolve=evolve,
    legal_commands=legal_commands,
    outcome=kit.kept_outcome,  # Match's question keeps the answer for the game's own
    view=view,
    redact=redact,
    narrate=narrate,
    deck=deck,
    cards_in_play=cards_in_play,
    shuffle_hidden=shuffle_hidden,
    is_sensible=is_sensible,
    check_position=check_position,
    format_position=format_position,
    parse_position=parse_position,
)
