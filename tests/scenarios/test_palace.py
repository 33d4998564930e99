"""Palace (Shithead), one given/when/then test per clause of docs/games/palace.md (exact cards).

Stocks are written top first, the pile bottom→top (docs/games/common.md#piles). Hands are written
in the order received. ``pos`` builds a play-phase position; seats without face-up / face-down cards
listed have none (so that a hand or a table card finishing matters only where a test says so).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import partial
from typing import Any

import pytest

from cardcore import Match, Outcome, RejectCode, Termination, codec, kit
from cardcore.cards import HIDDEN, JOKER, Card, parse_cards
from cardcore.engine import Role
from cardcore.errors import InvalidSetup
from cardcore.games import palace as pal
from cardcore.games.palace import (
    PICKUP,
    READY,
    AddDrawn,
    CardsAdded,
    CardsDrawn,
    CardsPlayed,
    Dealt,
    DirectionReversed,
    FaceDownTurned,
    PileBurned,
    PileTaken,
    Play,
    PlayerResigned,
    PlayerWentOut,
    PlayFaceDown,
    PlayStarted,
    Readied,
    State,
    Swap,
    Swapped,
    TurnPassed,
    position,
)
from cardcore.registry import get_game
from cardcore.rng import Rng, shuffled

from . import given

C = parse_cards


def card(text: str) -> Card:
    return Card.parse(text)


rules = partial(given.rules, pal.GAME)


def cards(zone: str | Sequence[str]) -> tuple[Card, ...]:
    """``"5C 9D"`` or ``["5C", "9D"]``."""
    return C(zone) if isinstance(zone, str) else tuple(card(t) for t in zone)


def pos(
    hands: Sequence[str],
    up: Sequence[str | Sequence[str]] | None = None,
    down: Sequence[str | Sequence[str]] | None = None,
    *,
    stock: str = "",
    pile: str = "",
    burned: str = "",
    **kw: Any,
) -> State:
    """The position; each seat whose row is the shared ``UP`` / ``DOWN`` gets three plain cards
    of its own, from ``_TABLE_POOL`` and not named elsewhere (a position holds each card of a
    deck once: ``position`` checks it)."""
    n = len(hands)
    ups = list(up) if up is not None else [()] * n
    downs = list(down) if down is not None else [()] * n
    named = [C(h) for h in hands] + [C(stock), C(pile), C(burned)]
    named += [cards(r) for r in (*ups, *downs) if r is not UP and r is not DOWN]
    used = {c for zone in named for c in zone}
    pool = [c for c in _TABLE_POOL if c not in used]
    take = iter(pool)

    def row(r: str | Sequence[str]) -> tuple[Card, ...]:
        if r is UP or r is DOWN:
            return tuple(next(take) for _ in range(3))
        return cards(r)

    return position(
        [C(h) for h in hands],
        [row(u) for u in ups],
        [row(d) for d in downs],
        stock=C(stock),
        pile=C(pile),
        burned=C(burned),
        **kw,
    )


apply = partial(given.apply, pal.GAME)
rejected = partial(given.rejected, pal.GAME)


def play(text: str) -> Play:
    return Play(C(text))


def add(text: str) -> AddDrawn:
    return AddDrawn(C(text))


# The table most tests start from: nobody is near the end (everybody keeps table cards).
UP = ["KD", "KH", "KS"]
DOWN = ["QD", "QH", "QS"]
_TABLE_POOL = C(
    "KD KH KS KC QD QH QS QC JD JH JS JC AD AH AS AC 9D 9H 9S 9C 8D 8H 8S 8C 7D 7H 7S 7C"
)
"""Plain high cards for the shared ``UP`` / ``DOWN`` rows, one set per seat (see ``pos``)."""


# --------------------------------------------------------------------------- deal


@pytest.mark.parametrize(("seats", "stock"), [(2, 34), (3, 25), (4, 16), (5, 7)])
def test_deal_three_down_three_up_three_in_hand_rest_is_stock(seats: int, stock: int) -> None:
    """docs/games/palace.md#setup"""
    match = Match(pal.GAME, pal.GAME.make_setup(seats, 7))
    s = match.state
    assert s.phase == "setup" and s.current is None
    assert [len(x) for x in s.down] == [3] * seats
    assert [len(x) for x in s.up] == [3] * seats
    assert [len(x) for x in s.hands] == [3] * seats
    assert len(s.stock) == stock


def test_deal_order_rounds_down_then_up_then_hand() -> None:
    """docs/games/palace.md#setup"""
    setup = pal.GAME.make_setup(4, 99)
    d = shuffled(99, 0, pal.deck(setup))
    s = Match(pal.GAME, setup).state
    assert s.down[0] == (d[0], d[4], d[8])
    assert s.up[0] == (d[12], d[16], d[20])
    assert s.hands[0] == (d[24], d[28], d[32])
    assert s.down[3] == (d[3], d[7], d[11])
    assert s.stock == tuple(d[36:])


def test_cards_per_area_deals_and_draws_that_many() -> None:
    """docs/games/palace.md#variant-flags"""
    setup = pal.GAME.make_setup(2, 5, {"cards_per_area": 6})
    s = Match(pal.GAME, setup).state
    assert [len(x) for x in (*s.down, *s.up, *s.hands)] == [6] * 6
    assert len(s.stock) == 52 - 36
    t = pos(["4S 5S 6S 7S 8S 9S", "3C"], [UP, UP], stock="2C 2D 2H", rules=setup.rules)
    events, after = apply(t, 0, play("4S"))
    assert CardsDrawn(0, C("2C")) in events and len(after.hands[0]) == 6


def test_cards_per_area_is_any_k_whose_deal_fits_the_decks() -> None:
    """docs/games/palace.md#variant-flags"""
    # 3 seats x 3 areas x 10 cards = 90 of two decks' 104; one deck's 52 are too few.
    s = Match(pal.GAME, pal.GAME.make_setup(3, 2, {"cards_per_area": 10, "num_decks": 2})).state
    assert [len(x) for x in (*s.down, *s.up, *s.hands)] == [10] * 9 and len(s.stock) == 14
    with pytest.raises(InvalidSetup) as info:
        pal.GAME.make_setup(3, 2, {"cards_per_area": 10})
    assert info.value.field == "rules.cards_per_area"
    assert pal.GAME.make_setup(2, 2, {"cards_per_area": 8}).rules.cards_per_area == 8


def test_num_decks_and_jokers_make_the_deck() -> None:
    """docs/games/palace.md#variant-flags"""
    deck = pal.deck(pal.GAME.make_setup(6, 1, {"num_decks": 2, "jokers": 2}))
    assert len(deck) == 108 and Counter(deck)[JOKER] == 4 and Counter(deck)[card("QS")] == 2


def test_one_deck_seats_two_to_five_more_need_more_decks() -> None:
    """docs/games/palace.md#setup"""
    with pytest.raises(InvalidSetup) as info:
        pal.GAME.make_setup(6, 3)  # 54 cards wanted, 52 in the deck
    assert info.value.field == "rules.cards_per_area"
    s = Match(pal.GAME, pal.GAME.make_setup(6, 3, {"num_decks": 2})).state
    assert [len(x) for x in s.hands] == [3] * 6 and len(s.stock) == 104 - 54
    assert pal.GAME.make_setup(6, 3, {"cards_per_area": 2}).seats == 6


# --------------------------------------------------------------------------- setup phase


def setup_state(**kw: Any) -> State:
    return pos(
        ["4C 9D AS", "5C 6C 7C"], [["3H", "KH", "2S"], ["8C", "9C", "JC"]], [DOWN, DOWN], **kw
    )


def test_swap_exchanges_a_hand_card_with_a_face_up_card_in_place() -> None:
    """docs/games/palace.md#swapping"""
    s = setup_state(phase="setup")
    events, after = apply(s, 0, Swap(card("AS"), card("3H")))
    assert events == [Swapped(0, card("AS"), card("3H"))]
    assert after.hands[0] == C("4C 9D 3H") and after.up[0] == C("AS KH 2S")
    _, again = apply(after, 0, Swap(card("4C"), card("AS")))  # any number of times
    assert again.hands[0] == C("AS 9D 3H") and again.up[0] == C("4C KH 2S")


def test_swap_with_a_card_not_in_hand_or_not_face_up_is_card_not_available() -> None:
    """docs/games/palace.md#swapping"""
    s = setup_state(phase="setup")
    assert rejected(s, 0, Swap(card("KH"), card("3H"))) is RejectCode.CARD_NOT_AVAILABLE
    assert rejected(s, 0, Swap(card("AS"), card("8C"))) is RejectCode.CARD_NOT_AVAILABLE


def test_after_ready_swap_is_invalid_phase_and_ready_again_changes_nothing() -> None:
    """docs/games/palace.md#swapping"""
    s = setup_state(phase="setup")
    events, after = apply(s, 0, READY)
    assert events == [Readied(0)] and after.ready == {0} and after.phase == "setup"
    assert rejected(after, 0, Swap(card("AS"), card("3H"))) is RejectCode.INVALID_PHASE
    events, again = apply(after, 0, READY)
    assert events == [Readied(0)] and again == after
    assert pal.legal_commands(after, 0) == []


def test_play_actions_during_setup_are_invalid_phase() -> None:
    """docs/games/common.md#actions-per-phase"""
    s = setup_state(phase="setup")
    for cmd in (play("4C"), PlayFaceDown(0), PICKUP, add("4C")):
        assert rejected(s, 0, cmd) is RejectCode.INVALID_PHASE


def test_when_all_are_ready_the_starter_is_determined_and_play_begins() -> None:
    """docs/games/palace.md#swapping, docs/games/palace.md#starter"""
    s = setup_state(phase="setup", ready=[0])
    events, after = apply(s, 1, READY)
    assert events == [Readied(1), PlayStarted(0)]  # 4♣ is the lowest hand card
    assert after.phase == "play" and after.current == 0 and not after.follow_up


def test_swap_and_ready_after_the_setup_are_invalid_phase() -> None:
    """docs/games/common.md#actions-per-phase"""
    s = setup_state()
    assert rejected(s, 0, Swap(card("AS"), card("3H"))) is RejectCode.INVALID_PHASE
    assert rejected(s, 0, READY) is RejectCode.INVALID_PHASE


# --------------------------------------------------------------------------- starter


_POWER = C("2S 2H 2D 2C 10S 10H 10D 10C")


def start(hands: Sequence[str], up: Sequence[Sequence[str]] | None = None, **flags: Any) -> int:
    """The starter once the last seat is ready. The deal gives every area ``k`` cards, so ``k``
    is the longest row given, short rows are filled with 2s and 10s (they never decide the
    starter) and the rest (the face-down cards; face-up ones when not given) with high cards."""
    n = len(hands)
    hand_rows = [list(C(h)) for h in hands]
    up_rows = [list(cards(u)) for u in up] if up is not None else [[] for _ in hands]
    k = max(len(r) for r in (*hand_rows, *up_rows))
    used = {c for r in (*hand_rows, *up_rows) for c in r}
    power = iter([c for c in _POWER if c not in used])
    high = iter([c for c in _TABLE_POOL if c not in used])
    fill = power if up is not None else high
    for r in hand_rows:
        r += [next(power) for _ in range(k - len(r))]
    for r in up_rows:
        r += [next(fill) for _ in range(k - len(r))]
    s = position(
        hand_rows,
        up_rows,
        [[next(high) for _ in range(k)] for _ in hands],
        phase="setup",
        ready=range(n - 1),
        rules=rules(cards_per_area=k, **flags),
    )
    events, _ = apply(s, n - 1, READY)
    started = events[-1]
    assert isinstance(started, PlayStarted)
    return started.starter


def test_starter_holds_the_lowest_card_in_hand_after_swapping() -> None:
    """docs/games/palace.md#starter, docs/games/palace.md#decisions"""
    assert start(["5C 9D", "4H KS", "6S 7S"]) == 1
    # the swap counts: seat 0 takes the face-up 3 into its hand
    s = pos(["5C 9D", "4H KS"], [["3D", "2C"], ["AC", "2D"]], [["QC", "QD"], ["QH", "QS"]],
            phase="setup", ready=[1], rules=rules(cards_per_area=2))  # fmt: skip
    _, s = apply(s, 0, Swap(card("9D"), card("3D")))
    events, _ = apply(s, 0, READY)
    assert events[-1] == PlayStarted(0)


def test_starter_tie_goes_to_the_lowest_seat() -> None:
    """docs/games/palace.md#starter, docs/games/palace.md#decisions"""
    assert start(["9D", "4H", "4S"]) == 1


def test_starter_ignores_twos_and_tens() -> None:
    """docs/games/palace.md#starter"""
    assert start(["2C 10D", "5H", "9S"]) == 1
    assert start(["2C", "10H", "JK"], jokers=1) == 0  # nobody has a plain card: P0


def test_starter_rule_first_face_up_three() -> None:
    """docs/games/palace.md#variant-flags"""
    # a face-up 3 beats a 3 in an earlier seat's hand; then hands; then 4s, …
    assert (
        start(["3C", "9H", "8S"], [["KC"], ["3H"], ["QS"]], starter_rule="first_face_up_three") == 1
    )
    assert (
        start(["9C", "3H", "3S"], [["KC"], ["AH"], ["QS"]], starter_rule="first_face_up_three") == 1
    )
    assert (
        start(["9C", "8H", "7S"], [["KC"], ["4H"], ["QS"]], starter_rule="first_face_up_three") == 1
    )


def test_starter_rule_left_of_dealer() -> None:
    """docs/games/palace.md#variant-flags"""
    assert start(["9C", "3H"], starter_rule="left_of_dealer") == 0


def test_starter_may_lead_any_card() -> None:
    """docs/games/palace.md#starter"""
    s = pos(["4C 9D AS", "5C"], [UP, UP], stock="7C 7D", opening=True)
    events, _ = apply(s, 0, play("AS"))
    assert events[0] == CardsPlayed(0, C("AS"), ())


def test_starter_must_play_lowest() -> None:
    """docs/games/palace.md#starter, docs/games/palace.md#variant-flags"""
    r = rules(starter_must_play_lowest=True)
    s = pos(["4C 9D 2S", "5C"], [UP, UP], stock="7C 7D", opening=True, rules=r)
    assert rejected(s, 0, play("9D")) is RejectCode.ILLEGAL_CARD
    assert rejected(s, 0, play("2S")) is RejectCode.ILLEGAL_CARD
    assert pal.legal_commands(s, 0) == [play("4C")]
    _, after = apply(s, 0, play("4C"))
    assert not after.opening  # only the first play is bound


# --------------------------------------------------------------------------- legality


def test_a_play_must_equal_or_beat_the_top_card() -> None:
    """docs/games/palace.md#legal-plays"""
    s = pos(["8C 8D 7S 9H", "5C"], [UP, UP], pile="8S")
    assert apply(s, 0, play("8C"))[0][0] == CardsPlayed(0, C("8C"), ())
    assert apply(s, 0, play("9H"))[0][0] == CardsPlayed(0, C("9H"), ())
    assert rejected(s, 0, play("7S")) is RejectCode.ILLEGAL_CARD


def test_rank_order_puts_ace_highest() -> None:
    """docs/games/palace.md#rank-order"""
    s = pos(["KC AD", "5C"], [UP, UP], pile="AS")
    assert rejected(s, 0, play("KC")) is RejectCode.ILLEGAL_CARD
    apply(s, 0, play("AD"))
    t = pos(["KC AD JH", "5C"], [UP, UP], pile="QS")
    assert rejected(t, 0, play("JH")) is RejectCode.ILLEGAL_CARD
    apply(t, 0, play("AD"))


def test_two_and_ten_go_on_anything_and_anything_goes_on_a_two() -> None:
    """docs/games/palace.md#rank-order, docs/games/palace.md#legal-plays"""
    s = pos(["2C 10D 3H", "5C"], [UP, UP], pile="AS")
    apply(s, 0, play("2C"))
    apply(s, 0, play("10D"))
    t = pos(["3H", "5C"], [UP, UP], pile="AS 2C")
    apply(t, 0, play("3H"))


def test_anything_may_lead_an_empty_pile() -> None:
    """docs/games/palace.md#legal-plays"""
    s = pos(["3H", "5C"], [UP, UP])
    apply(s, 0, play("3H"))


def test_several_cards_of_one_rank_in_one_play() -> None:
    """docs/games/palace.md#legal-plays, docs/games/palace.md#decisions"""
    s = pos(["7C 7D 7H 9S", "5C"], [UP, UP], stock="4C 4D 4H", pile="5S")
    events, after = apply(s, 0, play("7C 7H"))
    assert events[:2] == [CardsPlayed(0, C("7C 7H"), ()), CardsDrawn(0, C("4C"))]
    assert after.pile == C("5S 7C 7H") and after.hands[0] == C("7D 9S 4C")


def test_mixed_ranks_rejected() -> None:
    """docs/games/palace.md#legal-plays"""
    s = pos(["7C 8D", "5C"], [UP, UP])
    assert rejected(s, 0, play("7C 8D")) is RejectCode.MIXED_RANKS


def test_cards_not_in_the_active_source_are_not_available() -> None:
    """docs/games/palace.md#active-source, docs/games/palace.md#a-turn"""
    s = pos(["7C", "5C"], [["KD"], UP], [["QD"], DOWN])
    assert rejected(s, 0, play("9C")) is RejectCode.CARD_NOT_AVAILABLE
    assert rejected(s, 0, play("KD")) is RejectCode.CARD_NOT_AVAILABLE  # face-up: hand first
    assert rejected(s, 0, Play(())) is RejectCode.CARD_NOT_AVAILABLE
    t = pos(["", "5C"], [[], UP], [["QD"], DOWN])
    assert rejected(t, 0, play("QD")) is RejectCode.CARD_NOT_AVAILABLE  # face-down: blind only


def test_palace_play_checks_card_not_available_then_mixed_ranks_then_illegal_card() -> None:
    """docs/games/common.md#order-of-checks"""
    s = pos(["3C 4D", "5C"], [UP, UP], pile="AS")
    assert rejected(s, 0, play("3C 9D")) is RejectCode.CARD_NOT_AVAILABLE
    assert rejected(s, 0, play("3C 4D")) is RejectCode.MIXED_RANKS
    assert rejected(s, 0, play("3C")) is RejectCode.ILLEGAL_CARD


def test_not_your_turn_comes_before_the_play_checks() -> None:
    """docs/games/common.md#order-of-checks"""
    s = pos(["3C", "5C 6D"], [UP, UP], pile="AS")
    assert rejected(s, 1, play("5C 6D")) is RejectCode.NOT_YOUR_TURN
    assert rejected(s, 1, PICKUP) is RejectCode.NOT_YOUR_TURN
    assert rejected(s, 1, PlayFaceDown(0)) is RejectCode.NOT_YOUR_TURN


# --------------------------------------------------------------------------- play effects


def test_a_play_draws_back_to_three_and_passes_the_turn() -> None:
    """docs/games/palace.md#a-turn"""
    s = pos(["5C 9D AS", "6C", "7C"], [UP, UP, UP], stock="QC 8H 4D", pile="4S")
    events, after = apply(s, 0, play("5C"))
    assert events == [
        CardsPlayed(0, C("5C"), ()),
        CardsDrawn(0, C("QC")),
        TurnPassed(1, False, (0, 5, 1)),
    ]
    assert after.hands[0] == C("9D AS QC") and after.stock == C("8H 4D")
    assert after.current == 1 and after.pile == C("4S 5C")


def test_drawing_stops_when_the_stock_runs_out() -> None:
    """docs/games/palace.md#a-turn"""
    s = pos(["5C 5D 5H", "6C"], [UP, UP], stock="QC")
    events, after = apply(s, 0, play("5C 5D 5H"))
    assert CardsDrawn(0, C("QC")) in events and after.hands[0] == C("QC") and after.stock == ()
    t = pos(["5C", "6C"], [UP, UP])  # empty stock: no draw at all
    events, _ = apply(t, 0, play("5C"))
    assert not any(isinstance(e, CardsDrawn) for e in events)


def test_a_hand_of_more_than_three_draws_nothing() -> None:
    """docs/games/palace.md#a-turn"""
    s = pos(["5C 6D 7H 8S 9C", "6C"], [UP, UP], stock="QC")
    events, after = apply(s, 0, play("5C"))
    assert not any(isinstance(e, CardsDrawn) for e in events) and after.stock == C("QC")


def test_turn_passes_round_the_table_and_skips_finished_players() -> None:
    """docs/games/palace.md#a-turn, docs/games/common.md#seats-and-order"""
    s = pos(["5C 6C", "", "7C", "8C"], [UP, [], UP, UP], [DOWN, [], DOWN, DOWN], finished=[1])
    events, _ = apply(s, 0, play("5C"))
    assert events[-1] == TurnPassed(2, False, (0, 5, 0))
    t = pos(["5C 6C", "", "7C", "8C"], [UP, [], UP, UP], [DOWN, [], DOWN, DOWN], finished=[1],
            current=3)  # fmt: skip
    assert apply(t, 3, play("8C"))[0][-1].current == 0


def test_a_two_resets_and_its_player_plays_again() -> None:
    """docs/games/palace.md#a-turn"""
    s = pos(["2C 4D", "6C"], [UP, UP], stock="9H", pile="AS")
    events, after = apply(s, 0, play("2C"))
    assert events == [
        CardsPlayed(0, C("2C"), ()),
        CardsDrawn(0, C("9H")),
        TurnPassed(0, True, None),
    ]
    assert after.current == 0 and after.follow_up
    assert rejected(after, 0, PICKUP) is RejectCode.MUST_PLAY_IF_ABLE
    events, after = apply(after, 0, play("4D"))  # anything goes on the 2
    assert events[-1] == TurnPassed(1, False, (0, 4, 0))


def test_a_ten_burns_the_pile_and_its_player_leads() -> None:
    """docs/games/palace.md#burning"""
    s = pos(["10C 4D", "6C"], [UP, UP], stock="9H", pile="5S AS")
    events, after = apply(s, 0, play("10C"))
    assert events == [
        CardsPlayed(0, C("10C"), ()),
        PileBurned(0, 3, "ten"),
        CardsDrawn(0, C("9H")),
        TurnPassed(0, True, None),
    ]
    assert after.pile == () and after.burned == C("5S AS 10C") and after.follow_up


def test_four_of_a_kind_in_one_play_burns() -> None:
    """docs/games/palace.md#burning"""
    s = pos(["9C 9D 9H 9S 4C", "6C"], [UP, UP], pile="5S")
    events, after = apply(s, 0, play("9C 9D 9H 9S"))
    assert events == [
        CardsPlayed(0, C("9C 9D 9H 9S"), ()),
        PileBurned(0, 5, "four_of_a_kind"),
        TurnPassed(0, True, None),
    ]
    assert after.burned == C("5S 9C 9D 9H 9S")


def test_four_of_a_kind_across_several_players_burns_and_the_fourth_card_leads() -> None:
    """docs/games/palace.md#burning, docs/games/palace.md#decisions"""
    s = pos(["6C", "9D 4C", "7C"], [UP, UP, UP], pile="5S 9C 9H 9S", current=1)
    events, after = apply(s, 1, play("9D"))
    assert events == [
        CardsPlayed(1, C("9D"), ()),
        PileBurned(1, 5, "four_of_a_kind"),
        TurnPassed(1, True, None),
    ]
    assert after.current == 1 and after.pile == ()


def test_four_twos_burn_instead_of_a_two_follow_up() -> None:
    """docs/games/palace.md#burning, docs/games/palace.md#decisions"""
    s = pos(["2C 2D 4C", "6C"], [UP, UP], pile="2H 2S")
    events, _ = apply(s, 0, play("2C 2D"))
    assert events[1] == PileBurned(0, 4, "four_of_a_kind")
    assert events[-1] == TurnPassed(0, True, None)


def test_draw_comes_before_the_follow_up() -> None:
    """docs/games/palace.md#a-turn, docs/games/palace.md#decisions"""
    s = pos(["10C", "6C"], [UP, UP], stock="4D 5D 6D 7D", pile="KS")
    events, after = apply(s, 0, play("10C"))
    assert events[2] == CardsDrawn(0, C("4D 5D 6D"))
    assert after.current == 0 and after.follow_up and after.hands[0] == C("4D 5D 6D")


# --------------------------------------------------------------------------- pick-up


def test_unable_to_play_picks_up_the_pile_and_the_next_player_leads() -> None:
    """docs/games/palace.md#picking-up, docs/games/palace.md#decisions"""
    s = pos(["4C 5D", "6C", "7C"], [UP, UP, UP], pile="8S 9S KS")
    assert pal.legal_commands(s, 0) == [PICKUP]
    events, after = apply(s, 0, PICKUP)
    assert events == [PileTaken(0, 3, "pickup"), TurnPassed(1, False, None)]
    assert after.hands[0] == C("4C 5D 8S 9S KS") and after.pile == ()
    assert after.current == 1 and not after.follow_up
    apply(after, 1, play("6C"))  # leads anything on the empty pile (Decisions, 11)


def test_pickup_while_able_to_play_is_must_play_if_able() -> None:
    """docs/games/palace.md#picking-up, docs/games/palace.md#decisions"""
    s = pos(["4C AD", "6C"], [UP, UP], pile="KS")
    assert rejected(s, 0, PICKUP) is RejectCode.MUST_PLAY_IF_ABLE


def test_voluntary_pickup_allows_picking_up_when_able() -> None:
    """docs/games/palace.md#variant-flags"""
    s = pos(["4C AD", "6C"], [UP, UP], pile="KS", rules=rules(voluntary_pickup=True))
    events, _ = apply(s, 0, PICKUP)
    assert events[0] == PileTaken(0, 1, "pickup")


def test_pickup_of_an_empty_pile_is_empty_pile_whatever_voluntary_pickup_says() -> None:
    """docs/games/palace.md#picking-up, docs/games/palace.md#how-the-flags-interact"""
    for r in (rules(), rules(voluntary_pickup=True)):
        s = pos(["4C", "6C"], [UP, UP], rules=r)
        assert rejected(s, 0, PICKUP) is RejectCode.EMPTY_PILE


def test_in_the_face_down_phase_a_blind_card_must_be_tried() -> None:
    """docs/games/palace.md#picking-up, docs/games/palace.md#decisions"""
    for r in (rules(), rules(voluntary_pickup=True)):
        s = pos(["", "6C"], [[], UP], [["4D"], DOWN], pile="AS", rules=r)
        assert rejected(s, 0, PICKUP) is RejectCode.MUST_PLAY_IF_ABLE
        assert pal.legal_commands(s, 0) == [PlayFaceDown(0)]


def test_pickup_during_a_follow_up_is_must_play_if_able_even_voluntarily() -> None:
    """docs/games/palace.md#picking-up"""
    s = pos(
        ["4C", "6C"], [UP, UP], pile="KS 2C", follow_up=True, rules=rules(voluntary_pickup=True)
    )
    assert rejected(s, 0, PICKUP) is RejectCode.MUST_PLAY_IF_ABLE


# --------------------------------------------------------------------------- active source


def test_face_up_cards_are_played_once_hand_and_stock_are_empty() -> None:
    """docs/games/palace.md#active-source"""
    s = pos(["", "6C"], [["9C", "9D", "KH"], UP], [DOWN, DOWN], pile="5S")
    events, after = apply(s, 0, play("9C 9D"))
    assert events[0] == CardsPlayed(0, (), C("9C 9D"))
    assert after.up[0] == C("KH")
    assert rejected(s, 0, play("QD")) is RejectCode.CARD_NOT_AVAILABLE


def test_picked_up_cards_must_be_played_before_the_table_cards() -> None:
    """docs/games/palace.md#picking-up, docs/games/palace.md#decisions"""
    s = pos(["", "6C"], [["4C", "KH"], UP], [DOWN, DOWN], pile="AS")
    _, after = apply(s, 0, PICKUP)
    after = after._replace(current=0)  # as if seat 1 had picked up too: back to seat 0
    assert after.hands[0] == C("AS")
    assert rejected(after, 0, play("4C")) is RejectCode.CARD_NOT_AVAILABLE
    assert pal.legal_commands(after, 0) == [play("AS")]


def test_face_down_cards_are_played_blind_when_hand_and_face_up_are_empty() -> None:
    """docs/games/palace.md#face-down-cards"""
    s = pos(["", "6C"], [[], UP], [["4D", "9C", "JH"], DOWN], pile="8S")
    events, after = apply(s, 0, PlayFaceDown(1))
    assert events == [FaceDownTurned(0, 1, card("9C")), TurnPassed(1, False, (0, 9, 0))]
    assert after.down[0] == C("4D JH") and after.pile == C("8S 9C")  # later cards move down
    assert after.revealed == card("9C")


def test_a_blind_card_that_does_not_fit_goes_to_the_hand_with_the_pile() -> None:
    """docs/games/palace.md#face-down-cards, docs/games/palace.md#decisions"""
    s = pos(["", "6C"], [[], UP], [["4D", "9C"], DOWN], pile="8S KS")
    events, after = apply(s, 0, PlayFaceDown(0))
    assert events == [
        FaceDownTurned(0, 0, card("4D")),
        PileTaken(0, 3, "failed_blind"),
        TurnPassed(1, False, None),
    ]
    assert Counter(after.hands[0]) == Counter(C("8S KS 4D")) and after.pile == ()
    assert after.down[0] == C("9C") and after.current == 1


def test_play_face_down_needs_empty_hand_and_face_up_and_a_valid_index() -> None:
    """docs/games/palace.md#face-down-cards"""
    s = pos(["5C", "6C"], [[], UP], [["4D"], DOWN])
    assert rejected(s, 0, PlayFaceDown(0)) is RejectCode.CARD_NOT_AVAILABLE
    t = pos(["", "6C"], [["KD"], UP], [["4D"], DOWN])
    assert rejected(t, 0, PlayFaceDown(0)) is RejectCode.CARD_NOT_AVAILABLE
    u = pos(["", "6C"], [[], UP], [["4D", "5D"], DOWN])
    assert rejected(u, 0, PlayFaceDown(2)) is RejectCode.INVALID_TARGET
    assert rejected(u, 0, PlayFaceDown(-1)) is RejectCode.INVALID_TARGET


def test_a_blind_ten_burns_and_its_player_leads_blind_again() -> None:
    """docs/games/palace.md#face-down-cards, docs/games/palace.md#burning"""
    s = pos(["", "6C"], [[], UP], [["10D", "5D"], DOWN], pile="AS")
    events, after = apply(s, 0, PlayFaceDown(0))
    assert events == [
        FaceDownTurned(0, 0, card("10D")),
        PileBurned(0, 2, "ten"),
        TurnPassed(0, True, None),
    ]
    assert pal.legal_commands(after, 0) == [PlayFaceDown(0)]


# --------------------------------------------------------------------------- finishing and the end


def test_a_player_with_no_cards_left_goes_out_and_play_continues() -> None:
    """docs/games/palace.md#a-turn"""
    s = pos(["", "6C", "7C"], [[], UP, UP], [["9C"], DOWN, DOWN], pile="8S")
    events, after = apply(s, 0, PlayFaceDown(0))
    assert events == [
        FaceDownTurned(0, 0, card("9C")),
        PlayerWentOut(0, 1),
        TurnPassed(1, False, None),  # no add-drawn window for a finished player
    ]
    assert after.finished == (0,) and pal.outcome(after) is None
    assert rejected(after, 0, PICKUP) is RejectCode.PLAYER_FINISHED
    assert rejected(after, 0, play("9C")) is RejectCode.PLAYER_FINISHED
    assert pal.legal_commands(after, 0) == []


def test_the_last_player_holding_cards_loses_the_others_rank_by_finishing_order() -> None:
    """docs/games/palace.md#end-of-the-game, docs/games/palace.md#decisions"""
    s = pos(["", "6C", "AC", ""], [[], UP, [], []], [[], DOWN, [], []], finished=[3, 0], current=2,
            pile="KS")  # fmt: skip
    events, after = apply(s, 2, play("AC"))
    assert events == [
        CardsPlayed(2, C("AC"), ()),
        PlayerWentOut(2, 3),
        TurnPassed(None, False, None),
    ]
    out = pal.outcome(after)
    assert out is not None and out.termination is Termination.OUT_OF_CARDS
    assert out.winners == (3, 0, 2) and out.losers == (1,)
    assert rejected(after, 1, PICKUP) is RejectCode.GAME_OVER
    assert pal.legal_commands(after, 1) == []


def test_in_a_two_player_game_the_first_to_finish_wins() -> None:
    """docs/games/palace.md#end-of-the-game"""
    s = pos(["QC", "6C"], [[], UP], [[], DOWN], pile="9S")
    _, after = apply(s, 0, play("QC"))
    out = pal.outcome(after)
    assert out is not None and out.winners == (0,) and out.losers == (1,)


def test_going_out_on_a_two_voids_the_follow_up_next_plays_on_the_two() -> None:
    """docs/games/palace.md#lead-to-a-finished-player, docs/games/palace.md#decisions"""
    s = pos(["2C", "3C", "7C"], [[], UP, UP], [[], DOWN, DOWN], pile="KS")
    events, after = apply(s, 0, play("2C"))
    assert events == [CardsPlayed(0, C("2C"), ()), PlayerWentOut(0, 1), TurnPassed(1, False, None)]
    apply(after, 1, play("3C"))  # anything on the 2


def test_going_out_on_a_ten_voids_the_lead_next_player_leads() -> None:
    """docs/games/palace.md#lead-to-a-finished-player, docs/games/palace.md#decisions"""
    s = pos(["", "3C", "7C"], [["10C"], UP, UP], [[], DOWN, DOWN], pile="KS")
    events, after = apply(s, 0, play("10C"))
    assert events == [
        CardsPlayed(0, (), C("10C")),
        PileBurned(0, 2, "ten"),
        PlayerWentOut(0, 1),
        TurnPassed(1, False, None),
    ]
    assert after.current == 1 and after.pile == ()


# --------------------------------------------------------------------------- out of turn


def test_out_of_turn_completion_burns_and_the_completer_leads() -> None:
    """docs/games/palace.md#out-of-turn-completion, docs/games/palace.md#races"""
    s = pos(["5C", "6C 6D", "9D 4C"], [UP, UP, UP], pile="5S 9C 9H 9S", stock="JH KC",
            current=1)  # fmt: skip
    events, after = apply(s, 2, play("9D"))
    assert events == [
        CardsPlayed(2, C("9D"), (), True),
        PileBurned(2, 5, "four_of_a_kind"),
        CardsDrawn(2, C("JH KC")),
        TurnPassed(2, True, None),
    ]
    assert after.current == 2 and after.follow_up
    # the current player's late action now meets a changed state (docs/games/common.md#races)
    assert rejected(after, 1, play("6C")) is RejectCode.NOT_YOUR_TURN


def test_completion_of_a_pair_with_two_cards() -> None:
    """docs/games/palace.md#out-of-turn-completion, docs/games/palace.md#decisions"""
    s = pos(["5C", "6C", "JD JS 4C"], [UP, UP, UP], pile="5S JC JH", current=1)
    events, _ = apply(s, 2, play("JD JS"))
    assert events[:2] == [CardsPlayed(2, C("JD JS"), (), True), PileBurned(2, 5, "four_of_a_kind")]
    assert pal.legal_commands(s, 2) == [play("JS JD")]


def test_only_an_exact_completion_may_be_played_out_of_turn() -> None:
    """docs/games/palace.md#out-of-turn-completion, docs/games/palace.md#decisions"""
    s = pos(["5C", "6C", "9D 4C KC"], [UP, UP, UP], pile="9C 9H", current=1)
    assert rejected(s, 2, play("9D")) is RejectCode.NOT_YOUR_TURN  # makes only three
    assert rejected(s, 2, play("KC")) is RejectCode.NOT_YOUR_TURN  # another rank
    t = pos(["5C", "6C", "9D 9S 4C"], [UP, UP, UP], pile="5D 9H 9C", current=1, rules=rules(
        num_decks=2))  # fmt: skip
    assert rejected(t, 2, play("9D 9S 9S")) is RejectCode.NOT_YOUR_TURN  # not held


def test_a_completion_after_the_current_player_covered_is_not_your_turn() -> None:
    """docs/games/palace.md#races"""
    s = pos(["9D 4C", "KC 6C", "5C"], [UP, UP, UP], pile="9C 9H 9S", current=1)
    _, covered = apply(s, 1, play("KC"))
    assert rejected(covered, 0, play("9D")) is RejectCode.NOT_YOUR_TURN


def test_completion_cancels_another_players_window_and_follow_up() -> None:
    """docs/games/palace.md#out-of-turn-completion"""
    # (A window and a follow-up are never open together: the follow-up's play closed it.)
    s = pos(["5C", "6C", "2D 4C"], [UP, UP, UP], pile="2C 2H 2S", current=1, window=(0, 2, 0))
    events, after = apply(s, 2, play("2D"))
    assert events[-1] == TurnPassed(2, True, None)
    assert after.window is None and after.current == 2
    s = pos(["5C", "6C", "2D 4C"], [UP, UP, UP], pile="2C 2H 2S", current=1, follow_up=True)
    events, after = apply(s, 2, play("2D"))
    assert events[-1] == TurnPassed(2, True, None)
    assert after.follow_up and after.current == 2


def test_completion_comes_from_face_up_when_the_hand_is_empty_never_face_down() -> None:
    """docs/games/palace.md#out-of-turn-completion"""
    s = pos(["5C", "6C", ""], [UP, UP, ["9D", "KC"]], [DOWN, DOWN, ["4S"]], pile="9C 9H 9S",
            current=1)  # fmt: skip
    events, _ = apply(s, 2, play("9D"))
    assert events[0] == CardsPlayed(2, (), C("9D"), True)
    t = pos(["5C", "6C", ""], [UP, UP, []], [DOWN, DOWN, ["9D"]], pile="9C 9H 9S", current=1)
    assert rejected(t, 2, play("9D")) is RejectCode.NOT_YOUR_TURN


def test_completer_who_finishes_gives_the_lead_to_the_next_unfinished_player() -> None:
    """docs/games/palace.md#out-of-turn-completion,
    docs/games/palace.md#lead-to-a-finished-player"""
    s = pos(["5C", "6C", "9D", "8C"], [UP, UP, [], UP], [DOWN, DOWN, [], DOWN], pile="9C 9H 9S",
            current=0)  # fmt: skip
    events, after = apply(s, 2, play("9D"))
    assert events[-2:] == [PlayerWentOut(2, 1), TurnPassed(3, False, None)]
    assert after.current == 3


def test_out_of_turn_completion_off_or_without_consecutive_burns_is_not_your_turn() -> None:
    """docs/games/palace.md#out-of-turn-completion, docs/games/palace.md#variant-flags"""
    for r in (rules(out_of_turn_completion=False), rules(four_of_a_kind_burn="single_play")):
        s = pos(["5C", "6C", "9D"], [UP, UP, UP], pile="9C 9H 9S", current=1, rules=r)
        assert rejected(s, 2, play("9D")) is RejectCode.NOT_YOUR_TURN
        assert pal.legal_commands(s, 2) == []


# --------------------------------------------------------------------------- add-drawn


def test_a_just_drawn_card_of_the_rank_just_played_may_be_added() -> None:
    """docs/games/palace.md#add-drawn-window, docs/games/palace.md#decisions"""
    s = pos(["5C 9D AS", "6C", "7C"], [UP, UP, UP], stock="5H QC 8H", pile="4S")
    _, s = apply(s, 0, play("5C"))
    assert s.window == (0, 5, 1) and pal.legal_commands(s, 0) == [add("5H")]
    events, after = apply(s, 0, add("5H"))
    assert events == [
        CardsAdded(0, C("5H")),
        CardsDrawn(0, C("QC")),
        TurnPassed(1, False, (0, 5, 1)),  # the window stays open; the turn stays with seat 1
    ]
    assert after.pile == C("4S 5C 5H") and after.hands[0] == C("9D AS QC")
    assert after.current == 1 and after.stock == C("8H")


def test_add_drawn_after_the_next_player_acted_is_window_closed() -> None:
    """docs/games/palace.md#races, docs/games/palace.md#add-drawn-window"""
    s = pos(["5C 9D AS", "6C 8D", "7C"], [UP, UP, UP], stock="5H QC", pile="4S")
    _, s = apply(s, 0, play("5C"))
    _, s = apply(s, 1, play("6C"))
    assert rejected(s, 0, add("5H")) is RejectCode.WINDOW_CLOSED


def test_add_drawn_only_with_just_drawn_cards_of_that_rank() -> None:
    """docs/games/palace.md#add-drawn-window"""
    s = pos(["5C 5D AS", "6C", "7C"], [UP, UP, UP], stock="QC 5H", pile="4S")
    _, s = apply(s, 0, play("5C"))  # drew the Q♣ only
    assert rejected(s, 0, add("5D")) is RejectCode.CARD_NOT_AVAILABLE  # held before, not drawn
    assert rejected(s, 0, add("QC")) is RejectCode.CARD_NOT_AVAILABLE  # drawn, other rank
    assert rejected(s, 0, AddDrawn(())) is RejectCode.CARD_NOT_AVAILABLE


def test_add_drawn_uses_only_the_most_recent_draw() -> None:
    """docs/games/palace.md#how-the-flags-interact"""
    s = pos(["5C 9D", "6C", "7C"], [UP, UP, UP], stock="5H 5S 8H 5D", pile="4S")
    _, s = apply(s, 0, play("5C"))  # draws 5♥ 5♠ back to three
    assert s.hands[0] == C("9D 5H 5S") and s.window == (0, 5, 2)
    _, s = apply(s, 0, add("5H"))  # draws 8♥
    assert s.window == (0, 5, 1)
    assert rejected(s, 0, add("5S")) is RejectCode.CARD_NOT_AVAILABLE


def test_added_cards_completing_four_burn_and_give_the_lead() -> None:
    """docs/games/palace.md#add-drawn-window, docs/games/palace.md#decisions"""
    s = pos(["6C", "7C", "QH 5S"], [UP, UP, UP], stock="4C", pile="5C 5D 5H", current=1,
            window=(2, 5, 1))  # fmt: skip
    events, after = apply(s, 2, add("5S"))
    assert events == [
        CardsAdded(2, C("5S")),
        PileBurned(2, 4, "four_of_a_kind"),
        CardsDrawn(2, C("4C")),
        TurnPassed(2, True, None),
    ]
    assert after.current == 2 and after.window is None


def test_an_added_ten_burns_and_its_player_leads() -> None:
    """docs/games/palace.md#how-the-flags-interact"""
    # seat 2's 10 burned without a follow-up (ten_follow_up off) and it drew another 10
    r = rules(ten_follow_up=False)
    s = pos(["6C", "7C", "QH 10S"], [UP, UP, UP], current=0, window=(2, 10, 1), rules=r)
    events, _ = apply(s, 2, add("10S"))
    assert events[1] == PileBurned(2, 1, "ten") and events[-1] == TurnPassed(2, True, None)


def test_an_added_two_has_no_follow_up() -> None:
    """docs/games/palace.md#add-drawn-window, docs/games/palace.md#how-the-flags-interact"""
    s = pos(["6C", "7C", "QH 2S"], [UP, UP, UP], pile="9C 2C", current=0, window=(2, 2, 1))
    events, after = apply(s, 2, add("2S"))
    assert events == [CardsAdded(2, C("2S")), TurnPassed(0, False, (2, 2, 0))]
    assert after.current == 0 and not after.follow_up


def test_added_eights_skip_nobody() -> None:
    """docs/games/palace.md#how-the-flags-interact"""
    r = rules(eight_skip=True)
    s = pos(["6C", "7C", "QH 8S"], [UP] * 3, pile="5D 8C", current=0, window=(2, 8, 1), rules=r)
    events, _ = apply(s, 2, add("8S"))
    assert events == [CardsAdded(2, C("8S")), TurnPassed(0, False, (2, 8, 0))]


def test_add_drawn_with_no_window_or_flag_off_is_window_closed() -> None:
    """docs/games/palace.md#add-drawn-window, docs/games/palace.md#variant-flags"""
    s = pos(["6C", "7C", "QH 5S"], [UP, UP, UP], pile="5C", current=0)
    assert rejected(s, 2, add("5S")) is RejectCode.WINDOW_CLOSED
    t = pos(["5C 9D AS", "6C"], [UP, UP], stock="5H", rules=rules(add_drawn_same_rank=False))
    events, t = apply(t, 0, play("5C"))
    assert events[-1] == TurnPassed(1, False, None)
    assert rejected(t, 0, add("5H")) is RejectCode.WINDOW_CLOSED


def test_add_drawn_burn_by_a_finishing_player_gives_the_lead_onwards() -> None:
    """docs/games/palace.md#lead-to-a-finished-player, docs/games/palace.md#add-drawn-window"""
    s = pos(["6C", "7C", "5S", "8C"], [UP, UP, [], UP], [DOWN, DOWN, [], DOWN],
            pile="5C 5D 5H", current=3, window=(2, 5, 1))  # fmt: skip
    events, after = apply(s, 2, add("5S"))
    assert events == [
        CardsAdded(2, C("5S")),
        PileBurned(2, 4, "four_of_a_kind"),
        PlayerWentOut(2, 1),
        TurnPassed(3, False, None),
    ]
    assert after.current == 3


# --------------------------------------------------------------------------- flags


def test_two_follow_up_off_passes_the_turn_and_the_next_plays_anything() -> None:
    """docs/games/palace.md#variant-flags"""
    s = pos(["2C 4D", "3C"], [UP, UP], pile="AS", rules=rules(two_follow_up=False))
    events, after = apply(s, 0, play("2C"))
    assert events[-1] == TurnPassed(1, False, (0, 2, 0))
    apply(after, 1, play("3C"))


def test_ten_follow_up_off_burns_and_the_next_player_leads() -> None:
    """docs/games/palace.md#variant-flags"""
    s = pos(["10C 4D", "3C"], [UP, UP], pile="AS", rules=rules(ten_follow_up=False))
    events, after = apply(s, 0, play("10C"))
    assert events == [
        CardsPlayed(0, C("10C"), ()),
        PileBurned(0, 2, "ten"),
        TurnPassed(1, False, (0, 10, 0)),
    ]
    assert after.pile == () and after.current == 1


def test_four_of_a_kind_burn_single_play_needs_the_four_in_one_play() -> None:
    """docs/games/palace.md#variant-flags"""
    r = rules(four_of_a_kind_burn="single_play")
    s = pos(["9D 4C", "6C"], [UP, UP], pile="9C 9H 9S", rules=r)
    events, _ = apply(s, 0, play("9D"))
    assert not any(isinstance(e, PileBurned) for e in events)
    t = pos(["9C 9D 9H 9S 4C", "6C"], [UP, UP], rules=r)
    assert apply(t, 0, play("9C 9D 9H 9S"))[0][1] == PileBurned(0, 4, "four_of_a_kind")


def test_four_of_a_kind_burn_off_never_burns_on_four() -> None:
    """docs/games/palace.md#variant-flags"""
    s = pos(["9C 9D 9H 9S 4C", "6C"], [UP, UP], rules=rules(four_of_a_kind_burn="off"))
    events, _ = apply(s, 0, play("9C 9D 9H 9S"))
    assert not any(isinstance(e, PileBurned) for e in events)


def test_seven_lower_after_a_seven_play_seven_or_lower_or_a_power_card() -> None:
    """docs/games/palace.md#variant-flags"""
    r = rules(seven_lower=True)
    s = pos(["8C 7D 4H 2S 10C", "6C"], [UP, UP], pile="5S 7C", rules=r)
    assert rejected(s, 0, play("8C")) is RejectCode.ILLEGAL_CARD
    for ok in ("7D", "4H", "2S", "10C"):
        apply(s, 0, play(ok))
    t = pos(["8C 4H", "6C"], [UP, UP], pile="7C 5S", rules=r)  # only while the 7 is on top
    apply(t, 0, play("8C"))
    assert rejected(t, 0, play("4H")) is RejectCode.ILLEGAL_CARD


def test_nine_lower_after_a_nine_play_nine_or_lower() -> None:
    """docs/games/palace.md#variant-flags"""
    s = pos(["JC 9D 3H", "6C"], [UP, UP], pile="9S", rules=rules(nine_lower=True))
    assert rejected(s, 0, play("JC")) is RejectCode.ILLEGAL_CARD
    apply(s, 0, play("9D"))
    apply(s, 0, play("3H"))


def test_eight_skip_one_eight_skips_one_player() -> None:
    """docs/games/palace.md#variant-flags"""
    s = pos(["8C 4D", "6C", "7C", "9C"], [UP] * 4, rules=rules(eight_skip=True))
    events, after = apply(s, 0, play("8C"))
    assert events[-1] == TurnPassed(2, False, (0, 8, 0), (1,))
    assert after.current == 2


def test_eight_skip_n_eights_skip_n_unfinished_players() -> None:
    """docs/games/palace.md#variant-flags, docs/games/palace.md#how-the-flags-interact"""
    s = pos(["8C 8D 4D", "6C", "", "7C", "9C"], [UP, UP, [], UP, UP], [DOWN, DOWN, [], DOWN, DOWN],
            finished=[2], rules=rules(eight_skip=True))  # fmt: skip
    events, _ = apply(s, 0, play("8C 8D"))
    assert events[-1] == TurnPassed(4, False, (0, 8, 0), (1, 3))


def test_eight_skip_with_two_players_returns_the_turn_without_a_window() -> None:
    """docs/games/palace.md#how-the-flags-interact"""
    s = pos(["8C 4D", "6C"], [UP, UP], stock="8H", rules=rules(eight_skip=True))
    events, after = apply(s, 0, play("8C"))
    assert events[-1] == TurnPassed(0, False, None, (1,))
    assert after.current == 0 and not after.follow_up  # an ordinary turn on the 8
    assert rejected(after, 0, play("4D")) is RejectCode.ILLEGAL_CARD
    assert rejected(after, 0, add("8H")) is RejectCode.WINDOW_CLOSED


def test_a_burn_overrides_the_skip() -> None:
    """docs/games/palace.md#how-the-flags-interact"""
    s = pos(["8C 8D 4D", "6C", "7C"], [UP] * 3, pile="8H 8S", rules=rules(eight_skip=True))
    events, _ = apply(s, 0, play("8C 8D"))
    assert events[-1] == TurnPassed(0, True, None)


def test_three_invisible_goes_on_anything_and_takes_the_rank_below() -> None:
    """docs/games/palace.md#rank-order, docs/games/palace.md#variant-flags"""
    r = rules(three_invisible=True)
    s = pos(["3C 4D", "6C 9C"], [UP, UP], pile="KS", rules=r)
    _, after = apply(s, 0, play("3C"))
    assert rejected(after, 1, play("9C")) is RejectCode.ILLEGAL_CARD  # the K still rules
    e = pos(["3C 4D", "6C"], [UP, UP], rules=r)
    _, after = apply(e, 0, play("3C"))
    apply(after, 1, play("6C"))  # a 3 alone is like an empty pile


def test_three_on_a_seven_still_obliges_seven_or_lower() -> None:
    """docs/games/palace.md#how-the-flags-interact"""
    r = rules(three_invisible=True, seven_lower=True)
    s = pos(["8C 6D", "6C"], [UP, UP], pile="7S 3H", rules=r)
    assert rejected(s, 0, play("8C")) is RejectCode.ILLEGAL_CARD
    apply(s, 0, play("6D"))


def test_jokers_go_on_anything_are_transparent_and_reverse_the_direction() -> None:
    """docs/games/palace.md#rank-order, docs/games/palace.md#variant-flags"""
    r = rules(jokers=2)
    s = pos(["JK 4D", "6C", "KC 9C"], [UP] * 3, pile="QS", rules=r)
    events, after = apply(s, 0, Play((JOKER,)))
    assert events == [
        CardsPlayed(0, (JOKER,), ()),
        DirectionReversed(-1),
        TurnPassed(2, False, (0, 0, 0)),
    ]
    assert after.direction == -1
    assert rejected(after, 2, play("9C")) is RejectCode.ILLEGAL_CARD  # the Q still rules
    apply(after, 2, play("KC"))
    two = pos(["JK JK 4D", "6C", "KC"], [UP] * 3, pile="QS", rules=r)
    events, _ = apply(two, 0, Play((JOKER, JOKER)))
    assert events[-1] == TurnPassed(1, False, (0, 0, 0))  # two reversals cancel out


def test_finish_on_special_off_a_last_power_card_fails_and_takes_the_pile() -> None:
    """docs/games/palace.md#how-the-flags-interact"""
    r = rules(finish_on_special=False)
    s = pos(["2C", "6C"], [[], UP], [[], DOWN], pile="KS", rules=r)
    assert pal.legal_commands(s, 0) == [play("2C"), PICKUP]
    assert pal.is_sensible(s, 0, PICKUP) and not pal.is_sensible(s, 0, play("2C"))
    events, after = apply(s, 0, play("2C"))
    assert events == [
        CardsPlayed(0, C("2C"), ()),
        PileTaken(0, 2, "special_finish"),
        TurnPassed(1, False, None),
    ]
    assert after.hands[0] == C("KS 2C") and after.finished == ()
    # on an empty pile there is nothing to pick up: the failing play is the way on
    e = pos(["10C", "6C"], [[], UP], [[], DOWN], rules=r)
    assert pal.legal_commands(e, 0) == [play("10C")] and pal.is_sensible(e, 0, play("10C"))
    assert apply(e, 0, play("10C"))[0][1] == PileTaken(0, 1, "special_finish")


def test_finish_on_special_off_keeps_a_power_card_back_when_it_can() -> None:
    """docs/games/palace.md#how-the-flags-interact"""
    r = rules(finish_on_special=False)
    s = pos(["2C 2D", "6C"], [[], UP], [[], DOWN], pile="KS", rules=r)
    assert rejected(s, 0, PICKUP) is RejectCode.MUST_PLAY_IF_ABLE
    assert pal.is_sensible(s, 0, play("2C")) and not pal.is_sensible(s, 0, play("2C 2D"))
    t = pos(["", "6C", "7C"], [[], UP, UP], [["2H"], DOWN, DOWN], pile="KS", rules=r)
    events, _ = apply(t, 0, PlayFaceDown(0))
    assert events[1] == PileTaken(0, 2, "special_finish")


def test_finish_on_special_off_rejects_optional_actions_that_would_go_out_on_power() -> None:
    """docs/games/palace.md#how-the-flags-interact"""
    r = rules(finish_on_special=False)
    s = pos(["5C", "6C", "2D"], [UP, UP, []], [DOWN, DOWN, []], pile="2C 2H 2S", current=1,
            rules=r)  # fmt: skip
    assert rejected(s, 2, play("2D")) is RejectCode.ILLEGAL_CARD
    t = pos(["6C", "7C", "2S"], [UP, UP, []], [DOWN, DOWN, []], pile="9C 2C", current=0,
            window=(2, 2, 1), rules=r)  # fmt: skip
    assert rejected(t, 2, add("2S")) is RejectCode.ILLEGAL_CARD
    assert pal.legal_commands(t, 2) == []


def test_engine_finish_on_special_lapses_once_only_power_cards_are_left_in_play() -> None:
    """docs/games/palace.md#how-the-flags-interact"""
    r = rules(finish_on_special=False, three_invisible=True)
    s = pos(["3C 3D", "3H"], rules=r)
    events, after = apply(s, 0, play("3C 3D"))
    assert events == [
        CardsPlayed(0, C("3C 3D"), ()),
        PlayerWentOut(0, 1),
        TurnPassed(None, False, None),
    ]
    assert pal.outcome(after) is not None
    t = pos(["3C 3D", "3H"], pile="KS", rules=r)  # a K in the pile: somebody may still use it
    assert apply(t, 0, play("3C 3D"))[0][1] == PileTaken(0, 3, "special_finish")


def test_sensible_bots_play_power_cards_first_when_they_may_not_finish_on_them() -> None:
    """docs/adding-a-game.md#4-the-decider, docs/games/palace.md#how-the-flags-interact"""
    s = pos(["10C KH KD", "6C"], [[], UP], [[], DOWN], rules=rules(finish_on_special=False))
    assert [c for c in pal.legal_commands(s, 0) if pal.is_sensible(s, 0, c)] == [play("10C")]
    t = pos(["10C KH KD", "6C"], [[], UP], [[], DOWN])
    assert [c for c in pal.legal_commands(t, 0) if pal.is_sensible(t, 0, c)] == [play("KH KD")]


def test_combine_hand_and_up_plays_the_last_hand_cards_with_face_up_of_that_rank() -> None:
    """docs/games/palace.md#variant-flags"""
    r = rules(combine_hand_and_up=True)
    s = pos(["9C", "6C"], [["9D", "9H", "KS"], UP], [DOWN, DOWN], pile="5S", rules=r)
    assert play("9C 9H 9D") in pal.legal_commands(s, 0)  # cards in a fixed (suit) order
    events, after = apply(s, 0, play("9C 9D 9H"))
    assert events[0] == CardsPlayed(0, C("9C"), C("9D 9H"))
    assert after.hands[0] == () and after.up[0] == C("KS")
    plain = pos(["9C", "6C"], [["9D", "KS"], UP], [DOWN, DOWN], pile="5S")
    assert rejected(plain, 0, play("9C 9D")) is RejectCode.CARD_NOT_AVAILABLE


def test_combine_hand_and_up_needs_every_hand_card_and_an_empty_stock() -> None:
    """docs/games/palace.md#variant-flags"""
    r = rules(combine_hand_and_up=True)
    s = pos(["9C 9S 4C", "6C"], [["9D"], UP], [DOWN, DOWN], rules=r)
    assert rejected(s, 0, play("9C 9D")) is RejectCode.CARD_NOT_AVAILABLE
    t = pos(["9C", "6C"], [["9D"], UP], [DOWN, DOWN], stock="3C", rules=r)
    assert rejected(t, 0, play("9C 9D")) is RejectCode.CARD_NOT_AVAILABLE


# --------------------------------------------------------------------------- leaving


def test_a_resignation_sets_the_cards_aside_and_ranks_the_first_resigner_last() -> None:
    """docs/games/palace.md#leaving, docs/games/common.md#resign"""
    s = pos(["5C 9D", "6C 8D", "7C"], [UP, UP, UP], [DOWN, DOWN, DOWN], pile="4S", current=1)
    events, after = apply(s, 1, kit.Resign())
    # Hand, face-up and face-down cards (2 + 3 + 3) set aside; the next plays on the 4 as it is.
    assert events == [PlayerResigned(1, 8, None), TurnPassed(2, False, None)]
    assert after.hands[1] == after.up[1] == after.down[1] == ()
    assert after.pile == s.pile and after.current == 2 and after.finished == (1,)
    assert pal.outcome(after) is None
    assert rejected(after, 1, play("6C")) is RejectCode.PLAYER_FINISHED
    # Two left: the next resignation ends the game; the first to resign ranks last.
    _, over = apply(after, 2, kit.Resign())
    assert pal.outcome(over) == Outcome(Termination.RESIGNED, (0,), (2, 1))


# --------------------------------------------------------------------------- legal commands, bots


def test_legal_commands_list_every_distinct_same_rank_set_cheapest_rank_first() -> None:
    """docs/adding-a-game.md#4-the-decider"""
    s = pos(["9C 5S 2D 5H", "6C"], [UP, UP], pile="4S")
    assert pal.legal_commands(s, 0) == [
        play("5S"),
        play("5H"),
        play("5S 5H"),
        play("9C"),
        play("2D"),
    ]
    for cmd in pal.legal_commands(s, 0):
        pal.decide(s, 0, cmd)


def test_legal_commands_in_setup_are_every_swap_then_ready() -> None:
    """docs/adding-a-game.md#4-the-decider, docs/games/palace.md#swapping"""
    s = setup_state(phase="setup")
    cmds = pal.legal_commands(s, 0)
    assert len(cmds) == 10 and cmds[-1] == READY and cmds[0] == Swap(card("4C"), card("3H"))


def test_legal_commands_of_others_are_completions_and_their_add_drawn_window() -> None:
    """docs/adding-a-game.md#4-the-decider, docs/games/palace.md#out-of-turn-completion"""
    s = pos(["5C", "6C", "9D 4C"], [UP, UP, UP], pile="9C 9H 9S", current=1, window=(0, 9, 0))
    assert pal.legal_commands(s, 2) == [play("9D")]
    assert pal.legal_commands(s, 0) == []


def test_sensible_bots_play_their_cheapest_set_and_pick_up_only_when_they_must() -> None:
    """docs/adding-a-game.md#4-the-decider"""
    s = pos(["9C 5S 2D 5H", "6C"], [UP, UP], pile="4S")
    sensible = [c for c in pal.legal_commands(s, 0) if pal.is_sensible(s, 0, c)]
    assert sensible == [play("5S 5H")]
    v = pos(["4C 9D", "6C"], [UP, UP], pile="5S", rules=rules(voluntary_pickup=True))
    assert PICKUP in pal.legal_commands(v, 0) and not pal.is_sensible(v, 0, PICKUP)


def test_sensible_swaps_put_the_dearer_card_face_up() -> None:
    """docs/adding-a-game.md#4-the-decider"""
    s = setup_state(phase="setup")
    assert pal.is_sensible(s, 0, Swap(card("AS"), card("3H")))
    assert not pal.is_sensible(s, 0, Swap(card("4C"), card("2S")))
    assert pal.is_sensible(s, 0, READY)


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_seeded_sensible_bots_finish_games(seats: int) -> None:
    """docs/games/palace.md#end-of-the-game, docs/adding-a-game.md#4-the-decider"""
    from cardcore.bots import play_out, seat_bots

    for seed in range(5):
        m = Match(pal.GAME, pal.GAME.make_setup(seats, seed), record=False)
        play_out(m, seat_bots("reaction", seats, seed))
        assert m.outcome is not None and m.outcome.termination is Termination.OUT_OF_CARDS


# --------------------------------------------------------------------------- views, redaction


def test_views_show_own_hand_and_all_face_up_cards_and_hide_the_rest() -> None:
    """docs/games/palace.md#setup"""
    s = pos(["5C 9D", "6C"], [["KD"], ["AH"]], [["QD"], ["QH"]], stock="3C 4C", pile="4S")
    v = pal.view(s, 0)
    assert v.hands == (C("5C 9D"), (HIDDEN,))
    assert v.up == (C("KD"), C("AH"))
    assert v.down == ((HIDDEN,), (HIDDEN,))  # the owner cannot see its face-down cards either
    assert v.stock == (HIDDEN, HIDDEN) and v.pile == C("4S")
    assert pal.view(s, Role.SPECTATOR).hands == ((HIDDEN, HIDDEN), (HIDDEN,))
    ref = pal.view(s, Role.REFEREE)
    assert ref.down == (C("QD"), C("QH")) and ref.stock == C("3C 4C")


def test_a_draw_is_shown_only_to_the_drawer() -> None:
    """docs/games/palace.md#setup, docs/adding-a-game.md#5-views-and-redaction"""
    e = CardsDrawn(0, C("QC 8H"))
    assert pal.redact(e, 0) == e and pal.redact(e, Role.REFEREE) == e
    assert pal.redact(e, 1) == CardsDrawn(0, (HIDDEN, HIDDEN))
    assert pal.redact(e, Role.SPECTATOR) == CardsDrawn(0, (HIDDEN, HIDDEN))


def test_the_deal_shows_each_seat_its_hand_and_everyone_the_face_up_cards() -> None:
    """docs/games/palace.md#setup, docs/adding-a-game.md#5-views-and-redaction"""
    (dealt,) = pal.deal(pal.GAME.make_setup(2, 4))
    assert isinstance(dealt, Dealt)
    red = pal.redact(dealt, 1)
    assert isinstance(red, Dealt)
    assert red.hands[1] == dealt.hands[1] and red.hands[0] == (HIDDEN,) * 3
    assert red.up == dealt.up and red.down == ((HIDDEN,) * 3,) * 2
    assert red.stock == (HIDDEN,) * 34


def test_shuffle_hidden_keeps_every_view_byte_identical() -> None:
    """docs/adding-a-game.md#6-shuffle_hidden-and-cards_in_play"""
    s = pos(["5C 9D 5H", "6C 7D", "JC"], [["KD"], ["AH"], []], [["QD"], ["QH"], ["3S"]],
            stock="3C 4C", pile="4S 5D", current=1, window=(0, 5, 1))  # fmt: skip
    rng = Rng(1, 2)
    for v in (0, 1, 2, Role.SPECTATOR):
        alt = pal.shuffle_hidden(s, v, rng)
        assert Counter(pal.cards_in_play(alt)) == Counter(pal.cards_in_play(s))
        assert codec.canonical_bytes(codec.encode(pal.view(alt, v))) == codec.canonical_bytes(
            codec.encode(pal.view(s, v))
        )


# --------------------------------------------------------------------------- catalogue, setup


def test_registered_as_palace_with_alias_shithead() -> None:
    """docs/games/palace.md#palace"""
    assert get_game("palace") is pal.GAME and get_game("shithead") is pal.GAME
    assert pal.GAME.info.min_seats == 2


@pytest.mark.parametrize(
    ("flags", "field"),
    [
        ({"cards_per_area": 0}, "rules.cards_per_area"),
        ({"jokers": 3}, "rules.jokers"),
        ({"num_decks": 0}, "rules.num_decks"),
        ({"starter_rule": "youngest"}, "rules.starter_rule"),
        ({"four_of_a_kind_burn": "sometimes"}, "rules.four_of_a_kind_burn"),
    ],
)
def test_invalid_flags_are_invalid_setup(flags: dict[str, Any], field: str) -> None:
    """docs/games/palace.md#variant-flags"""
    with pytest.raises(InvalidSetup) as info:
        pal.GAME.make_setup(3, 1, flags)
    assert info.value.field == field


def test_narration_says_what_happened_in_plain_words() -> None:
    """docs/disputes.md#what-happened-replay"""
    assert (
        pal.narrate(CardsPlayed(3, C("9C"), (), True))
        == "seat 3 completed four 9s out of turn with 9♣"
    )
    assert pal.narrate(PileBurned(1, 6, "ten")) == "a 10: the pile burns (6 cards), by seat 1"
    assert pal.narrate(CardsDrawn(0, (HIDDEN, HIDDEN))) == "seat 0 drew 2 cards"
    assert pal.narrate(TurnPassed(2, False, None, (1,))) == "seat 2 to play (skipped seat 1)"
    assert pal.narrate(PileTaken(0, 3, "failed_blind")).startswith("seat 0 cannot play the blind")
