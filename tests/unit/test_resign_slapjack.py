"""Resigning in Slapjack (docs/games/slapjack.md#leaving): two players left → the other wins at once
(``RESIGNED``); three or more → the resigner's whole stack goes, in order, face down under the pile
(``burned``, to whoever takes the pile next) and the resigner is eliminated, the turn passing as
after their play. Every situation is checked for conservation, played on to its end by random bots,
and its log verified and replayed; the event is redacted for every other viewer."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardcore import codec, log
from cardcore.bots import play_out, seat_bots
from cardcore.cards import HIDDEN, Card, parse_cards
from cardcore.engine import Outcome, Role, Termination, Viewer
from cardcore.errors import InvalidPosition, RejectCode, Rejected
from cardcore.games.slapjack import (
    GAME,
    PLAY,
    SLAP,
    Command,
    PileTaken,
    Resigned,
    Rules,
    Slapped,
    StackShuffled,
    State,
    cards_in_play,
    check_position,
    decide,
    evolve,
    format_position,
    is_sensible,
    legal_commands,
    narrate,
    outcome,
    parse_position,
    position,
    redact,
    shuffle_hidden,
    view,
)
from cardcore.kit import Resign
from cardcore.match import Match
from cardcore.rng import Rng

RESIGN = Resign()
TIMER = Resign(by="timer")
AnyMatch = Match[Any, Any, Any, Any, Any]


def cs(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def viewers(seats: int) -> list[Viewer]:
    return [*range(seats), Role.SPECTATOR]


class Table:
    """A match from a position whose every accepted action is checked: the cards are conserved
    after each single event, and each state is a position (a finished one when over)."""

    def __init__(self, state: State, seed: int = 5) -> None:
        self.match: AnyMatch = Match.from_position(GAME, state, seed=seed)
        self.cards = Counter(cards_in_play(state))
        self.now = 0

    @property
    def state(self) -> State:
        return self.match.state  # type: ignore[no-any-return]

    def act(self, seat: int, command: Any) -> list[Any]:
        before = self.state
        self.now += 10
        events = list(self.match.submit(seat, command, self.now))
        state = before
        for event in events:
            state = evolve(state, event)
            assert Counter(cards_in_play(state)) == self.cards, f"after {event!r}"
        assert state == self.state
        check_position(state, allow_over=self.match.outcome is not None)
        return events

    def finish(self, seed: int = 1) -> None:
        """Random legal moves to the end, then the whole log verifies and replays."""
        play_out(self.match, seat_bots("random", self.match.setup.seats, seed), self.now)
        assert self.match.outcome is not None
        lines = self.match.writer.lines if self.match.writer else []
        report = log.verify(lines)
        assert report.revealed and report.outcome == self.match.outcome
        steps = list(log.replay(lines))
        assert steps[-1].state == self.state
        for step in steps:
            assert Counter(cards_in_play(step.state)) == self.cards


def test_the_version_moved_on_and_still_replays_version_1() -> None:
    assert GAME.info.rules_version == "2" and GAME.info.replays_versions == ("1",)
    assert Resign in GAME.command_types and Resigned in GAME.event_types


# --------------------------------------------------------------------------- two players left


def test_two_seats_resign_mid_play_the_other_wins() -> None:
    match: AnyMatch = Match(GAME, GAME.make_setup(2, 7), game_id="g")
    play_out_steps(match, 30)
    stack = match.state.stacks[1]
    events = match.submit(1, RESIGN, match.last_at_ms + 1)
    assert events == [Resigned(1, stack, match.state.current, 0)]
    assert match.outcome == Outcome(Termination.RESIGNED, (0,))
    assert outcome(match.state) == match.outcome
    assert match.state.burned[: len(stack)] == stack  # under the pile, in order
    assert Counter(cards_in_play(match.state)) == Counter(GAME.deck(match.setup))
    check_position(match.state, allow_over=True)
    assert match.writer is not None
    lines = log.loads(log.dumps(match.writer.lines))
    assert lines[-1]["outcome"]["termination"] == "resigned"
    assert lines[-2]["action"] == {"by": None, "kind": "Resign"}
    assert log.verify(lines).outcome == match.outcome
    assert list(log.replay(lines))[-1].state == match.state
    with pytest.raises(Rejected) as err:
        decide(match.state, 0, RESIGN)
    assert err.value.code == RejectCode.GAME_OVER


def play_out_steps(match: AnyMatch, steps: int) -> None:
    """``steps`` random legal actions (the game must not end on the way)."""
    rng = Rng(match.setup.seed, 3)
    for _ in range(steps):
        opts = [(s, c) for s in range(match.setup.seats) for c in match.legal_commands(s)]
        seat, command = opts[rng.below(len(opts))]
        match.submit(seat, command, match.last_at_ms + 1)
        assert match.outcome is None


def test_with_two_left_of_three_an_awaiting_player_may_resign_or_win() -> None:
    # Seat 1 is eliminated; seat 2 is awaiting (no card), seat 0 holds every card left.
    state = position([cs("5S 9H"), (), ()], pile=cs("JH 4C"), played_by=[2, 0], eliminated=[1])
    table = Table(state)
    assert table.act(2, RESIGN) == [Resigned(2, (), 0, 0)]
    assert outcome(table.state) == Outcome(Termination.RESIGNED, (0,))
    assert table.match.writer is not None and log.verify(table.match.writer.lines).revealed
    # The same table, the holder resigns: the awaiting seat wins with no card in hand.
    table = Table(state)
    assert table.act(0, RESIGN) == [Resigned(0, cs("5S 9H"), None, 2)]
    assert outcome(table.state) == Outcome(Termination.RESIGNED, (2,))


# --------------------------------------------------------------------------- three or more


def four_seats(**kw: Any) -> State:
    """Seat 1 to play; a 4♣ by seat 0 on the pile."""
    stacks = [cs("2S 3S"), cs("5H 6H 7H"), cs("8D 9D"), cs("10C QC")]
    return position(stacks, pile=cs("4C"), played_by=[0], current=1, **kw)


def test_resign_on_their_turn_the_stack_goes_under_the_pile_and_the_turn_passes() -> None:
    table = Table(four_seats())
    assert table.act(1, RESIGN) == [Resigned(1, cs("5H 6H 7H"), 2, None)]
    s = table.state
    assert s.stacks == (cs("2S 3S"), (), cs("8D 9D"), cs("10C QC"))
    assert s.burned == cs("5H 6H 7H") and s.pile == cs("4C") and s.current == 2
    assert s.eliminated == {1} and outcome(table.state) is None
    assert legal_commands(s, 1) == []
    with pytest.raises(Rejected) as err:
        decide(s, 1, RESIGN)
    assert err.value.code == RejectCode.PLAYER_ELIMINATED
    with pytest.raises(Rejected) as err:
        decide(s, 1, TIMER)
    assert err.value.code == RejectCode.PLAYER_ELIMINATED
    table.finish()


def test_resign_out_of_turn_leaves_the_turn_where_it_is() -> None:
    table = Table(four_seats())
    assert table.act(3, RESIGN) == [Resigned(3, cs("10C QC"), 1, None)]
    assert table.state.current == 1 and table.state.stacks[3] == ()
    table.act(1, PLAY)
    table.act(2, PLAY)
    assert table.state.current == 0  # seat 3 is skipped
    table.finish()


def test_a_jack_on_the_pile_is_no_longer_the_resigners_and_the_burned_cards_go_with_it() -> None:
    rules = Rules(shuffle_after_win=False)  # so that the order under the taker's stack shows
    stacks = [cs("2S"), cs("5H 6H"), cs("8D 9D"), cs("10C")]
    state = position(stacks, pile=cs("4C JH"), played_by=[3, 0], current=1, rules=rules)
    table = Table(state)
    table.act(2, RESIGN)  # seat 2 could have slapped the Jack
    assert view(table.state, 0).slappable
    with pytest.raises(Rejected) as err:
        decide(table.state, 2, SLAP)
    assert err.value.code == RejectCode.PLAYER_ELIMINATED
    events = table.act(3, SLAP)
    assert events[:2] == [Slapped(3, True, "jack", cs("JH")), PileTaken(3, 4, "slap", 1)]
    # Under the taker's stack: the burned cards first (the bottom of the pile), in the order the
    # resigner would have played them, then the played cards.
    assert table.state.stacks[3] == cs("10C 8D 9D 4C JH")
    assert table.state.burned == () and table.state.epoch == 1
    table.finish()


def test_an_awaiting_player_resigns_while_a_jack_waits() -> None:
    # Nobody holds a card; the Jack decides between seats 0, 2 and 3 (1 is out).
    state = position([(), (), (), ()], pile=cs("9C JD"), played_by=[1, 3], current=None)
    state = state._replace(eliminated=frozenset({1}))
    check_position(state)
    table = Table(state)
    assert table.act(0, RESIGN) == [Resigned(0, (), None, None)]
    assert table.state.burned == () and table.state.eliminated == {0, 1}
    table.act(3, SLAP)
    assert outcome(table.state) == Outcome(Termination.ALL_CARDS, (3,))  # seat 2 missed it
    table.finish()


def test_the_last_holder_resigns_with_a_jack_on_top_nobody_plays_until_it_is_slapped() -> None:
    state = position([cs("5S 6S"), (), (), ()], pile=cs("JD"), played_by=[0], current=0)
    table = Table(state)
    assert table.act(0, RESIGN) == [Resigned(0, cs("5S 6S"), None, None)]
    assert table.state.current is None and legal_commands(table.state, 1) == [SLAP]
    events = table.act(2, SLAP)
    assert events[1] == PileTaken(2, 3, "slap", 2)
    assert sorted(table.state.stacks[2]) == sorted(cs("5S 6S JD"))
    assert outcome(table.state) == Outcome(Termination.ALL_CARDS, (2,))
    table.finish()


def test_the_last_holder_resigns_without_a_target_the_pile_returns_to_the_next_player() -> None:
    state = position([(), cs("5S JS"), (), ()], pile=cs("4C"), played_by=[1], current=1)
    table = Table(state)
    events = table.act(1, RESIGN)
    assert events[:2] == [Resigned(1, cs("5S JS"), None, None), PileTaken(2, 3, "return", 2)]
    assert type(events[2]) is StackShuffled and len(events) == 3  # the Jack keeps 0 and 3 in
    s = table.state
    assert s.current == 2 and sorted(s.stacks[2]) == sorted(cs("5S JS 4C"))
    assert s.burned == () and s.pile == () and s.epoch == 1 and s.shuffles == 1
    assert view(s, Role.SPECTATOR).awaiting == (0, 3)
    table.finish()


def test_several_resignations_each_stack_goes_under_the_last() -> None:
    stacks = [cs("2S"), cs("5H 6H"), cs("8D 9D"), cs("10C QC"), cs("KS")]
    table = Table(position(stacks, pile=cs("4C"), played_by=[0], current=0))
    table.act(1, RESIGN)
    table.act(3, RESIGN)
    assert table.state.burned == cs("10C QC 5H 6H")
    assert view(table.state, 0).pile == (HIDDEN,) * 4 + cs("4C")
    assert view(table.state, Role.REFEREE).pile == cs("10C QC 5H 6H 4C")
    table.act(4, RESIGN)
    assert outcome(table.state) is None  # two are left: seats 0 and 2
    table.act(2, TIMER)  # the host's forfeit is a resignation like any other
    assert outcome(table.state) == Outcome(Termination.RESIGNED, (0,))
    table.finish()


def test_burned_cards_are_in_the_game_for_slap_in_unlimited_until_someone_takes_them() -> None:
    rules = Rules(out_of_cards="slap_in_unlimited", shuffle_after_win=False)
    table = Table(position([cs("5S"), cs("6S"), ()], rules=rules))
    table.act(1, RESIGN)
    # Seat 0 is the only holder and the pile is empty, but 6♠ lies under it: not every card.
    assert outcome(table.state) is None and table.state.burned == cs("6S")
    events = table.act(0, PLAY)  # nobody holds a card, no Jack: the pile returns to seat 0
    assert events[1] == PileTaken(0, 2, "return", 0)
    assert table.state.stacks[0] == cs("6S 5S")
    assert outcome(table.state) == Outcome(Termination.ALL_CARDS, (0,))
    table.finish()


def test_resigned_names_only_the_seat_that_ended_the_game() -> None:
    with pytest.raises(InvalidPosition) as err:
        check_position(four_seats()._replace(resigned=1))
    assert err.value.field == "resigned"
    with pytest.raises(InvalidPosition) as err:
        position([cs("5S"), cs("6S")], burned=cs("7S"))
    assert err.value.field == "burned"  # nobody resigned


def test_a_false_slap_on_a_resigners_card_pays_the_player_whose_turn_it_is() -> None:
    state = position([cs("2S 3S"), cs("5H"), cs("8D"), cs("10C")], pile=cs("4C"), played_by=[3])
    table = Table(state)
    table.act(3, RESIGN)
    events = table.act(1, SLAP)
    assert events[1].to == 0  # seat 3 played the 4♣ but is out: the card goes to current


def test_the_timer_forfeit_decides_exactly_as_a_resignation() -> None:
    for state in (four_seats(), position([cs("5S"), cs("6S")], pile=cs("JH"), played_by=[1])):
        for seat in range(state.setup.seats):
            assert decide(state, seat, TIMER) == decide(state, seat, RESIGN)


def test_resign_is_never_offered_nor_sensible() -> None:
    for state in (four_seats(), position([(), ()], pile=cs("JD"), current=None)):
        for seat in range(state.setup.seats):
            assert all(type(c) is not Resign for c in legal_commands(state, seat))
            assert not is_sensible(state, seat, RESIGN) and not is_sensible(state, seat, TIMER)


# --------------------------------------------------------------------------- redaction


def test_the_resigned_stack_is_hidden_from_every_other_viewer() -> None:
    state = four_seats()
    table = Table(state)
    events = table.act(1, RESIGN)
    event = events[0]
    assert redact(event, Role.REFEREE) == event
    for v in viewers(4):  # the resigner too: nobody ever saw that stack
        red = redact(event, v)
        assert red == Resigned(1, (HIDDEN,) * 3, 2, None)
        text = codec.canonical_text(codec.encode(red))
        assert not any(str(card) in text for card in cs("5H 6H 7H"))
        seen = view(table.state, v)
        assert seen.pile == (HIDDEN,) * 3 + cs("4C")  # what the viewer may see: the count
        assert narrate(red) == "seat 1 resigned; their 3 cards go under the pile; seat 2 plays next"
        shown = format_position(table.state, v)
        assert shown.endswith(" ??,??,??") and "5H" not in shown
        # The cards a viewer may not see are interchangeable, burned ones included.
        alt = shuffle_hidden(table.state, v, Rng(1, 2))
        assert view(alt, v) == seen and format_position(alt, v) == shown
    # A seat's download in progress carries the redacted event; after the end, everything.
    assert table.match.writer is not None
    partial = log.redact_log(table.match.writer.lines, 0)
    assert partial[-1]["events"] == [codec.encode(redact(event, 0))]
    table.finish()
    lines = table.match.writer.lines
    assert log.redact_log(lines, 0) == [dict(line) for line in lines]


def test_a_redacted_resignation_still_applies() -> None:
    state = four_seats()
    events = decide(state, 1, RESIGN)
    assert evolve(state, redact(events[0], 2)) == evolve(state, events[0])


def test_alternative_hidden_stacks_give_resignations_that_redact_alike() -> None:
    # No-leak: a world with the hidden cards reshuffled gives the same redacted events.
    state = four_seats()
    for v in viewers(4):
        alt = shuffle_hidden(state, v, Rng(3, 4))
        for seat in range(4):
            red = [codec.encode(redact(e, v)) for e in decide(state, seat, RESIGN)]
            alt_red = [codec.encode(redact(e, v)) for e in decide(alt, seat, RESIGN)]
            assert red == alt_red


# --------------------------------------------------------------------------- notation


def test_a_position_with_burned_cards_round_trips_through_the_notation() -> None:
    table = Table(four_seats())
    table.act(1, RESIGN)
    text = format_position(table.state, Role.REFEREE)
    assert text == "slapjack 2S,3S/-/8D,9D/10C,QC 4C 0 0 2 1 0 5H,6H,7H"
    back = parse_position(text)
    assert back == table.state._replace(setup=back.setup)
    assert format_position(back, Role.REFEREE) == text
    # Without burned cards the text is the one of rules version 1: seven fields.
    assert format_position(four_seats(), Role.REFEREE).count(" ") == 7


# --------------------------------------------------------------------------- any time, anyone


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seats=st.integers(2, 5),
    seed=st.integers(0, 2**32),
    resign_at=st.lists(st.integers(0, 150), min_size=1, max_size=4),
    resigner=st.integers(0, 7),
    timer=st.booleans(),
    rules=st.fixed_dictionaries(
        {},
        optional={
            "out_of_cards": st.sampled_from(["next_jack", "eliminate_now", "slap_in_unlimited"]),
            "shuffle_after_win": st.booleans(),
            "slap_targets": st.sampled_from([["jack"], ["jack", "double", "sandwich"]]),
        },
    ),
)
def test_any_seat_resigning_at_any_point_conserves_cards_and_the_log_verifies(
    seats: int, seed: int, resign_at: list[int], resigner: int, timer: bool, rules: Any
) -> None:
    setup = GAME.make_setup(seats, seed, rules, event_limit=5_000)
    match: AnyMatch = Match(GAME, setup, game_id="p")
    full = Counter(GAME.deck(setup))
    rng = Rng(seed, 11)
    step = 0
    while match.outcome is None and step <= max(resign_at):
        state: State = match.state
        in_game = [q for q in range(seats) if q not in state.eliminated]
        command: Command
        if step in resign_at:
            seat, command = in_game[resigner % len(in_game)], TIMER if timer else RESIGN
        else:
            opts = [(s, c) for s in range(seats) for c in legal_commands(state, s)]
            if not opts:
                break
            seat, command = opts[rng.below(len(opts))]
        events = match.submit(seat, command, step)
        for event in events:
            state = evolve(state, event)
            assert Counter(cards_in_play(state)) == full
            for v in viewers(seats):
                red = redact(event, v)
                if type(event) is Resigned:
                    assert type(red) is Resigned and set(red.stack) <= {HIDDEN}
        over = outcome(match.state)
        check_position(match.state, allow_over=over is not None)
        if type(command) is Resign:
            assert seat in match.state.eliminated and not match.state.stacks[seat]
            if len(in_game) == 2:  # the other one wins at once
                other = next(q for q in in_game if q != seat)
                assert over == Outcome(Termination.RESIGNED, (other,))
            else:  # the game goes on, or ends by its own rules (a pile returned:
                # docs/games/slapjack.md#playing-a-card)
                assert over is None or over.termination in (
                    Termination.ALL_CARDS,
                    Termination.LAST_STANDING,
                )
        step += 1
    play_out(match, seat_bots("random", seats, seed), step)  # on to the end (or event limit)
    assert match.writer is not None
    lines = match.writer.lines
    report = log.verify(lines)
    assert report.revealed and report.outcome == match.outcome
    assert [s.state for s in log.replay(lines)][-1] == match.state
