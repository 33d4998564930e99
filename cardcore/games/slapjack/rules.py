"""Slapjack's rules (docs/games/slapjack.md): the state, the slap targets, ``decide``, ``evolve``,
the views and redaction, ``outcome``, ``legal_commands`` and the narration. The rules flags,
commands and the view they use are declared in :mod:`.declarations` (a module that stays Python in
the compiled build), its events in :mod:`.events` (native classes, compiled). The game itself is
:mod:`cardcore.games.slapjack`; positions and their notation are
:mod:`cardcore.games.slapjack.position`.

Module order (style.md): state → slap targets → decide → evolve → redact/view →
outcome/legal_commands → narration (rules → commands → view are in :mod:`.declarations`, events in
:mod:`.events`). The seat a function is given is checked once, by its first statement
(:func:`cardcore.kit.seat_of`) or :func:`cardcore.kit.viewed` (and by ``Match``); the rules trust
it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, assert_never, cast

from ... import kit
from ...cards import HIDDEN, Card, Hidden, SeenCard, known, standard_deck
from ...engine import Outcome, Role, Setup, Termination, Viewer
from ...errors import RejectCode, Rejected
from ...kit import double_or_sandwich, next_holder, next_in_game
from ...rng import shuffled
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

RULES_VERSION: Final = "2"
"""2 added ``kit.Resign`` (docs/games/common.md#leaving-a-game); every version-1 log decides as
before."""

JACK: Final = 11
NAME: Final = "slapjack"
MIN_SEATS: Final = 2
MAX_SEATS: Final = 8

# --------------------------------------------------------------------------- state


_NOBODY: Final[frozenset[int]] = frozenset()


class Setting:
    """What the rules read of a state's setup at every step: made once per setup and handed on
    from state to state (:meth:`State.next`), so that the rules read a native attribute where
    ``state.setup.rules.out_of_cards`` is two reads of Python objects' attributes in the compiled
    build (``Setup`` and ``Rules`` are Python classes there)."""

    seats: int
    slap_targets: frozenset[SlapTarget]
    out_of_cards: str

    def __init__(self, setup: Setup[Rules]) -> None:
        self.seats = setup.seats
        self.slap_targets = setup.rules.slap_targets
        self.out_of_cards = setup.rules.out_of_cards


class State(kit.NativeState):
    """A whole Slapjack position. Build one directly to test from exact cards (``position``).

    A native state (:class:`cardcore.kit.NativeState`: a C struct in the compiled build):
    ``evolve`` changes a copy of it (:meth:`next`) in the fields an event changes, and what every
    seat asks of a position (is the game over, is a target on the pile) is worked out once per
    state and kept (:attr:`ended`, :attr:`target`)."""

    setup: Setup[Rules]
    stacks: tuple[tuple[Card, ...], ...]
    """Each seat's face-down stack, top first."""
    pile: tuple[Card, ...]
    """The face-up pile, bottom→top."""
    played_by: tuple[int, ...]
    """Who played each card of ``pile``."""
    epoch: int
    """+1 every time the pile is taken (docs/games/slapjack.md#setup)."""
    current: int | None
    eliminated: frozenset[int]
    shuffles: int
    """Shuffles since the deal; the next draws from stream ``shuffles + 1`` (0 is the deal)."""
    burned: tuple[Card, ...]
    """Resigners' stacks, face down under the pile, bottom→top
    (docs/games/common.md#leaving-a-game)."""
    resigned: int | None
    """The seat whose resignation with two players left ended the game
    (docs/games/common.md#leaving-a-game), else None. (A resignation with more players left is an
    elimination: ``eliminated`` has it.)"""
    _setting: Setting
    """What the rules read of ``setup`` at every step (no field: made from it)."""
    _target: tuple[SlapTarget, tuple[Card, ...]] | None = None
    _target_known: bool = False

    def __init__(  # noqa: PLR0917  # the fields, in order
        self,
        setup: Setup[Rules],
        stacks: tuple[tuple[Card, ...], ...],
        pile: tuple[Card, ...] = (),
        played_by: tuple[int, ...] = (),
        epoch: int = 0,
        current: int | None = 0,
        eliminated: frozenset[int] = _NOBODY,
        shuffles: int = 0,
        burned: tuple[Card, ...] = (),
        resigned: int | None = None,
        _setting: Setting | None = None,
    ) -> None:
        self.setup = setup
        self.stacks = stacks
        self.pile = pile
        self.played_by = played_by
        self.epoch = epoch
        self.current = current
        self.eliminated = eliminated
        self.shuffles = shuffles
        self.burned = burned
        self.resigned = resigned
        self._setting = Setting(setup) if _setting is None else _setting

    def next(self) -> State:
        """A copy for ``evolve`` to change: the same fields, nothing derived kept."""
        return State(
            self.setup,
            self.stacks,
            self.pile,
            self.played_by,
            self.epoch,
            self.current,
            self.eliminated,
            self.shuffles,
            self.burned,
            self.resigned,
            self._setting,
        )

    def outcome(self) -> Outcome | None:
        """How the game ended, None while it goes on (kept as ``ended``): :func:`outcome`."""
        return outcome(self)

    @property
    def target(self) -> tuple[SlapTarget, tuple[Card, ...]] | None:
        """The target on the pile and its cards, None for a false slap: :func:`slap_target`,
        kept."""
        if not self._target_known:
            self._target = slap_target(self.pile, self._setting.slap_targets)
            self._target_known = True
        return self._target


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


@kit.hot  # the seat check written in (the pure build): kit.seat_of
def decide(state: State, seat: object, command: Command) -> list[Event]:
    """The events of ``command`` by ``seat``, or :class:`Rejected`
    (docs/games/common.md#order-of-checks). A seat that is not one of this game's raises
    :class:`~cardcore.errors.InvalidSeat`."""
    p = kit.seat_of(state._setting.seats, seat)
    if state.ended is not None:
        raise Rejected(RejectCode.GAME_OVER, "the game is over")
    if p in state.eliminated:
        raise Rejected(RejectCode.PLAYER_ELIMINATED, f"seat {p} is eliminated")
    if type(command) is Play:
        return _decide_play(state, p)
    if type(command) is Slap:
        return _decide_slap(state, p, command)
    if type(command) is kit.Resign:
        return _decide_resign(state, p)
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
    if mode == "next_jack" and state.target is not None:
        out = _awaiting(stacks, eliminated)
        if out:
            eliminated = eliminated.union(out)
    # Step 3: the next player who holds a card, else p, else nobody. The stacks before the play
    # serve: only p's changes, and the next holder is never p.
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
    if state.target is None:
        return _false_slap(state, p)
    target, pattern = state.target
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
    if state.target is not None:
        return events  # nobody plays until the target is slapped (step 3)
    q = next_in_game(len(stacks), out, p)
    assert q is not None, "two or more players are still in the game"
    return events + _return_pile(state, q, stacks[p] + state.burned + state.pile, out)


# --------------------------------------------------------------------------- evolve


def _cards_of(stack: tuple[SeenCard, ...]) -> tuple[Card, ...] | None:
    """The cards of a stack as an event records them, or None if it was redacted."""
    if Hidden in set(map(type, stack)):
        return None
    return cast("tuple[Card, ...]", stack)


def evolve(state: State, event: Event) -> State:
    """Apply one event. No rules: the event carries every decision. Each event changes a copy of
    the state (:meth:`State.next`) in the fields it names.

    An ``isinstance`` chain, the commonest event first, rather than ``match``: a class pattern
    costs 45-65 ns more per event (timeit, CPython 3.11), and evolve runs once per event."""
    s = state
    if isinstance(event, CardPlayed):  # most events by far: first
        p = event.seat
        n = s.next()
        n.stacks = _put(s.stacks, p, s.stacks[p][1:])
        n.pile = s.pile + (event.card,)
        n.played_by = s.played_by + (p,)
        n.current = event.current
        return n
    if isinstance(event, Slapped):
        return s
    if isinstance(event, PileTaken):
        p = event.seat
        n = s.next()
        n.stacks = _put(s.stacks, p, s.stacks[p] + s.burned + s.pile)
        n.pile = ()
        n.played_by = ()
        n.epoch = s.epoch + 1
        n.current = event.current
        n.burned = ()
        return n
    if isinstance(event, StackShuffled):
        p = event.seat
        cards = _cards_of(event.stack)
        n = s.next()
        # a redacted event: the multiset is unchanged, its order unknown
        n.stacks = _put(s.stacks, p, s.stacks[p] if cards is None else cards)
        n.shuffles = s.shuffles + 1
        return n
    if isinstance(event, PenaltyPaid):
        p, to = event.seat, event.to
        card = s.stacks[p][0]  # the state's card: a redacted event applies too
        stacks = _put(s.stacks, p, s.stacks[p][1:])
        n = s.next()
        n.stacks = _put(stacks, to, (*stacks[to], card))
        return n
    if isinstance(event, PlayerEliminated):
        n = s.next()
        n.eliminated = s.eliminated | {event.seat}
        return n
    if isinstance(event, TurnPassed):
        n = s.next()
        n.current = event.current
        return n
    if isinstance(event, Resigned):
        return _resigned(s, event)
    if isinstance(event, Dealt):
        return State(s.setup, tuple(known(st) for st in event.stacks), _setting=s._setting)
    assert_never(event)


def _resigned(s: State, event: Resigned) -> State:
    """``event.seat`` left: its stack under the pile (taken from the state, not the event: a
    redacted event applies too), the seat eliminated."""
    p = event.seat
    n = s.next()
    n.stacks = _put(s.stacks, p, ())
    n.current = event.current
    n.eliminated = s.eliminated | {p}
    n.burned = s.stacks[p] + s.burned
    if event.winner is not None:
        n.resigned = p
    return n


def _put(
    stacks: tuple[tuple[Card, ...], ...], p: int, stack: tuple[Card, ...]
) -> tuple[tuple[Card, ...], ...]:
    """``stacks`` with seat ``p``'s stack replaced by ``stack``."""
    return stacks[:p] + (stack,) + stacks[p + 1 :]


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


@kit.viewed
def view(state: State, viewer: Viewer) -> View:
    """``viewer``'s view: no seat sees any stack, its own included (docs/games/slapjack.md#setup),
    nor a burned card (docs/games/common.md#leaving-a-game)."""
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
        slappable=state.target is not None,
    )


def redact(event: Event, viewer: Viewer) -> Event:
    """The event as ``viewer`` sees it: stack cards (a resigner's too) are face down but to the
    referee. An event does not know the game's seat count: an int viewer must be a seat number
    (not a bool, not negative, at most the largest seat count); :func:`view` checks it against
    the game."""
    kit.check_viewer(viewer, len(event.stacks) if type(event) is Dealt else MAX_SEATS)
    if viewer == Role.REFEREE:
        return event
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
        if state.pile or state._setting.out_of_cards != "slap_in_unlimited" or state.burned:
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


@kit.hot  # the seat check written in (the pure build): kit.seat_of
def legal_commands(state: State, seat: object) -> list[Command]:
    """Every command ``seat`` may make now (a false slap is legal: anyone may slap a pile that
    holds a card, docs/games/slapjack.md#slapping). Never ``Resign``, though it is accepted
    (docs/games/common.md#leaving-a-game): a bot picking among these must not resign by chance."""
    p = kit.seat_of(state._setting.seats, seat)
    if p in state.eliminated or state.ended is not None:
        return []
    mine = state.current == p and state.stacks[p]
    if state.pile:
        return [PLAY, SLAP] if mine else [SLAP]
    return [PLAY] if mine else []


@kit.hot  # the seat check written in (the pure build): kit.seat_of
def is_sensible(state: State, seat: object, command: Command) -> bool:
    """Bots' hint: slap only a target, and never cover one you could slap instead; never resign."""
    kit.seat_of(state._setting.seats, seat)
    if type(command) is kit.Resign:
        return False
    return (state.target is not None) is (type(command) is Slap)


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
