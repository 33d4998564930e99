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

Module order (style.md): rules → commands → events → state → view → decide → evolve → deal →
view/redact → outcome/legal_commands → position check and notation (docs/notation/palace.md) →
narration → ``GAME``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import permutations, product
from math import prod
from typing import Final, Literal, NamedTuple, assert_never, final

from .. import kit
from .. import notation as nt
from ..cards import HIDDEN, JOKER, JOKER_RANK, RANKS, Card, SeenCard, rank_name, standard_deck
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
from ..errors import InvalidPosition, InvalidSeat, InvalidSetup, RejectCode, Rejected
from ..rng import shuffled

RULES_VERSION: Final = "2"

Phase = Literal["setup", "play"]
BurnKind = Literal["ten", "four_of_a_kind"]
TakeReason = Literal["pickup", "failed_blind", "special_finish"]

# --------------------------------------------------------------------------- rules


@dataclass(frozen=True, slots=True)
class Rules:
    """The variant flags, with their defaults (docs/games/palace.md#variant-flags)."""

    cards_per_area: int = flag(3, "cards face down, face up and in hand per player", min=1)
    """Any ``k >= 1`` whose deal fits the decks (``check_setup``: ``3·k·seats`` cards)."""
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
        if self.cards_per_area < 1:
            raise InvalidSetup(
                "rules.cards_per_area", f"must be at least 1, got {self.cards_per_area}"
            )
        if not 0 <= self.jokers <= 2:
            raise InvalidSetup("rules.jokers", f"must be 0..2, got {self.jokers}")
        if not 1 <= self.num_decks <= 4:
            raise InvalidSetup("rules.num_decks", f"must be 1..4, got {self.num_decks}")


# --------------------------------------------------------------------------- commands


@kit.command("swap {hand_card} {up_card}")
class Swap:
    """Setup: exchange ``hand_card`` from your hand with ``up_card`` from your face-up cards."""

    hand_card: Card
    up_card: Card


@kit.command("ready")
class Ready:
    """Setup: you are done swapping."""


@kit.command("play {cards}")
class Play:
    """Play ``cards`` (one rank) from your active source; out of turn only to complete a four."""

    cards: tuple[Card, ...] = ()


@kit.command("blind {index}")
class PlayFaceDown:
    """Turn up and play your face-down card at position ``index`` (hand and face-up empty)."""

    index: int


@kit.command("pickup")
class Pickup:
    """Take the whole pile into your hand (only when you cannot play, by default)."""


@kit.command("add {cards}")
class AddDrawn:
    """Add just-drawn ``cards`` of the rank you just played, before the next player acts."""

    cards: tuple[Card, ...] = ()


Command = Swap | Ready | Play | PlayFaceDown | Pickup | AddDrawn | kit.Resign
"""``kit.Resign`` is every game's one resign command (docs/games/common.md#leaving-a-game): in any
phase, never listed by ``legal_commands`` and never sensible, so that no bot resigns by chance."""

READY: Final = Ready()
PICKUP: Final = Pickup()

# --------------------------------------------------------------------------- events


@kit.record
class Dealt:
    """The deck was shuffled and dealt: face-down, face-up and hand cards per seat, and the stock
    (top first). Only the face-up cards are public; a seat sees its own hand."""

    down: tuple[tuple[SeenCard, ...], ...]
    up: tuple[tuple[Card, ...], ...]
    hands: tuple[tuple[SeenCard, ...], ...]
    stock: tuple[SeenCard, ...]


@kit.record
class Swapped:
    """``seat`` put ``hand_card`` face up in place of ``up_card``, which went into its hand."""

    seat: int
    hand_card: Card
    up_card: Card


@kit.record
class Readied:
    """``seat`` is ready (a repeated call changes nothing)."""

    seat: int


@kit.record
class PlayStarted:
    """Everyone was ready: the play phase begins and ``starter`` leads
    (docs/games/palace.md#starter)."""

    starter: int


@final
@kit.record
class CardsPlayed:
    """``seat`` put ``from_hand`` then ``from_up`` on the pile; ``out_of_turn`` for a completion."""

    seat: int
    from_hand: tuple[Card, ...]
    from_up: tuple[Card, ...]
    out_of_turn: bool = False


@final
@kit.record
class FaceDownTurned:
    """``seat`` turned up its face-down card at ``index`` (``card``) onto the pile."""

    seat: int
    index: int
    card: Card


@kit.record
class CardsAdded:
    """``seat`` added just-drawn ``cards`` to the pile (docs/games/palace.md#add-drawn-window)."""

    seat: int
    cards: tuple[Card, ...]


@final
@kit.record
class PileBurned:
    """The whole pile (``cards`` of them) left the game, burned by ``seat``'s ten or four."""

    seat: int
    cards: int
    by: BurnKind


@final
@kit.record
class CardsDrawn:
    """``seat`` drew ``cards`` from the top of the stock (face down to everyone else)."""

    seat: int
    cards: tuple[SeenCard, ...]


@final
@kit.record
class PileTaken:
    """``seat`` took the whole pile (``cards`` of them) into its hand."""

    seat: int
    cards: int
    reason: TakeReason


@kit.record
class PlayerWentOut:
    """``seat`` has no cards left: it finished in ``place`` (1 = first)."""

    seat: int
    place: int


@kit.record
class DirectionReversed:
    """Jokers reversed the direction of play; ``direction`` is now +1 or -1."""

    direction: int


@kit.record
class PlayerResigned:
    """``seat`` left the game (docs/games/common.md#leaving-a-game): its ``cards`` (hand, face-up
    and face-down) are set aside face down and it is out. ``by`` is the command's: None, or
    ``"timer"`` for a seat the host forfeited on a time-out (the same effect). Names no card:
    nothing to redact."""

    seat: int
    cards: int
    by: str | None = None


@final
@kit.record
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
    | PlayerResigned
)

# --------------------------------------------------------------------------- state


@kit.state
class State(NamedTuple):
    """A whole Palace position. Build one directly to test from exact cards (see ``position``).

    A NamedTuple made fast by :func:`cardcore.kit.state`: ``evolve`` builds one per event with
    ``s._replace(...)``, naming only the fields the event changes, and what every seat asks of a
    position (which ranks go on the pile, the play a sensible player makes) is worked out once
    per state."""

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
    """Seats that are out, in the order they left: those that went out and those that resigned
    (``resigned``; in the setup phase only those)."""
    window: tuple[int, int, int] | None = None
    """The open add-drawn window: ``(seat, rank just played, cards drawn by its last draw)``;
    those cards are the last ones of that seat's hand."""
    opening: bool = False
    """No card has been played yet (``starter_must_play_lowest``)."""
    revealed: Card | None = None
    """The face-down card turned up most recently: everyone saw it, wherever it went."""
    set_aside: tuple[Card, ...] = ()
    """The cards of resigned seats, out of the game face down (docs/games/common.md#leaving-a-game),
    in the order they left: each resigner's hand, then its face-up, then its face-down cards."""
    resigned: tuple[int, ...] = ()
    """The seats that resigned, in order. They are in ``finished`` too (they are out: no turn,
    no window, no command), but rank below every seat that went out (``outcome``)."""

    @kit.derived
    def allowed(self) -> frozenset[int]:
        """The ranks that may be played on the pile now: :func:`_allowed`."""
        return _allowed(self.pile, self.setup.rules)

    @kit.derived
    def playable(self) -> list[tuple[int, list[Card]]]:
        """The current player's cards that may be played now, by rank, cheapest first (empty
        when nobody is to play): :func:`_fitting`."""
        return [] if self.current is None else _fitting(self, self.current)

    @kit.derived
    def best_play(self) -> tuple[int, int] | None:
        """The play a sensible current player makes (None when there is none, or nobody is to
        play): :func:`_best_play`."""
        return None if self.current is None else _best_play(self, self.current)


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
    ready: Iterable[int] | None = None,
    finished: Sequence[int] = (),
    window: tuple[int, int, int] | None = None,
    opening: bool = False,
    revealed: Card | None = None,
    set_aside: Sequence[Card] = (),
    resigned: Sequence[int] = (),
    allow_over: bool = False,
) -> State:
    """A position from explicit cards, for tests and analysis (docs/games/common.md#positions),
    checked by :func:`check_position` (:class:`~cardcore.errors.InvalidPosition`; a game that is
    already over only with ``allow_over``). ``ready`` defaults to every seat in the play phase
    (everybody called ready to get there), to nobody in the setup phase. A resigned seat is
    listed in ``finished`` and in ``resigned``; its cards are in ``set_aside``."""
    n = len(hands)
    if ready is None:
        ready = range(n) if phase == "play" else ()
    state = State(
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
        revealed=revealed,
        set_aside=tuple(set_aside),
        resigned=tuple(resigned),
    )
    check_position(state, allow_over=allow_over)
    return state


# --------------------------------------------------------------------------- view


@kit.view
class View:
    """What one viewer sees: its own hand, everyone's face-up cards, the pile and burned cards;
    face-down cards, other hands, the stock and the set-aside cards of resigned seats only as
    ``??`` (all of it to the referee)."""

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
    set_aside: tuple[SeenCard, ...] = ()
    resigned: tuple[int, ...] = ()


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


def _is_power(rank: int, rules: Rules) -> bool:
    """May this rank go on anything? 2, 10, jokers, and 3 under ``three_invisible``."""
    return rank == 2 or rank == 10 or rank == JOKER_RANK or (rank == 3 and rules.three_invisible)


def _is_transparent(rank: int, rules: Rules) -> bool:
    """Is this rank skipped by every rule that looks at the top card? [ENGINE] Jokers, and 3s
    under ``three_invisible`` (docs/games/palace.md#variant-flags)."""
    return rank == JOKER_RANK or (rank == 3 and rules.three_invisible)


def _top_rank(pile: Sequence[Card], rules: Rules) -> int | None:
    """The rank the rules look at: the top card's, transparent cards skipped; None for an empty
    pile or one of transparent cards only (anything goes on it)."""
    for card in reversed(pile):
        if not _is_transparent(card.rank, rules):
            return card.rank
    return None


def _fits(rank: int, top: int | None, rules: Rules) -> bool:
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


def _top_text(pile: Sequence[Card], rules: Rules) -> str:
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
    top: int | None, seven_lower: bool, nine_lower: bool, three_invisible: bool
) -> frozenset[int]:
    """Every rank that ``_fits`` on ``top`` under these flags (the only ones it reads)."""
    rules = Rules(seven_lower=seven_lower, nine_lower=nine_lower, three_invisible=three_invisible)
    return frozenset(rank for rank in range(14) if _fits(rank, top, rules))


_FITTING: Final = kit.tabulate(_ranks_that_fit, _TOPS, _BOOLS, _BOOLS, _BOOLS)
"""``_ranks_that_fit`` for every top rank and flags."""


def _allowed(pile: Sequence[Card], rules: Rules) -> frozenset[int]:
    """Every rank that may be played on ``pile`` now (``_fits``, read from its table); a
    state's is ``state.allowed``."""
    top = _top_rank(pile, rules)
    return _FITTING[top, rules.seven_lower, rules.nine_lower, rules.three_invisible]


def _burn(pile_after: Sequence[Card], played: int, rank: int, rules: Rules) -> BurnKind | None:
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


def _minus(cards: Sequence[Card], taken: Sequence[Card]) -> tuple[Card, ...] | None:
    """``cards`` without ``taken`` (as multisets, first occurrences), or None if not contained."""
    rest = tuple(cards)
    for c in taken:
        try:
            i = rest.index(c)
        except ValueError:
            return None
        rest = rest[:i] + rest[i + 1 :]
    return rest


def _holds(cards: Sequence[Card], taken: Sequence[Card]) -> bool:
    """Does ``cards`` hold ``taken`` (as multisets)?"""
    return taken[0] in cards if len(taken) == 1 else _minus(cards, taken) is not None


def _minus_last(cards: Sequence[Card], taken: Sequence[Card]) -> tuple[Card, ...]:
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


def _next(seats: int, finished: Sequence[int], p: int, direction: int) -> int:
    """The next player after ``p`` in ``direction`` still in the game (not in ``finished``)."""
    q = (p + direction) % seats
    while q in finished:
        q = (q + direction) % seats
    return q


def _advance(
    seats: int, finished: Sequence[int], p: int, direction: int, steps: int
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
    hand = state.hands[p]
    return hand if hand else state.up[p]


def _draw_count(state: State, hand_after: int) -> int:
    """How many cards a player left with ``hand_after`` in hand draws: back up to
    ``cards_per_area`` while the stock lasts (docs/games/palace.md#a-turn, step 3)."""
    need = state.setup.rules.cards_per_area - hand_after
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


def _top_run(pile: Sequence[Card]) -> int:
    """How many cards of the top card's rank lie on top of ``pile`` (a four burns)."""
    run = 0
    for c in reversed(pile):
        if c.rank != pile[-1].rank:
            break
        run += 1
    return run


def _completion_played(rules: Rules) -> bool:
    """May a four be completed out of turn (docs/games/palace.md#out-of-turn-completion)? [ENGINE]
    Only where fours burn across plays (``four_of_a_kind_burn="consecutive"``)."""
    return rules.out_of_turn_completion and rules.four_of_a_kind_burn == "consecutive"


def _cards_text(cards: Iterable[SeenCard]) -> str:
    return " ".join(c.symbol if isinstance(c, Card) else "??" for c in cards)


# --------------------------------------------------------------------------- decide


@kit.seated
def decide(state: State, seat: int, command: Command) -> list[Event]:
    """The events of ``command`` by ``seat``, or :class:`Rejected`
    (docs/games/common.md#order-of-checks); :class:`~cardcore.errors.InvalidSeat` for a seat that is
    not one (a caller's error)."""
    finished = state.finished
    if len(finished) >= len(state.hands) - 1:  # outcome(state) is set (a resign ends a setup)
        raise Rejected(RejectCode.GAME_OVER, "the game is over")
    if seat in finished:
        gone = "resigned" if seat in state.resigned else "gone out"
        raise Rejected(RejectCode.PLAYER_FINISHED, f"seat {seat} has {gone}")
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
    if isinstance(command, kit.Resign):
        return _decide_resign(state, seat, command.by)
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
    # Resigned seats (all of ``finished`` in the setup phase) are not waited for.
    if p not in state.ready and len(ready.union(state.finished)) == len(state.hands):
        events.append(PlayStarted(_starter(state)))
    return events


def _decide_resign(state: State, p: int, by: str | None) -> list[Event]:
    """docs/games/common.md#leaving-a-game for Palace, in any phase: ``p``'s cards are set aside and
    ``p`` is out. With two players left the game ends at once (``outcome``: ``RESIGNED``).
    Otherwise, in the setup phase, the play begins if everybody left is ready; in play, any
    add-drawn window closes, and if it was ``p``'s turn the next player plays on the pile as it is
    (a follow-up ``p`` owed is void, as for a player who went out:
    docs/games/palace.md#lead-to-a-finished-player)."""
    n = len(state.hands)
    cards = len(state.hands[p]) + len(state.up[p]) + len(state.down[p])
    resign = PlayerResigned(p, cards, by)
    events: list[Event] = [resign]
    finished = (*state.finished, p)
    if len(finished) >= n - 1:
        events.append(TurnPassed(None, False, None))
        return events
    if state.phase == "setup":
        if len(state.ready.union(finished)) == n:  # p was the last one not ready
            events.append(PlayStarted(_starter(evolve(state, resign))))
        return events
    if state.current == p:
        events.append(TurnPassed(_next(n, finished, p, state.direction), False, None))
    else:
        events.append(TurnPassed(state.current, state.follow_up, None))
    return events


def _starter(state: State) -> int:
    """docs/games/palace.md#starter and docs/games/palace.md#variant-flags ``starter_rule``; ties go
    to the lowest seat (docs/games/palace.md#decisions, item 1)."""
    rule = state.setup.rules.starter_rule
    # Seat 0 unless it resigned (docs/games/common.md#leaving-a-game); resigned seats hold no card,
    # so no rank picks them.
    first = next(q for q in range(len(state.hands)) if q not in state.finished)
    if rule == "left_of_dealer":
        return first
    zones = (state.hands,) if rule == "lowest_in_hand" else (state.up, state.hands)
    for rank in _STARTER_RANKS:
        for zone in zones:
            for q, cards in enumerate(zone):
                for c in cards:
                    if c.rank == rank:
                        return q
    return first


def _split_turn_play(
    state: State, p: int, cards: tuple[Card, ...]
) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """Which of ``cards`` come from the hand and which from the face-up cards, for a turn play
    (docs/games/palace.md#active-source; docs/games/palace.md#variant-flags
    ``combine_hand_and_up``); raises ``CardNotAvailable``."""
    hand = state.hands[p]
    if hand:
        if _holds(hand, cards):
            return cards, ()
        rules = state.setup.rules
        if rules.combine_hand_and_up and not state.stock:
            extra = _minus(cards, hand)
            if extra and _minus(state.up[p], extra) is not None:
                return hand, extra
        raise Rejected(RejectCode.CARD_NOT_AVAILABLE, f"{_cards_text(cards)} not in your hand")
    up = state.up[p]
    if up:
        if _holds(up, cards):
            return (), cards
        raise Rejected(
            RejectCode.CARD_NOT_AVAILABLE, f"{_cards_text(cards)} not among your face-up cards"
        )
    raise Rejected(
        RejectCode.CARD_NOT_AVAILABLE, "only face-down cards are left: use play_face_down"
    )


def _bound_rank(state: State, p: int) -> int | None:
    """The rank ``p``'s play is bound to, if any: under ``starter_must_play_lowest`` the first play
    of the game is the lowest non-power rank of the active source."""
    rules = state.setup.rules
    if not (rules.starter_must_play_lowest and state.opening):
        return None
    ranks = [c.rank for c in _source(state, p) if not _is_power(c.rank, rules)]
    return min(ranks, key=_ORDER.__getitem__) if ranks else None


def _decide_play(state: State, p: int, cards: tuple[Card, ...]) -> list[Event]:
    """docs/games/palace.md#a-turn, step 1 (docs/games/palace.md#legal-plays); by another seat, a
    completion (docs/games/palace.md#out-of-turn-completion)."""
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
    if rank not in state.allowed:
        raise Rejected(
            RejectCode.ILLEGAL_CARD,
            f"{rank_name(rank)} does not go on {_top_text(state.pile, rules)}",
        )
    lowest = _bound_rank(state, p)
    if lowest is not None and rank != lowest:
        raise Rejected(
            RejectCode.ILLEGAL_CARD,
            f"the first play must be your lowest card, a {rank_name(lowest)}",
        )
    return _resolve(state, p, from_hand, from_up, None, out_of_turn=False)


def _decide_completion(state: State, p: int, cards: tuple[Card, ...]) -> list[Event]:
    """docs/games/palace.md#out-of-turn-completion; anything else by a non-current player is
    ``NotYourTurn`` (docs/games/common.md#order-of-checks, step 5)."""
    rules = state.setup.rules
    pile = state.pile
    if not (_completion_played(rules) and pile and cards):
        raise _not_your_turn(state)
    rank = pile[-1].rank
    if _top_run(pile) + len(cards) != 4 or any(c.rank != rank for c in cards):
        raise _not_your_turn(state)
    hand = state.hands[p]
    source = hand if hand else state.up[p]
    rest = _minus(source, cards)
    if rest is None:
        raise _not_your_turn(state)
    if _power_finish_fails(state, rank):
        hand_after, up_after = (len(rest), len(state.up[p])) if hand else (0, len(rest))
        if _goes_out(state, hand_after, up_after, len(state.down[p])):
            raise Rejected(RejectCode.ILLEGAL_CARD, "you may not go out on a power card")
    from_hand, from_up = (cards, ()) if hand else ((), cards)
    return _resolve(state, p, from_hand, from_up, None, out_of_turn=True)


def _power_finish_fails(state: State, rank: int) -> bool:
    """Would going out on ``rank`` fail (docs/games/palace.md#variant-flags
    ``finish_on_special=False``)? [ENGINE] Not when nothing but power cards is left in play, since
    then nobody could ever go out."""
    rules = state.setup.rules
    if rules.finish_on_special or not _is_power(rank, rules):
        return False
    zones: list[tuple[Card, ...]] = [state.stock, state.pile]
    for q in range(len(state.hands)):
        if q not in state.finished:
            zones += (state.hands[q], state.up[q], state.down[q])
    return any(not _is_power(c.rank, rules) for zone in zones for c in zone)


def _resolve(
    state: State,
    p: int,
    from_hand: tuple[Card, ...],
    from_up: tuple[Card, ...],
    blind: tuple[int, Card] | None,
    *,
    out_of_turn: bool,
) -> list[Event]:
    """The effects of an accepted play, in docs/games/palace.md#a-turn: onto the pile, burn check,
    draw, finish check, then who plays next (follow-up, skip, add-drawn window)."""
    n = len(state.hands)
    events: list[Event]
    if blind is None:
        cards = from_hand + from_up
        events = [CardsPlayed(p, from_hand, from_up, out_of_turn)]
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
    finishing = _goes_out(state, hand_after, up_after, down_after)
    if finishing and _power_finish_fails(state, rank):
        # [ENGINE] going out on a power card is not allowed: the play fails like a bad blind card.
        nxt = _next(n, state.finished, p, state.direction)
        events.append(PileTaken(p, len(pile_after), "special_finish"))
        events.append(TurnPassed(nxt, False, None))
        return events
    burn, finished = _burn_draw_out(
        state, p, events, pile_after, rank=rank, draw=draw, finishing=finishing
    )
    if finished is None:
        return events
    rules = state.setup.rules
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
        events.append(TurnPassed(p, True, None))
        return events
    # docs/games/palace.md#lead-to-a-finished-player: the next unfinished player leads / plays on
    if follow:
        nxt = _next(n, finished, p, direction)
        events.append(TurnPassed(nxt, False, None))
        return events
    # docs/games/palace.md#variant-flags eight_skip: n eights skip n unfinished players (a burn
    # overrides the skip).
    if rules.eight_skip and rank == 8 and burn is None:
        nxt, skipped = _advance(n, finished, p, direction, len(cards) + 1)
    else:
        nxt, skipped = _next(n, finished, p, direction), ()
    window = None
    if rules.add_drawn_same_rank and not finishing and nxt != p:
        window = (p, rank, draw)
    events.append(TurnPassed(nxt, False, window, skipped))
    return events


def _burn_draw_out(
    state: State,
    p: int,
    events: list[Event],
    pile_after: tuple[Card, ...],
    *,
    rank: int,
    draw: int,
    finishing: bool,
) -> tuple[BurnKind | None, tuple[int, ...] | None]:
    """docs/games/palace.md#a-turn, steps 2–4, after cards went on the pile, the same for a play and
    for ``add_drawn``: the burn check, the draw, the finish check. Appends their events; returns the
    burn and the finishing order after them, None once the game is over (its last
    ``TurnPassed`` appended): the caller then decides only who plays next."""
    burn = _burn(pile_after, len(pile_after) - len(state.pile), rank, state.setup.rules)
    if burn is not None:
        events.append(PileBurned(p, len(pile_after), burn))
    if draw:
        events.append(CardsDrawn(p, state.stock[:draw]))
    finished = state.finished
    if finishing:
        finished = (*finished, p)
        # The place counts those who went out: resigned seats rank below them all
        # (docs/games/common.md#leaving-a-game).
        events.append(PlayerWentOut(p, len(finished) - len(state.resigned)))
        if len(finished) >= len(state.hands) - 1:
            events.append(TurnPassed(None, False, None))
            return burn, None
    return burn, finished


def _decide_face_down(state: State, p: int, index: int) -> list[Event]:
    """docs/games/palace.md#face-down-cards: the face-down cards are played blind, last."""
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
    if card.rank in state.allowed:
        return _resolve(state, p, (), (), (index, card), out_of_turn=False)
    # docs/games/palace.md#face-down-cards: a blind card that does not fit goes into the hand with
    # the whole pile.
    nxt = _next(len(state.hands), state.finished, p, state.direction)
    return [
        FaceDownTurned(p, index, card),
        PileTaken(p, len(state.pile) + 1, "failed_blind"),
        TurnPassed(nxt, False, None),
    ]


def _has_plain_play(state: State, p: int) -> bool:
    """Can ``p`` make a play that fits and does not fail (docs/games/palace.md#picking-up,
    ``MustPlayIfAble``)?"""
    hand = state.hands[p]
    source = _source(state, p)
    # Only a lone last card can fail: with two or more, one can always be kept back.
    lone_last = len(source) == 1 and (
        not state.stock and not state.up[p] and not state.down[p] if hand else not state.down[p]
    )
    for c in source:
        if c.rank in state.allowed:
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
    nxt = _next(len(state.hands), state.finished, p, state.direction)
    return [PileTaken(p, len(state.pile), "pickup"), TurnPassed(nxt, False, None)]


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
    n = len(hand)
    hand_after = n - len(cards)
    draw = _draw_count(state, hand_after)
    finishing = _goes_out(state, hand_after, len(state.up[p]), len(state.down[p]))
    if finishing and _power_finish_fails(state, rank):
        raise Rejected(RejectCode.ILLEGAL_CARD, "you may not go out on a power card")
    events: list[Event] = [CardsAdded(p, cards)]
    pile_after = state.pile + cards
    burn, finished = _burn_draw_out(
        state, p, events, pile_after, rank=rank, draw=draw, finishing=finishing
    )
    if finished is None:
        return events
    seats = len(state.hands)
    # docs/games/palace.md#variant-flags: an added ten or four burns the pile and p leads
    if burn is not None:
        if finishing:
            nxt = _next(seats, finished, p, state.direction)
            events.append(TurnPassed(nxt, False, None))
        else:
            events.append(TurnPassed(p, True, None))
        return events
    # Added cards have no other effect; the window stays open with the new draw.
    events.append(
        TurnPassed(state.current, state.follow_up, None if finishing else (p, rank, draw))
    )
    return events


# --------------------------------------------------------------------------- evolve


def evolve(state: State, event: Event) -> State:
    """Apply one event. No rules: the event carries every decision.

    The play's events are tested first, the commonest first (``type(event) is``): a ``match``
    class pattern costs more than building the next state."""
    s = state
    if type(event) is TurnPassed:
        return s._replace(current=event.current, follow_up=event.follow_up, window=event.window)
    if type(event) is CardsPlayed:
        p = event.seat
        return s._replace(
            hands=_take(s.hands, p, event.from_hand),
            up=_take(s.up, p, event.from_up),
            pile=s.pile + event.from_hand + event.from_up,
            opening=False,
        )
    if type(event) is CardsDrawn:
        p, k = event.seat, len(event.cards)
        return s._replace(hands=_put(s.hands, p, s.hands[p] + s.stock[:k]), stock=s.stock[k:])
    if type(event) is PileTaken:
        p = event.seat
        return s._replace(hands=_put(s.hands, p, s.hands[p] + s.pile), pile=())
    if type(event) is PileBurned:
        return s._replace(burned=s.burned + s.pile, pile=())
    if type(event) is FaceDownTurned:
        p, i = event.seat, event.index
        return s._replace(
            down=_put(s.down, p, s.down[p][:i] + s.down[p][i + 1 :]),
            pile=s.pile + (event.card,),
            opening=False,
            revealed=event.card,
        )
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
"""The events ``evolve`` does not test first (those it does are ``@final``: mypy knows the rest)."""


def _evolve_rarely(s: State, event: _RarerEvent) -> State:
    """The events of the setup, of a player going out or resigning, and the rare effects."""
    match event:
        case CardsAdded(p, cards):
            return s._replace(
                hands=_put(s.hands, p, _minus_last(s.hands[p], cards)), pile=s.pile + cards
            )
        case PlayerWentOut(p):
            return s._replace(finished=(*s.finished, p))
        case DirectionReversed(direction):
            return s._replace(direction=direction)
        case Swapped(p, hand_card, up_card):
            return s._replace(
                hands=_put(s.hands, p, _swap(s.hands[p], hand_card, up_card)),
                up=_put(s.up, p, _swap(s.up[p], up_card, hand_card)),
            )
        case Readied(p):
            return s._replace(ready=s.ready | {p})
        case PlayStarted(starter):
            return s._replace(
                phase="play", current=starter, follow_up=False, window=None, opening=True
            )
        case PlayerResigned(p):
            # docs/games/common.md#leaving-a-game: everything the seat holds leaves the game; it is
            # out (ranked by outcome).
            return s._replace(
                hands=_put(s.hands, p, ()),
                up=_put(s.up, p, ()),
                down=_put(s.down, p, ()),
                finished=(*s.finished, p),
                set_aside=s.set_aside + s.hands[p] + s.up[p] + s.down[p],
                resigned=(*s.resigned, p),
            )
        case Dealt(down, up, hands, stock):
            return State(
                setup=s.setup,
                phase="setup",
                hands=_real(hands),
                up=tuple(tuple(row) for row in up),
                down=_real(down),
                stock=tuple(c for c in stock if isinstance(c, Card)),
            )
        case _:
            assert_never(event)


def _take(
    rows: tuple[tuple[Card, ...], ...], p: int, cards: tuple[Card, ...]
) -> tuple[tuple[Card, ...], ...]:
    """``rows`` with ``cards`` taken out of seat ``p``'s row (first occurrences)."""
    if not cards:
        return rows
    return rows[:p] + (_minus(rows[p], cards) or (),) + rows[p + 1 :]


def _put(
    rows: tuple[tuple[Card, ...], ...], p: int, row: tuple[Card, ...]
) -> tuple[tuple[Card, ...], ...]:
    """``rows`` with seat ``p``'s row replaced by ``row``."""
    return rows[:p] + (row,) + rows[p + 1 :]


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


# --------------------------------------------------------------------------- views, redaction


def _sees_hand(viewer: Viewer, seat: int) -> bool:
    return viewer == Role.REFEREE or viewer == seat


@kit.viewed
def view(state: State, viewer: Viewer) -> View:
    """What ``viewer`` sees; a seat viewer that is not a seat raises ``InvalidSeat`` (a bool would
    otherwise pass for seat 1, ``True == 1``, and an out-of-range one see nothing)."""
    referee = viewer == Role.REFEREE
    hands: tuple[tuple[SeenCard, ...], ...] = tuple(
        h if _sees_hand(viewer, q) else (HIDDEN,) * len(h) for q, h in enumerate(state.hands)
    )
    down: tuple[tuple[SeenCard, ...], ...] = (
        state.down if referee else tuple((HIDDEN,) * len(d) for d in state.down)
    )
    stock: tuple[SeenCard, ...] = state.stock if referee else (HIDDEN,) * len(state.stock)
    set_aside: tuple[SeenCard, ...] = (
        state.set_aside if referee else (HIDDEN,) * len(state.set_aside)
    )
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
        set_aside=set_aside,
        resigned=state.resigned,
    )


def redact(event: Event, viewer: Viewer) -> Event:
    """The event as ``viewer`` sees it: others' hands, face-down cards, the stock and others'
    draws are face down but to the referee."""
    if viewer == Role.REFEREE:
        return event
    if type(viewer) is bool:
        check_seat(1, viewer)  # raises InvalidSeat: True is not seat 1
    if type(viewer) is int and viewer < 0:
        raise InvalidSeat(f"no seat {viewer}: seats count from 0")  # no event knows the seats
    if type(event) is CardsDrawn:
        if viewer == event.seat:
            return event
        return CardsDrawn(event.seat, (HIDDEN,) * len(event.cards))
    if type(event) is Dealt:
        kit.check_viewer(viewer, len(event.hands))
        return Dealt(
            tuple((HIDDEN,) * len(d) for d in event.down),
            event.up,
            tuple(h if viewer == q else (HIDDEN,) * len(h) for q, h in enumerate(event.hands)),
            (HIDDEN,) * len(event.stock),
        )
    return event


ZONES: Final = kit.Zones(
    kit.Zone("hands", "owner", per_seat=True),
    kit.Zone("up", "everyone", per_seat=True),
    kit.Zone("down", "nobody", per_seat=True),
    kit.Zone("stock", "nobody"),
    kit.Zone("pile", "everyone"),
    kit.Zone("burned", "everyone"),
    kit.Zone("set_aside", "nobody"),
)
"""Where the cards of a Palace state lie, and who sees them: cards_in_play and shuffle_hidden
(the add-drawn window counts positions, so it stays consistent). The set-aside cards of resigned
seats left the game face down (docs/games/common.md#leaving-a-game): nobody sees them, whoever saw
some of them before."""

shuffle_hidden = ZONES.shuffle_hidden
cards_in_play = ZONES.cards


# --------------------------------------------------------------------------- outcome, commands


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


_MULTISET_CAP: Final = 64
"""Beyond this many distinct sub-multisets of one rank (several decks), one per size is listed."""


def _multisets(cards: Iterable[Card]) -> list[tuple[Card, ...]]:
    """Every distinct non-empty sub-multiset of ``cards`` (all one rank), smallest first, then in
    card order; one per size only, the smallest cards first, beyond ``_MULTISET_CAP`` of them
    (several decks)."""
    ordered = sorted(cards)
    distinct = sorted(set(ordered))
    counts = [ordered.count(c) for c in distinct]
    if prod(k + 1 for k in counts) - 1 > _MULTISET_CAP:
        return [tuple(ordered[:k]) for k in range(1, len(ordered) + 1)]
    subsets = [
        tuple(c for c, k in zip(distinct, chosen, strict=True) for _ in range(k))
        for chosen in product(*(range(k + 1) for k in counts))
        if any(chosen)
    ]
    return sorted(subsets, key=lambda m: (len(m), m))


def _plays_of(cards: Iterable[Card]) -> tuple[Play, ...]:
    """A play of each of ``_multisets(cards)``, in its order."""
    return tuple(Play(m) for m in _multisets(cards))


_ONE_DECK_SETS: Final = (
    frozenset({JOKER}),
    *(
        cards
        for rank in range(1, 14)
        for cards in kit.subsets(c for c in standard_deck() if c.rank == rank)
        if cards
    ),
)
"""Every set of one deck's cards of one rank (a joker alone: two are the same card twice)."""

_ONE_DECK_PLAYS: Final = kit.tabulate(_plays_of, _ONE_DECK_SETS)
"""``_plays_of`` each of ``_ONE_DECK_SETS``: the plays listed at nearly every turn, built once."""


def _one_deck_plays(cards: tuple[Card, ...]) -> tuple[Play, ...]:
    """``_plays_of(cards)`` (their order does not matter), from ``_ONE_DECK_PLAYS``."""
    return _ONE_DECK_PLAYS[frozenset(cards)]


_PLAYS: Final = kit.tabulate(
    _one_deck_plays, (order for cards in _ONE_DECK_SETS for order in permutations(cards))
)
"""``_plays_of`` one deck's cards of one rank, in every order they can lie in a hand: a look-up
by the cards as the active source holds them."""


def _plays(cards: list[Card]) -> tuple[Play, ...]:
    """``_plays_of(cards)``, from its table unless a card is there twice (several decks)."""
    return _PLAYS.get(tuple(cards)) or _plays_of(cards)


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
    groups: dict[int, list[Card]] = {}
    for c in _source(state, p):
        r = c.rank
        if r in allowed:
            g = groups.get(r)
            if g is None:
                groups[r] = [c]
            else:
                g.append(c)
    if len(groups) <= 1:
        return list(groups.items())
    cost = _COSTS[state.setup.rules.three_invisible]
    return sorted(groups.items(), key=lambda group: cost[group[0]])


@kit.seated
def legal_commands(state: State, seat: int) -> list[Command]:
    """Every command ``seat`` may make now. Plays list each distinct multiset of one rank from
    the active source, cheapest rank first, smaller sets first."""
    finished = state.finished
    if seat in finished or len(finished) >= len(state.hands) - 1:
        return []
    if state.phase == "setup":
        return _setup_commands(state, seat)
    if state.current is None:
        return []
    if state.current != seat:
        return _out_of_turn_commands(state, seat)
    return _turn_commands(state, seat)


def _turn_commands(state: State, seat: int) -> list[Command]:
    """The current player's commands: its plays (docs/games/palace.md#legal-plays), and the
    pick-up when it may (docs/games/palace.md#picking-up)."""
    rules = state.setup.rules
    hand = state.hands[seat]
    source = _source(state, seat)
    if not source:
        return [PlayFaceDown(i) for i in range(len(state.down[seat]))]
    pile = state.pile
    out: list[Command] = []
    fitting = state.playable
    for _, cards in fitting:
        out.extend(_plays(cards))
    if hand and rules.combine_hand_and_up and not state.stock:
        lowest = _bound_rank(state, seat)
        rank = hand[0].rank
        extra = [c for c in state.up[seat] if c.rank == rank]
        if (
            extra
            and all(c.rank == rank for c in hand)
            and rank in state.allowed
            and (lowest is None or rank == lowest)
        ):
            base = tuple(sorted(hand))
            out.extend(Play(base + m) for m in _multisets(extra))
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


_EVERY_CARD: Final = (*standard_deck(), JOKER)

_SWAPS: Final = kit.tabulate(Swap, _EVERY_CARD, _EVERY_CARD)
"""Every swap, built once: a setup lists up to ``cards_per_area²`` of them per seat."""


def _setup_commands(state: State, seat: int) -> list[Command]:
    """Every swap of a hand card with a face-up card (each pair once: several decks may hold
    it twice), then ``Ready`` (docs/games/palace.md#swapping)."""
    if seat in state.ready:
        return []  # a repeated ready is accepted but changes nothing: not worth offering
    pairs = dict.fromkeys(product(state.hands[seat], state.up[seat]))
    return [*(_SWAPS[pair] for pair in pairs), READY]


def _out_of_turn_commands(state: State, seat: int) -> list[Command]:
    """A non-current seat's racing commands: completions
    (docs/games/palace.md#out-of-turn-completion) and add-drawn (its window)."""
    out: list[Command] = _completions(state, seat)
    window = state.window
    if window is not None and window[0] == seat and window[2]:
        hand = state.hands[seat]
        tail = [c for c in hand[len(hand) - window[2] :] if c.rank == window[1]]
        if tail:
            check = not state.setup.rules.finish_on_special  # else every subset is accepted
            for m in _multisets(tail):
                if check:
                    try:
                        _decide_add_drawn(state, seat, m)
                    except Rejected:
                        continue
                out.append(AddDrawn(m))
    return out


def _completions(state: State, seat: int) -> list[Command]:
    """The out-of-turn plays that complete a four of a kind
    (docs/games/palace.md#out-of-turn-completion), if any."""
    rules = state.setup.rules
    pile = state.pile
    if not (pile and _completion_played(rules)):
        return []
    rank = pile[-1].rank
    matching = [c for c in _source(state, seat) if c.rank == rank]
    if not matching:
        return []
    need = 4 - _top_run(pile)
    if need <= 0 or len(matching) < need:
        return []
    out: list[Command] = []
    check = not rules.finish_on_special  # only going out on a power card can fail
    for m in _multisets(matching):
        if len(m) == need:
            if check:
                try:
                    _decide_completion(state, seat, m)
                except Rejected:
                    continue
            out.append(Play(m))
    return out


def _best_play(state: State, seat: int) -> tuple[int, int] | None:
    """The play a sensible player makes: ``(rank, count)`` of the cheapest rank that fits, all of
    its cards (and face-up ones when combining); None if only failing plays exist."""
    rules = state.setup.rules
    hand = state.hands[seat]
    source = _source(state, seat)
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
            rest = [c.rank for c in source if c.rank != rank]
            if rest and all(_is_power(r, rules) for r in rest):
                cost = _COSTS[rules.three_invisible]
                power = min(rest, key=cost.__getitem__)
                return power, rest.count(power)
        return rank, count
    return None


@kit.seated
def is_sensible(state: State, seat: int, command: Command) -> bool:
    """Bots' hint. Swap only to put a dearer card face up; ready once; play the cheapest rank
    that fits, all of it; pick up only when no play fits; always complete fours and add drawn
    cards; never fail to go out on a power card when a pick-up is possible; never resign."""
    if isinstance(command, Play):
        if state.current != seat:
            return True  # an out-of-turn completion burns the pile and wins the lead
        best = state.best_play
        if best is None:  # only failing power plays fit: fine when nothing else is possible
            return not (state.pile and not state.follow_up)
        cards = command.cards
        return len(cards) == best[1] and bool(cards) and cards[0].rank == best[0]
    if isinstance(command, Swap):
        cost = _COSTS[state.setup.rules.three_invisible]
        return cost[command.hand_card.rank] > cost[command.up_card.rank]
    if isinstance(command, Pickup):
        best = state.best_play if seat == state.current else _best_play(state, seat)
        return best is None
    if isinstance(command, Ready):
        return seat not in state.ready
    return not isinstance(command, kit.Resign)  # legal, never wise: bots must not resign


# --------------------------------------------------------------------------- position check


_PHASES: Final = ("setup", "play")


def check_position(state: State, *, allow_over: bool = False) -> None:
    """Raise :class:`~cardcore.errors.InvalidPosition` naming the field at fault unless
    ``state`` is a position a Palace game could reach (docs/notation/palace.md lists every
    check), or one that is over when ``allow_over``. What the rules guarantee:

    * the zones are one tuple per seat of cards from the setup's decks, none more often than
      they hold it; the setup phase is the deal (``k`` cards in each area, nothing played);
    * resigned seats (docs/games/common.md#leaving-a-game) are in ``finished`` too, in its order,
      each once; they hold nothing and their cards are set aside: ``set_aside`` holds cards exactly
      when a seat resigned; in the setup phase only resigned seats are out;
    * in play, every seat called ready (or resigned before); a seat holds at most ``k``
      face-down and ``k`` face-up cards; a finished seat holds nothing and an unfinished one
      something; while the stock lasts nobody went out (a seat may have resigned) and no hand
      is empty (refilled after each play);
    * the pile is what legal plays build: every card fits on the cards below it, no 10 (it
      burns), no four of a rank on top with ``consecutive`` burning;
    * the turn: ``current`` is an unfinished seat (None once over); a follow-up is owed on a 2
      or an empty pile; the add-drawn window belongs to another unfinished seat whose rank is on
      top, with at most its hand's cards drawn; ``opening`` means nothing was played yet;
      ``revealed`` is a card in a hand, the pile, the burned or the set-aside cards."""
    setup = state.setup
    if not isinstance(setup, Setup) or not isinstance(setup.rules, Rules):
        raise InvalidPosition("setup", "must be a Setup of Palace rules")
    n = setup.seats
    info = GAME.info
    if type(n) is not int or not info.min_seats <= n <= info.max_seats:
        raise InvalidPosition(
            "setup", f"Palace takes {seats_phrase(info.min_seats, info.max_seats)}, got {n!r}"
        )
    rules = setup.rules
    k = rules.cards_per_area
    for name in ("hands", "up", "down"):
        rows = getattr(state, name)
        if type(rows) is not tuple or len(rows) != n:
            raise InvalidPosition(name, f"must be a tuple of one row of cards per seat ({n})")
        for q, row in enumerate(rows):
            if type(row) is not tuple:
                raise InvalidPosition(f"{name}[{q}]", "must be a tuple of cards")
    for name in ("stock", "pile", "burned", "set_aside"):
        if type(getattr(state, name)) is not tuple:
            raise InvalidPosition(name, "must be a tuple of cards")
    decks = deck(setup)
    ZONES.check_cards(state, decks)  # names the zone where a card first appears once too often
    phase: object = state.phase
    if type(phase) is not str or phase not in _PHASES:
        raise InvalidPosition("phase", f"must be setup or play, got {phase!r:.20}")
    for name in ("follow_up", "opening"):
        if type(getattr(state, name)) is not bool:
            raise InvalidPosition(name, f"must be a bool, got {getattr(state, name)!r:.20}")
    direction = state.direction
    if type(direction) is not int or direction not in (1, -1):
        raise InvalidPosition("direction", f"must be 1 or -1, got {direction!r:.20}")
    if direction == -1 and not rules.jokers:
        raise InvalidPosition("direction", "only jokers reverse the direction (rules.jokers is 0)")
    ready = state.ready
    if type(ready) is not frozenset:
        raise InvalidPosition("ready", "must be a frozenset of seats")
    for q in ready:
        nt.check_seat_field(q, n, "ready")
    finished = state.finished
    if type(finished) is not tuple:
        raise InvalidPosition("finished", "must be a tuple of seats")
    for q in finished:
        nt.check_seat_field(q, n, "finished")
    if len(set(finished)) != len(finished):
        raise InvalidPosition("finished", f"a seat went out twice: {finished}")
    _check_resigned(state, n)
    revealed: object = state.revealed
    if revealed is not None:
        if not isinstance(revealed, Card):
            raise InvalidPosition("revealed", f"must be a card or None, got {revealed!r:.20}")
        nt.check_cards((revealed,), decks, "revealed")
    if state.phase == "setup":
        _check_setup_phase(state, n, k, allow_over)
    else:
        _check_play_phase(state, n, k, allow_over)


def _check_resigned(state: State, n: int) -> None:
    """docs/games/common.md#leaving-a-game: a resigned seat is out (in ``finished``, in the same
    order), once; the set-aside cards are theirs: there are some exactly when a seat resigned (a
    seat in the game holds cards)."""
    resigned = state.resigned
    if type(resigned) is not tuple:
        raise InvalidPosition("resigned", "must be a tuple of seats")
    for q in resigned:
        nt.check_seat_field(q, n, "resigned")
    if len(set(resigned)) != len(resigned):
        raise InvalidPosition("resigned", f"a seat resigned twice: {resigned}")
    finished = state.finished
    if any(q not in finished for q in resigned):
        raise InvalidPosition("resigned", "a resigned seat is out: it is in finished too")
    if tuple(q for q in finished if q in resigned) != resigned:
        raise InvalidPosition("resigned", "the seats resigned in the order finished lists them")
    if bool(state.set_aside) != bool(resigned):
        raise InvalidPosition(
            "set_aside",
            "the cards of resigned seats are set aside"
            if resigned
            else "only a resignation sets cards aside",
        )


def _check_setup_phase(state: State, n: int, k: int, allow_over: bool) -> None:
    """The deal, before the first play: swaps keep every area at ``k`` cards
    (docs/games/palace.md#swapping); a seat that resigned (docs/games/common.md#leaving-a-game)
    holds nothing, and nobody waits for it to be ready."""
    resigned = state.resigned
    if state.finished != resigned:
        raise InvalidPosition("finished", "in the setup phase only resigned seats are out")
    over = len(resigned) >= n - 1
    if over and not allow_over:
        raise InvalidPosition("finished", "the game is already over (one seat is left in it)")
    for name, value, blank in (
        ("current", state.current, None),
        ("follow_up", state.follow_up, False),
        ("direction", state.direction, 1),
        ("window", state.window, None),
        ("opening", state.opening, False),
        ("revealed", state.revealed, None),
        ("pile", state.pile, ()),
        ("burned", state.burned, ()),
    ):
        if value != blank:
            raise InvalidPosition(name, f"must be {blank!r} in the setup phase")
    for name in ("hands", "up", "down"):
        for q, row in enumerate(getattr(state, name)):
            if q in resigned:
                if row:
                    raise InvalidPosition(f"{name}[{q}]", f"seat {q} resigned: it holds no cards")
            elif len(row) != k:
                raise InvalidPosition(
                    f"{name}[{q}]", f"the deal gives {k} cards (cards_per_area), got {len(row)}"
                )
    if not over and len(state.ready.union(resigned)) == n:
        raise InvalidPosition("ready", "every seat is ready: the play phase has begun")


def _check_play_phase(state: State, n: int, k: int, allow_over: bool) -> None:
    rules = state.setup.rules
    finished = state.finished
    resigned = state.resigned
    if len(state.ready.union(resigned)) != n:
        raise InvalidPosition(
            "ready", "in the play phase every seat has called ready (or resigned in the setup)"
        )
    over = len(finished) >= n - 1
    if len(finished) >= n:
        raise InvalidPosition("finished", "the game ends when one seat is left in it")
    current = state.current
    if over:
        if not allow_over:
            raise InvalidPosition(
                "finished", "the game is already over (one seat is left holding cards)"
            )
        if current is not None or state.follow_up or state.window is not None:
            field = (
                "current" if current is not None else "follow_up" if state.follow_up else "window"
            )
            raise InvalidPosition(field, "nobody is to play once the game is over")
    else:
        nt.check_seat_field(current, n, "current")
        if current in finished:
            raise InvalidPosition("current", f"seat {current} has gone out")
    stock = state.stock
    went_out = [q for q in finished if q not in resigned] if resigned else finished
    if stock and went_out:
        raise InvalidPosition("stock", "a seat went out, so the stock is exhausted")
    for q in range(n):
        hand, up, down = state.hands[q], state.up[q], state.down[q]
        if q in finished:
            gone = "resigned" if q in resigned else "has gone out"
            for name, row in (("hands", hand), ("up", up), ("down", down)):
                if row:
                    raise InvalidPosition(f"{name}[{q}]", f"seat {q} {gone}: it holds no cards")
            continue
        if not (hand or up or down):
            raise InvalidPosition(f"hands[{q}]", f"seat {q} holds no card but has not gone out")
        if len(up) > k:
            raise InvalidPosition(
                f"up[{q}]", f"at most {k} face-up cards (cards_per_area), got {len(up)}"
            )
        if len(down) > k:
            raise InvalidPosition(
                f"down[{q}]", f"at most {k} face-down cards (cards_per_area), got {len(down)}"
            )
        if stock and not hand:
            # A hand is refilled after every play while the stock lasts, so it is never empty
            # then. (It holds k cards at least, too; that is not checked, so that a test may
            # hand-write a short hand beside a stock.)
            raise InvalidPosition(
                f"hands[{q}]", "a hand is refilled after every play while the stock lasts"
            )
    _check_pile(state.pile, rules)
    if state.follow_up and state.pile and not (state.pile[-1].rank == 2 and rules.two_follow_up):
        raise InvalidPosition(
            "follow_up", "a follow-up is owed on a 2 or after a burn (an empty pile)"
        )
    window = state.window
    if window is not None:
        _check_window(state, window, n, k)
    if state.opening and (state.pile or state.burned or went_out or state.follow_up):
        raise InvalidPosition("opening", "cards have been played already")
    revealed = state.revealed
    if revealed is not None and not any(
        revealed in zone for zone in (*state.hands, state.pile, state.burned, state.set_aside)
    ):
        raise InvalidPosition(
            "revealed",
            f"{revealed} was turned up: it is in a hand, the pile, burned or set aside",
        )


def _check_pile(pile: tuple[Card, ...], rules: Rules) -> None:
    """The pile is built by legal plays only: each card fits on those below it
    (docs/games/palace.md#legal-plays), a 10 never stays (it burns), nor four of a rank on top with
    ``consecutive`` burning."""
    run, last = 0, None
    for i, c in enumerate(pile):
        if c.rank == 10:
            raise InvalidPosition("pile", f"a 10 burns the pile: it never stays on it ({c} at {i})")
        if c.rank not in _allowed(pile[:i], rules):
            raise InvalidPosition(
                "pile", f"{c} (at {i}) does not go on {_top_text(pile[:i], rules)}"
            )
        run = run + 1 if c.rank == last else 1
        last = c.rank
        if run >= 4 and rules.four_of_a_kind_burn == "consecutive":
            raise InvalidPosition("pile", f"four {rank_name(c.rank)}s on top burn the pile")


def _check_window(state: State, window: object, n: int, k: int) -> None:
    if type(window) is not tuple or len(window) != 3 or any(type(x) is not int for x in window):
        raise InvalidPosition("window", f"must be None or (seat, rank, drawn), got {window!r:.40}")
    seat, rank, drawn = window
    nt.check_seat_field(seat, n, "window")
    if not state.setup.rules.add_drawn_same_rank:
        raise InvalidPosition(
            "window", "no add-drawn window opens (rules.add_drawn_same_rank is off)"
        )
    if seat == state.current or seat in state.finished or state.follow_up:
        raise InvalidPosition(
            "window", "the window is another unfinished seat's, after its turn passed"
        )
    if not 0 <= rank <= 13:
        raise InvalidPosition("window", f"no rank {rank}")
    if state.pile and state.pile[-1].rank != rank:
        raise InvalidPosition(
            "window", f"the rank just played ({rank_name(rank)}) is on top of the pile"
        )
    if not 0 <= drawn <= min(k, len(state.hands[seat])):
        raise InvalidPosition("window", f"{drawn} cards drawn: at most {k} and the hand's cards")


# --------------------------------------------------------------------------- notation


NOTATION_FIELDS: Final = State._fields[1:]
"""The fields of Palace's notation, in order (docs/notation/palace.md): State's own. The last two
are written only once a seat has resigned (docs/games/common.md#leaving-a-game), so that every text
of rules version 1 (a log header's position) still reads, and formats, as it did."""

_RESIGN_FIELDS: Final = 2
"""How many of ``NOTATION_FIELDS``, at the end, are written only once a seat has resigned."""

_RANK_TEXTS: Final = ("JK", *RANKS)
"""A rank index's text (0 = joker, 1 = A … 13 = K), as in a card's text."""

_DIRECTIONS: Final = ("cw", "ccw")


@kit.viewed
def format_position(state: State, viewer: Viewer) -> str:
    """The position in Palace's notation (docs/notation/palace.md); what ``viewer`` may not see
    (``view`` hides it: others' hands, every face-down card, the stock) is ``??``."""
    referee = viewer == Role.REFEREE

    def row(cards: Sequence[Card], visible: bool) -> str:
        return nt.cards_text(cards if visible else (HIDDEN,) * len(cards))

    window = state.window
    fields: tuple[str, ...] = (
        state.phase,
        nt.per_seat_text(enumerate(state.hands), lambda qh: row(qh[1], referee or viewer == qh[0])),
        nt.per_seat_text(state.up, nt.cards_text),
        nt.per_seat_text(state.down, lambda d: row(d, referee)),
        row(state.stock, referee),
        nt.cards_text(state.pile),
        nt.cards_text(state.burned),
        nt.int_text(state.current),
        "1" if state.follow_up else "0",
        _DIRECTIONS[state.direction == -1],
        nt.seats_text(state.ready),
        ",".join(str(q) for q in state.finished) or nt.EMPTY,
        nt.EMPTY if window is None else f"{window[0]},{_RANK_TEXTS[window[1]]},{window[2]}",
        "1" if state.opening else "0",
        nt.EMPTY if state.revealed is None else str(state.revealed),
    )
    if state.resigned:
        fields += (row(state.set_aside, referee), ",".join(str(q) for q in state.resigned))
    return nt.join(GAME.info.name, fields, state.setup.rules)


def parse_position(text: str, rules: Rules | None = None) -> State:
    """The position a referee's notation text describes (docs/notation/palace.md), under
    ``rules`` (default rules when None), checked by :func:`check_position` (a game that is over
    parses too: a log may start from any position it records). Raises
    :class:`~cardcore.errors.InvalidPosition` naming the field at fault. The rules are the
    text's own when it carries them (they must then be ``rules``, if given)."""
    text, position_rules = nt.read_rules(text, GAME.info.name, Rules, rules)
    names: tuple[str, ...] = NOTATION_FIELDS
    if isinstance(text, str) and text.strip().count(" ") < len(names):  # no resign fields
        names = names[:-_RESIGN_FIELDS]
    (
        phase,
        hands_t,
        up_t,
        down_t,
        stock_t,
        pile_t,
        burned_t,
        current_t,
        follow_t,
        direction_t,
        ready_t,
        finished_t,
        window_t,
        opening_t,
        revealed_t,
        *resign_t,
    ) = nt.split(text, GAME.info.name, names)
    nt.parse_choice(phase, "phase", _PHASES)
    hands = nt.parse_per_seat(hands_t, "hands", nt.parse_cards)
    n = len(hands)
    info = GAME.info
    if not info.min_seats <= n <= info.max_seats:
        raise InvalidPosition(
            "hands", f"Palace takes {seats_phrase(info.min_seats, info.max_seats)}, got {n}"
        )
    up = nt.parse_per_seat(up_t, "up", nt.parse_cards)
    down = nt.parse_per_seat(down_t, "down", nt.parse_cards)
    for name, rows in (("up", up), ("down", down)):
        if len(rows) != n:
            raise InvalidPosition(name, f"one row per seat: {n} in hands, {len(rows)} here")
    finished = (
        ()
        if finished_t == nt.EMPTY
        else tuple(nt.parse_int(t, "finished", hi=n - 1) for t in finished_t.split(","))
    )
    set_aside: tuple[Card, ...] = ()
    resigned: tuple[int, ...] = ()
    if resign_t:
        set_aside_t, resigned_t = resign_t
        if resigned_t == nt.EMPTY:  # one text per position: without a resignation, 15 fields
            raise InvalidPosition(
                "resigned", "the last two fields are written once a seat resigned"
            )
        set_aside = nt.parse_cards(set_aside_t, "set_aside")
        resigned = tuple(nt.parse_int(t, "resigned", hi=n - 1) for t in resigned_t.split(","))
    window: tuple[int, int, int] | None = None
    if window_t != nt.EMPTY:
        parts = window_t.split(",")
        if len(parts) != 3:
            raise InvalidPosition("window", f"must be - or seat,rank,drawn; got {window_t[:20]!r}")
        rank = _RANK_TEXTS.index(nt.parse_choice(parts[1], "window", _RANK_TEXTS))
        window = (
            nt.parse_int(parts[0], "window", hi=n - 1),
            rank,
            nt.parse_int(parts[2], "window"),
        )
    state = State(
        setup=Setup(n, 0, position_rules),
        phase="play" if phase == "play" else "setup",
        hands=hands,
        up=up,
        down=down,
        stock=nt.parse_cards(stock_t, "stock"),
        pile=nt.parse_cards(pile_t, "pile"),
        burned=nt.parse_cards(burned_t, "burned"),
        current=nt.parse_opt_int(current_t, "current", hi=n - 1),
        follow_up=nt.parse_int(follow_t, "follow_up", hi=1) == 1,
        direction=-1 if nt.parse_choice(direction_t, "direction", _DIRECTIONS) == "ccw" else 1,
        ready=nt.parse_seats(ready_t, "ready", n),
        finished=finished,
        window=window,
        opening=nt.parse_int(opening_t, "opening", hi=1) == 1,
        revealed=None if revealed_t == nt.EMPTY else nt.parse_card(revealed_t, "revealed"),
        set_aside=set_aside,
        resigned=resigned,
    )
    check_position(state, allow_over=True)
    return state


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
        case PlayerResigned(seat, cards, by):
            who = f"seat {seat} resigned" if by is None else f"seat {seat} forfeited ({by})"
            leave = "card leaves" if cards == 1 else "cards leave"
            return f"{who}; its {cards} {leave} the game face down"
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


def to_act(state: State) -> tuple[int, ...]:
    """The seats the game is waiting for (a host's turn timer runs for them): in the setup
    phase every seat still in that has not called ready, in play the player to move. A seat
    that may complete four of a kind or add drawn cards is not waited for: those are options."""
    if state.phase == "setup":
        out = set(state.finished)
        return tuple(s for s in range(state.setup.seats) if s not in state.ready and s not in out)
    return () if state.current is None else (state.current,)


GAME: Final[Game[State, Command, Event, View, Rules]] = Game(
    info=GameInfo(
        name="palace",
        title="Palace (Shithead)",
        rules_version=RULES_VERSION,
        replays_versions=("1",),  # version 2 only added Resign: every older action decides alike
        min_seats=2,
        max_seats=8,
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
    outcome=outcome,
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
