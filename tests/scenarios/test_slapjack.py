"""Slapjack scenarios (docs/games/slapjack.md): given a position with exact cards, when a seat acts,
then exactly these events and this state. One test per rule clause, [ENGINE] decision and flag."""

from __future__ import annotations

from collections import Counter
from functools import partial

import pytest

from cardcore import kit
from cardcore.cards import HIDDEN, Card, parse_cards, standard_deck
from cardcore.engine import Outcome, Role, Termination
from cardcore.errors import InvalidSetup, RejectCode
from cardcore.games.slapjack import (
    GAME,
    PLAY,
    SLAP,
    CardPlayed,
    Command,
    Dealt,
    PenaltyPaid,
    PileTaken,
    PlayerEliminated,
    Resigned,
    Rules,
    Slap,
    Slapped,
    StackShuffled,
    State,
    TurnPassed,
    deal,
    decide,
    evolve,
    is_sensible,
    legal_commands,
    narrate,
    outcome,
    position,
    redact,
    shuffle_hidden,
    view,
)
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


def awaiting(state: State) -> tuple[int, ...]:
    return view(state, Role.REFEREE).awaiting


# --------------------------------------------------------------------------- setup


def test_setup_deals_whole_deck_one_card_at_a_time_from_seat_0() -> None:
    """docs/games/slapjack.md#setup, docs/games/common.md#dealing"""
    setup = GAME.make_setup(3, 42)
    cards = shuffled(42, 0, standard_deck())
    events = deal(setup)
    assert events == [Dealt((tuple(cards[0::3]), tuple(cards[1::3]), tuple(cards[2::3])))]
    state = evolve(GAME.initial_state(setup), events[0])
    assert [len(s) for s in state.stacks] == [18, 17, 17]
    assert state.stacks[0][0] == cards[0] and state.stacks[1][0] == cards[1]
    assert state.current == 0 and state.pile == () and state.epoch == 0
    assert state.eliminated == frozenset() and state.shuffles == 0


def test_num_decks_deals_every_card_of_every_deck() -> None:
    """docs/games/slapjack.md#setup, docs/games/slapjack.md#variant-flags"""
    setup = GAME.make_setup(8, 3, {"num_decks": 2})
    state = evolve(GAME.initial_state(setup), deal(setup)[0])
    assert [len(s) for s in state.stacks] == [13] * 8
    assert Counter(GAME.cards_in_play(state)) == Counter(standard_deck(2))


@pytest.mark.parametrize("seats", [1, 9])
def test_two_to_eight_seats(seats: int) -> None:
    """docs/games/slapjack.md#setup"""
    GAME.make_setup(2, 0)
    GAME.make_setup(8, 0)
    with pytest.raises(InvalidSetup) as info:
        GAME.make_setup(seats, 0)
    assert info.value.field == "seats"


def test_slap_targets_always_include_the_jack() -> None:
    """docs/games/slapjack.md#variant-flags"""
    with pytest.raises(InvalidSetup) as info:
        GAME.make_setup(2, 0, {"slap_targets": ["double"]})
    assert info.value.field == "rules.slap_targets"
    assert GAME.make_setup(2, 0, {"slap_targets": ["jack", "sandwich"]}).rules == Rules(
        slap_targets=frozenset({"jack", "sandwich"})
    )


def test_registered_as_slapjack() -> None:
    """docs/games/slapjack.md#slapjack"""
    assert get_game("slapjack") is GAME
    assert GAME.info.min_seats == 2 and GAME.info.max_seats == 8 and GAME.info.realtime


# --------------------------------------------------------------------------- play


def test_play_turns_top_card_face_up_onto_pile_and_passes_turn() -> None:
    """docs/games/slapjack.md#playing-a-card"""
    state = position([cs("5S 9H"), cs("2C"), cs("3D")])
    events, after = act(state, 0, PLAY)
    assert events == [CardPlayed(0, c("5S"), 1)]
    assert after.stacks == (cs("9H"), cs("2C"), cs("3D"))
    assert after.pile == cs("5S") and after.played_by == (0,) and after.current == 1


def test_play_out_of_turn_is_rejected() -> None:
    """docs/games/slapjack.md#playing-a-card"""
    state = position([cs("5S"), cs("2C"), cs("3D")])
    assert_rejected(state, 1, PLAY, RejectCode.NOT_YOUR_TURN)


def test_play_with_no_cards_is_rejected() -> None:
    """docs/games/slapjack.md#playing-a-card"""
    # No game reaches this (current always holds a card: Playing a card, step 3), so position()
    # refuses it; decide still guards it for an unchecked State.
    state = position([(), cs("2C"), cs("3D")], current=1)._replace(current=0)
    assert_rejected(state, 0, PLAY, RejectCode.NO_CARDS)


def test_eliminated_player_is_rejected_before_turn_checks() -> None:
    """docs/games/common.md#order-of-checks"""
    state = position([cs("5S"), (), cs("3D")], eliminated=[1], pile=cs("JH"))
    assert_rejected(state, 1, PLAY, RejectCode.PLAYER_ELIMINATED)
    assert_rejected(state, 1, SLAP, RejectCode.PLAYER_ELIMINATED)


def test_turn_skips_awaiting_and_eliminated_players() -> None:
    """docs/games/slapjack.md#playing-a-card"""
    state = position([cs("5S 6S"), (), (), cs("7H")], eliminated=[1])
    events, after = act(state, 0, PLAY)
    assert events == [CardPlayed(0, c("5S"), 3)]
    assert awaiting(after) == (2,)


def test_only_holder_plays_again() -> None:
    """docs/games/slapjack.md#playing-a-card"""
    state = position([cs("5S 6S"), ()])
    events, after = act(state, 0, PLAY)
    assert events == [CardPlayed(0, c("5S"), 0)]
    assert after.current == 0


def test_last_card_makes_player_awaiting_not_eliminated() -> None:
    """docs/games/slapjack.md#playing-a-card, docs/games/slapjack.md#status"""
    state = position([cs("5S"), cs("7H 8H")])
    events, after = act(state, 0, PLAY)
    assert events == [CardPlayed(0, c("5S"), 1)]
    assert awaiting(after) == (0,) and after.eliminated == frozenset()
    assert legal_commands(after, 0) == [SLAP]
    assert outcome(after) is None


def test_last_card_jack_awaiting_player_may_win_it() -> None:
    """docs/games/slapjack.md#playing-a-card, docs/games/slapjack.md#status"""
    state = position([cs("JS"), cs("7H 8H")])
    events, after = act(state, 0, PLAY)
    assert events == [CardPlayed(0, c("JS"), 1)]
    events, after = act(after, 0, SLAP)
    assert events == [
        Slapped(0, True, "jack", cs("JS")),
        PileTaken(0, 1, "slap", 1),
        StackShuffled(0, cs("JS")),
    ]
    assert after.stacks == (cs("JS"), cs("7H 8H"))
    assert awaiting(after) == () and after.current == 1 and after.epoch == 1


def test_covering_a_jack_eliminates_awaiting_players() -> None:
    """docs/games/slapjack.md#playing-a-card"""
    # Seat 0 played its last card, the Jack; seat 1 covers it before anyone slaps.
    state = position([(), cs("4C 5C"), cs("9D")], pile=cs("JH"), played_by=[0], current=1)
    events, after = act(state, 1, PLAY)
    assert events == [CardPlayed(1, c("4C"), 2), PlayerEliminated(0)]
    assert after.eliminated == frozenset({0}) and after.pile == cs("JH 4C")


def test_covering_a_non_jack_eliminates_nobody() -> None:
    """docs/games/slapjack.md#playing-a-card"""
    state = position([(), cs("4C 5C"), cs("9D")], pile=cs("9H"), played_by=[0], current=1)
    events, after = act(state, 1, PLAY)
    assert events == [CardPlayed(1, c("4C"), 2)]
    assert awaiting(after) == (0,)


def test_covering_jack_with_a_jack_still_ends_the_first_chance() -> None:
    """docs/games/slapjack.md#playing-a-card"""
    state = position([(), cs("JC 5C"), cs("9D")], pile=cs("JH"), played_by=[0], current=1)
    events, after = act(state, 1, PLAY)
    assert events == [CardPlayed(1, c("JC"), 2), PlayerEliminated(0)]
    assert view(after, 2).slappable


def test_nobody_holds_a_card_jack_on_top_current_none_until_slapped() -> None:
    """docs/games/slapjack.md#playing-a-card"""
    state = position([cs("JS"), ()], pile=cs("5D"), played_by=[1])
    events, after = act(state, 0, PLAY)
    assert events == [CardPlayed(0, c("JS"), None)]
    assert after.current is None
    assert legal_commands(after, 0) == [SLAP] and legal_commands(after, 1) == [SLAP]
    assert_rejected(after, 0, PLAY, RejectCode.NOT_YOUR_TURN)
    events, final = act(after, 1, SLAP)
    order = tuple(shuffled(0, 1, list(cs("5D JS"))))
    assert events == [
        Slapped(1, True, "jack", cs("JS")),
        PileTaken(1, 2, "slap", 1),
        StackShuffled(1, order),
        PlayerEliminated(0),
    ]
    assert final.current == 1 and final.stacks == ((), order)
    assert outcome(final) == Outcome(Termination.ALL_CARDS, (1,))


def test_all_cards_in_pile_no_jack_on_top_returns_to_last_player() -> None:
    """docs/games/slapjack.md#playing-a-card, docs/games/slapjack.md#decisions"""
    state = position([cs("9C"), (), ()], pile=cs("JC 3H"), played_by=[1, 2], epoch=4)
    events, after = act(state, 0, PLAY)
    # Four piles taken, so four shuffles drawn: this one is stream 5 (shuffles + 1).
    order = tuple(shuffled(0, 5, list(cs("JC 3H 9C"))))
    assert events == [
        CardPlayed(0, c("9C"), None),
        PileTaken(0, 3, "return", 0),
        StackShuffled(0, order),
    ]
    assert after.stacks == (order, (), ()) and after.pile == ()
    assert after.epoch == 5 and after.current == 0 and after.shuffles == 5
    # The awaiting players keep their chance at the next Jack.
    assert awaiting(after) == (1, 2) and after.eliminated == frozenset()


def test_end_holding_every_card_is_no_win_while_someone_awaits() -> None:
    """docs/games/slapjack.md#end-of-the-game"""
    rules = Rules(shuffle_after_win=False)
    state = position([cs("9C"), (), ()], pile=cs("JC 3H"), played_by=[1, 2], rules=rules)
    events, after = act(state, 0, PLAY)
    assert events == [CardPlayed(0, c("9C"), None), PileTaken(0, 3, "return", 0)]
    assert after.stacks == (cs("JC 3H 9C"), (), ())  # bottom→top order of the pile
    assert outcome(after) is None
    # The next Jack decides: seat 1 wins it, seat 2 missed it.
    events, after = act(after, 0, PLAY)
    assert events == [CardPlayed(0, c("JC"), 0)]
    events, after = act(after, 1, SLAP)
    assert events == [
        Slapped(1, True, "jack", cs("JC")),
        PileTaken(1, 1, "slap", 0),
        PlayerEliminated(2),
    ]
    assert after.stacks == (cs("3H 9C"), cs("JC"), ()) and after.current == 0
    assert outcome(after) is None


def test_end_pile_returns_and_no_jack_in_game_eliminates_awaiting() -> None:
    """docs/games/slapjack.md#end-of-the-game"""
    state = position([cs("9C"), (), ()], pile=cs("3H"), played_by=[1])
    events, after = act(state, 0, PLAY)
    order = tuple(shuffled(0, 1, list(cs("3H 9C"))))
    assert events == [
        CardPlayed(0, c("9C"), None),
        PileTaken(0, 2, "return", 0),
        StackShuffled(0, order),
        PlayerEliminated(1),
        PlayerEliminated(2),
    ]
    assert outcome(after) == Outcome(Termination.ALL_CARDS, (0,))


# --------------------------------------------------------------------------- slap


def test_slap_on_jack_wins_pile_shuffled_into_whole_stack() -> None:
    """docs/games/slapjack.md#slapping"""
    state = position(
        [cs("2S 3S"), cs("4D"), cs("5H")],
        pile=cs("7C JH"),
        played_by=[1, 2],
        seed=7,
        epoch=2,
        shuffles=2,
    )
    events, after = act(state, 1, SLAP)
    order = tuple(shuffled(7, 3, list(cs("4D 7C JH"))))  # stream = shuffles + 1
    assert events == [
        Slapped(1, True, "jack", cs("JH")),
        PileTaken(1, 2, "slap", 0),
        StackShuffled(1, order),
    ]
    assert after.stacks == (cs("2S 3S"), order, cs("5H"))
    assert after.pile == () and after.played_by == ()
    assert after.epoch == 3 and after.shuffles == 3 and after.current == 0


def test_shuffle_after_win_false_puts_pile_under_stack_in_order() -> None:
    """docs/games/slapjack.md#variant-flags, docs/games/common.md#piles"""
    rules = Rules(shuffle_after_win=False)
    state = position(
        [cs("2S"), cs("4D"), cs("5H")], pile=cs("7C JH"), played_by=[1, 2], rules=rules
    )
    events, after = act(state, 1, SLAP)
    assert events == [Slapped(1, True, "jack", cs("JH")), PileTaken(1, 2, "slap", 0)]
    assert after.stacks[1] == cs("4D 7C JH") and after.shuffles == 0


def test_each_shuffle_uses_the_next_rng_stream() -> None:
    """docs/games/slapjack.md#slapping, docs/games/slapjack.md#decisions"""
    state = position([cs("JS 2S"), cs("JD 3D")], seed=99)
    _, state = act(state, 0, PLAY)
    events, state = act(state, 0, SLAP)
    first = tuple(shuffled(99, 1, list(cs("2S JS"))))
    assert events[-1] == StackShuffled(0, first) and state.shuffles == 1
    _, state = act(state, 1, PLAY)
    events, state = act(state, 1, SLAP)
    second = tuple(shuffled(99, 2, list(cs("3D JD"))))
    assert events[-1] == StackShuffled(1, second) and state.shuffles == 2


def test_slap_win_eliminates_every_other_awaiting_player() -> None:
    """docs/games/slapjack.md#slapping, docs/games/slapjack.md#status"""
    state = position([cs("5S"), (), (), cs("6D")], pile=cs("JH"), played_by=[3])
    events, after = act(state, 1, SLAP)
    assert events == [
        Slapped(1, True, "jack", cs("JH")),
        PileTaken(1, 1, "slap", 0),
        StackShuffled(1, cs("JH")),
        PlayerEliminated(2),
    ]
    # The awaiting winner is back in: active.
    assert awaiting(after) == () and after.eliminated == frozenset({2})


def test_turn_does_not_move_after_a_win() -> None:
    """docs/games/slapjack.md#slapping, docs/games/slapjack.md#decisions"""
    state = position([cs("5S"), cs("6S"), cs("7S")], pile=cs("JH"), played_by=[0], current=1)
    events, after = act(state, 2, SLAP)
    assert events[1] == PileTaken(2, 1, "slap", 1)
    assert after.current == 1


def test_next_after_win_winner_plays_next() -> None:
    """docs/games/slapjack.md#variant-flags"""
    rules = Rules(next_after_win="winner")
    state = position(
        [cs("5S"), cs("6S"), cs("7S")], pile=cs("JH"), played_by=[0], current=1, rules=rules
    )
    events, after = act(state, 2, SLAP)
    assert events[1] == PileTaken(2, 1, "slap", 2)
    assert after.current == 2


def test_next_after_win_left_of_winner_skips_players_without_cards() -> None:
    """docs/games/slapjack.md#variant-flags"""
    rules = Rules(next_after_win="left_of_winner")
    state = position([(), cs("6S"), cs("7S")], pile=cs("JH"), played_by=[0], current=1, rules=rules)
    events, _ = act(state, 2, SLAP)
    assert events[1] == PileTaken(2, 1, "slap", 1)
    assert events[-1] == PlayerEliminated(0)
    state = position(
        [cs("5S"), cs("6S"), cs("7S")], pile=cs("JH"), played_by=[0], current=1, rules=rules
    )
    events, _ = act(state, 2, SLAP)
    assert events[1] == PileTaken(2, 1, "slap", 0)


def test_first_slap_wins_later_slaps_meet_empty_pile_or_stale_epoch() -> None:
    """docs/games/slapjack.md#races, docs/games/common.md#the-sequencer"""
    state = position([cs("5S"), cs("6S"), cs("7S")], pile=cs("JH"), played_by=[0], current=1)
    _, after = act(state, 1, Slap(expect_epoch=0))  # the lowest sequence number
    assert after.epoch == 1
    assert_rejected(after, 2, SLAP, RejectCode.EMPTY_PILE)
    assert_rejected(after, 2, Slap(expect_epoch=0), RejectCode.STALE_ACTION)


def test_slap_stale_epoch_is_checked_before_empty_pile() -> None:
    """docs/games/slapjack.md#slapping, docs/games/common.md#expectations"""
    state = position([cs("5S"), cs("6S")], epoch=3)
    assert_rejected(state, 0, Slap(expect_epoch=2), RejectCode.STALE_ACTION)
    assert_rejected(state, 0, Slap(expect_epoch=3), RejectCode.EMPTY_PILE)


def test_slap_on_empty_pile_has_no_penalty() -> None:
    """docs/games/slapjack.md#slapping, docs/games/slapjack.md#decisions"""
    state = position([cs("5S"), cs("6S")])
    assert_rejected(state, 1, SLAP, RejectCode.EMPTY_PILE)


def test_slap_with_matching_epoch_is_judged() -> None:
    """docs/games/slapjack.md#slapping, docs/games/common.md#expectations"""
    state = position([cs("5S"), cs("6S")], pile=cs("JH"), epoch=2)
    events, _ = act(state, 1, Slap(expect_epoch=2))
    assert events[0] == Slapped(1, True, "jack", cs("JH"))


def test_play_sequenced_before_slap_covers_the_jack() -> None:
    """docs/games/slapjack.md#races"""
    state = position([cs("JH 4C"), cs("9D 8D"), ()])
    _, state = act(state, 0, PLAY)
    events, state = act(state, 1, PLAY)  # sequenced before seat 2's slap
    assert events == [CardPlayed(1, c("9D"), 0), PlayerEliminated(2)]
    assert_rejected(state, 2, SLAP, RejectCode.PLAYER_ELIMINATED)
    events, state = act(state, 0, SLAP)  # judged on the new top: a false slap
    assert events == [
        Slapped(0, False, None, ()),
        PenaltyPaid(0, c("4C"), 1),
        TurnPassed(1),
    ]
    assert state.stacks == ((), cs("8D 4C"), ()) and state.current == 1


def test_false_slap_gives_card_to_player_of_top_card() -> None:
    """docs/games/slapjack.md#false-slaps"""
    state = position([cs("2S 3S"), cs("4D 6D"), cs("5H")], pile=cs("9C"), played_by=[2])
    events, after = act(state, 1, SLAP)
    assert events == [Slapped(1, False, None, ()), PenaltyPaid(1, c("4D"), 2)]
    assert after.stacks == (cs("2S 3S"), cs("6D"), cs("5H 4D"))  # under the receiver's stack
    assert after.pile == cs("9C") and after.epoch == 0 and after.current == 0


def test_false_slap_on_own_card_pays_the_current_player() -> None:
    """docs/games/slapjack.md#false-slaps, docs/games/slapjack.md#decisions"""
    state = position([cs("2S"), cs("4D 6D"), cs("5H")], pile=cs("9C"), played_by=[1])
    events, _ = act(state, 1, SLAP)
    assert events == [Slapped(1, False, None, ()), PenaltyPaid(1, c("4D"), 0)]


def test_false_slap_on_own_card_by_current_player_pays_next_player_in_game() -> None:
    """docs/games/slapjack.md#false-slaps"""
    state = position(
        [cs("2S 3S"), (), cs("5H"), cs("6H")], pile=cs("9C"), played_by=[0], eliminated=[1]
    )
    events, _ = act(state, 0, SLAP)
    assert events == [Slapped(0, False, None, ()), PenaltyPaid(0, c("2S"), 2)]


def test_false_slap_when_top_card_player_is_eliminated_pays_current() -> None:
    """docs/games/slapjack.md#false-slaps"""
    state = position(
        [cs("2S 3S"), (), cs("5H"), cs("6H")],
        pile=cs("9C"),
        played_by=[1],
        eliminated=[1],
        current=3,
    )
    events, _ = act(state, 0, SLAP)
    assert events == [Slapped(0, False, None, ()), PenaltyPaid(0, c("2S"), 3)]


def test_penalty_recipient_current_player() -> None:
    """docs/games/slapjack.md#variant-flags"""
    rules = Rules(penalty_recipient="current_player")
    state = position([cs("2S"), cs("4D 6D"), cs("5H")], pile=cs("9C"), played_by=[2], rules=rules)
    events, _ = act(state, 1, SLAP)
    assert events == [Slapped(1, False, None, ()), PenaltyPaid(1, c("4D"), 0)]


def test_penalty_recipient_current_player_who_slapped_pays_next_in_game() -> None:
    """docs/games/slapjack.md#variant-flags"""
    # The next player in the game is awaiting: the card brings them back, and they play next.
    rules = Rules(penalty_recipient="current_player")
    state = position([cs("2S"), (), cs("5H")], pile=cs("9C"), played_by=[2], rules=rules)
    events, after = act(state, 0, SLAP)
    assert events == [Slapped(0, False, None, ()), PenaltyPaid(0, c("2S"), 1), TurnPassed(1)]
    assert after.stacks == ((), cs("2S"), cs("5H")) and awaiting(after) == (0,)


def test_penalty_card_to_awaiting_player_makes_them_active() -> None:
    """docs/games/slapjack.md#false-slaps, docs/games/slapjack.md#decisions"""
    state = position([cs("2S 3S"), (), cs("5H 6H")], pile=cs("9C"), played_by=[1], current=2)
    events, after = act(state, 0, SLAP)
    assert events == [Slapped(0, False, None, ()), PenaltyPaid(0, c("2S"), 1)]
    assert awaiting(after) == () and after.stacks[1] == cs("2S")
    # The next Jack, won by someone else, no longer concerns seat 1.
    jack = position(list(after.stacks), pile=cs("JD"), played_by=[2], current=0)
    events, after = act(jack, 0, SLAP)
    assert not any(type(e) is PlayerEliminated for e in events)
    assert after.eliminated == frozenset() and awaiting(after) == ()


def test_false_slap_with_no_cards_eliminates() -> None:
    """docs/games/slapjack.md#false-slaps, docs/games/slapjack.md#decisions"""
    state = position([cs("2S"), (), cs("5H")], pile=cs("9C"), played_by=[0], current=2)
    events, after = act(state, 1, SLAP)
    assert events == [Slapped(1, False, None, ()), PlayerEliminated(1)]
    assert after.eliminated == frozenset({1})


def test_zero_card_false_slap_ignore() -> None:
    """docs/games/slapjack.md#variant-flags"""
    rules = Rules(zero_card_false_slap="ignore")
    state = position([cs("2S"), (), cs("5H")], pile=cs("9C"), played_by=[0], rules=rules)
    events, after = act(state, 1, SLAP)
    assert events == [Slapped(1, False, None, ())]
    assert after == state


def test_false_slap_paying_last_card_makes_awaiting_and_passes_turn() -> None:
    """docs/games/slapjack.md#false-slaps"""
    state = position([cs("2S"), cs("4D"), cs("5H")], pile=cs("9C"), played_by=[2])
    events, after = act(state, 0, SLAP)
    assert events == [Slapped(0, False, None, ()), PenaltyPaid(0, c("2S"), 2), TurnPassed(1)]
    assert awaiting(after) == (0,) and after.current == 1


def test_false_slap_penalty_two_cards_in_order() -> None:
    """docs/games/slapjack.md#variant-flags"""
    rules = Rules(false_slap_penalty=2)
    state = position(
        [cs("2S 3S 4S"), cs("4D"), cs("5H")], pile=cs("9C"), played_by=[1], rules=rules
    )
    events, after = act(state, 0, SLAP)
    assert events == [
        Slapped(0, False, None, ()),
        PenaltyPaid(0, c("2S"), 1),
        PenaltyPaid(0, c("3S"), 1),
    ]
    assert after.stacks == (cs("4S"), cs("4D 2S 3S"), cs("5H"))


def test_false_slap_penalty_larger_than_stack_pays_what_there_is() -> None:
    """docs/games/slapjack.md#variant-flags"""
    rules = Rules(false_slap_penalty=3)
    state = position([cs("2S"), cs("4D 3C"), cs("5H")], pile=cs("9C"), played_by=[2], rules=rules)
    events, _ = act(state, 1, SLAP)
    assert events == [
        Slapped(1, False, None, ()),
        PenaltyPaid(1, c("4D"), 2),
        PenaltyPaid(1, c("3C"), 2),
    ]


def test_false_slap_penalty_zero() -> None:
    """docs/games/slapjack.md#variant-flags"""
    rules = Rules(false_slap_penalty=0)
    state = position([cs("2S"), cs("4D"), cs("5H")], pile=cs("9C"), played_by=[2], rules=rules)
    events, _ = act(state, 1, SLAP)
    assert events == [Slapped(1, False, None, ())]


# --------------------------------------------------------------------------- slap_targets


def test_slap_targets_double() -> None:
    """docs/games/slapjack.md#variant-flags"""
    state = position([cs("2S"), cs("4D")], pile=cs("5H 5C"), played_by=[0, 1])
    events, _ = act(state, 0, SLAP)
    assert events[0] == Slapped(0, False, None, ())  # not a target by default
    rules = Rules(slap_targets=frozenset({"jack", "double"}))
    state = position([cs("2S"), cs("4D")], pile=cs("5H 5C"), played_by=[0, 1], rules=rules)
    events, _ = act(state, 0, SLAP)
    assert events[:2] == [Slapped(0, True, "double", cs("5H 5C")), PileTaken(0, 2, "slap", 0)]


def test_slap_targets_sandwich_needs_a_different_middle_card() -> None:
    """docs/games/slapjack.md#variant-flags, docs/games/ratscrew.md#slap-patterns"""
    rules = Rules(slap_targets=frozenset({"jack", "sandwich"}))
    state = position([cs("2S"), cs("4D")], pile=cs("5H 9C 5C"), rules=rules)
    events, _ = act(state, 0, SLAP)
    assert events[0] == Slapped(0, True, "sandwich", cs("5H 9C 5C"))
    state = position([cs("2S"), cs("4D")], pile=cs("5H 5D 5C"), played_by=[1, 1, 1], rules=rules)
    events, _ = act(state, 0, SLAP)
    assert events[0] == Slapped(0, False, None, ())


def test_variant_target_covered_eliminates_awaiting_like_a_jack() -> None:
    """docs/games/slapjack.md#variant-flags, docs/games/slapjack.md#decisions"""
    rules = Rules(slap_targets=frozenset({"jack", "double"}))
    state = position(
        [(), cs("4C 5C"), cs("9D")], pile=cs("7H 7S"), played_by=[2, 0], current=1, rules=rules
    )
    events, _ = act(state, 1, PLAY)
    assert events == [CardPlayed(1, c("4C"), 2), PlayerEliminated(0)]


# --------------------------------------------------------------------------- out_of_cards


def test_eliminate_now_playing_last_card_eliminates_at_once() -> None:
    """docs/games/slapjack.md#variant-flags"""
    rules = Rules(out_of_cards="eliminate_now")
    state = position([cs("JS"), cs("7H"), cs("8H")], rules=rules)
    events, after = act(state, 0, PLAY)
    assert events == [CardPlayed(0, c("JS"), 1), PlayerEliminated(0)]
    assert_rejected(after, 0, SLAP, RejectCode.PLAYER_ELIMINATED)


def test_eliminate_now_paying_last_card_eliminates_at_once() -> None:
    """docs/games/slapjack.md#variant-flags"""
    rules = Rules(out_of_cards="eliminate_now")
    state = position([cs("2S"), cs("4D"), cs("5H")], pile=cs("9C"), played_by=[2], rules=rules)
    events, after = act(state, 0, SLAP)
    assert events == [
        Slapped(0, False, None, ()),
        PenaltyPaid(0, c("2S"), 2),
        PlayerEliminated(0),
        TurnPassed(1),
    ]
    assert after.eliminated == frozenset({0}) and after.current == 1


def test_slap_in_unlimited_covered_jack_eliminates_nobody() -> None:
    """docs/games/slapjack.md#variant-flags"""
    rules = Rules(out_of_cards="slap_in_unlimited")
    state = position(
        [(), cs("4C 5C"), cs("9D")], pile=cs("JH"), played_by=[0], current=1, rules=rules
    )
    events, after = act(state, 1, PLAY)
    assert events == [CardPlayed(1, c("4C"), 2)]
    assert awaiting(after) == (0,)


def test_slap_in_unlimited_other_players_wins_eliminate_nobody() -> None:
    """docs/games/slapjack.md#variant-flags"""
    rules = Rules(out_of_cards="slap_in_unlimited")
    state = position([cs("5S"), (), cs("7S")], pile=cs("JH"), played_by=[2], rules=rules)
    events, after = act(state, 0, SLAP)
    assert not any(type(e) is PlayerEliminated for e in events)
    assert awaiting(after) == (1,)


def test_slap_in_unlimited_ends_when_one_player_holds_every_card() -> None:
    """docs/games/slapjack.md#variant-flags"""
    rules = Rules(out_of_cards="slap_in_unlimited")
    state = position([cs("5S"), (), ()], pile=cs("JH"), played_by=[1], rules=rules)
    _, after = act(state, 0, SLAP)
    assert after.eliminated == frozenset()
    assert outcome(after) == Outcome(Termination.ALL_CARDS, (0,))


def test_slap_in_unlimited_false_slap_with_no_cards_still_eliminates() -> None:
    """docs/games/slapjack.md#variant-flags"""
    rules = Rules(out_of_cards="slap_in_unlimited")
    state = position([cs("5S"), (), cs("7S")], pile=cs("9H"), played_by=[2], rules=rules)
    events, _ = act(state, 1, SLAP)
    assert events == [Slapped(1, False, None, ()), PlayerEliminated(1)]


# --------------------------------------------------------------------------- end


def test_last_player_not_eliminated_wins() -> None:
    """docs/games/slapjack.md#end-of-the-game, docs/games/common.md#order-of-checks"""
    state = position([cs("4C 5C"), ()], pile=cs("JH"), played_by=[1])
    events, after = act(state, 0, PLAY)
    assert events == [CardPlayed(0, c("4C"), 0), PlayerEliminated(1)]
    assert outcome(after) == Outcome(Termination.LAST_STANDING, (0,))
    assert_rejected(after, 0, PLAY, RejectCode.GAME_OVER)
    assert_rejected(after, 1, SLAP, RejectCode.GAME_OVER)  # GameOver is checked first
    assert legal_commands(after, 0) == []


def test_winning_every_card_at_a_jack_ends_the_game() -> None:
    """docs/games/slapjack.md#end-of-the-game"""
    state = position([cs("5S"), ()], pile=cs("JH"), played_by=[1])
    _, after = act(state, 0, SLAP)
    assert outcome(after) == Outcome(Termination.ALL_CARDS, (0,))


# --------------------------------------------------------------------------- leaving


def test_a_resignation_with_three_left_buries_the_stack_and_passes_the_turn() -> None:
    """docs/games/slapjack.md#leaving, docs/games/common.md#resign"""
    resign = kit.Resign()
    state = position([cs("5S"), cs("6H 7H"), cs("8D"), ()], pile=cs("9C"), played_by=[0], current=1)
    events, after = act(state, 1, resign)
    assert events == [Resigned(1, cs("6H 7H"), 2, None)]  # seat 1's turn passes to seat 2
    assert after.stacks[1] == () and after.eliminated == {1}
    assert after.burned == cs("6H 7H") and after.pile == cs("9C")  # face down, under the pile
    assert outcome(after) is None
    # An awaiting seat may resign too; then, with two left, the other wins at once.
    events, after = act(after, 3, resign)
    assert events == [Resigned(3, (), 2, None)] and outcome(after) is None
    events, after = act(after, 0, resign)
    assert events == [Resigned(0, cs("5S"), 2, 2)]
    assert outcome(after) == Outcome(Termination.RESIGNED, (2,))


# --------------------------------------------------------------------------- views, redaction


def test_no_seat_sees_any_stack_its_own_included() -> None:
    """docs/games/slapjack.md#setup"""
    state = position([cs("2S 3S"), (), cs("5H")], pile=cs("9C JD"), played_by=[1, 2], epoch=2)
    for viewer in (0, 1, 2, Role.SPECTATOR):
        v = view(state, viewer)
        assert v.stacks == ((HIDDEN, HIDDEN), (), (HIDDEN,))
        assert v.pile == cs("9C JD") and v.played_by == (1, 2) and v.epoch == 2
        assert v.awaiting == (1,) and v.eliminated == () and v.slappable and v.current == 0
    assert view(state, Role.REFEREE).stacks == state.stacks
    hidden = shuffle_hidden(state, 0, Rng(5, 0))
    assert view(hidden, 0) == view(state, 0)
    assert Counter(GAME.cards_in_play(hidden)) == Counter(GAME.cards_in_play(state))


def test_redaction_hides_stack_cards_from_everyone_but_the_referee() -> None:
    """docs/games/slapjack.md#setup, docs/adding-a-game.md#5-views-and-redaction"""
    dealt = Dealt((cs("2S 3S"), cs("5H")))
    paid = PenaltyPaid(0, c("2S"), 1)
    shuffled_ = StackShuffled(1, cs("5H 2S"))
    played = CardPlayed(0, c("2S"), 1)
    for viewer in (0, 1, Role.SPECTATOR):
        assert redact(dealt, viewer) == Dealt(((HIDDEN, HIDDEN), (HIDDEN,)))
        assert redact(paid, viewer) == PenaltyPaid(0, HIDDEN, 1)
        assert redact(shuffled_, viewer) == StackShuffled(1, (HIDDEN, HIDDEN))
        assert redact(played, viewer) == played
    for e in (dealt, paid, shuffled_, played):
        assert redact(e, Role.REFEREE) == e


def test_redacted_shuffle_keeps_the_stack_when_evolved() -> None:
    """docs/adding-a-game.md#5-views-and-redaction"""
    state = position([cs("2S"), cs("4D")], pile=cs("JH"), played_by=[1])
    events = decide(state, 0, SLAP)
    after = state
    for e in events:
        after = evolve(after, redact(e, 0))
    assert Counter(after.stacks[0]) == Counter(cs("2S JH")) and after.shuffles == 1


# --------------------------------------------------------------------------- bots' hints


def test_legal_commands_and_sensible_moves() -> None:
    """docs/adding-a-game.md#4-the-decider"""
    state = position([cs("2S"), cs("4D")], pile=cs("9C"), played_by=[1])
    assert legal_commands(state, 0) == [PLAY, SLAP]
    assert legal_commands(state, 1) == [SLAP]
    assert is_sensible(state, 0, PLAY) and not is_sensible(state, 0, SLAP)
    jack = position([cs("2S"), cs("4D")], pile=cs("JC"), played_by=[1])
    # Covering a Jack you could slap is not sensible; slapping it is.
    assert is_sensible(jack, 0, SLAP) and not is_sensible(jack, 0, PLAY)
    empty = position([cs("2S"), cs("4D")])
    assert legal_commands(empty, 0) == [PLAY] and legal_commands(empty, 1) == []


def test_narration_in_plain_words() -> None:
    """docs/disputes.md#what-happened-replay"""
    assert narrate(CardPlayed(0, c("JH"), 1)) == "seat 0 played J♥"
    assert narrate(Slapped(2, True, "jack", cs("JH"))) == "seat 2 slapped on the jack J♥: valid"
    assert narrate(Slapped(2, False, None, ())) == "seat 2 slapped: false slap"
    assert (
        narrate(PileTaken(2, 9, "slap", 0)) == "seat 2 takes the pile (9 cards); seat 0 plays next"
    )
    assert narrate(PileTaken(1, 52, "return", 1)) == (
        "nobody else holds a card: the pile (52 cards) returns to seat 1; seat 1 plays next"
    )
    assert narrate(PenaltyPaid(1, HIDDEN, 0)) == "seat 1 pays a face-down card to seat 0"
    assert narrate(PlayerEliminated(3)) == "seat 3 is eliminated"
    assert narrate(StackShuffled(1, (HIDDEN,) * 3)) == "seat 1 shuffles its stack (3 cards)"
    assert narrate(TurnPassed(2)) == "the turn passes to seat 2"
