"""Slapjack, docs/games/slapjack.md.

The whole deck is dealt face down, one card at a time from P0 (docs/games/slapjack.md#setup). In
turn, each player turns the top card of their stack face up onto a central pile (``Play``). When the
top card is a Jack (or a variant target, docs/games/slapjack.md#variant-flags ``slap_targets``)
anyone may ``Slap`` it: the first slap in sequence order takes the whole pile under its stack, which
is then shuffled with the game RNG (``shuffle_after_win``). A slap on anything else is a *legal*
false slap, penalised by giving a card face down to another player
(docs/games/slapjack.md#slapping). A player who runs out of cards is ``awaiting``: still in until
the next Jack, which they must win or be eliminated (``out_of_cards``). The game ends when only one
player is not eliminated (docs/games/slapjack.md#end-of-the-game).

Any seat still in the game, an awaiting one included, may ``kit.Resign`` at any time
(docs/games/common.md#leaving-a-game; ``Resign(by="timer")`` is the host's forfeit and is decided
the same). With two players left the other one wins at once (``RESIGNED``). With three or more, the
resigner's whole stack goes, in order, face down under the pile (``burned``: it goes to whoever
takes the pile next) and they are eliminated; if it was their turn it passes as after their play
(docs/games/slapjack.md#playing-a-card, step 3). ``legal_commands`` never offers ``Resign`` and
``is_sensible`` is false for it: a bot must not resign by chance.

Zones: stacks are top first; the pile is bottom→top and every card on it was played face up (a
false slap's penalty goes to a player, never to the pile). Under it lie the ``burned`` cards of
the players who resigned, face down, bottom→top. Nobody sees any stack nor a burned card, their
owners included; the resulting order of a shuffle is shown to the referee only.

Status is not stored: a player is ``eliminated`` (a set), else ``awaiting`` when they hold no card
and ``active`` when they hold one (docs/games/slapjack.md#status).

A small package: :mod:`.declarations` (the rules flags, commands and view: the classes read by
their annotations, which stay Python in the compiled build), :mod:`.events` (the events, native
classes made records by the kit, compiled), :mod:`.rules` (the rules: state,
``decide``, ``evolve``, views, ``outcome``, ``legal_commands``) and :mod:`.position` (positions,
their check and notation, docs/notation/slapjack.md); this module is the game (``GAME``) and names
everything they define, so ``cardcore.games.slapjack.X`` is every public name of the game.
"""

from __future__ import annotations

from typing import Final

from ... import kit
from ...engine import Game, GameInfo
from .declarations import (
    PLAY,
    SLAP,
    Command,
    Play,
    Rules,
    Slap,
    View,
)
from .events import (
    CardPlayed,
    Dealt,
    Event,
    PenaltyPaid,
    PileTaken,
    PlayerEliminated,
    Resigned,
    Slapped,
    SlapTarget,
    StackShuffled,
    TurnPassed,
)
from .position import (
    check_position,
    format_position,
    parse_position,
    position,
)
from .rules import (
    JACK,
    MAX_SEATS,
    MIN_SEATS,
    NAME,
    RULES_VERSION,
    ZONES,
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
    slap_target,
    view,
)

__all__ = (
    "GAME",
    "JACK",
    "MAX_SEATS",
    "MIN_SEATS",
    "NAME",
    "PLAY",
    "RULES_VERSION",
    "SLAP",
    "ZONES",
    "CardPlayed",
    "Command",
    "Dealt",
    "Event",
    "PenaltyPaid",
    "PileTaken",
    "Play",
    "PlayerEliminated",
    "Resigned",
    "Rules",
    "Slap",
    "SlapTarget",
    "Slapped",
    "StackShuffled",
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
    "slap_target",
    "view",
)

GAME: Final[Game[State, Command, Event, View, Rules]] = Game(
    info=GameInfo(
        name=NAME,
        title="Slapjack",
        rules_version=RULES_VERSION,
        min_seats=MIN_SEATS,
        max_seats=MAX_SEATS,
        realtime=True,
        replays_versions=("1",),
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
