"""Speed, docs/games/speed.md.

Two players race to empty their hand and personal draw pile onto two shared centre piles. Deal
(docs/games/speed.md#setup): from the shuffled deck, top first, one card face down to each centre
pile ``C0``, ``C1``; ``S`` cards (``side_pile_size``, default 10) to each side pile ``R0``, ``R1``;
``M`` cards to each player's draw pile ``D`` (15 by default, 20 with ``S = 5``, one more each with
jokers); each player then draws the top ``hand_size`` (5) cards of ``D`` into the hand ``H``. Phase
``READY``.

* ``Flip`` in ``READY`` is the joint start call (docs/games/common.md#joint-calls): when both
  players have called, both centre cards are turned face up. Phase ``PLAY``.
* ``Play(card, to)`` in ``PLAY`` (no turns): a hand card one rank higher or lower (wrap-around K–A–2
  by default) than the top of centre pile ``to``; it lands and the hand is refilled from ``D``
  (``auto_refill``; else explicit ``Draw``). ``expect_top`` is the staleness guard
  (docs/games/common.md#expectations).
* ``Flip`` in ``PLAY`` is the joint stalemate call, allowed only while stuck (no hand card fits
  either top and every hand is as full as it can be; else ``NotStuck``). When both have called,
  each side pile ``Rj`` that is empty is rebuilt from the cards under ``Cj``'s top (shuffled, one
  new RNG stream per shuffle) and then turns its top card face up onto ``Cj``. If no flip could ever
  unblock the game, the round is void and every card is re-dealt (dead stalemate, [ENGINE]).
* A player whose hand and draw pile are both empty after a play wins the round and scores the
  cards of the loser's draw pile (and hand, with ``score_counts="stock_and_hand"``). Without
  ``target_score`` / ``best_of`` the game ends there; with one, all cards are re-dealt from a fresh
  shuffle until a total reaches the target or a player wins the best-of series.
* ``kit.Resign`` in any phase while the game runs (docs/games/common.md#leaving-a-game): with two
  players the game — the whole match, with a target or a series — ends at once and the other player
  wins (termination ``RESIGNED``, the totals as they stand). The table stays as it stood (phase and
  cards unchanged, so centre cards dealt face down stay face down; recorded calls cleared since
  none can take effect); ``winner`` and ``resigned`` say how it ended. ``legal_commands`` never
  offers ``Resign`` and ``is_sensible`` calls it unwise, so bots never resign by chance.

Zones: draw piles and side piles are top first and face down to everyone; centre piles are
bottom→top and face up once started (face down in ``READY``); a hand is seen by its owner only.

A small package: :mod:`.declarations` (the flags, commands and view: the classes read by their
annotations, which stay Python in the compiled build), :mod:`.events` (the events, native classes
made records by the kit, compiled; but ``RoundVoided``, a record of :mod:`.declarations`),
:mod:`.rules` (the state, ``decide``, ``evolve``, views, ``outcome``,
``legal_commands``, narration) and :mod:`.position` (positions, their check and notation,
docs/notation/speed.md); this module is the game (``GAME``) and names everything they define, so
``cardcore.games.speed.X`` is every public name of the game.
"""

from __future__ import annotations

from typing import Final

from ... import kit
from ...engine import Game, GameInfo
from .declarations import (
    DRAW,
    FLIP,
    Command,
    Draw,
    Flip,
    Phase,
    Play,
    RoundVoided,
    Rules,
    ScoreCounts,
    View,
    personal_size,
)
from .events import (
    CardDrawn,
    CardPlayed,
    Dealt,
    Event,
    FlipCalled,
    Resigned,
    RoundWon,
    SideCardsTurned,
    SidePileRebuilt,
    Started,
)
from .position import (
    RESIGNED_FIELD,
    T,
    check_position,
    format_position,
    parse_position,
    position,
)
from .rules import (
    NAME,
    RANKS,
    RULES_VERSION,
    ZONES,
    Piles,
    State,
    Table,
    cards_in_play,
    deal,
    decide,
    deck,
    ends_game,
    evolve,
    fit_table,
    fits,
    initial_state,
    is_sensible,
    is_stuck,
    legal_commands,
    narrate,
    outcome,
    rank_fits,
    redact,
    shuffle_hidden,
    view,
)

__all__ = (
    "DRAW",
    "FLIP",
    "GAME",
    "NAME",
    "RANKS",
    "RESIGNED_FIELD",
    "RULES_VERSION",
    "ZONES",
    "CardDrawn",
    "CardPlayed",
    "Command",
    "Dealt",
    "Draw",
    "Event",
    "Flip",
    "FlipCalled",
    "Phase",
    "Piles",
    "Play",
    "Resigned",
    "RoundVoided",
    "RoundWon",
    "Rules",
    "ScoreCounts",
    "SideCardsTurned",
    "SidePileRebuilt",
    "Started",
    "State",
    "T",
    "Table",
    "View",
    "cards_in_play",
    "check_position",
    "deal",
    "decide",
    "deck",
    "ends_game",
    "evolve",
    "fit_table",
    "fits",
    "format_position",
    "initial_state",
    "is_sensible",
    "is_stuck",
    "legal_commands",
    "narrate",
    "outcome",
    "parse_position",
    "personal_size",
    "position",
    "rank_fits",
    "redact",
    "shuffle_hidden",
    "view",
)


GAME: Final[Game[State, Command, Event, View, Rules]] = Game(
    info=GameInfo(
        name=NAME,
        title="Speed",
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
