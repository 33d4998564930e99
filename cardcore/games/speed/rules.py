"""Speed's rules (docs/games/speed.md): the state and the rule functions: ``decide``,
``evolve``, the deal, the views, ``outcome``, ``legal_commands`` and the adjudications in plain
words (``narrate``). The declarations (the variant flags, the commands and the view) are
:mod:`.declarations`, the events :mod:`.events`; the game itself is :mod:`cardcore.games.speed`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final, assert_never

from ... import kit
from ...cards import HIDDEN, JOKER, JOKER_RANK, Card, SeenCard, known, ranks_adjacent, standard_deck
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
    DRAW,
    FLIP,
    Command,
    Draw,
    Flip,
    Phase,
    Play,
    RoundVoided,
    Rules,
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

NAME: Final = "speed"
RULES_VERSION: Final = "2"
"""2 added ``Resign`` (docs/games/common.md#leaving-a-game); every action of version 1 is decided as
before, so logs of version 1 still verify (``replays_versions``)."""

_RoundEvent = RoundWon | Dealt | SidePileRebuilt | RoundVoided | Resigned
"""The events that deal, rebuild a side pile, end a round or end the game: the rarer ones."""

_ALL_CARDS: Final = (*standard_deck(), JOKER)


# --------------------------------------------------------------------------- state

Piles = tuple[tuple[Card, ...], ...]
Table = tuple[tuple[bool, ...], ...]


_NO_CALLS: Final[frozenset[int]] = frozenset()


class Setting:
    """What the rules read of a state's setup at every step: made once per setup and handed on
    from state to state (:meth:`State.next`), so that the rules read a native attribute where
    ``state.setup.rules.hand_size`` is two reads of Python objects' attributes in the compiled
    build (``Setup`` and ``Rules`` are Python classes there)."""

    seats: int
    table: Table
    """The rules' :func:`fit_table`."""
    hand_size: int
    auto_refill: bool
    multi_card_play: bool
    jokers: int

    def __init__(self, setup: Setup[Rules]) -> None:
        rules = setup.rules
        self.seats = setup.seats
        self.table = fit_table(rules)
        self.hand_size = rules.hand_size
        self.auto_refill = rules.auto_refill
        self.multi_card_play = rules.multi_card_play
        self.jokers = rules.jokers


class State(kit.NativeState):
    """A whole Speed position. Build one directly to test from exact cards (see ``position``).

    A native state (:class:`cardcore.kit.NativeState`: a C struct in the compiled build):
    ``evolve`` changes a copy of it (:meth:`next`) in the fields an event changes, and how the
    game ended is worked out once per state and kept (:attr:`ended`)."""

    setup: Setup[Rules]
    phase: Phase
    hands: Piles
    """Each seat's hand, in the order the cards were drawn."""
    draws: Piles
    """Each seat's face-down draw pile, top first."""
    sides: Piles
    """The face-down side piles ``R0``, ``R1``, top first; ``Rj`` feeds ``Cj``."""
    centre: Piles
    """The centre piles ``C0``, ``C1``, bottom→top (face down in ``READY``)."""
    calls: frozenset[int]
    """Seats whose current joint "flip" call is recorded (docs/games/common.md#joint-calls)."""
    scores: tuple[int, ...]
    wins: tuple[int, ...]
    round: int
    shuffles: int
    """RNG streams used after the first deal: the next shuffle uses stream ``shuffles + 1``."""
    winner: int | None
    """The winner of the game: once ``phase`` is ``OVER``, or after a resignation."""
    resigned: int | None
    """The seat that resigned (docs/games/common.md#leaving-a-game): the game ended where it stood
    (any phase but ``OVER``), ``winner`` the other seat."""
    _setting: Setting
    """What the rules read of ``setup`` at every step (no field: made from it)."""

    def __init__(  # noqa: PLR0917  # the fields, in order
        self,
        setup: Setup[Rules],
        phase: Phase,
        hands: Piles,
        draws: Piles,
        sides: Piles,
        centre: Piles,
        calls: frozenset[int] = _NO_CALLS,
        scores: tuple[int, ...] = (0, 0),
        wins: tuple[int, ...] = (0, 0),
        round: int = 1,
        shuffles: int = 0,
        winner: int | None = None,
        resigned: int | None = None,
        _setting: Setting | None = None,
    ) -> None:
        self.setup = setup
        self.phase = phase
        self.hands = hands
        self.draws = draws
        self.sides = sides
        self.centre = centre
        self.calls = calls
        self.scores = scores
        self.wins = wins
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
            self.hands,
            self.draws,
            self.sides,
            self.centre,
            self.calls,
            self.scores,
            self.wins,
            self.round,
            self.shuffles,
            self.winner,
            self.resigned,
            self._setting,
        )

    def outcome(self) -> Outcome | None:
        """How the game ended, None while it goes on (kept as ``ended``): :func:`outcome`."""
        return outcome(self)


# --------------------------------------------------------------------------- rank fitting

RANKS: Final = range(14)
"""Rank indices: 0 a joker, 1 (ace) to 13 (king)."""
_FLAGS: Final = (False, True)


def rank_fits(rank: int, top: int, wrap: bool, equal: bool) -> bool:
    """May a card of rank ``rank`` go on a top of rank ``top``? One higher or lower (K–A–2 with
    ``wrap``: :func:`cardcore.cards.ranks_adjacent`), equal with ``allow_equal_rank``; a joker
    (rank 0) is wild both ways (docs/games/speed.md#playing, docs/games/speed.md#variant-flags)."""
    wild = rank == JOKER_RANK or top == JOKER_RANK
    return wild or ranks_adjacent(rank, top, wrap=wrap) or (equal and rank == top)


def _fit_table(wrap: bool, equal: bool) -> Table:
    """:func:`rank_fits` of every rank on every top (``table[rank][top]``). The rule is symmetric,
    so a top's row is also the ranks that fit on it."""
    return tuple(tuple(rank_fits(a, b, wrap, equal) for b in RANKS) for a in RANKS)


_FIT_TABLES: Final = kit.tabulate(_fit_table, _FLAGS, _FLAGS)
""":func:`_fit_table` of each (``wrap``, ``allow_equal_rank``)."""


@kit.inline
def fit_table(rules: Rules) -> Table:
    """``table[a][b]``: may a card of rank ``a`` go on a top of rank ``b``? (:func:`rank_fits`)"""
    return _FIT_TABLES[rules.wrap, rules.allow_equal_rank]


def fits(rules: Rules, card: Card, top: Card) -> bool:
    """May ``card`` be played on ``top`` under ``rules``?"""
    return fit_table(rules)[card.rank][top.rank]


@kit.inline
def _fitting_on(table: Table, state: State) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
    """By rank, whether a card of that rank fits on each centre top: the tops' rows of the
    table (the rule is symmetric, tests/unit/test_speed_rules.py)."""
    return table[state.centre[0][-1].rank], table[state.centre[1][-1].rank]


@kit.inline
def _hands_full(state: State) -> bool:
    """Each hand is as full as its draw pile allows (``|H| = min(hand_size, |H| + |D|)``)."""
    return _hand_full(state, 0) and _hand_full(state, 1)


@kit.inline
def _hand_full(state: State, seat: int) -> bool:
    return not state.draws[seat] or len(state.hands[seat]) >= state._setting.hand_size


@kit.hot
def is_stuck(state: State, table: Table | None = None) -> bool:
    """docs/games/speed.md#stalemate: no card in either hand fits either centre top, and each hand
    is as full as it can be (``|H| = min(hand_size, |H| + |D|)``). ``table``: the rules'
    :func:`fit_table`, if the caller has it."""
    if state.phase != "PLAY":
        return False
    table = state._setting.table if table is None else table
    h0, h1 = state.hands
    return _hands_full(state) and not _has_play(table, state, h0 + h1)


@kit.hot
def _has_play(table: Table, state: State, hand: tuple[Card, ...]) -> bool:
    """Some card of ``hand`` fits a centre top."""
    on0, on1 = _fitting_on(table, state)
    for card in hand:
        rank = card.rank
        if on0[rank] or on1[rank]:
            return True
    return False


# --------------------------------------------------------------------------- decide


@kit.hot  # the seat check written in (the pure build): kit.seat_of
def decide(state: State, seat: object, command: Command) -> list[Event]:
    """The events of ``command`` by ``seat``, or :class:`Rejected`
    (docs/games/common.md#order-of-checks). A seat that is not 0 or 1 (a ``bool`` included) raises
    :class:`InvalidSeat`."""
    p = kit.seat_of(state._setting.seats, seat)
    if state.winner is not None:  # phase OVER, or a resignation
        raise Rejected(RejectCode.GAME_OVER, "the game is over")
    phase = state.phase
    t = type(command)
    if t is Play:
        if phase != "PLAY":
            raise Rejected(RejectCode.INVALID_PHASE, "no play before both players flip to start")
        return _decide_play(state, p, command)  # type: ignore[arg-type]
    if t is Flip:
        if phase == "READY":
            return _decide_call(state, p, False)
        if not is_stuck(state):
            raise Rejected(
                RejectCode.NOT_STUCK,
                "a stalemate flip needs both hands full (as far as the draw piles allow) "
                "and no card fitting either centre pile",
            )
        return _decide_call(state, p, True)
    if t is Draw:
        return _decide_draw(state, p)
    # docs/games/common.md#leaving-a-game: any phase; a player's and the timer's forfeit alike
    if t is kit.Resign:
        return [Resigned(p)]
    raise Rejected(RejectCode.INVALID_PHASE, f"not a Speed command: {command!r}")


def _decide_draw(state: State, seat: int) -> list[Event]:
    """(``auto_refill=False``) Draw the top card of the draw pile into a hand not yet full."""
    phase, rules = state.phase, state._setting
    if phase != "PLAY" or rules.auto_refill:
        raise Rejected(
            RejectCode.INVALID_PHASE,
            "draw is only allowed during play with auto_refill off"
            if phase == "PLAY"
            else "no draw before both players flip to start",
        )
    hand = state.hands[seat]
    if len(hand) >= rules.hand_size:
        raise Rejected(RejectCode.HAND_FULL, f"the hand already holds {len(hand)} cards")
    draw = state.draws[seat]
    if not draw:
        raise Rejected(RejectCode.NO_CARDS, "the draw pile is empty")
    return [CardDrawn(seat, draw[0])]


def _decide_play(state: State, seat: int, command: Play) -> list[Event]:
    """docs/games/speed.md#playing: a hand card (or, with ``multi_card_play``, a run of them, each
    fitting the last) onto a centre pile it fits; the hand is refilled (``auto_refill``) and a
    seat left without cards wins the round."""
    to, centre = command.to, state.centre
    valid_target = to == 0 or to == 1
    expect = command.expect_top
    if expect is not None and valid_target and centre[to][-1] is not expect:
        raise Rejected(
            RejectCode.STALE_ACTION,
            f"expected {expect} on centre pile {to}, but its top is {centre[to][-1]}",
        )
    if not valid_target:
        raise Rejected(RejectCode.INVALID_TARGET, f"no centre pile {to} (0 or 1)")
    hand, rules, card, then = state.hands[seat], state._setting, command.card, command.then
    table, top = rules.table, centre[to][-1]
    if not then:  # one card: most plays
        if card not in hand:
            raise Rejected(RejectCode.CARD_NOT_AVAILABLE, f"{card} is not in the hand")
        if not table[card.rank][top.rank]:
            raise Rejected(RejectCode.ILLEGAL_CARD, f"{card} does not fit on {top}")
        events: list[Event] = [CardPlayed(seat, card, to)]
    else:
        events = _run_played(state, seat, command)
    held, draw = len(hand) - len(events), state.draws[seat]
    if rules.auto_refill:  # docs/games/speed.md#playing: refill to a full hand after every play
        drawn = draw[: max(rules.hand_size - held, 0)]
        for taken in drawn:
            events.append(CardDrawn(seat, taken))
        if drawn:
            return events  # the hand holds cards again: the round goes on
    if held == 0 and not draw:
        events += _round_won(state, seat)
    return events


def _run_played(state: State, seat: int, command: Play) -> list[Event]:
    """(``multi_card_play``) The plays of a run: every card held (a card twice only if the hand
    holds it twice), each fitting the last (docs/games/speed.md#variant-flags)."""
    rules, to, run = state._setting, command.to, (command.card, *command.then)
    left, top = list(state.hands[seat]), state.centre[to][-1]
    for card in run:
        if card not in left:
            raise Rejected(RejectCode.CARD_NOT_AVAILABLE, f"{card} is not in the hand")
        left.remove(card)
    if not rules.multi_card_play:
        raise Rejected(RejectCode.ILLEGAL_CARD, "one card per play (multi_card_play is off)")
    table = rules.table
    events: list[Event] = []
    for card in run:
        if not table[card.rank][top.rank]:
            raise Rejected(RejectCode.ILLEGAL_CARD, f"{card} does not fit on {top}")
        events.append(CardPlayed(seat, card, to))
        top = card
    return events


def _decide_call(state: State, seat: int, stalemate: bool) -> list[Event]:
    """A joint call (docs/games/common.md#joint-calls): recorded; the effect happens when the other
    seat has called too."""
    called: list[Event] = [FlipCalled(seat, stalemate)]
    if not joint_call(state.calls, seat, 2)[1]:
        return called
    if not stalemate:
        return called + [Started((state.centre[0][-1], state.centre[1][-1]))]
    return called + _stalemate_flip(state)


def _stalemate_flip(state: State) -> list[Event]:
    """docs/games/speed.md#stalemate with both calls in: rebuild empty side piles and turn one card
    each, or end the round void when no flip can ever unblock the game."""
    sides, centre = state.sides, state.centre
    if _is_dead(state):
        return [RoundVoided(), _deal_event(state.setup, state.round + 1, state.shuffles + 1)]
    events: list[Event] = []
    shuffles = state.shuffles
    turned: list[Card | None] = []
    for j in (0, 1):
        side = sides[j]
        # docs/games/speed.md#stalemate, step 1, docs/games/speed.md#decisions, item 5
        if not side and len(centre[j]) > 1:
            shuffles += 1
            side = tuple(shuffled(state.setup.seed, shuffles, list(centre[j][:-1])))
            events.append(SidePileRebuilt(j, shuffles, side))
        turned.append(side[0] if side else None)
    events.append(SideCardsTurned(tuple(turned)))
    return events


def _is_dead(state: State) -> bool:
    """docs/games/speed.md#dead-stalemate [ENGINE]: no card of ``R0 ∪ R1 ∪ C0 ∪ C1`` takes any hand
    card, or neither side pile can provide a card (even after a rebuild)."""
    sides, centre = state.sides, state.centre
    if not (sides[0] or sides[1] or len(centre[0]) > 1 or len(centre[1]) > 1):
        return True
    table = state._setting.table
    held = {c.rank for hand in state.hands for c in hand}
    for zone in (*sides, *centre):
        for x in zone:
            takes = table[x.rank]  # the ranks that may be played on x (the rule is symmetric)
            for rank in held:
                if takes[rank]:
                    return False
    return True


def ends_game(rules: Rules, score: int, wins: int) -> bool:
    """Whether a seat with these totals has won the game (docs/games/speed.md#scoring): its total
    reached ``target_score``, it won the best-of series, or, with neither, it won a round."""
    if rules.target_score is not None:
        return score >= rules.target_score
    if rules.best_of is not None:
        return wins >= rules.best_of // 2 + 1
    return wins > 0


def _round_won(state: State, seat: int) -> list[Event]:
    """Round end and scoring (docs/games/speed.md#scoring); a re-deal follows unless the game is
    over."""
    rules = state.setup.rules
    loser = 1 - seat
    points = len(state.draws[loser])
    if rules.score_counts == "stock_and_hand":
        points += len(state.hands[loser])
    scores = list(state.scores)
    scores[seat] += points
    wins = list(state.wins)
    wins[seat] += 1
    final = ends_game(rules, scores[seat], wins[seat])
    events: list[Event] = [RoundWon(seat, points, tuple(scores), tuple(wins), final)]
    if not final:
        events.append(_deal_event(state.setup, state.round + 1, state.shuffles + 1))
    return events


# --------------------------------------------------------------------------- evolve


def _pair(pair: Piles, i: int, pile: tuple[Card, ...]) -> Piles:
    """``pair`` (one pile per seat, or per centre or side pile) with pile ``i`` replaced."""
    return (pile, pair[1]) if i == 0 else (pair[0], pile)


def evolve(state: State, event: Event) -> State:
    """Apply one event. No rules: the event carries every decision. Each event changes a copy of
    the state (:meth:`State.next`) in the fields it names.

    An ``isinstance`` chain, most frequent event first, rather than ``match``: a class pattern
    with positional fields costs several times more than the test and the attribute reads."""
    s = state
    if isinstance(event, CardPlayed):  # the two events of nearly every action come first
        p, card, to = event.seat, event.card, event.to
        hands, centre = s.hands, s.centre
        hand = hands[p]
        i = hand.index(card)
        hand = hand[:i] + hand[i + 1 :]
        pile = centre[to] + (card,)
        n = s.next()
        n.hands = (hand, hands[1]) if p == 0 else (hands[0], hand)
        n.centre = (pile, centre[1]) if to == 0 else (centre[0], pile)
        return n
    if isinstance(event, CardDrawn):
        p, hands, draws = event.seat, s.hands, s.draws
        hand, draw = hands[p] + (draws[p][0],), draws[p][1:]
        n = s.next()
        n.hands = (hand, hands[1]) if p == 0 else (hands[0], hand)
        n.draws = (draw, draws[1]) if p == 0 else (draws[0], draw)
        return n
    if isinstance(event, FlipCalled):
        n = s.next()
        n.calls = s.calls | {event.seat}
        return n
    if isinstance(event, SideCardsTurned):  # each turned card goes from its side pile to the top
        new_sides, new_centre = list(s.sides), list(s.centre)
        for j, turned in enumerate(event.cards):
            if turned is not None:
                new_sides[j], new_centre[j] = new_sides[j][1:], new_centre[j] + (turned,)
        n = s.next()
        n.sides, n.centre, n.calls = tuple(new_sides), tuple(new_centre), _NO_CALLS
        return n
    if isinstance(event, Started):
        n = s.next()
        n.phase, n.calls = "PLAY", _NO_CALLS
        return n
    return _evolve_rarely(s, event)


def _evolve_rarely(s: State, event: _RoundEvent) -> State:
    """:func:`evolve` of the events that deal, rebuild, end rounds and end the game."""
    if isinstance(event, RoundWon):
        final = event.final
        n = s.next()
        if final:
            n.phase, n.winner = "OVER", event.seat
        else:
            n.winner = None
        n.calls, n.scores, n.wins = _NO_CALLS, event.scores, event.wins
        return n
    if isinstance(event, Dealt):
        return _dealt(s, event)
    if isinstance(event, SidePileRebuilt):  # the cards under the centre top became the side pile
        j = event.pile
        n = s.next()
        n.sides = _pair(s.sides, j, known(event.cards))
        n.centre = _pair(s.centre, j, (s.centre[j][-1],))
        n.shuffles = event.stream
        return n
    if isinstance(event, RoundVoided):
        return s
    if isinstance(event, Resigned):
        # docs/games/common.md#leaving-a-game: over where it stands; no recorded call can take
        # effect any more.
        n = s.next()
        n.calls, n.winner, n.resigned = _NO_CALLS, 1 - event.seat, event.seat
        return n
    assert_never(event)


def _dealt(s: State, event: Dealt) -> State:
    """:func:`evolve` of a deal: a new round's table, the cards as dealt, no call, phase
    ``READY``; the totals kept."""
    n = s.next()
    n.phase = "READY"
    n.hands = tuple(map(known, event.hands))
    n.draws = tuple(map(known, event.draws))
    n.sides = tuple(map(known, event.sides))
    n.centre = tuple((c,) for c in known(event.centre))
    n.calls = _NO_CALLS
    n.round = event.round
    n.shuffles = event.stream
    n.winner = None
    return n


# --------------------------------------------------------------------------- setup, deal


def deck(setup: Setup[Rules]) -> list[Card]:
    """One 52-card deck, plus the jokers of the variant."""
    return standard_deck(1, setup.rules.jokers)


def initial_state(setup: Setup[Rules]) -> State:
    """The table before the first deal: every zone empty, phase ``READY``."""
    empty: Piles = ((), ())
    return State(setup, "READY", empty, empty, empty, empty, round=0)


def _deal_event(setup: Setup[Rules], round_: int, stream: int) -> Dealt:
    """docs/games/speed.md#setup from a fresh shuffle of the whole deck (stream 0 first, then one
    per shuffle): ``C0 = d0``, ``C1 = d1``, ``R0``, ``R1`` the next ``S`` each, then each draw pile
    ``M``, whose top ``hand_size`` cards go to the hand."""
    rules = setup.rules
    d = shuffled(setup.seed, stream, deck(setup))
    s = rules.side_pile_size
    m = personal_size(rules)
    h = rules.hand_size
    r0, r1 = tuple(d[2 : 2 + s]), tuple(d[2 + s : 2 + 2 * s])
    base = 2 + 2 * s
    p0, p1 = d[base : base + m], d[base + m : base + 2 * m]
    return Dealt(
        round=round_,
        stream=stream,
        centre=(d[0], d[1]),
        sides=(r0, r1),
        hands=(tuple(p0[:h]), tuple(p1[:h])),
        draws=(tuple(p0[h:]), tuple(p1[h:])),
    )


def deal(setup: Setup[Rules]) -> list[Event]:
    """The first deal, from stream 0 of the seed (docs/games/speed.md#setup)."""
    return [_deal_event(setup, 1, 0)]


# --------------------------------------------------------------------------- views, redaction


def _face_down(piles: Sequence[Sequence[SeenCard]]) -> tuple[tuple[SeenCard, ...], ...]:
    return tuple((HIDDEN,) * len(p) for p in piles)


@kit.viewed
def view(state: State, viewer: Viewer) -> View:
    """The table as ``viewer`` sees it (a seat: its own hand and the face-up cards)."""
    referee = viewer == Role.REFEREE
    hands: tuple[tuple[SeenCard, ...], ...]
    if referee:
        hands = state.hands
        draws: tuple[tuple[SeenCard, ...], ...] = state.draws
        sides: tuple[tuple[SeenCard, ...], ...] = state.sides
    else:
        hands = tuple(h if viewer == p else (HIDDEN,) * len(h) for p, h in enumerate(state.hands))
        draws = _face_down(state.draws)
        sides = _face_down(state.sides)
    centre: tuple[tuple[SeenCard, ...], ...] = state.centre
    if state.phase == "READY" and not referee:
        centre = _face_down(state.centre)
    return View(
        phase=state.phase,
        round=state.round,
        hands=hands,
        draws=draws,
        sides=sides,
        centre=centre,
        calls=tuple(sorted(state.calls)),
        scores=state.scores,
        wins=state.wins,
        winner=state.winner,
    )


def redact(event: Event, viewer: Viewer) -> Event:
    """The event as ``viewer`` sees it: a seat sees its own dealt hand and its own draws; nobody
    but the referee sees a face-down card or a rebuilt side pile's order."""
    kit.check_viewer(viewer, 2)
    if viewer == Role.REFEREE:
        return event
    t = type(event)
    if t is CardDrawn:
        if event.seat == viewer:  # type: ignore[union-attr]
            return event
        return CardDrawn(event.seat, HIDDEN)  # type: ignore[union-attr]
    if t is Dealt:
        e: Dealt = event  # type: ignore[assignment]
        return Dealt(
            e.round,
            e.stream,
            (HIDDEN,) * len(e.centre),
            _face_down(e.sides),
            tuple(h if viewer == p else (HIDDEN,) * len(h) for p, h in enumerate(e.hands)),
            _face_down(e.draws),
        )
    if t is SidePileRebuilt:
        r: SidePileRebuilt = event  # type: ignore[assignment]
        return SidePileRebuilt(r.pile, r.stream, (HIDDEN,) * len(r.cards))
    return event


ZONES: Final = kit.Zones(
    kit.Zone("hands", "owner", per_seat=True),
    kit.Zone("draws", "nobody", piles=True),
    kit.Zone("sides", "nobody", piles=True),
    kit.Zone("centre", "everyone", piles=True, hidden_while=lambda s: s.phase == "READY"),
)
"""Where the cards of a Speed state lie, and who sees them (the centre cards are turned up at the
start): cards_in_play and shuffle_hidden."""

shuffle_hidden = ZONES.shuffle_hidden
cards_in_play = ZONES.cards


# --------------------------------------------------------------------------- outcome, commands


def outcome(state: State) -> Outcome | None:
    """The round winner (no target / best-of), or the match winner once the match is decided;
    when a player resigns, the other (docs/games/common.md#leaving-a-game), with the totals as they
    stand. Speed names no losers."""
    w = state.winner
    if w is None:
        return None
    if state.resigned is not None:
        return Outcome(Termination.RESIGNED, (w,), scores=state.scores)
    rules = state.setup.rules
    match_play = rules.target_score is not None or rules.best_of is not None
    return Outcome(
        Termination.TARGET_SCORE if match_play else Termination.OUT_OF_CARDS,
        (w,),
        scores=state.scores,
    )


def _plays_onto(pile: int) -> Mapping[Card, Play]:
    return kit.tabulate(lambda card: Play(card, pile), _ALL_CARDS)


_PLAYS_ONTO: Final = (_plays_onto(0), _plays_onto(1))
"""Every single-card play, by centre pile, then card (a look-up by one card is a quarter of one by
a ``(card, pile)`` tuple: it is made for every fitting card of every hand at every step)."""


@kit.hot  # its helpers and the seat check written in (the pure build)
def legal_commands(state: State, seat: object) -> list[Command]:
    """Every command ``seat`` may make now (a repeated flip call is legal, if not sensible),
    except ``Resign``: always allowed, never offered, so a bot picking among these never
    resigns by chance."""
    p = kit.seat_of(state._setting.seats, seat)
    if state.winner is not None:  # phase OVER, or a resignation
        return []
    phase = state.phase
    if phase == "READY":
        return [FLIP]
    if phase != "PLAY":
        return []
    rules, hand = state._setting, state.hands[p]
    table = rules.table
    if rules.multi_card_play:
        plays = _run_plays(state, hand, table)
    else:  # docs/games/speed.md#playing: each card onto each centre pile it fits, in hand order
        plays = []
        on0, on1 = _fitting_on(table, state)
        onto0, onto1 = _PLAYS_ONTO
        for card in hand:
            rank = card.rank
            if on0[rank]:
                plays.append(onto0[card])
            if on1[rank]:
                plays.append(onto1[card])
        if rules.jokers:
            plays = list(dict.fromkeys(plays))  # a card held twice (two jokers): its plays once
    if not rules.auto_refill and len(hand) < rules.hand_size and state.draws[p]:
        plays.append(DRAW)  # its hand may take a card (auto_refill off)
    elif not plays and _hands_full(state) and not _has_play(table, state, state.hands[1 - p]):
        plays.append(FLIP)  # stuck (is_stuck, where this hand is known to have no play)
    return plays


def _run_plays(state: State, hand: tuple[Card, ...], table: Table) -> list[Command]:
    """(``multi_card_play``) Every run of distinct cards of ``hand``, each fitting the last, onto
    each centre pile (docs/games/speed.md#variant-flags)."""
    out: list[Command] = []
    for j, pile in enumerate(state.centre):
        for first, *then in _runs(table, pile[-1], hand):
            out.append(Play(first, j, then=tuple(then)) if then else _PLAYS_ONTO[j][first])
    return out


def _runs(table: Table, top: Card, left: tuple[Card, ...]) -> list[tuple[Card, ...]]:
    """Every non-empty ordered run of distinct cards of ``left`` that fits onto ``top``."""
    out: list[tuple[Card, ...]] = []
    seen: set[Card] = set()
    for i, c in enumerate(left):
        if c in seen or not table[c.rank][top.rank]:
            continue
        seen.add(c)  # two jokers: one run per distinct card
        out.append((c,))
        out += [(c, *rest) for rest in _runs(table, c, left[:i] + left[i + 1 :])]
    return out


@kit.hot  # the seat check written in (the pure build): kit.seat_of
def is_sensible(state: State, seat: object, command: Command) -> bool:
    """Bots' hint: never repeat a flip call this seat has already made
    (docs/games/common.md#joint-calls), never resign."""
    p = kit.seat_of(state._setting.seats, seat)
    t = type(command)
    if t is Flip:
        return p not in state.calls
    return t is not kit.Resign


# --------------------------------------------------------------------------- narration


def _card(card: SeenCard) -> str:
    return card.symbol if isinstance(card, Card) else "a face-down card"


def narrate(event: Event) -> str:
    """One adjudication in plain words."""
    match event:
        case Dealt(rnd, _, _, sides, hands, draws):
            seats = ", ".join(
                f"seat {p}: hand {len(h)} + draw pile {len(draws[p])}" for p, h in enumerate(hands)
            )
            return (
                f"round {rnd} dealt: 2 centre cards face down, side piles "
                f"{len(sides[0])} and {len(sides[1])}; {seats}"
            )
        case FlipCalled(seat, stalemate):
            what = "a stalemate flip" if stalemate else "flip to start"
            return f"seat {seat} calls {what}"
        case Started(centre):
            up = " and ".join(_card(c) for c in centre)
            return f"both players called: the centre cards are turned up: {up}"
        case CardPlayed(seat, card, to):
            return f"seat {seat} played {card.symbol} on centre pile {to}"
        case CardDrawn(seat, card):
            return f"seat {seat} drew {_card(card)}"
        case SidePileRebuilt(pile, _, cards):
            return (
                f"side pile {pile} was empty: rebuilt from the {len(cards)} cards under centre "
                f"pile {pile}'s top, shuffled"
            )
        case SideCardsTurned(cards):
            turned = [
                f"{c.symbol} onto centre pile {j}" for j, c in enumerate(cards) if c is not None
            ]
            return "both players called: stalemate flip turned " + " and ".join(turned)
        case RoundVoided():
            return (
                "both players called a dead stalemate: no flip can help, the round ends with "
                "no winner and every card is re-dealt"
            )
        case RoundWon(seat, points, scores, _, final):
            text = (
                f"seat {seat} emptied hand and draw pile: wins the round and scores {points} "
                f"(totals {scores[0]}–{scores[1]})"
            )
            return text + (": game over" if final else "; all cards are re-dealt")
        case Resigned(resigner):
            return (
                f"seat {resigner} resigned: seat {1 - resigner} wins the game; the cards stay "
                "where they lie"
            )
        case _:
            assert_never(event)
