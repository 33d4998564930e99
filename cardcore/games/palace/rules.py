"""Palace's rules (docs/games/palace.md): the state, the ranks and what may be played on the pile,
``evolve``, the deal, ``outcome`` and who is to act. The variant flags, commands and the view are
declared in :mod:`.declarations`, the events in :mod:`.events`. The game itself, with the engine's
interpretations ([ENGINE]) stated once, is :mod:`cardcore.games.palace`; ``decide`` is
:mod:`.decide`, ``legal_commands`` and ``is_sensible`` :mod:`.moves`, the views and narration
:mod:`.views`, positions and their notation :mod:`.position`.

Module order (style.md): state → ranks → helpers → what may be played → evolve → deal → outcome
(the rules, commands and events before them are in :mod:`.declarations` and :mod:`.events`). The
seat a function is given is checked once, by the rule it is given to (:func:`cardcore.kit.seat_of`,
its first statement; :func:`cardcore.kit.viewed` for the views) and by ``Match``; the rules below
trust it.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType
from typing import Final, assert_never

from ... import kit
from ...cards import JOKER_RANK, Card, SeenCard, known, rank_name, standard_deck
from ...engine import Outcome, Setup, Termination
from ...errors import InvalidSetup
from ...rng import shuffled
from .declarations import BurnKind, Phase, PlayFaceDown, Rules
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

RULES_VERSION: Final = "2"
NAME: Final = "palace"
MIN_SEATS: Final = 2
MAX_SEATS: Final = 8

# --------------------------------------------------------------------------- state

Rows = tuple[tuple[Card, ...], ...]

_NOBODY: Final[frozenset[int]] = frozenset()


class Setting:
    """What the rules read of a state's setup at every step: made once per setup and handed on
    from state to state (:meth:`State.next`), so that the rules read a native attribute where
    ``state.setup.rules.two_follow_up`` is two reads of Python objects' attributes in the compiled
    build (``Setup`` and ``Rules`` are Python classes there). The flags keep their
    :class:`Rules` names (docs/games/palace.md#variant-flags)."""

    seats: int
    cards_per_area: int
    two_follow_up: bool
    ten_follow_up: bool
    four_of_a_kind_burn: str
    out_of_turn_completion: bool
    add_drawn_same_rank: bool
    voluntary_pickup: bool
    starter_must_play_lowest: bool
    seven_lower: bool
    eight_skip: bool
    three_invisible: bool
    nine_lower: bool
    finish_on_special: bool
    combine_hand_and_up: bool
    costs: tuple[int, ...]
    """How dear each rank index is under these rules (``_COSTS``; no two ranks cost the same)."""
    each_card_once: bool
    """The decks hold no card twice (one deck, at most one joker): no row holds a card twice."""
    fitting: dict[int | None, frozenset[int]]
    """The ranks that may go on each top rank (``_top_rank``) under these rules: ``_FITTING``'s
    row of their flags."""
    blind_plays: tuple[PlayFaceDown, ...]
    """A seat's face-down plays, one per position of its ``cards_per_area`` face-down cards: the
    commands ``legal_commands`` lists once only those are left, built once per setup."""

    def __init__(self, setup: Setup[Rules]) -> None:
        rules = setup.rules
        self.seats = setup.seats
        self.cards_per_area = rules.cards_per_area
        self.two_follow_up = rules.two_follow_up
        self.ten_follow_up = rules.ten_follow_up
        self.four_of_a_kind_burn = rules.four_of_a_kind_burn
        self.out_of_turn_completion = rules.out_of_turn_completion
        self.add_drawn_same_rank = rules.add_drawn_same_rank
        self.voluntary_pickup = rules.voluntary_pickup
        self.starter_must_play_lowest = rules.starter_must_play_lowest
        self.seven_lower = rules.seven_lower
        self.eight_skip = rules.eight_skip
        self.three_invisible = rules.three_invisible
        self.nine_lower = rules.nine_lower
        self.finish_on_special = rules.finish_on_special
        self.combine_hand_and_up = rules.combine_hand_and_up
        self.costs = _COSTS[rules.three_invisible]
        self.each_card_once = rules.num_decks == 1 and rules.jokers <= 1
        # The row's copy (dict(row) would ask it for each key in turn)
        self.fitting = _FITTING[rules.seven_lower, rules.nine_lower, rules.three_invisible].copy()
        self.blind_plays = tuple(PlayFaceDown(i) for i in range(rules.cards_per_area))


class State(kit.NativeState):
    """A whole Palace position. Build one directly to test from exact cards (see ``position``).

    A native state (:class:`cardcore.kit.NativeState`: a C struct in the compiled build):
    ``evolve`` changes a copy of it (:meth:`next`) in the fields an event changes, and what every
    seat asks of a position (how the game ended, which ranks go on the pile, the play a sensible
    player makes) is worked out once per state and kept (:attr:`ended`, :attr:`allowed`,
    :attr:`playable`, :attr:`best_play`)."""

    setup: Setup[Rules]
    phase: Phase
    hands: Rows
    up: Rows
    down: Rows
    stock: tuple[Card, ...]
    """Top first."""
    pile: tuple[Card, ...]
    """Bottom→top."""
    burned: tuple[Card, ...]
    current: int | None
    follow_up: bool
    """The current player must play again (after a 2 or a burn): no pick-up."""
    direction: int
    ready: frozenset[int]
    finished: tuple[int, ...]
    """Seats that are out, in the order they left: those that went out and those that resigned
    (``resigned``; in the setup phase only those)."""
    window: tuple[int, int, int] | None
    """The open add-drawn window: ``(seat, rank just played, cards drawn by its last draw)``;
    those cards are the last ones of that seat's hand."""
    opening: bool
    """No card has been played yet (``starter_must_play_lowest``)."""
    revealed: Card | None
    """The face-down card turned up most recently: everyone saw it, wherever it went."""
    set_aside: tuple[Card, ...]
    """The cards of resigned seats, out of the game face down (docs/games/common.md#leaving-a-game),
    in the order they left: each resigner's hand, then its face-up, then its face-down cards."""
    resigned: tuple[int, ...]
    """The seats that resigned, in order. They are in ``finished`` too (they are out: no turn,
    no window, no command), but rank below every seat that went out (``outcome``)."""
    _setting: Setting
    """What the rules read of ``setup`` at every step (no field: made from it)."""
    _kept_allowed: frozenset[int] | None = None
    _kept_playable: list[tuple[int, list[Card]]] | None = None
    _kept_best_play: tuple[int, int] | None = None
    _best_play_known: bool = False

    def __init__(  # noqa: PLR0917  # the fields, in order
        self,
        setup: Setup[Rules],
        phase: Phase,
        hands: Rows,
        up: Rows,
        down: Rows,
        stock: tuple[Card, ...] = (),
        pile: tuple[Card, ...] = (),
        burned: tuple[Card, ...] = (),
        current: int | None = None,
        follow_up: bool = False,
        direction: int = 1,
        ready: frozenset[int] = _NOBODY,
        finished: tuple[int, ...] = (),
        window: tuple[int, int, int] | None = None,
        opening: bool = False,
        revealed: Card | None = None,
        set_aside: tuple[Card, ...] = (),
        resigned: tuple[int, ...] = (),
        _setting: Setting | None = None,
    ) -> None:
        self.setup = setup
        self.phase = phase
        self.hands = hands
        self.up = up
        self.down = down
        self.stock = stock
        self.pile = pile
        self.burned = burned
        self.current = current
        self.follow_up = follow_up
        self.direction = direction
        self.ready = ready
        self.finished = finished
        self.window = window
        self.opening = opening
        self.revealed = revealed
        self.set_aside = set_aside
        self.resigned = resigned
        self._setting = Setting(setup) if _setting is None else _setting

    def next(self) -> State:
        """A copy for ``evolve`` to change: the same fields, nothing derived kept."""
        return State(
            self.setup,
            self.phase,
            self.hands,
            self.up,
            self.down,
            self.stock,
            self.pile,
            self.burned,
            self.current,
            self.follow_up,
            self.direction,
            self.ready,
            self.finished,
            self.window,
            self.opening,
            self.revealed,
            self.set_aside,
            self.resigned,
            self._setting,
        )

    def outcome(self) -> Outcome | None:
        """How the game ended, None while it goes on (kept as ``ended``): :func:`outcome`."""
        return outcome(self)

    @property
    def allowed(self) -> frozenset[int]:
        """The ranks that may be played on the pile now: :func:`_allowed`, kept."""
        if self._kept_allowed is None:
            self._kept_allowed = _allowed(self.pile, self._setting)
        return self._kept_allowed

    @property
    def playable(self) -> list[tuple[int, list[Card]]]:
        """The current player's cards that may be played now, by rank, cheapest first (empty
        when nobody is to play): :func:`_fitting`, kept."""
        if self._kept_playable is None:
            self._kept_playable = [] if self.current is None else _fitting(self, self.current)
        return self._kept_playable

    @property
    def best_play(self) -> tuple[int, int] | None:
        """The play a sensible current player makes (None when there is none, or nobody is to
        play): :func:`_best_play`, kept."""
        if not self._best_play_known:
            current = self.current
            self._kept_best_play = None if current is None else _best_play(self, current)
            self._best_play_known = True
        return self._kept_best_play


# --------------------------------------------------------------------------- ranks

_ORDER: Final = (0, 14, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)
"""Strength of each rank index (joker 0, A=1 … K=13) in Palace's order 3 < … < K < A
(docs/games/palace.md#rank-order)."""

_STARTER_RANKS: Final = (3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 1)
"""Non-special ranks, lowest first: 2, 10 and jokers never decide the starter
(docs/games/palace.md#decisions, item 1)."""


_COSTS: Final = (
    (21, 14, 22, 3, 4, 5, 6, 7, 8, 9, 23, 11, 12, 13),
    (21, 14, 22, 20, 4, 5, 6, 7, 8, 9, 23, 11, 12, 13),
)
"""How dear each rank index is to its holder, without / with ``three_invisible``: the plain
ranks in order, then the power cards (invisible 3, joker, 2, 10). Bots play the cheapest first
and keep the dearest face up."""


def _is_power(rank: int, rules: Setting | Rules) -> bool:
    """May this rank go on anything? 2, 10, jokers, and 3 under ``three_invisible``. (The
    rules' flags, or a setup's :class:`Setting`.)"""
    return rank == 2 or rank == 10 or rank == JOKER_RANK or (rank == 3 and rules.three_invisible)


def _is_transparent(rank: int, rules: Setting) -> bool:
    """Is this rank skipped by every rule that looks at the top card? [ENGINE] Jokers, and 3s
    under ``three_invisible`` (docs/games/palace.md#variant-flags)."""
    return rank == JOKER_RANK or (rank == 3 and rules.three_invisible)


def _top_rank(pile: tuple[Card, ...], rules: Setting) -> int | None:
    """The rank the rules look at: the top card's, transparent cards skipped; None for an empty
    pile or one of transparent cards only (anything goes on it)."""
    for card in reversed(pile):
        if not _is_transparent(card.rank, rules):
            return card.rank
    return None


def _fits(rank: int, top: int | None, rules: Setting | Rules) -> bool:
    """May a card of ``rank`` go on a pile whose top rank is ``top`` (``_top_rank``)? It must
    equal or beat it, unless it is a power card or the top is a 2; after a 7 under
    ``seven_lower`` (a 9 under ``nine_lower``) it must be that rank or lower
    (docs/games/palace.md#legal-plays, docs/games/palace.md#variant-flags)."""
    if top is None or top == 2 or _is_power(rank, rules):
        return True
    if top == 7 and rules.seven_lower:
        return _ORDER[rank] <= _ORDER[7]
    if top == 9 and rules.nine_lower:
        return _ORDER[rank] <= _ORDER[9]
    return _ORDER[rank] >= _ORDER[top]


def _top_text(pile: tuple[Card, ...], rules: Setting) -> str:
    """What a card must go on, in words (``_fits``), for a rejection."""
    top = _top_rank(pile, rules)
    if top is None:
        return "the empty pile"
    if top == 7 and rules.seven_lower:
        return "a 7 (7 or lower)"
    if top == 9 and rules.nine_lower:
        return "a 9 (9 or lower)"
    return f"a {rank_name(top)}"


_TOPS: Final = (None, *range(14))
"""Every top rank a pile may have (``_top_rank``): none, or a rank index (0 = joker … 13 = K)."""

_BOOLS: Final = (False, True)


def _ranks_that_fit(
    seven_lower: bool, nine_lower: bool, three_invisible: bool
) -> MappingProxyType[int | None, frozenset[int]]:
    """Every rank that ``_fits`` on each top rank (``_TOPS``) under these flags (the only ones
    it reads), by top rank."""
    rules = Rules(seven_lower=seven_lower, nine_lower=nine_lower, three_invisible=three_invisible)
    return MappingProxyType(
        {top: frozenset(rank for rank in range(14) if _fits(rank, top, rules)) for top in _TOPS}
    )


_FITTING: Final = kit.tabulate(_ranks_that_fit, _BOOLS, _BOOLS, _BOOLS)
"""``_ranks_that_fit`` for every value of the flags, made once: a setup's :class:`Setting` copies
its row (``Setting.fitting``), one look-up per setup where a look-up per top rank (a tuple key
each) cost it more than everything else it makes."""


def _allowed(pile: tuple[Card, ...], rules: Setting) -> frozenset[int]:
    """Every rank that may be played on ``pile`` now (``_fits``, read from ``Setting.fitting``);
    a state's is ``state.allowed``."""
    return rules.fitting[_top_rank(pile, rules)]


def _burn(pile_after: tuple[Card, ...], played: int, rank: int, rules: Setting) -> BurnKind | None:
    """docs/games/palace.md#a-turn, step 2: a 10 burns; so do four of one rank on top
    (``four_of_a_kind_burn``)."""
    if rank == 10:
        return "ten"
    mode = rules.four_of_a_kind_burn
    if mode == "consecutive":
        if len(pile_after) >= 4:
            a, b, c, d = pile_after[-4:]
            if a.rank == b.rank == c.rank == d.rank:
                return "four_of_a_kind"
    elif mode == "single_play" and played >= 4:
        return "four_of_a_kind"
    return None


# --------------------------------------------------------------------------- helpers


def _minus(cards: tuple[Card, ...], taken: tuple[Card, ...]) -> tuple[Card, ...] | None:
    """``cards`` without ``taken`` (as multisets, first occurrences), or None if not contained."""
    rest = list(cards)
    try:
        for c in taken:
            rest.remove(c)  # its first occurrence
    except ValueError:  # c is not in rest
        return None
    return tuple(rest)


def _holds(cards: tuple[Card, ...], taken: tuple[Card, ...]) -> bool:
    """Does ``cards`` hold ``taken`` (as multisets)?"""
    return taken[0] in cards if len(taken) == 1 else _minus(cards, taken) is not None


def _minus_last(cards: tuple[Card, ...], taken: tuple[Card, ...]) -> tuple[Card, ...]:
    """``cards`` without ``taken``, removing the last occurrences (just-drawn cards are last)."""
    rest = list(cards)
    for c in taken:
        i = len(rest) - 1 - rest[::-1].index(c)
        del rest[i]
    return tuple(rest)


def _swap(cards: tuple[Card, ...], old: Card, new: Card) -> tuple[Card, ...]:
    """``cards`` with ``new`` in the place of ``old``."""
    i = cards.index(old)
    return cards[:i] + (new,) + cards[i + 1 :]


def _take(
    rows: tuple[tuple[Card, ...], ...], p: int, cards: tuple[Card, ...]
) -> tuple[tuple[Card, ...], ...]:
    """``rows`` with ``cards`` taken out of seat ``p``'s row (first occurrences)."""
    return _put(rows, p, _minus(rows[p], cards) or ()) if cards else rows


def _put(
    rows: tuple[tuple[Card, ...], ...], p: int, row: tuple[Card, ...]
) -> tuple[tuple[Card, ...], ...]:
    """``rows`` with seat ``p``'s row replaced by ``row``."""
    changed = list(rows)
    changed[p] = row
    return tuple(changed)


def _next(seats: int, finished: tuple[int, ...], p: int, direction: int) -> int:
    """The next player after ``p`` in ``direction`` still in the game (not in ``finished``)."""
    q = (p + direction) % seats
    while q in finished:
        q = (q + direction) % seats
    return q


def _advance(
    seats: int, finished: tuple[int, ...], p: int, direction: int, steps: int
) -> tuple[int, tuple[int, ...]]:
    """The ``steps``-th player after ``p`` in ``direction`` still in the game (``p`` itself
    counts when the count wraps round, docs/games/palace.md#variant-flags eight_skip), and the
    players passed over."""
    passed: list[int] = []
    q = _next(seats, finished, p, direction)
    for _ in range(steps - 1):
        passed.append(q)
        q = _next(seats, finished, q, direction)
    return q, tuple(passed)


def _source(state: State, p: int) -> tuple[Card, ...]:
    """The active source's cards (docs/games/palace.md#active-source): the hand, else the face-up
    cards; () for face-down."""
    return state.hands[p] or state.up[p]


def _draw_count(state: State, hand_after: int) -> int:
    """How many cards a player left with ``hand_after`` in hand draws: back up to
    ``cards_per_area`` while the stock lasts (docs/games/palace.md#a-turn, step 3)."""
    need = state._setting.cards_per_area - hand_after
    return min(need, len(state.stock)) if need > 0 else 0


def _goes_out(state: State, hand_after: int, up_after: int, down_after: int) -> bool:
    """Does a player left with these many cards in hand, face up and face down go out: none
    at all, and none to draw (docs/games/palace.md#a-turn, step 4)?"""
    return (
        hand_after == 0
        and up_after == 0
        and down_after == 0
        and _draw_count(state, hand_after) == 0
    )


def _top_run(pile: tuple[Card, ...]) -> int:
    """How many cards of the top card's rank lie on top of ``pile`` (a four burns)."""
    run = 0
    for c in reversed(pile):
        if c.rank != pile[-1].rank:
            break
        run += 1
    return run


def _completion_played(rules: Setting) -> bool:
    """May a four be completed out of turn (docs/games/palace.md#out-of-turn-completion)? [ENGINE]
    Only where fours burn across plays (``four_of_a_kind_burn="consecutive"``)."""
    return rules.out_of_turn_completion and rules.four_of_a_kind_burn == "consecutive"


def _cards_text(cards: Iterable[SeenCard]) -> str:
    return " ".join(c.symbol if isinstance(c, Card) else "??" for c in cards)


# --------------------------------------------------------------------------- what may be played


def _lowest_plain_rank(cards: tuple[Card, ...], rules: Setting) -> int | None:
    """The lowest rank of ``cards`` that is not a power rank (None if they are all power cards)."""
    ranks = [c.rank for c in cards if not _is_power(c.rank, rules)]
    return min(ranks, key=_ORDER.__getitem__) if ranks else None


def _bound_rank(state: State, p: int) -> int | None:
    """The rank ``p``'s play is bound to, if any: under ``starter_must_play_lowest`` the first play
    of the game is the lowest non-power rank of the active source. (``opening`` is read first: it
    is true before the first play only.)"""
    return (
        _lowest_plain_rank(_source(state, p), state._setting)
        if state.opening and state._setting.starter_must_play_lowest
        else None
    )


def _power_finish_fails(state: State, rank: int) -> bool:
    """Would going out on ``rank`` fail (docs/games/palace.md#variant-flags
    ``finish_on_special=False``)? [ENGINE] Not when nothing but power cards is left in play, since
    then nobody could ever go out."""
    return (
        not state._setting.finish_on_special
        and _is_power(rank, state._setting)
        and _plain_cards_left(state)
    )


def _plain_cards_left(state: State) -> bool:
    """Is any card left in play (the stock, the pile, the cards of the seats still in) not a
    power card?"""
    rules = state._setting
    zones: list[tuple[Card, ...]] = [state.stock, state.pile]
    for q in range(len(state.hands)):
        if q not in state.finished:
            zones += (state.hands[q], state.up[q], state.down[q])
    return any(not _is_power(c.rank, rules) for zone in zones for c in zone)


def _fitting(state: State, p: int) -> list[tuple[int, list[Card]]]:
    """The cards of ``p``'s active source that may be played now (their rank in
    ``state.allowed``; only the bound rank for a bound first play, ``_bound_rank``), grouped by
    rank, cheapest rank first (``_COSTS``). The current player's are ``state.playable``."""
    allowed = state.allowed
    lowest = _bound_rank(state, p)
    if lowest is not None:
        if lowest not in allowed:
            return []
        allowed = frozenset((lowest,))
    cost = state._setting.costs
    groups: list[tuple[int, list[Card]]] = []
    for c in _source(state, p):
        r = c.rank
        if r not in allowed:
            continue
        for rank, cards in groups:
            if rank == r:
                cards.append(c)
                break
        else:
            # A rank not met before: its group goes before the first dearer one, so that the
            # groups stay cheapest first (a hand holds a few ranks: a scan, no sort).
            i = 0
            while i < len(groups) and cost[groups[i][0]] < cost[r]:
                i += 1
            groups.insert(i, (r, [c]))
    return groups


def _best_play(state: State, seat: int) -> tuple[int, int] | None:
    """The play a sensible player makes: ``(rank, count)`` of the cheapest rank that fits, all of
    its cards (and face-up ones when combining); None if only failing plays exist."""
    rules = state._setting
    hand = state.hands[seat]
    playable = state.playable if seat == state.current else _fitting(state, seat)
    for rank, cards in playable:
        count = len(cards)
        from_up = 0
        if hand and rules.combine_hand_and_up and not state.stock and count == len(hand):
            from_up = sum(1 for c in state.up[seat] if c.rank == rank)
            count += from_up
        if _power_finish_fails(state, rank):
            hand_after = len(hand) - (count - from_up) if hand else 0
            up_after = len(state.up[seat]) - (from_up if hand else count)
            if _goes_out(state, hand_after, up_after, len(state.down[seat])):
                count -= 1  # keep one back rather than fail to go out
                if count == 0:
                    continue
        if (
            not rules.finish_on_special
            and not _is_power(rank, rules)
            and not state.stock
            and not state.down[seat]
            and not (hand and state.up[seat])
            and _bound_rank(state, seat) is None
        ):
            # The last cards: a player who may not go out on a power card plays its power cards
            # before its last plain set, or it would be left holding them (a pick-up loop).
            rest = [c.rank for c in _source(state, seat) if c.rank != rank]
            if rest and all(_is_power(r, rules) for r in rest):
                cost = rules.costs
                power = min(rest, key=cost.__getitem__)
                return power, rest.count(power)
        return rank, count
    return None


# --------------------------------------------------------------------------- evolve


def evolve(state: State, event: Event) -> State:
    """Apply one event. No rules: the event carries every decision. Each event changes a copy of
    the state (:meth:`State.next`) in the fields it names.

    The play's events are tested first, the commonest first (``type(event) is``): a ``match``
    class pattern costs more than building the next state."""
    s = state
    if type(event) is TurnPassed:
        n = s.next()
        n.current, n.follow_up, n.window = event.current, event.follow_up, event.window
        return n
    if type(event) is CardsPlayed:
        p = event.seat
        n = s.next()
        n.hands = _take(s.hands, p, event.from_hand)
        n.up = _take(s.up, p, event.from_up)
        n.pile = s.pile + event.from_hand + event.from_up
        n.opening = False
        return n
    if type(event) is CardsDrawn:
        p, k = event.seat, len(event.cards)
        n = s.next()
        n.hands = _put(s.hands, p, s.hands[p] + s.stock[:k])
        n.stock = s.stock[k:]
        return n
    if type(event) is PileTaken:
        p = event.seat
        n = s.next()
        n.hands, n.pile = _put(s.hands, p, s.hands[p] + s.pile), ()
        return n
    if type(event) is PileBurned:
        n = s.next()
        n.burned, n.pile = s.burned + s.pile, ()
        return n
    if type(event) is FaceDownTurned:
        p, i = event.seat, event.index
        n = s.next()
        n.down = _put(s.down, p, s.down[p][:i] + s.down[p][i + 1 :])
        n.pile = s.pile + (event.card,)
        n.opening, n.revealed = False, event.card
        return n
    return _evolve_rarely(s, event)


_RarerEvent = (
    CardsAdded
    | PlayerWentOut
    | DirectionReversed
    | Swapped
    | Readied
    | PlayStarted
    | PlayerResigned
    | Dealt
)
"""The events ``evolve`` does not test first."""


def _evolve_rarely(s: State, event: _RarerEvent) -> State:
    """The events of the setup, of a player going out or resigning, and the rare effects."""
    if isinstance(event, Dealt):
        return _dealt(s, event)
    n = s.next()
    if isinstance(event, CardsAdded):
        p, cards = event.seat, event.cards
        n.hands = _put(s.hands, p, _minus_last(s.hands[p], cards))
        n.pile = s.pile + cards
    elif isinstance(event, PlayerWentOut):
        n.finished = (*s.finished, event.seat)
    elif isinstance(event, DirectionReversed):
        n.direction = event.direction
    elif isinstance(event, Swapped):
        p, hand_card, up_card = event.seat, event.hand_card, event.up_card
        n.hands = _put(s.hands, p, _swap(s.hands[p], hand_card, up_card))
        n.up = _put(s.up, p, _swap(s.up[p], up_card, hand_card))
    elif isinstance(event, Readied):
        n.ready = s.ready | {event.seat}
    elif isinstance(event, PlayStarted):
        n.phase, n.current, n.follow_up, n.window = "play", event.starter, False, None
        n.opening = True
    elif isinstance(event, PlayerResigned):
        _resigned(s, n, event.seat)
    else:
        assert_never(event)
    return n


def _resigned(s: State, n: State, p: int) -> None:
    """:func:`evolve` of a resignation, into ``n`` (a copy of ``s``): everything the seat holds
    leaves the game; it is out, ranked by outcome (docs/games/common.md#leaving-a-game)."""
    n.hands, n.up, n.down = _put(s.hands, p, ()), _put(s.up, p, ()), _put(s.down, p, ())
    n.finished = (*s.finished, p)
    n.set_aside = s.set_aside + s.hands[p] + s.up[p] + s.down[p]
    n.resigned = (*s.resigned, p)


def _dealt(s: State, event: Dealt) -> State:
    """:func:`evolve` of the deal: the table before it (``initial_state``) with the cards dealt,
    in the setup phase."""
    up = tuple(tuple(row) for row in event.up)
    stock = known(event.stock)
    return State(
        s.setup, "setup", _real(event.hands), up, _real(event.down), stock, _setting=s._setting
    )


def _real(rows: tuple[tuple[SeenCard, ...], ...]) -> tuple[tuple[Card, ...], ...]:
    return tuple(known(row) for row in rows)


# --------------------------------------------------------------------------- setup, deal


def deck(setup: Setup[Rules]) -> list[Card]:
    return standard_deck(setup.rules.num_decks, setup.rules.jokers)


def initial_state(setup: Setup[Rules]) -> State:
    """The table before the deal: no cards anywhere, setup phase."""
    empty: tuple[tuple[Card, ...], ...] = ((),) * setup.seats
    return State(setup, "setup", empty, empty, empty)


def check_setup(setup: Setup[Rules]) -> None:
    """Every seat is dealt ``3 × cards_per_area`` cards, so one deck of the default
    ``k = 3`` seats 2–5 players; any ``k`` is fine as long as the deal fits the decks
    (docs/games/palace.md#setup, docs/games/palace.md#variant-flags)."""
    k = setup.rules.cards_per_area
    needed = 3 * k * setup.seats
    cards = len(deck(setup))
    if needed > cards:
        raise InvalidSetup(
            "rules.cards_per_area",
            f"{setup.seats} seats x 3 areas x {k} cards need {needed} cards but the decks hold "
            f"{cards} (fewer cards_per_area, or more decks: rules.num_decks)",
        )


def deal(setup: Setup[Rules]) -> list[Event]:
    """Shuffle with stream 0 and deal (docs/games/palace.md#setup): ``k`` rounds face down, ``k``
    face up, ``k`` to the hands, one card per seat per round from P0; the rest is the stock, top
    first."""
    cards = shuffled(setup.seed, 0, deck(setup))
    n = setup.seats
    k = setup.rules.cards_per_area
    zones: list[list[list[Card]]] = [[[] for _ in range(n)] for _ in range(3)]
    i = 0
    for zone in zones:
        for _ in range(k):
            for q in range(n):
                zone[q].append(cards[i])
                i += 1
    down, up, hands = (tuple(tuple(row) for row in zone) for zone in zones)
    return [Dealt(down, up, hands, tuple(cards[i:]))]


# --------------------------------------------------------------------------- outcome, who is to act


def outcome(state: State) -> Outcome | None:
    """Over when one player is left in the game (docs/games/palace.md#end-of-the-game,
    docs/games/common.md#resign). ``winners`` then ``losers`` list every seat once, best first, so
    that together they are the final ranking: the seats that went out, in finishing order; the seat
    left in the game; the resigned seats, the last to resign first (the first to resign ranks last,
    docs/games/common.md#leaving-a-game).

    * ``OUT_OF_CARDS`` (the last seat to leave went out): ``winners`` are the seats that went
      out; ``losers`` the seat left holding cards (the shithead), then the resigned seats.
    * ``RESIGNED`` (the last seat to leave resigned, with two in the game): the other seat wins
      with those who went out before, ranked after them: ``winners`` are the seats that went
      out, then the other seat; ``losers`` the resigned seats, this resigner first. In a game
      where nobody went out (every two-seat game) ``winners`` is the other seat alone.

    No scores, as ever in Palace."""
    finished = state.finished
    n = len(state.hands)
    if len(finished) < n - 1:
        return None
    left = tuple(q for q in range(n) if q not in finished)
    resigned = state.resigned
    if not resigned:
        return Outcome(Termination.OUT_OF_CARDS, finished, left)
    went_out = tuple(q for q in finished if q not in resigned)
    last_first = resigned[::-1]
    if finished[-1] in resigned:
        return Outcome(Termination.RESIGNED, went_out + left, last_first)
    return Outcome(Termination.OUT_OF_CARDS, went_out, left + last_first)


def to_act(state: State) -> tuple[int, ...]:
    """The seats the game is waiting for (a host's turn timer runs for them): in the setup
    phase every seat still in that has not called ready, in play the player to move. A seat
    that may complete four of a kind or add drawn cards is not waited for: those are options."""
    if state.phase == "setup":
        out = set(state.finished)
        return tuple(s for s in range(state.setup.seats) if s not in state.ready and s not in out)
    return () if state.current is None else (state.current,)
