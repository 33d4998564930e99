"""Slapjack, rules.md §4.

The whole deck is dealt face down, one card at a time from P0 (§4.2 setup). In turn, each player
turns the top card of their stack face up onto a central pile (``Play``). When the top card is a
Jack (or a variant target, §4.4 ``slap_targets``) anyone may ``Slap`` it: the first slap in
sequence order takes the whole pile under its stack, which is then shuffled with the game RNG
(``shuffle_after_win``). A slap on anything else is a *legal* false slap, penalised by giving a card
face down to another player (§4.2 slap). A player who runs out of cards is ``awaiting``: still in
until the next Jack, which they must win or be eliminated (``out_of_cards``). The game ends when
only one player is not eliminated (§4.2 end).

Zones: stacks are top first; the pile is bottom→top and every card on it was played face up (a
false slap's penalty goes to a player, never to the pile). Nobody sees any stack, its owner
included; the resulting order of a shuffle is shown to the referee only.

Status is not stored: a player is ``eliminated`` (a set), else ``awaiting`` when they hold no card
and ``active`` when they hold one (§4.2 status invariant).

Module order (style.md): rules → commands → events → state → view → decide → evolve → redact/view →
outcome/legal_commands → ``GAME``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal, NamedTuple, assert_never, cast

from ..cards import HIDDEN, JOKER, Card, Hidden, SeenCard, standard_deck
from ..engine import (
    Game,
    GameInfo,
    Outcome,
    Role,
    Setup,
    Termination,
    Viewer,
    check_rules,
    flag,
)
from ..errors import InvalidSetup, RejectCode, Rejected
from ..rng import Rng, shuffled

RULES_VERSION: Final = "1"

JACK: Final = 11

SlapTarget = Literal["jack", "double", "sandwich"]

# --------------------------------------------------------------------------- rules (§4.4)


@dataclass(frozen=True, slots=True)
class Rules:
    """The variant flags of rules.md §4.4, with their defaults."""

    slap_targets: frozenset[SlapTarget] = flag(
        frozenset({"jack"}), "what may be slapped: the jack, plus double / sandwich (ERS §1.4)"
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
        # The game is Slapjack: a Jack is always a target; §4.4 lists double and sandwich as
        # additions ("+ double"). It also guarantees the end of §4.2 step 3 (a Jack resurfaces).
        if "jack" not in self.slap_targets:
            raise InvalidSetup("rules.slap_targets", "must include 'jack' (§4.4: jack + extras)")


# --------------------------------------------------------------------------- commands


@dataclass(frozen=True, slots=True)
class Play:
    """Turn the top card of your stack face up onto the pile (your turn)."""


@dataclass(frozen=True, slots=True)
class Slap:
    """Slap the pile. ``expect_epoch``: the pile you saw (else ``StaleAction``, §4.3)."""

    expect_epoch: int | None = None


Command = Play | Slap

PLAY: Final = Play()
SLAP: Final = Slap()

# --------------------------------------------------------------------------- events


@dataclass(frozen=True, slots=True)
class Dealt:
    """The deck was shuffled and dealt: each seat's stack, top first (face down to everyone)."""

    stacks: tuple[tuple[SeenCard, ...], ...]


@dataclass(frozen=True, slots=True)
class CardPlayed:
    """``seat`` turned ``card`` face up onto the pile; ``current`` plays next (None: nobody holds
    a card and the pile must be slapped, §4.2 step 3)."""

    seat: int
    card: Card
    current: int | None


@dataclass(frozen=True, slots=True)
class Slapped:
    """``seat`` slapped: on the ``target`` made of the ``pattern`` cards, or a false slap."""

    seat: int
    valid: bool
    target: SlapTarget | None
    pattern: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class PileTaken:
    """``seat`` put the whole pile (``cards`` of them) under its stack, by a slap or because nobody
    else held a card (``"return"``, §4.2 step 3); ``current`` plays next."""

    seat: int
    cards: int
    by: Literal["slap", "return"]
    current: int


@dataclass(frozen=True, slots=True)
class StackShuffled:
    """``seat``'s whole stack was shuffled (``shuffle_after_win``) into ``stack``, top first.
    Stream ``shuffles + 1`` of the seed; nobody but the referee sees the order."""

    seat: int
    stack: tuple[SeenCard, ...]


@dataclass(frozen=True, slots=True)
class PenaltyPaid:
    """A false slapper's top card went face down to the bottom of seat ``to``'s stack. Nobody but
    the referee sees the card."""

    seat: int
    card: SeenCard
    to: int


@dataclass(frozen=True, slots=True)
class TurnPassed:
    """The turn moved to ``current`` (the current player paid their last card in a penalty)."""

    current: int | None


@dataclass(frozen=True, slots=True)
class PlayerEliminated:
    """``seat`` is out of the game: it missed the Jack it was waiting for, false-slapped with no
    cards, or ran out of cards under ``out_of_cards="eliminate_now"``."""

    seat: int


Event = (
    Dealt
    | CardPlayed
    | Slapped
    | PileTaken
    | StackShuffled
    | PenaltyPaid
    | TurnPassed
    | PlayerEliminated
)

_DECK: Final = (*standard_deck(), JOKER)
assert all(card.index == i for i, card in enumerate(_DECK))
_PLAYED: dict[tuple[int, int | None], tuple[CardPlayed, ...]] = {}
"""``_PLAYED[seat, current][card.index]``: the event of a card played, created once per seat and
next player (events are immutable values, so the hot path shares them)."""


def _played(seat: int, card: Card, current: int | None) -> CardPlayed:
    """``CardPlayed(seat, card, current)``, shared when ``seat`` is an int (not e.g. ``True``)."""
    if type(seat) is not int:
        return CardPlayed(seat, card, current)
    row = _PLAYED.get((seat, current))
    if row is None:
        row = _PLAYED[seat, current] = tuple(CardPlayed(seat, c, current) for c in _DECK)
    return row[card.index]


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
    """+1 every time the pile is taken (§4.2 state)."""
    current: int | None = 0
    eliminated: frozenset[int] = frozenset()
    shuffles: int = 0
    """Shuffles since the deal; the next draws from stream ``shuffles + 1`` (0 is the deal)."""


def position(
    stacks: Sequence[Sequence[Card]],
    *,
    rules: Rules | None = None,
    pile: Sequence[Card] = (),
    played_by: Sequence[int] | None = None,
    current: int | None = 0,
    eliminated: Sequence[int] = (),
    epoch: int = 0,
    shuffles: int = 0,
    seed: int = 0,
) -> State:
    """A position from explicit cards, for tests and analysis (rules.md §0.3 test construction).
    ``played_by`` defaults to seat 0 for every pile card."""
    by = tuple(played_by) if played_by is not None else tuple(0 for _ in pile)
    return State(
        setup=Setup(seats=len(stacks), seed=seed, rules=rules or Rules()),
        stacks=tuple(tuple(s) for s in stacks),
        pile=tuple(pile),
        played_by=by,
        epoch=epoch,
        current=current,
        eliminated=frozenset(eliminated),
        shuffles=shuffles,
    )


# --------------------------------------------------------------------------- view


@dataclass(frozen=True, slots=True)
class View:
    """What one viewer sees. Stacks are all face down (``??``) except to the referee."""

    stacks: tuple[tuple[SeenCard, ...], ...]
    pile: tuple[Card, ...]
    played_by: tuple[int, ...]
    epoch: int
    current: int | None
    awaiting: tuple[int, ...]
    """Players still in with no card, waiting for the next Jack (§4.2 status)."""
    eliminated: tuple[int, ...]
    slappable: bool


# --------------------------------------------------------------------------- slap targets


def slap_target(
    pile: Sequence[Card], targets: frozenset[SlapTarget]
) -> tuple[SlapTarget, tuple[Card, ...]] | None:
    """The target the top of ``pile`` makes (jack, then double, then sandwich as in ERS §1.4),
    with its cards; None if a slap now is a false slap."""
    if not pile:
        return None
    top = pile[-1]
    r = top.rank
    if r == JACK:  # "jack" is always a target (Rules.__post_init__)
        return "jack", (top,)
    if len(targets) == 1:
        return None
    n = len(pile)
    if n >= 2 and "double" in targets and pile[-2].rank == r:
        return "double", (pile[-2], top)
    if n >= 3 and "sandwich" in targets and pile[-3].rank == r and pile[-2].rank != r:
        return "sandwich", (pile[-3], pile[-2], top)
    return None


# --------------------------------------------------------------------------- decide


def _next_holder(
    stacks: Sequence[Sequence[Card]], eliminated: frozenset[int], p: int
) -> int | None:
    """The first player after ``p``, other than ``p``, not eliminated and holding a card."""
    n = len(stacks)
    for i in range(1, n):
        q = (p + i) % n
        if stacks[q] and q not in eliminated:
            return q
    return None


def _next_in_game(n: int, eliminated: frozenset[int], p: int) -> int | None:
    """The first player after ``p``, other than ``p``, who is not eliminated (cards or not)."""
    for i in range(1, n):
        q = (p + i) % n
        if q not in eliminated:
            return q
    return None


def _awaiting(stacks: Sequence[Sequence[Card]], eliminated: frozenset[int]) -> list[int]:
    """Players still in with no card (§4.2 status invariant)."""
    return [q for q, s in enumerate(stacks) if not s and q not in eliminated]


def _game_over(state: State) -> None:
    if outcome(state) is not None:
        raise Rejected(RejectCode.GAME_OVER, "the game is over")


def decide(state: State, seat: int, command: Command) -> list[Event]:
    """The events of ``command`` by ``seat``, or :class:`Rejected` (rules.md §0.5 check order)."""
    _game_over(state)
    if seat in state.eliminated:
        raise Rejected(RejectCode.PLAYER_ELIMINATED, f"seat {seat} is eliminated")
    if type(command) is Play:
        return _decide_play(state, seat)
    if type(command) is Slap:
        return _decide_slap(state, seat, command)
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
    targets = rules.slap_targets
    card = stack[0]
    after = stacks[:p] + (stack[1:],) + stacks[p + 1 :]
    eliminated = state.eliminated
    pile = state.pile
    events: list[Event] = []
    # Step 1: a card that covers an unslapped target ends that target's chance (§4.2, §4.5.3).
    # ``p`` held a card before this play, so it is never among them.
    if mode == "next_jack" and pile and slap_target(pile, targets) is not None:
        out = _awaiting(stacks, eliminated)
        if out:
            events += [PlayerEliminated(q) for q in out]
            eliminated = eliminated.union(out)
    # Step 3: the next player who holds a card, else p, else nobody.
    n = len(after)
    q = (p + 1) % n
    if n > 1 and after[q] and q not in eliminated:  # the common case: the next seat plays
        current: int | None = q
    else:
        current = _next_holder(after, eliminated, p)
    if current is not None or len(stack) > 1:
        if current is None:
            current = p
        events.insert(0, _played(p, card, current))
        # Step 2: p is awaiting when empty-handed (derived), or out at once (§4.4 out_of_cards).
        if mode == "eliminate_now" and len(stack) == 1:
            events.append(PlayerEliminated(p))
        return events
    # Nobody holds a card any more (§4.2 step 3).
    new_pile = pile + (card,)
    events.insert(0, _played(p, card, None))
    if slap_target(new_pile, targets) is not None:
        return events  # current is none until the pile is slapped
    # The pile returns to p, who plays on; the awaiting keep their chance (§4.5.5).
    events.append(PileTaken(p, len(new_pile), "return", p))
    if rules.shuffle_after_win:
        events.append(_shuffle(state, p, new_pile))
    if mode == "next_jack" and not any(c.rank == JACK for c in new_pile):
        # No Jack left in the game (constructed positions only): nobody can come back (§4.2 end).
        events += [PlayerEliminated(q) for q in _awaiting(after, eliminated) if q != p]
    return events


def _shuffle(state: State, p: int, stack: tuple[Card, ...]) -> StackShuffled:
    """Shuffle ``p``'s whole stack with the next RNG stream (§4.5.7)."""
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
    stack = stacks[p] + pile
    events: list[Event] = [Slapped(p, True, target, pattern)]
    # Who plays next (§4.5.1, §4.4 next_after_win).
    after_win = rules.next_after_win
    current: int | None
    if after_win == "rotation":
        current = state.current if state.current is not None else p
    elif after_win == "winner":
        current = p
    else:
        won = stacks[:p] + (stack,) + stacks[p + 1 :]
        current = _next_holder(won, state.eliminated, p)
        if current is None:
            current = p
    events.append(PileTaken(p, len(pile), "slap", current))
    if rules.shuffle_after_win:
        events.append(_shuffle(state, p, stack))
    if rules.out_of_cards == "next_jack":
        # The Jack is decided: every other awaiting player missed it (§4.2 slap, [SEED]).
        events += [PlayerEliminated(q) for q in _awaiting(stacks, state.eliminated) if q != p]
    return events


def _receiver(state: State, p: int) -> int:
    """Who gets a false slapper's penalty card (§4.2 slap, §4.4 penalty_recipient)."""
    eliminated = state.eliminated
    if state.setup.rules.penalty_recipient == "player_of_top_card":
        q = state.played_by[-1]
        if q != p and q not in eliminated:
            return q
    current = state.current
    if current is not None and current != p and current not in eliminated:
        return current
    q2 = _next_in_game(len(state.stacks), eliminated, p)
    assert q2 is not None, "the game is running, so another player is in"
    return q2


def _false_slap(state: State, p: int) -> list[Event]:
    rules = state.setup.rules
    events: list[Event] = [Slapped(p, False, None, ())]
    stack = state.stacks[p]
    if not stack:
        # An empty-handed player cannot pay (§4.5.4).
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
        if state.current == p:  # the turn advances as in play (§4.2 step 3)
            stacks = list(state.stacks)
            stacks[p] = ()
            stacks[receiver] = stacks[receiver] + stack
            events.append(TurnPassed(_next_holder(stacks, eliminated, p)))
    return events


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
            s.played_by + (p,), s.epoch, event.current, s.eliminated, s.shuffles,
        ))  # fmt: skip
    if isinstance(event, Slapped):
        return s
    if isinstance(event, PileTaken):
        p = event.seat
        stacks = s.stacks
        return _new(State, (
            s.setup, stacks[:p] + (stacks[p] + s.pile,) + stacks[p + 1 :], (), (), s.epoch + 1,
            event.current, s.eliminated, s.shuffles,
        ))  # fmt: skip
    if isinstance(event, StackShuffled):
        p = event.seat
        stacks = s.stacks
        cards = _cards_of(event.stack)
        if cards is None:  # a redacted event: the multiset is unchanged, its order unknown
            cards = stacks[p]
        return _new(State, (
            s.setup, stacks[:p] + (cards,) + stacks[p + 1 :], s.pile, s.played_by, s.epoch,
            s.current, s.eliminated, s.shuffles + 1,
        ))  # fmt: skip
    if isinstance(event, PenaltyPaid):
        p, to = event.seat, event.to
        new_stacks = list(s.stacks)
        card = new_stacks[p][0]
        new_stacks[p] = new_stacks[p][1:]
        new_stacks[to] = (*new_stacks[to], card)
        return _new(State, (
            s.setup, tuple(new_stacks), s.pile, s.played_by, s.epoch, s.current, s.eliminated,
            s.shuffles,
        ))  # fmt: skip
    if isinstance(event, PlayerEliminated):
        return _new(State, (
            s.setup, s.stacks, s.pile, s.played_by, s.epoch, s.current, s.eliminated | {event.seat},
            s.shuffles,
        ))  # fmt: skip
    if isinstance(event, TurnPassed):
        return _new(State, (
            s.setup, s.stacks, s.pile, s.played_by, s.epoch, event.current, s.eliminated,
            s.shuffles,
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
    """Shuffle with stream 0 of the seed and deal one card at a time from P0 (§4.2 setup)."""
    cards = shuffled(setup.seed, 0, deck(setup))
    n = setup.seats
    return [Dealt(tuple(tuple(cards[i::n]) for i in range(n)))]


# --------------------------------------------------------------------------- views, redaction


def view(state: State, viewer: Viewer) -> View:
    """``viewer``'s view: no seat sees any stack, its own included (§4.2 setup)."""
    referee = viewer == Role.REFEREE
    stacks: tuple[tuple[SeenCard, ...], ...] = (
        state.stacks if referee else tuple((HIDDEN,) * len(s) for s in state.stacks)
    )
    return View(
        stacks=stacks,
        pile=state.pile,
        played_by=state.played_by,
        epoch=state.epoch,
        current=state.current,
        awaiting=tuple(_awaiting(state.stacks, state.eliminated)),
        eliminated=tuple(sorted(state.eliminated)),
        slappable=slap_target(state.pile, state.setup.rules.slap_targets) is not None,
    )


def redact(event: Event, viewer: Viewer) -> Event:
    """The event as ``viewer`` sees it: stack cards are face down but to the referee."""
    if viewer == Role.REFEREE:
        return event
    if type(event) is Dealt:
        return Dealt(tuple((HIDDEN,) * len(s) for s in event.stacks))
    if type(event) is PenaltyPaid:
        return PenaltyPaid(event.seat, HIDDEN, event.to)
    if type(event) is StackShuffled:
        return StackShuffled(event.seat, (HIDDEN,) * len(event.stack))
    return event


def shuffle_hidden(state: State, viewer: Viewer, rng: Rng) -> State:
    """Permute every card ``viewer`` cannot see (every stack card) among their places."""
    if viewer == Role.REFEREE:
        return state
    hidden = [c for s in state.stacks for c in s]
    rng.shuffle(hidden)
    stacks = []
    i = 0
    for s in state.stacks:
        stacks.append(tuple(hidden[i : i + len(s)]))
        i += len(s)
    return State(
        state.setup, tuple(stacks), state.pile, state.played_by, state.epoch, state.current,
        state.eliminated, state.shuffles,
    )  # fmt: skip


def cards_in_play(state: State) -> list[Card]:
    return [c for s in state.stacks for c in s] + list(state.pile)


# --------------------------------------------------------------------------- outcome, commands


def outcome(state: State) -> Outcome | None:
    """Only one player is not eliminated (§4.2 end): ``ALL_CARDS`` if they hold every card, else
    ``LAST_STANDING``. Under ``out_of_cards="slap_in_unlimited"`` the game also ends as soon as one
    player holds every card (§4.4)."""
    stacks = state.stacks
    n = len(stacks)
    eliminated = state.eliminated
    if len(eliminated) < n - 1:  # the common case first: this runs on every step
        if state.pile or state.setup.rules.out_of_cards != "slap_in_unlimited":
            return None
        holders = [q for q, s in enumerate(stacks) if s]
        if len(holders) == 1:
            return Outcome(Termination.ALL_CARDS, (holders[0],))
        return None
    alive = [q for q in range(n) if q not in eliminated]
    if not alive:
        return Outcome(Termination.LAST_STANDING)
    w = alive[0]
    if state.pile or any(s for q, s in enumerate(stacks) if q != w):
        return Outcome(Termination.LAST_STANDING, (w,))
    return Outcome(Termination.ALL_CARDS, (w,))


def legal_commands(state: State, seat: int) -> list[Command]:
    """Every command ``seat`` may make now (a false slap is legal)."""
    eliminated = state.eliminated
    if seat in eliminated:
        return []
    pile = state.pile
    # outcome() is None unless one of these holds (its own common case, inlined: this runs for
    # every seat on every step)
    if len(eliminated) >= len(state.stacks) - 1 or (
        not pile and state.setup.rules.out_of_cards == "slap_in_unlimited"
    ):
        if outcome(state) is not None:
            return []
    if state.current == seat and state.stacks[seat]:
        return [PLAY, SLAP] if pile else [PLAY]
    return [SLAP] if pile else []


def is_sensible(state: State, seat: int, command: Command) -> bool:
    """Bots' hint: slap only a target, and never cover one you could slap instead."""
    pile = state.pile
    if not pile:
        slappable = False
    elif pile[-1].rank == JACK:
        slappable = True
    else:  # slap_target, but its call only when a target other than the jack is on
        targets = state.setup.rules.slap_targets
        slappable = len(targets) > 1 and slap_target(pile, targets) is not None
    if type(command) is Slap:
        return slappable
    return not slappable


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
    ),
    rules_type=Rules,
    command_types=(Play, Slap),
    event_types=(
        Dealt,
        CardPlayed,
        Slapped,
        PileTaken,
        StackShuffled,
        PenaltyPaid,
        TurnPassed,
        PlayerEliminated,
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
)
