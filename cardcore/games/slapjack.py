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

Positions (docs/games/common.md#positions): :func:`position` builds one from explicit cards and
:func:`check_position` refuses what no game could reach; the one-line notation
(docs/notation/slapjack.md) is :func:`format_position` / :func:`parse_position`.

Module order (style.md): rules → commands → events → state → view → decide → evolve → redact/view →
outcome/legal_commands → position check and notation → ``GAME``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal, NamedTuple, assert_never, cast

from .. import kit
from .. import notation as nt
from ..cards import HIDDEN, Card, Hidden, SeenCard, standard_deck
from ..engine import (
    Game,
    GameInfo,
    Outcome,
    Role,
    Setup,
    Termination,
    Viewer,
    check_rules,
    check_seat,
    flag,
    seats_phrase,
)
from ..errors import InvalidPosition, InvalidSetup, RejectCode, Rejected
from ..kit import double_or_sandwich, next_holder, next_in_game
from ..rng import shuffled

RULES_VERSION: Final = "2"
"""2 added ``kit.Resign`` (docs/games/common.md#leaving-a-game); every version-1 log decides as
before."""

JACK: Final = 11
MIN_SEATS: Final = 2
MAX_SEATS: Final = 8

SlapTarget = Literal["jack", "double", "sandwich"]

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

    def __post_init__(self) -> None:
        check_rules(self)  # types, Literal values and bounds, as make_setup checks them
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

# --------------------------------------------------------------------------- events


@kit.record
class Dealt:
    """The deck was shuffled and dealt: each seat's stack, top first (face down to everyone)."""

    stacks: tuple[tuple[SeenCard, ...], ...]


@kit.record
class CardPlayed:
    """``seat`` turned ``card`` face up onto the pile; ``current`` plays next (None: nobody holds
    a card and the pile must be slapped, docs/games/slapjack.md#playing-a-card, step 3)."""

    seat: int
    card: Card
    current: int | None


@kit.record
class Slapped:
    """``seat`` slapped: on the ``target`` made of the ``pattern`` cards, or a false slap."""

    seat: int
    valid: bool
    target: SlapTarget | None
    pattern: tuple[Card, ...]


@kit.record
class PileTaken:
    """``seat`` put the whole pile (``cards`` of them, burned ones included) under its stack, by a
    slap or because nobody else held a card (``"return"``, docs/games/slapjack.md#playing-a-card,
    step 3, or the last holder resigned: see :func:`_decide_resign`); ``current`` plays next."""

    seat: int
    cards: int
    by: Literal["slap", "return"]
    current: int


@kit.record
class StackShuffled:
    """``seat``'s whole stack was shuffled (``shuffle_after_win``) into ``stack``, top first.
    Stream ``shuffles + 1`` of the seed; nobody but the referee sees the order."""

    seat: int
    stack: tuple[SeenCard, ...]


@kit.record
class PenaltyPaid:
    """A false slapper's top card went face down to the bottom of seat ``to``'s stack. Nobody but
    the referee sees the card."""

    seat: int
    card: SeenCard
    to: int


@kit.record
class TurnPassed:
    """The turn moved to ``current`` (the current player paid their last card in a penalty)."""

    current: int | None


@kit.record
class PlayerEliminated:
    """``seat`` is out of the game: it missed the Jack it was waiting for, false-slapped with no
    cards, or ran out of cards under ``out_of_cards="eliminate_now"``."""

    seat: int


@kit.record
class Resigned:
    """``seat`` left the game (docs/games/common.md#leaving-a-game) and is eliminated. Its whole
    ``stack`` (top first; face down to everyone, the referee excepted) went under the pile in that
    order: the first card of ``stack`` is now the very bottom card, so whoever takes the pile draws
    them as the resigner would have played them. ``current`` plays next (the turn passed if it was
    ``seat``'s). ``winner``: the other player, when only two were in the game; the game is over
    (``RESIGNED``), else None."""

    seat: int
    stack: tuple[SeenCard, ...]
    current: int | None
    winner: int | None


Event = (
    Dealt
    | CardPlayed
    | Slapped
    | PileTaken
    | StackShuffled
    | PenaltyPaid
    | TurnPassed
    | PlayerEliminated
    | Resigned
)


# --------------------------------------------------------------------------- state


class State(NamedTuple):
    """A whole Slapjack position. Build one directly to test from exact cards (``position``).

    A NamedTuple rather than a frozen dataclass, by measurement (as ratscrew): ``evolve`` builds
    one per event and a tuple is built several times faster; it is just as immutable and typed."""

    setup: Setup[Rules]
    stacks: tuple[tuple[Card, ...], ...]
    """Each seat's face-down stack, top first."""
    pile: tuple[Card, ...] = ()
    """The face-up pile, bottom→top."""
    played_by: tuple[int, ...] = ()
    """Who played each card of ``pile``."""
    epoch: int = 0
    """+1 every time the pile is taken (docs/games/slapjack.md#setup)."""
    current: int | None = 0
    eliminated: frozenset[int] = frozenset()
    shuffles: int = 0
    """Shuffles since the deal; the next draws from stream ``shuffles + 1`` (0 is the deal)."""
    burned: tuple[Card, ...] = ()
    """Resigners' stacks, face down under the pile, bottom→top
    (docs/games/common.md#leaving-a-game)."""
    resigned: int | None = None
    """The seat whose resignation with two players left ended the game
    (docs/games/common.md#leaving-a-game), else None. (A resignation with more players left is an
    elimination: ``eliminated`` has it.)"""


def position(
    stacks: Sequence[Sequence[Card]],
    *,
    rules: Rules | None = None,
    pile: Sequence[Card] = (),
    played_by: Sequence[int] | None = None,
    current: int | None = 0,
    eliminated: Sequence[int] = (),
    epoch: int = 0,
    shuffles: int | None = None,
    burned: Sequence[Card] = (),
    seed: int = 0,
    allow_over: bool = False,
) -> State:
    """A position from explicit cards, for tests and analysis (docs/games/common.md#positions),
    checked by :func:`check_position` (:class:`~cardcore.errors.InvalidPosition`; a finished
    game only with ``allow_over``). ``played_by`` defaults to seat 0 for every pile card;
    ``shuffles`` to what a game reaches at this ``epoch``: one shuffle per pile taken when
    ``shuffle_after_win``, else none. ``burned``: resigners' cards under the pile, bottom→top."""
    rules = rules or Rules()
    by = tuple(played_by) if played_by is not None else tuple(0 for _ in pile)
    if shuffles is None:
        shuffles = epoch if rules.shuffle_after_win else 0
    state = State(
        setup=Setup(seats=len(stacks), seed=seed, rules=rules),
        stacks=tuple(tuple(s) for s in stacks),
        pile=tuple(pile),
        played_by=by,
        epoch=epoch,
        current=current,
        eliminated=frozenset(eliminated),
        shuffles=shuffles,
        burned=tuple(burned),
    )
    check_position(state, allow_over=allow_over)
    return state


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


# --------------------------------------------------------------------------- slap targets


def slap_target(
    pile: Sequence[Card], targets: frozenset[SlapTarget]
) -> tuple[SlapTarget, tuple[Card, ...]] | None:
    """The target the top of ``pile`` makes (jack, then double, then sandwich as in
    docs/games/ratscrew.md#slap-patterns), with its cards; None if a slap now is a false slap."""
    if not pile:
        return None
    top = pile[-1]
    r = top.rank
    if r == JACK:  # "jack" is always a target (Rules.__post_init__)
        return "jack", (top,)
    if len(targets) == 1:
        return None
    return double_or_sandwich(pile, "double" in targets, "sandwich" in targets)


# --------------------------------------------------------------------------- decide


def _awaiting(stacks: Sequence[Sequence[Card]], eliminated: frozenset[int]) -> list[int]:
    """Players still in with no card (docs/games/slapjack.md#status)."""
    return [q for q, s in enumerate(stacks) if not s and q not in eliminated]


def _game_over(state: State) -> None:
    if outcome(state) is not None:
        raise Rejected(RejectCode.GAME_OVER, "the game is over")


def decide(state: State, seat: int, command: Command) -> list[Event]:
    """The events of ``command`` by ``seat``, or :class:`Rejected`
    (docs/games/common.md#order-of-checks). A seat that is not one of this game's raises
    :class:`~cardcore.errors.InvalidSeat`."""
    stacks = state.stacks
    if type(seat) is not int or not 0 <= seat < len(stacks):
        check_seat(state.setup.seats, seat)  # raises: a caller's error, not a rejected action
    eliminated = state.eliminated
    # outcome() is None unless one of these holds (its common case, inlined: this runs on
    # every action)
    if len(eliminated) >= len(stacks) - 1 or (
        not state.pile and state.setup.rules.out_of_cards == "slap_in_unlimited"
    ):
        _game_over(state)
    if seat in eliminated:
        raise Rejected(RejectCode.PLAYER_ELIMINATED, f"seat {seat} is eliminated")
    if type(command) is Play:
        return _decide_play(state, seat)
    if type(command) is Slap:
        return _decide_slap(state, seat, command)
    if type(command) is kit.Resign:
        return _decide_resign(state, seat)
    raise Rejected(RejectCode.INVALID_PHASE, f"not a Slapjack command: {command!r}")


def _decide_play(state: State, p: int) -> list[Event]:
    if state.current != p:
        if state.current is None:
            raise Rejected(RejectCode.NOT_YOUR_TURN, "nobody holds a card: slap the pile")
        raise Rejected(RejectCode.NOT_YOUR_TURN, f"it is seat {state.current}'s turn")
    stacks = state.stacks
    stack = stacks[p]
    if not stack:
        raise Rejected(RejectCode.NO_CARDS, f"seat {p} has no cards")
    rules = state.setup.rules
    mode = rules.out_of_cards
    card = stack[0]
    last = len(stack) == 1
    eliminated = state.eliminated
    pile = state.pile
    # Step 1: a card that covers an unslapped target ends that target's chance
    # (docs/games/slapjack.md#playing-a-card, docs/games/slapjack.md#decisions, item 3).
    # ``p`` held a card before this play, so it is never among them.
    out: list[int] = []
    if (
        pile
        and mode == "next_jack"
        and (
            pile[-1].rank == JACK
            or (len(rules.slap_targets) > 1 and slap_target(pile, rules.slap_targets) is not None)
        )
    ):
        out = _awaiting(stacks, eliminated)
        if out:
            eliminated = eliminated.union(out)
    # Step 3: the next player who holds a card, else p, else nobody. The stacks before the play
    # serve: only p's changes, and the next holder is never p.
    q = p + 1
    if q == len(stacks):
        q = 0
    if stacks[q] and q not in eliminated and q != p:  # the common case: the next seat plays
        current: int | None = q
    else:
        current = next_holder(stacks, eliminated, p)
    if current is not None or not last:
        if current is None:
            current = p
        events: list[Event] = [CardPlayed(p, card, current)]
        if out:
            events += [PlayerEliminated(q) for q in out]
        # Step 2: p is awaiting when empty-handed (derived), or out at once
        # (docs/games/slapjack.md#variant-flags out_of_cards).
        if last and mode == "eliminate_now":
            events.append(PlayerEliminated(p))
        return events
    # Nobody holds a card any more (docs/games/slapjack.md#playing-a-card, step 3).
    new_pile = pile + (card,)
    events = [CardPlayed(p, card, None)]
    events += [PlayerEliminated(q) for q in out]
    if slap_target(new_pile, rules.slap_targets) is not None:
        return events  # current is none until the pile is slapped
    # The pile returns to p, who plays on; the awaiting keep their chance
    # (docs/games/slapjack.md#decisions, item 5).
    return events + _return_pile(state, p, state.burned + new_pile, eliminated)


def _return_pile(
    state: State, p: int, cards: tuple[Card, ...], eliminated: frozenset[int]
) -> list[Event]:
    """Nobody holds a card and no target is on top: the whole pile (``cards``, burned ones
    first) goes to ``p``, who plays on (docs/games/slapjack.md#playing-a-card, step 3,
    docs/games/slapjack.md#decisions, item 5); ``eliminated`` as it stands."""
    rules = state.setup.rules
    events: list[Event] = [PileTaken(p, len(cards), "return", p)]
    if rules.shuffle_after_win:
        events.append(_shuffle(state, p, cards))
    if rules.out_of_cards == "next_jack" and not any(c.rank == JACK for c in cards):
        # No Jack left in the game (constructed positions only): nobody can come back
        # (docs/games/slapjack.md#end-of-the-game).
        awaiting = _awaiting(state.stacks, eliminated)
        events += [PlayerEliminated(q) for q in awaiting if q != p]
    return events


def _shuffle(state: State, p: int, stack: tuple[Card, ...]) -> StackShuffled:
    """Shuffle ``p``'s whole stack with the next RNG stream
    (docs/games/slapjack.md#decisions, item 7)."""
    order = shuffled(state.setup.seed, state.shuffles + 1, list(stack))
    return StackShuffled(p, tuple(order))


def _decide_slap(state: State, p: int, command: Slap) -> list[Event]:
    if command.expect_epoch is not None and command.expect_epoch != state.epoch:
        raise Rejected(
            RejectCode.STALE_ACTION,
            f"expect_epoch {command.expect_epoch} but the pile is epoch {state.epoch}",
        )
    pile = state.pile
    if not pile:
        raise Rejected(RejectCode.EMPTY_PILE, "no card on the pile")
    rules = state.setup.rules
    match = slap_target(pile, rules.slap_targets)
    if match is None:
        return _false_slap(state, p)
    target, pattern = match
    stacks = state.stacks
    stack = stacks[p] + state.burned + pile  # the burned cards lie under the played ones
    events: list[Event] = [Slapped(p, True, target, pattern)]
    # Who plays next (docs/games/slapjack.md#decisions, item 1, docs/games/slapjack.md#variant-flags
    # next_after_win).
    after_win = rules.next_after_win
    current: int | None
    if after_win == "rotation":
        current = state.current if state.current is not None else p
    elif after_win == "winner":
        current = p
    else:
        won = stacks[:p] + (stack,) + stacks[p + 1 :]
        current = next_holder(won, state.eliminated, p)
        if current is None:
            current = p
    events.append(PileTaken(p, len(state.burned) + len(pile), "slap", current))
    if rules.shuffle_after_win:
        events.append(_shuffle(state, p, stack))
    if rules.out_of_cards == "next_jack":
        # The Jack is decided: every other awaiting player missed it
        # (docs/games/slapjack.md#slapping).
        events += [PlayerEliminated(q) for q in _awaiting(stacks, state.eliminated) if q != p]
    return events


def _receiver(state: State, p: int) -> int:
    """Who gets a false slapper's penalty card (docs/games/slapjack.md#slapping,
    docs/games/slapjack.md#variant-flags penalty_recipient)."""
    eliminated = state.eliminated
    by = state.played_by
    # ``by`` is never empty on a checked position (as long as the pile); an unchecked one falls
    # through to the next rule rather than an IndexError.
    if by and state.setup.rules.penalty_recipient == "player_of_top_card":
        q = by[-1]
        if q != p and q not in eliminated:
            return q
    current = state.current
    if current is not None and current != p and current not in eliminated:
        return current
    q2 = next_in_game(len(state.stacks), eliminated, p)
    assert q2 is not None, "the game is running, so another player is in"
    return q2


def _false_slap(state: State, p: int) -> list[Event]:
    rules = state.setup.rules
    events: list[Event] = [Slapped(p, False, None, ())]
    stack = state.stacks[p]
    if not stack:
        # An empty-handed player cannot pay (docs/games/slapjack.md#decisions, item 4).
        if rules.zero_card_false_slap == "eliminate":
            events.append(PlayerEliminated(p))
        return events
    k = min(rules.false_slap_penalty, len(stack))
    if k == 0:
        return events
    receiver = _receiver(state, p)
    events += [PenaltyPaid(p, card, receiver) for card in stack[:k]]
    if k == len(stack):
        eliminated = state.eliminated
        if rules.out_of_cards == "eliminate_now":
            events.append(PlayerEliminated(p))
            eliminated = eliminated | {p}
        # the turn advances as in play (docs/games/slapjack.md#playing-a-card, step 3)
        if state.current == p:
            stacks = list(state.stacks)
            stacks[p] = ()
            stacks[receiver] = stacks[receiver] + stack
            events.append(TurnPassed(next_holder(stacks, eliminated, p)))
    return events


def _decide_resign(state: State, p: int) -> list[Event]:
    """``p`` leaves the game (docs/games/common.md#leaving-a-game); the caller checked that ``p`` is
    still in it.

    Two players in the game: the other wins at once. Three or more: ``p``'s whole stack goes, in
    order, under the pile and ``p`` is eliminated; the rest follows from
    docs/games/slapjack.md#playing-a-card. A Jack on the pile stays for the others (it is not
    ``p``'s to win any more), and if it was ``p``'s turn, it passes as after a play (step 3): to the
    next player holding a card, else to nobody while a target waits on the pile. If nobody else
    holds a card and no target is on top [ENGINE], the pile returns as in step 3 — to the next
    player in the game after ``p``, since ``p`` has left — who plays on, the other awaiting players
    keeping their chance."""
    stacks = state.stacks
    eliminated = state.eliminated
    out = eliminated | {p}
    left = [q for q in range(len(stacks)) if q not in out]
    current = state.current
    if current == p:
        current = next_holder(stacks, out, p)
    if len(left) == 1:  # two were in the game: the other wins, the game is over (outcome)
        return [Resigned(p, stacks[p], current, left[0])]
    events: list[Event] = [Resigned(p, stacks[p], current, None)]
    if current is not None:  # someone still holds a card
        return events
    pile = state.pile
    if slap_target(pile, state.setup.rules.slap_targets) is not None:
        return events  # nobody plays until the target is slapped (step 3)
    q = next_in_game(len(stacks), out, p)
    assert q is not None, "two or more players are still in the game"
    return events + _return_pile(state, q, stacks[p] + state.burned + pile, out)


# --------------------------------------------------------------------------- evolve


def _cards_of(stack: tuple[SeenCard, ...]) -> tuple[Card, ...] | None:
    """The cards of a stack as an event records them, or None if it was redacted."""
    if Hidden in set(map(type, stack)):
        return None
    return cast("tuple[Card, ...]", stack)


_new = tuple.__new__
"""Builds a State from a full tuple of its fields, skipping the keyword-argument layer."""


def evolve(state: State, event: Event) -> State:
    """Apply one event. No rules: the event carries every decision.

    An ``isinstance`` chain, most frequent event first, rather than ``match``: a class pattern
    with positional fields costs several times more than the test and the attribute reads."""
    s = state
    if isinstance(event, CardPlayed):
        p = event.seat
        stacks = s.stacks
        return _new(State, (
            s.setup, stacks[:p] + (stacks[p][1:],) + stacks[p + 1 :], s.pile + (event.card,),
            s.played_by + (p,), s.epoch, event.current, s.eliminated, s.shuffles, s.burned,
            s.resigned,
        ))  # fmt: skip
    if isinstance(event, Slapped):
        return s
    if isinstance(event, PileTaken):
        p = event.seat
        stacks = s.stacks
        return _new(State, (
            s.setup, stacks[:p] + (stacks[p] + s.burned + s.pile,) + stacks[p + 1 :], (), (),
            s.epoch + 1, event.current, s.eliminated, s.shuffles, (), s.resigned,
        ))  # fmt: skip
    if isinstance(event, StackShuffled):
        p = event.seat
        stacks = s.stacks
        cards = _cards_of(event.stack)
        if cards is None:  # a redacted event: the multiset is unchanged, its order unknown
            cards = stacks[p]
        return _new(State, (
            s.setup, stacks[:p] + (cards,) + stacks[p + 1 :], s.pile, s.played_by, s.epoch,
            s.current, s.eliminated, s.shuffles + 1, s.burned, s.resigned,
        ))  # fmt: skip
    if isinstance(event, PenaltyPaid):
        p, to = event.seat, event.to
        new_stacks = list(s.stacks)
        card = new_stacks[p][0]
        new_stacks[p] = new_stacks[p][1:]
        new_stacks[to] = (*new_stacks[to], card)
        return _new(State, (
            s.setup, tuple(new_stacks), s.pile, s.played_by, s.epoch, s.current, s.eliminated,
            s.shuffles, s.burned, s.resigned,
        ))  # fmt: skip
    if isinstance(event, PlayerEliminated):
        return _new(State, (
            s.setup, s.stacks, s.pile, s.played_by, s.epoch, s.current, s.eliminated | {event.seat},
            s.shuffles, s.burned, s.resigned,
        ))  # fmt: skip
    if isinstance(event, TurnPassed):
        return _new(State, (
            s.setup, s.stacks, s.pile, s.played_by, s.epoch, event.current, s.eliminated,
            s.shuffles, s.burned, s.resigned,
        ))  # fmt: skip
    if isinstance(event, Resigned):
        # The stack is taken from the state, not the event: a redacted event applies too.
        p = event.seat
        stacks = s.stacks
        return _new(State, (
            s.setup, stacks[:p] + ((),) + stacks[p + 1 :], s.pile, s.played_by, s.epoch,
            event.current, s.eliminated | {p}, s.shuffles, stacks[p] + s.burned,
            p if event.winner is not None else s.resigned,
        ))  # fmt: skip
    if isinstance(event, Dealt):
        return State(
            s.setup, tuple(tuple(c for c in st if isinstance(c, Card)) for st in event.stacks)
        )
    assert_never(event)


# --------------------------------------------------------------------------- setup, deal


def deck(setup: Setup[Rules]) -> list[Card]:
    return standard_deck(setup.rules.num_decks)


def initial_state(setup: Setup[Rules]) -> State:
    """The table before the deal: empty stacks, P0 to play."""
    return State(setup, tuple(() for _ in range(setup.seats)))


def deal(setup: Setup[Rules]) -> list[Event]:
    """Shuffle with stream 0 of the seed and deal one card at a time from P0
    (docs/games/slapjack.md#setup)."""
    cards = shuffled(setup.seed, 0, deck(setup))
    n = setup.seats
    return [Dealt(tuple(tuple(cards[i::n]) for i in range(n)))]


# --------------------------------------------------------------------------- views, redaction


def view(state: State, viewer: Viewer) -> View:
    """``viewer``'s view: no seat sees any stack, its own included (docs/games/slapjack.md#setup),
    nor a burned card (docs/games/common.md#leaving-a-game)."""
    if not isinstance(viewer, str):  # a Role (a str) or a seat
        check_seat(state.setup.seats, viewer)  # an int viewer is a seat of this game
    referee = viewer == Role.REFEREE
    stacks: tuple[tuple[SeenCard, ...], ...] = (
        state.stacks if referee else tuple((HIDDEN,) * len(s) for s in state.stacks)
    )
    pile: tuple[SeenCard, ...] = state.pile
    if state.burned:  # face down under the played cards
        pile = (state.burned if referee else (HIDDEN,) * len(state.burned)) + pile
    return View(
        stacks=stacks,
        pile=pile,
        played_by=state.played_by,
        epoch=state.epoch,
        current=state.current,
        awaiting=tuple(_awaiting(state.stacks, state.eliminated)),
        eliminated=tuple(sorted(state.eliminated)),
        slappable=slap_target(state.pile, state.setup.rules.slap_targets) is not None,
    )


def redact(event: Event, viewer: Viewer) -> Event:
    """The event as ``viewer`` sees it: stack cards (a resigner's too) are face down but to the
    referee. An event does not know the game's seat count: an int viewer must be a seat number
    (not a bool, not negative, at most the largest seat count); :func:`view` checks it against
    the game."""
    if viewer == Role.REFEREE:
        return event
    if not isinstance(viewer, str):  # a Role (a str) or a seat
        check_seat(len(event.stacks) if type(event) is Dealt else MAX_SEATS, viewer)
    if type(event) is Dealt:
        return Dealt(tuple((HIDDEN,) * len(s) for s in event.stacks))
    if type(event) is PenaltyPaid:
        return PenaltyPaid(event.seat, HIDDEN, event.to)
    if type(event) is StackShuffled:
        return StackShuffled(event.seat, (HIDDEN,) * len(event.stack))
    if type(event) is Resigned:
        return Resigned(event.seat, (HIDDEN,) * len(event.stack), event.current, event.winner)
    return event


ZONES: Final = kit.Zones(
    kit.Zone("stacks", "nobody", per_seat=True),  # face down to everyone, their owners included
    kit.Zone("pile", "everyone"),
    # resigners' stacks, face down under the pile (docs/games/common.md#leaving-a-game)
    kit.Zone("burned", "nobody"),
)
"""Where the cards of a Slapjack state lie, and who sees them: cards_in_play and shuffle_hidden."""

shuffle_hidden = ZONES.shuffle_hidden
cards_in_play = ZONES.cards


# --------------------------------------------------------------------------- outcome, commands


def outcome(state: State) -> Outcome | None:
    """Only one player is not eliminated (docs/games/slapjack.md#end-of-the-game): ``RESIGNED`` if
    the other of the last two resigned (docs/games/common.md#leaving-a-game), else ``ALL_CARDS`` if
    they hold every card, else ``LAST_STANDING``. Under ``out_of_cards="slap_in_unlimited"`` the
    game also ends as soon as one player holds every card (docs/games/slapjack.md#variant-flags).
    Slapjack names no losers."""
    stacks = state.stacks
    n = len(stacks)
    eliminated = state.eliminated
    if len(eliminated) < n - 1:  # the common case first: this runs on every step
        if state.pile or state.setup.rules.out_of_cards != "slap_in_unlimited" or state.burned:
            return None
        holders = [q for q, s in enumerate(stacks) if s]
        if len(holders) == 1:
            return Outcome(Termination.ALL_CARDS, (holders[0],))
        return None
    alive = [q for q in range(n) if q not in eliminated]
    if not alive:
        return Outcome(Termination.LAST_STANDING)
    w = alive[0]
    if state.resigned is not None:
        return Outcome(Termination.RESIGNED, (w,))
    if state.pile or state.burned or any(s for q, s in enumerate(stacks) if q != w):
        return Outcome(Termination.LAST_STANDING, (w,))
    return Outcome(Termination.ALL_CARDS, (w,))


def legal_commands(state: State, seat: int) -> list[Command]:
    """Every command ``seat`` may make now (a false slap is legal). Never ``Resign``, though
    it is accepted (docs/games/common.md#leaving-a-game): a bot picking among these must not resign
    by chance."""
    n = state.setup.seats
    if type(seat) is not int or not 0 <= seat < n:
        check_seat(n, seat)  # raises InvalidSeat
    # outcome() is None unless a seat is eliminated or the pile is empty (its own common case,
    # inlined: this runs for every seat on every step)
    eliminated = state.eliminated
    if eliminated:
        if seat in eliminated:
            return []
        if len(eliminated) >= n - 1 and outcome(state) is not None:
            return []
    mine = state.current == seat and state.stacks[seat]
    if state.pile:
        return [PLAY, SLAP] if mine else [SLAP]
    if state.setup.rules.out_of_cards == "slap_in_unlimited" and outcome(state) is not None:
        return []
    return [PLAY] if mine else []


def is_sensible(state: State, seat: int, command: Command) -> bool:
    """Bots' hint: slap only a target, and never cover one you could slap instead; never resign."""
    n = state.setup.seats
    if type(seat) is not int or not 0 <= seat < n:
        check_seat(n, seat)  # raises InvalidSeat
    if type(command) is kit.Resign:
        return False
    pile = state.pile
    if not pile:
        return type(command) is not Slap
    if pile[-1].rank == JACK:
        return type(command) is Slap
    # slap_target, but its call only when a target other than the jack is on
    targets = state.setup.rules.slap_targets
    slappable = len(targets) > 1 and slap_target(pile, targets) is not None
    return slappable is (type(command) is Slap)


# --------------------------------------------------------------------------- position check


def _check_count(value: object, field: str) -> None:
    if type(value) is not int or value < 0:
        raise InvalidPosition(field, f"must be a non-negative int, got {value!r:.40}")


def check_position(state: State, *, allow_over: bool = False) -> None:
    """Raise :class:`InvalidPosition` naming the field at fault unless a Slapjack game could
    reach ``state`` (a finished one only with ``allow_over``). What the rules
    (docs/games/slapjack.md) guarantee:

    * every card comes from the setup's decks, none more often than they hold it (fewer is
      fine: a small hand-written position); ``played_by`` names one seat per pile card;
    * an eliminated player holds no card: only an empty hand is eliminated, and nobody ever
      gives one a card (docs/games/slapjack.md#slapping); at least one player is still in (the game
      ends at one);
    * ``current`` is a player in the game who holds a card (step 3, ``TurnPassed`` and
      ``Resigned`` pick a holder, and nothing else takes a card from them), or None exactly when
      nobody holds a card and a target waits on top of the pile to be slapped (step 3) — so a
      position always holds a card;
    * burned cards lie under the pile only after a resignation
      (docs/games/common.md#leaving-a-game), so some seat is eliminated; ``resigned`` is None, or an
      eliminated seat and the game is over;
    * ``shuffles`` counts one shuffle per pile taken (``epoch``) under ``shuffle_after_win``,
      none otherwise;
    * the game is not over (:func:`outcome`).
    """
    setup = state.setup
    if not isinstance(setup, Setup) or not isinstance(setup.rules, Rules):
        raise InvalidPosition("setup", f"not a Slapjack setup: {setup!r:.60}")
    n = setup.seats
    if type(n) is not int or not MIN_SEATS <= n <= MAX_SEATS:
        raise InvalidPosition(
            "setup", f"Slapjack takes {seats_phrase(MIN_SEATS, MAX_SEATS)}, got {n!r}"
        )
    stacks = state.stacks
    if type(stacks) is not tuple or len(stacks) != n:
        raise InvalidPosition("stacks", f"must be a tuple of one stack per seat ({n})")
    for q, stack in enumerate(stacks):
        if type(stack) is not tuple:
            raise InvalidPosition(f"stacks[{q}]", "must be a tuple of cards")
    pile = state.pile
    if type(pile) is not tuple:
        raise InvalidPosition("pile", "must be a tuple of cards")
    if type(state.burned) is not tuple:
        raise InvalidPosition("burned", "must be a tuple of cards")
    ZONES.check_cards(state, deck(setup))  # names the zone a card is one too many in
    played_by = state.played_by
    if type(played_by) is not tuple or len(played_by) != len(pile):
        raise InvalidPosition(
            "played_by", f"must name one seat per pile card ({len(pile)}), got {played_by!r:.40}"
        )
    for i, q in enumerate(played_by):
        nt.check_seat_field(q, n, f"played_by[{i}]")
    _check_count(state.epoch, "epoch")
    _check_count(state.shuffles, "shuffles")
    expected = state.epoch if setup.rules.shuffle_after_win else 0
    if state.shuffles != expected:
        raise InvalidPosition(
            "shuffles",
            f"must be {expected}: one shuffle per pile taken (epoch {state.epoch}) "
            f"when shuffle_after_win={setup.rules.shuffle_after_win}",
        )
    eliminated = state.eliminated
    if type(eliminated) is not frozenset:
        raise InvalidPosition("eliminated", "must be a frozenset of seats")
    for q in sorted(eliminated, key=repr):
        nt.check_seat_field(q, n, "eliminated")
        if stacks[q]:
            raise InvalidPosition(f"stacks[{q}]", f"seat {q} is eliminated but holds cards")
    if len(eliminated) == n:
        raise InvalidPosition("eliminated", "every seat is eliminated; the game ends at one")
    if state.burned and not eliminated:
        raise InvalidPosition(
            "burned",
            "only a resigner's cards are burned, and none resigned "
            "(docs/games/slapjack.md#leaving)",
        )
    resigned = state.resigned
    if resigned is not None:
        nt.check_seat_field(resigned, n, "resigned")
        if resigned not in eliminated or len(eliminated) != n - 1:
            raise InvalidPosition(
                "resigned",
                "names the eliminated seat that ended the game with two left "
                "(docs/games/slapjack.md#leaving)",
            )
        if not allow_over:
            raise InvalidPosition("resigned", "the game is already over")
        return  # the game ended with the resignation: there is no next turn to check
    current = state.current
    if current is None:
        if any(stacks):
            raise InvalidPosition(
                "current",
                "is none only while nobody holds a card (docs/games/slapjack.md#playing-a-card)",
            )
        if slap_target(pile, setup.rules.slap_targets) is None:
            raise InvalidPosition(
                "current",
                "is none only while a target waits on the pile to be slapped "
                "(docs/games/slapjack.md#playing-a-card)",
            )
    else:
        nt.check_seat_field(current, n, "current")
        if current in eliminated:
            raise InvalidPosition("current", f"seat {current} is eliminated")
        if not stacks[current]:
            raise InvalidPosition(
                "current",
                f"seat {current} holds no card to play (docs/games/slapjack.md#playing-a-card)",
            )
    if not allow_over and outcome(state) is not None:
        field = "eliminated" if len(eliminated) >= n - 1 else "stacks"
        raise InvalidPosition(field, "the game is already over")


# --------------------------------------------------------------------------- notation

_FIELDS: Final = ("stacks", "pile", "played_by", "epoch", "current", "eliminated", "shuffles")
"""The fields of the notation, in order (docs/notation/slapjack.md)."""
_BURNED_FIELDS: Final = (*_FIELDS, "burned")
"""With the optional last field: written only when burned cards lie under the pile, so every
other position reads as it did before rules version 2 added resigning
(docs/games/common.md#leaving-a-game)."""


def format_position(state: State, viewer: Viewer) -> str:
    """``state`` in one line (docs/notation/slapjack.md). Every stack card and burned card is
    ``??`` but to the referee, exactly as :func:`view` hides them; the pile's played cards are
    face up to everyone. The ``burned`` field is written only when a card is burned."""
    burned: tuple[SeenCard, ...] = state.burned
    if viewer == Role.REFEREE:
        stacks = nt.per_seat_text(state.stacks, nt.cards_text)
    else:
        if not isinstance(viewer, str):  # a Role (a str) or a seat
            check_seat(state.setup.seats, viewer)
        stacks = nt.per_seat_text(state.stacks, lambda s: nt.cards_text((HIDDEN,) * len(s)))
        burned = (HIDDEN,) * len(burned)
    fields = [
        stacks,
        nt.cards_text(state.pile),
        ",".join(map(str, state.played_by)) or nt.EMPTY,
        nt.int_text(state.epoch),
        nt.int_text(state.current),
        nt.seats_text(state.eliminated),
        nt.int_text(state.shuffles),
    ]
    if burned:
        fields.append(nt.cards_text(burned))
    return nt.join(GAME.info.name, fields, state.setup.rules)


def parse_position(text: str, rules: Rules | None = None) -> State:
    """The position a referee's notation ``text`` describes, under ``rules`` (default rules when
    None), with ``Setup(seats, seed 0, rules)``; checked by :func:`check_position` (a finished
    game is refused). The eighth field, ``burned``, is there only when cards are burned, so a
    text of rules version 1 reads as it always did. Raises :class:`InvalidPosition` naming the
    field at fault. The rules are the text's own when it carries them (they must then be
    ``rules``, if given)."""
    text, position_rules = nt.read_rules(text, GAME.info.name, Rules, rules)
    # Seven fields, or eight with burned cards; counted only on what nt.split will read.
    short = isinstance(text, str) and len(text) <= nt.MAX_NOTATION
    parts = text.strip().split(" ") if short else []
    optional = len(parts) == 1 + len(_BURNED_FIELDS) and all(parts)  # not a double space
    fields = nt.split(text, GAME.info.name, _BURNED_FIELDS if optional else _FIELDS)
    stacks = nt.parse_per_seat(fields[0], "stacks", nt.parse_cards)
    n = len(stacks)
    if not MIN_SEATS <= n <= MAX_SEATS:
        raise InvalidPosition(
            "stacks", f"Slapjack takes {seats_phrase(MIN_SEATS, MAX_SEATS)}, got {n}"
        )
    pile = nt.parse_cards(fields[1], "pile")
    by_text = fields[2]
    played_by = (
        ()
        if by_text == nt.EMPTY
        else tuple(
            nt.parse_int(t, f"played_by[{i}]", hi=n - 1) for i, t in enumerate(by_text.split(","))
        )
    )
    state = State(
        setup=Setup(n, 0, position_rules),
        stacks=stacks,
        pile=pile,
        played_by=played_by,
        epoch=nt.parse_int(fields[3], "epoch"),
        current=nt.parse_opt_int(fields[4], "current", hi=n - 1),
        eliminated=nt.parse_seats(fields[5], "eliminated", n),
        shuffles=nt.parse_int(fields[6], "shuffles"),
        burned=_parse_burned(fields[7]) if optional else (),
    )
    check_position(state)
    return state


def _parse_burned(text: str) -> tuple[Card, ...]:
    if text == nt.EMPTY:  # one spelling per position: no burned cards, no field
        raise InvalidPosition("burned", "is left out when no card is burned, never written '-'")
    return nt.parse_cards(text, "burned")


# --------------------------------------------------------------------------- narration


def _cards(cards: Sequence[Card]) -> str:
    return "-".join(c.symbol for c in cards)


def narrate(event: Event) -> str:
    """One adjudication in plain words."""
    match event:
        case Dealt(stacks):
            return "dealt " + ", ".join(f"seat {i}: {len(s)} cards" for i, s in enumerate(stacks))
        case CardPlayed(seat, card, current):
            text = f"seat {seat} played {card.symbol}"
            if current is None:
                text += "; nobody holds a card"
            return text
        case Slapped(seat, valid, target, pattern):
            if valid:
                return f"seat {seat} slapped on the {target} {_cards(pattern)}: valid"
            return f"seat {seat} slapped: false slap"
        case PileTaken(seat, cards, by, current):
            if by == "return":
                text = f"nobody else holds a card: the pile ({cards} cards) returns to seat {seat}"
            else:
                text = f"seat {seat} takes the pile ({cards} cards)"
            return text + f"; seat {current} plays next"
        case StackShuffled(seat, stack):
            return f"seat {seat} shuffles its stack ({len(stack)} cards)"
        case PenaltyPaid(seat, card, to):
            shown = "a face-down card" if card is HIDDEN else str(card)
            return f"seat {seat} pays {shown} to seat {to}"
        case TurnPassed(current):
            return f"the turn passes to seat {current}"
        case PlayerEliminated(seat):
            return f"seat {seat} is eliminated"
        case Resigned(seat, stack, current, winner):
            k = len(stack)
            text = f"seat {seat} resigned"
            if k:
                text += f"; their {k} card{'s go' if k > 1 else ' goes'} under the pile"
            if winner is not None:
                return text + f"; seat {winner} wins"
            if current is None:
                return text + "; nobody holds a card"
            return text + f"; seat {current} plays next"
        case _:
            assert_never(event)


GAME: Final[Game[State, Command, Event, View, Rules]] = Game(
    info=GameInfo(
        name="slapjack",
        title="Slapjack",
        rules_version=RULES_VERSION,
        min_seats=2,
        max_seats=8,
        realtime=True,
        replays_versions=("1",),
    ),
    rules_type=Rules,
    command_types=(Play, Slap, kit.Resign),
    event_types=(
        Dealt,
        CardPlayed,
        Slapped,
        PileTaken,
        StackShuffled,
        PenaltyPaid,
        TurnPassed,
        PlayerEliminated,
        Resigned,
    ),
    view_type=View,
    initial_state=initial_state,
    deal=deal,
    decide=decide,
    evolve=evolve,
    legal_commands=legal_commands,
    outcome=outcome,
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
