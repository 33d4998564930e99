"""What a Palace seat may do now (``legal_commands``) and which of it a sensible player does
(``is_sensible``, the bots' hint), with the commands they list built once (kit.tabulate).
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import permutations, product
from math import prod
from typing import Final

from ... import kit
from ...cards import JOKER, Card, standard_deck
from ...errors import Rejected
from .decide import _decide_add_drawn, _decide_completion, _has_plain_play
from .declarations import (
    PICKUP,
    READY,
    AddDrawn,
    Command,
    Pickup,
    Play,
    PlayFaceDown,
    Ready,
    Swap,
)
from .rules import (
    Setting,
    State,
    _best_play,
    _bound_rank,
    _completion_played,
    _source,
    _top_run,
)

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


def _plays(cards: list[Card], rules: Setting) -> tuple[Play, ...]:
    """``_plays_of(cards)``, from its table unless a card is there twice (several decks)."""
    key = tuple(cards)
    if rules.each_card_once:  # one deck's cards of one rank, in some order: in the table
        return _PLAYS[key]
    # ``in`` and ``[]``, not ``get``: a read-only table answers those two in C, where its ``get``
    # is a method call passed on to the dict's own ``get``.
    return _PLAYS[key] if key in _PLAYS else _plays_of(cards)


@kit.hot  # the seat check written in (the pure build): kit.seat_of
def legal_commands(state: State, seat: object) -> list[Command]:
    """Every command ``seat`` may make now. Plays list each distinct multiset of one rank from
    the active source, cheapest rank first, smaller sets first."""
    p = kit.seat_of(state._setting.seats, seat)
    current = state.current
    if current == p:  # the commonest question; a seat to play is in play and in the game
        return _turn_commands(state, p)
    finished = state.finished
    if p in finished or len(finished) >= len(state.hands) - 1:
        return []
    if state.phase == "setup":
        return _setup_commands(state, p)
    if current is None:
        return []
    return _out_of_turn_commands(state, p)


def _turn_commands(state: State, seat: int) -> list[Command]:
    """The current player's commands: its plays (docs/games/palace.md#legal-plays), and the
    pick-up when it may (docs/games/palace.md#picking-up)."""
    rules = state._setting
    hand = state.hands[seat]
    source = _source(state, seat)
    if not source:
        down = len(state.down[seat])
        if down <= len(rules.blind_plays):  # as dealt: at most cards_per_area
            return list(rules.blind_plays[:down])
        return [PlayFaceDown(i) for i in range(down)]  # a position built by hand, unchecked
    pile = state.pile
    out: list[Command] = []
    fitting = state.playable
    for _, cards in fitting:
        out.extend(_plays(cards, rules))
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
    hand, up = state.hands[seat], state.up[seat]
    if not state._setting.each_card_once:
        # Each card once (dict.fromkeys keeps the first of each, in order), so each pair once,
        # in the order of the pairs of hand and face-up cards.
        hand, up = tuple(dict.fromkeys(hand)), tuple(dict.fromkeys(up))
    out: list[Command] = [_SWAPS[h, u] for h in hand for u in up]
    out.append(READY)
    return out


def _out_of_turn_commands(state: State, seat: int) -> list[Command]:
    """A non-current seat's racing commands: completions
    (docs/games/palace.md#out-of-turn-completion) and add-drawn (its window)."""
    out: list[Command] = _completions(state, seat)
    window = state.window
    if window is not None and window[0] == seat and window[2]:
        hand = state.hands[seat]
        tail = [c for c in hand[len(hand) - window[2] :] if c.rank == window[1]]
        if tail:
            rules = state._setting
            check = not rules.finish_on_special  # else every subset is accepted
            # The plays of these cards are built once (_plays): one add of each play's cards.
            for play in _plays(tail, rules):
                m = play.cards
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
    pile = state.pile
    if not pile:
        return []
    rank = pile[-1].rank
    source = _source(state, seat)
    held = 0  # counted before anything is built: most seats hold none (asked first)
    for c in source:
        if c.rank == rank:
            held += 1
    rules = state._setting
    if not (held and _completion_played(rules)):
        return []
    need = 4 - _top_run(pile)
    if need <= 0 or held < need:
        return []
    matching = [c for c in source if c.rank == rank]
    out: list[Command] = []
    check = not rules.finish_on_special  # only going out on a power card can fail
    for play in _plays(matching, rules):  # every play of these cards, built once: those of ``need``
        if len(play.cards) == need:
            if check:
                try:
                    _decide_completion(state, seat, play.cards)
                except Rejected:
                    continue
            out.append(play)
    return out


@kit.hot  # the seat check written in (the pure build): kit.seat_of
def is_sensible(state: State, seat: object, command: Command) -> bool:
    """Bots' hint. Swap only to put a dearer card face up; ready once; play the cheapest rank
    that fits, all of it; pick up only when no play fits; always complete fours and add drawn
    cards; never fail to go out on a power card when a pick-up is possible; never resign."""
    p = kit.seat_of(state._setting.seats, seat)
    if isinstance(command, Play):
        if state.current != p:
            return True  # an out-of-turn completion burns the pile and wins the lead
        best = state.best_play
        if best is None:  # only failing power plays fit: fine when nothing else is possible
            return not (state.pile and not state.follow_up)
        cards = command.cards
        # best[1] is at least 1: a play of that many cards is not empty.
        return len(cards) == best[1] and cards[0].rank == best[0]
    if isinstance(command, Swap):
        cost = state._setting.costs
        return cost[command.hand_card.rank] > cost[command.up_card.rank]
    if isinstance(command, Pickup):
        best = state.best_play if p == state.current else _best_play(state, p)
        return best is None
    if isinstance(command, Ready):
        return p not in state.ready
    return not isinstance(command, kit.Resign)  # legal, never wise: bots must not resign
