"""Egyptian Ratscrew, one given/when/then test per clause of docs/games/ratscrew.md (exact cards).

Stacks are written top first, the pile bottom→top (docs/games/common.md#piles).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

import pytest

from cardcore import Match, Outcome, RejectCode, Termination, kit
from cardcore.cards import HIDDEN, JOKER, Card, parse_cards
from cardcore.engine import Role
from cardcore.errors import InvalidSetup
from cardcore.games import ratscrew as ers
from cardcore.games.ratscrew import (
    COLLECT,
    PLAY,
    SLAP,
    CardPlayed,
    ChallengeLapsed,
    GameResigned,
    PenaltyPaid,
    PileOwed,
    PileTaken,
    PlayerEliminated,
    Resigned,
    Slap,
    Slapped,
    State,
    TurnPassed,
    position,
)

from . import given

C = parse_cards


def card(text: str) -> Card:
    return Card.parse(text)


rules = partial(given.rules, ers.GAME)
apply = partial(given.apply, ers.GAME)
rejected = partial(given.rejected, ers.GAME)


def pos(stacks: Sequence[str], **kw: Any) -> State:
    played = kw.pop("played", "")
    burned = kw.pop("burned", "")
    return position([C(s) for s in stacks], played=C(played), burned=C(burned), **kw)


# --------------------------------------------------------------------------- setup


@pytest.mark.parametrize(
    ("seats", "sizes"), [(2, [26, 26]), (3, [18, 17, 17]), (4, [13] * 4), (5, [11, 11, 10, 10, 10])]
)
def test_setup_deals_whole_deck_evenly_from_seat_0(seats: int, sizes: list[int]) -> None:
    """docs/games/ratscrew.md#setup"""
    match = Match(ers.GAME, ers.GAME.make_setup(seats, 42))
    assert [len(s) for s in match.state.stacks] == sizes
    assert match.state.current == 0 and not match.state.played


def test_deal_card_i_goes_to_seat_i_mod_n() -> None:
    """docs/games/common.md#dealing"""
    setup = ers.GAME.make_setup(3, 7)
    (dealt,) = ers.deal(setup)
    from cardcore.rng import shuffled

    deck = shuffled(7, 0, ers.deck(setup))
    assert dealt.stacks[1] == tuple(deck[1::3])


def test_nobody_sees_any_stack_card_not_even_its_owner() -> None:
    """docs/games/ratscrew.md#setup"""
    match = Match(ers.GAME, ers.GAME.make_setup(2, 1))
    for viewer in (0, 1, Role.SPECTATOR):
        view = match.view(viewer)
        assert all(c is HIDDEN for s in view.stacks for c in s)
        dealt = ers.redact(ers.deal(match.setup)[0], viewer)
        assert all(c is HIDDEN for s in dealt.stacks for c in s)
    assert match.view(Role.REFEREE).stacks == match.state.stacks


# --------------------------------------------------------------------------- play


def test_play_number_card_passes_turn() -> None:
    """docs/games/ratscrew.md#playing-a-card, docs/games/common.md#seats-and-order"""
    events, after = apply(pos(["5S 6S", "7H", "8D"]), 0, PLAY)
    assert events == [CardPlayed(0, card("5S"), 1, None)]
    assert after.stacks[0] == C("6S") and after.played == C("5S") and after.current == 1


def test_play_skips_players_with_no_cards() -> None:
    """docs/games/ratscrew.md#running-out-of-cards"""
    _, after = apply(pos(["5S 6S", "", "8D"]), 0, PLAY)
    assert after.current == 2


def test_play_rejections_in_order() -> None:
    """docs/games/ratscrew.md#playing-a-card, docs/games/common.md#order-of-checks"""
    state = pos(["5S", "7H"], current=0)
    assert rejected(state, 1, PLAY) is RejectCode.NOT_YOUR_TURN
    # No game reaches a current player without cards (check_position refuses it): built past
    # the check, to pin that decide still answers NoCards rather than failing.
    empty_handed = pos(["", "7H"], played="2C", current=1)._replace(current=0)
    assert rejected(empty_handed, 0, PLAY) is RejectCode.NO_CARDS
    owed = pos(["5S", "7H"], played="KS", current=None, owed_to=1)
    assert rejected(owed, 0, PLAY) is RejectCode.INVALID_PHASE
    gone = pos(["", "7H", "9C"], eliminated=[0], current=1)
    assert rejected(gone, 0, PLAY) is RejectCode.PLAYER_ELIMINATED
    over = pos(["5S 6S", ""], current=0, eliminated=[1], allow_over=True)
    assert rejected(over, 0, PLAY) is RejectCode.GAME_OVER


@pytest.mark.parametrize(("royal", "count"), [("JS", 1), ("QS", 2), ("KS", 3), ("AS", 4)])
def test_royal_challenges_next_player(royal: str, count: int) -> None:
    """docs/games/ratscrew.md#playing-a-card"""
    events, after = apply(pos([royal + " 2S", "3H 4H", "5D"]), 0, PLAY)
    assert events == [CardPlayed(0, card(royal), 1, (0, count))]
    assert after.challenge == (0, count) and after.current == 1


def test_royal_nobody_can_answer_challenger_owed_at_once() -> None:
    """docs/games/ratscrew.md#playing-a-card, docs/games/ratscrew.md#decisions"""
    events, after = apply(pos(["KS 2S", "", ""], played="9C", played_by=[1]), 0, PLAY)
    assert events == [CardPlayed(0, card("KS"), None, None), PileOwed(0)]
    assert after.owed_to == 0 and after.challenge is None


def test_challenge_lost_after_count_number_cards() -> None:
    """docs/games/ratscrew.md#playing-a-card"""
    state = pos(["2S", "3H 4H 5H"], played="QS", played_by=[0], current=1, challenge=(0, 2))
    events, state = apply(state, 1, PLAY)
    assert events == [CardPlayed(1, card("3H"), 1, (0, 1))]
    events, state = apply(state, 1, PLAY)
    assert events == [CardPlayed(1, card("4H"), None, None), PileOwed(0)]
    assert state.owed_to == 0 and state.current is None


def test_royal_during_challenge_passes_obligation_on() -> None:
    """docs/games/ratscrew.md#challenges, docs/games/ratscrew.md#decisions"""
    state = pos(["2S 9S", "3H JH"], played="QS", played_by=[0], current=1, challenge=(0, 2))
    _, state = apply(state, 1, PLAY)
    events, state = apply(state, 1, PLAY)
    assert events == [CardPlayed(1, card("JH"), 0, (1, 1))]
    assert state.challenge == (1, 1) and state.current == 0


def test_challenged_player_runs_out_challenger_wins() -> None:
    """docs/games/ratscrew.md#playing-a-card, docs/games/ratscrew.md#decisions"""
    state = pos(["2S", "3H", "9D"], played="KS", played_by=[0], current=1, challenge=(0, 3))
    events, state = apply(state, 1, PLAY)
    assert events == [CardPlayed(1, card("3H"), None, None), PileOwed(0)]


def test_challenge_exhausted_pass_to_next() -> None:
    """docs/games/ratscrew.md#variant-flags"""
    r = rules(challenge_exhausted="pass_to_next")
    state = pos(
        ["2S", "3H", "9D"], played="KS", played_by=[0], current=1, challenge=(0, 3), rules=r
    )
    events, state = apply(state, 1, PLAY)
    assert events == [CardPlayed(1, card("3H"), 2, (0, 2))]
    # ...but if the next player is the challenger, the challenge is lost.
    state2 = pos(["2S", "3H"], played="KS", played_by=[0], current=1, challenge=(0, 3), rules=r)
    events2, _ = apply(state2, 1, PLAY)
    assert events2[-1] == PileOwed(0)


def test_only_player_with_cards_plays_again() -> None:
    """docs/games/ratscrew.md#playing-a-card"""
    _, after = apply(pos(["5S 6S", "", ""], played="9C", played_by=[1]), 0, PLAY)
    assert after.current == 0


def test_everybody_at_zero_last_player_owed() -> None:
    """docs/games/ratscrew.md#playing-a-card, docs/games/ratscrew.md#decisions"""
    events, after = apply(pos(["5S", "", ""], played="9H", played_by=[1]), 0, PLAY)
    assert events == [CardPlayed(0, card("5S"), None, None), PileOwed(0)]
    assert after.owed_to == 0 and after.current is None


# --------------------------------------------------------------------------- collect


def test_collect_appends_pile_bottom_to_top_and_resumes_with_challenger() -> None:
    """docs/games/ratscrew.md#collecting, docs/games/common.md#piles"""
    state = pos(["2S", "9C"], burned="8H", played="KS 3H 4H 5H", current=None, owed_to=0)
    events, after = apply(state, 0, COLLECT)
    assert events == [PileTaken(0, 5, "collect")]
    assert after.stacks[0] == C("2S 8H KS 3H 4H 5H")
    assert after.epoch == 1 and after.current == 0 and after.owed_to is None


def test_collect_by_anyone_else_is_not_collector() -> None:
    """docs/games/ratscrew.md#collecting"""
    state = pos(["2S", "9C"], played="KS 3H", current=None, owed_to=0)
    assert rejected(state, 1, COLLECT) is RejectCode.NOT_COLLECTOR
    assert rejected(pos(["2S", "9C"]), 0, COLLECT) is RejectCode.NOT_COLLECTOR


def test_auto_collect_takes_pile_at_once() -> None:
    """docs/games/ratscrew.md#collecting, docs/games/ratscrew.md#variant-flags"""
    state = pos(["2S", "4H 7C"], played="JS", played_by=[0], current=1, challenge=(0, 1),
                rules=rules(auto_collect=True))  # fmt: skip
    events, after = apply(state, 1, PLAY)
    assert events[-2:] == [PileOwed(0), PileTaken(0, 2, "collect")]
    assert after.stacks[0] == C("2S JS 4H") and after.current == 0


# --------------------------------------------------------------------------- slap


def test_valid_slap_takes_pile_and_plays_next() -> None:
    """docs/games/ratscrew.md#slapping"""
    state = pos(["2S", "9C", "4D"], burned="KH", played="7S 7H", played_by=[1, 2], current=0)
    events, after = apply(state, 0, SLAP)
    assert events == [Slapped(0, True, "double", C("7S 7H")), PileTaken(0, 3, "slap")]
    assert after.stacks[0] == C("2S KH 7S 7H") and after.current == 0 and after.epoch == 1


def test_slap_during_challenge_wins_and_cancels_it() -> None:
    """docs/games/ratscrew.md#slapping"""
    state = pos(["2S", "9C"], played="KS 5H 5D", played_by=[0, 1, 1], current=1, challenge=(0, 1))
    events, after = apply(state, 1, SLAP)
    assert events[0].valid and after.challenge is None and after.current == 1


def test_slap_before_collect_wins_owed_pile() -> None:
    """docs/games/ratscrew.md#races, docs/games/ratscrew.md#collecting"""
    state = pos(["2S", "9C"], played="JS 4H 4C", current=None, owed_to=0)
    events, after = apply(state, 1, SLAP)
    assert events[-1] == PileTaken(1, 3, "slap") and after.owed_to is None
    assert rejected(after, 0, COLLECT) is RejectCode.NOT_COLLECTOR


def test_second_slap_meets_empty_pile_or_stale_epoch() -> None:
    """docs/games/ratscrew.md#races"""
    state = pos(["2S", "9C", "3D"], played="7S 7H", current=0)
    _, after = apply(state, 1, SLAP)
    assert rejected(after, 2, SLAP) is RejectCode.EMPTY_PILE
    assert rejected(after, 2, Slap(expect_epoch=0)) is RejectCode.STALE_ACTION


def test_slap_with_only_burned_cards_is_empty_pile_without_penalty() -> None:
    """docs/games/ratscrew.md#slapping, docs/games/ratscrew.md#decisions"""
    # Burned cards only ever lie under a played card, so no game reaches this pile (the position
    # check refuses it); built past the check to pin that the slap rule ignores burned cards.
    state = pos(["2S", "9C"])._replace(burned=(card("8H"),))
    assert rejected(state, 0, SLAP) is RejectCode.EMPTY_PILE


def test_false_slap_burns_one_card_to_pile_bottom() -> None:
    """docs/games/ratscrew.md#slapping"""
    state = pos(["2S 3S", "9C"], burned="8H", played="7S 6H", current=1)
    events, after = apply(state, 0, SLAP)
    assert events == [Slapped(0, False, None, ()), PenaltyPaid(0, card("2S"), None)]
    assert after.burned == C("2S 8H") and after.stacks[0] == C("3S") and after.current == 1


def test_false_slap_penalty_two() -> None:
    """docs/games/ratscrew.md#variant-flags"""
    state = pos(["2S 3S 4S", "9C"], played="7S 6H", rules=rules(false_slap_penalty=2))
    events, after = apply(state, 0, SLAP)
    assert [e.card for e in events[1:]] == list(C("2S 3S"))
    assert after.burned == C("3S 2S")  # each card in turn goes to the very bottom


def test_false_slap_to_player_of_top_card() -> None:
    """docs/games/ratscrew.md#variant-flags"""
    r = rules(false_slap_destination="to_player_of_top_card")
    state = pos(["2S 3S", "9C", "4D"], played="7S 6H", played_by=[1, 2], rules=r, current=0)
    events, after = apply(state, 0, SLAP)
    assert events[1] == PenaltyPaid(0, card("2S"), 2)
    assert after.stacks[2] == C("4D 2S")
    # A slapper who played the top card burns into the pile instead.
    own = pos(["2S 3S", "9C"], played="7S 6H", played_by=[1, 0], rules=r)
    assert apply(own, 0, SLAP)[0][1] == PenaltyPaid(0, card("2S"), None)


def test_slap_on_covered_double_is_false_slap() -> None:
    """docs/games/ratscrew.md#races, docs/games/ratscrew.md#slapping"""
    state = pos(["2S", "9C 3C"], played="7S 7H", played_by=[0, 1], current=1)
    _, covered = apply(state, 1, PLAY)
    events, _ = apply(covered, 0, Slap(seen_count=2))
    assert events[0] == Slapped(0, False, None, ())


def test_late_slap_reject_with_seen_count() -> None:
    """docs/games/ratscrew.md#slapping, docs/games/ratscrew.md#variant-flags"""
    state = pos(["2S", "9C"], played="7S 7H 3C", rules=rules(late_slap="reject"))
    assert rejected(state, 0, Slap(seen_count=2)) is RejectCode.STALE_ACTION
    assert rejected(state, 0, Slap(expect_epoch=5)) is RejectCode.STALE_ACTION


def test_slap_in_with_zero_cards_wins_back_into_game() -> None:
    """docs/games/ratscrew.md#slapping, docs/games/ratscrew.md#running-out-of-cards"""
    state = pos(["", "9C", "3D"], played="7S 7H", current=1)
    _, after = apply(state, 0, SLAP)
    assert after.stacks[0] == C("7S 7H") and 0 not in after.eliminated


def test_false_slap_with_zero_cards_eliminates() -> None:
    """docs/games/ratscrew.md#slapping, docs/games/ratscrew.md#decisions"""
    state = pos(["", "9C", "3D"], played="7S 6H", current=1)
    events, after = apply(state, 0, SLAP)
    assert events == [Slapped(0, False, None, ()), PlayerEliminated(0)]
    assert rejected(after, 0, SLAP) is RejectCode.PLAYER_ELIMINATED


def test_zero_card_false_slap_ignore() -> None:
    """docs/games/ratscrew.md#variant-flags"""
    state = pos(
        ["", "9C", "3D"], played="7S 6H", current=1, rules=rules(zero_card_false_slap="ignore")
    )
    events, after = apply(state, 0, SLAP)
    assert events == [Slapped(0, False, None, ())] and not after.eliminated


def test_eliminated_challenger_claim_lapses() -> None:
    """docs/games/ratscrew.md#decisions"""
    state = pos(["", "9C 8C", "3D"], played="KS 4H", played_by=[0, 1], current=1, challenge=(0, 2))
    events, after = apply(state, 0, SLAP)
    assert events == [Slapped(0, False, None, ()), PlayerEliminated(0), ChallengeLapsed(1)]
    assert after.challenge is None and after.current == 1 and after.played == C("KS 4H")


def test_current_player_paying_last_card_passes_turn() -> None:
    """docs/games/ratscrew.md#slapping"""
    state = pos(["2S", "9C", "3D"], played="7S 6H", current=0)
    events, after = apply(state, 0, SLAP)
    assert events[-1] == TurnPassed(1) and after.current == 1


def test_challenged_player_paying_last_card_loses_challenge() -> None:
    """docs/games/ratscrew.md#slapping"""
    state = pos(["2S", "9C"], played="QS 6H", played_by=[1, 0], current=0, challenge=(1, 1))
    events, after = apply(state, 0, SLAP)
    assert events[-1] == PileOwed(1) and after.owed_to == 1


# --------------------------------------------------------------------------- slap rules


def match_rule(played: str, *enabled: str) -> str | None:
    found = ers.slap_match(C(played), frozenset(enabled))  # type: ignore[arg-type]
    return found[0] if found else None


def test_double_includes_royals() -> None:
    """docs/games/ratscrew.md#slap-patterns"""
    assert match_rule("3C QS QH", "double") == "double"
    assert match_rule("QS KH", "double") is None


def test_sandwich_and_equal_middle_is_a_double_not_sandwich() -> None:
    """docs/games/ratscrew.md#slap-patterns, docs/games/ratscrew.md#decisions"""
    assert match_rule("QS 7H QD", "sandwich") == "sandwich"
    assert match_rule("5S 5H 5D", "sandwich") is None
    assert match_rule("5S 5H 5D", "double", "sandwich") == "double"


def test_burned_cards_never_part_of_pattern() -> None:
    """docs/games/ratscrew.md#slap-patterns, docs/games/ratscrew.md#decisions"""
    state = pos(["2S", "9C"], burned="7D", played="7S")
    assert ers.view(state, 0).slappable is False


def test_top_bottom_uses_first_played_card() -> None:
    """docs/games/ratscrew.md#slap-patterns"""
    assert match_rule("4S 9H 4D", "top_bottom") == "top_bottom"
    assert match_rule("4S 4D", "top_bottom") is None


def test_tens_both_forms() -> None:
    """docs/games/ratscrew.md#slap-patterns"""
    assert match_rule("3S 7H", "tens") == "tens"
    assert match_rule("AS KH 9D", "tens") == "tens"
    assert match_rule("10S 10H", "tens") is None  # 10 has no sum value
    assert match_rule("AS 5H 9D", "tens") is None


def test_four_in_a_row_either_direction_with_wrap() -> None:
    """docs/games/ratscrew.md#slap-patterns, docs/games/common.md#cards"""
    assert match_rule("QS KH AD 2C", "four_in_a_row") == "four_in_a_row"
    assert match_rule("9S 8H 7D 6C", "four_in_a_row") == "four_in_a_row"
    assert match_rule("9S 8H 9D 10C", "four_in_a_row") is None


def test_marriage_and_divorce() -> None:
    """docs/games/ratscrew.md#slap-patterns"""
    assert match_rule("KS QH", "marriage") == "marriage"
    assert match_rule("QS 4H KD", "divorce") == "divorce"
    assert match_rule("QS 4H KD", "marriage") is None


def test_joker_rule_and_jokers_double() -> None:
    """docs/games/ratscrew.md#slap-patterns, docs/games/ratscrew.md#variant-flags"""
    r = rules(slap_rules=["joker"], jokers=1)
    state = position([C("2S"), C("3S")], played=(card("5H"), JOKER), rules=r)
    assert ers.view(state, 0).slappable
    assert match_rule("4S JK JK", "double") == "double"


def test_joker_rule_needs_jokers() -> None:
    """docs/games/ratscrew.md#variant-flags"""
    with pytest.raises(InvalidSetup) as info:
        ers.GAME.make_setup(2, 0, {"slap_rules": ["joker"]})
    assert info.value.field == "rules.slap_rules"


def test_two_decks_identical_cards_double() -> None:
    """docs/games/ratscrew.md#variant-flags, docs/games/ratscrew.md#decisions"""
    match = Match(ers.GAME, ers.GAME.make_setup(4, 3, {"num_decks": 2}))
    assert sum(len(s) for s in match.state.stacks) == 104
    assert match_rule("7S 7S", "double") == "double"


def test_setup_errors_name_the_field() -> None:
    """docs/games/ratscrew.md#setup, docs/games/ratscrew.md#variant-flags"""
    with pytest.raises(InvalidSetup) as info:
        ers.GAME.make_setup(2, 0, {"false_slap_penalty": -1})
    assert info.value.field == "rules.false_slap_penalty"
    with pytest.raises(InvalidSetup) as info:
        ers.GAME.make_setup(2, 0, {"late_slap": "sometimes"})
    assert info.value.field == "rules.late_slap"
    with pytest.raises(InvalidSetup) as info:
        ers.GAME.make_setup(2, 0, {"challenge_counts": {"X": 1}})
    assert info.value.field == "rules.challenge_counts.X"
    with pytest.raises(InvalidSetup) as info:
        ers.GAME.make_setup(9, 0)
    assert info.value.field == "seats"


# --------------------------------------------------------------------------- end


def test_end_when_one_player_holds_every_card() -> None:
    """docs/games/ratscrew.md#end-of-the-game"""
    state = pos(["2S", ""], played="7S 7H", current=0)
    _, after = apply(state, 0, SLAP)
    assert ers.outcome(after) == Outcome(Termination.ALL_CARDS, (0,))
    assert rejected(after, 0, PLAY) is RejectCode.GAME_OVER


def test_end_when_one_player_not_eliminated() -> None:
    """docs/games/ratscrew.md#end-of-the-game"""
    state = pos(["2S 4C", "", ""], played="7S 6H", eliminated=[2])
    _, after = apply(state, 1, SLAP)
    assert ers.outcome(after) == Outcome(Termination.LAST_STANDING, (0,))


def test_slap_in_false_eliminates_at_zero_cards() -> None:
    """docs/games/ratscrew.md#running-out-of-cards, docs/games/ratscrew.md#variant-flags"""
    state = pos(["5S", "9C 8C", "3D"], rules=rules(slap_in=False))
    events, after = apply(state, 0, PLAY)
    assert events[-1] == PlayerEliminated(0) and 0 in after.eliminated


def test_slap_in_false_keeps_pending_challenger() -> None:
    """docs/games/ratscrew.md#running-out-of-cards, docs/games/ratscrew.md#variant-flags"""
    state = pos(["KS", "9C 8C", "3D"], rules=rules(slap_in=False))
    _, after = apply(state, 0, PLAY)
    assert 0 not in after.eliminated and after.challenge == (0, 3)


# --------------------------------------------------------------------------- leaving


def test_a_resignation_with_three_left_buries_the_stack_and_loses_the_challenge() -> None:
    """docs/games/ratscrew.md#leaving, docs/games/common.md#resign"""
    # Seat 1 owes seat 0 three cards against its K.
    state = pos(["2S", "4H 5H", "6D"], played="KS", played_by=[0], current=1, challenge=(0, 3))
    events, after = apply(state, 1, kit.Resign())
    assert events == [Resigned(1, C("4H 5H")), PileOwed(0)]
    # The stack, in order, under the pile as burned cards (its top card at the very bottom).
    assert after.burned == C("4H 5H") and after.played == C("KS")
    assert after.stacks[1] == () and after.eliminated == {1}
    assert after.owed_to == 0 and after.challenge is None  # as if it had run out of cards
    assert ers.outcome(after) is None
    # Two left: the next resignation ends the game, and the other player wins.
    events, after = apply(after, 2, kit.Resign())
    assert events == [GameResigned(2, 0)]
    assert ers.outcome(after) == Outcome(Termination.RESIGNED, (0,))


def test_narration_in_plain_words() -> None:
    """docs/disputes.md#what-happened-replay"""
    assert ers.narrate(Slapped(2, True, "sandwich", C("QS 7H QD"))) == (
        "seat 2 slapped on the sandwich Q♠-7♥-Q♦: valid"
    )
    assert "9 cards" in ers.narrate(PileTaken(2, 9, "slap"))
