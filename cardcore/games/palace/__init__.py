"""Palace (Shithead), docs/games/palace.md.

Each player has three face-down cards ``F``, three face-up cards ``U`` on them and a hand ``H`` of
three; the rest of the deck is the stock ``D``. In the ``setup`` phase players ``Swap`` hand and
face-up cards until each calls ``Ready``; the starter is then determined
(docs/games/palace.md#starter, flag ``starter_rule``). In turn, a player plays one or more cards of
one rank from the *active source* (``H`` while it holds cards, then ``U``, then ``F`` blind with
``PlayFaceDown``) onto the discard pile: the rank must equal or beat the top card (rank order 3 … 9
J Q K A; 2 and 10 go on anything), then the player draws back to three while the stock lasts. A 2
resets the pile and its player plays again; a 10, or four cards of one rank on top of the pile (also
across several players' plays), burns the pile and the player who burned it leads again
(*follow-up*). A player who cannot play must ``Pickup`` the pile (``MustPlayIfAble``); a blind card
that does not fit is taken into the hand with the pile. Two racing actions
(docs/games/palace.md#races), decided by sequence order: any player may complete a four of a kind
out of turn with ``Play`` (then they lead), and a player whose turn just passed may ``AddDrawn``
just-drawn cards of the rank they just played until the next player acts. Players who run out of
cards go out in order; the last player holding cards loses (the shithead).

``kit.Resign`` (docs/games/common.md#leaving-a-game), in either phase, by a seat still in the game:
its hand, face-up and face-down cards are set aside and it is out, ranked below every seat that goes
out (the first to resign last; ``outcome`` gives the whole ranking). With two players left the game
ends at once and the other wins (``RESIGNED``). Otherwise play goes on: in the setup phase nobody
waits for the resigner to be ready; in play any add-drawn window closes, and on the resigner's turn
the next player plays on the pile as it is. ``legal_commands`` never lists ``Resign`` and
``is_sensible`` calls it unwise, so that no bot resigns by chance (and playouts stay as they were).

Zones: ``hands`` (private to their owner, in the order received), ``up`` (public), ``down``
(nobody sees them, their owner included; positions 0..len-1), ``stock`` top first (nobody sees
it), ``pile`` bottom→top (public), ``burned`` (public: every burned card was face up on the pile),
``set_aside`` (the cards of resigned seats, out of the game face down: nobody sees them).

[ENGINE] interpretations beyond the usual rules (docs/games/palace.md states them too), stated once
here and cited where used:

* A *power* rank is one that may be played on anything: 2, 10, a joker, and a 3 under
  ``three_invisible``. Transparent cards (jokers, and 3s under ``three_invisible``) are skipped by
  every rule that looks at the top card; a pile of transparent cards only is like an empty pile.
* Jokers (``jokers`` > 0, Garfield's variant on pagat): playable on anything, transparent, and each
  joker played reverses the direction of play. A burn by a play overrides its skip and reversal.
* ``finish_on_special=False``: a turn play (or a blind card) that would leave its player with no
  card at all, made of power cards, is accepted but fails like a bad blind card: the player takes
  the pile with those cards into the hand and the turn passes (this keeps a player whose last
  card is a 2 from being stuck on an empty pile). The optional actions that would do it, an
  out-of-turn completion or ``AddDrawn``, are rejected with ``IllegalCard``. Such a failing play
  does not count as a legal play for ``MustPlayIfAble``. The restriction lapses once every card
  left in play (hands, table cards, stock, pile) is a power card: nobody could go out otherwise.
* ``combine_hand_and_up`` applies to turn plays only: the play holds every hand card (the stock
  being empty) plus face-up cards of the same rank.
* Out-of-turn completion needs ``four_of_a_kind_burn="consecutive"`` (the other values never burn
  across plays). ``starter_must_play_lowest`` binds the first play of the game to the lowest
  non-power rank of the starter's active source.
* Every seat must get its ``3 × cards_per_area`` cards: 2–5 seats on one deck, more with
  ``num_decks=2`` (docs/games/palace.md#setup); any ``cards_per_area`` whose deal fits the decks is
  accepted (docs/games/palace.md#variant-flags; one that does not fit is an ``InvalidSetup`` naming
  ``rules.cards_per_area``).

A small package: :mod:`.declarations` (the flags, commands and the ``View``: the classes read by
their annotations, which stay Python in the compiled build), :mod:`.events` (the events, native
classes made records by the kit, compiled),
:mod:`.rules` (the state, ranks, ``evolve``, the deal, ``outcome``), :mod:`.decide`,
:mod:`.moves` (``legal_commands`` and the bots' hint ``is_sensible``), :mod:`.views` (views,
redaction, narration) and :mod:`.position` (positions, their check and notation,
docs/notation/palace.md); this module is the game (``GAME``) and names everything they define, so
``cardcore.games.palace.X`` is every public name of the game.
"""

from __future__ import annotations

from typing import Final

from ... import kit
from ...engine import Game, GameInfo
from .decide import (
    decide,
)
from .declarations import (
    PICKUP,
    READY,
    AddDrawn,
    BurnKind,
    Command,
    Phase,
    Pickup,
    Play,
    PlayFaceDown,
    Ready,
    Rules,
    Swap,
    TakeReason,
    View,
)
from .events import (
    CardsAdded,
    CardsDrawn,
    CardsPlayed,
    Dealt,
    DirectionReversed,
    Event,
    FaceDownTurned,
    PileBurned,
    PileTaken,
    PlayerResigned,
    PlayerWentOut,
    PlayStarted,
    Readied,
    Swapped,
    TurnPassed,
)
from .moves import (
    is_sensible,
    legal_commands,
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
    State,
    check_setup,
    deal,
    deck,
    evolve,
    initial_state,
    outcome,
    to_act,
)
from .views import (
    ZONES,
    cards_in_play,
    narrate,
    redact,
    shuffle_hidden,
    view,
)

__all__ = (
    "GAME",
    "MAX_SEATS",
    "MIN_SEATS",
    "NAME",
    "NOTATION_FIELDS",
    "PICKUP",
    "READY",
    "RULES_VERSION",
    "ZONES",
    "AddDrawn",
    "BurnKind",
    "CardsAdded",
    "CardsDrawn",
    "CardsPlayed",
    "Command",
    "Dealt",
    "DirectionReversed",
    "Event",
    "FaceDownTurned",
    "Phase",
    "Pickup",
    "PileBurned",
    "PileTaken",
    "Play",
    "PlayFaceDown",
    "PlayStarted",
    "PlayerResigned",
    "PlayerWentOut",
    "Readied",
    "Ready",
    "Rules",
    "State",
    "Swap",
    "Swapped",
    "TakeReason",
    "TurnPassed",
    "View",
    "cards_in_play",
    "check_position",
    "check_setup",
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
    "to_act",
    "view",
)

GAME: Final[Game[State, Command, Event, View, Rules]] = Game(
    info=GameInfo(
        name=NAME,
        title="Palace (Shithead)",
        rules_version=RULES_VERSION,
        replays_versions=("1",),  # version 2 only added Resign: every older action decides alike
        min_seats=MIN_SEATS,
        max_seats=MAX_SEATS,
        realtime=True,
        aliases=("shithead",),
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
    to_act=to_act,
    view=view,
    redact=redact,
    narrate=narrate,
    deck=deck,
    cards_in_play=cards_in_play,
    shuffle_hidden=shuffle_hidden,
    is_sensible=is_sensible,
    check_setup=check_setup,
    check_position=check_position,
    format_position=format_position,
    parse_position=parse_position,
)
