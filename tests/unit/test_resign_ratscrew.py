"""Egyptian Ratscrew: the shared ``Resign`` command (docs/games/common.md#leaving-a-game, on top of
docs/games/ratscrew.md).

Two players left: the game ends at once and the other wins (``RESIGNED``). Three or more: the
resigner's whole stack goes, in order, under the pile as burned cards, the resigner is out, and
the turn and any claim move on by the existing rules (a challenge owed by the resigner is lost
as if it had run out of cards; a claim of the resigner lapses as in
docs/games/ratscrew.md#decisions).

Stacks are written top first, the pile bottom→top (docs/games/common.md#piles).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardcore import codec, log
from cardcore.bots import play_out, seat_bots
from cardcore.cards import HIDDEN, Card, parse_cards
from cardcore.engine import Outcome, Role, Setup, Termination, Viewer
from cardcore.errors import InvalidPosition, InvalidSeat, RejectCode, Rejected
from cardcore.games import ratscrew as ers
from cardcore.games.ratscrew import (
    COLLECT,
    GAME,
    PLAY,
    SLAP,
    ChallengeLapsed,
    Event,
    GameResigned,
    PileOwed,
    PileTaken,
    Resigned,
    Rules,
    State,
    TurnPassed,
    cards_in_play,
    check_position,
    format_position,
    parse_position,
    position,
)
from cardcore.kit import RESIGN_BY_TIMER, Resign
from cardcore.match import Match
from cardcore.rng import Rng

C = parse_cards
REF = Role.REFEREE
RESIGN = Resign()
TIMER = Resign(by=RESIGN_BY_TIMER)


def pos(stacks: Sequence[str], **kw: Any) -> State:
    for zone in ("played", "burned"):
        if zone in kw:
            kw[zone] = C(kw[zone])
    return position([C(s) for s in stacks], **kw)


def normalised(state: State) -> State:
    """``state`` with the setup parse_position builds (seats, seed 0, same rules)."""
    return state._replace(setup=Setup(state.setup.seats, 0, state.setup.rules))


def viewers(state: State) -> list[Viewer]:
    return [*range(state.setup.seats), Role.SPECTATOR]


def resign(state: State, seat: int) -> tuple[list[Event], State]:
    """``seat`` resigns (as a player and, identically, on a timer); every invariant is checked
    after each event and the new position round-trips through the notation."""
    events = list(ers.decide(state, seat, RESIGN))
    assert list(ers.decide(state, seat, TIMER)) == events  # a forfeit is a resignation
    return events, settle(state, events)


def settle(state: State, events: Sequence[Event]) -> State:
    cards = Counter(cards_in_play(state))
    for event in events:
        state = ers.evolve(state, event)
        assert Counter(cards_in_play(state)) == cards, f"cards not conserved after {event!r}"
        assert GAME.decode_event(codec.encode(event)) == event
    check_position(state, allow_over=True)
    text = format_position(state, REF)
    assert parse_position(text, state.setup.rules, allow_over=True) == normalised(state)
    return state


def act(state: State, seat: int, command: ers.Command) -> State:
    return settle(state, ers.decide(state, seat, command))


def play_to_the_end(
    state: State, seed: int, *, limit: int = 20_000
) -> Match[Any, Any, Any, Any, Any]:
    """Random bots play on from ``state``; the log verifies and replays to the live state."""
    match = Match.from_position(GAME, state, seed=seed, event_limit=limit)
    result = play_out(match, seat_bots("random", state.setup.seats, seed))
    assert not result.stalled and match.outcome is not None
    check_log(match)
    return match


def check_log(match: Match[Any, Any, Any, Any, Any]) -> None:
    assert match.writer is not None
    lines = log.loads(log.dumps(match.writer.lines))
    report = log.verify(lines)
    assert report.revealed and report.outcome == match.outcome and report.entries == match.seq
    *_, last = log.replay(lines)
    assert last.state == match.state


# --------------------------------------------------------------------------- two players left


def test_with_two_players_a_resignation_ends_the_game_and_the_other_wins() -> None:
    match = Match(GAME, GAME.make_setup(2, 3), game_id="g")
    advance(match, Rng(3, 1), 8)
    before = match.state
    assert ers.outcome(before) is None  # (not match.outcome: mypy would keep it None)
    events = match.submit(1, RESIGN, 10)
    assert list(events) == [GameResigned(1, 0)]
    assert match.outcome == Outcome(Termination.RESIGNED, (0,))
    assert ers.outcome(match.state) == match.outcome
    # Nothing moves: the resigner keeps its stack, the pile stays; the resignation is recorded.
    assert match.state == before._replace(resigned=frozenset({1}))
    check_position(match.state, allow_over=True)
    assert Counter(cards_in_play(match.state)) == Counter(GAME.deck(match.setup))
    for seat in (0, 1):
        assert ers.legal_commands(match.state, seat) == ()
        for command in (PLAY, SLAP, COLLECT, RESIGN):
            with pytest.raises(Rejected) as info:
                ers.decide(match.state, seat, command)
            assert info.value.code == RejectCode.GAME_OVER
    with pytest.raises(Rejected) as info:
        match.submit(0, RESIGN, 11)
    assert info.value.code == RejectCode.GAME_OVER
    check_log(match)
    assert match.writer is not None
    entry = match.writer.lines[-2]
    assert entry["action"] == {"kind": "Resign", "by": None} and entry["seat"] == 1
    assert entry["events"] == [{"kind": "GameResigned", "seat": 1, "winner": 0}]
    assert match.writer.lines[-1]["outcome"]["termination"] == "resigned"


@pytest.mark.parametrize("seat", [0, 1])
def test_either_of_two_may_resign_whoever_is_to_play_or_owed(seat: int) -> None:
    owed = pos(["5S", "6S"], played="KC 2D 3D 4D", played_by=[0, 1, 1, 1], current=None,
               owed_to=0)  # fmt: skip
    events, after = resign(owed, seat)
    assert events == [GameResigned(seat, 1 - seat)]
    assert ers.outcome(after) == Outcome(Termination.RESIGNED, (1 - seat,))


def test_a_forfeit_on_the_timer_ends_a_two_player_game_the_same_way() -> None:
    match = Match(GAME, GAME.make_setup(2, 4), game_id="g")
    match.submit(0, TIMER, 1)  # before anybody played: allowed in every phase
    assert match.outcome == Outcome(Termination.RESIGNED, (1,))
    assert match.writer is not None
    assert match.writer.lines[-2]["action"] == {"kind": "Resign", "by": "timer"}
    check_log(match)


def test_the_last_two_after_an_elimination_end_the_game_by_resigning() -> None:
    state = pos(["5S", "", "6S 7S"], played="9C", played_by=[2], current=0, eliminated=[1])
    events, after = resign(state, 2)
    assert events == [GameResigned(2, 0)]
    assert ers.outcome(after) == Outcome(Termination.RESIGNED, (0,))
    assert format_position(after, REF) == "ratscrew 5S/-/6S,7S 9C 2 - 0 0 - - 1 2"


# --------------------------------------------------------------------------- three or more


def four() -> State:
    """Four seats, seat 0 to play on a pile of one card."""
    return pos(["2S 3S", "4H 5H", "6D", "7C 8C"], played="9S", played_by=[3], current=0)


def test_on_their_turn_the_stack_goes_under_the_pile_and_the_turn_passes() -> None:
    state = four()._replace(burned=C("10S"))  # one burned card already under the pile
    check_position(state)
    events, after = resign(state, 0)
    assert events == [Resigned(0, C("2S 3S")), TurnPassed(1)]
    # In order: the stack's top card lies at the very bottom, then the rest, then what was there.
    assert after.burned == C("2S 3S 10S") and after.played == C("9S")
    assert after.stacks == ((), C("4H 5H"), C("6D"), C("7C 8C"))
    assert after.eliminated == {0} and after.resigned == {0} and after.current == 1
    assert after.epoch == state.epoch and ers.outcome(after) is None
    # The game goes on; the burned cards go to whoever takes the pile next
    # (docs/games/ratscrew.md#collecting).
    after = act(after, 1, PLAY)
    assert after.played == C("9S 4H") and after.current == 2
    assert ers.legal_commands(after, 0) == ()
    play_to_the_end(after, 1)


def test_a_challenge_owed_by_the_resigner_is_lost_as_if_it_ran_out_of_cards() -> None:
    state = pos(["2S", "4H 5H", "6D", "7C"], played="KS", played_by=[0], current=1,
                challenge=(0, 3))  # fmt: skip
    events, after = resign(state, 1)
    assert events == [Resigned(1, C("4H 5H")), PileOwed(0)]
    assert after.owed_to == 0 and after.current is None and after.challenge is None
    assert ers.legal_commands(after, 0) == (COLLECT, SLAP)
    after = act(after, 0, COLLECT)
    assert after.stacks[0] == C("2S 4H 5H KS") and after.current == 0
    play_to_the_end(after, 2)


def test_under_auto_collect_the_challenger_takes_the_pile_at_once() -> None:
    state = pos(["2S", "4H 5H", "6D", "7C"], played="QS 3C", played_by=[0, 1], current=1,
                challenge=(0, 1), rules=Rules(auto_collect=True))  # fmt: skip
    events, after = resign(state, 1)
    assert events == [Resigned(1, C("4H 5H")), PileOwed(0), PileTaken(0, 4, "collect")]
    assert after.stacks[0] == C("2S 4H 5H QS 3C") and after.current == 0


def test_under_pass_to_next_the_challenge_passes_on_as_for_an_empty_stack() -> None:
    rules = Rules(challenge_exhausted="pass_to_next")
    state = pos(["2S", "4H 5H", "6D", "7C"], played="KS 9H", played_by=[0, 1], current=1,
                challenge=(0, 2), rules=rules)  # fmt: skip
    events, after = resign(state, 1)
    assert events == [Resigned(1, C("4H 5H")), TurnPassed(2)]
    assert after.challenge == (0, 2) and after.current == 2
    # When the next seat holding a card is the challenger, the challenge is lost.
    lone = pos(["2S", "4H 5H", "", ""], played="KS", played_by=[0], burned="7C", current=1,
               challenge=(0, 3), eliminated=[3], rules=rules)  # fmt: skip
    events, _ = resign(lone, 1)
    assert events == [Resigned(1, C("4H 5H")), PileOwed(0)]


def test_a_resigning_challenger_s_claim_lapses() -> None:
    state = pos(["2S", "4H 5H", "6D", "7C"], played="KS 3H", played_by=[0, 1], current=1,
                challenge=(0, 2))  # fmt: skip
    events, after = resign(state, 0)
    assert events == [Resigned(0, C("2S")), ChallengeLapsed(1)]
    assert after.challenge is None and after.current == 1 and after.burned == C("2S")
    play_to_the_end(after, 3)


def test_the_claim_of_a_resigner_owed_the_pile_lapses() -> None:
    state = pos(["2S", "4H 5H", "6D", "7C"], played="JS 5D", played_by=[0, 1], current=None,
                owed_to=0)  # fmt: skip
    events, after = resign(state, 0)
    assert events == [Resigned(0, C("2S")), ChallengeLapsed(1)]
    assert after.owed_to is None and after.current == 1
    assert ers.legal_commands(after, 1) == (PLAY, SLAP)


def test_another_seat_resigning_changes_neither_turn_nor_challenge() -> None:
    state = pos(["2S", "4H 5H", "6D 8D", "7C"], played="KS", played_by=[0], current=1,
                challenge=(0, 3))  # fmt: skip
    events, after = resign(state, 2)
    assert events == [Resigned(2, C("6D 8D"))]
    assert after.current == 1 and after.challenge == (0, 3) and after.burned == C("6D 8D")
    # The pile owed to another seat stays owed to it, the resigner's cards included.
    owed = pos(["2S", "4H 5H", "6D", "7C"], played="JS 5D", played_by=[0, 1], current=None,
               owed_to=0)  # fmt: skip
    events, after = resign(owed, 3)
    assert events == [Resigned(3, C("7C"))] and after.owed_to == 0
    assert act(after, 0, COLLECT).stacks[0] == C("2S 7C JS 5D")


def test_a_seat_with_no_cards_may_resign() -> None:
    state = pos(["2S", "4H 5H", "", "7C"], played="9S", played_by=[2], current=0)
    events, after = resign(state, 2)
    assert events == [Resigned(2, ())]
    assert after.eliminated == {2} and after.burned == () and after.current == 0


def test_a_resignation_before_the_first_card_leaves_a_pile_of_burned_cards() -> None:
    match = Match(GAME, GAME.make_setup(4, 9), game_id="g")
    stack = match.state.stacks[2]
    match.submit(2, RESIGN, 1)
    state = match.state
    assert state.burned == stack and not state.played and state.current == 0
    check_position(state)
    assert Counter(cards_in_play(state)) == Counter(GAME.deck(match.setup))
    with pytest.raises(Rejected) as info:  # nothing played yet: no slap on the burned cards
        ers.decide(state, 1, SLAP)
    assert info.value.code == RejectCode.EMPTY_PILE
    # The game goes on; whoever takes the first pile takes the resigner's cards too.
    result = play_out(match, seat_bots("random", 4, 9))
    assert not result.stalled and match.outcome is not None
    assert Counter(cards_in_play(match.state)) == Counter(GAME.deck(match.setup))
    check_log(match)


def test_when_nobody_else_holds_a_card_the_pile_is_owed() -> None:
    # Seats 1..3 are still in at 0 cards; seat 2 played the last card of the pile.
    state = pos(["2S 3S", "", "", ""], played="9S 5H", played_by=[1, 2], current=0)
    events, after = resign(state, 0)
    assert events == [Resigned(0, C("2S 3S")), PileOwed(2)]
    after = act(after, 2, COLLECT)
    assert ers.outcome(after) == Outcome(Termination.ALL_CARDS, (2,))
    # Only burned cards on the pile (nobody played on it): the next seat still in is owed it.
    burned_only = pos(["2S", "", "", ""], burned="3S", current=0, eliminated=[3], resigned=[3])
    events, after = resign(burned_only, 0)
    assert events == [Resigned(0, C("2S")), PileOwed(1)]
    assert after.burned == C("2S 3S") and not after.played
    assert ers.legal_commands(after, 1) == (COLLECT,)
    assert ers.outcome(act(after, 1, COLLECT)) == Outcome(Termination.ALL_CARDS, (1,))


@pytest.mark.parametrize("auto_collect", [False, True])
def test_a_lapsed_claim_with_nobody_holding_a_card_goes_to_the_last_player_still_in(
    auto_collect: bool,
) -> None:
    # Seat 0's king could not be answered (nobody else holds a card): the pile is owed to it.
    # (Under auto_collect it stays owed only when seat 0 has no card left either.)
    stack = "" if auto_collect else "2S 3S"
    state = pos([stack, "", "", ""], played="5H KS", played_by=[2, 0], current=None,
                owed_to=0, rules=Rules(auto_collect=auto_collect))  # fmt: skip
    events, after = resign(state, 0)
    taken: list[Event] = [PileTaken(2, 2, "collect")] if auto_collect else []
    assert events == [Resigned(0, C(stack)), ChallengeLapsed(None), PileOwed(2), *taken]
    if auto_collect:
        assert ers.outcome(after) == Outcome(Termination.ALL_CARDS, (2,))
    else:
        assert ers.legal_commands(after, 2) == (COLLECT, SLAP)


def test_under_slap_in_off_a_claim_keeps_a_seat_at_no_cards_in() -> None:
    rules = Rules(slap_in=False)
    state = pos(["", "4H", "6D", "7C"], played="KS", played_by=[0], current=1,
                challenge=(0, 3), rules=rules)  # fmt: skip
    events, after = resign(state, 1)  # the challenge is lost: seat 0 is owed the pile
    assert events == [Resigned(1, C("4H")), PileOwed(0)]
    assert after.eliminated == {1}
    events, after = resign(state, 0)  # the challenger leaves: its claim lapses
    assert events == [Resigned(0, ()), ChallengeLapsed(1)]


def test_resigning_down_to_the_last_two_then_ending() -> None:
    match = Match(GAME, GAME.make_setup(4, 5), game_id="g")
    rng = Rng(5, 3)
    advance(match, rng, 10)
    for seat in (3, 1):  # four in, then three in: each is out, the game goes on
        events = match.submit(seat, RESIGN, match.last_at_ms + 1)
        assert type(events[0]) is Resigned and match.outcome is None
        assert seat in match.state.eliminated and seat in match.state.resigned
        assert Counter(cards_in_play(match.state)) == Counter(GAME.deck(match.setup))
        advance(match, rng, 5)
    assert ers.outcome(match.state) is None
    alive = [q for q in range(4) if q not in match.state.eliminated]
    assert alive == [0, 2]
    events = match.submit(2, TIMER, match.last_at_ms + 1)
    assert list(events) == [GameResigned(2, 0)]
    assert match.outcome == Outcome(Termination.RESIGNED, (0,))
    assert format_position(match.state, REF).endswith(" 1,3 1,2,3")
    check_log(match)


def advance(match: Match[Any, Any, Any, Any, Any], rng: Rng, steps: int) -> None:
    """Up to ``steps`` random legal actions (sensible ones, mostly), never a resignation."""
    n = match.setup.seats
    for _ in range(steps):
        if match.outcome is not None:
            return
        options = [(s, c) for s in range(n) for c in match.legal_commands(s)]
        assert all(type(c) is not Resign for _, c in options)
        sensible = [o for o in options if ers.is_sensible(match.state, *o)]
        pool = sensible if sensible and rng.below(4) else options
        seat, command = pool[rng.below(len(pool))]
        match.submit(seat, command, match.last_at_ms + 1)


# --------------------------------------------------------------------------- rejections


def test_an_eliminated_seat_may_not_resign() -> None:
    state = pos(["5S", "", "6S", "7S"], played="9C", played_by=[2], current=0, eliminated=[1])
    assert rejected(state, 1) == RejectCode.PLAYER_ELIMINATED
    _, after = resign(state, 2)
    assert rejected(after, 2) == RejectCode.PLAYER_ELIMINATED  # resigned once: out


def test_no_resignation_after_the_end() -> None:
    over = pos(["5S 6S", "", ""], allow_over=True)
    assert ers.outcome(over) == Outcome(Termination.ALL_CARDS, (0,))
    for seat in range(3):
        assert rejected(over, seat) == RejectCode.GAME_OVER
    last = pos(["5S", "", ""], played="7C", eliminated=[1, 2], allow_over=True)
    assert rejected(last, 0) == RejectCode.GAME_OVER
    # GameOver comes first (docs/games/common.md#order-of-checks)
    assert rejected(last, 1) == RejectCode.GAME_OVER


def rejected(state: State, seat: int) -> RejectCode:
    with pytest.raises(Rejected) as info:
        ers.decide(state, seat, RESIGN)
    with pytest.raises(Rejected) as timer:
        ers.decide(state, seat, TIMER)
    assert timer.value.code == info.value.code
    return info.value.code


@pytest.mark.parametrize("seat", [4, -1, True, "0", None])
def test_a_seat_that_is_not_one_raises_invalid_seat(seat: Any) -> None:
    with pytest.raises(InvalidSeat):
        ers.decide(four(), seat, RESIGN)


# --------------------------------------------------------------------------- bots never resign


def test_resign_is_never_offered_nor_sensible() -> None:
    match = Match(GAME, GAME.make_setup(4, 6), record=False)
    rng = Rng(6, 1)
    for _ in range(200):
        if match.outcome is not None:
            break
        for seat in range(4):
            assert all(type(c) is not Resign for c in ers.legal_commands(match.state, seat))
            assert not ers.is_sensible(match.state, seat, RESIGN)
        advance(match, rng, 1)
    assert Resign in GAME.command_types
    assert GAME.info.rules_version == "2" and GAME.info.replays_versions == ("1",)


# --------------------------------------------------------------------------- redaction


def test_the_buried_stack_is_face_down_to_every_seat_and_spectator() -> None:
    state = pos(["2S 3S", "4H 5H", "6D", "7C 8C"], played="9S", played_by=[3], current=0)
    events, after = resign(state, 1)
    (event,) = events
    assert event == Resigned(1, C("4H 5H"))
    assert ers.redact(event, REF) == event
    for viewer in viewers(state):  # the resigner included: nobody sees a stack card
        shown = ers.redact(event, viewer)
        assert shown == Resigned(1, (HIDDEN, HIDDEN))
        assert codec.encode(shown) == {"kind": "Resigned", "seat": 1, "cards": ["??", "??"]}
        assert ers.narrate(shown) == ers.narrate(event)
        assert ers.narrate(event) == "seat 1 resigned and is out; their 2 cards go under the pile"
        # No leak: the same resignation in a world where the hidden cards lie elsewhere reads
        # the same, and the viewer's view after it shows the buried cards face down.
        alt = ers.shuffle_hidden(state, viewer, Rng(7, viewer if type(viewer) is int else 9))
        alt_events = ers.decide(alt, 1, RESIGN)
        assert [codec.encode(ers.redact(e, viewer)) for e in alt_events] == [codec.encode(shown)]
        view = ers.view(after, viewer)
        assert view.pile == (HIDDEN, HIDDEN, Card.parse("9S")) and view.eliminated == (1,)


def test_a_players_download_of_the_log_hides_the_buried_stack() -> None:
    match = Match(GAME, GAME.make_setup(3, 8), game_id="g")
    match.submit(0, PLAY, 1)
    stack = match.state.stacks[2]
    match.submit(2, RESIGN, 2)
    assert match.outcome is None and match.writer is not None
    full = match.writer.lines[-1]["events"][0]
    assert full == {"kind": "Resigned", "seat": 2, "cards": [str(c) for c in stack]}
    for viewer in (0, 1, 2, Role.SPECTATOR):
        red = log.redact_log(match.writer.lines, viewer)
        assert red[-1]["events"][0] == {"kind": "Resigned", "seat": 2, "cards": ["??"] * 17}
        assert red[-1]["hash"] == match.writer.lines[-1]["hash"]
    assert log.redact_log(match.writer.lines, REF)[-1]["events"][0] == full


def test_narration() -> None:
    assert ers.narrate(Resigned(2, ())) == "seat 2 resigned with no cards and is out"
    assert ers.narrate(Resigned(2, C("5S"))) == (
        "seat 2 resigned and is out; their 1 card goes under the pile"
    )
    assert ers.narrate(GameResigned(1, 0)) == "seat 1 resigned; seat 0 wins"


# --------------------------------------------------------------------------- positions


def test_the_notation_writes_resigned_seats_only_when_there_are_some() -> None:
    state = four()
    assert format_position(state, REF).endswith(" - - -")  # nine fields, as in version 1
    _, after = resign(state, 2)
    text = format_position(after, REF)
    assert text == "ratscrew 2S,3S/4H,5H/-/7C,8C 9S 3 6D 0 0 - - 2 2"
    assert format_position(after, 0) == "ratscrew ??,??/??,??/-/??,?? 9S 3 ?? 0 0 - - 2 2"
    assert parse_position(text) == normalised(after)


def test_the_position_check_accounts_for_resigned_seats() -> None:
    ignore = Rules(zero_card_false_slap="ignore")  # no rule eliminates: only a resignation
    pos(["5S", "", "6S"], played="9C", eliminated=[1], resigned=[1], rules=ignore)
    pos(["5S", "", "6S", "7S"], played="9C", eliminated=[1], resigned=[1])
    over = pos(["5S", "6S"], played="9C", resigned=[1], allow_over=True)
    assert ers.outcome(over) == Outcome(Termination.RESIGNED, (0,))
    with pytest.raises(InvalidPosition, match="already over") as info:
        pos(["5S", "6S"], played="9C", resigned=[1])
    assert info.value.field == "resigned"
    for build in (
        lambda: pos(["5S", "", "6S"], played="9C", resigned=[1]),  # three in: it is out
        lambda: pos(
            ["5S", "6S", ""], played="9C", eliminated=[2], resigned=[0, 1], allow_over=True
        ),  # at most one resigner is still in
        lambda: pos(["5S", "6S"], played="9C", resigned=[2]),
        lambda: check_position(four()._replace(resigned=bad({0}))),
    ):
        with pytest.raises(InvalidPosition) as info:
            build()
        assert info.value.field == "resigned"
    # A pile of burned cards alone, or owed with no played card, only after a resignation.
    with pytest.raises(InvalidPosition) as info:
        pos(["2S", "", "", ""], burned="3S", current=0, eliminated=[3])
    assert info.value.field == "burned"
    pos(["", "", "", ""], burned="3S", current=None, owed_to=1, eliminated=[3], resigned=[3])
    with pytest.raises(InvalidPosition) as info:
        pos(["", "", "", ""], burned="3S", current=None, owed_to=1, eliminated=[3])
    assert info.value.field == "burned"


def bad(value: Any) -> Any:
    """A value of the wrong type on purpose."""
    return value


# --------------------------------------------------------------------------- property


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seats=st.integers(2, 6),
    seed=st.integers(0, 2**32),
    resign_every=st.integers(3, 60),
    auto_collect=st.booleans(),
    pass_to_next=st.booleans(),
)
def test_any_seat_resigning_at_any_point_conserves_cards_and_the_log_verifies(
    seats: int, seed: int, resign_every: int, auto_collect: bool, pass_to_next: bool
) -> None:
    rules: dict[str, Any] = {"auto_collect": auto_collect}
    if pass_to_next:
        rules["challenge_exhausted"] = "pass_to_next"
    match = Match(GAME, GAME.make_setup(seats, seed, rules, event_limit=600), game_id="g")
    deck = Counter(GAME.deck(match.setup))
    rng = Rng(seed, 4)
    steps = 0
    while match.outcome is None:
        steps += 1
        state = match.state
        if steps % resign_every == 0:
            alive = [q for q in range(seats) if q not in state.eliminated]
            seat = alive[rng.below(len(alive))]
            command: Any = TIMER if rng.below(2) else RESIGN
            settle(state, ers.decide(state, seat, command))
            match.submit(seat, command, match.last_at_ms + 1)
        else:
            advance(match, rng, 1)
        assert Counter(cards_in_play(match.state)) == deck
        check_position(match.state, allow_over=True)
    assert match.outcome is not None and match.outcome.termination != Termination.ABORTED
    check_log(match)
