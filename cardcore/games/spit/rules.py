"""Spit's rules (docs/games/spit.md): the state and the rule functions: ``decide``, ``evolve``,
the deal, the views, ``outcome``, ``legal_commands`` and ``is_sensible``. The declarations (the
variant flags and what fits under them, the commands and the view) are :mod:`.declarations`, the
events (native classes), their redaction and narration :mod:`.events`; the game itself is
:mod:`cardcore.games.spit`. The seat a function is given is checked once, by its
first statement (:func:`cardcore.kit.seat_of`) or :func:`cardcore.kit.viewed` (and by ``Match``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal, TypeVar, assert_never

from ... import kit
from ...cards import HIDDEN, Card, SeenCard, known, standard_deck
from ...engine import (
    Outcome,
    Role,
    Setup,
    Termination,
    Viewer,
)
from ...errors import RejectCode, Rejected
from ...kit import joint_call
from ...rng import shuffled
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
    tops_up,
)

RULES_VERSION: Final = "2"
"""2 added ``Resign`` (docs/games/common.md#leaving-a-game); every action of version 1 is decided as
before, so logs of version 1 still verify (``replays_versions``)."""
GAME_NAME: Final = "spit"

T = TypeVar("T")

SEATS: Final = 2
SPIT_PILES: Final = 2

_RoundEvent = PlayStarted | RoundEnded | PileClaimed | NewLayout | Dealt | Resigned
"""The events that start, end and lay out rounds, or end the game: the rarer ones."""


# --------------------------------------------------------------------------- state

Layout = tuple[tuple[Card, ...], ...]
Fit = tuple[frozenset[Card], frozenset[Card]]
"""The cards :func:`playable` on each spit pile (none on a pile that does not exist)."""
_NOTHING: Final[frozenset[Card]] = frozenset()

_NO_CALLS: Final[frozenset[int]] = frozenset()
NO_TARGETS: Final[tuple[int | None, ...]] = (None, None)


class Setting:
    """What the rules read of a state's setup at every step: made once per setup and handed on
    from state to state (:meth:`State.next`), so that the rules read a native attribute where
    ``state.setup.rules.auto_flip`` is two reads of Python objects' attributes in the compiled
    build (``Setup`` and ``Rules`` are Python classes there)."""

    seats: int
    fitting: tuple[frozenset[Card], ...]
    """The rules' :func:`fitting`: the cards that may go on each spit pile top."""
    stack_equal_in_layout: bool
    auto_flip: bool

    def __init__(self, setup: Setup[Rules]) -> None:
        rules = setup.rules
        self.seats = setup.seats
        self.fitting = fitting(rules)
        self.stack_equal_in_layout = rules.stack_equal_in_layout
        self.auto_flip = rules.auto_flip


class State(kit.NativeState):
    """A whole Spit position. Build one directly to test from exact cards (see ``position``).

    A native state (:class:`cardcore.kit.NativeState`: a C struct in the compiled build):
    ``evolve`` changes a copy of it (:meth:`next`) in the fields an event changes, and how the
    game ended, what may be played on the spit piles and whether the game is stuck are worked out
    once per state and kept (:attr:`ended`, :attr:`fit`, :attr:`stuck`)."""

    setup: Setup[Rules]
    phase: Phase
    layouts: tuple[Layout, ...]
    """``layouts[seat][pile]``: the stock piles, bottom→top."""
    up: tuple[tuple[int, ...], ...]
    """``up[seat][pile]``: how many cards at the top of that pile are face up."""
    spit_cards: tuple[tuple[Card, ...], ...]
    """Each seat's face-down spit cards, top first."""
    spit_piles: tuple[tuple[Card, ...], ...]
    """``SP0``, ``SP1`` bottom→top; empty means the pile does not exist."""
    called: frozenset[int]
    """The seats whose joint call is recorded (docs/games/common.md#joint-calls,
    :func:`cardcore.kit.joint_call`)."""
    call_targets: tuple[int | None, ...]
    locked: int | None
    """The spit pile a solo spitter is locked to this round."""
    chooser: int | None
    """Who chooses a spit pile in phase CHOOSE."""
    round: int
    shuffles: int
    """Shuffles after the deal so far: the next shuffle uses stream ``shuffles + 1``. Two per
    re-layout, so always ``2 * (round - 1)``."""
    winner: int | None
    """Who won: set in phase OVER (a packet was empty) or by a resignation (any phase)."""
    resigned: int | None
    """The seat that resigned (docs/games/common.md#leaving-a-game): the game ended where it stood,
    ``winner`` the other seat."""
    _setting: Setting
    """What the rules read of ``setup`` at every step (no field: made from it)."""
    _fit: Fit | None = None
    """:attr:`fit`, once worked out."""
    _stuck: bool | None = None
    """:attr:`stuck`, once worked out."""

    def __init__(  # noqa: PLR0917  # the fields, in order
        self,
        setup: Setup[Rules],
        phase: Phase,
        layouts: tuple[Layout, ...],
        up: tuple[tuple[int, ...], ...],
        spit_cards: tuple[tuple[Card, ...], ...],
        spit_piles: tuple[tuple[Card, ...], ...],
        called: frozenset[int] = _NO_CALLS,
        call_targets: tuple[int | None, ...] = NO_TARGETS,
        locked: int | None = None,
        chooser: int | None = None,
        round: int = 1,
        shuffles: int = 0,
        winner: int | None = None,
        resigned: int | None = None,
        _setting: Setting | None = None,
    ) -> None:
        self.setup = setup
        self.phase = phase
        self.layouts = layouts
        self.up = up
        self.spit_cards = spit_cards
        self.spit_piles = spit_piles
        self.called = called
        self.call_targets = call_targets
        self.locked = locked
        self.chooser = chooser
        self.round = round
        self.shuffles = shuffles
        self.winner = winner
        self.resigned = resigned
        self._setting = Setting(setup) if _setting is None else _setting

    def next(self) -> State:
        """A copy for ``evolve`` to change: the same fields, nothing derived kept."""
        return State(
            self.setup,
            self.phase,
            self.layouts,
            self.up,
            self.spit_cards,
            self.spit_piles,
            self.called,
            self.call_targets,
            self.locked,
            self.chooser,
            self.round,
            self.shuffles,
            self.winner,
            self.resigned,
            self._setting,
        )

    def outcome(self) -> Outcome | None:
        """How the game ended, None while it goes on (kept as ``ended``): :func:`outcome`."""
        return outcome(self)

    @property
    def fit(self) -> Fit:
        """The cards playable on each spit pile (:func:`playable`), kept: both seats' legal
        commands and the stuck check ask it of the same state."""
        fit = self._fit
        if fit is None:
            fit = self._fit = playable(self)
        return fit

    @property
    def stuck(self) -> bool:
        """Neither player has an action that counts against being stuck (:func:`can_act`,
        docs/games/spit.md#stuck), kept: both seats' legal commands and the stalemate call ask
        it of the same state."""
        stuck = self._stuck
        if stuck is None:
            fit = self.fit
            stuck = self._stuck = not can_act(self, 0, fit) and not can_act(self, 1, fit)
        return stuck

    def stuck_given(self, seat: int) -> bool:
        """:attr:`stuck`, once ``seat`` is known to have no action that counts against being
        stuck (:func:`scan_layout` found none): only the other seat's are looked for."""
        stuck = self._stuck
        if stuck is None:
            stuck = self._stuck = not can_act(self, 1 - seat, self.fit)
        return stuck


# --------------------------------------------------------------------------- rules helpers


def playable(state: State) -> Fit:
    """The cards that may be played on each spit pile now (none on one that does not exist)."""
    fit = state._setting.fitting
    p0, p1 = state.spit_piles
    return fit[p0[-1].index] if p0 else _NOTHING, fit[p1[-1].index] if p1 else _NOTHING


@kit.inline
def exposes(pile: Sequence[Card], up: int) -> bool:
    """Taking the top off this stock pile uncovers a face-down card: the top is its one face-up
    card and a card lies under it (docs/games/spit.md#stuck, docs/games/spit.md#decisions,
    item 11)."""
    return up == 1 and len(pile) >= 2


def _can_stack(layout: Layout, ups: tuple[int, ...], i: int, k: int) -> bool:
    """(``stack_equal_in_layout``) May the face-up top of pile ``i`` go on pile ``k``: another
    pile, whose top is face up and of the same rank."""
    dest = layout[k]
    return k != i and bool(dest) and bool(ups[k]) and dest[-1].rank == layout[i][-1].rank


@kit.hot
def can_act(state: State, seat: int, fit: Fit) -> bool:
    """Whether ``seat`` has an action that counts against being stuck, answered at the first
    (docs/games/spit.md#stuck): (a) a play of a face-up layout top onto an existing spit pile,
    (b) a flip of a face-down layout top, (c) a move of a face-up top into an empty space that
    exposes a face-down card or, with stacking, (d) a stack of such a top on an equal one."""
    layout, ups = state.layouts[seat], state.up[seat]
    fit0, fit1 = fit
    space, stacking = () in layout, state._setting.stack_equal_in_layout
    i = -1  # the pile's number, counted by hand: enumerate() cost 1,700 more instructions a step
    for pile in layout:
        i += 1
        if not pile:
            continue
        up = ups[i]
        if not up:  # (b)
            return True
        top = pile[-1]
        if top in fit0 or top in fit1:  # (a)
            return True
        if exposes(pile, up) and (space or (stacking and _stacks_from(layout, ups, i))):  # (c), (d)
            return True
    return False


@kit.hot
def scan_layout(state: State, seat: int, fit: Fit, out: list[Command] | None) -> bool:
    """Whether ``seat`` has an action that counts against being stuck (:func:`can_act`). Given a
    list ``out``, it also appends the seat's plays, flips, moves and stacks to it, pile by pile
    (docs/games/spit.md#playing: ``legal_commands``), telling the ones that count as it goes."""
    if out is None:
        return can_act(state, seat, fit)
    layout, ups = state.layouts[seat], state.up[seat]
    fit0, fit1 = fit
    spaces = [k for k, pile in enumerate(layout) if not pile] if () in layout else []  # empty piles
    stacking = state._setting.stack_equal_in_layout
    counts = False
    i = -1  # the pile's number, counted by hand: enumerate() cost 1,700 more instructions a step
    for pile in layout:
        i += 1
        if not pile:
            continue
        take, up = _PILE_COMMANDS[i], ups[i]
        if not up:  # (b)
            out.append(take.flip)
            counts = True
            continue
        top = pile[-1]
        if top in fit0:  # (a)
            out.append(take.plays[0])
            counts = True
        if top in fit1:
            out.append(take.plays[1])
            counts = True
        if spaces or stacking:  # besides the plays, less often
            moves = take.moves
            for k in spaces:  # into every empty space, in order
                out.append(moves[k])
            stacks = _stacks_from(layout, ups, i) if stacking else None
            if stacks:
                out += stacks
            if (spaces or stacks) and exposes(pile, up):  # (c) a move or (d) a stack that exposes
                counts = True
    return counts


def _stacks_from(layout: Layout, ups: tuple[int, ...], i: int) -> list[Command]:
    """(``stack_equal_in_layout``) The stacks of pile ``i``'s face-up top (:func:`_can_stack`)."""
    return [
        _PILE_COMMANDS[i].stacks[k] for k in range(len(layout)) if _can_stack(layout, ups, i, k)
    ]


def is_stuck(state: State) -> bool:
    """Stuck (docs/games/spit.md#stuck): neither player has an action that counts against it
    (:func:`can_act`). Kept with the state (:attr:`State.stuck`)."""
    return state.stuck


@kit.inline
def spits_alone(state: State, seat: int) -> bool:
    """``seat`` has spit cards and the other seat has none: it spits alone
    (docs/games/spit.md#stalemate)."""
    return bool(state.spit_cards[seat]) and not state.spit_cards[1 - seat]


@kit.inline
def locked_out(state: State, seat: int, j: int) -> bool:
    """Whether a stalemate call of ``seat`` may not name spit pile ``j``: it spits alone, and the
    lone spits of this round are locked to the other pile (docs/games/spit.md#stalemate)."""
    return state.locked is not None and j != state.locked and spits_alone(state, seat)


@kit.hot
def stalemate_calls(state: State, seat: int) -> list[Command]:
    """``Spit`` and ``Spit(j)`` for every spit pile ``j`` the call may name
    (docs/games/spit.md#stalemate)."""
    piles = state.spit_piles
    calls: list[Command] = [SPIT]
    for j in _SPIT_PILES:
        if piles[j] and not locked_out(state, seat, j):
            calls.append(_SPITS_ONTO[j])
    return calls


def layout_size(layout: Layout) -> int:
    """How many cards ``layout`` holds (a generator, which mypyc compiles to a loop: ``map`` and
    ``sum`` are looked up and called through Python there)."""
    return sum(len(pile) for pile in layout)


# The command classes decide and is_sensible tell apart (about seven times a step), as Final names
# of this module: the compiled build reads a Final name as a C static, where it looks a class
# imported from declarations.py (a Python module there) up in this module's dict at every read.
_PLAY: Final = Play
_FLIP: Final = Flip
_MOVE: Final = Move
_STACK: Final = Stack
_SPIT: Final = Spit
_SLAP: Final = Slap
_TAKE_PILE: Final = TakePile
_RESIGN: Final = kit.Resign


# --------------------------------------------------------------------------- decide


@kit.hot  # the seat check written in (the pure build): kit.seat_of
def decide(state: State, seat: object, command: Command) -> list[Event]:
    """The events of ``command`` by ``seat``, or :class:`Rejected`
    (docs/games/common.md#order-of-checks). A seat that is not 0 or 1 raises
    :class:`~cardcore.errors.InvalidSeat` (nothing to log)."""
    p = kit.seat_of(state._setting.seats, seat)
    if state.winner is not None:
        raise Rejected(RejectCode.GAME_OVER, "the game is over")
    t = type(command)
    if t is _PLAY:
        return _decide_play(state, p, command)  # type: ignore[arg-type]
    if t is _SPIT:
        return _decide_spit(state, p, command)  # type: ignore[arg-type]
    if t is _FLIP:
        return _decide_flip(state, p, command)  # type: ignore[arg-type]
    if t is _MOVE:
        return _decide_move(state, p, command)  # type: ignore[arg-type]
    if t is _STACK:
        return _decide_stack(state, p, command)  # type: ignore[arg-type]
    if t is _SLAP:
        return _decide_slap(state, p, command)  # type: ignore[arg-type]
    if t is _TAKE_PILE:
        return _decide_take(state, p, command)  # type: ignore[arg-type]
    # docs/games/common.md#leaving-a-game: any phase; a player's and the timer's forfeit alike
    if t is _RESIGN:
        return [Resigned(p)]
    raise Rejected(RejectCode.INVALID_PHASE, f"not a Spit command: {command!r}")


def _phase_error(state: State, what: str) -> Rejected:
    return Rejected(RejectCode.INVALID_PHASE, f"{what} is not allowed in phase {state.phase}")


def _stock_piles(state: State, seat: int, i: int, k: int | None = None) -> Layout:
    """``seat``'s layout, once ``i`` (and then ``k``) names one of its stock piles."""
    layout = state.layouts[seat]
    n = len(layout)
    if not 0 <= i < n:
        raise Rejected(RejectCode.INVALID_TARGET, f"no stock pile {i}")
    if k is not None and not 0 <= k < n:
        raise Rejected(RejectCode.INVALID_TARGET, f"no stock pile {k}")
    return layout


def _face_up_top(state: State, seat: int, i: int) -> Card:
    """The face-up top card of ``seat``'s stock pile ``i``: what a play, move or stack takes."""
    pile = state.layouts[seat][i]
    if not pile:
        raise Rejected(RejectCode.CARD_NOT_AVAILABLE, f"stock pile {i} is empty")
    if not state.up[seat][i]:
        raise Rejected(RejectCode.FACE_DOWN, f"the top of stock pile {i} is face down")
    return pile[-1]


@kit.inline
def _auto_flip(state: State, seat: int, i: int) -> tuple[Event, ...]:
    """(``auto_flip``) Taking the top off stock pile ``i`` turns up the card it exposes
    (docs/games/spit.md#variant-flags); none is the empty tuple, which costs no allocation."""
    return (
        (Flipped(seat, i, state.layouts[seat][i][-2], True),)
        if state._setting.auto_flip and exposes(state.layouts[seat][i], state.up[seat][i])
        else ()
    )


@kit.hot
def _decide_play(state: State, seat: int, command: Play) -> list[Event]:
    """docs/games/spit.md#playing: a face-up layout top onto a spit pile it fits."""
    if state.phase != "PLAY":
        raise _phase_error(state, "play")
    i, j = command.source, command.target
    piles = state.spit_piles
    has_pile = 0 <= j < SPIT_PILES and bool(piles[j])
    # docs/games/common.md#expectations, before the action's own checks
    if command.expect_top is not None:
        top = piles[j][-1] if has_pile else None
        if top is not command.expect_top:
            seen = "no pile" if top is None else top.symbol
            raise Rejected(
                RejectCode.STALE_ACTION,
                f"expect_top {command.expect_top.symbol} but spit pile {j} shows {seen}",
            )
    layout = _stock_piles(state, seat, i)
    if not has_pile:
        raise Rejected(RejectCode.INVALID_TARGET, f"no spit pile {j}")
    card = _face_up_top(state, seat, i)
    on = piles[j][-1]
    if card not in state._setting.fitting[on.index]:  # fits(card, on, rules)
        raise Rejected(RejectCode.ILLEGAL_CARD, f"{card.symbol} does not go on {on.symbol}")
    events: list[Event] = [CardPlayed(seat, i, j, card), *_auto_flip(state, seat, i)]
    spits = state.spit_cards
    if (len(layout[i]) == 1 and layout_size(layout) == 1) or (not spits[0] and not spits[1]):
        return _end_round_if_due(state, seat, events)
    return events


def _decide_flip(state: State, seat: int, command: Flip) -> list[Event]:
    """docs/games/spit.md#playing: turn up a face-down layout top."""
    if state.phase != "PLAY":
        raise _phase_error(state, "flip")
    i = command.pile
    pile = _stock_piles(state, seat, i)[i]
    if not pile:
        raise Rejected(RejectCode.INVALID_TARGET, f"stock pile {i} is empty")
    if state.up[seat][i]:
        raise Rejected(RejectCode.ALREADY_FACE_UP, f"the top of stock pile {i} is face up")
    events: list[Event] = [Flipped(seat, i, pile[-1], False)]
    return _after_layout_change(state, seat, events)


@kit.hot
def _decide_move(state: State, seat: int, command: Move) -> list[Event]:
    """docs/games/spit.md#playing: a face-up layout top into an empty space."""
    if state.phase != "PLAY":
        raise _phase_error(state, "move")
    i, k = command.source, command.target
    if _stock_piles(state, seat, i, k)[k]:
        raise Rejected(RejectCode.NO_EMPTY_SPACE, f"stock pile {k} is not an empty space")
    card = _face_up_top(state, seat, i)
    events: list[Event] = [Moved(seat, i, k, card), *_auto_flip(state, seat, i)]
    return _after_layout_change(state, seat, events)


@kit.hot
def _decide_stack(state: State, seat: int, command: Stack) -> list[Event]:
    """(``stack_equal_in_layout``) A face-up layout top onto a face-up top of equal rank."""
    if not state._setting.stack_equal_in_layout:
        raise Rejected(RejectCode.INVALID_PHASE, "stacking needs the stack_equal_in_layout rule")
    if state.phase != "PLAY":
        raise _phase_error(state, "stack")
    i, k = command.source, command.target
    dest = _stock_piles(state, seat, i, k)[k]
    if i == k:
        raise Rejected(RejectCode.INVALID_TARGET, "cannot stack a pile onto itself")
    card = _face_up_top(state, seat, i)
    if not dest:
        raise Rejected(RejectCode.INVALID_TARGET, f"stock pile {k} is empty: use move")
    if not state.up[seat][k]:
        raise Rejected(RejectCode.FACE_DOWN, f"the top of stock pile {k} is face down")
    if dest[-1].rank != card.rank:
        raise Rejected(
            RejectCode.ILLEGAL_CARD, f"{card.symbol} is not the rank of {dest[-1].symbol}"
        )
    events: list[Event] = [Stacked(seat, i, k, card), *_auto_flip(state, seat, i)]
    return _after_layout_change(state, seat, events)


def _after_layout_change(state: State, seat: int, events: list[Event]) -> list[Event]:
    """Flips, moves and stacks keep every count: only (B) can newly hold, with no spit cards."""
    spits = state.spit_cards
    if not spits[0] and not spits[1]:
        return _end_round_if_due(state, seat, events)
    return events


def _decide_spit(state: State, seat: int, command: Spit) -> list[Event]:
    """The joint call "Spit!": the start call in ``READY`` (docs/games/spit.md#round-start), the
    stalemate call in ``PLAY`` (docs/games/spit.md#stalemate); recorded, and acted on once both
    seats have called (docs/games/common.md#joint-calls)."""
    target = command.target
    _check_spit_call(state, seat, target)
    events: list[Event] = [SpitCalled(seat, target)]
    if not joint_call(state.called, seat, SEATS)[1]:
        return events  # the effect waits for the other call
    spits = state.spit_cards
    if state.phase == "READY":  # each player with spit cards starts their own pile
        events += [Spat(p, spits[p][0], p, False) for p in range(SEATS) if spits[p]]
        events.append(PLAY_STARTED)
        return events
    spat = _stalemate_spits(state, seat, target)
    events += spat
    # docs/games/spit.md#round-end: a spit moves no layout card, so (A) cannot newly hold, nor
    # (B) while a spit card is left after these (one card a spit): no need to play them through.
    if any(state.layouts[seat]) and len(spits[0]) + len(spits[1]) > len(spat):
        return events
    return _end_round_if_due(state, seat, events)


def _check_spit_call(state: State, seat: int, target: int | None) -> None:
    """A start call names no pile; a stalemate call needs the game stuck, and names an existing
    spit pile the lock allows, if any."""
    phase = state.phase
    if phase == "READY":
        if target is not None:  # no spit pile exists before the start call
            raise Rejected(RejectCode.INVALID_TARGET, f"no spit pile {target} before the start")
    elif phase == "PLAY":
        if not is_stuck(state):
            raise Rejected(RejectCode.NOT_STUCK, "a play, flip or exposing move is still possible")
        if target is not None:
            if not 0 <= target < SPIT_PILES or not state.spit_piles[target]:
                raise Rejected(RejectCode.INVALID_TARGET, f"no spit pile {target}")
            if locked_out(state, seat, target):
                raise Rejected(
                    RejectCode.SPIT_PILE_LOCKED, f"the solo spit is locked to pile {state.locked}"
                )
    else:
        raise Rejected(RejectCode.INVALID_PHASE, f"spit is not allowed in phase {phase}")


def _stalemate_spits(state: State, seat: int, target: int | None) -> list[Event]:
    """Both calls in while stuck: both players spit onto their own piles
    (docs/games/spit.md#decisions, item 3), or one spits alone onto the locked pile, else onto
    the pile its latest call named (by default its own, else the only one), which it locks."""
    spits, piles = state.spit_cards, state.spit_piles
    if spits[0] and spits[1]:
        return [Spat(0, spits[0][0], 0, False), Spat(1, spits[1][0], 1, False)]
    solo = 0 if spits[0] else 1
    if not spits[solo]:
        return []
    if state.locked is not None:
        return [Spat(solo, spits[solo][0], state.locked, False)]
    named = target if solo == seat else state.call_targets[solo]
    if named is None:
        named = solo if piles[solo] else (0 if piles[0] else 1)
    return [Spat(solo, spits[solo][0], named, True)]


def _decide_slap(state: State, seat: int, command: Slap) -> list[Event]:
    if state.phase != "SLAP":
        raise Rejected(RejectCode.INVALID_PHASE, f"slap is not allowed in phase {state.phase}")
    j = command.target
    if not 0 <= j < SPIT_PILES or not state.spit_piles[j]:
        raise Rejected(RejectCode.INVALID_TARGET, f"no spit pile {j}")
    takers = (seat, 1 - seat) if j == 0 else (1 - seat, seat)
    return [PileClaimed(seat, j, "slap"), _new_layout(state, takers)]


def _decide_take(state: State, seat: int, command: TakePile) -> list[Event]:
    if state.phase != "CHOOSE":
        raise Rejected(RejectCode.INVALID_PHASE, f"take_pile is not allowed in phase {state.phase}")
    if seat != state.chooser:
        raise Rejected(RejectCode.NOT_CHOOSER, f"seat {state.chooser} chooses the pile")
    j = command.target
    if not 0 <= j < SPIT_PILES or not state.spit_piles[j]:
        raise Rejected(RejectCode.INVALID_TARGET, f"no spit pile {j}")
    takers = (seat, 1 - seat) if j == 0 else (1 - seat, seat)
    return [PileClaimed(seat, j, "choose"), _new_layout(state, takers)]


def _end_round_if_due(state: State, seat: int, events: list[Event]) -> list[Event]:
    """docs/games/spit.md#round-end, checked after every accepted action in phase PLAY: (A) the
    actor's layout is empty (only the actor's layout can have changed), else (B) stuck with no spit
    cards."""
    after = state
    for e in events:
        after = evolve(after, e)
    if not any(after.layouts[seat]):
        reason: Literal["layout_empty", "stuck"] = "layout_empty"  # (A) wins over (B)
        emptier: int | None = seat
    elif not after.spit_cards[0] and not after.spit_cards[1] and is_stuck(after):
        reason, emptier = "stuck", None
    else:
        return events
    piles = after.spit_piles
    existing = [j for j in range(SPIT_PILES) if piles[j]]
    if len(existing) == 2:
        claim: Literal["slap", "choose"] = (
            "choose" if emptier is not None and after.setup.rules.pile_claim == "choose" else "slap"
        )
        return [*events, RoundEnded(reason, emptier, claim)]
    takers: list[int | None] = [None, None]
    for j in existing:  # one spit pile: no slapping
        if emptier is not None:
            takers[j] = 1 - emptier  # (A): the emptier takes nothing (seed END)
        elif after.setup.rules.one_pile_stalemate_owner == "fewer_layout_cards":
            sizes = [layout_size(after.layouts[p]) for p in range(SEATS)]
            takers[j] = j if sizes[0] == sizes[1] else (0 if sizes[0] < sizes[1] else 1)
        else:
            takers[j] = j  # (B): the player who started it (docs/games/spit.md#decisions, item 6)
    ended = RoundEnded(reason, emptier, "none")
    return [*events, ended, _new_layout(evolve(after, ended), (takers[0], takers[1]))]


def lay_out(packet: Sequence[T], n: int) -> tuple[tuple[tuple[T, ...], ...], tuple[T, ...]]:
    """docs/games/spit.md#laying-out: pile i takes the next i+1 cards (bottom→top), filled in order
    until the cards run out; what is left (after 15, or 10 with four piles) are the spit cards."""
    piles: list[tuple[T, ...]] = []
    at = 0
    for i in range(n):
        piles.append(tuple(packet[at : at + i + 1]))
        at += i + 1
    return tuple(piles), tuple(packet[at:])


def _new_layout(state: State, takers: tuple[int | None, int | None]) -> NewLayout:
    """New packets (pile taken + own spit cards + own layout, docs/games/spit.md#new-packets),
    shuffled, laid out.

    [ENGINE] Before its shuffle a packet is: the spit pile(s) taken, bottom→top (SP0 before SP1),
    then the player's spit cards top first, then its stock piles L0, L1, … each bottom→top. Seat
    ``p`` shuffles with stream ``shuffles + 1 + p`` (two streams per re-layout)."""
    n = state.setup.rules.num_stock_piles
    layouts: list[Layout] = []
    spit: list[tuple[Card, ...]] = []
    packets: list[list[Card]] = []
    winner: int | None = None
    for p in range(SEATS):
        packet: list[Card] = []
        for j in range(SPIT_PILES):
            if takers[j] == p:
                packet += state.spit_piles[j]
        packet += state.spit_cards[p]
        for pile in state.layouts[p]:
            packet += pile
        if not packet and winner is None:
            winner = p  # docs/games/spit.md#end-of-the-game: an empty new packet wins
        packets.append(shuffled(state.setup.seed, state.shuffles + 1 + p, packet))
    for packet in packets:
        if winner is None:
            piles, rest = lay_out(packet, n)
        else:  # the game is over: the packets are not laid out
            piles, rest = ((),) * n, tuple(packet)
        layouts.append(piles)
        spit.append(rest)
    return NewLayout(takers, tuple(layouts), tuple(spit), winner)


# --------------------------------------------------------------------------- evolve


def _as_cards(
    layouts: tuple[tuple[tuple[SeenCard, ...], ...], ...],
) -> tuple[Layout, ...]:
    return tuple(tuple(known(p) for p in lay) for lay in layouts)


@kit.inline
def _pair(pair: tuple[T, ...], i: int, v: T) -> tuple[T, ...]:
    """``pair`` (one entry per seat, or per spit pile) with entry ``i`` replaced by ``v``."""
    return (v, pair[1]) if i == 0 else (pair[0], v)


@kit.hot  # _pair written in (the pure build)
def evolve(state: State, event: Event) -> State:
    """Apply one event. No rules: the event carries every decision. Each event changes a copy of
    the state (:meth:`State.next`) in the fields it names.

    The frequent events come first, told apart by ``isinstance`` (a ``match`` class pattern costs
    several times more), and rebuild only the per-seat or per-pile pairs they change (named
    first: :func:`_pair` is written in only where its arguments are reads)."""
    s = state
    if isinstance(event, CardPlayed):
        p, i, j = event.seat, event.source, event.target
        layouts, up, spit_piles = s.layouts, s.up, s.spit_piles
        piles, ups = list(layouts[p]), list(up[p])
        piles[i], ups[i] = piles[i][:-1], ups[i] - 1
        layout, seat_ups, pile = tuple(piles), tuple(ups), spit_piles[j] + (event.card,)
        n = s.next()
        n.layouts = _pair(layouts, p, layout)
        n.up = _pair(up, p, seat_ups)
        n.spit_piles = _pair(spit_piles, j, pile)
        return n
    if isinstance(event, Flipped):
        p, ups = event.seat, list(s.up[event.seat])
        ups[event.pile] = 1
        seat_ups, up = tuple(ups), s.up
        n = s.next()
        n.up = _pair(up, p, seat_ups)
        return n
    if isinstance(event, (Moved, Stacked)):  # the top of ``source`` goes face up onto ``target``
        p, i, k = event.seat, event.source, event.target
        layouts, up = s.layouts, s.up
        piles, ups = list(layouts[p]), list(up[p])
        piles[i], piles[k] = piles[i][:-1], piles[k] + (event.card,)
        ups[i], ups[k] = ups[i] - 1, ups[k] + 1
        layout, seat_ups = tuple(piles), tuple(ups)
        n = s.next()
        n.layouts, n.up = _pair(layouts, p, layout), _pair(up, p, seat_ups)
        return n
    if isinstance(event, SpitCalled):
        p, target, call_targets = event.seat, event.target, s.call_targets
        called, done = joint_call(s.called, p, SEATS)  # done: the effect's events follow
        n = s.next()
        n.called = called
        n.call_targets = NO_TARGETS if done else _pair(call_targets, p, target)
        return n
    if isinstance(event, Spat):
        return _spat(s, event)
    return _evolve_rarely(s, event)


def _spat(s: State, event: Spat) -> State:
    """:func:`evolve` of a spit: the spitter's top spit card onto the pile, the calls cleared."""
    p, j = event.seat, event.target
    spit_cards, spit_piles = s.spit_cards, s.spit_piles
    rest, pile = spit_cards[p][1:], spit_piles[j] + (event.card,)
    n = s.next()
    n.spit_cards = _pair(spit_cards, p, rest)
    n.spit_piles = _pair(spit_piles, j, pile)
    n.called, n.call_targets = _NO_CALLS, NO_TARGETS
    if event.lock:
        n.locked = j
    return n


def _evolve_rarely(s: State, event: _RoundEvent) -> State:
    """:func:`evolve` of the events that start, end and lay out rounds."""
    match event:
        case PlayStarted():
            n = s.next()
            n.phase, n.called, n.call_targets = "PLAY", _NO_CALLS, NO_TARGETS
            n.locked = n.chooser = None
            return n
        case RoundEnded(_, seat, claim):
            n = s.next()
            if claim == "slap":
                n.phase = "SLAP"
            elif claim == "choose":
                n.phase = "CHOOSE"
            n.called, n.call_targets = _NO_CALLS, NO_TARGETS
            n.chooser = seat if claim == "choose" else None
            return n
        case PileClaimed():
            return s
        case NewLayout():
            return _laid_out(s, event)
        case Dealt(layouts, spit_cards):
            dealt = _as_cards(layouts)
            ups = tuple(tops_up(layout) for layout in dealt)
            spit = tuple(known(sc) for sc in spit_cards)
            return State(s.setup, "READY", dealt, ups, spit, ((), ()), _setting=s._setting)
        case Resigned(resigner):
            # docs/games/common.md#leaving-a-game: over where it stands; no recorded call can take
            # effect any more.
            n = s.next()
            n.called, n.call_targets = _NO_CALLS, NO_TARGETS
            n.winner, n.resigned = 1 - resigner, resigner
            return n
        case _:
            assert_never(event)


def _laid_out(s: State, event: NewLayout) -> State:
    """:func:`evolve` of a re-layout: the new packets laid out (or, the game won, left face
    down), the calls, lock and chooser cleared; the next round."""
    dealt = _as_cards(event.layouts)
    n = s.next()
    n.phase = "READY" if event.winner is None else "OVER"
    n.layouts = dealt
    n.up = tuple(tops_up(layout) for layout in dealt)
    n.spit_cards = tuple(known(sc) for sc in event.spit_cards)
    n.spit_piles = ((), ())
    n.called, n.call_targets = _NO_CALLS, NO_TARGETS
    n.locked = n.chooser = None
    n.round, n.shuffles = s.round + 1, s.shuffles + 2
    n.winner = event.winner
    return n


# --------------------------------------------------------------------------- setup, deal


def deck(setup: Setup[Rules]) -> list[Card]:
    """One 52-card deck, no jokers (docs/games/spit.md#setup)."""
    return standard_deck()


def initial_state(setup: Setup[Rules]) -> State:
    """The table before the deal: empty layouts, no spit cards, phase READY."""
    n = setup.rules.num_stock_piles
    empty: Layout = ((),) * n
    return State(setup, "READY", (empty, empty), ((0,) * n, (0,) * n), ((), ()), ((), ()))


def deal(setup: Setup[Rules]) -> list[Event]:
    """Shuffle with stream 0, deal 26 each one at a time from P0 (docs/games/common.md#dealing), and
    lay out (docs/games/spit.md#laying-out)."""
    cards = shuffled(setup.seed, 0, deck(setup))
    n = setup.rules.num_stock_piles
    outs = [lay_out(cards[p::SEATS], n) for p in range(SEATS)]
    return [Dealt(tuple(o[0] for o in outs), tuple(o[1] for o in outs))]


# --------------------------------------------------------------------------- views, redaction


@kit.viewed
def view(state: State, viewer: Viewer) -> View:
    """What ``viewer`` sees (docs/games/spit.md#setup): nobody but the referee sees a face-down
    card."""
    counts = tuple(map(len, state.spit_cards))
    if viewer == Role.REFEREE:
        layouts: tuple[tuple[tuple[SeenCard, ...], ...], ...] = state.layouts
        spit_cards: tuple[tuple[SeenCard, ...], ...] = state.spit_cards
    else:
        layouts = tuple(map(hide_layout, state.layouts, state.up))
        spit_cards = tuple([(HIDDEN,) * n for n in counts])
    return View(
        phase=state.phase,
        round=state.round,
        layouts=layouts,
        spit_cards=spit_cards,
        spit_counts=counts,
        spit_piles=state.spit_piles,
        called=(0 in state.called, 1 in state.called),
        call_targets=state.call_targets,
        locked=state.locked,
        chooser=state.chooser,
        stuck=state.phase == "PLAY" and is_stuck(state),
        winner=state.winner,
    )


ZONES: Final = kit.Zones(
    kit.Zone("layouts", "nobody", per_seat=True, piles=True, face_up="up"),
    kit.Zone("spit_cards", "nobody", piles=True),
    kit.Zone("spit_piles", "everyone", piles=True),
)
"""Where the cards of a Spit state lie, and who sees them (a layout pile's top ``up`` cards are
face up): cards_in_play and shuffle_hidden."""

shuffle_hidden = ZONES.shuffle_hidden
cards_in_play = ZONES.cards


# --------------------------------------------------------------------------- outcome, commands


def outcome(state: State) -> Outcome | None:
    """The first player whose new packet is empty wins (docs/games/spit.md#end-of-the-game); when a
    player resigns, the other (docs/games/common.md#leaving-a-game). Spit names no losers and keeps
    no score."""
    w = state.winner
    if w is None:
        return None
    if state.resigned is not None:
        return Outcome(Termination.RESIGNED, (w,))
    return Outcome(Termination.OUT_OF_CARDS, (w,))


_STOCK_PILES: Final = range(5)
"""The stock piles a layout may have (``num_stock_piles`` is 4 or 5)."""
_SPIT_PILES: Final = range(SPIT_PILES)


class _PileCommands:
    """The commands that take from stock pile ``i``, built once (:data:`_PILE_COMMANDS`). A
    plain class: a native one in the compiled build, whose attributes :func:`scan_layout` reads
    for every pile at every step as a C struct's (a ``NamedTuple``'s are looked up by name)."""

    flip: Flip
    plays: tuple[Play, ...]
    """Onto each spit pile."""
    moves: tuple[Move, ...]
    """Into each stock pile."""
    stacks: tuple[Stack, ...]
    """Onto each stock pile."""

    def __init__(self, i: int) -> None:
        self.flip = Flip(i)
        self.plays = tuple(Play(i, j) for j in _SPIT_PILES)
        self.moves = tuple(Move(i, k) for k in _STOCK_PILES)
        self.stacks = tuple(Stack(i, k) for k in _STOCK_PILES)


_PILE_COMMANDS: Final = tuple(_PileCommands(i) for i in _STOCK_PILES)
"""By stock pile (a tuple: a pile's number is its index)."""


_SPITS_ONTO: Final = kit.tabulate(Spit, _SPIT_PILES)
_SLAPS: Final = kit.tabulate(Slap, _SPIT_PILES)
_TAKES: Final = kit.tabulate(TakePile, _SPIT_PILES)


@kit.hot  # the seat check written in (the pure build): kit.seat_of
def legal_commands(state: State, seat: object) -> list[Command]:
    """Every command ``seat`` may make now (each is accepted by ``decide``), except ``Resign``:
    always allowed, never offered, so a bot picking among these never resigns by chance."""
    p = kit.seat_of(state._setting.seats, seat)
    if state.winner is not None:
        return []
    phase = state.phase
    if phase == "PLAY":  # the common case, first
        commands: list[Command] = []
        if scan_layout(state, p, state.fit, commands) or not state.stuck_given(p):
            return (
                commands  # an action of its own counts against being stuck, or one of the other's
            )
        commands += stalemate_calls(state, p)  # stuck
        return commands
    piles = state.spit_piles
    if phase == "READY":
        return [SPIT]
    if phase == "SLAP":
        return [_SLAPS[j] for j in _SPIT_PILES if piles[j]]
    if phase == "CHOOSE" and p == state.chooser:
        return [_TAKES[j] for j in _SPIT_PILES if piles[j]]
    return []


@kit.hot  # its helpers and the seat check written in (the pure build)
def is_sensible(state: State, seat: object, command: Command) -> bool:
    """Bots' hint. Not sensible: a joint call this seat already made, naming a target when not
    spitting alone, a move or stack that uncovers no face-down card (it could loop forever),
    claiming the bigger spit pile ("strategic players slap the pile with fewer cards",
    docs/games/spit.md#slapping-for-piles), and resigning."""
    p = kit.seat_of(state._setting.seats, seat)
    t = type(command)
    if t is _MOVE or t is _STACK:  # the commands offered most often first
        i: int = command.source  # type: ignore[union-attr]
        return exposes(state.layouts[p][i], state.up[p][i])
    if t is _PLAY or t is _FLIP:
        return True
    if isinstance(command, _SPIT):
        return p not in state.called and (command.target is None or spits_alone(state, p))
    if t is _RESIGN:
        return False
    j = command.target  # type: ignore[union-attr]
    piles = state.spit_piles
    other = piles[1 - j]
    return not other or len(piles[j]) <= len(other)
