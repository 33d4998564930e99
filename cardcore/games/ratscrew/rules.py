"""Egyptian Ratscrew's rules (docs/games/ratscrew.md): the state, the slap patterns, ``decide``,
``evolve``, the views and redaction, ``outcome``, ``legal_commands`` and the narration. The rules
flags, commands and the view they use are declared in :mod:`.declarations` (a module that stays
Python in the compiled build), its events in :mod:`.events` (native classes, compiled). The game
itself is :mod:`cardcore.games.ratscrew`; positions and their notation are
:mod:`cardcore.games.ratscrew.position`.

Module order (style.md): state → slap patterns → decide → evolve → redact/view →
outcome/legal_commands → narration (rules → commands → view are in :mod:`.declarations`, events in
:mod:`.events`). The seat a function is given is checked once, by its first statement
(:func:`cardcore.kit.seat_of`) or :func:`cardcore.kit.viewed` (and by ``Match``); the rules trust
it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Final, assert_never

from ... import kit
from ...cards import HIDDEN, JOKER_RANK, RANKS, Card, SeenCard, known, standard_deck
from ...engine import Outcome, Role, Setup, Termination, Viewer
from ...errors import RejectCode, Rejected
from ...kit import next_holder, next_in_game
from ...rng import shuffled
from .declarations import (
    COLLECT,
    PLAY,
    SLAP,
    Collect,
    Command,
    Play,
    Rules,
    Slap,
    View,
)
from .events import (
    CardPlayed,
    ChallengeLapsed,
    Dealt,
    Event,
    GameResigned,
    PenaltyPaid,
    PileOwed,
    PileTaken,
    PlayerEliminated,
    Resigned,
    Slapped,
    SlapRule,
    TurnPassed,
)

RULES_VERSION: Final = "2"
NAME: Final = "ratscrew"
MIN_SEATS: Final = 2
MAX_SEATS: Final = 8

# --------------------------------------------------------------------------- state


_NOBODY: Final[frozenset[int]] = frozenset()


class Setting:
    """What the rules read of a state's setup at every step: made once per setup and handed on
    from state to state (:meth:`State.next`), so that the rules read a native attribute where
    ``state.setup.rules.slap_in`` is two reads of Python objects' attributes in the compiled
    build (``Setup`` and ``Rules`` are Python classes there)."""

    seats: int
    slap_in: bool
    slap_rules: frozenset[SlapRule]
    challenge_counts: dict[str, int]

    def __init__(self, setup: Setup[Rules]) -> None:
        self.seats = setup.seats
        self.slap_in = setup.rules.slap_in
        self.slap_rules = setup.rules.slap_rules
        self.challenge_counts = setup.rules.challenge_counts


class State(kit.NativeState):
    """A whole ERS position. Build one directly to test from exact cards (see ``position``).

    A native state (:class:`cardcore.kit.NativeState`: a C struct in the compiled build):
    ``evolve`` changes a copy of it (:meth:`next`) in the fields an event changes, and what every
    seat asks of a position (is the game over, is the pile slappable) is worked out once per
    state and kept (:attr:`ended`, :attr:`slap`)."""

    setup: Setup[Rules]
    stacks: tuple[tuple[Card, ...], ...]
    """Each seat's face-down stack, top first."""
    played: tuple[Card, ...]
    """Face-up played cards of the pile, bottom→top."""
    played_by: tuple[int, ...]
    """Who played each card of ``played``."""
    burned: tuple[Card, ...]
    """Face-down burned cards, bottom→top; all of them lie under the played cards."""
    epoch: int
    current: int | None
    challenge: tuple[int, int] | None
    owed_to: int | None
    eliminated: frozenset[int]
    resigned: frozenset[int]
    """Seats that resigned (docs/games/common.md#leaving-a-game). Each is also eliminated, except
    the one whose resignation ended the game with two players left (``GameResigned``): ``outcome``
    reads it from here."""
    _setting: Setting
    """What the rules read of ``setup`` at every step (no field: made from it)."""
    _slap: tuple[SlapRule, tuple[Card, ...]] | None = None
    _slap_known: bool = False

    def __init__(  # noqa: PLR0917  # the fields, in order
        self,
        setup: Setup[Rules],
        stacks: tuple[tuple[Card, ...], ...],
        played: tuple[Card, ...] = (),
        played_by: tuple[int, ...] = (),
        burned: tuple[Card, ...] = (),
        epoch: int = 0,
        current: int | None = 0,
        challenge: tuple[int, int] | None = None,
        owed_to: int | None = None,
        eliminated: frozenset[int] = _NOBODY,
        resigned: frozenset[int] = _NOBODY,
        _setting: Setting | None = None,
    ) -> None:
        self.setup = setup
        self.stacks = stacks
        self.played = played
        self.played_by = played_by
        self.burned = burned
        self.epoch = epoch
        self.current = current
        self.challenge = challenge
        self.owed_to = owed_to
        self.eliminated = eliminated
        self.resigned = resigned
        self._setting = Setting(setup) if _setting is None else _setting

    def next(self) -> State:
        """A copy for ``evolve`` to change: the same fields, nothing derived kept."""
        return State(
            self.setup,
            self.stacks,
            self.played,
            self.played_by,
            self.burned,
            self.epoch,
            self.current,
            self.challenge,
            self.owed_to,
            self.eliminated,
            self.resigned,
            self._setting,
        )

    def outcome(self) -> Outcome | None:
        """How the game ended, None while it goes on (kept as ``ended``): :func:`outcome`."""
        return outcome(self)

    @property
    def slap(self) -> tuple[SlapRule, tuple[Card, ...]] | None:
        """What a slap would match now, None for a false slap: :func:`slap_match`, kept."""
        if not self._slap_known:
            self._slap = slap_match(self.played, self._setting.slap_rules)
            self._slap_known = True
        return self._slap


# --------------------------------------------------------------------------- slap patterns

Pattern = Callable[[Sequence[Card]], tuple[Card, ...] | None]
"""One slap pattern of ERS alone: the cards on top of the played cards (bottom→top, at least
one) that make it, or None."""

_ROYAL_RANKS: Final = frozenset({1, 11, 12, 13})
_MARRIAGE: Final = frozenset({12, 13})


def _top_bottom(played: Sequence[Card]) -> tuple[Card, ...] | None:
    """The top card's rank is the first played card's (three cards or more)."""
    if len(played) >= 3 and played[0].rank == played[-1].rank:
        return played[0], played[-1]
    return None


def _sum_value(card: Card) -> int | None:
    """A=1, 2..9 face value; 10, J, Q, K and jokers have no sum value
    (docs/games/ratscrew.md#slap-patterns ``tens``)."""
    r = card.rank
    return r if 1 <= r <= 9 else None


def _make_ten(a: Card, b: Card) -> bool:
    va, vb = _sum_value(a), _sum_value(b)
    return va is not None and vb is not None and va + vb == 10


def _tens(played: Sequence[Card]) -> tuple[Card, ...] | None:
    """The top two make ten, or the top and third do with a royal between."""
    n = len(played)
    if n >= 2 and _make_ten(played[-2], played[-1]):
        return played[-2], played[-1]
    if n >= 3 and played[-2].rank in _ROYAL_RANKS and _make_ten(played[-3], played[-1]):
        return played[-3], played[-2], played[-1]
    return None


def _step(a: int, b: int) -> int:
    """+1 / -1 for adjacent ranks with wrap (K–A–2), 0 otherwise."""
    if a == JOKER_RANK or b == JOKER_RANK:
        return 0
    d = (b - a) % 13
    return 1 if d == 1 else -1 if d == 12 else 0


def _four_in_a_row(played: Sequence[Card]) -> tuple[Card, ...] | None:
    """The top four run up or down by one rank, wrapping K–A–2."""
    if len(played) < 4:
        return None
    last = tuple(played[-4:])
    steps = {_step(last[i].rank, last[i + 1].rank) for i in range(3)}
    return last if steps in ({1}, {-1}) else None


def _marriage(played: Sequence[Card]) -> tuple[Card, ...] | None:
    """A queen and a king on top, in either order."""
    if len(played) >= 2 and {played[-2].rank, played[-1].rank} == _MARRIAGE:
        return played[-2], played[-1]
    return None


def _divorce(played: Sequence[Card]) -> tuple[Card, ...] | None:
    """A queen and a king with one card between them."""
    if len(played) >= 3 and {played[-3].rank, played[-1].rank} == _MARRIAGE:
        return played[-3], played[-2], played[-1]
    return None


def _joker(played: Sequence[Card]) -> tuple[Card, ...] | None:
    """A joker on top."""
    return (played[-1],) if played[-1].rank == JOKER_RANK else None


SLAP_PATTERNS: Final[tuple[tuple[SlapRule, Pattern], ...]] = (
    ("top_bottom", _top_bottom),
    ("tens", _tens),
    ("four_in_a_row", _four_in_a_row),
    ("marriage", _marriage),
    ("divorce", _divorce),
    ("joker", _joker),
)
"""The slap rules of ERS alone and their patterns, in the order of the table of
docs/games/ratscrew.md#slap-patterns. It starts with ``double`` and ``sandwich``, the patterns
Slapjack shares: :func:`cardcore.kit.double_or_sandwich`."""

SLAP_RULE_ORDER: Final[tuple[SlapRule, ...]] = (
    "double",
    "sandwich",
    *(rule for rule, _ in SLAP_PATTERNS),
)
"""Every slap rule, in table order: the first enabled one the pile makes is the one a slap
matched."""

Plan = tuple[bool, bool, tuple[tuple[SlapRule, Pattern], ...]]
"""The slap rules a game plays, as :func:`slap_match` asks them: double on, sandwich on, then
the other enabled rules' patterns in table order."""


def _plan(rules: frozenset[SlapRule]) -> Plan:
    others = tuple((rule, pattern) for rule, pattern in SLAP_PATTERNS if rule in rules)
    return "double" in rules, "sandwich" in rules, others


_PLANS: Final = kit.tabulate(_plan, kit.subsets(SLAP_RULE_ORDER))
"""``_plan`` of each of the 2**8 sets of slap rules: ``slap_match`` is asked for every seat at
every step (``is_sensible``), and this spares it the set tests."""


def slap_match(
    played: Sequence[Card], rules: frozenset[SlapRule]
) -> tuple[SlapRule, tuple[Card, ...]] | None:
    """The first enabled rule the played cards match, in the order of the table of
    docs/games/ratscrew.md#slap-patterns, with its cards."""
    if not played:
        return None
    double, sandwich, others = _PLANS[rules]
    pair = kit.double_or_sandwich(played, double, sandwich)
    if pair is not None:
        return pair
    for rule, pattern in others:
        cards = pattern(played)
        if cards is not None:
            return rule, cards
    return None


# --------------------------------------------------------------------------- decide


def _challenge_count(counts: dict[str, int], card: Card) -> int | None:
    """The cards a royal challenges the next player to play (the rules' ``challenge_counts``);
    None for any other card."""
    rank = card.rank
    if rank == JOKER_RANK:
        return None  # a joker is a non-royal (docs/games/ratscrew.md#variant-flags)
    return counts.get(RANKS[rank - 1])


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
    events: list[Event]
    if type(command) is Play:
        events = _decide_play(state, p)
    elif type(command) is Slap:
        events = _decide_slap(state, p, command)
    elif type(command) is Collect:
        if state.owed_to != p:
            raise Rejected(RejectCode.NOT_COLLECTOR, f"the pile is not owed to seat {p}")
        events = [PileTaken(p, len(state.burned) + len(state.played), "collect")]
    elif type(command) is kit.Resign:
        # "timer" (a forfeit) or not: the same (docs/games/common.md#leaving-a-game)
        events = _decide_resign(state, p)
    else:
        raise Rejected(RejectCode.INVALID_PHASE, f"not an ERS command: {command!r}")
    if not state._setting.slap_in:
        events += _zero_card_eliminations(state, events)
    return events


def _decide_play(state: State, p: int) -> list[Event]:
    """docs/games/ratscrew.md#playing-a-card."""
    if state.owed_to is not None:
        raise Rejected(RejectCode.INVALID_PHASE, f"the pile is owed to seat {state.owed_to}")
    if state.current != p:
        raise Rejected(RejectCode.NOT_YOUR_TURN, f"it is seat {state.current}'s turn")
    stack = state.stacks[p]
    if not stack:
        raise Rejected(RejectCode.NO_CARDS, f"seat {p} has no cards")
    card = stack[0]
    count = _challenge_count(state._setting.challenge_counts, card)
    owed: int | None = None
    challenge: tuple[int, int] | None = None
    current: int | None
    if state.challenge is not None and count is None:  # step 2: answering a challenge
        challenger, remaining = state.challenge
        current, challenge = p, (challenger, remaining - 1)
        if remaining == 1:
            owed = challenger
        elif len(stack) == 1:  # the challenged player ran out of cards
            answerer = _pass_on(state, p, challenger)
            if answerer is None:
                owed = challenger
            else:
                current = answerer
    else:
        # next_holder never looks at p's own stack, so the state before this card will do.
        current = next_holder(state.stacks, state.eliminated, p)
        if count is not None:  # step 1: a royal challenges the next player
            if current is None:
                owed = p
            else:
                challenge = (p, count)
        elif current is None:  # step 3: a number card, and nobody else holds a card
            if len(stack) > 1:
                current = p
            else:
                # docs/games/ratscrew.md#decisions, item 10: the last player takes the pile
                owed = p
    if owed is not None:
        pile = len(state.burned) + len(state.played) + 1
        return [CardPlayed(p, card, None, None), *_owe(state.setup.rules, owed, pile)]
    return [CardPlayed(p, card, current, challenge)]


def _pass_on(state: State, p: int, challenger: int) -> int | None:
    """docs/games/ratscrew.md#decisions, item 8: ``p``, who was to answer ``challenger``'s
    challenge, has no card left; under ``challenge_exhausted="pass_to_next"`` the next seat
    holding a card answers it (the challenger excepted): that seat, or None when the challenger
    is owed the pile."""
    if state.setup.rules.challenge_exhausted != "pass_to_next":
        return None
    nxt = next_holder(state.stacks, state.eliminated, p)
    return None if nxt == challenger else nxt


def _owe(rules: Rules, seat: int, pile: int) -> list[Event]:
    """The pile (``pile`` cards) is owed to ``seat``; under ``auto_collect`` it takes the pile at
    once (docs/games/ratscrew.md#collecting)."""
    if rules.auto_collect:
        return [PileOwed(seat), PileTaken(seat, pile, "collect")]
    return [PileOwed(seat)]


def _decide_slap(state: State, p: int, command: Slap) -> list[Event]:
    """docs/games/ratscrew.md#slapping."""
    rules = state.setup.rules
    if command.expect_epoch is not None and command.expect_epoch != state.epoch:
        raise Rejected(
            RejectCode.STALE_ACTION,
            f"expect_epoch {command.expect_epoch} but the pile is epoch {state.epoch}",
        )
    played = state.played
    if not played:
        raise Rejected(RejectCode.EMPTY_PILE, "no played card on the pile")
    if (
        command.seen_count is not None
        and command.seen_count != len(played)
        and rules.late_slap == "reject"
    ):
        raise Rejected(
            RejectCode.STALE_ACTION,
            f"seen_count {command.seen_count} but {len(played)} cards have been played",
        )
    if state.slap is not None:
        rule, pattern = state.slap
        n = len(state.burned) + len(played)
        return [Slapped(p, True, rule, pattern), PileTaken(p, n, "slap")]
    return _false_slap(state, p)


def _false_slap(state: State, p: int) -> list[Event]:
    """docs/games/ratscrew.md#slapping, a false slap: legal, and penalised. The slapper pays
    ``false_slap_penalty`` cards (under the pile, or to the player of the top card), or is out
    with no card to pay; a current player who paid their last card leaves the turn as in play."""
    rules = state.setup.rules
    events: list[Event] = [Slapped(p, False, None, ())]
    stack = state.stacks[p]
    if not stack:
        if rules.zero_card_false_slap == "ignore":
            return events
        return [*events, PlayerEliminated(p), *_lapse_claims(state, p)]
    receiver: int | None = None
    if rules.false_slap_destination == "to_player_of_top_card":
        top_player = state.played_by[-1]
        if top_player != p and top_player not in state.eliminated:
            receiver = top_player
    paid = [PenaltyPaid(p, card, receiver) for card in stack[: rules.false_slap_penalty]]
    events += paid
    if len(paid) < len(stack) or state.current != p or state.owed_to is not None:
        return events
    after = _after(state, paid)
    if state.challenge is None:
        return [*events, TurnPassed(next_holder(after.stacks, after.eliminated, p))]
    challenger = state.challenge[0]
    answerer = _pass_on(after, p, challenger)
    if answerer is not None:
        return [*events, TurnPassed(answerer)]
    return events + _owe(rules, challenger, len(after.burned) + len(after.played))


def _after(state: State, events: Sequence[Event]) -> State:
    """``state`` after ``events``: a decision that depends on its own first events reads the
    state they make, as ``evolve`` makes it, rather than working it out again."""
    return functools.reduce(evolve, events, state)


def _lapse_claims(state: State, p: int) -> list[Event]:
    """docs/games/ratscrew.md#decisions, item 15: an eliminated challenger's or collector's claim
    lapses."""
    claimed = (state.challenge is not None and state.challenge[0] == p) or state.owed_to == p
    if not claimed:
        return []
    eliminated = state.eliminated | {p}
    nxt = next_holder(state.stacks, eliminated, p)
    if nxt is not None:
        return [ChallengeLapsed(nxt)]
    for q in reversed(state.played_by):  # nobody holds a card: the most recent player takes it
        if q not in eliminated:
            return [ChallengeLapsed(None), PileOwed(q)]
    return [ChallengeLapsed(None)]


def _decide_resign(state: State, p: int) -> list[Event]:
    """docs/games/common.md#leaving-a-game: with two players left the game ends; otherwise ``p``'s
    stack goes under the pile, ``p`` is out, and the turn and any claim move on as the existing
    rules say."""
    n = len(state.stacks)
    out = state.eliminated
    if n - len(out) == 2:
        winner = next(q for q in range(n) if q != p and q not in out)
        return [GameResigned(p, winner)]
    events: list[Event] = [Resigned(p, state.stacks[p])]
    after = evolve(state, events[0])
    challenge = state.challenge
    nxt = next_holder(after.stacks, after.eliminated, p)
    if (challenge is not None and challenge[0] == p) or state.owed_to == p:
        # p's claim lapses as an eliminated claimant's does
        # (docs/games/ratscrew.md#decisions, item 15)
        if nxt is not None:
            return [*events, ChallengeLapsed(nxt)]
        events.append(ChallengeLapsed(None))
        owed = _heir(after, p)
    elif state.current != p:
        return events  # someone else is to play, or the pile is owed to someone else
    elif challenge is not None:
        # p owed the challenge: lost as if p ran out of cards (docs/games/ratscrew.md#decisions,
        # item 8)
        answerer = _pass_on(after, p, challenge[0])
        if answerer is not None:
            return [*events, TurnPassed(answerer)]
        owed = challenge[0]
    elif nxt is not None:
        # the turn passes as after p's number card (docs/games/ratscrew.md#playing-a-card, step 3)
        return [*events, TurnPassed(nxt)]
    else:  # nobody else holds a card: all of them are on the pile now
        owed = _heir(after, p)
    return events + _owe(after.setup.rules, owed, len(after.burned) + len(after.played))


def _heir(state: State, p: int) -> int:
    """Who is owed the pile when ``p`` (now out) resigned and nobody holds a card: the most
    recent player still in who played on it (docs/games/ratscrew.md#decisions, item 15), else the
    first seat after ``p`` still in (the pile may hold burned cards only): someone always is, so the
    game never stalls."""
    for q in reversed(state.played_by):
        if q not in state.eliminated:
            return q
    nxt = next_in_game(len(state.stacks), state.eliminated, p)
    assert nxt is not None  # two or more are still in: this is a three-or-more resignation
    return nxt


def _zero_card_eliminations(state: State, events: list[Event]) -> list[Event]:
    """Under ``slap_in=False`` a player at 0 cards is out once no claim is pending for them."""
    after = _after(state, events)
    if after.ended is not None:
        return []
    out: list[Event] = []
    claim = after.challenge[0] if after.challenge is not None else None
    for q, stack in enumerate(after.stacks):
        if not stack and q not in after.eliminated and q != claim and q != after.owed_to:
            out.append(PlayerEliminated(q))
    return out


# --------------------------------------------------------------------------- evolve


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
        n.played = s.played + (event.card,)
        n.played_by = s.played_by + (p,)
        n.current = event.current
        n.challenge = event.challenge
        return n
    if isinstance(event, Slapped):
        return s
    if isinstance(event, PileTaken):
        return _pile_taken(s, event.seat)
    if isinstance(event, PileOwed):
        return _turn(s, None, None, event.seat)
    if isinstance(event, PenaltyPaid):
        return _penalty_paid(s, event.seat, event.to)
    if isinstance(event, TurnPassed):
        return _turn(s, event.current, s.challenge, s.owed_to)
    if isinstance(event, ChallengeLapsed):
        return _turn(s, event.current, None, None)
    if isinstance(event, PlayerEliminated):
        p = event.seat
        n = s.next()
        n.eliminated = s.eliminated | {p}
        if s.current == p:
            n.current = next_holder(s.stacks, n.eliminated, p)
        return n
    if isinstance(event, Resigned):
        p = event.seat
        n = s.next()
        n.stacks = _put(s.stacks, p, ())
        n.burned = s.stacks[p] + s.burned
        n.eliminated = s.eliminated | {p}
        n.resigned = s.resigned | {p}
        return n
    if isinstance(event, GameResigned):
        n = s.next()
        n.resigned = s.resigned | {event.seat}
        return n
    if isinstance(event, Dealt):
        return State(s.setup, tuple(known(st) for st in event.stacks), _setting=s._setting)
    assert_never(event)


def _turn(
    s: State, current: int | None, challenge: tuple[int, int] | None, owed_to: int | None
) -> State:
    """``s`` with who plays next, the challenge running and the seat owed the pile changed."""
    n = s.next()
    n.current = current
    n.challenge = challenge
    n.owed_to = owed_to
    return n


def _pile_taken(s: State, p: int) -> State:
    """Seat ``p`` took the whole pile under its stack, and plays next (a new epoch)."""
    n = s.next()
    n.stacks = _put(s.stacks, p, s.stacks[p] + s.burned + s.played)
    n.played = ()
    n.played_by = ()
    n.burned = ()
    n.epoch = s.epoch + 1
    n.current = p
    n.challenge = None
    n.owed_to = None
    return n


def _penalty_paid(s: State, p: int, to: int | None) -> State:
    """Seat ``p``'s top card went under the pile (``to`` None) or under seat ``to``'s stack: the
    state's card, so that a redacted event applies too."""
    card = s.stacks[p][0]
    n = s.next()
    n.stacks = _put(s.stacks, p, s.stacks[p][1:])
    if to is None:
        n.burned = (card, *s.burned)
    else:
        n.stacks = _put(n.stacks, to, (*n.stacks[to], card))
    return n


def _put(
    stacks: tuple[tuple[Card, ...], ...], p: int, stack: tuple[Card, ...]
) -> tuple[tuple[Card, ...], ...]:
    """``stacks`` with seat ``p``'s stack replaced by ``stack``."""
    return stacks[:p] + (stack,) + stacks[p + 1 :]


# --------------------------------------------------------------------------- setup, deal


def deck(setup: Setup[Rules]) -> list[Card]:
    return standard_deck(setup.rules.num_decks, setup.rules.jokers)


def initial_state(setup: Setup[Rules]) -> State:
    """The table before the deal: empty stacks, P0 to play."""
    return State(setup, tuple(() for _ in range(setup.seats)))


def deal(setup: Setup[Rules]) -> list[Event]:
    """Shuffle with stream 0 of the seed and deal one card at a time from P0
    (docs/games/ratscrew.md#setup)."""
    cards = shuffled(setup.seed, 0, deck(setup))
    n = setup.seats
    return [Dealt(tuple(tuple(cards[i::n]) for i in range(n)))]


# --------------------------------------------------------------------------- views, redaction


@kit.viewed
def view(state: State, viewer: Viewer) -> View:
    """What ``viewer`` sees; a seat viewer that is not a seat raises ``InvalidSeat``."""
    referee = viewer == Role.REFEREE
    stacks: tuple[tuple[SeenCard, ...], ...] = (
        state.stacks if referee else tuple((HIDDEN,) * len(s) for s in state.stacks)
    )
    burned: tuple[SeenCard, ...] = state.burned if referee else (HIDDEN,) * len(state.burned)
    return View(
        stacks=stacks,
        pile=burned + state.played,
        played_count=len(state.played),
        epoch=state.epoch,
        current=state.current,
        challenge=state.challenge,
        owed_to=state.owed_to,
        eliminated=tuple(sorted(state.eliminated)),
        slappable=state.slap is not None,
    )


def redact(event: Event, viewer: Viewer) -> Event:
    """The event as ``viewer`` sees it: stack and burned cards are face down but to the referee.
    An event does not know the game's seat count: an int viewer must be a seat number (at most
    ``MAX_SEATS - 1``; of the deal's seats for ``Dealt``); :func:`view` checks it against the
    game."""
    kit.check_viewer(viewer, len(event.stacks) if type(event) is Dealt else MAX_SEATS)
    if viewer == Role.REFEREE:
        return event
    if type(event) is Dealt:
        return Dealt(tuple((HIDDEN,) * len(s) for s in event.stacks))
    if type(event) is PenaltyPaid:
        return PenaltyPaid(event.seat, HIDDEN, event.to)
    if type(event) is Resigned:  # a stack buried face down: only how many cards (as a deal)
        return Resigned(event.seat, (HIDDEN,) * len(event.cards))
    return event


ZONES: Final = kit.Zones(
    kit.Zone("stacks", "nobody", per_seat=True),  # face down to everyone, their owners included
    kit.Zone("played", "everyone"),
    kit.Zone("burned", "nobody"),
)
"""Where the cards of an ERS state lie, and who sees them: cards_in_play and shuffle_hidden."""

shuffle_hidden = ZONES.shuffle_hidden
cards_in_play = ZONES.cards


# --------------------------------------------------------------------------- outcome, commands


def outcome(state: State) -> Outcome | None:
    """One player holds every card (pile empty, docs/games/ratscrew.md#end-of-the-game), only one is
    not eliminated, or one of the last two resigned (docs/games/common.md#leaving-a-game: the other
    wins)."""
    n = len(state.stacks)
    if state.played and len(state.eliminated) < n - 1 and not state.resigned:
        return None  # the common case, first: cards on the pile, several players left
    last = state.resigned - state.eliminated  # the resigner who ended the game (GameResigned)
    if last:
        winners = tuple(q for q in range(n) if q not in state.eliminated and q not in last)
        return Outcome(Termination.RESIGNED, winners)
    if len(state.eliminated) >= n - 1:
        alive = [q for q in range(n) if q not in state.eliminated]
        return Outcome(Termination.LAST_STANDING, tuple(alive))
    if state.played or state.burned or state.owed_to is not None:
        return None  # cards on the pile: nobody holds them all yet
    holders = [q for q, s in enumerate(state.stacks) if s]
    if len(holders) == 1:
        return Outcome(Termination.ALL_CARDS, (holders[0],))
    return None


@kit.hot  # the seat check written in (the pure build): kit.seat_of
def legal_commands(state: State, seat: object) -> tuple[Command, ...]:
    """Every command ``seat`` may make now (a false slap is legal: anyone may slap a pile that
    holds a played card, docs/games/ratscrew.md#slapping)."""
    p = kit.seat_of(state._setting.seats, seat)
    if p in state.eliminated or state.ended is not None:
        return ()
    if state.owed_to is None and state.current == p and state.stacks[p]:
        return (PLAY, SLAP) if state.played else (PLAY,)
    if state.owed_to == p:
        return (COLLECT, SLAP) if state.played else (COLLECT,)
    return (SLAP,) if state.played else ()


@kit.hot  # the seat check written in (the pure build): kit.seat_of
def is_sensible(state: State, seat: object, command: Command) -> bool:
    """Bots' hint: slap only a slappable pile; never resign."""
    kit.seat_of(state._setting.seats, seat)
    if type(command) is Slap:
        return state.slap is not None
    return type(command) is not kit.Resign


# --------------------------------------------------------------------------- narration


def _cards(cards: Sequence[Card]) -> str:
    return "-".join(c.symbol for c in cards)


def narrate(event: Event) -> str:
    """One adjudication in plain words."""
    match event:
        case Dealt(stacks):
            return "dealt " + ", ".join(f"seat {i}: {len(s)} cards" for i, s in enumerate(stacks))
        case CardPlayed(seat, card, current, challenge):
            text = f"seat {seat} played {card.symbol}"
            if challenge is not None and challenge[0] == seat:
                text += f": challenge, seat {current} must play {challenge[1]}"
            elif challenge is not None:
                text += f" ({challenge[1]} more to answer)"
            return text
        case PileOwed(seat):
            return f"the pile is owed to seat {seat}"
        case Slapped(seat, valid, rule, pattern):
            if valid:
                return f"seat {seat} slapped on the {rule} {_cards(pattern)}: valid"
            return f"seat {seat} slapped: false slap"
        case PileTaken(seat, cards, by):
            verb = "collects" if by == "collect" else "takes"
            return f"seat {seat} {verb} the pile ({cards} cards) and plays next"
        case PenaltyPaid(seat, card, to):
            shown = "a face-down card" if card is HIDDEN else str(card)
            dest = "under the pile" if to is None else f"to seat {to}"
            return f"seat {seat} pays {shown} {dest}"
        case TurnPassed(current):
            return f"the turn passes to seat {current}"
        case ChallengeLapsed(current):
            return f"the claim lapses; seat {current} plays next"
        case PlayerEliminated(seat):
            return f"seat {seat} is eliminated"
        case Resigned(seat, cards):
            if not cards:
                return f"seat {seat} resigned with no cards and is out"
            held = "1 card goes" if len(cards) == 1 else f"{len(cards)} cards go"
            return f"seat {seat} resigned and is out; their {held} under the pile"
        case GameResigned(seat, winner):
            return f"seat {seat} resigned; seat {winner} wins"
        case _:
            assert_never(event)
