"""Spit, docs/games/spit.md.

Two players race, without turns, to get rid of their cards onto two central *spit piles*. Each
player has a *layout* of five stock piles (1, 2, 3, 4, 5 cards, tops face up) and a face-down
packet of *spit cards*. A round starts when both call ``Spit`` (phase ``READY``): each player with
spit cards turns the top one up to start their own spit pile. In phase ``PLAY`` anyone may ``Play``
a face-up layout top onto either spit pile if it is one rank up or down (K–A–2 wrap), ``Flip`` a
face-down layout top, or ``Move`` a face-up top into an empty space. When the game is *stuck* (no
play, flip or card-exposing move for either player) both call ``Spit`` again and turn a spit card
each onto their own pile; a player who still has spit cards when the other has none spits alone
onto one pile, which is then locked for the round. The round ends when a player's layout is empty
(A) or when the game is stuck and nobody has spit cards left (B); with two spit piles the players
``Slap`` for them (first slap takes the pile it names, the other player gets the other pile), then
each shuffles the pile taken with their remaining cards into a new packet and lays it out again.
A player whose new packet is empty wins. Races are decided by sequence order
(docs/games/spit.md#races, docs/games/common.md#the-sequencer).

Either player may ``kit.Resign`` in any phase while the game runs
(docs/games/common.md#leaving-a-game): with two players the game ends at once and the other wins
(termination ``RESIGNED``). The table stays as it stood (phase, cards and lock unchanged, recorded
calls cleared since none can take effect); ``winner`` and ``resigned`` say how it ended.
``legal_commands`` never offers ``Resign`` and ``is_sensible`` calls it unwise, so bots never resign
by chance.

Zones: layout piles are bottom→top; the last ``up[seat][pile]`` cards of a pile are face up (one,
the top, except after a ``Stack`` in that variant; zero while a top waits to be flipped); every
other layout card is face down. Spit cards are top first and face down to everybody, their owner
included. Spit piles (``SP0`` started by seat 0, ``SP1`` by seat 1) are bottom→top and face up; an
empty spit pile does not exist.

A small package: :mod:`.declarations` (the flags, what fits on a spit pile under them, the
commands and the view: the classes read by their annotations, which stay Python in the compiled
build), :mod:`.events` (the events, native classes made records by the kit, compiled; but
``PlayStarted``, a record of :mod:`.declarations`; their redaction and narration),
:mod:`.rules` (the state, ``decide``, ``evolve``, views, ``outcome``, ``legal_commands``) and
:mod:`.position` (positions, their check and notation, docs/notation/spit.md); this module is the
game (``GAME``) and names everything they define, so ``cardcore.games.spit.X`` is every public
name of the game.
"""

from __future__ import annotations

from typing import Final

from ... import kit
from ...engine import Game, GameInfo
from .declarations import (
    PLAY_STARTED,
    SPIT,
    Command,
    Flip,
    Move,
    Phase,
    Play,
    PlayStarted,
    Rules,
    Slap,
    Spit,
    Stack,
    TakePile,
    View,
    fits,
    fitting,
)
from .events import (
    CardPlayed,
    Dealt,
    Event,
    Flipped,
    Moved,
    NewLayout,
    PileClaimed,
    Resigned,
    RoundEnded,
    Spat,
    SpitCalled,
    Stacked,
    hide_layout,
    narrate,
    redact,
    tops_up,
)
from .position import (
    PHASES,
    RESIGNED_FIELD,
    check_position,
    format_position,
    parse_position,
    position,
)
from .rules import (
    GAME_NAME,
    NO_TARGETS,
    RULES_VERSION,
    SEATS,
    SPIT_PILES,
    ZONES,
    Fit,
    Layout,
    State,
    T,
    cards_in_play,
    deal,
    decide,
    deck,
    evolve,
    exposes,
    initial_state,
    is_sensible,
    is_stuck,
    lay_out,
    layout_size,
    legal_commands,
    locked_out,
    outcome,
    playable,
    scan_layout,
    shuffle_hidden,
    spits_alone,
    view,
)

__all__ = (
    "GAME",
    "GAME_NAME",
    "NO_TARGETS",
    "PHASES",
    "PLAY_STARTED",
    "RESIGNED_FIELD",
    "RULES_VERSION",
    "SEATS",
    "SPIT",
    "SPIT_PILES",
    "ZONES",
    "CardPlayed",
    "Command",
    "Dealt",
    "Event",
    "Fit",
    "Flip",
    "Flipped",
    "Layout",
    "Move",
    "Moved",
    "NewLayout",
    "Phase",
    "PileClaimed",
    "Play",
    "PlayStarted",
    "Resigned",
    "RoundEnded",
    "Rules",
    "Slap",
    "Spat",
    "Spit",
    "SpitCalled",
    "Stack",
    "Stacked",
    "State",
    "T",
    "TakePile",
    "View",
    "cards_in_play",
    "check_position",
    "deal",
    "decide",
    "deck",
    "evolve",
    "exposes",
    "fits",
    "fitting",
    "format_position",
    "hide_layout",
    "initial_state",
    "is_sensible",
    "is_stuck",
    "lay_out",
    "layout_size",
    "legal_commands",
    "locked_out",
    "narrate",
    "outcome",
    "parse_position",
    "playable",
    "position",
    "redact",
    "scan_layout",
    "shuffle_hidden",
    "spits_alone",
    "tops_up",
    "view",
)


GAME: Final[Game[State, Command, Event, View, Rules]] = Game(
    info=GameInfo(
        name=GAME_NAME,
        title="Spit",
        rules_version=RULES_VERSION,
        min_seats=2,
        max_seats=2,
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
