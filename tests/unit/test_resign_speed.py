"""Resigning in Speed (docs/games/common.md#leaving-a-game): with two players the game ends at once
and the other one wins (termination ``RESIGNED``), in every phase — before the start flip, in play,
during a joint "flip" call, between the rounds of a match to a target score or a best-of series (the
whole match ends, the totals as they stand). The table stays as it stood (centre cards dealt face
down stay face down); the event names no card, so no viewer learns one; the log verifies and
replays; a timer's forfeit is the same resignation."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardcore import kit, log
from cardcore.bots import ask, seat_bots
from cardcore.cards import HIDDEN, Card, parse_cards
from cardcore.engine import Outcome, Role, Setup, Termination, Viewer
from cardcore.errors import InvalidPosition, RejectCode, Rejected
from cardcore.games.speed import (
    FLIP,
    GAME,
    RULES_VERSION,
    Resigned,
    Rules,
    State,
    cards_in_play,
    check_position,
    decide,
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
from cardcore.match import Match
from cardcore.rng import Rng

AnyMatch = Match[Any, Any, Any, Any, Any]
VIEWERS: tuple[Viewer, ...] = (0, 1, Role.SPECTATOR)
RESIGNS = (kit.Resign(), kit.Resign(by=kit.RESIGN_BY_TIMER))


def cs(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def mid_game(**kw: Any) -> State:
    """A hand-written position in play: full hands, short draw piles, one-card side piles."""
    kw.setdefault("centre", (cs("5D"), cs("JC")))
    kw.setdefault("sides", (cs("7C"), cs("8C")))
    hands = kw.pop("hands", (cs("6S 4H 9C QD 2S"), cs("6H 4S 9D QS 2C")))
    draws = kw.pop("draws", (cs("KS 3C"), cs("KH 3D")))
    return position(hands, draws, **kw)


# Tops 5♠ and 9♥, neither hand holds a 4, 6, 8 or 10: stuck.
STUCK = {
    "hands": (cs("AS 2S JH QH KH"), cs("AC 2C JD QD KD")),
    "draws": (cs("3C"), cs("3D")),
    "centre": (cs("7C 5S"), cs("9H")),
    "sides": (cs("6D 7D"), cs("10C 4H")),
}
TO_NINE = Rules(target_score=9)
BEST_OF_3 = Rules(best_of=3)

SITUATIONS: dict[str, Callable[[], State]] = {
    "before the start flip": lambda: mid_game(phase="READY"),
    "the start call recorded": lambda: mid_game(phase="READY", calls=(1,)),
    "in play": mid_game,
    "a stalemate call recorded": lambda: mid_game(**STUCK, calls=(0,)),
    "drawing by hand": lambda: mid_game(
        hands=(cs("6S"), cs("6H 4S")), rules=Rules(auto_refill=False)
    ),
    "between rounds, to a target": lambda: mid_game(
        phase="READY", rules=TO_NINE, wins=(1, 2), scores=(8, 3), round=4, shuffles=3
    ),
    "in play, to a target": lambda: mid_game(
        rules=TO_NINE, wins=(1, 0), scores=(8, 0), round=2, shuffles=1
    ),
    "between rounds, best of 3": lambda: mid_game(
        phase="READY", rules=BEST_OF_3, wins=(1, 1), scores=(4, 6), round=3, shuffles=2
    ),
}

# Every command some situation offers: none is accepted once the game is over.
SOME_COMMANDS: tuple[Any, ...] = tuple(
    dict.fromkeys(
        c for make in SITUATIONS.values() for s in (0, 1) for c in legal_commands(make(), s)
    )
)


def submit_resign(match: AnyMatch, seat: int, resign: kit.Resign, at_ms: int) -> State:
    """Resign ``seat`` and check what every resignation must do; returns the state before."""
    before: State = match.state
    events = match.submit(seat, resign, at_ms)
    after: State = match.state
    assert list(events) == [Resigned(seat)]
    # The whole match ends: the other seat wins with the totals as they stand.
    expected = Outcome(Termination.RESIGNED, (1 - seat,), scores=before.scores)
    assert match.outcome == outcome(after) == expected
    assert after.resigned == seat and after.winner == 1 - seat
    # The game ends where it stands: every card where it lay, the phase kept, the calls cleared.
    assert after == before._replace(calls=frozenset(), winner=1 - seat, resigned=seat)
    assert Counter(cards_in_play(after)) == Counter(cards_in_play(before))
    check_position(after, allow_over=True)
    return before


def verified(match: AnyMatch) -> list[log.LogLine]:
    """The match's log, checked: it verifies, ends ``resigned`` and replays to the live state."""
    assert match.writer is not None
    lines = log.loads(log.dumps(match.writer.lines))
    assert lines[0]["rules_version"] == RULES_VERSION
    report = log.verify(lines)
    assert report.revealed and report.outcome == match.outcome
    assert lines[-1]["type"] == "end" and lines[-1]["outcome"]["termination"] == "resigned"
    assert list(log.replay(lines))[-1].state == match.state
    return lines


def bot_game(
    seed: int, steps: int, rules: Rules | None = None, until: Callable[[State], bool] | None = None
) -> AnyMatch:
    """A dealt game that random bots (cardcore.bots) played for up to ``steps`` actions, or
    until ``until`` holds."""
    match: AnyMatch = Match(GAME, Setup(2, seed, rules or Rules()))
    bots = seat_bots("random", 2, seed)
    for _ in range(steps):
        if match.outcome is not None or (until is not None and until(match.state)):
            break
        moves = [(p[0], b.seat, p[1]) for b in bots if (p := ask(b, GAME, match.state))]
        delay, seat, command = min(moves, key=lambda m: (m[0], m[1]))
        match.submit(seat, command, match.last_at_ms + delay)
    return match


# --------------------------------------------------------------------------- the end


@pytest.mark.parametrize("resign", RESIGNS, ids=["player", "timer"])
@pytest.mark.parametrize("seat", [0, 1])
def test_a_resignation_mid_play_ends_the_game_and_the_other_seat_wins(
    seat: int, resign: kit.Resign
) -> None:
    match = bot_game(seed=31, steps=12)
    assert match.state.phase == "PLAY" and match.outcome is None
    submit_resign(match, seat, resign, match.last_at_ms + 5)
    assert sorted(GAME.deck(match.setup)) == sorted(cards_in_play(match.state))
    lines = verified(match)
    assert lines[-2]["seat"] == seat
    assert lines[-2]["action"] == {"kind": "Resign", "by": resign.by}
    assert lines[-2]["events"] == [{"kind": "Resigned", "seat": seat}]
    assert lines[-1]["outcome"]["winners"] == [1 - seat]


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("name", list(SITUATIONS))
def test_a_resignation_ends_the_game_in_every_phase(name: str, seat: int) -> None:
    start = SITUATIONS[name]()
    match: AnyMatch = Match.from_position(GAME, start, seed=9, game_id="resign")
    submit_resign(match, seat, kit.Resign(), 1)
    assert match.state.phase == start.phase  # over where it stood
    lines = verified(match)
    assert lines[0]["position"] == format_position(start, Role.REFEREE)


@pytest.mark.parametrize(
    "rules",
    [TO_NINE, BEST_OF_3, Rules(side_pile_size=5, target_score=10)],
    ids=["to 9", "best of 3", "side piles of 5, to 10"],
)
def test_a_resignation_between_rounds_ends_the_whole_match(rules: Rules) -> None:
    """Dealt, played until a round was won and the next one dealt: the leader resigns."""
    match = bot_game(2, 5000, rules, until=lambda s: s.phase == "READY" and sum(s.wins) > 0)
    state = match.state
    assert match.outcome is None and state.phase == "READY" and state.round >= 2
    leader = 0 if (state.scores[0], state.wins[0]) >= (state.scores[1], state.wins[1]) else 1
    submit_resign(match, leader, kit.Resign(), match.last_at_ms + 1)
    assert outcome(match.state) == Outcome(Termination.RESIGNED, (1 - leader,), scores=state.scores)
    assert sorted(GAME.deck(match.setup)) == sorted(cards_in_play(match.state))
    verified(match)


def test_the_timers_forfeit_is_the_same_resignation() -> None:
    finals = []
    for resign in RESIGNS:
        match = bot_game(seed=7, steps=8)
        events = match.submit(1, resign, match.last_at_ms + 1)
        assert list(events) == [Resigned(1)]
        finals.append((match.state, match.outcome))
    assert finals[0] == finals[1]


def test_nothing_follows_a_resignation() -> None:
    match: AnyMatch = Match.from_position(GAME, mid_game(**STUCK, calls=(1,)))
    match.submit(0, kit.Resign(), 1)
    state = match.state
    assert legal_commands(state, 0) == legal_commands(state, 1) == []
    for seat in (0, 1):
        for command in (kit.Resign(), kit.Resign(by=kit.RESIGN_BY_TIMER), FLIP, *SOME_COMMANDS):
            with pytest.raises(Rejected) as info:
                decide(state, seat, command)
            assert info.value.code is RejectCode.GAME_OVER
            with pytest.raises(Rejected):
                match.submit(seat, command, 2)
    assert match.state is state


def test_a_won_game_cannot_be_resigned() -> None:
    won = mid_game(
        hands=((), cs("6H 4S")), draws=((), ()), phase="OVER", winner=0, wins=(1, 0),
        scores=(0, 0), allow_over=True,
    )  # fmt: skip
    assert outcome(won) == Outcome(Termination.OUT_OF_CARDS, (0,), scores=(0, 0))
    for seat in (0, 1):
        with pytest.raises(Rejected) as info:
            decide(won, seat, kit.Resign())
        assert info.value.code is RejectCode.GAME_OVER


# --------------------------------------------------------------------------- bots never resign


def test_resign_is_never_offered_and_never_sensible() -> None:
    for make in SITUATIONS.values():
        state = make()
        for seat in (0, 1):
            assert not any(isinstance(c, kit.Resign) for c in legal_commands(state, seat))
            assert not is_sensible(state, seat, kit.Resign())
    match = bot_game(seed=33, steps=3000, rules=TO_NINE)
    assert match.writer is not None
    assert all(line.get("action", {}).get("kind") != "Resign" for line in match.writer.lines)


# --------------------------------------------------------------------------- what viewers see


@pytest.mark.parametrize("name", list(SITUATIONS))
def test_the_resignation_shows_no_viewer_a_card_it_could_not_see(name: str) -> None:
    before = SITUATIONS[name]()
    event = decide(before, 1, kit.Resign())[0]
    after = GAME.evolve(before, event)
    assert narrate(event) == (
        "seat 1 resigned: seat 0 wins the game; the cards stay where they lie"
    )
    rng = Rng(5, 1)
    for viewer in VIEWERS:
        assert redact(event, viewer) == event == Resigned(1)  # it names no card at all
        seen_before, seen_after = view(before, viewer), view(after, viewer)
        # Hands, draw piles, side piles and centre cards stay exactly as hidden as before.
        assert replace(seen_after, calls=(), winner=None) == replace(seen_before, calls=())
        assert seen_after.winner == 0 and seen_after.calls == ()
        # And the view depends on no card it hides (the contract suite's no-leak test).
        assert view(shuffle_hidden(after, viewer, rng), viewer) == seen_after


def test_centre_cards_dealt_face_down_stay_face_down() -> None:
    match = bot_game(seed=3, steps=0)
    assert match.state.phase == "READY"
    match.submit(0, kit.Resign(), 1)
    for viewer in VIEWERS:
        assert view(match.state, viewer).centre == ((HIDDEN,), (HIDDEN,))
        assert format_position(match.state, viewer).split(" ")[5] == "??/??"
    assert view(match.state, Role.REFEREE).centre == match.state.centre


def test_the_redacted_log_of_a_resigned_game() -> None:
    match = bot_game(seed=32, steps=40, rules=Rules(side_pile_size=5, auto_refill=False))
    match.submit(0, kit.Resign(by=kit.RESIGN_BY_TIMER), match.last_at_ms + 1)
    lines = verified(match)
    for viewer in VIEWERS:
        red = log.redact_log(lines, viewer)
        assert red[-2]["events"] == [{"kind": "Resigned", "seat": 0}]
        assert red[-2]["action"] == {"kind": "Resign", "by": "timer"}


# --------------------------------------------------------------------------- positions


def resigned_position(seat: int = 1, **kw: Any) -> State:
    return mid_game(winner=1 - seat, resigned=seat, allow_over=True, **kw)


def test_the_notation_of_a_resigned_game_round_trips() -> None:
    for seat in (0, 1):
        for state in (
            resigned_position(seat),
            resigned_position(seat, phase="READY"),
            resigned_position(seat, rules=TO_NINE, wins=(1, 1), scores=(8, 3), round=3, shuffles=2),
        ):
            text = format_position(state, Role.REFEREE)
            assert text.endswith(f" {1 - seat} {seat}")  # winner, resigned
            back = parse_position(text, state.setup.rules, allow_over=True)
            assert back == state
            assert format_position(back, Role.REFEREE) == text
            for viewer in VIEWERS:
                shown = format_position(state, viewer)
                assert shown.endswith(f" {1 - seat} {seat}") and "KS" not in shown
            with pytest.raises(InvalidPosition) as info:
                parse_position(text, state.setup.rules)  # over: only with allow_over
            assert info.value.field == "resigned"
    # A text without the field (every text of rules version 1) is a game nobody resigned.
    text = format_position(mid_game(), Role.REFEREE)
    assert len(text.split(" ")) == 1 + 11
    assert parse_position(text).resigned is None


@pytest.mark.parametrize("text_end", [" 2", " -", " 1 1", " 01"])
def test_the_resigned_field_is_a_seat(text_end: str) -> None:
    """Anything but a seat after ``winner`` is one field too many."""
    text = format_position(mid_game(), Role.REFEREE)
    with pytest.raises(InvalidPosition) as info:
        parse_position(text + text_end)
    assert info.value.field == "notation"


INVALID: list[tuple[str, Callable[[], object], str]] = [
    ("the resigner won", lambda: mid_game(winner=1, resigned=1), "winner"),
    ("no winner", lambda: mid_game(resigned=1), "winner"),
    ("not a seat", lambda: mid_game(winner=0, resigned=2), "resigned"),
    ("a bool", lambda: mid_game(winner=0, resigned=True), "resigned"),
    ("a call still recorded", lambda: mid_game(**STUCK, calls=(0,), winner=0, resigned=1), "calls"),
    (
        "phase OVER",
        lambda: mid_game(hands=((), cs("6H")), draws=((), ()), phase="OVER", winner=0, resigned=1),
        "resigned",
    ),
    (
        "the target reached",
        lambda: mid_game(
            rules=TO_NINE, wins=(2, 0), scores=(9, 0), winner=0, resigned=1, round=3, shuffles=2
        ),
        "scores[0]",
    ),
    (
        "without a target, a round was won",
        lambda: mid_game(wins=(1, 0), scores=(2, 0), round=2, shuffles=1, winner=0, resigned=1),
        "wins",
    ),
    ("over, not allowed", lambda: mid_game(winner=0, resigned=1), "resigned"),
    (
        "a bad position all the same",
        lambda: mid_game(phase="READY", centre=(cs("5D 6D"), cs("JC")), winner=0, resigned=1),
        "centre[0]",
    ),
]


@pytest.mark.parametrize(("build", "field"), [(b, f) for _, b, f in INVALID],
                         ids=[name for name, _, _ in INVALID])  # fmt: skip
def test_invalid_resigned_positions_name_the_field(build: Callable[[], object], field: str) -> None:
    with pytest.raises(InvalidPosition) as info:
        build()
    assert info.value.field == field, info.value


def test_a_match_does_not_start_from_a_resigned_game() -> None:
    with pytest.raises(InvalidPosition, match="resigned"):
        Match.from_position(GAME, resigned_position())


def test_the_game_says_its_rules_version_and_the_one_it_still_replays() -> None:
    assert GAME.info.rules_version == "2" and GAME.info.replays_versions == ("1",)
    assert kit.Resign in GAME.command_types and Resigned in GAME.event_types
    assert GAME.decode_event({"kind": "Resigned", "seat": 1}) == Resigned(1)


# --------------------------------------------------------------------------- any point


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    point=st.floats(0, 1, exclude_max=True),
    seat=st.integers(0, 1),
    resign=st.sampled_from(RESIGNS),
    variant=st.sampled_from(
        [
            Rules(),
            Rules(target_score=5, score_counts="stock_and_hand"),
            Rules(best_of=3, auto_refill=False),
            Rules(side_pile_size=5, jokers=2, multi_card_play=True),
        ]
    ),
)
def test_any_seat_resigning_at_any_point_of_a_random_game(
    seed: int, point: float, seat: int, resign: kit.Resign, variant: Rules
) -> None:
    """``point``: how far into the whole bot game (a fraction of its actions) the seat resigns;
    the same seeded bots then replay that far, so the game is still running."""
    length = bot_game(seed, 3000, variant).seq - 1  # the actions after the deal
    match = bot_game(seed, int(point * length), variant)
    assert match.outcome is None
    submit_resign(match, seat, resign, match.last_at_ms + 1)
    assert sorted(GAME.deck(match.setup)) == sorted(cards_in_play(match.state))
    verified(match)
    with pytest.raises(Rejected, match="over"):
        match.submit(1 - seat, resign, match.last_at_ms + 1)
