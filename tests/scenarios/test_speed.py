"""Speed scenarios (docs/games/speed.md): given a position with exact cards, when a seat acts, then
exactly these events and this state. One test per rule clause, [ENGINE] decision and flag; a few
seeded bot games per variant check the invariants the contract suite checks for the default
rules."""

from __future__ import annotations

from collections import Counter
from functools import partial
from typing import Any

import pytest

from cardcore import codec, kit
from cardcore.bots import ask, seat_bots
from cardcore.cards import HIDDEN, JOKER, Card, parse_cards, standard_deck
from cardcore.engine import Outcome, Role, Termination
from cardcore.errors import InvalidSetup, RejectCode
from cardcore.games.speed import (
    DRAW,
    FLIP,
    GAME,
    CardDrawn,
    CardPlayed,
    Command,
    Dealt,
    Draw,
    Flip,
    FlipCalled,
    Play,
    Resigned,
    RoundVoided,
    RoundWon,
    Rules,
    SideCardsTurned,
    SidePileRebuilt,
    Started,
    State,
    deal,
    decide,
    evolve,
    is_sensible,
    is_stuck,
    legal_commands,
    narrate,
    outcome,
    position,
    redact,
    shuffle_hidden,
    view,
)
from cardcore.match import Match
from cardcore.registry import get_game
from cardcore.rng import Rng, shuffled

from . import given


def c(text: str) -> Card:
    return Card.parse(text)


def cs(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


act = partial(given.apply, GAME)


def assert_rejected(state: State, seat: int, command: Command, code: RejectCode) -> None:
    assert given.rejected(GAME, state, seat, command) == code


def expected_deal(seed: int, stream: int, rnd: int, side: int = 10, jokers: int = 0) -> Dealt:
    """The deal of docs/games/speed.md#setup spelled out from the shuffled deck, top first."""
    d = shuffled(seed, stream, standard_deck(1, jokers))
    m = (52 + jokers - 2 - 2 * side) // 2
    base = 2 + 2 * side
    p0, p1 = d[base : base + m], d[base + m : base + 2 * m]
    return Dealt(
        rnd,
        stream,
        (d[0], d[1]),
        (tuple(d[2 : 2 + side]), tuple(d[2 + side : base])),
        (tuple(p0[:5]), tuple(p1[:5])),
        (tuple(p0[5:]), tuple(p1[5:])),
    )


# A stuck position: tops 5♠ and 9♥; neither hand holds a 4, 6, 8 or 10.
STUCK_HANDS = (cs("AS 2S JH QH KH"), cs("AC 2C JD QD KD"))
STUCK_DRAWS = (cs("3C"), cs("3D"))
STUCK_CENTRE = (cs("7C 5S"), cs("9H"))
STUCK_SIDES = (cs("6D 7D"), cs("10C 4H"))


def stuck(**kw: Any) -> State:
    args: dict[str, Any] = {
        "centre": STUCK_CENTRE,
        "sides": STUCK_SIDES,
    }
    args.update(kw)
    hands = args.pop("hands", STUCK_HANDS)
    draws = args.pop("draws", STUCK_DRAWS)
    return position(hands, draws, **args)


# --------------------------------------------------------------------------- deal, setup


def test_deal_centre_side_piles_then_draw_piles_and_five_card_hands() -> None:
    """docs/games/speed.md#setup"""
    setup = GAME.make_setup(2, 42)
    events = deal(setup)
    assert events == [expected_deal(42, 0, 1)]
    state = evolve(GAME.initial_state(setup), events[0])
    assert state.phase == "READY" and state.round == 1 and state.shuffles == 0
    assert [len(h) for h in state.hands] == [5, 5]
    assert [len(d) for d in state.draws] == [10, 10]
    assert [len(r) for r in state.sides] == [10, 10]
    assert [len(p) for p in state.centre] == [1, 1]
    assert Counter(GAME.cards_in_play(state)) == Counter(standard_deck())
    assert outcome(state) is None


def test_side_pile_size_5_gives_twenty_cards_per_player() -> None:
    """docs/games/speed.md#setup, docs/games/speed.md#variant-flags"""
    setup = GAME.make_setup(2, 7, {"side_pile_size": 5})
    assert deal(setup) == [expected_deal(7, 0, 1, side=5)]
    state = evolve(GAME.initial_state(setup), deal(setup)[0])
    assert [len(r) for r in state.sides] == [5, 5]
    assert [len(h) + len(d) for h, d in zip(state.hands, state.draws, strict=True)] == [20, 20]


def test_jokers_make_each_draw_pile_one_card_larger() -> None:
    """docs/games/speed.md#setup, docs/games/speed.md#variant-flags"""
    setup = GAME.make_setup(2, 7, {"jokers": 2})
    assert deal(setup) == [expected_deal(7, 0, 1, jokers=2)]
    state = evolve(GAME.initial_state(setup), deal(setup)[0])
    assert [len(d) for d in state.draws] == [11, 11]
    assert Counter(GAME.cards_in_play(state)) == Counter(standard_deck(1, 2))


@pytest.mark.parametrize(
    ("rules", "field"),
    [
        ({"jokers": 1}, "rules.jokers"),
        ({"best_of": 3, "target_score": 25}, "rules.best_of"),
        ({"best_of": 4}, "rules.best_of"),
        ({"side_pile_size": 21}, "rules.side_pile_size"),
        ({"side_pile_size": 20, "hand_size": 6}, "rules.side_pile_size"),
        ({"score_counts": "hand"}, "rules.score_counts"),
    ],
)
def test_invalid_flag_combinations_are_setup_errors(rules: dict[str, Any], field: str) -> None:
    """docs/games/speed.md#variant-flags"""
    with pytest.raises(InvalidSetup) as info:
        GAME.make_setup(2, 0, rules)
    assert info.value.field == field


@pytest.mark.parametrize("seats", [1, 3])
def test_exactly_two_players(seats: int) -> None:
    """docs/games/speed.md#setup"""
    with pytest.raises(InvalidSetup) as info:
        GAME.make_setup(seats, 0)
    assert info.value.field == "seats"


def test_registered_as_speed() -> None:
    """docs/games/speed.md#speed, docs/games/speed.md#variant-flags"""
    assert get_game("speed") is GAME
    assert GAME.info.min_seats == GAME.info.max_seats == 2 and GAME.info.realtime
    assert Rules() == GAME.make_setup(2, 0).rules
    r = Rules()
    assert (r.side_pile_size, r.hand_size, r.auto_refill, r.wrap) == (10, 5, True, True)
    assert (r.allow_equal_rank, r.multi_card_play, r.jokers) == (False, False, 0)
    assert (r.target_score, r.score_counts, r.best_of) == (None, "stock", None)


# --------------------------------------------------------------------------- start


def ready() -> State:
    # Short hands, so no draw piles: the deal leaves every hand as full as its draw pile allows.
    return position(
        (cs("3S 4S"), cs("3H 4H")), ((), ()), centre=(cs("5D"), cs("KC")), phase="READY"
    )


def test_start_first_flip_call_is_recorded_without_effect() -> None:
    """docs/games/speed.md#start, docs/games/common.md#joint-calls"""
    events, after = act(ready(), 0, FLIP)
    assert events == [FlipCalled(0, False)]
    assert after.phase == "READY" and after.calls == frozenset({0})


def test_start_second_call_turns_both_centre_cards_face_up() -> None:
    """docs/games/speed.md#start"""
    _, called = act(ready(), 1, FLIP)
    events, after = act(called, 0, FLIP)
    assert events == [FlipCalled(0, False), Started((c("5D"), c("KC")))]
    assert after.phase == "PLAY" and after.calls == frozenset()
    assert view(after, 0).centre == (cs("5D"), cs("KC"))


def test_repeated_start_call_counts_once_and_is_not_sensible() -> None:
    """docs/games/common.md#joint-calls"""
    _, called = act(ready(), 0, FLIP)
    assert legal_commands(called, 0) == [FLIP]
    assert not is_sensible(called, 0, FLIP) and is_sensible(called, 1, FLIP)
    events, after = act(called, 0, FLIP)
    assert events == [FlipCalled(0, False)]
    assert after == called and after.phase == "READY"


@pytest.mark.parametrize("command", [Play(c("4S"), 0), DRAW])
def test_play_or_draw_before_the_start_is_invalid_phase(command: Command) -> None:
    """docs/games/common.md#actions-per-phase"""
    assert_rejected(ready(), 0, command, RejectCode.INVALID_PHASE)


def test_centre_cards_are_face_down_before_the_start() -> None:
    """docs/games/speed.md#setup"""
    state = ready()
    assert view(state, 0).centre == ((HIDDEN,), (HIDDEN,))
    assert view(state, Role.SPECTATOR).centre == ((HIDDEN,), (HIDDEN,))
    assert view(state, Role.REFEREE).centre == (cs("5D"), cs("KC"))


# --------------------------------------------------------------------------- play


def playing(**kw: Any) -> State:
    hands = kw.pop("hands", (cs("6S 4H 9C QD 2S"), cs("6H 4S 9D QS 2C")))
    draws = kw.pop("draws", (cs("KS 3C"), cs("KH 3D")))
    kw.setdefault("centre", (cs("5D"), cs("JC")))
    kw.setdefault("sides", (cs("7C"), cs("8C")))
    return position(hands, draws, **kw)


def test_play_one_higher_lands_and_hand_is_refilled_from_draw_pile() -> None:
    """docs/games/speed.md#playing"""
    events, after = act(playing(), 0, Play(c("6S"), 0))
    assert events == [CardPlayed(0, c("6S"), 0), CardDrawn(0, c("KS"))]
    assert after.hands[0] == cs("4H 9C QD 2S KS") and after.draws[0] == cs("3C")
    assert after.centre == (cs("5D 6S"), cs("JC"))


def test_evolved_state_equals_the_position_built_directly() -> None:
    """docs/games/common.md#positions"""
    before = playing()
    _, after = act(before, 0, Play(c("6S"), 0))
    assert after == playing(
        hands=(cs("4H 9C QD 2S KS"), cs("6H 4S 9D QS 2C")),
        draws=(cs("3C"), cs("KH 3D")),
        centre=(cs("5D 6S"), cs("JC")),
    )
    assert hash(after) == hash(playing(
        hands=(cs("4H 9C QD 2S KS"), cs("6H 4S 9D QS 2C")),
        draws=(cs("3C"), cs("KH 3D")),
        centre=(cs("5D 6S"), cs("JC")),
    ))  # fmt: skip
    assert before == playing(), "the state given is unchanged: evolve made a new one"


def test_play_one_lower_onto_either_pile() -> None:
    """docs/games/speed.md#playing"""
    events, after = act(playing(), 1, Play(c("4S"), 0))
    assert events == [CardPlayed(1, c("4S"), 0), CardDrawn(1, c("KH"))]
    events, after = act(playing(), 1, Play(c("QS"), 1))
    assert events == [CardPlayed(1, c("QS"), 1), CardDrawn(1, c("KH"))]
    assert after.centre == (cs("5D"), cs("JC QS"))


def test_play_not_adjacent_is_illegal_card_and_changes_nothing() -> None:
    """docs/games/speed.md#playing, docs/games/common.md#no-side-effects"""
    assert_rejected(playing(), 0, Play(c("9C"), 0), RejectCode.ILLEGAL_CARD)


def test_equal_rank_is_illegal_by_default() -> None:
    """docs/games/speed.md#playing, docs/games/speed.md#decisions"""
    state = playing(centre=(cs("9H"), cs("JC")))
    assert_rejected(state, 0, Play(c("9C"), 0), RejectCode.ILLEGAL_CARD)


def test_allow_equal_rank_doubles() -> None:
    """docs/games/speed.md#variant-flags"""
    state = playing(centre=(cs("9H"), cs("JC")), rules=Rules(allow_equal_rank=True))
    events, _ = act(state, 0, Play(c("9C"), 0))
    assert events[0] == CardPlayed(0, c("9C"), 0)


@pytest.mark.parametrize(("card", "top"), [("KS", "AD"), ("AD", "KS"), ("2S", "AD")])
def test_wrap_around_k_a_2(card: str, top: str) -> None:
    """docs/games/speed.md#playing, docs/games/common.md#cards"""
    state = playing(hands=(cs(f"{card} 4H"), cs("6H")), draws=((), ()), centre=(cs(top), cs("JC")))
    events, _ = act(state, 0, Play(c(card), 0))
    assert events[0] == CardPlayed(0, c(card), 0)


def test_wrap_off_k_and_a_are_not_adjacent() -> None:
    """docs/games/speed.md#variant-flags"""
    rules = Rules(wrap=False)
    state = playing(
        hands=(cs("KS 2S"), cs("6H")), draws=((), ()), centre=(cs("AD"), cs("JC")), rules=rules
    )
    assert_rejected(state, 0, Play(c("KS"), 0), RejectCode.ILLEGAL_CARD)
    events, _ = act(state, 0, Play(c("2S"), 0))
    assert events[0] == CardPlayed(0, c("2S"), 0)


def test_card_not_in_hand_is_card_not_available() -> None:
    """docs/games/speed.md#playing"""
    assert_rejected(playing(), 0, Play(c("6H"), 0), RejectCode.CARD_NOT_AVAILABLE)


@pytest.mark.parametrize("to", [-1, 2])
def test_no_such_centre_pile_is_invalid_target(to: int) -> None:
    """docs/games/speed.md#playing"""
    assert_rejected(playing(), 0, Play(c("6S"), to), RejectCode.INVALID_TARGET)


def test_check_order_for_play() -> None:
    """docs/games/common.md#order-of-checks"""
    state = playing()
    # InvalidTarget before CardNotAvailable before IllegalCard.
    assert_rejected(state, 0, Play(c("6H"), 5), RejectCode.INVALID_TARGET)
    assert_rejected(state, 0, Play(c("7H"), 0), RejectCode.CARD_NOT_AVAILABLE)
    # StaleAction comes before the play's own checks; with no such pile there is no top to check.
    assert_rejected(state, 0, Play(c("7H"), 0, expect_top=c("AS")), RejectCode.STALE_ACTION)
    assert_rejected(state, 0, Play(c("7H"), 5, expect_top=c("AS")), RejectCode.INVALID_TARGET)
    # InvalidPhase before StaleAction; GameOver before everything.
    early = playing(phase="READY")
    assert_rejected(early, 0, Play(c("7H"), 0, expect_top=c("AS")), RejectCode.INVALID_PHASE)
    _, over = act(playing(hands=(cs("6S"), cs("6H")), draws=((), ())), 0, Play(c("6S"), 0))
    assert_rejected(over, 1, Play(c("7H"), 9, expect_top=c("AS")), RejectCode.GAME_OVER)


def test_refill_stops_when_the_draw_pile_is_empty() -> None:
    """docs/games/speed.md#playing"""
    state = playing(draws=((), cs("KH")))
    events, after = act(state, 0, Play(c("6S"), 0))
    assert events == [CardPlayed(0, c("6S"), 0)]
    assert after.hands[0] == cs("4H 9C QD 2S")


def test_hand_size_refills_to_the_configured_size() -> None:
    """docs/games/speed.md#variant-flags"""
    setup = GAME.make_setup(2, 3, {"hand_size": 3})
    state = evolve(GAME.initial_state(setup), deal(setup)[0])
    assert [len(h) for h in state.hands] == [3, 3] and [len(d) for d in state.draws] == [12, 12]
    state = position(
        (cs("6S 9C 2S"), cs("6H")), (cs("KS 3C"), ()), centre=(cs("5D"), cs("JC")),
        rules=Rules(hand_size=3),
    )  # fmt: skip
    events, after = act(state, 0, Play(c("6S"), 0))
    assert events == [CardPlayed(0, c("6S"), 0), CardDrawn(0, c("KS"))]
    assert len(after.hands[0]) == 3


# --------------------------------------------------------------------------- round end


def test_emptying_hand_and_draw_pile_wins_and_scores_opponents_draw_pile() -> None:
    """docs/games/speed.md#scoring, docs/games/speed.md#end-of-the-game"""
    state = playing(hands=(cs("6S"), cs("6H 4S 9D QS 2C")), draws=((), cs("KH 3D 8S")))
    events, after = act(state, 0, Play(c("6S"), 0))
    assert events == [CardPlayed(0, c("6S"), 0), RoundWon(0, 3, (3, 0), (1, 0), True)]
    assert after.phase == "OVER" and after.winner == 0
    assert outcome(after) == Outcome(Termination.OUT_OF_CARDS, (0,), scores=(3, 0))
    assert legal_commands(after, 0) == [] and legal_commands(after, 1) == []


@pytest.mark.parametrize("command", [Play(c("6H"), 0), FLIP, DRAW])
def test_any_action_after_the_win_is_game_over(command: Command) -> None:
    """docs/games/speed.md#end-of-the-game"""
    state = playing(hands=(cs("6S"), cs("6H 4S 9D QS 2C")), draws=((), cs("KH")))
    _, after = act(state, 0, Play(c("6S"), 0))
    assert_rejected(after, 1, command, RejectCode.GAME_OVER)


def test_last_hand_card_with_cards_left_to_draw_does_not_win() -> None:
    """docs/games/speed.md#playing"""
    # With auto_refill a hand runs short of hand_size only once the draw pile is empty: a
    # one-card hand with cards left to draw needs hand_size 1.
    rules = Rules(hand_size=1)
    state = playing(hands=(cs("6S"), cs("6H")), draws=(cs("KS"), ()), rules=rules)
    events, after = act(state, 0, Play(c("6S"), 0))
    assert events == [CardPlayed(0, c("6S"), 0), CardDrawn(0, c("KS"))]
    assert outcome(after) is None


def test_score_counts_stock_and_hand() -> None:
    """docs/games/speed.md#scoring, docs/games/speed.md#decisions"""
    rules = Rules(score_counts="stock_and_hand")
    state = playing(hands=(cs("6S"), cs("6H 4S 9D QS 2C")), draws=((), cs("KH 3D 8S")), rules=rules)
    events, _ = act(state, 0, Play(c("6S"), 0))
    assert events[-1] == RoundWon(0, 8, (8, 0), (1, 0), True)


def test_target_score_round_win_short_of_target_redeals_a_fresh_shuffle() -> None:
    """docs/games/speed.md#scoring"""
    rules = Rules(target_score=10)
    state = playing(
        hands=(cs("6S"), cs("6H 4S 9D QS 2C")), draws=((), cs("KH 3D")), rules=rules, seed=9,
        scores=(4, 7), wins=(1, 2), round=4, shuffles=4,
    )  # fmt: skip
    events, after = act(state, 0, Play(c("6S"), 0))
    assert events == [
        CardPlayed(0, c("6S"), 0),
        RoundWon(0, 2, (6, 7), (2, 2), False),
        expected_deal(9, 5, 5),
    ]
    assert after.phase == "READY" and after.round == 5 and after.shuffles == 5
    assert after.scores == (6, 7) and after.wins == (2, 2) and outcome(after) is None
    assert Counter(GAME.cards_in_play(after)) == Counter(standard_deck())
    # During the re-deal nothing but the start call is allowed
    # (docs/games/common.md#actions-per-phase).
    assert_rejected(after, 1, Play(c("6H"), 0), RejectCode.INVALID_PHASE)
    assert legal_commands(after, 1) == [FLIP]


def test_target_score_reached_ends_the_match_with_totals() -> None:
    """docs/games/speed.md#scoring"""
    rules = Rules(target_score=10)
    state = playing(
        hands=(cs("5S 4H 9C QD 2S"), cs("6H")), draws=(cs("KS 3C"), ()), rules=rules,
        scores=(1, 8), wins=(1, 1), round=3, shuffles=2,
    )  # fmt: skip
    events, after = act(state, 1, Play(c("6H"), 0))
    assert events == [CardPlayed(1, c("6H"), 0), RoundWon(1, 2, (1, 10), (1, 2), True)]
    assert outcome(after) == Outcome(Termination.TARGET_SCORE, (1,), scores=(1, 10))


def test_best_of_three_needs_two_round_wins() -> None:
    """docs/games/speed.md#scoring, docs/games/speed.md#variant-flags"""
    rules = Rules(best_of=3)
    state = playing(
        hands=(cs("6S"), cs("6H 4S 9D QS 2C")), draws=((), cs("KH")), rules=rules, seed=2
    )
    events, after = act(state, 0, Play(c("6S"), 0))
    assert events == [
        CardPlayed(0, c("6S"), 0),
        RoundWon(0, 1, (1, 0), (1, 0), False),
        expected_deal(2, 1, 2),
    ]
    state = playing(
        hands=(cs("6S"), cs("6H 4S 9D QS 2C")), draws=((), cs("KH 3D")), rules=rules,
        wins=(1, 1), scores=(1, 4), round=3, shuffles=2,
    )  # fmt: skip
    events, after = act(state, 0, Play(c("6S"), 0))
    assert events[-1] == RoundWon(0, 2, (3, 4), (2, 1), True)
    # Outcome.scores are the point totals; the series winner may have fewer points.
    assert outcome(after) == Outcome(Termination.TARGET_SCORE, (0,), scores=(3, 4))


# --------------------------------------------------------------------------- races


def race() -> State:
    # Both players hold a card for pile 0 (top 5♦).
    return playing(hands=(cs("6S 7D"), cs("4S 6H")), draws=((), ()))


def test_same_pile_first_card_lands_second_no_longer_fits_is_illegal() -> None:
    """docs/games/speed.md#races"""
    _, after = act(race(), 0, Play(c("6S"), 0))
    assert after.centre[0][-1] == c("6S")
    assert_rejected(after, 1, Play(c("4S"), 0), RejectCode.ILLEGAL_CARD)
    assert after.hands[1] == cs("4S 6H")  # the card stays in hand


def test_same_pile_second_card_fitting_the_new_top_is_accepted() -> None:
    """docs/games/speed.md#races, docs/games/common.md#races"""
    state = playing(hands=(cs("6S 7D"), cs("4S 5H")), draws=((), ()))
    _, after = act(state, 0, Play(c("6S"), 0))
    events, after = act(after, 1, Play(c("5H"), 0))
    assert events == [CardPlayed(1, c("5H"), 0)]
    assert after.centre[0] == cs("5D 6S 5H")


def test_expect_top_turns_an_accidental_fit_into_stale_action() -> None:
    """docs/games/speed.md#races, docs/games/common.md#expectations"""
    state = playing(hands=(cs("6S 7D"), cs("4S 5H")), draws=((), ()))
    _, after = act(state, 0, Play(c("6S"), 0))
    assert_rejected(after, 1, Play(c("5H"), 0, expect_top=c("5D")), RejectCode.STALE_ACTION)
    events, _ = act(after, 1, Play(c("5H"), 0, expect_top=c("6S")))
    assert events == [CardPlayed(1, c("5H"), 0)]


def test_first_player_to_empty_everything_wins_later_play_is_game_over() -> None:
    """docs/games/speed.md#end-of-the-game"""
    state = playing(hands=(cs("6S"), cs("4S")), draws=((), ()))
    _, after = act(state, 0, Play(c("6S"), 0))
    assert outcome(after) is not None
    assert_rejected(after, 1, Play(c("4S"), 0), RejectCode.GAME_OVER)


# --------------------------------------------------------------------------- stalemate


def test_stalemate_definition() -> None:
    """docs/games/speed.md#stalemate"""
    assert is_stuck(stuck())
    assert not is_stuck(stuck(centre=(cs("7C 5S"), cs("10H"))))  # JH and JD fit 10♥
    assert not is_stuck(stuck(phase="READY", centre=(cs("5S"), cs("9H"))))


def test_stalemate_flip_while_a_card_fits_is_not_stuck() -> None:
    """docs/games/speed.md#stalemate"""
    state = stuck(hands=(STUCK_HANDS[0], cs("AC 2C JD QD 4D")))  # 4♦ fits 5♠
    assert_rejected(state, 0, FLIP, RejectCode.NOT_STUCK)  # the opponent's card counts too
    assert_rejected(state, 1, FLIP, RejectCode.NOT_STUCK)
    assert FLIP not in legal_commands(state, 0)


def test_stalemate_with_a_short_hand_when_draw_pile_is_empty() -> None:
    """docs/games/speed.md#stalemate, docs/games/speed.md#decisions"""
    state = stuck(hands=(cs("AS 2S"), STUCK_HANDS[1]), draws=((), STUCK_DRAWS[1]))
    assert is_stuck(state)
    events, _ = act(state, 0, FLIP)
    assert events == [FlipCalled(0, True)]


def test_stalemate_first_call_is_recorded() -> None:
    """docs/games/speed.md#stalemate, docs/games/common.md#joint-calls"""
    events, after = act(stuck(), 1, FLIP)
    assert events == [FlipCalled(1, True)]
    assert after.calls == frozenset({1}) and after.centre == STUCK_CENTRE
    assert legal_commands(stuck(), 0) == [FLIP] and legal_commands(stuck(), 1) == [FLIP]


def test_stalemate_second_call_turns_each_side_pile_top_onto_its_centre_pile() -> None:
    """docs/games/speed.md#stalemate"""
    _, called = act(stuck(), 1, FLIP)
    events, after = act(called, 0, FLIP)
    assert events == [FlipCalled(0, True), SideCardsTurned((c("6D"), c("10C")))]
    assert after.centre == (cs("7C 5S 6D"), cs("9H 10C"))
    assert after.sides == (cs("7D"), cs("4H"))
    assert after.calls == frozenset() and after.phase == "PLAY"


def test_repeated_stalemate_call_counts_once_and_is_not_sensible() -> None:
    """docs/games/common.md#joint-calls"""
    _, called = act(stuck(), 0, FLIP)
    assert legal_commands(called, 0) == [FLIP]
    assert not is_sensible(called, 0, FLIP) and is_sensible(called, 1, FLIP)
    events, after = act(called, 0, FLIP)
    assert events == [FlipCalled(0, True)]
    assert after == called


def test_stalemate_rebuilds_an_empty_side_pile_from_under_the_centre_top() -> None:
    """docs/games/speed.md#stalemate"""
    state = stuck(
        centre=(cs("3H 8D 10S 7H 5S"), cs("9H")), sides=((), cs("10C")), seed=77, shuffles=2,
        calls=[1],
    )  # fmt: skip
    new_r0 = tuple(shuffled(77, 3, list(cs("3H 8D 10S 7H"))))
    events, after = act(state, 0, FLIP)
    assert events == [
        FlipCalled(0, True),
        SidePileRebuilt(0, 3, new_r0),
        SideCardsTurned((new_r0[0], c("10C"))),
    ]
    assert after.centre == ((c("5S"), new_r0[0]), cs("9H 10C"))
    assert after.sides == (new_r0[1:], ())
    assert after.shuffles == 3


def test_each_rebuild_is_a_new_shuffle_stream() -> None:
    """docs/games/speed.md#stalemate, docs/games/speed.md#decisions"""
    state = stuck(
        centre=(cs("3H 8D 10S 5S"), cs("6C 7H 4C 9H")), sides=((), ()), seed=5, calls=[0],
    )  # fmt: skip
    r0 = tuple(shuffled(5, 1, list(cs("3H 8D 10S"))))
    r1 = tuple(shuffled(5, 2, list(cs("6C 7H 4C"))))
    events, after = act(state, 1, FLIP)
    assert events == [
        FlipCalled(1, True),
        SidePileRebuilt(0, 1, r0),
        SidePileRebuilt(1, 2, r1),
        SideCardsTurned((r0[0], r1[0])),
    ]
    assert after.shuffles == 2
    assert Counter(GAME.cards_in_play(after)) == Counter(GAME.cards_in_play(state))


def test_stalemate_pile_with_nothing_to_provide_turns_no_card() -> None:
    """docs/games/speed.md#stalemate"""
    state = stuck(centre=(cs("5S"), cs("9H")), sides=((), cs("10C")), calls=[0])
    events, after = act(state, 1, FLIP)
    assert events == [FlipCalled(1, True), SideCardsTurned((None, c("10C")))]
    assert after.centre == (cs("5S"), cs("9H 10C"))


def test_dead_stalemate_no_card_anywhere_can_unblock_voids_and_redeals() -> None:
    """docs/games/speed.md#dead-stalemate"""
    # Hands hold only A, 2, J, Q, K: only a 3, 10 or another of those ranks could take one.
    state = stuck(
        centre=(cs("7C 5S"), cs("9H")), sides=(cs("6D 7D"), cs("8C 4H")), seed=13, shuffles=3,
        calls=[0], scores=(2, 5), wins=(1, 1), round=4, rules=Rules(target_score=30),
    )  # fmt: skip
    events, after = act(state, 1, FLIP)
    assert events == [FlipCalled(1, True), RoundVoided(), expected_deal(13, 4, 5)]
    assert after.phase == "READY" and after.round == 5 and after.shuffles == 4
    assert after.scores == (2, 5) and after.wins == (1, 1)  # totals kept; no win counted
    assert after.calls == frozenset() and outcome(after) is None


def test_dead_stalemate_when_neither_side_pile_can_provide() -> None:
    """docs/games/speed.md#dead-stalemate"""
    state = stuck(centre=(cs("5S"), cs("9H")), sides=((), ()), calls=[0], seed=4)
    events, after = act(state, 1, FLIP)
    assert events == [FlipCalled(1, True), RoundVoided(), expected_deal(4, 1, 2)]
    assert outcome(after) is None  # without a target the game goes on after a void round


def test_not_dead_when_a_helpful_card_is_buried_under_a_centre_top() -> None:
    """docs/games/speed.md#dead-stalemate"""
    # A 3 under 5♠ would take the 2s: the rebuild makes it reachable, so the flip happens.
    state = stuck(centre=(cs("3S 5S"), cs("9H")), sides=((), ()), calls=[0], seed=4)
    events, _ = act(state, 1, FLIP)
    assert events == [
        FlipCalled(1, True),
        SidePileRebuilt(0, 1, cs("3S")),
        SideCardsTurned((c("3S"), None)),
    ]


def test_best_of_void_round_does_not_count() -> None:
    """docs/games/speed.md#dead-stalemate, docs/games/speed.md#variant-flags"""
    state = stuck(centre=(cs("5S"), cs("9H")), sides=((), ()), calls=[0], rules=Rules(best_of=3))
    _, after = act(state, 1, FLIP)
    assert after.wins == (0, 0) and after.round == 2


# --------------------------------------------------------------------------- auto_refill off


def manual(**kw: Any) -> State:
    kw.setdefault("rules", Rules(auto_refill=False))
    return playing(**kw)


def test_no_auto_refill_play_leaves_the_hand_short() -> None:
    """docs/games/speed.md#variant-flags"""
    events, after = act(manual(), 0, Play(c("6S"), 0))
    assert events == [CardPlayed(0, c("6S"), 0)]
    assert len(after.hands[0]) == 4 and DRAW in legal_commands(after, 0)


def test_explicit_draw_takes_the_top_of_the_draw_pile() -> None:
    """docs/games/speed.md#variant-flags"""
    state = manual(hands=(cs("6S 4H"), cs("6H")))
    events, after = act(state, 0, DRAW)
    assert events == [CardDrawn(0, c("KS"))]
    assert after.hands[0] == cs("6S 4H KS") and after.draws[0] == cs("3C")


def test_draw_with_a_full_hand_is_hand_full_then_no_cards() -> None:
    """docs/games/speed.md#variant-flags"""
    assert_rejected(manual(), 0, DRAW, RejectCode.HAND_FULL)
    assert_rejected(manual(draws=((), ())), 0, DRAW, RejectCode.HAND_FULL)
    state = manual(hands=(cs("6S"), cs("6H")), draws=((), cs("KH")))
    assert_rejected(state, 0, DRAW, RejectCode.NO_CARDS)


def test_draw_with_auto_refill_on_is_invalid_phase() -> None:
    """docs/games/speed.md#variant-flags, docs/games/common.md#actions-per-phase"""
    assert_rejected(playing(), 0, DRAW, RejectCode.INVALID_PHASE)


def test_a_short_hand_that_could_draw_is_not_stuck() -> None:
    """docs/games/speed.md#variant-flags, docs/games/speed.md#stalemate"""
    state = stuck(hands=(cs("AS 2S JH QH"), STUCK_HANDS[1]), rules=Rules(auto_refill=False))
    assert not is_stuck(state)
    assert_rejected(state, 1, FLIP, RejectCode.NOT_STUCK)
    assert legal_commands(state, 0) == [DRAW] and legal_commands(state, 1) == []


def test_no_auto_refill_wins_only_with_draw_pile_empty() -> None:
    """docs/games/speed.md#variant-flags, docs/games/speed.md#end-of-the-game"""
    state = manual(hands=(cs("6S"), cs("QH")), draws=(cs("KS"), ()))
    events, after = act(state, 0, Play(c("6S"), 0))
    assert events == [CardPlayed(0, c("6S"), 0)] and outcome(after) is None
    events, after = act(after, 1, Play(c("QH"), 1))
    assert events == [CardPlayed(1, c("QH"), 1), RoundWon(1, 1, (0, 1), (0, 1), True)]
    assert_rejected(after, 0, DRAW, RejectCode.GAME_OVER)


# --------------------------------------------------------------------------- multi-card play


def test_multi_card_play_places_a_run_then_refills() -> None:
    """docs/games/speed.md#variant-flags"""
    state = playing(
        hands=(cs("6S 7H 8C 2S"), cs("6H")), draws=(cs("KS 3C 4D"), ()),
        sides=(cs("7C"), cs("8H")), rules=Rules(multi_card_play=True, hand_size=4),
    )  # fmt: skip
    events, after = act(state, 0, Play(c("6S"), 0, then=cs("7H 8C")))
    assert events == [
        CardPlayed(0, c("6S"), 0),
        CardPlayed(0, c("7H"), 0),
        CardPlayed(0, c("8C"), 0),
        CardDrawn(0, c("KS")),
        CardDrawn(0, c("3C")),
        CardDrawn(0, c("4D")),
    ]
    assert after.centre[0] == cs("5D 6S 7H 8C") and after.hands[0] == cs("2S KS 3C 4D")


def test_multi_card_run_must_fit_card_after_card() -> None:
    """docs/games/speed.md#variant-flags"""
    state = playing(
        hands=(cs("6S 8C 2S"), cs("6H")), draws=((), ()), sides=(cs("7C"), cs("8H")),
        rules=Rules(multi_card_play=True),
    )  # fmt: skip
    assert_rejected(state, 0, Play(c("6S"), 0, then=cs("8C")), RejectCode.ILLEGAL_CARD)
    assert_rejected(state, 0, Play(c("6S"), 0, then=cs("6S")), RejectCode.CARD_NOT_AVAILABLE)
    assert_rejected(state, 0, Play(c("6S"), 0, then=cs("7S")), RejectCode.CARD_NOT_AVAILABLE)


def test_multiple_cards_at_once_are_off_by_default() -> None:
    """docs/games/speed.md#decisions"""
    state = playing(hands=(cs("6S 7H"), cs("6H")), draws=((), ()))
    assert_rejected(state, 0, Play(c("6S"), 0, then=cs("7H")), RejectCode.ILLEGAL_CARD)


def test_multi_card_legal_commands_list_every_run() -> None:
    """docs/games/speed.md#variant-flags"""
    state = playing(
        hands=(cs("6S 7H 9C"), cs("6H")), draws=((), ()), centre=(cs("5D"), cs("8D")),
        rules=Rules(multi_card_play=True),
    )  # fmt: skip
    assert set(legal_commands(state, 0)) == {
        Play(c("6S"), 0),
        Play(c("6S"), 0, then=cs("7H")),
        Play(c("7H"), 1),
        Play(c("7H"), 1, then=cs("6S")),
        Play(c("9C"), 1),
    }


# --------------------------------------------------------------------------- jokers


def test_jokers_are_wild_both_ways() -> None:
    """docs/games/speed.md#variant-flags"""
    rules = Rules(jokers=2)
    state = playing(
        hands=(cs("JK 9C"), cs("JK")), draws=((), ()), centre=(cs("5D"), cs("JC")), rules=rules
    )
    events, after = act(state, 0, Play(JOKER, 0))
    assert events[0] == CardPlayed(0, JOKER, 0)
    events, after = act(after, 0, Play(c("9C"), 0))  # anything goes on a joker
    assert events[0] == CardPlayed(0, c("9C"), 0)
    assert Play(JOKER, 1) in legal_commands(state, 1)


def test_a_joker_in_hand_means_not_stuck() -> None:
    """docs/games/speed.md#variant-flags, docs/games/speed.md#stalemate"""
    state = stuck(hands=(STUCK_HANDS[0], cs("AC 2C JD QD JK")), rules=Rules(jokers=2))
    assert not is_stuck(state)


# --------------------------------------------------------------------------- leaving


def test_a_resignation_ends_the_whole_match_with_the_scores_as_they_stand() -> None:
    """docs/games/speed.md#leaving, docs/games/common.md#resign"""
    # Between rounds of a match to 10 points, seat 1 has called the start flip.
    state = position(
        (cs("3S 4S"), cs("3H 4H")), ((), ()), centre=(cs("5D"), cs("KC")), phase="READY",
        rules=Rules(target_score=10), scores=(4, 7), wins=(1, 2), round=4, shuffles=4,
    )  # fmt: skip
    _, called = act(state, 1, FLIP)
    events, after = act(called, 0, kit.Resign())
    assert events == [Resigned(0)]
    assert outcome(after) == Outcome(Termination.RESIGNED, (1,), scores=(4, 7))
    assert after.phase == "READY" and after.calls == frozenset()
    assert view(after, 1).centre == ((HIDDEN,), (HIDDEN,))  # dealt face down, they stay so
    assert_rejected(after, 1, FLIP, RejectCode.GAME_OVER)


# --------------------------------------------------------------------------- views, redaction


def test_views_show_own_hand_and_face_up_cards_only() -> None:
    """docs/games/speed.md#setup"""
    state = playing()
    v0 = view(state, 0)
    assert v0.hands == (cs("6S 4H 9C QD 2S"), (HIDDEN,) * 5)
    assert v0.draws == ((HIDDEN,) * 2, (HIDDEN,) * 2)
    assert v0.sides == ((HIDDEN,), (HIDDEN,))
    assert v0.centre == (cs("5D"), cs("JC"))
    assert view(state, 1).hands == ((HIDDEN,) * 5, cs("6H 4S 9D QS 2C"))
    assert view(state, Role.SPECTATOR).hands == ((HIDDEN,) * 5, (HIDDEN,) * 5)
    ref = view(state, Role.REFEREE)
    assert ref.hands == state.hands and ref.draws == state.draws and ref.sides == state.sides


def test_redaction_of_the_deal_shows_each_seat_its_own_hand_only() -> None:
    """docs/games/speed.md#setup, docs/adding-a-game.md#5-views-and-redaction"""
    event = deal(GAME.make_setup(2, 8))[0]
    assert isinstance(event, Dealt)
    for seat in (0, 1):
        red = redact(event, seat)
        assert isinstance(red, Dealt)
        assert red.hands[seat] == event.hands[seat]
        assert red.hands[1 - seat] == (HIDDEN,) * 5
        assert red.centre == (HIDDEN, HIDDEN)
        assert red.sides == ((HIDDEN,) * 10,) * 2 and red.draws == ((HIDDEN,) * 10,) * 2
    assert redact(event, Role.REFEREE) == event
    spectator = redact(event, Role.SPECTATOR)
    assert isinstance(spectator, Dealt) and spectator.hands == ((HIDDEN,) * 5,) * 2


def test_redaction_only_the_drawer_sees_the_drawn_card() -> None:
    """docs/games/speed.md#setup, docs/adding-a-game.md#5-views-and-redaction"""
    event = CardDrawn(0, c("KS"))
    assert redact(event, 0) == event
    assert redact(event, 1) == CardDrawn(0, HIDDEN)
    assert redact(event, Role.SPECTATOR) == CardDrawn(0, HIDDEN)
    assert redact(event, Role.REFEREE) == event


def test_redaction_hides_a_rebuilt_side_pile_order_from_the_players() -> None:
    """docs/games/speed.md#stalemate, docs/adding-a-game.md#5-views-and-redaction"""
    event = SidePileRebuilt(1, 3, cs("4C 9S 2H"))
    for v in (0, 1, Role.SPECTATOR):
        assert redact(event, v) == SidePileRebuilt(1, 3, (HIDDEN,) * 3)
    assert redact(event, Role.REFEREE) == event
    for public in (CardPlayed(0, c("6S"), 0), SideCardsTurned((c("6D"), None)), RoundVoided()):
        assert redact(public, 1) == public


@pytest.mark.parametrize("phase", ["READY", "PLAY"])
def test_shuffle_hidden_keeps_every_view_identical(phase: str) -> None:
    """docs/adding-a-game.md#6-shuffle_hidden-and-cards_in_play"""
    state = playing(phase=phase, sides=(cs("7C 8H 10D"), cs("8C")))
    rng = Rng(3, 0)
    for v in (0, 1, Role.SPECTATOR, Role.REFEREE):
        for _ in range(5):
            alt = shuffle_hidden(state, v, rng)
            assert Counter(GAME.cards_in_play(alt)) == Counter(GAME.cards_in_play(state))
            assert codec.encode(view(alt, v)) == codec.encode(view(state, v))


def test_legal_commands_in_play_list_every_fitting_card_and_pile() -> None:
    """docs/adding-a-game.md#4-the-decider"""
    state = playing(centre=(cs("5D"), cs("3H")))
    assert legal_commands(state, 0) == [
        Play(c("6S"), 0),
        Play(c("4H"), 0),
        Play(c("4H"), 1),
        Play(c("2S"), 1),
    ]
    for cmd in legal_commands(state, 0):
        assert is_sensible(state, 0, cmd)
        decide(state, 0, cmd)


def test_narration_in_plain_words() -> None:
    """docs/disputes.md#what-happened-replay"""
    assert narrate(FlipCalled(0, False)) == "seat 0 calls flip to start"
    assert narrate(FlipCalled(1, True)) == "seat 1 calls a stalemate flip"
    assert narrate(Started((c("5D"), c("KC")))) == (
        "both players called: the centre cards are turned up: 5♦ and K♣"
    )
    assert narrate(CardPlayed(1, c("QS"), 1)) == "seat 1 played Q♠ on centre pile 1"
    assert narrate(CardDrawn(0, c("KS"))) == "seat 0 drew K♠"
    assert narrate(CardDrawn(0, HIDDEN)) == "seat 0 drew a face-down card"
    assert narrate(SideCardsTurned((c("6D"), None))) == (
        "both players called: stalemate flip turned 6♦ onto centre pile 0"
    )
    assert "rebuilt from the 3 cards" in narrate(SidePileRebuilt(1, 2, (HIDDEN,) * 3))
    assert "no winner" in narrate(RoundVoided())
    assert narrate(RoundWon(0, 3, (3, 0), (1, 0), True)) == (
        "seat 0 emptied hand and draw pile: wins the round and scores 3 (totals 3–0): game over"
    )
    assert narrate(deal(GAME.make_setup(2, 1))[0]).startswith("round 1 dealt")


def test_commands_and_events_round_trip_through_the_codec() -> None:
    """docs/log-format.md#entry-one-per-accepted-action"""
    for cmd in (Play(c("6S"), 1, expect_top=c("5D"), then=cs("7H")), Flip(), Draw()):
        assert GAME.decode_command(codec.encode(cmd)) == cmd
    for e in (SideCardsTurned((None, c("4C"))), RoundWon(1, 0, (0, 0), (0, 1), False)):
        assert GAME.decode_event(codec.encode(e)) == e


# --------------------------------------------------------------------------- bot games per variant

VARIANTS: list[dict[str, Any]] = [
    {},
    {"side_pile_size": 5},
    {"auto_refill": False},
    {"wrap": False, "allow_equal_rank": True},
    {"multi_card_play": True},
    {"jokers": 2, "score_counts": "stock_and_hand"},
    {"target_score": 6},
    {"best_of": 3, "hand_size": 4},
]


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: ",".join(map(str, r)) or "default")
def test_variant_bot_games_end_and_keep_the_invariants(rules: dict[str, Any]) -> None:
    """docs/games/common.md#conservation, docs/games/speed.md#variant-flags"""
    for seed in range(3):
        setup = GAME.make_setup(2, seed, rules)
        match = Match(GAME, setup, record=False)
        bots = seat_bots("reaction", 2, seed)
        full = Counter(GAME.deck(setup))
        rng = Rng(seed, 99)
        now = 0
        while match.outcome is None:
            state = match.state
            for s in (0, 1):
                for cmd in legal_commands(state, s):
                    decide(state, s, cmd)
            moves = [(p[0], b.seat, p[1]) for b in bots if (p := ask(b, GAME, state))]
            assert moves, "stalled"
            delay, seat, cmd = min(moves, key=lambda m: (m[0], m[1]))
            for v in (0, 1, Role.SPECTATOR):
                alt = shuffle_hidden(state, v, rng)
                assert codec.encode(view(alt, v)) == codec.encode(view(state, v))
            after = state
            for e in decide(state, seat, cmd):
                after = evolve(after, e)
                assert Counter(GAME.cards_in_play(after)) == full
            now += delay
            match.submit(seat, cmd, now)
        assert match.outcome.termination is not Termination.EVENT_LIMIT
        assert match.outcome.winners and len(match.outcome.scores) == 2
