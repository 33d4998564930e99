"""Resigning in Spit (docs/games/common.md#leaving-a-game): with two players the game ends at once
and the other one wins (termination ``RESIGNED``), in every phase — before the start call, in play,
during a joint "Spit!" call, while slapping or choosing for the spit piles, between rounds. The
table stays as it stood; the event names no card, so no viewer learns one; the log verifies and
replays; a timer's forfeit is the same resignation."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardcore import kit, log
from cardcore.bots import ask, seat_bots
from cardcore.cards import Card, parse_cards
from cardcore.engine import Outcome, Role, Setup, Termination, Viewer
from cardcore.errors import InvalidPosition, RejectCode, Rejected
from cardcore.games.spit import (
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


def table(p0: tuple[str, ...], p1: tuple[str, ...], **kw: Any) -> State:
    """Layouts as one string per stock pile (bottom→top, "" an empty space)."""
    kw.setdefault("spit_piles", (cs("8H"), cs("KC")))
    kw.setdefault("spit_cards", (cs("7C 9H"), cs("QD AS")))
    return position([[cs(p) for p in p0], [cs(p) for p in p1]], **kw)


# Spit piles 8♥ and K♣ take 7, 9, Q and A; neither layout shows one: stuck.
STUCK_P0 = ("2S", "3H 4C", "5D 5S 6H", "10C 10D 2H 3S", "JH JC 4D 5C 6S")
STUCK_P1 = ("2D", "3D 4H", "5H 8C 6C", "10S 10H 2C 3C", "JS JD 4S 8S 6D")
PLAYING = ("7S", "3H 4C", "", "10C 10D 2H")


def ready(**kw: Any) -> State:
    return table(STUCK_P0, STUCK_P1, phase="READY", spit_piles=((), ()), **kw)


def slap(**kw: Any) -> State:
    """Seat 0 emptied its layout: slap (or, under pile_claim="choose", choose) a spit pile."""
    kw.setdefault("phase", "SLAP")
    return table(("",), ("2D", "3D 4C"), spit_piles=(cs("8H 7S 6D"), cs("KC")), **kw)


SITUATIONS: dict[str, Callable[[], State]] = {
    "before the start call": ready,
    "the start call recorded": lambda: ready(called={1}),
    "in play": lambda: table(PLAYING, STUCK_P1),
    "a stalemate call recorded": lambda: table(
        STUCK_P0, STUCK_P1, called={0}, call_targets=(1, None)
    ),
    "a solo spitter locked": lambda: table(STUCK_P0, STUCK_P1, spit_cards=(cs("7C"), ()), locked=1),
    "slapping for the piles": slap,
    "choosing a pile": lambda: slap(phase="CHOOSE", chooser=0, rules=Rules(pile_claim="choose")),
    "between rounds": lambda: ready(round=3),
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
    assert match.outcome == outcome(after) == Outcome(Termination.RESIGNED, (1 - seat,))
    assert after.resigned == seat and after.winner == 1 - seat
    # The game ends where it stands: every card where it lay, the calls cleared.
    assert after == before._replace(
        called=frozenset(), call_targets=(None, None), winner=1 - seat, resigned=seat
    )
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


def bot_game(seed: int, steps: int, rules: Rules | None = None) -> AnyMatch:
    """A dealt game that random bots (cardcore.bots) played for up to ``steps`` actions."""
    match: AnyMatch = Match(GAME, Setup(2, seed, rules or Rules()))
    bots = seat_bots("random", 2, seed)
    for _ in range(steps):
        if match.outcome is not None:
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
    match = bot_game(seed=43, steps=30)
    assert match.state.phase == "PLAY" and match.outcome is None
    submit_resign(match, seat, resign, match.last_at_ms + 5)
    assert sorted(GAME.deck(match.setup)) == sorted(cards_in_play(match.state))
    lines = verified(match)
    assert lines[-2]["seat"] == seat
    assert lines[-2]["action"] == {"kind": "Resign", "by": resign.by}
    assert lines[-2]["events"] == [{"kind": "Resigned", "seat": seat}]


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("name", list(SITUATIONS))
def test_a_resignation_ends_the_game_in_every_phase(name: str, seat: int) -> None:
    start = SITUATIONS[name]()
    match: AnyMatch = Match.from_position(GAME, start, seed=9, game_id="resign")
    submit_resign(match, seat, kit.Resign(), 1)
    assert match.state.phase == start.phase  # over where it stood
    lines = verified(match)
    assert lines[0]["position"] == format_position(start._replace(setup=match.setup), Role.REFEREE)


def test_the_timers_forfeit_is_the_same_resignation() -> None:
    finals = []
    for resign in RESIGNS:
        match = bot_game(seed=7, steps=12)
        events = match.submit(1, resign, match.last_at_ms + 1)
        assert list(events) == [Resigned(1)]
        finals.append((match.state, match.outcome))
    assert finals[0] == finals[1]


def test_nothing_follows_a_resignation() -> None:
    match: AnyMatch = Match.from_position(GAME, table(PLAYING, STUCK_P1))
    match.submit(0, kit.Resign(), 1)
    state = match.state
    assert legal_commands(state, 0) == legal_commands(state, 1) == []
    for seat in (0, 1):
        for command in (kit.Resign(), kit.Resign(by=kit.RESIGN_BY_TIMER), *SOME_COMMANDS):
            with pytest.raises(Rejected) as info:
                decide(state, seat, command)
            assert info.value.code is RejectCode.GAME_OVER
            with pytest.raises(Rejected):
                match.submit(seat, command, 2)
    assert match.state is state


def test_a_game_won_by_an_empty_packet_cannot_be_resigned() -> None:
    won = position(
        [[], []], phase="OVER", round=2, winner=0, spit_cards=((), cs("9C 8H")), allow_over=True
    )
    assert outcome(won) == Outcome(Termination.OUT_OF_CARDS, (0,))
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
    match = bot_game(seed=45, steps=400)
    assert match.writer is not None
    assert all(line.get("action", {}).get("kind") != "Resign" for line in match.writer.lines)


# --------------------------------------------------------------------------- what viewers see


@pytest.mark.parametrize("name", list(SITUATIONS))
def test_the_resignation_shows_no_viewer_a_card_it_could_not_see(name: str) -> None:
    before = SITUATIONS[name]()
    event = decide(before, 1, kit.Resign())[0]
    after = GAME.evolve(before, event)
    assert narrate(event) == "seat 1 resigned: seat 0 wins; the cards stay where they lie"
    rng = Rng(5, 1)
    for viewer in VIEWERS:
        assert redact(event, viewer) == event == Resigned(1)  # it names no card at all
        seen_before, seen_after = view(before, viewer), view(after, viewer)
        # Face-down layout cards and spit cards stay exactly as hidden as before.
        assert seen_after.layouts == seen_before.layouts
        assert seen_after.spit_cards == seen_before.spit_cards
        assert seen_after.spit_piles == seen_before.spit_piles
        assert seen_after.winner == 0 and seen_after.called == (False, False)
        # And the view depends on no card it hides (the contract suite's no-leak test).
        assert view(shuffle_hidden(after, viewer, rng), viewer) == seen_after


def test_the_redacted_log_of_a_resigned_game() -> None:
    match = bot_game(seed=40, steps=25, rules=Rules(num_stock_piles=4, auto_flip=True))
    match.submit(0, kit.Resign(by=kit.RESIGN_BY_TIMER), match.last_at_ms + 1)
    lines = verified(match)
    for viewer in VIEWERS:
        red = log.redact_log(lines, viewer)
        assert red[-2]["events"] == [{"kind": "Resigned", "seat": 0}]
        assert red[-2]["action"] == {"kind": "Resign", "by": "timer"}


# --------------------------------------------------------------------------- positions


def resigned_position(seat: int = 1) -> State:
    return table(PLAYING, STUCK_P1, winner=1 - seat, resigned=seat, allow_over=True)


def test_the_notation_of_a_resigned_game_round_trips() -> None:
    for seat in (0, 1):
        state = resigned_position(seat)
        text = format_position(state, Role.REFEREE)
        assert text.endswith(f" - - {1 - seat} {seat}")  # locked, chooser, winner, resigned
        assert parse_position(text) == state
        assert format_position(parse_position(text), Role.REFEREE) == text
        for viewer in VIEWERS:
            shown = format_position(state, viewer)
            assert shown.endswith(f" {1 - seat} {seat}") and "10D" not in shown
    # A text without the field (every text of rules version 1) is a game nobody resigned.
    playing = table(PLAYING, STUCK_P1)
    text = format_position(playing, Role.REFEREE)
    assert len(text.split(" ")) == 1 + 15
    assert parse_position(text).resigned is None


@pytest.mark.parametrize("text_end", [" 2", " -", " 1 1", " 01"])
def test_the_resigned_field_is_a_seat(text_end: str) -> None:
    """Anything but a seat after ``winner`` is one field too many."""
    text = format_position(table(PLAYING, STUCK_P1), Role.REFEREE)
    with pytest.raises(InvalidPosition) as info:
        parse_position(text + text_end)
    assert info.value.field == "notation"


INVALID: list[tuple[str, Callable[[], object], str]] = [
    ("the resigner won", lambda: table(PLAYING, STUCK_P1, winner=1, resigned=1), "winner"),
    ("no winner", lambda: table(PLAYING, STUCK_P1, resigned=1), "winner"),
    ("not a seat", lambda: table(PLAYING, STUCK_P1, winner=0, resigned=2), "resigned"),
    ("a bool", lambda: table(PLAYING, STUCK_P1, winner=0, resigned=True), "resigned"),
    (
        "a call still recorded",
        lambda: table(STUCK_P0, STUCK_P1, called={0}, winner=0, resigned=1),
        "called",
    ),
    (
        "phase OVER",
        lambda: position([[], []], phase="OVER", winner=0, resigned=1, spit_cards=((), cs("2S"))),
        "resigned",
    ),
    ("over, not allowed", lambda: table(PLAYING, STUCK_P1, winner=0, resigned=1), "resigned"),
    ("a bad position all the same", lambda: slap(phase="PLAY", winner=0, resigned=1), "layouts[0]"),
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
    steps=st.integers(0, 600),  # rounds 1 to 3 or so: every phase, sometimes the end
    seat=st.integers(0, 1),
    resign=st.sampled_from(RESIGNS),
    variant=st.sampled_from(
        [Rules(), Rules(num_stock_piles=4, pile_claim="choose"), Rules(stack_equal_in_layout=True)]
    ),
)
def test_any_seat_resigning_at_any_point_of_a_random_game(
    seed: int, steps: int, seat: int, resign: kit.Resign, variant: Rules
) -> None:
    match = bot_game(seed, steps, variant)
    if match.outcome is not None:  # won before: a resignation comes too late
        with pytest.raises(Rejected, match="over"):
            match.submit(seat, resign, match.last_at_ms + 1)
        return
    submit_resign(match, seat, resign, match.last_at_ms + 1)
    assert sorted(GAME.deck(match.setup)) == sorted(cards_in_play(match.state))
    verified(match)
