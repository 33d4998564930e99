"""Spit, one given/when/then test per clause of docs/games/spit.md (and the real time and rejection
codes of docs/games/common.md as Spit uses them).

Stock piles and spit piles are written bottom→top, spit cards top first
(docs/games/common.md#piles). Unless a test says otherwise every non-empty stock pile has only its
top card face up.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import partial
from typing import Any

import pytest

from cardcore import Match, Outcome, RejectCode, Termination, codec, kit
from cardcore.bots import play_out, seat_bots
from cardcore.cards import HIDDEN, Card, parse_cards, standard_deck
from cardcore.engine import Role
from cardcore.errors import InvalidPosition, InvalidSetup
from cardcore.games import spit
from cardcore.games.spit import (
    SPIT,
    CardPlayed,
    Dealt,
    Flip,
    Flipped,
    Move,
    Moved,
    NewLayout,
    PileClaimed,
    Play,
    PlayStarted,
    Resigned,
    RoundEnded,
    Rules,
    Slap,
    Spat,
    Spit,
    SpitCalled,
    Stack,
    Stacked,
    State,
    TakePile,
    is_stuck,
    lay_out,
    position,
)
from cardcore.rng import Rng, shuffled

from . import given

C = parse_cards
G = spit.GAME


def card(text: str) -> Card:
    return Card.parse(text)


rules = partial(given.rules, spit.GAME)


apply = partial(given.apply, spit.GAME)
rejected = partial(given.rejected, spit.GAME)


def table(
    p0: Sequence[str],
    p1: Sequence[str],
    *,
    sp: tuple[str, str] = ("8H", "KC"),
    spit_cards: tuple[str, str] = ("", ""),
    **kw: Any,
) -> State:
    """Seat 0 and seat 1 layouts (one string per stock pile, bottom→top; "" = empty space)."""
    return position(
        [[C(p) for p in p0], [C(p) for p in p1]],
        spit_piles=[C(sp[0]), C(sp[1])],
        spit_cards=[C(spit_cards[0]), C(spit_cards[1])],
        **kw,
    )


# Spit piles 8♥ and K♣ take 7, 9, Q and A. Neither layout shows one, has a face-down top or an
# empty space: the game is stuck.
STUCK_P0 = ("2S", "3H 4C", "5D 5S 6H", "10C 10D 2H 3S", "JH JC 4D 5C 6S")
STUCK_P1 = ("2D", "3D 4H", "5H 8C 6C", "10S 10H 2C 3C", "JS JD 4S 8S 6D")


def stuck(spit_cards: tuple[str, str] = ("7C 9H", "QD AS"), **kw: Any) -> State:
    return table(STUCK_P0, STUCK_P1, spit_cards=spit_cards, **kw)


# --------------------------------------------------------------------------- setup


def test_exactly_two_players() -> None:
    """docs/games/spit.md#setup"""
    with pytest.raises(InvalidSetup, match="seats"):
        G.make_setup(3, 1)
    assert G.make_setup(2, 1).seats == 2


def test_deal_26_each_from_seat_0_and_lay_out_piles_of_1_to_5() -> None:
    """docs/games/spit.md#setup, docs/games/spit.md#laying-out"""
    setup = G.make_setup(2, 7)
    deck = shuffled(7, 0, standard_deck())
    (dealt,) = spit.deal(setup)
    assert isinstance(dealt, Dealt)
    for p in (0, 1):
        packet = deck[p::2]  # seat 0 receives d0, d2, …; seat 1 d1, d3, …
        c = packet
        assert dealt.layouts[p] == (
            (c[0],),
            (c[1], c[2]),
            (c[3], c[4], c[5]),
            (c[6], c[7], c[8], c[9]),
            tuple(c[10:15]),
        )
        assert dealt.spit_cards[p] == tuple(c[15:])  # 11 spit cards, c16 on top
        assert len(dealt.spit_cards[p]) == 11
    state = spit.evolve(spit.initial_state(setup), dealt)
    assert state.phase == "READY" and not any(state.spit_piles)
    assert state.up == ((1, 1, 1, 1, 1), (1, 1, 1, 1, 1))  # every top face up, the rest down


def test_fewer_than_15_cards_fill_piles_in_order_and_no_spit_cards() -> None:
    """docs/games/spit.md#laying-out"""
    packet = C("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS")  # 12 cards
    piles, rest = lay_out(packet, 5)
    assert [len(p) for p in piles] == [1, 2, 3, 4, 2]
    assert piles[4] == C("JS QS") and rest == ()


def test_exactly_15_cards_full_layout_and_no_spit_cards() -> None:
    """docs/games/spit.md#laying-out, docs/games/spit.md#decisions"""
    packet = standard_deck()[:15]
    piles, rest = lay_out(packet, 5)
    assert [len(p) for p in piles] == [1, 2, 3, 4, 5] and rest == ()


def test_num_stock_piles_4_lays_out_1_to_4_and_16_spit_cards() -> None:
    """docs/games/spit.md#laying-out, docs/games/spit.md#variant-flags"""
    setup = G.make_setup(2, 3, {"num_stock_piles": 4})
    (dealt,) = spit.deal(setup)
    assert isinstance(dealt, Dealt)
    assert [len(p) for p in dealt.layouts[0]] == [1, 2, 3, 4]
    assert len(dealt.spit_cards[0]) == len(dealt.spit_cards[1]) == 16
    assert lay_out(standard_deck()[:9], 4)[1] == ()  # "fewer than 10": no spit cards


def test_num_stock_piles_is_4_or_5() -> None:
    """docs/games/spit.md#variant-flags"""
    with pytest.raises(InvalidSetup, match=r"rules\.num_stock_piles"):
        G.make_setup(2, 1, {"num_stock_piles": 6})
    with pytest.raises(InvalidSetup, match=r"rules\.num_stock_piles"):
        Rules(num_stock_piles=3)


# --------------------------------------------------------------------------- round start


def ready(**kw: Any) -> State:
    """Both packets just laid out: full layouts (a READY layout is exactly as laid out)."""
    return table(
        STUCK_P0, STUCK_P1, sp=("", ""), spit_cards=("7C 9H", "QD AS"), phase="READY", **kw
    )


def test_round_start_first_call_is_only_recorded() -> None:
    """docs/games/spit.md#round-start, docs/games/common.md#joint-calls"""
    events, after = apply(ready(), 1, SPIT)
    assert events == [SpitCalled(1, None)]
    assert after.called == frozenset({1}) and after.phase == "READY"


def test_round_start_second_call_turns_up_a_spit_card_each_onto_own_pile() -> None:
    """docs/games/spit.md#round-start"""
    _, state = apply(ready(), 1, SPIT)
    events, after = apply(state, 0, SPIT)
    assert events == [
        SpitCalled(0, None),
        Spat(0, card("7C"), 0, False),
        Spat(1, card("QD"), 1, False),
        PlayStarted(),
    ]
    assert after.phase == "PLAY"
    assert after.spit_piles == (C("7C"), C("QD"))
    assert after.spit_cards == (C("9H"), C("AS"))
    assert after.called == frozenset() and after.call_targets == (None, None)


def test_round_start_player_without_spit_cards_starts_no_pile() -> None:
    """docs/games/spit.md#round-start"""
    state = table(
        STUCK_P0, ("2D", "3D 4H"), sp=("", ""), spit_cards=("7C", ""), phase="READY",
        called=(True, False),
    )  # fmt: skip
    events, after = apply(state, 1, SPIT)
    assert events == [SpitCalled(1, None), Spat(0, card("7C"), 0, False), PlayStarted()]
    assert after.spit_piles == (C("7C"), ())


def test_repeated_call_is_accepted_but_never_triggers_the_effect() -> None:
    """docs/games/common.md#joint-calls"""
    _, state = apply(ready(), 0, SPIT)
    events, after = apply(state, 0, SPIT)
    assert events == [SpitCalled(0, None)]
    assert after.phase == "READY" and after.called == frozenset({0})
    assert not G.is_sensible(state, 0, SPIT)  # bots never repeat a call
    assert G.is_sensible(state, 1, SPIT)


def test_ready_allows_only_the_start_call() -> None:
    """docs/games/common.md#actions-per-phase"""
    state = ready()
    assert rejected(state, 0, Play(0, 0)) == RejectCode.INVALID_PHASE
    assert rejected(state, 0, Flip(0)) == RejectCode.INVALID_PHASE
    assert rejected(state, 0, Move(0, 3)) == RejectCode.INVALID_PHASE
    assert rejected(state, 0, Slap(0)) == RejectCode.INVALID_PHASE
    assert rejected(state, 0, TakePile(0)) == RejectCode.INVALID_PHASE
    assert rejected(state, 0, Spit(0)) == RejectCode.INVALID_TARGET  # no spit pile exists yet
    assert G.legal_commands(state, 0) == [SPIT]


# --------------------------------------------------------------------------- play


@pytest.mark.parametrize(
    ("top", "played"), [("8H", "7S"), ("8H", "9S"), ("KC", "AD"), ("AC", "KD"), ("AC", "2D")]
)
def test_play_one_up_or_down_turning_the_corner(top: str, played: str) -> None:
    """docs/games/spit.md#playing, docs/games/common.md#cards"""
    state = table((played,), ("QS",), sp=(top, "5C"))
    events, after = apply(state, 0, Play(0, 0))
    assert events[0] == CardPlayed(0, 0, 0, card(played))
    assert after.spit_piles[0] == C(f"{top} {played}")


def test_play_onto_either_spit_pile_including_the_opponents() -> None:
    """docs/games/spit.md#playing"""
    state = table(("2S", "QH"), ("2D",), spit_cards=("3C", ""))
    events, after = apply(state, 0, Play(1, 1))
    assert events == [CardPlayed(0, 1, 1, card("QH"))]
    assert after.spit_piles[1] == C("KC QH")
    assert after.layouts[0][1] == () and after.up[0][1] == 0


def test_play_uncovers_a_face_down_card_that_stays_face_down() -> None:
    """docs/games/spit.md#playing"""
    state = table(("2C", "4D 7S"), ("2D",), spit_cards=("3C", ""))
    events, after = apply(state, 0, Play(1, 0))
    assert events == [CardPlayed(0, 1, 0, card("7S"))]
    assert after.layouts[0][1] == C("4D") and after.up[0][1] == 0


def test_play_must_be_adjacent_else_illegal_card() -> None:
    """docs/games/spit.md#playing"""
    state = table(("5S", "2C"), ("2D",), spit_cards=("3C", ""))
    assert rejected(state, 0, Play(0, 0)) == RejectCode.ILLEGAL_CARD
    assert rejected(state, 0, Play(0, 1)) == RejectCode.ILLEGAL_CARD


def test_equal_rank_is_illegal_by_default() -> None:
    """docs/games/spit.md#playing, docs/games/spit.md#decisions"""
    state = table(("8S", "2C"), ("2D",), spit_cards=("3C", ""))
    assert rejected(state, 0, Play(0, 0)) == RejectCode.ILLEGAL_CARD


def test_play_checks_in_order() -> None:
    """docs/games/common.md#order-of-checks"""
    state = table(
        ("5S", "", "4D 9C"), ("2D",), sp=("8H", ""), up=[(1, 0, 0)], spit_cards=("3C", "")
    )
    assert rejected(state, 0, Play(5, 0)) == RejectCode.INVALID_TARGET  # no stock pile 5
    assert rejected(state, 0, Play(-1, 0)) == RejectCode.INVALID_TARGET
    assert rejected(state, 0, Play(1, 1)) == RejectCode.INVALID_TARGET  # SP1 does not exist
    assert rejected(state, 0, Play(0, 2)) == RejectCode.INVALID_TARGET
    assert rejected(state, 0, Play(1, 0)) == RejectCode.CARD_NOT_AVAILABLE  # empty stock pile
    assert rejected(state, 0, Play(2, 0)) == RejectCode.FACE_DOWN  # 9♣ would fit, but face down
    assert rejected(state, 0, Play(0, 0)) == RejectCode.ILLEGAL_CARD


def test_expect_top_mismatch_is_stale_and_checked_before_the_play_itself() -> None:
    """docs/games/common.md#expectations, docs/games/common.md#order-of-checks"""
    state = table(("7S", "5D"), ("2D",), spit_cards=("3C", ""))
    assert rejected(state, 0, Play(0, 0, expect_top=card("9H"))) == RejectCode.STALE_ACTION
    assert rejected(state, 0, Play(1, 0, expect_top=card("9H"))) == RejectCode.STALE_ACTION
    assert rejected(state, 0, Play(4, 0, expect_top=card("9H"))) == RejectCode.STALE_ACTION
    events, _ = apply(state, 0, Play(0, 0, expect_top=card("8H")))
    assert events == [CardPlayed(0, 0, 0, card("7S"))]


def test_race_second_play_on_same_pile_is_judged_against_the_new_top() -> None:
    """docs/games/spit.md#races"""
    # Both see 8♥ on SP0. Seat 0's 7♠ lands first; seat 1's 9♦ no longer fits, its 6♣ does.
    state = table(("7S", "2C"), ("9D", "6C"), spit_cards=("3C", "4C"))
    _, after = apply(state, 0, Play(0, 0))
    assert rejected(after, 1, Play(0, 0)) == RejectCode.ILLEGAL_CARD
    assert after.layouts[1][0] == C("9D")  # the card stays on its stock pile
    events, after2 = apply(after, 1, Play(1, 0))
    assert events == [CardPlayed(1, 1, 0, card("6C"))]  # it happens to fit the new top
    assert after2.spit_piles[0] == C("8H 7S 6C")


def test_race_with_expect_top_gets_stale_instead_of_an_accidental_landing() -> None:
    """docs/games/spit.md#races, docs/games/common.md#expectations"""
    state = table(("7S", "2C"), ("9D", "6C"), spit_cards=("3C", "4C"))
    _, after = apply(state, 0, Play(0, 0))
    assert rejected(after, 1, Play(1, 0, expect_top=card("8H"))) == RejectCode.STALE_ACTION


# --------------------------------------------------------------------------- flip, move


def test_flip_turns_up_a_face_down_top() -> None:
    """docs/games/spit.md#playing"""
    state = table(("2C", "4D"), ("2D",), up=[(1, 0)], spit_cards=("3C", ""))
    events, after = apply(state, 0, Flip(1))
    assert events == [Flipped(0, 1, card("4D"), False)]
    assert after.up[0][1] == 1


def test_flip_checks() -> None:
    """docs/games/spit.md#playing"""
    state = table(("5C", "4D", ""), ("2D",), up=[(1, 0, 0)], spit_cards=("3C", ""))
    assert rejected(state, 0, Flip(0)) == RejectCode.ALREADY_FACE_UP
    assert rejected(state, 0, Flip(2)) == RejectCode.INVALID_TARGET  # empty pile
    assert rejected(state, 0, Flip(5)) == RejectCode.INVALID_TARGET
    assert rejected(state, 1, Flip(0)) == RejectCode.ALREADY_FACE_UP  # seat 1's own pile 0


def test_move_a_face_up_top_into_an_empty_space() -> None:
    """docs/games/spit.md#playing"""
    state = table(("2S", "", "4D 5C"), ("2D",), spit_cards=("3C", ""))
    events, after = apply(state, 0, Move(2, 1))
    assert events == [Moved(0, 2, 1, card("5C"))]
    assert after.layouts[0][1:3] == (C("5C"), C("4D"))
    assert after.up[0][1:3] == (1, 0)  # the moved card is face up; 4♦ waits to be flipped


def test_move_checks_in_order() -> None:
    """docs/games/common.md#order-of-checks"""
    state = table(("", "4D 5C", "9S 2S", ""), ("2D",), up=[(0, 1, 0, 0)], spit_cards=("3C", ""))
    assert rejected(state, 0, Move(1, 5)) == RejectCode.INVALID_TARGET  # never a sixth pile
    assert rejected(state, 0, Move(5, 0)) == RejectCode.INVALID_TARGET
    assert rejected(state, 0, Move(3, 1)) == RejectCode.NO_EMPTY_SPACE  # before CardNotAvailable
    assert rejected(state, 0, Move(3, 0)) == RejectCode.CARD_NOT_AVAILABLE
    assert rejected(state, 0, Move(2, 0)) == RejectCode.FACE_DOWN


def test_move_exposing_nothing_is_legal_but_not_sensible() -> None:
    """docs/games/spit.md#stuck"""
    state = table(("5C", "", "4D 9S"), ("2D",), spit_cards=("3C", ""))
    events, _ = apply(state, 0, Move(0, 1))
    assert events == [Moved(0, 0, 1, card("5C"))]
    assert not G.is_sensible(state, 0, Move(0, 1))  # could loop forever
    assert G.is_sensible(state, 0, Move(2, 1))  # uncovers 4♦


# --------------------------------------------------------------------------- stuck


def test_stuck_when_neither_player_can_play_flip_or_expose() -> None:
    """docs/games/spit.md#stuck"""
    assert is_stuck(stuck())
    events, after = apply(stuck(), 0, SPIT)
    assert events == [SpitCalled(0, None)]
    assert after.called == frozenset({0})


def test_not_stuck_while_the_other_player_can_play() -> None:
    """docs/games/spit.md#stuck"""
    state = table(STUCK_P0, (*STUCK_P1[:4], "JS JD 4S 8S 9D"), spit_cards=("7C", "QD"))
    assert rejected(state, 0, SPIT) == RejectCode.NOT_STUCK


def test_not_stuck_while_a_face_down_top_can_be_flipped() -> None:
    """docs/games/spit.md#stuck, docs/games/spit.md#decisions"""
    # Seat 1 played 6♦ off its pile 4 (a face-down pile never holds all five cards).
    state = table(
        STUCK_P0, (*STUCK_P1[:4], "JS JD 4S 8S"), up=[(1, 1, 1, 1, 1), (1, 1, 1, 1, 0)],
        spit_cards=("7C 9H", "QD AS"),
    )  # fmt: skip
    assert rejected(state, 0, SPIT) == RejectCode.NOT_STUCK


def test_not_stuck_while_a_move_would_expose_a_card() -> None:
    """docs/games/spit.md#stuck"""
    state = table(("", *STUCK_P0[1:]), STUCK_P1, spit_cards=("7C", "QD"))  # 4♣ can move, uncover 3♥
    assert rejected(state, 1, SPIT) == RejectCode.NOT_STUCK


def test_stuck_although_a_move_exposing_nothing_is_possible() -> None:
    """docs/games/spit.md#stuck"""
    state = table(
        ("2S", "", "", "", "6S"), ("2D", "", "", "", "6D"), spit_cards=("7C", "QD")
    )  # only single-card piles and spaces: moves are legal but expose nothing
    assert Move(0, 1) in G.legal_commands(state, 0)
    assert is_stuck(state)
    assert spit.decide(state, 0, SPIT) == [SpitCalled(0, None)]


def test_stack_variant_an_exposing_stack_prevents_stuck() -> None:
    """docs/games/spit.md#stuck, docs/games/spit.md#decisions"""
    r = rules(stack_equal_in_layout=True)
    # 5♦ 5♠ 6♥ is seat 0's pile 2; a 6 on pile 4 (6♠) can take 6♥ and uncover 5♠.
    state = stuck(rules=r)
    assert not is_stuck(state)
    assert rejected(state, 0, SPIT) == RejectCode.NOT_STUCK
    # Equal ranks on single-card piles only: stacking is legal but counts for nothing.
    single = table(
        ("6H", "6S", "2C", "3C", "4C"), ("2D", "3D", "4D", "5D", "10D"), rules=r,
        spit_cards=("7C", "QD"),
    )  # fmt: skip
    assert Stack(0, 1) in G.legal_commands(single, 0)
    assert is_stuck(single)


# --------------------------------------------------------------------------- stalemate


def test_stalemate_both_spit_onto_their_own_piles_when_both_have_called() -> None:
    """docs/games/spit.md#stalemate"""
    _, state = apply(stuck(), 1, SPIT)
    events, after = apply(state, 0, SPIT)
    assert events == [
        SpitCalled(0, None),
        Spat(0, card("7C"), 0, False),
        Spat(1, card("QD"), 1, False),
    ]
    assert after.spit_piles == (C("8H 7C"), C("KC QD"))
    assert after.spit_cards == (C("9H"), C("AS"))
    assert after.called == frozenset() and after.locked is None


def test_stalemate_needs_both_calls_even_from_a_player_without_spit_cards() -> None:
    """docs/games/spit.md#stalemate"""
    state = stuck(spit_cards=("7C 9H", ""))
    events, after = apply(state, 0, SPIT)
    assert events == [SpitCalled(0, None)]  # seat 1's call is still required
    events, after = apply(after, 1, SPIT)
    assert events == [SpitCalled(1, None), Spat(0, card("7C"), 0, True)]


def test_solo_spit_defaults_to_own_pile_and_locks_it() -> None:
    """docs/games/spit.md#stalemate"""
    _, state = apply(stuck(spit_cards=("7C 9H", "")), 1, SPIT)
    _, after = apply(state, 0, SPIT)
    assert after.spit_piles[0] == C("8H 7C") and after.locked == 0


def test_solo_spit_onto_the_named_pile_then_locked_to_it() -> None:
    """docs/games/spit.md#stalemate"""
    _, state = apply(stuck(spit_cards=("7C 9H", "")), 0, Spit(1))
    events, after = apply(state, 1, SPIT)
    assert events == [SpitCalled(1, None), Spat(0, card("7C"), 1, True)]
    assert after.spit_piles[1] == C("KC 7C") and after.locked == 1


def test_later_solo_spit_naming_another_pile_is_spit_pile_locked() -> None:
    """docs/games/spit.md#stalemate"""
    state = stuck(spit_cards=("9H 7D", ""), locked=1)
    assert rejected(state, 0, Spit(0)) == RejectCode.SPIT_PILE_LOCKED
    _, state = apply(state, 0, Spit(1))
    events, after = apply(state, 1, SPIT)
    assert events == [SpitCalled(1, None), Spat(0, card("9H"), 1, False)]
    assert after.locked == 1


def test_later_solo_spit_without_target_goes_on_the_locked_pile() -> None:
    """docs/games/spit.md#stalemate"""
    _, state = apply(stuck(spit_cards=("9H 7D", ""), locked=1), 1, Spit(0))  # ignored: not solo
    events, _ = apply(state, 0, SPIT)
    assert events == [SpitCalled(0, None), Spat(0, card("9H"), 1, False)]


def test_target_of_the_player_who_does_not_spit_is_ignored() -> None:
    """docs/games/spit.md#stalemate"""
    _, state = apply(stuck(spit_cards=("7C 9H", "")), 1, Spit(1))
    events, _ = apply(state, 0, SPIT)
    assert events[-1] == Spat(0, card("7C"), 0, True)


def test_a_further_call_replaces_only_the_callers_target() -> None:
    """docs/games/common.md#joint-calls"""
    _, state = apply(stuck(spit_cards=("7C 9H", "")), 0, Spit(1))
    events, state = apply(state, 0, Spit(0))
    assert events == [SpitCalled(0, 0)] and state.call_targets == (0, None)
    events, _ = apply(state, 1, SPIT)
    assert events[-1] == Spat(0, card("7C"), 0, True)


def test_spit_checks_in_order() -> None:
    """docs/games/common.md#order-of-checks"""
    one_pile = stuck(sp=("8H", ""), spit_cards=("7C", ""))
    assert rejected(one_pile, 0, Spit(1)) == RejectCode.INVALID_TARGET  # SP1 does not exist
    assert rejected(one_pile, 0, Spit(2)) == RejectCode.INVALID_TARGET
    playable = table(STUCK_P0, (*STUCK_P1[:4], "JS JD 4S 8S 9D"), spit_cards=("7C", ""), locked=0)
    assert rejected(playable, 0, Spit(5)) == RejectCode.NOT_STUCK  # NotStuck comes first
    locked = stuck(spit_cards=("7C", ""), locked=0)
    assert rejected(locked, 0, Spit(2)) == RejectCode.INVALID_TARGET  # before SpitPileLocked
    assert rejected(locked, 0, Spit(1)) == RejectCode.SPIT_PILE_LOCKED


def test_lock_is_cleared_at_every_round_start() -> None:
    """docs/games/spit.md#stalemate, docs/games/common.md#positions"""
    _, after = apply(slap_phase(locked=1, spit_cards=("4H 5H", "")), 0, Slap(1))
    assert after.locked is None  # the new layout starts a new round
    _, after = apply(after, 0, SPIT)
    _, after = apply(after, 1, SPIT)
    assert after.locked is None and after.phase == "PLAY"
    with pytest.raises(InvalidPosition, match="locked"):  # so no READY position has a lock
        ready(locked=1)


def test_stalemate_calls_are_sensible_once_per_seat() -> None:
    """docs/games/spit.md#stalemate, docs/games/common.md#joint-calls"""
    state = stuck()
    assert SPIT in G.legal_commands(state, 0) and Spit(1) in G.legal_commands(state, 0)
    _, state = apply(state, 0, SPIT)
    assert SPIT in G.legal_commands(state, 0)  # legal: a repeat is accepted …
    assert not G.is_sensible(state, 0, SPIT)  # … but pointless
    assert not G.is_sensible(state, 1, Spit(0))  # a target only matters to a solo spitter
    assert G.is_sensible(state, 1, SPIT)


def test_recorded_call_stays_while_nothing_that_counts_happens() -> None:
    """docs/games/common.md#joint-calls"""
    state = table(("2S", "", "", "", "6S"), ("2D", "", "", "", "6D"), spit_cards=("7C", "QD"))
    _, state = apply(state, 0, SPIT)
    _, state = apply(state, 0, Move(0, 1))  # exposes nothing
    assert state.called == frozenset({0})
    events, _ = apply(state, 1, SPIT)
    assert [type(e) for e in events] == [SpitCalled, Spat, Spat]


# --------------------------------------------------------------------------- round end


def test_round_end_a_layout_emptied_with_two_spit_piles_goes_to_slap() -> None:
    """docs/games/spit.md#round-end,
    docs/games/spit.md#slapping-for-piles,
    docs/games/spit.md#decisions"""
    state = table(("7S",), ("2D", "3D"), spit_cards=("4C", "5C"))
    events, after = apply(state, 0, Play(0, 0))
    assert events == [CardPlayed(0, 0, 0, card("7S")), RoundEnded("layout_empty", 0, "slap")]
    assert after.phase == "SLAP"
    assert after.spit_cards == (C("4C"), C("5C"))  # kept for the new packet (Decisions, 7)


def test_round_end_b_stuck_with_no_spit_cards_after_a_play() -> None:
    """docs/games/spit.md#round-end"""
    # After 9♥ goes on 8♥ nothing fits 9♥ or K♣, nothing is face down, nothing can be exposed.
    state = table(("2S", "9H"), ("2D", "4D"))
    events, after = apply(state, 0, Play(1, 0))
    assert events == [CardPlayed(0, 1, 0, card("9H")), RoundEnded("stuck", None, "slap")]
    assert after.phase == "SLAP"


def test_round_end_b_after_a_flip() -> None:
    """docs/games/spit.md#round-end"""
    state = table(("2S", "4D"), ("2D",), up=[(1, 0)])
    events, after = apply(state, 0, Flip(1))
    assert events == [Flipped(0, 1, card("4D"), False), RoundEnded("stuck", None, "slap")]
    assert after.phase == "SLAP"


def test_round_end_b_after_the_last_spit_cards_when_still_stuck() -> None:
    """docs/games/spit.md#round-end"""
    _, state = apply(stuck(spit_cards=("9C", "QH")), 0, SPIT)  # neither unlocks a play
    events, after = apply(state, 1, SPIT)
    assert events == [
        SpitCalled(1, None),
        Spat(0, card("9C"), 0, False),
        Spat(1, card("QH"), 1, False),
        RoundEnded("stuck", None, "slap"),
    ]
    assert after.phase == "SLAP"


def test_no_round_end_while_stuck_but_spit_cards_remain() -> None:
    """docs/games/spit.md#round-end"""
    state = table(("2S", "9H"), ("2D", "4D"), spit_cards=("", "5C"))
    events, after = apply(state, 0, Play(1, 0))
    assert events == [CardPlayed(0, 1, 0, card("9H"))]
    assert after.phase == "PLAY" and is_stuck(after)


def test_round_end_a_and_b_together_count_as_a_only() -> None:
    """docs/games/spit.md#round-end"""
    state = table(("9H",), ("2D", "4D"))
    events, _ = apply(state, 0, Play(0, 0))
    assert events[-1] == RoundEnded("layout_empty", 0, "slap")


# --------------------------------------------------------------------------- slap phase


def slap_phase(spit_cards: tuple[str, str] = ("4H 5H", "5C"), **kw: Any) -> State:
    return table(
        ("",), ("2D", "3D 4C"), sp=("8H 7S 6D", "KC"), spit_cards=spit_cards, phase="SLAP", **kw
    )


def test_first_slap_takes_the_named_pile_and_the_other_gets_the_other() -> None:
    """docs/games/spit.md#slapping-for-piles, docs/games/spit.md#new-packets"""
    state = slap_phase()
    events, after = apply(state, 1, Slap(1))
    assert events[0] == PileClaimed(1, 1, "slap")
    new = events[1]
    assert isinstance(new, NewLayout) and new.takers == (0, 1) and new.winner is None
    # [ENGINE] packets before the shuffle: pile taken, own spit cards, own stock piles.
    p0 = shuffled(0, 1, [*C("8H 7S 6D"), *C("4H 5H")])
    p1 = shuffled(0, 2, [*C("KC"), *C("5C"), *C("2D 3D 4C")])
    assert (new.layouts[0], new.spit_cards[0]) == lay_out(p0, 5)
    assert (new.layouts[1], new.spit_cards[1]) == lay_out(p1, 5)
    assert after.phase == "READY" and after.spit_piles == ((), ())
    assert after.shuffles == 2 and after.round == 2
    assert after.called == frozenset() and after.locked is None


def test_a_later_slap_is_invalid_phase() -> None:
    """docs/games/spit.md#slapping-for-piles, docs/games/spit.md#decisions"""
    _, after = apply(slap_phase(), 0, Slap(0))
    assert rejected(after, 1, Slap(0)) == RejectCode.INVALID_PHASE
    assert rejected(after, 1, Slap(1)) == RejectCode.INVALID_PHASE


def test_slap_phase_allows_only_slaps_on_existing_piles() -> None:
    """docs/games/spit.md#slapping-for-piles, docs/games/common.md#actions-per-phase"""
    state = slap_phase()
    assert rejected(state, 0, Slap(2)) == RejectCode.INVALID_TARGET
    assert rejected(state, 0, Play(0, 0)) == RejectCode.INVALID_PHASE
    assert rejected(state, 0, SPIT) == RejectCode.INVALID_PHASE
    assert rejected(state, 0, TakePile(0)) == RejectCode.INVALID_PHASE
    assert G.legal_commands(state, 0) == [Slap(0), Slap(1)] == G.legal_commands(state, 1)


def test_strategic_players_slap_the_smaller_pile() -> None:
    """docs/games/spit.md#slapping-for-piles"""
    state = slap_phase()
    assert G.is_sensible(state, 0, Slap(1)) and not G.is_sensible(state, 0, Slap(0))


def test_next_round_uses_new_shuffle_streams() -> None:
    """docs/games/spit.md#new-packets"""
    _, after = apply(slap_phase(round=3), 0, Slap(1))  # two shuffles per earlier re-layout
    assert after.round == 4
    p0 = shuffled(0, 5, [*C("KC"), *C("4H 5H")])
    assert (after.layouts[0], after.spit_cards[0]) == lay_out(p0, 5)
    assert after.shuffles == 6


def test_small_packet_means_no_spit_cards_and_a_one_pile_round() -> None:
    """docs/games/spit.md#laying-out, docs/games/spit.md#round-start"""
    _, after = apply(slap_phase(), 1, Slap(1))  # seat 0: 5 cards, seat 1: 7 cards
    assert after.spit_cards == ((), ())
    _, after = apply(after, 0, SPIT)
    _, after = apply(after, 1, SPIT)
    assert after.spit_piles == ((), ()) and after.phase == "PLAY"
    lay0, spit0 = lay_out(standard_deck()[:16], 5)  # 16 cards: one spit card
    state = position([lay0, [C("KD")]], spit_cards=[spit0, ()], phase="READY")
    _, after = apply(state, 0, SPIT)
    _, after = apply(after, 1, SPIT)
    assert after.spit_piles == (spit0, ())


# --------------------------------------------------------------------------- one-pile rounds


def test_one_pile_a_emptier_takes_nothing_and_wins_with_an_empty_packet() -> None:
    """docs/games/spit.md#slapping-for-piles, docs/games/spit.md#end-of-the-game"""
    state = table(("7S",), ("2D", "3D"), sp=("", "9C 8H"), spit_cards=("", "4C 5C"))
    events, after = apply(state, 0, Play(0, 1))
    assert events[:2] == [CardPlayed(0, 0, 1, card("7S")), RoundEnded("layout_empty", 0, "none")]
    new = events[2]
    assert isinstance(new, NewLayout) and new.takers == (None, 1) and new.winner == 0
    assert new.layouts == ((((),) * 5), (((),) * 5))  # the game is over: nothing is laid out
    assert Counter(new.spit_cards[1]) == Counter(C("9C 8H 7S 4C 5C 2D 3D"))
    assert after.phase == "OVER" and after.winner == 0
    assert G.outcome(after) == Outcome(Termination.OUT_OF_CARDS, (0,))
    assert rejected(after, 1, SPIT) == RejectCode.GAME_OVER
    assert rejected(after, 0, Slap(0)) == RejectCode.GAME_OVER
    assert G.legal_commands(after, 0) == []


def test_one_pile_a_emptier_keeps_spit_cards_and_does_not_win() -> None:
    """docs/games/spit.md#new-packets, docs/games/spit.md#decisions"""
    state = table(("7S",), ("2D", "3D"), sp=("9C 8H", ""), spit_cards=("4C", ""))
    events, after = apply(state, 0, Play(0, 0))
    new = events[-1]
    assert isinstance(new, NewLayout) and new.takers == (1, None) and new.winner is None
    assert after.layouts[0][0] == C("4C") and after.phase == "READY"
    assert Counter(G.cards_in_play(after)) == Counter(C("9C 8H 7S 4C 2D 3D"))


def test_one_pile_b_pile_goes_back_to_its_starter() -> None:
    """docs/games/spit.md#slapping-for-piles, docs/games/spit.md#decisions"""
    state = table(("2S", "9H"), ("4D", "JD"), sp=("", "8H"))
    events, after = apply(state, 0, Play(1, 1))
    assert events[1] == RoundEnded("stuck", None, "none")
    new = events[2]
    assert isinstance(new, NewLayout) and new.takers == (None, 1)
    assert Counter(c for pile in after.layouts[0] for c in pile) == Counter(C("2S"))
    assert Counter(c for pile in after.layouts[1] for c in pile) == Counter(C("4D JD 8H 9H"))
    assert after.round == 2


def test_one_pile_stalemate_owner_fewer_layout_cards() -> None:
    """docs/games/spit.md#variant-flags"""
    r = rules(one_pile_stalemate_owner="fewer_layout_cards")
    state = table(("2S", "9H"), ("4D", "JD"), sp=("", "8H"), rules=r)
    events, _ = apply(state, 0, Play(1, 1))  # seat 0 then holds 1 layout card, seat 1 holds 2
    assert isinstance(events[2], NewLayout) and events[2].takers == (None, 0)
    tie = table(("2S", "9H", "4C"), ("4D", "JD"), sp=("", "8H"), rules=r)
    events, _ = apply(tie, 0, Play(1, 1))
    assert isinstance(events[2], NewLayout) and events[2].takers == (None, 1)  # tie: the starter


# --------------------------------------------------------------------------- choose


def test_pile_claim_choose_the_emptier_chooses_with_take_pile() -> None:
    """docs/games/spit.md#variant-flags, docs/games/common.md#order-of-checks"""
    r = rules(pile_claim="choose")
    state = table(("7S",), ("2D", "3D"), spit_cards=("4C", "5C"), rules=r)
    events, after = apply(state, 0, Play(0, 0))
    assert events[-1] == RoundEnded("layout_empty", 0, "choose")
    assert after.phase == "CHOOSE" and after.chooser == 0
    assert rejected(after, 1, TakePile(0)) == RejectCode.NOT_CHOOSER
    assert rejected(after, 1, TakePile(7)) == RejectCode.NOT_CHOOSER  # before InvalidTarget
    assert rejected(after, 0, TakePile(2)) == RejectCode.INVALID_TARGET
    assert rejected(after, 0, Slap(0)) == RejectCode.INVALID_PHASE
    assert G.legal_commands(after, 1) == []
    assert G.legal_commands(after, 0) == [TakePile(0), TakePile(1)]
    events, after = apply(after, 0, TakePile(1))
    assert events[0] == PileClaimed(0, 1, "choose")
    assert isinstance(events[1], NewLayout) and events[1].takers == (1, 0)
    assert after.phase == "READY" and after.chooser is None


def test_pile_claim_choose_stalemate_end_still_slaps() -> None:
    """docs/games/spit.md#variant-flags"""
    r = rules(pile_claim="choose")
    state = table(("2S", "9H"), ("2D", "4D"), rules=r)
    events, _ = apply(state, 0, Play(1, 0))
    assert events[-1] == RoundEnded("stuck", None, "slap")


# --------------------------------------------------------------------------- other flags


def test_alternate_colours() -> None:
    """docs/games/spit.md#variant-flags, docs/games/common.md#cards"""
    r = rules(alternate_colours=True)
    state = table(("7D", "7S"), ("2D",), rules=r, spit_cards=("3C", ""))
    assert rejected(state, 0, Play(0, 0)) == RejectCode.ILLEGAL_CARD  # red on 8♥
    events, _ = apply(state, 0, Play(1, 0))
    assert events == [CardPlayed(0, 1, 0, card("7S"))]


def test_allow_equal_rank() -> None:
    """docs/games/spit.md#variant-flags"""
    state = table(("8S", "2C"), ("2D",), rules=rules(allow_equal_rank=True), spit_cards=("3C", ""))
    events, _ = apply(state, 0, Play(0, 0))
    assert events == [CardPlayed(0, 0, 0, card("8S"))]


def test_wrap_off_means_no_k_a_adjacency() -> None:
    """docs/games/spit.md#variant-flags"""
    state = table(("AS", "QS"), ("2D",), rules=rules(wrap=False), spit_cards=("3C", ""))
    assert rejected(state, 0, Play(0, 1)) == RejectCode.ILLEGAL_CARD
    events, _ = apply(state, 0, Play(1, 1))
    assert events == [CardPlayed(0, 1, 1, card("QS"))]


def test_stack_equal_in_layout() -> None:
    """docs/games/spit.md#variant-flags"""
    r = rules(stack_equal_in_layout=True)
    state = table(("6S", "4D 6H", "", "3D 5C"), ("2D",), rules=r, up=[(1, 1, 0, 0)])
    events, after = apply(state, 0, Stack(1, 0))
    assert events == [Stacked(0, 1, 0, card("6H"))]
    assert after.layouts[0][:2] == (C("6S 6H"), C("4D"))
    assert after.up[0][:2] == (2, 0)
    # The covered 6♠ is face up: playing 6♥ off leaves 6♠ face up on top.
    state2 = position(after.layouts, up=after.up, spit_piles=[C("7C"), ()], rules=r)
    _, after2 = apply(state2, 0, Play(0, 0))
    assert after2.up[0][0] == 1 and after2.layouts[0][0] == C("6S")


def test_stack_checks() -> None:
    """docs/games/spit.md#variant-flags"""
    r = rules(stack_equal_in_layout=True)
    state = table(("6S", "4D 6H", "", "3D 5C", "9C"), ("2D",), rules=r, up=[(1, 1, 0, 0, 1)])
    assert rejected(state, 0, Stack(1, 5)) == RejectCode.INVALID_TARGET
    assert rejected(state, 0, Stack(1, 1)) == RejectCode.INVALID_TARGET
    assert rejected(state, 0, Stack(2, 0)) == RejectCode.CARD_NOT_AVAILABLE
    assert rejected(state, 0, Stack(3, 0)) == RejectCode.FACE_DOWN
    assert rejected(state, 0, Stack(1, 2)) == RejectCode.INVALID_TARGET  # empty: use move
    assert rejected(state, 0, Stack(1, 3)) == RejectCode.FACE_DOWN
    assert rejected(state, 0, Stack(1, 4)) == RejectCode.ILLEGAL_CARD
    default = table(("6S", "4D 6H"), ("2D",))
    assert rejected(default, 0, Stack(1, 0)) == RejectCode.INVALID_PHASE  # variant off


def test_auto_flip_turns_up_uncovered_tops() -> None:
    """docs/games/spit.md#variant-flags"""
    r = rules(auto_flip=True)
    state = table(("", "4D 7S", "2H 3C"), ("2D",), rules=r, spit_cards=("3S", ""))
    events, after = apply(state, 0, Play(1, 0))
    assert events == [CardPlayed(0, 1, 0, card("7S")), Flipped(0, 1, card("4D"), True)]
    assert after.up[0][1] == 1
    events, _ = apply(after, 0, Move(2, 0))
    assert events == [Moved(0, 2, 0, card("3C")), Flipped(0, 2, card("2H"), True)]


def test_num_stock_piles_4_has_no_fifth_space() -> None:
    """docs/games/spit.md#playing, docs/games/spit.md#variant-flags"""
    state = table(("7S", "", "", ""), ("2D",), rules=rules(num_stock_piles=4))
    assert rejected(state, 0, Move(0, 4)) == RejectCode.INVALID_TARGET
    assert len(state.layouts[0]) == 4


# --------------------------------------------------------------------------- leaving


def test_a_resignation_ends_the_game_where_it_stands_and_clears_the_calls() -> None:
    """docs/games/spit.md#leaving, docs/games/common.md#resign"""
    # A lone spitter's pile is locked and its call (naming pile 1) is recorded.
    _, state = apply(stuck(spit_cards=("9H 7D", ""), locked=1), 0, Spit(1))
    events, after = apply(state, 1, kit.Resign())
    assert events == [Resigned(1)]
    assert G.outcome(after) == Outcome(Termination.RESIGNED, (0,))
    # Phase, cards and lock as they were; the call can no longer take effect.
    assert after == state._replace(
        called=frozenset(), call_targets=(None, None), winner=0, resigned=1
    )
    assert after.phase == "PLAY" and after.locked == 1
    assert rejected(after, 0, SPIT) == RejectCode.GAME_OVER
    assert rejected(after, 0, kit.Resign()) == RejectCode.GAME_OVER


# --------------------------------------------------------------------------- views


def test_views_show_face_up_cards_and_counts_never_a_face_down_card() -> None:
    """docs/games/spit.md#setup"""
    state = table(
        ("7S", "", "4D 9C", "2H 3H 5S"), ("2D", "JD QD"), up=[(1, 0, 0, 1), (1, 1)],
        sp=("8H 6C", "KC"), spit_cards=("4C 5C", "AS"),
    )  # fmt: skip
    for viewer in (0, 1, Role.SPECTATOR):
        v = G.view(state, viewer)
        hidden = (C("7S"), (), (HIDDEN, HIDDEN), (HIDDEN, HIDDEN, card("5S")))
        assert v.layouts[0][:4] == hidden
        assert v.layouts[1][:2] == (C("2D"), (HIDDEN, card("QD")))
        assert v.spit_piles == (C("8H 6C"), C("KC"))  # whole spit piles are face up
        assert v.spit_counts == (2, 1) and v.spit_cards == ((HIDDEN, HIDDEN), (HIDDEN,))
    ref = G.view(state, Role.REFEREE)
    assert ref.layouts[0][2] == C("4D 9C") and ref.spit_cards == (C("4C 5C"), C("AS"))


def test_views_blind_to_reshuffled_face_down_cards() -> None:
    """docs/games/spit.md#setup, docs/adding-a-game.md#6-shuffle_hidden-and-cards_in_play"""
    state = table(
        ("7S", "", "4D 9C", "2H 3H 5S"), ("2D", "JD QD"), up=[(1, 0, 0, 1), (1, 1)],
        spit_cards=("4C 5C", "AS"),
    )  # fmt: skip
    for viewer in (0, 1, Role.SPECTATOR):
        alt = G.shuffle_hidden(state, viewer, Rng(3, 0))
        assert Counter(G.cards_in_play(alt)) == Counter(G.cards_in_play(state))
        assert codec.encode(G.view(alt, viewer)) == codec.encode(G.view(state, viewer))


def test_redacted_deal_hides_face_down_and_spit_cards_from_their_owner_too() -> None:
    """docs/games/spit.md#setup, docs/adding-a-game.md#5-views-and-redaction"""
    (dealt,) = spit.deal(G.make_setup(2, 11))
    assert isinstance(dealt, Dealt)
    red = G.redact(dealt, 0)
    assert isinstance(red, Dealt)
    assert red.layouts[0][4][:4] == (HIDDEN,) * 4 and red.layouts[0][4][4] == dealt.layouts[0][4][4]
    assert red.spit_cards[0] == (HIDDEN,) * 11
    assert G.redact(dealt, Role.REFEREE) == dealt


# --------------------------------------------------------------------------- narration, bots


def test_narration_makes_races_readable() -> None:
    """docs/disputes.md#what-happened-replay"""
    assert G.narrate(CardPlayed(0, 2, 1, card("7H"))).startswith("seat 0 played 7♥ on spit pile 1")
    assert G.narrate(Spat(1, card("QS"), 0, True)).startswith("seat 1 spat Q♠ onto spit pile 0")
    assert "slapped spit pile 1" in G.narrate(PileClaimed(1, 1, "slap"))
    assert "seat 0 emptied" in G.narrate(RoundEnded("layout_empty", 0, "slap"))


@pytest.mark.parametrize(
    "flags",
    [
        {},
        {"num_stock_piles": 4, "pile_claim": "choose"},
        {"stack_equal_in_layout": True, "auto_flip": True},
        {"alternate_colours": True, "wrap": False},
        {"allow_equal_rank": True, "one_pile_stalemate_owner": "fewer_layout_cards"},
    ],
)
def test_sensible_bots_finish_every_variant(flags: dict[str, Any]) -> None:
    """docs/games/spit.md#end-of-the-game, docs/games/spit.md#variant-flags"""
    for seed in range(4):
        setup = G.make_setup(2, seed, flags, event_limit=50_000)
        match = Match(G, setup, record=False)
        result = play_out(match, seat_bots("reaction", 2, seed))
        assert not result.stalled
        assert match.outcome is not None
        assert match.outcome.termination is Termination.OUT_OF_CARDS
