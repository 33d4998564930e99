"""Palace (Shithead), rules.md §5.

Each player has three face-down cards ``F``, three face-up cards ``U`` on them and a hand ``H`` of
three; the rest of the deck is the stock ``D``. In the ``setup`` phase players ``Swap`` hand and
face-up cards until each calls ``Ready``; the starter is then determined (§5.2, flag
``starter_rule``). In turn, a player plays one or more cards of one rank from the *active source*
(``H`` while it holds cards, then ``U``, then ``F`` blind with ``PlayFaceDown``) onto the discard
pile: the rank must equal or beat the top card (rank order 3 … 9 J Q K A; 2 and 10 go on
anything), then the player draws back to three while the stock lasts. A 2 resets the pile and its
player plays again; a 10, or four cards of one rank on top of the pile (also across several
players' plays), burns the pile and the player who burned it leads again (*follow-up*). A player who
cannot play must ``Pickup`` the pile (``MustPlayIfAble``); a blind card that does not fit is taken
into the hand with the pile. Two racing actions (§5.3), decided by sequence order: any player may
complete a four of a kind out of turn with ``Play`` (then they lead), and a player whose turn just
passed may ``AddDrawn`` just-drawn cards of the rank they just played until the next player acts.
Players who run out of cards go out in order; the last player holding cards loses (the shithead).

Zones: ``hands`` (private to their owner, in the order received), ``up`` (public), ``down``
(nobody sees them, their owner included; positions 0..len-1), ``stock`` top first (nobody sees
it), ``pile`` bottom→top (public), ``burned`` (public: every burned card was face up on the pile).

[ENGINE] interpretations beyond rules.md, stated once here and cited where used:

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
  ``num_decks=2`` (§5.2; a setup with too few cards is an ``InvalidSetup`` naming ``seats``).

Module order (style.md): rules → commands → events → state → view → decide → evolve → deal →
view/redact → outcome/legal_commands → narration → ``GAME``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations, product
from typing import Final, Literal, NamedTuple, assert_never, final

from ..cards import HIDDEN, JOKER_RANK, Card, SeenCard, rank_name, standard_deck
from ..engine import Game, GameInfo, Outcome, Role, Setup, Termination, Viewer, check_rules, flag
from ..errors import InvalidSetup, RejectCode, Rejected
from ..rng import Rng, shuffled

RULES_VERSION: Final = "1"

Phase = Literal["setup", "play"]
BurnKind = Literal["ten", "four_of_a_kind"]
TakeReason = Literal["pickup", "failed_blind", "special_finish"]

# --------------------------------------------------------------------------- rules (§5.4)


@dataclass(frozen=True, slots=True)
class Rules:
    """The variant flags of rules.md §5.4, with their defaults."""

    cards_per_area: int = flag(3, "cards face down, face up and in hand per player", min=1, max=8)
    two_follow_up: bool = flag(True, "the player of a 2 plays again on it")
    ten_follow_up: bool = flag(True, "the player of a 10 leads again after the burn")
    four_of_a_kind_burn: Literal["consecutive", "single_play", "off"] = flag(
        "consecutive", "four of a rank on top of the pile burns it (any plays, one play, never)"
    )
    out_of_turn_completion: bool = flag(True, "anyone may complete a four of a kind out of turn")
    add_drawn_same_rank: bool = flag(
        True, "just-drawn cards of the rank just played may be added until the next player acts"
    )
    voluntary_pickup: bool = flag(False, "a player may pick up the pile even when able to play")
    starter_rule: Literal["lowest_in_hand", "first_face_up_three", "left_of_dealer"] = flag(
        "lowest_in_hand", "who plays first once everybody is ready"
    )
    starter_must_play_lowest: bool = flag(False, "the first play must be the starter's lowest")
    seven_lower: bool = flag(False, "after a 7 the next play must be a 7 or lower (or a power)")
    eight_skip: bool = flag(False, "each 8 played skips the next player")
    three_invisible: bool = flag(False, "a 3 goes on anything and is transparent")
    nine_lower: bool = flag(False, "after a 9 the next play must be a 9 or lower (or a power)")
    jokers: int = flag(0, "jokers per deck: on anything, transparent, reverse the direction", max=2)
    finish_on_special: bool = flag(True, "a player may go out on a 2 or 10 (power cards)")
    combine_hand_and_up: bool = flag(
        False, "the last hand cards may be played with face-up cards of the same rank"
    )
    num_decks: int = flag(1, "52-card decks shuffled together", min=1, max=4)

    def __post_init__(self) -> None:
        check_rules(self)  # types, Literal values and bounds, as make_setup checks them
        # parse_rules checks the bounds of JSON values; direct construction is checked here.
        if not 1 <= self.cards_per_area <= 8:
            raise InvalidSetup("rules.cards_per_area", f"must be 1..8, got {self.cards_per_area}")
        if not 0 <= self.jokers <= 2:
            raise InvalidSetup("rules.jokers", f"must be 0..2, got {self.jokers}")
        if not 1 <= self.num_decks <= 4:
            raise InvalidSetup("rules.num_decks", f"must be 1..4, got {self.num_decks}")


# --------------------------------------------------------------------------- commands


@dataclass(frozen=True, slots=True)
class Swap:
    """Setup: exchange ``hand_card`` from your hand with ``up_card`` from your face-up cards."""

    hand_card: Card
    up_card: Card


@dataclass(frozen=True, slots=True)
class Ready:
    """Setup: you are done swapping."""


@dataclass(frozen=True, slots=True)
class Play:
    """Play ``cards`` (one rank) from your active source; out of turn only to complete a four."""

    cards: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class PlayFaceDown:
    """Turn up and play your face-down card at position ``index`` (hand and face-up empty)."""

    index: int


@dataclass(frozen=True, slots=True)
class Pickup:
    """Take the whole pile into your hand (only when you cannot play, by default)."""


@dataclass(frozen=True, slots=True)
class AddDrawn:
    """Add just-drawn ``cards`` of the rank you just played, before the next player acts."""

    cards: tuple[Card, ...] = ()


Command = Swap | Ready | Play | PlayFaceDown | Pickup | AddDrawn

READY: Final = Ready()
PICKUP: Final = Pickup()

# --------------------------------------------------------------------------- events


@dataclass(frozen=True, slots=True)
class Dealt:
    """The deck was shuffled and dealt: face-down, face-up and hand cards per seat, and the stock
    (top first). Only the face-up cards are public; a seat sees its own hand."""

    down: tuple[tuple[SeenCard, ...], ...]
    up: tuple[tuple[Card, ...], ...]
    hands: tuple[tuple[SeenCard, ...], ...]
    stock: tuple[SeenCard, ...]


@dataclass(frozen=True, slots=True)
class Swapped:
    """``seat`` put ``hand_card`` face up in place of ``up_card``, which went into its hand."""

    seat: int
    hand_card: Card
    up_card: Card


@dataclass(frozen=True, slots=True)
class Readied:
    """``seat`` is ready (a repeated call changes nothing)."""

    seat: int


@dataclass(frozen=True, slots=True)
class PlayStarted:
    """Everyone was ready: the play phase begins and ``starter`` leads (§5.2 starter)."""

    starter: int


@final
@dataclass(frozen=True, slots=True)
class CardsPlayed:
    """``seat`` put ``from_hand`` then ``from_up`` on the pile; ``out_of_turn`` for a completion."""

    seat: int
    from_hand: tuple[Card, ...]
    from_up: tuple[Card, ...]
    out_of_turn: bool = False


@final
@dataclass(frozen=True, slots=True)
class FaceDownTurned:
    """``seat`` turned up its face-down card at ``index`` (``card``) onto the pile."""

    seat: int
    index: int
    card: Card


@dataclass(frozen=True, slots=True)
class CardsAdded:
    """``seat`` added just-drawn ``cards`` to the pile (§5.2 add-drawn window)."""

    seat: int
    cards: tuple[Card, ...]


@final
@dataclass(frozen=True, slots=True)
class PileBurned:
    """The whole pile (``cards`` of them) left the game, burned by ``seat``'s ten or four."""

    seat: int
    cards: int
    by: BurnKind


@final
@dataclass(frozen=True, slots=True)
class CardsDrawn:
    """``seat`` drew ``cards`` from the top of the stock (face down to everyone else)."""

    seat: int
    cards: tuple[SeenCard, ...]


@final
@dataclass(frozen=True, slots=True)
class PileTaken:
    """``seat`` took the whole pile (``cards`` of them) into its hand."""

    seat: int
    cards: int
    reason: TakeReason


@dataclass(frozen=True, slots=True)
class PlayerWentOut:
    """``seat`` has no cards left: it finished in ``place`` (1 = first)."""

    seat: int
    place: int


@dataclass(frozen=True, slots=True)
class DirectionReversed:
    """Jokers reversed the direction of play; ``direction`` is now +1 or -1."""

    direction: int


@final
@dataclass(frozen=True, slots=True)
class TurnPassed:
    """Who acts next: ``current`` (None once the game is over), whether it owes a ``follow_up``
    (must play again, no pick-up), the open add-drawn ``window`` ``(seat, rank, drawn count)``
    and the seats an 8 ``skipped``."""

    current: int | None
    follow_up: bool
    window: tuple[int, int, int] | None
    skipped: tuple[int, ...] = ()


Event = (
    Dealt
    | Swapped
    | Readied
    | PlayStarted
    | CardsPlayed
    | FaceDownTurned
    | CardsAdded
    | PileBurned
    | CardsDrawn
    | PileTaken
    | PlayerWentOut
    | DirectionReversed
    | TurnPassed
)

# --------------------------------------------------------------------------- state


class State(NamedTuple):
    """A whole Palace position. Build one directly to test from exact cards (see ``position``).

    A NamedTuple rather than a frozen dataclass, as ratscrew's: ``evolve`` builds one per event
    and a tuple is built several times faster; it is just as immutable and typed."""

    setup: Setup[Rules]
    phase: Phase
    hands: tuple[tuple[Card, ...], ...]
    up: tuple[tuple[Card, ...], ...]
    down: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...] = ()
    """Top first."""
    pile: tuple[Card, ...] = ()
    """Bottom→top."""
    burned: tuple[Card, ...] = ()
    current: int | None = None
    follow_up: bool = False
    """The current player must play again (after a 2 or a burn): no pick-up."""
    direction: int = 1
    ready: frozenset[int] = frozenset()
    finished: tuple[int, ...] = ()
    """Seats that went out, in finishing order."""
    window: tuple[int, int, int] | None = None
    """The open add-drawn window: ``(seat, rank just played, cards drawn by its last draw)``;
    those cards are the last ones of that seat's hand."""
    opening: bool = False
    """No card has been played yet (``starter_must_play_lowest``)."""
    revealed: Card | None = None
    """The face-down card turned up most recently: everyone saw it, wherever it went."""


def position(
    hands: Sequence[Sequence[Card]],
    up: Sequence[Sequence[Card]] | None = None,
    down: Sequence[Sequence[Card]] | None = None,
    *,
    rules: Rules | None = None,
    stock: Sequence[Card] = (),
    pile: Sequence[Card] = (),
    burned: Sequence[Card] = (),
    current: int | None = 0,
    phase: Phase = "play",
    follow_up: bool = False,
    direction: int = 1,
    ready: Iterable[int] = (),
    finished: Sequence[int] = (),
    window: tuple[int, int, int] | None = None,
    opening: bool = False,
) -> State:
    """A position from explicit cards, for tests and analysis (rules.md §0.3 test construction)."""
    n = len(hands)
    return State(
        setup=Setup(seats=n, seed=0, rules=rules or Rules()),
        phase=phase,
        hands=tuple(tuple(h) for h in hands),
        up=tuple(tuple(u) for u in up) if up is not None else ((),) * n,
        down=tuple(tuple(d) for d in down) if down is not None else ((),) * n,
        stock=tuple(stock),
        pile=tuple(pile),
        burned=tuple(burned),
        current=current if phase == "play" else None,
        follow_up=follow_up,
        direction=direction,
        ready=frozenset(ready),
        finished=tuple(finished),
        window=window,
        opening=opening,
    )


# --------------------------------------------------------------------------- view


@dataclass(frozen=True, slots=True)
class View:
    """What one viewer sees: its own hand, everyone's face-up cards, the pile and burned cards;
    face-down cards, other hands and the stock only as ``??`` (all of it to the referee)."""

    phase: Phase
    hands: tuple[tuple[SeenCard, ...], ...]
    up: tuple[tuple[Card, ...], ...]
    down: tuple[tuple[SeenCard, ...], ...]
    stock: tuple[SeenCard, ...]
    pile: tuple[Card, ...]
    burned: tuple[Card, ...]
    current: int | None
    follow_up: bool
    direction: int
    ready: tuple[int, ...]
    finished: tuple[int, ...]
    window: tuple[int, int, int] | None
    revealed: Card | None


# --------------------------------------------------------------------------- ranks

_ORDER: Final = (0, 14, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)
"""Strength of each rank index (joker 0, A=1 … K=13) in Palace's order 3 < … < K < A (§5.2)."""

_STARTER_RANKS: Final = (3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 1)
"""Non-special ranks, lowest first: 2, 10 and jokers never decide the starter (§5.5 item 1)."""


def _is_power(rank: int, rules: Rules) -> bool:
    """May this rank go on anything? 2, 10, jokers, and 3 under ``three_invisible``."""
    return rank == 2 or rank == 10 or rank == JOKER_RANK or (rank == 3 and rules.three_invisible)


_COSTS: Final = (
    (21, 14, 22, 3, 4, 5, 6, 7, 8, 9, 23, 11, 12, 13),
    (21, 14, 22, 20, 4, 5, 6, 7, 8, 9, 23, 11, 12, 13),
)
"""How dear each rank index is to its holder, without / with ``three_invisible``: the plain
ranks in order, then the power cards (invisible 3, joker, 2, 10). Bots play the cheapest first
and keep the dearest face up."""


def _cost(rank: int, rules: Rules) -> int:
    return _COSTS[rules.three_invisible][rank]


def _effective_top(pile: Sequence[Card], rules: Rules) -> int | None:
    """The rank that rules look at: the top card, skipping transparent ones ([ENGINE] jokers,
    and 3s under ``three_invisible``, rules.md §5.4)."""
    invisible_three = rules.three_invisible
    for c in reversed(pile):
        r = c.rank
        if r == JOKER_RANK or (r == 3 and invisible_three):
            continue
        return r
    return None


def _fits(rank: int, pile: tuple[Card, ...], rules: Rules) -> bool:
    """rules.md §5.2 legality of a play of ``rank`` on ``pile`` (with §5.4 seven/nine lower)."""
    return rank in _allowed(pile, rules)


_ALL_RANKS: Final = tuple(range(14))
_ALLOWED: dict[tuple[int | None, bool, bool, bool], frozenset[int]] = {}


_allowed_cache: tuple[object, object, frozenset[int]] = (None, None, frozenset())


def _allowed(pile: tuple[Card, ...], rules: Rules) -> frozenset[int]:
    """Every rank that may be played on ``pile`` now (memoised by the rank that rules, and the
    last answer by identity: one position asks several times)."""
    global _allowed_cache  # noqa: PLW0603 - a one-entry memo; the tuple swap is atomic
    cached = _allowed_cache
    if cached[0] is pile and cached[1] is rules:
        return cached[2]
    top = _effective_top(pile, rules) if pile else None
    key = (top, rules.seven_lower, rules.nine_lower, rules.three_invisible)
    allowed = _ALLOWED.get(key)
    if allowed is None:
        allowed = _ALLOWED[key] = frozenset(r for r in _ALL_RANKS if _rank_fits(r, top, rules))
    _allowed_cache = (pile, rules, allowed)
    return allowed


def _rank_fits(rank: int, top: int | None, rules: Rules) -> bool:
    if top is None or top == 2 or _is_power(rank, rules):
        return True
    order = _ORDER[rank]
    if top == 7 and rules.seven_lower:
        return order <= 7
    if top == 9 and rules.nine_lower:
        return order <= 9
    return order >= _ORDER[top]


def _burn(pile_after: Sequence[Card], played: int, rank: int, rules: Rules) -> BurnKind | None:
    """rules.md §5.2 step 2: a 10 burns; so do four of one rank on top (``four_of_a_kind_burn``)."""
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


_TURNS: dict[tuple[int | None, bool, tuple[int, int, int] | None, tuple[int, ...]], TurnPassed] = {}


_PLAYED: dict[tuple[int, tuple[Card, ...], tuple[Card, ...], bool], CardsPlayed] = {}
"""Interned ``CardsPlayed`` events, as ``_turn``'s (a seat plays the same cards many times); only
for an ``int`` seat, since ``True == 1`` as a key but a bool seat must stay in its event."""


def _turn(
    current: int | None,
    follow_up: bool,
    window: tuple[int, int, int] | None = None,
    skipped: tuple[int, ...] = (),
) -> TurnPassed:
    """An interned ``TurnPassed``: a look-up costs less than building a frozen dataclass. A bool
    seat (``True == 1`` as a key) or a non-bool flag is not interned: it stays in its event."""
    if (
        type(current) is bool
        or type(follow_up) is not bool
        or (window is not None and type(window[0]) is bool)
    ):
        return TurnPassed(current, follow_up, window, skipped)
    key = (current, follow_up, window, skipped)
    event = _TURNS.get(key)
    if event is None:
        event = _TURNS[key] = TurnPassed(current, follow_up, window, skipped)
    return event


def _minus(cards: Sequence[Card], taken: Sequence[Card]) -> tuple[Card, ...] | None:
    """``cards`` without ``taken`` (as multisets, first occurrences), or None if not contained."""
    rest = list(cards)
    for c in taken:
        try:
            rest.remove(c)
        except ValueError:
            return None
    return tuple(rest)


def _contains(cards: tuple[Card, ...], taken: tuple[Card, ...]) -> bool:
    """Does ``cards`` hold ``taken`` (as multisets)? ``_minus`` without building the rest."""
    return taken[0] in cards if len(taken) == 1 else _minus(cards, taken) is not None


def _minus_last(cards: Sequence[Card], taken: Sequence[Card]) -> tuple[Card, ...]:
    """``cards`` without ``taken``, removing the last occurrences (just-drawn cards are last)."""
    rest = list(cards)
    for c in taken:
        i = len(rest) - 1 - rest[::-1].index(c)
        del rest[i]
    return tuple(rest)


def _replace(cards: tuple[Card, ...], old: Card, new: Card) -> tuple[Card, ...]:
    i = cards.index(old)
    return cards[:i] + (new,) + cards[i + 1 :]


def _advance(
    seats: int, finished: Sequence[int], p: int, direction: int, steps: int = 1
) -> tuple[int, tuple[int, ...]]:
    """The ``steps``-th unfinished player after ``p`` in ``direction`` (``p`` itself counts when
    the count wraps round, §5.4 eight_skip), and the unfinished players passed over."""
    q = p
    count = 0
    skipped: list[int] = []
    while True:
        q = (q + direction) % seats
        if q in finished:
            continue
        count += 1
        if count == steps:
            return q, tuple(skipped)
        skipped.append(q)


def _next(seats: int, finished: tuple[int, ...], p: int, direction: int) -> int:
    """The next unfinished player after ``p`` in ``direction``: ``_advance`` by one step."""
    q = (p + direction) % seats
    while q in finished:
        q = (q + direction) % seats
    return q


def _source(state: State, p: int) -> tuple[Card, ...]:
    """The active source's cards (§5.2): the hand, else the face-up cards; () for face-down."""
    hand = state.hands[p]
    return hand if hand else state.up[p]


def _draw_count(state: State, hand_after: int) -> int:
    need = state.setup.rules.cards_per_area - hand_after
    return min(need, len(state.stock)) if need > 0 else 0


def _cards_text(cards: Iterable[SeenCard]) -> str:
    return " ".join(c.symbol if isinstance(c, Card) else "??" for c in cards)


# --------------------------------------------------------------------------- decide


def decide(state: State, seat: int, command: Command) -> list[Event]:
    """The events of ``command`` by ``seat``, or :class:`Rejected` (rules.md §0.5 check order)."""
    finished = state.finished
    if len(finished) >= len(state.hands) - 1 and state.phase == "play":  # outcome(state) is set
        raise Rejected(RejectCode.GAME_OVER, "the game is over")
    if seat in finished:
        raise Rejected(RejectCode.PLAYER_FINISHED, f"seat {seat} has gone out")
    if isinstance(command, Play):
        return _decide_play(state, seat, command.cards)
    if isinstance(command, PlayFaceDown):
        return _decide_face_down(state, seat, command.index)
    if isinstance(command, Pickup):
        return _decide_pickup(state, seat)
    if isinstance(command, AddDrawn):
        return _decide_add_drawn(state, seat, command.cards)
    if isinstance(command, Swap):
        return _decide_swap(state, seat, command)
    if isinstance(command, Ready):
        if state.phase != "setup":
            raise Rejected(RejectCode.INVALID_PHASE, "the setup is over")
        return _decide_ready(state, seat)
    raise Rejected(RejectCode.INVALID_PHASE, f"not a Palace command: {command!r}")


def _require_play_phase(state: State) -> None:
    if state.phase != "play":
        raise Rejected(RejectCode.INVALID_PHASE, "the setup is not over (swap, then ready)")


def _not_your_turn(state: State) -> Rejected:
    return Rejected(RejectCode.NOT_YOUR_TURN, f"it is seat {state.current}'s turn")


def _decide_swap(state: State, p: int, command: Swap) -> list[Event]:
    if state.phase != "setup":
        raise Rejected(RejectCode.INVALID_PHASE, "swapping is over: the play has begun")
    if p in state.ready:
        raise Rejected(RejectCode.INVALID_PHASE, f"seat {p} is ready: no more swaps")
    if command.hand_card not in state.hands[p]:
        raise Rejected(RejectCode.CARD_NOT_AVAILABLE, f"{command.hand_card} is not in your hand")
    if command.up_card not in state.up[p]:
        raise Rejected(
            RejectCode.CARD_NOT_AVAILABLE, f"{command.up_card} is not among your face-up cards"
        )
    return [Swapped(p, command.hand_card, command.up_card)]


def _decide_ready(state: State, p: int) -> list[Event]:
    events: list[Event] = [Readied(p)]
    ready = state.ready | {p}
    if p not in state.ready and len(ready) == len(state.hands):
        events.append(PlayStarted(_starter(state)))
    return events


def _starter(state: State) -> int:
    """rules.md §5.2 starter and §5.4 ``starter_rule``; ties go to the lowest seat (§5.5 item 1)."""
    rule = state.setup.rules.starter_rule
    if rule == "left_of_dealer":
        return 0
    zones = (state.hands,) if rule == "lowest_in_hand" else (state.up, state.hands)
    for rank in _STARTER_RANKS:
        for zone in zones:
            for q, cards in enumerate(zone):
                for c in cards:
                    if c.rank == rank:
                        return q
    return 0


def _split_turn_play(
    state: State, p: int, cards: tuple[Card, ...]
) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """Which of ``cards`` come from the hand and which from the face-up cards, for a turn play
    (§5.2 active source; §5.4 ``combine_hand_and_up``); raises ``CardNotAvailable``."""
    hand = state.hands[p]
    if hand:
        if _contains(hand, cards):
            return cards, ()
        rules = state.setup.rules
        if rules.combine_hand_and_up and not state.stock:
            extra = _minus(cards, hand)
            if extra and _minus(state.up[p], extra) is not None:
                return hand, extra
        raise Rejected(RejectCode.CARD_NOT_AVAILABLE, f"{_cards_text(cards)} not in your hand")
    up = state.up[p]
    if up:
        if _contains(up, cards):
            return (), cards
        raise Rejected(
            RejectCode.CARD_NOT_AVAILABLE, f"{_cards_text(cards)} not among your face-up cards"
        )
    raise Rejected(
        RejectCode.CARD_NOT_AVAILABLE, "only face-down cards are left: use play_face_down"
    )


def _lowest_plain(cards: Iterable[Card], rules: Rules) -> int | None:
    """The lowest non-power rank among ``cards`` (``starter_must_play_lowest``)."""
    ranks = [c.rank for c in cards if not _is_power(c.rank, rules)]
    return min(ranks, key=_ORDER.__getitem__) if ranks else None


def _decide_play(state: State, p: int, cards: tuple[Card, ...]) -> list[Event]:
    _require_play_phase(state)
    if state.current != p:
        return _decide_completion(state, p, cards)
    if not cards:
        raise Rejected(RejectCode.CARD_NOT_AVAILABLE, "a play needs at least one card")
    from_hand, from_up = _split_turn_play(state, p, cards)
    rank = cards[0].rank
    for c in cards:
        if c.rank != rank:
            raise Rejected(RejectCode.MIXED_RANKS, f"{_cards_text(cards)} are not all one rank")
    rules = state.setup.rules
    if rank not in _allowed(state.pile, rules):
        raise Rejected(
            RejectCode.ILLEGAL_CARD,
            f"{rank_name(rank)} does not go on {_top_text(state.pile, rules)}",
        )
    if rules.starter_must_play_lowest and state.opening:
        lowest = _lowest_plain(_source(state, p), rules)
        if lowest is not None and rank != lowest:
            raise Rejected(
                RejectCode.ILLEGAL_CARD,
                f"the first play must be your lowest card, a {rank_name(lowest)}",
            )
    return _resolve(state, p, from_hand, from_up, None, out_of_turn=False)


def _top_text(pile: Sequence[Card], rules: Rules) -> str:
    top = _effective_top(pile, rules)
    if top is None:
        return "the empty pile"
    if top == 7 and rules.seven_lower:
        return "a 7 (7 or lower)"
    if top == 9 and rules.nine_lower:
        return "a 9 (9 or lower)"
    return f"a {rank_name(top)}"


def _decide_completion(state: State, p: int, cards: tuple[Card, ...]) -> list[Event]:
    """rules.md §5.2 out-of-turn completion; anything else by a non-current player is
    ``NotYourTurn`` (§0.5 step 5)."""
    rules = state.setup.rules
    pile = state.pile
    if not (
        rules.out_of_turn_completion
        and rules.four_of_a_kind_burn == "consecutive"
        and pile
        and cards
    ):
        raise _not_your_turn(state)
    rank = pile[-1].rank
    run = 0
    for c in reversed(pile):
        if c.rank != rank:
            break
        run += 1
    if run + len(cards) != 4 or any(c.rank != rank for c in cards):
        raise _not_your_turn(state)
    hand = state.hands[p]
    source = hand if hand else state.up[p]
    rest = _minus(source, cards)
    if rest is None:
        raise _not_your_turn(state)
    if _power_finish_fails(state, rank):
        hand_after, up_after = (len(rest), len(state.up[p])) if hand else (0, len(rest))
        if _would_finish(state, p, hand_after, up_after, len(state.down[p])):
            raise Rejected(RejectCode.ILLEGAL_CARD, "you may not go out on a power card")
    from_hand, from_up = (cards, ()) if hand else ((), cards)
    return _resolve(state, p, from_hand, from_up, None, out_of_turn=True)


def _power_finish_fails(state: State, rank: int) -> bool:
    """Would going out on ``rank`` fail (§5.4 ``finish_on_special=False``)? [ENGINE] Not when
    nothing but power cards is left in play, since then nobody could ever go out."""
    rules = state.setup.rules
    if rules.finish_on_special or not _is_power(rank, rules):
        return False
    zones: list[tuple[Card, ...]] = [state.stock, state.pile]
    for q in range(len(state.hands)):
        if q not in state.finished:
            zones += (state.hands[q], state.up[q], state.down[q])
    return any(not _is_power(c.rank, rules) for zone in zones for c in zone)


def _would_finish(state: State, p: int, hand_after: int, up_after: int, down_after: int) -> bool:
    return (
        hand_after == 0
        and up_after == 0
        and down_after == 0
        and _draw_count(state, hand_after) == 0
    )


def _resolve(
    state: State,
    p: int,
    from_hand: tuple[Card, ...],
    from_up: tuple[Card, ...],
    blind: tuple[int, Card] | None,
    *,
    out_of_turn: bool,
) -> list[Event]:
    """The effects of an accepted play, in rules.md §5.2 order: onto the pile, burn check, draw,
    finish check, then who plays next (follow-up, skip, add-drawn window)."""
    rules = state.setup.rules
    n = len(state.hands)
    events: list[Event]
    if blind is None:
        cards = from_hand + from_up
        played = _PLAYED.get((p, from_hand, from_up, out_of_turn)) if type(p) is int else None
        if played is None:
            played = CardsPlayed(p, from_hand, from_up, out_of_turn)
            if type(p) is int:
                _PLAYED[p, from_hand, from_up, out_of_turn] = played
        events = [played]
        down_after = len(state.down[p])
    else:
        cards = (blind[1],)
        events = [FaceDownTurned(p, blind[0], blind[1])]
        down_after = len(state.down[p]) - 1
    rank = cards[0].rank
    hand_after = len(state.hands[p]) - len(from_hand)
    up_after = len(state.up[p]) - len(from_up)
    pile_after = state.pile + cards
    draw = _draw_count(state, hand_after)
    finishing = hand_after == 0 and draw == 0 and up_after == 0 and down_after == 0
    if finishing and _power_finish_fails(state, rank):
        # [ENGINE] going out on a power card is not allowed: the play fails like a bad blind card.
        nxt, _ = _advance(n, state.finished, p, state.direction)
        events.append(PileTaken(p, len(pile_after), "special_finish"))
        events.append(_turn(nxt, False))
        return events
    burn = _burn(pile_after, len(cards), rank, rules)
    if burn is not None:
        events.append(PileBurned(p, len(pile_after), burn))
    if draw:
        events.append(CardsDrawn(p, state.stock[:draw]))
    finished = state.finished
    if finishing:
        finished = (*finished, p)
        events.append(PlayerWentOut(p, len(finished)))
        if len(finished) >= n - 1:
            events.append(_turn(None, False))
            return events
    direction = state.direction
    if burn is not None:
        # A four of a kind always gives the lead; a 10 does unless ten_follow_up is off.
        follow = burn == "four_of_a_kind" or rules.ten_follow_up
    else:
        follow = rank == 2 and rules.two_follow_up
        if rank == JOKER_RANK and len(cards) % 2 == 1:
            direction = -direction
            events.append(DirectionReversed(direction))
    if follow and not finishing:
        events.append(_turn(p, True))
        return events
    if follow:  # §5.2 lead to a finished player: the next unfinished player leads / plays on
        nxt, _ = _advance(n, finished, p, direction)
        events.append(_turn(nxt, False))
        return events
    # §5.4 eight_skip: n eights skip n unfinished players (a burn overrides the skip).
    if rules.eight_skip and rank == 8 and burn is None:
        nxt, skipped = _advance(n, finished, p, direction, len(cards) + 1)
    else:
        nxt, skipped = _next(n, finished, p, direction), ()
    window = None
    if rules.add_drawn_same_rank and not finishing and nxt != p:
        window = (p, rank, draw)
    events.append(_turn(nxt, False, window, skipped))
    return events


def _decide_face_down(state: State, p: int, index: int) -> list[Event]:
    _require_play_phase(state)
    if state.current != p:
        raise _not_your_turn(state)
    if state.hands[p] or state.up[p]:
        raise Rejected(
            RejectCode.CARD_NOT_AVAILABLE, "face-down cards come after the hand and face-up cards"
        )
    down = state.down[p]
    if not 0 <= index < len(down):
        raise Rejected(RejectCode.INVALID_TARGET, f"no face-down card {index} (have {len(down)})")
    card = down[index]
    rules = state.setup.rules
    if card.rank in _allowed(state.pile, rules):
        return _resolve(state, p, (), (), (index, card), out_of_turn=False)
    # §5.2: a blind card that does not fit goes into the hand with the whole pile.
    nxt, _ = _advance(len(state.hands), state.finished, p, state.direction)
    return [
        FaceDownTurned(p, index, card),
        PileTaken(p, len(state.pile) + 1, "failed_blind"),
        _turn(nxt, False),
    ]


def _has_plain_play(state: State, p: int) -> bool:
    """Can ``p`` make a play that fits and does not fail (§5.2 pickup, ``MustPlayIfAble``)?"""
    rules = state.setup.rules
    hand = state.hands[p]
    source = hand if hand else state.up[p]
    pile = state.pile
    # Only a lone last card can fail: with two or more, one can always be kept back.
    lone_last = len(source) == 1 and (
        not state.stock and not state.up[p] and not state.down[p] if hand else not state.down[p]
    )
    allowed = _allowed(pile, rules)
    for c in source:
        if c.rank in allowed:
            return not (lone_last and _power_finish_fails(state, c.rank))
    return False


def _decide_pickup(state: State, p: int) -> list[Event]:
    _require_play_phase(state)
    if state.current != p:
        raise _not_your_turn(state)
    if not state.pile:
        raise Rejected(RejectCode.EMPTY_PILE, "there is no pile to pick up")
    if state.follow_up:
        raise Rejected(RejectCode.MUST_PLAY_IF_ABLE, "you owe a follow-up play")
    if not state.hands[p] and not state.up[p]:
        raise Rejected(RejectCode.MUST_PLAY_IF_ABLE, "a face-down card must always be tried")
    if not state.setup.rules.voluntary_pickup and _has_plain_play(state, p):
        raise Rejected(RejectCode.MUST_PLAY_IF_ABLE, "you have a card that can be played")
    nxt, _ = _advance(len(state.hands), state.finished, p, state.direction)
    return [PileTaken(p, len(state.pile), "pickup"), _turn(nxt, False)]


def _decide_add_drawn(state: State, p: int, cards: tuple[Card, ...]) -> list[Event]:
    _require_play_phase(state)
    window = state.window
    if window is None or window[0] != p:
        raise Rejected(RejectCode.WINDOW_CLOSED, "no add-drawn window of yours is open")
    _, rank, drawn = window
    hand = state.hands[p]
    tail = hand[len(hand) - drawn :] if drawn else ()
    if not cards or any(c.rank != rank for c in cards) or _minus(tail, cards) is None:
        raise Rejected(
            RejectCode.CARD_NOT_AVAILABLE,
            f"only just-drawn {rank_name(rank)}s may be added",
        )
    rules = state.setup.rules
    n = len(hand)
    hand_after = n - len(cards)
    draw = _draw_count(state, hand_after)
    finishing = hand_after == 0 and draw == 0 and not state.up[p] and not state.down[p]
    if finishing and _power_finish_fails(state, rank):
        raise Rejected(RejectCode.ILLEGAL_CARD, "you may not go out on a power card")
    events: list[Event] = [CardsAdded(p, cards)]
    pile_after = state.pile + cards
    burn = _burn(pile_after, len(cards), rank, rules)
    if burn is not None:
        events.append(PileBurned(p, len(pile_after), burn))
    if draw:
        events.append(CardsDrawn(p, state.stock[:draw]))
    finished = state.finished
    seats = len(state.hands)
    if finishing:
        finished = (*finished, p)
        events.append(PlayerWentOut(p, len(finished)))
        if len(finished) >= seats - 1:
            events.append(_turn(None, False))
            return events
    if burn is not None:  # §5.4: an added ten or four burns the pile and p leads
        if finishing:
            nxt, _ = _advance(seats, finished, p, state.direction)
            events.append(_turn(nxt, False))
        else:
            events.append(_turn(p, True))
        return events
    # Added cards have no other effect; the window stays open with the new draw.
    events.append(_turn(state.current, state.follow_up, None if finishing else (p, rank, draw)))
    return events


# --------------------------------------------------------------------------- evolve


_new = tuple.__new__
"""Builds a State from a full tuple of its fields, skipping the keyword-argument layer."""


def evolve(state: State, event: Event) -> State:
    """Apply one event. No rules: the event carries every decision.

    The frequent play-phase events (``@final``) are matched by exact type first, most frequent
    first: a ``match`` class pattern costs as much as building the new state."""
    (
        setup, phase, hands, up, down, stock, pile, burned, current, follow_up, direction, ready,
        finished, window, opening, revealed,
    ) = state  # fmt: skip
    if type(event) is TurnPassed:
        return _new(State, (
            setup, phase, hands, up, down, stock, pile, burned, event.current, event.follow_up,
            direction, ready, finished, event.window, opening, revealed,
        ))  # fmt: skip
    if type(event) is CardsPlayed:
        p, from_hand, from_up = event.seat, event.from_hand, event.from_up
        if from_hand:
            hand = hands[p]
            if len(from_hand) == 1:
                i = hand.index(from_hand[0])
                hand = hand[:i] + hand[i + 1 :]
            else:
                hand = _minus(hand, from_hand) or ()
            hands = hands[:p] + (hand,) + hands[p + 1 :]
        if from_up:
            row = _minus(up[p], from_up) or ()
            up = up[:p] + (row,) + up[p + 1 :]
        return _new(State, (
            setup, phase, hands, up, down, stock, pile + from_hand + from_up, burned, current,
            follow_up, direction, ready, finished, window, False, revealed,
        ))  # fmt: skip
    if type(event) is CardsDrawn:
        p, k = event.seat, len(event.cards)
        hands = hands[:p] + (hands[p] + stock[:k],) + hands[p + 1 :]
        return _new(State, (
            setup, phase, hands, up, down, stock[k:], pile, burned, current, follow_up,
            direction, ready, finished, window, opening, revealed,
        ))  # fmt: skip
    if type(event) is PileTaken:
        p = event.seat
        hands = hands[:p] + (hands[p] + pile,) + hands[p + 1 :]
        return _new(State, (
            setup, phase, hands, up, down, stock, (), burned, current, follow_up, direction,
            ready, finished, window, opening, revealed,
        ))  # fmt: skip
    if type(event) is PileBurned:
        return _new(State, (
            setup, phase, hands, up, down, stock, (), burned + pile, current, follow_up,
            direction, ready, finished, window, opening, revealed,
        ))  # fmt: skip
    if type(event) is FaceDownTurned:
        p, index, card = event.seat, event.index, event.card
        row = down[p]
        down = down[:p] + (row[:index] + row[index + 1 :],) + down[p + 1 :]
        return _new(State, (
            setup, phase, hands, up, down, stock, pile + (card,), burned, current, follow_up,
            direction, ready, finished, window, False, card,
        ))  # fmt: skip
    match event:
        case CardsAdded(p, cards):
            hands = hands[:p] + (_minus_last(hands[p], cards),) + hands[p + 1 :]
            return _new(State, (
                setup, phase, hands, up, down, stock, pile + cards, burned, current, follow_up,
                direction, ready, finished, window, opening, revealed,
            ))  # fmt: skip
        case PlayerWentOut(p):
            return _new(State, (
                setup, phase, hands, up, down, stock, pile, burned, current, follow_up,
                direction, ready, (*finished, p), window, opening, revealed,
            ))  # fmt: skip
        case DirectionReversed(direction):
            return _new(State, (
                setup, phase, hands, up, down, stock, pile, burned, current, follow_up,
                direction, ready, finished, window, opening, revealed,
            ))  # fmt: skip
        case Swapped(p, hand_card, up_card):
            hands = hands[:p] + (_replace(hands[p], hand_card, up_card),) + hands[p + 1 :]
            up = up[:p] + (_replace(up[p], up_card, hand_card),) + up[p + 1 :]
            return _new(State, (
                setup, phase, hands, up, down, stock, pile, burned, current, follow_up,
                direction, ready, finished, window, opening, revealed,
            ))  # fmt: skip
        case Readied(p):
            return _new(State, (
                setup, phase, hands, up, down, stock, pile, burned, current, follow_up,
                direction, ready | {p}, finished, window, opening, revealed,
            ))  # fmt: skip
        case PlayStarted(starter):
            return _new(State, (
                setup, "play", hands, up, down, stock, pile, burned, starter, False, direction,
                ready, finished, None, True, revealed,
            ))  # fmt: skip
        case Dealt(dealt_down, dealt_up, dealt_hands, dealt_stock):
            return State(
                setup, "setup", _real(dealt_hands), tuple(tuple(u) for u in dealt_up),
                _real(dealt_down), tuple(c for c in dealt_stock if isinstance(c, Card)),
            )  # fmt: skip
        case _:
            assert_never(event)


def _real(rows: tuple[tuple[SeenCard, ...], ...]) -> tuple[tuple[Card, ...], ...]:
    return tuple(tuple(c for c in row if isinstance(c, Card)) for row in rows)


# --------------------------------------------------------------------------- setup, deal


def deck(setup: Setup[Rules]) -> list[Card]:
    return standard_deck(setup.rules.num_decks, setup.rules.jokers)


def initial_state(setup: Setup[Rules]) -> State:
    """The table before the deal: no cards anywhere, setup phase."""
    empty: tuple[tuple[Card, ...], ...] = ((),) * setup.seats
    return State(setup, "setup", empty, empty, empty)


def check_setup(setup: Setup[Rules]) -> None:
    """§5.2: every seat is dealt ``3 × cards_per_area`` cards, so one deck seats 2–5 players."""
    needed = 3 * setup.rules.cards_per_area * setup.seats
    cards = len(deck(setup))
    if needed > cards:
        raise InvalidSetup(
            "seats",
            f"{setup.seats} seats need {needed} cards but {cards} are in play "
            "(more decks: rules.num_decks, or fewer cards_per_area)",
        )


def deal(setup: Setup[Rules]) -> list[Event]:
    """Shuffle with stream 0 and deal §5.2: ``k`` rounds face down, ``k`` face up, ``k`` to the
    hands, one card per seat per round from P0; the rest is the stock, top first."""
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


# --------------------------------------------------------------------------- views, redaction


def _sees_hand(viewer: Viewer, seat: int) -> bool:
    return viewer == Role.REFEREE or viewer == seat


def view(state: State, viewer: Viewer) -> View:
    referee = viewer == Role.REFEREE
    hands: tuple[tuple[SeenCard, ...], ...] = tuple(
        h if _sees_hand(viewer, q) else (HIDDEN,) * len(h) for q, h in enumerate(state.hands)
    )
    down: tuple[tuple[SeenCard, ...], ...] = (
        state.down if referee else tuple((HIDDEN,) * len(d) for d in state.down)
    )
    stock: tuple[SeenCard, ...] = state.stock if referee else (HIDDEN,) * len(state.stock)
    return View(
        phase=state.phase,
        hands=hands,
        up=state.up,
        down=down,
        stock=stock,
        pile=state.pile,
        burned=state.burned,
        current=state.current,
        follow_up=state.follow_up,
        direction=state.direction,
        ready=tuple(sorted(state.ready)),
        finished=state.finished,
        window=state.window,
        revealed=state.revealed,
    )


def redact(event: Event, viewer: Viewer) -> Event:
    """The event as ``viewer`` sees it: others' hands, face-down cards, the stock and others'
    draws are face down but to the referee."""
    if viewer == Role.REFEREE:
        return event
    if type(event) is CardsDrawn:
        if viewer == event.seat:
            return event
        return CardsDrawn(event.seat, (HIDDEN,) * len(event.cards))
    if type(event) is Dealt:
        return Dealt(
            tuple((HIDDEN,) * len(d) for d in event.down),
            event.up,
            tuple(h if viewer == q else (HIDDEN,) * len(h) for q, h in enumerate(event.hands)),
            (HIDDEN,) * len(event.stock),
        )
    return event


def shuffle_hidden(state: State, viewer: Viewer, rng: Rng) -> State:
    """Permute every card ``viewer`` cannot see (others' hands, face-down cards, the stock) among
    their places. The add-drawn window counts positions, so it stays consistent."""
    if viewer == Role.REFEREE:
        return state
    hidden_hands = [q for q in range(len(state.hands)) if q != viewer]
    pool = [c for q in hidden_hands for c in state.hands[q]]
    pool += [c for d in state.down for c in d]
    pool += state.stock
    rng.shuffle(pool)
    i = 0
    hands = list(state.hands)
    for q in hidden_hands:
        k = len(hands[q])
        hands[q] = tuple(pool[i : i + k])
        i += k
    down = []
    for d in state.down:
        down.append(tuple(pool[i : i + len(d)]))
        i += len(d)
    return state._replace(hands=tuple(hands), down=tuple(down), stock=tuple(pool[i:]))


def cards_in_play(state: State) -> list[Card]:
    out = [c for h in state.hands for c in h]
    out += [c for u in state.up for c in u]
    out += [c for d in state.down for c in d]
    out += state.stock
    out += state.pile
    out += state.burned
    return out


# --------------------------------------------------------------------------- outcome, commands


def outcome(state: State) -> Outcome | None:
    """Over when one player is left holding cards: the loser; the others in finishing order."""
    finished = state.finished
    n = len(state.hands)
    if len(finished) < n - 1 or state.phase != "play":
        return None
    losers = tuple(q for q in range(n) if q not in finished)
    return Outcome(Termination.OUT_OF_CARDS, finished, losers)


_MULTISET_CAP: Final = 64
"""Beyond this many distinct sub-multisets of one rank (several decks), one per size is listed."""

_PLAYS: dict[tuple[Card, ...], Play] = {}
_SWAPS: dict[tuple[Card, Card], Swap] = {}
_ADDS: dict[tuple[Card, ...], AddDrawn] = {}
_FACE_DOWN: Final = tuple(PlayFaceDown(i) for i in range(32))
"""Interned commands: building a frozen dataclass costs more than a dict look-up."""


_SINGLE_PLAYS: dict[Card, Play] = {}


def _play(cards: tuple[Card, ...]) -> Play:
    cmd = _PLAYS.get(cards)
    if cmd is None:
        cmd = _PLAYS[cards] = Play(cards)
    return cmd


def _single_play(card: Card) -> Play:
    cmd = _SINGLE_PLAYS.get(card)
    if cmd is None:
        cmd = _SINGLE_PLAYS[card] = Play((card,))
    return cmd


_GROUP_PLAYS: dict[frozenset[Card], tuple[Play, ...]] = {}


def _group_plays(cards: list[Card]) -> tuple[Play, ...]:
    """The plays of every sub-multiset of ``cards`` (one rank), in ``_multisets`` order; interned
    by the set of cards when they all differ (one deck), as the order does not depend on theirs."""
    key = frozenset(cards)
    if len(key) != len(cards):
        return tuple(_play(m) for m in _multisets(cards))
    plays = _GROUP_PLAYS.get(key)
    if plays is None:
        plays = _GROUP_PLAYS[key] = tuple(_play(m) for m in _multisets(cards))
    return plays


def _multisets(cards: list[Card]) -> list[tuple[Card, ...]]:
    """Every distinct non-empty sub-multiset of ``cards`` (all one rank), smallest first, then in
    card order; bounded by ``_MULTISET_CAP``."""
    m = len(cards)
    if m == 1:
        return [(cards[0],)]
    cards = sorted(cards)
    if len(set(cards)) == m:  # one deck: every card differs, so every combination is distinct
        if m <= 6:
            return [t for k in range(1, m + 1) for t in combinations(cards, k)]
        return [tuple(cards[:k]) for k in range(1, m + 1)]
    groups: list[tuple[Card, int]] = []
    for c in cards:
        if groups and groups[-1][0] is c:
            groups[-1] = (c, groups[-1][1] + 1)
        else:
            groups.append((c, 1))
    total = 1
    for _, k in groups:
        total *= k + 1
    if total - 1 > _MULTISET_CAP:
        return [tuple(cards[:k]) for k in range(1, m + 1)]
    out: list[tuple[Card, ...]] = []
    for counts in product(*(range(k + 1) for _, k in groups)):
        if any(counts):
            out.append(tuple(c for (c, _), k in zip(groups, counts, strict=True) for _ in range(k)))
    out.sort(key=lambda t: (len(t), [c.index for c in t]))
    return out


_fitting_cache: tuple[object, object, object, object, list[tuple[int, list[Card]]]] = (
    None, None, None, None, [],
)  # fmt: skip


def _fitting(
    source: tuple[Card, ...], allowed: frozenset[int], lowest: int | None, rules: Rules
) -> list[tuple[int, list[Card]]]:
    """The cards of ``source`` that may be played now (rank in ``allowed``; only ``lowest`` if
    the first play is bound), grouped by rank, cheapest rank first (``_COSTS``). The last answer
    is memoised (legal_commands and is_sensible ask about the same position in turn); do not
    mutate it."""
    global _fitting_cache  # noqa: PLW0603 - a one-entry memo; the tuple swap is atomic
    cached = _fitting_cache
    if cached[0] is source and cached[1] is allowed and cached[2] == lowest and cached[3] is rules:
        return cached[4]
    if lowest is None:
        cards = [c for c in source if c.rank in allowed]
    else:
        cards = [c for c in source if c.rank == lowest] if lowest in allowed else []
    out = _group_by_rank(cards, rules) if cards else []
    _fitting_cache = (source, allowed, lowest, rules, out)
    return out


def _group_by_rank(cards: list[Card], rules: Rules) -> list[tuple[int, list[Card]]]:
    if len(cards) == 1:
        return [(cards[0].rank, cards)]
    groups: dict[int, list[Card]] = {}
    for c in cards:
        g = groups.get(c.rank)
        if g is None:
            groups[c.rank] = [c]
        else:
            g.append(c)
    if len(groups) == 1:
        return list(groups.items())
    ranks = sorted(groups, key=_COSTS[rules.three_invisible].__getitem__)
    return [(r, groups[r]) for r in ranks]


def legal_commands(state: State, seat: int) -> list[Command]:
    """Every command ``seat`` may make now. Plays list each distinct multiset of one rank from
    the active source, cheapest rank first, smaller sets first."""
    finished = state.finished
    if seat in finished or len(finished) >= len(state.hands) - 1:
        return []
    if state.phase == "setup":
        return _setup_commands(state, seat)
    current = state.current
    if current is None:
        return []
    if current != seat:
        window = state.window
        if window is not None and window[0] == seat:
            return _out_of_turn_commands(state, seat)
        pile = state.pile
        if pile:  # a completion needs a card of the top card's rank: look before listing them
            rank = pile[-1].rank
            hand = state.hands[seat]
            for c in hand if hand else state.up[seat]:
                if c.rank == rank:
                    return _completions(state, seat)
        return []
    rules = state.setup.rules
    hand = state.hands[seat]
    source = hand if hand else state.up[seat]
    if not source:
        k = len(state.down[seat])
        return list(_FACE_DOWN[:k]) if k <= len(_FACE_DOWN) else [PlayFaceDown(i) for i in range(k)]
    pile = state.pile
    out: list[Command] = []
    lowest = (
        _lowest_plain(source, rules) if rules.starter_must_play_lowest and state.opening else None
    )
    fitting = _fitting(source, _allowed(pile, rules), lowest, rules)
    for _, cards in fitting:
        if len(cards) == 1:
            out.append(_single_play(cards[0]))
        else:
            out.extend(_group_plays(cards))
    if hand and rules.combine_hand_and_up and not state.stock:
        rank = hand[0].rank
        extra = [c for c in state.up[seat] if c.rank == rank]
        if (
            extra
            and all(c.rank == rank for c in hand)
            and _fits(rank, pile, rules)
            and (lowest is None or rank == lowest)
        ):
            base = tuple(sorted(hand))
            out.extend(_play(base + m) for m in _multisets(extra))
    if pile and not state.follow_up:
        # A fitting play exists, so a pick-up is allowed only voluntarily or when the one
        # fitting play would fail (a lone last power card, finish_on_special=False).
        if (
            not fitting
            or rules.voluntary_pickup
            or (len(source) == 1 and not _has_plain_play(state, seat))
        ):
            out.append(PICKUP)
    return out


def _setup_commands(state: State, seat: int) -> list[Command]:
    if seat in state.ready:
        return []  # a repeated ready is accepted but changes nothing: not worth offering
    out: list[Command] = []
    seen: set[tuple[Card, Card]] = set()
    for h in state.hands[seat]:
        for u in state.up[seat]:
            key = (h, u)
            if key in seen:
                continue  # the same pair twice (several decks)
            seen.add(key)
            cmd = _SWAPS.get(key)
            if cmd is None:
                cmd = _SWAPS[key] = Swap(h, u)
            out.append(cmd)
    out.append(READY)
    return out


def _out_of_turn_commands(state: State, seat: int) -> list[Command]:
    """A non-current seat's racing commands: completions (§5.2) and add-drawn (its window)."""
    out: list[Command] = _completions(state, seat)
    window = state.window
    if window is not None and window[0] == seat and window[2]:
        hand = state.hands[seat]
        tail = [c for c in hand[len(hand) - window[2] :] if c.rank == window[1]]
        if tail:
            for m in _multisets(tail):
                try:
                    _decide_add_drawn(state, seat, m)
                except Rejected:
                    continue
                cmd = _ADDS.get(m)
                if cmd is None:
                    cmd = _ADDS[m] = AddDrawn(m)
                out.append(cmd)
    return out


def _completions(state: State, seat: int) -> list[Command]:
    """The out-of-turn plays that complete a four of a kind (§5.2), if any."""
    rules = state.setup.rules
    pile = state.pile
    if not (pile and rules.out_of_turn_completion and rules.four_of_a_kind_burn == "consecutive"):
        return []
    rank = pile[-1].rank
    hand = state.hands[seat]
    matching = [c for c in (hand if hand else state.up[seat]) if c.rank == rank]
    if not matching:
        return []
    run = 0
    for c in reversed(pile):
        if c.rank != rank:
            break
        run += 1
    need = 4 - run
    if need <= 0 or len(matching) < need:
        return []
    out: list[Command] = []
    for m in _multisets(matching):
        if len(m) == need:
            try:
                _decide_completion(state, seat, m)
            except Rejected:
                continue
            out.append(_play(m))
    return out


_sensible_cache: tuple[object, int, tuple[int, int] | None] = (None, -1, None)


def _best_play(state: State, seat: int) -> tuple[int, int] | None:
    """The play a sensible player makes: ``(rank, count)`` of the cheapest rank that fits, all of
    its cards (and face-up ones when combining); None if only failing plays exist."""
    global _sensible_cache  # noqa: PLW0603 - a one-entry memo; the tuple swap is atomic
    cached = _sensible_cache
    if cached[0] is state and cached[1] == seat:
        return cached[2]
    rules = state.setup.rules
    hand = state.hands[seat]
    source = hand if hand else state.up[seat]
    lowest = (
        _lowest_plain(source, rules) if rules.starter_must_play_lowest and state.opening else None
    )
    best: tuple[int, int] | None = None
    for rank, cards in _fitting(source, _allowed(state.pile, rules), lowest, rules):
        count = len(cards)
        from_up = 0
        if hand and rules.combine_hand_and_up and not state.stock and count == len(hand):
            from_up = sum(1 for c in state.up[seat] if c.rank == rank)
            count += from_up
        if _power_finish_fails(state, rank):
            hand_after = len(hand) - (count - from_up) if hand else 0
            up_after = len(state.up[seat]) - (from_up if hand else count)
            if _would_finish(state, seat, hand_after, up_after, len(state.down[seat])):
                count -= 1  # keep one back rather than fail to go out
                if count == 0:
                    continue
        best = (rank, count)
        if (
            not rules.finish_on_special
            and lowest is None
            and not _is_power(rank, rules)
            and not state.stock
            and not state.down[seat]
            and not (hand and state.up[seat])
        ):
            # The last cards: a player who may not go out on a power card plays its power cards
            # before its last plain set, or it would be left holding them (a pick-up loop).
            rest = [c.rank for c in source if c.rank != rank]
            if rest and all(_is_power(r, rules) for r in rest):
                cost = _COSTS[rules.three_invisible]
                power = min(rest, key=cost.__getitem__)
                best = (power, rest.count(power))
        break
    _sensible_cache = (state, seat, best)
    return best


def is_sensible(state: State, seat: int, command: Command) -> bool:
    """Bots' hint. Swap only to put a dearer card face up; ready once; play the cheapest rank
    that fits, all of it; pick up only when no play fits; always complete fours and add drawn
    cards; never fail to go out on a power card when a pick-up is possible."""
    if isinstance(command, Play):
        if state.current != seat:
            return True  # an out-of-turn completion burns the pile and wins the lead
        cached = _sensible_cache  # _best_play's memo, read here: one call less per command
        best = cached[2] if cached[0] is state and cached[1] == seat else _best_play(state, seat)
        if best is None:  # only failing power plays fit: fine when nothing else is possible
            return not (state.pile and not state.follow_up)
        cards = command.cards
        return len(cards) == best[1] and cards[0].rank == best[0]
    if isinstance(command, Swap):
        cost = _COSTS[state.setup.rules.three_invisible]
        return cost[command.hand_card.rank] > cost[command.up_card.rank]
    if isinstance(command, Pickup):
        return _best_play(state, seat) is None
    if isinstance(command, Ready):
        return seat not in state.ready
    return True


# --------------------------------------------------------------------------- narration


def narrate(event: Event) -> str:
    """One adjudication in plain words."""
    match event:
        case Dealt(down, _, hands, stock):
            sizes = ", ".join(
                f"seat {q}: {len(d)} down, {len(u)} up, {len(h)} in hand"
                for q, (d, u, h) in enumerate(zip(down, event.up, hands, strict=True))
            )
            return f"dealt {sizes}; {len(stock)} cards in the stock"
        case Swapped(seat, hand_card, up_card):
            return f"seat {seat} put {hand_card.symbol} face up and took {up_card.symbol} in hand"
        case Readied(seat):
            return f"seat {seat} is ready"
        case PlayStarted(starter):
            return f"everybody is ready: seat {starter} starts"
        case CardsPlayed(seat, from_hand, from_up, out_of_turn):
            cards = from_hand + from_up
            if out_of_turn:
                return (
                    f"seat {seat} completed four {rank_name(cards[0].rank)}s out of turn with "
                    f"{_cards_text(cards)}"
                )
            where = "hand" if not from_up else "face-up cards" if not from_hand else "hand and up"
            return f"seat {seat} played {_cards_text(cards)} from {where}"
        case FaceDownTurned(seat, index, card):
            return f"seat {seat} turned up face-down card {index}: {card.symbol}"
        case CardsAdded(seat, cards):
            return f"seat {seat} added just-drawn {_cards_text(cards)}"
        case PileBurned(seat, cards, by):
            why = "a 10" if by == "ten" else "four of a kind"
            return f"{why}: the pile burns ({cards} cards), by seat {seat}"
        case CardsDrawn(seat, drawn):
            if drawn and drawn[0] is HIDDEN:
                return f"seat {seat} drew {len(drawn)} card{'s' if len(drawn) != 1 else ''}"
            return f"seat {seat} drew {_cards_text(drawn)}"
        case PileTaken(seat, cards, reason):
            why = {
                "pickup": "picks up the pile",
                "failed_blind": "cannot play the blind card: takes it with the pile",
                "special_finish": "may not go out on a power card: takes the pile",
            }[reason]
            return f"seat {seat} {why} ({cards} cards)"
        case PlayerWentOut(seat, place):
            return f"seat {seat} has no cards left: out in place {place}"
        case DirectionReversed(direction):
            return "play reverses: now " + ("clockwise" if direction == 1 else "anticlockwise")
        case TurnPassed(current, follow_up, window, skipped):
            if current is None:
                return "one player is left holding cards: the game is over"
            text = f"seat {current} {'plays again' if follow_up else 'to play'}"
            if skipped:
                text += " (skipped " + ", ".join(f"seat {q}" for q in skipped) + ")"
            if window is not None:
                text += f"; seat {window[0]} may add just-drawn {rank_name(window[1])}s"
            return text
        case _:
            assert_never(event)


GAME: Final[Game[State, Command, Event, View, Rules]] = Game(
    info=GameInfo(
        name="palace",
        title="Palace (Shithead)",
        rules_version=RULES_VERSION,
        min_seats=2,
        max_seats=8,
        realtime=True,
        aliases=("shithead",),
    ),
    rules_type=Rules,
    command_types=(Swap, Ready, Play, PlayFaceDown, Pickup, AddDrawn),
    event_types=(
        Dealt,
        Swapped,
        Readied,
        PlayStarted,
        CardsPlayed,
        FaceDownTurned,
        CardsAdded,
        PileBurned,
        CardsDrawn,
        PileTaken,
        PlayerWentOut,
        DirectionReversed,
        TurnPassed,
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
    check_setup=check_setup,
)
