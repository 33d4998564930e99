"""Palace: the ``Resign`` command (docs/games/palace.md#leaving).

With two players left a resignation ends the game at once and the other wins (``RESIGNED``).
With three or more the resigner's hand, face-up and face-down cards are set aside face down, the
resigner is out and ranks below every seat that goes out (the first to resign last); on its turn
the next player plays on the pile as it is, and any open add-drawn window closes. Every step
conserves the cards; games go on to their end with random legal moves, and their logs verify
and replay.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardcore import codec, log
from cardcore.bots import Bot, ask, play_out, seat_bots
from cardcore.cards import HIDDEN, Card, parse_cards
from cardcore.engine import Outcome, Role, Termination, Viewer
from cardcore.errors import DecodeError, InvalidPosition, InvalidSeat, RejectCode, Rejected
from cardcore.games import palace as pal
from cardcore.games.palace import (
    READY,
    PlayerResigned,
    PlayStarted,
    Rules,
    State,
    TurnPassed,
    position,
)
from cardcore.kit import Resign
from cardcore.match import Match
from cardcore.rng import Rng

GAME = pal.GAME
C = parse_cards
RESIGN = Resign()
TIMER = Resign(by="timer")

AnyMatch = Match[Any, Any, Any, Any, Any]


def rows(*texts: str) -> list[tuple[Card, ...]]:
    return [C(t) for t in texts]


def apply(state: State, seat: int, command: Any) -> tuple[Sequence[pal.Event], State]:
    """The events of ``command`` and the state after them, conservation checked after each."""
    cards = Counter(GAME.cards_in_play(state))
    events = GAME.decide(state, seat, command)
    for e in events:
        state = GAME.evolve(state, e)
        assert Counter(GAME.cards_in_play(state)) == cards, f"after {e!r}"
    return events, state


def rejected(state: State, seat: int, command: Any) -> RejectCode:
    with pytest.raises(Rejected) as info:
        GAME.decide(state, seat, command)
    return info.value.code


def four_seats(**kw: Any) -> State:
    """Four seats in play, the stock spent; seat 1 to play on ``7D 8D``."""
    args: dict[str, Any] = {
        "hands": rows("4C 9D", "5C 6C AC", "8C 9C", "JC QC"),
        "up": rows("KD KH", "QD QH", "JD JH", "AD AH"),
        "down": rows("3D 3H", "4D 4H", "5D 5H", "6D 6H"),
        "pile": C("7D 8D"),
        "burned": C("10S 4S"),
        "current": 1,
    }
    args.update(kw)
    return position(**args)


def finish_randomly(match: AnyMatch, seed: int) -> None:
    """Random legal moves (cardcore.bots) to the end; then the whole log verifies and replays
    to the final state, cards conserved in every state on the way."""
    result = play_out(match, seat_bots("random", match.setup.seats, seed))
    assert not result.stalled and match.outcome is not None
    check_log(match)


def check_log(match: AnyMatch) -> None:
    assert match.writer is not None
    lines = match.writer.lines
    report = log.verify(lines)
    assert report.revealed and report.outcome == match.outcome
    states = [step.state for step in log.replay(lines)]
    cards = Counter(GAME.cards_in_play(states[0]))
    for s in states:
        assert Counter(GAME.cards_in_play(s)) == cards
        pal.check_position(s, allow_over=True)
    assert states[-1] == match.state._replace(setup=states[-1].setup)


def ranking(outcome: Outcome) -> tuple[int, ...]:
    return outcome.winners + outcome.losers


# --------------------------------------------------------------------------- two players left


def test_two_seats_mid_play_resign_ends_the_game_and_the_other_wins() -> None:
    match = Match(GAME, GAME.make_setup(2, 5))
    bots = seat_bots("reaction", 2, 5)
    while match.state.phase == "setup" or len(match.state.pile) < 3:
        assert match.outcome is None
        play_out_one(match, bots)
    state = match.state
    assert state.current is not None
    resigner = 1 - state.current  # not on turn: the end does not wait for a turn
    held = len(state.hands[resigner]) + len(state.up[resigner]) + len(state.down[resigner])
    events = match.submit(resigner, RESIGN, match.last_at_ms + 1)
    assert events == [PlayerResigned(resigner, held, None), TurnPassed(None, False, None)]
    assert match.outcome == Outcome(Termination.RESIGNED, (1 - resigner,), (resigner,))
    assert match.state.current is None and match.state.window is None
    assert Counter(GAME.cards_in_play(match.state)) == Counter(GAME.deck(match.setup))
    with pytest.raises(Rejected) as info:
        match.submit(1 - resigner, RESIGN, match.last_at_ms + 1)
    assert info.value.code == RejectCode.GAME_OVER
    check_log(match)


def play_out_one(match: AnyMatch, bots: Sequence[Bot]) -> None:
    """One bot action, the earliest proposal (ties to the lower seat), as play_out orders them."""
    moves = [(p[0], b.seat, p[1]) for b in bots if (p := ask(b, GAME, match.state))]
    delay, seat, cmd = min(moves, key=lambda m: (m[0], m[1]))
    match.submit(seat, cmd, match.last_at_ms + delay)


def test_the_resigners_cards_count_in_its_event() -> None:
    s = four_seats()
    events, after = apply(s, 1, RESIGN)
    assert events[0] == PlayerResigned(1, 7, None)
    assert after.set_aside == C("5C 6C AC QD QH 4D 4H")  # hand, then face-up, then face-down


def test_two_seats_resign_in_the_setup_phase_ends_the_game() -> None:
    match = Match(GAME, GAME.make_setup(2, 3))
    match.submit(1, READY, 1)
    events = match.submit(1, RESIGN, 2)  # already ready: may still resign
    assert events == [PlayerResigned(1, 9), TurnPassed(None, False, None)]
    assert match.state.phase == "setup"
    assert match.outcome == Outcome(Termination.RESIGNED, (0,), (1,))
    assert rejected(match.state, 0, READY) == RejectCode.GAME_OVER
    check_log(match)


def test_resign_with_two_left_after_others_went_out_ranks_them_first() -> None:
    s = position(
        rows("", "5C 6C", "8C"),
        rows("", "QD", ""),
        rows("", "4D", "5D"),
        pile=C("7D"),
        current=2,
        finished=(0,),
    )
    events, after = apply(s, 2, RESIGN)
    assert events == [PlayerResigned(2, 2, None), TurnPassed(None, False, None)]
    # Seat 0 went out first, seat 1 outlasted the resigner: both rank above it.
    assert GAME.outcome(after) == Outcome(Termination.RESIGNED, (0, 1), (2,))
    pal.check_position(after, allow_over=True)


# --------------------------------------------------------------------------- three or more


def test_resign_on_its_turn_the_next_player_plays_on_the_pile_as_it_is() -> None:
    s = four_seats()
    events, after = apply(s, 1, RESIGN)
    assert events == [PlayerResigned(1, 7, None), TurnPassed(2, False, None)]
    assert after.pile == s.pile and after.burned == s.burned
    assert after.hands[1] == after.up[1] == after.down[1] == ()
    assert after.finished == after.resigned == (1,)
    assert GAME.outcome(after) is None
    pal.check_position(after)
    # Seat 2 plays on the 8 as it is: its 8 and 9 fit, and it may not pick up.
    assert {c.cards for c in GAME.legal_commands(after, 2) if isinstance(c, pal.Play)} == {
        C("8C"),
        C("9C"),
    }
    assert rejected(after, 2, pal.PICKUP) == RejectCode.MUST_PLAY_IF_ABLE
    assert rejected(after, 1, pal.Play(C("5C"))) == RejectCode.PLAYER_FINISHED


def test_resign_out_of_turn_keeps_the_turn_where_it_is() -> None:
    s = four_seats(pile=C("7D 2D"), follow_up=True)  # seat 1 owes a follow-up on its 2
    events, after = apply(s, 3, RESIGN)
    assert events == [PlayerResigned(3, 6, None), TurnPassed(1, True, None)]
    assert after.current == 1 and after.follow_up
    pal.check_position(after)


def test_resign_owing_a_follow_up_passes_the_turn_without_it() -> None:
    """As for a player who went out (docs/games/palace.md#lead-to-a-finished-player): the next
    one plays on the 2, or leads after a burn, as an ordinary turn."""
    s = four_seats(pile=C("7D 2D"), follow_up=True)
    events, after = apply(s, 1, RESIGN)
    assert events[-1] == TurnPassed(2, False, None)
    burned = four_seats(pile=(), follow_up=True)
    _, after = apply(burned, 1, TIMER)
    assert after.current == 2 and not after.follow_up and after.pile == ()


@pytest.mark.parametrize("resigner", [0, 2], ids=["window-owner", "another-seat"])
def test_resign_closes_an_open_add_drawn_window(resigner: int) -> None:
    # Seat 0 just played the 8D and drew the 8S: it may add it until seat 1 acts.
    s = four_seats(hands=rows("4C 8S", "5C 6C AC", "8C 9C", "JC QC"), window=(0, 8, 1))
    assert pal.AddDrawn(C("8S")) in GAME.legal_commands(s, 0)
    events, after = apply(s, resigner, RESIGN)
    assert events[-1] == TurnPassed(1, False, None)  # seat 1 is still to play
    assert after.window is None
    code = RejectCode.PLAYER_FINISHED if resigner == 0 else RejectCode.WINDOW_CLOSED
    assert rejected(after, 0, pal.AddDrawn(C("8S"))) == code
    pal.check_position(after)


def test_resign_with_a_direction_reversed_passes_the_turn_backwards() -> None:
    s = four_seats(pile=C("7D JK"), rules=Rules(jokers=1), direction=-1)
    _, after = apply(s, 1, RESIGN)
    assert after.current == 0


def test_resign_while_the_stock_lasts() -> None:
    s = four_seats(
        hands=rows("4C 9D 2C", "5C 6C AC", "8C 9C 2H", "JC QC 2S"), stock=C("7S 7H"), current=0
    )
    events, after = apply(s, 0, RESIGN)
    assert events == [PlayerResigned(0, 7, None), TurnPassed(1, False, None)]
    assert after.stock == s.stock
    pal.check_position(after)  # out by resigning, not by running out: the stock may last


def test_the_starter_resigns_before_the_first_play() -> None:
    rules = Rules(starter_must_play_lowest=True)
    s = four_seats(pile=(), burned=(), opening=True, rules=rules)
    _, after = apply(s, 1, RESIGN)
    assert after.current == 2 and after.opening
    # The first play of the game is still bound: seat 2's lowest, the 8.
    assert rejected(after, 2, pal.Play(C("9C"))) == RejectCode.ILLEGAL_CARD


def test_resign_in_the_setup_phase_nobody_waits_for_the_resigner() -> None:
    match = Match(GAME, GAME.make_setup(4, 9))
    for q in (0, 2):
        match.submit(q, READY, match.last_at_ms + 1)
    match.submit(1, RESIGN, match.last_at_ms + 1)
    assert match.state.phase == "setup" and match.state.finished == (1,)
    assert match.state.hands[1] == match.state.up[1] == match.state.down[1] == ()
    assert len(match.state.set_aside) == 9
    assert rejected(match.state, 1, READY) == RejectCode.PLAYER_FINISHED
    events = match.submit(3, READY, match.last_at_ms + 1)
    assert isinstance(events[-1], PlayStarted) and events[-1].starter != 1
    finish_randomly(match, 9)
    assert match.outcome is not None and ranking(match.outcome)[-1] == 1


def test_the_last_seat_not_ready_resigning_starts_the_play() -> None:
    match = Match(GAME, GAME.make_setup(3, 4, {"starter_rule": "left_of_dealer"}))
    for q in (1, 2):
        match.submit(q, READY, match.last_at_ms + 1)
    events = match.submit(0, TIMER, match.last_at_ms + 1)
    # Seat 0 would lead under left_of_dealer; it resigned, so seat 1 does.
    assert events == [PlayerResigned(0, 9, "timer"), PlayStarted(1)]
    assert match.state.phase == "play" and match.state.current == 1
    pal.check_position(match.state)
    finish_randomly(match, 4)


def test_a_four_seat_game_goes_on_to_its_end_after_a_resign() -> None:
    match = Match.from_position(GAME, four_seats(), seed=2)
    match.submit(1, RESIGN, 1)
    finish_randomly(match, 2)
    outcome = match.outcome
    assert outcome is not None and outcome.termination == Termination.OUT_OF_CARDS
    assert outcome.losers[-1] == 1 and len(outcome.losers) == 2
    assert sorted(ranking(outcome)) == [0, 1, 2, 3]


def test_ranking_with_several_resigns_the_first_to_resign_is_last() -> None:
    match = Match(GAME, GAME.make_setup(5, 21))
    bots = seat_bots("reaction", 5, 21)
    while match.state.phase == "setup" or match.seq < 40:
        assert match.outcome is None
        play_out_one(match, bots)
    match.submit(4, RESIGN, match.last_at_ms + 1)
    match.submit(0, TIMER, match.last_at_ms + 1)
    finish_randomly(match, 21)
    outcome = match.outcome
    assert outcome is not None
    assert outcome.losers[-2:] == (0, 4)
    assert sorted(ranking(outcome)) == list(range(5))
    if outcome.termination == Termination.OUT_OF_CARDS:
        assert len(outcome.losers) == 3  # the shithead, then the resigners
    # PlayerWentOut places count only those who went out.
    assert match.writer is not None
    places = [
        e["place"] for line in match.writer.lines for e in line.get("events", [])
        if e["kind"] == "PlayerWentOut"
    ]  # fmt: skip
    assert places == list(range(1, len(places) + 1))


def test_resign_with_two_left_after_another_resigned_ends_the_game() -> None:
    s = position(
        rows("5C", "6C", "7C"), rows("QD", "", ""), rows("", "", ""), pile=C("4D"), current=0
    )
    _, s = apply(s, 2, RESIGN)
    events, s = apply(s, 0, RESIGN)
    assert events[-1] == TurnPassed(None, False, None)
    assert GAME.outcome(s) == Outcome(Termination.RESIGNED, (1,), (0, 2))


# --------------------------------------------------------------------------- rejections


def test_a_seat_that_is_out_may_not_resign() -> None:
    s = position(
        rows("", "5C 6C", "8C", "9C"),
        rows("", "", "", ""),
        rows("", "", "", ""),
        pile=C("7D"),
        current=1,
        finished=(0,),
    )
    assert rejected(s, 0, RESIGN) == RejectCode.PLAYER_FINISHED
    _, s = apply(s, 3, TIMER)
    assert rejected(s, 3, RESIGN) == RejectCode.PLAYER_FINISHED
    assert rejected(s, 3, TIMER) == RejectCode.PLAYER_FINISHED
    _, over = apply(s, 2, RESIGN)
    assert GAME.outcome(over) is not None
    assert rejected(over, 1, RESIGN) == RejectCode.GAME_OVER
    for bad in (4, -1, True):
        with pytest.raises(InvalidSeat):
            pal.decide(s, bad, RESIGN)


def test_resign_is_never_offered_nor_sensible() -> None:
    assert Resign in GAME.command_types
    for s in (four_seats(), four_seats(window=(0, 8, 0))):
        for q in range(4):
            assert RESIGN not in GAME.legal_commands(s, q)
            assert not GAME.is_sensible(s, q, RESIGN)
            assert not GAME.is_sensible(s, q, TIMER)


# --------------------------------------------------------------------------- timer, codec


def test_a_timer_forfeit_is_a_resign() -> None:
    for s, seat in ((four_seats(), 1), (four_seats(window=(0, 8, 1)), 3)):
        events, after = apply(s, seat, RESIGN)
        timer_events, timer_after = apply(s, seat, TIMER)
        assert timer_after == after
        first = events[0]
        assert isinstance(first, PlayerResigned) and first.by is None
        assert timer_events == [PlayerResigned(seat, first.cards, "timer"), *events[1:]]
    assert GAME.narrate(PlayerResigned(2, 9, "timer")) == (
        "seat 2 forfeited (timer); its 9 cards leave the game face down"
    )
    assert (
        GAME.narrate(PlayerResigned(2, 1))
        == "seat 2 resigned; its 1 card leaves the game face down"
    )


def test_resign_and_its_event_round_trip_through_the_codec() -> None:
    for cmd in (RESIGN, TIMER):
        assert GAME.decode_command(codec.encode(cmd)) == cmd
    event = PlayerResigned(2, 9, "timer")
    assert codec.encode(event) == {"kind": "PlayerResigned", "seat": 2, "cards": 9, "by": "timer"}
    assert GAME.decode_event(codec.encode(event)) == event


def test_a_legacy_version_1_log_still_verifies() -> None:
    assert GAME.info.rules_version == "2" and GAME.info.replays_versions == ("1",)
    with open("tests/golden/legacy/palace-rules-1.jsonl", "rb") as f:
        lines = log.loads(f.read())
    assert lines[0]["rules_version"] == "1"
    assert log.verify(lines).outcome is not None


# --------------------------------------------------------------------------- no leaks


def viewers(n: int) -> list[Viewer]:
    return [*range(n), Role.SPECTATOR]


def test_the_event_names_no_card_and_the_set_aside_cards_stay_hidden() -> None:
    s = four_seats()
    events, after = apply(s, 1, RESIGN)
    for v in viewers(4):
        assert [GAME.redact(e, v) for e in events] == events  # counts and seats only: public
        view = GAME.view(after, v)
        assert view.set_aside == (HIDDEN,) * 7 and view.resigned == (1,)
        assert view.hands[1] == view.up[1] == view.down[1] == ()
        # Nothing a viewer could not see before is shown now: the seat's face-up cards were
        # public, its hand its own, its face-down cards nobody's; now they are all face down.
        before = GAME.view(s, v)
        shown_after = set(codec_cards(view))
        shown_before = set(codec_cards(before))
        assert shown_after <= shown_before
    assert GAME.view(after, Role.REFEREE).set_aside == after.set_aside
    # The hidden cards are interchangeable for everyone but the referee: no view depends on them.
    rng = Rng(1, 2)
    for v in viewers(4):
        alt = GAME.shuffle_hidden(after, v, rng)
        assert Counter(GAME.cards_in_play(alt)) == Counter(GAME.cards_in_play(after))
        assert codec.encode(GAME.view(alt, v)) == codec.encode(GAME.view(after, v))
        alt_events = GAME.decide(GAME.shuffle_hidden(s, v, rng), 1, RESIGN)
        assert [GAME.redact(e, v) for e in alt_events] == [GAME.redact(e, v) for e in events]


def is_card_text(text: str) -> bool:
    try:
        codec.decode(Card, text)
    except DecodeError:
        return False
    return True


def codec_cards(view: pal.View) -> list[str]:
    out: list[str] = []

    def walk(x: object) -> None:
        if isinstance(x, list):
            for y in x:
                walk(y)
        elif isinstance(x, dict):
            for y in x.values():
                walk(y)
        elif isinstance(x, str) and is_card_text(x):
            out.append(x)

    walk(codec.encode(view))
    return out


def test_redacted_logs_hide_the_set_aside_cards() -> None:
    match = Match.from_position(GAME, four_seats(), seed=3)
    match.submit(1, RESIGN, 1)
    finish_randomly(match, 3)
    assert match.writer is not None
    down = {str(c) for c in C("4D 4H 5C 6C AC")}  # seat 1's hand and face-down cards
    for v in (0, 2, 3, Role.SPECTATOR):
        text = codec.canonical_text(log.redact_log(match.writer.lines, v)[:3])
        assert not any(f'"{c}"' in text for c in down), v


# --------------------------------------------------------------------------- notation


def test_notation_of_a_resigned_seat_round_trips() -> None:
    _, s = apply(four_seats(), 1, RESIGN)
    text = pal.format_position(s, Role.REFEREE)
    fields = text.split(" ")
    assert len(fields) == 1 + 17 and fields[-2:] == ["5C,6C,AC,QD,QH,4D,4H", "1"]
    assert pal.parse_position(text) == s
    assert pal.format_position(pal.parse_position(text), Role.REFEREE) == text
    seat0 = pal.format_position(s, 0).split(" ")
    assert seat0[-2] == ",".join(["??"] * 7)
    plain = pal.format_position(four_seats(), Role.REFEREE)
    assert len(plain.split(" ")) == 1 + 15  # no resign: the version 1 text, unchanged


@pytest.mark.parametrize(
    ("text_change", "field"),
    [
        (lambda t: t + " - -", "resigned"),  # the resign fields only once a seat resigned
        (lambda t: t + " 5S -", "resigned"),
        (lambda t: t + " 5S 1", "resigned"),  # a resigned seat must be out (finished)
        (lambda t: t + " 5S 1,x", "resigned"),
        (lambda t: t + " 5Z 1", "set_aside"),
        (lambda t: t + " 5S", "notation"),  # 16 fields: neither form
    ],
)
def test_notation_resign_fields_are_checked(text_change: Any, field: str) -> None:
    base = pal.format_position(four_seats(), Role.REFEREE)
    with pytest.raises(InvalidPosition) as info:
        pal.parse_position(text_change(base))
    assert info.value.field == field


INVALID: list[tuple[str, dict[str, Any], str]] = [
    ("resigned but not out", {"resigned": (1,), "set_aside": C("2C")}, "resigned"),
    ("set aside without a resign", {"set_aside": C("2C")}, "set_aside"),
    ("a resign without cards set aside", {"finished": (1,), "resigned": (1,)}, "set_aside"),
    ("resigned twice", {"finished": (1,), "resigned": (1, 1), "set_aside": C("2C")}, "resigned"),
    (
        "resigned out of order",
        {"finished": (1, 3), "resigned": (3, 1), "set_aside": C("2C")},
        "resigned",
    ),
]


@pytest.mark.parametrize(("what", "change", "field"), INVALID, ids=[w for w, _, _ in INVALID])
def test_invalid_resign_positions_name_the_field(
    what: str, change: dict[str, Any], field: str
) -> None:
    out: dict[str, Any] = {"hands": rows("4C 9D", "", "8C 9C", ""), "up": rows("KD", "", "JD", "")}
    out["down"] = rows("3D", "", "5D", "")
    with pytest.raises(InvalidPosition) as info:
        position(**out, pile=C("7D"), current=0, **change)
    assert info.value.field == field, what


def test_a_resigner_holds_nothing_in_the_setup_phase_too() -> None:
    _, s = apply(
        position(
            rows("4C 9D 2C", "5C 6C AC", "8C 9C 2H"),
            rows("KD KH KS", "QD QH QS", "JD JH JS"),
            rows("3D 3H 3S", "4D 4H 4S", "5D 5H 5S"),
            phase="setup",
        ),
        2,
        RESIGN,
    )
    pal.check_position(s)
    text = pal.format_position(s, Role.REFEREE)
    assert pal.format_position(pal.parse_position(text), Role.REFEREE) == text
    with pytest.raises(InvalidPosition) as info:
        pal.check_position(s._replace(hands=(s.hands[0], s.hands[1], C("7C"))))
    assert info.value.field == "hands[2]"
    with pytest.raises(InvalidPosition) as info:
        pal.check_position(s._replace(finished=(), resigned=()))
    assert info.value.field == "set_aside"


# --------------------------------------------------------------------------- property


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    seats=st.integers(2, 5),
    resigns=st.lists(st.tuples(st.integers(0, 150), st.integers(0, 7)), max_size=3),
    timer=st.booleans(),
)
def test_any_seat_resigning_at_any_point_conserves_cards_and_the_log_verifies(
    seed: int, seats: int, resigns: list[tuple[int, int]], timer: bool
) -> None:
    """Random legal moves; at the drawn steps a seat still in the game (drawn among them)
    resigns: cards are conserved after every event, every state is a valid position whose
    notation round-trips, and the log verifies and replays."""
    match = Match(GAME, GAME.make_setup(seats, seed))
    full = Counter(GAME.deck(match.setup))
    rng = Rng(seed, 5)
    when = dict(resigns)
    step = 0
    while match.outcome is None and step < 2000:
        state = match.state
        in_game = [q for q in range(seats) if q not in state.finished]
        cmd: pal.Command
        if step in when:
            seat, cmd = in_game[when[step] % len(in_game)], TIMER if timer else RESIGN
        else:  # random legal moves, mostly sensible ones (so that games end)
            opts = [(q, c) for q in range(seats) for c in GAME.legal_commands(state, q)]
            sensible = [o for o in opts if GAME.is_sensible(state, o[0], o[1])]
            pool = sensible if sensible and rng.below(4) else opts
            seat, cmd = pool[rng.below(len(pool))]
        events = match.submit(seat, cmd, match.last_at_ms + 1)
        along = state
        for e in events:
            along = GAME.evolve(along, e)
            assert Counter(GAME.cards_in_play(along)) == full
        pal.check_position(match.state, allow_over=True)
        text = pal.format_position(match.state, Role.REFEREE)
        assert pal.format_position(pal.parse_position(text, match.setup.rules), Role.REFEREE) == (
            text
        )
        step += 1
    outcome = match.outcome
    assert outcome is not None
    assert sorted(ranking(outcome)) == list(range(seats))
    resigned = match.state.resigned
    assert ranking(outcome)[len(ranking(outcome)) - len(resigned) :] == resigned[::-1]
    assert (outcome.termination == Termination.RESIGNED) == (
        bool(resigned) and match.state.finished[-1] == resigned[-1]
    )
    check_log(match)
