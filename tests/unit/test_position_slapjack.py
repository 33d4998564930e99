"""Slapjack positions: the position check, the seat checks, the one-line notation
(docs/notation/slapjack.md) and matches started from a position (docs/games/slapjack.md)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardcore import log
from cardcore import notation as nt
from cardcore.cards import HIDDEN, JOKER, Card, parse_cards
from cardcore.engine import Role, Setup
from cardcore.errors import InvalidPosition, InvalidSeat
from cardcore.games.slapjack import (
    GAME,
    PLAY,
    SLAP,
    CardPlayed,
    PenaltyPaid,
    Rules,
    State,
    check_position,
    decide,
    format_position,
    is_sensible,
    legal_commands,
    outcome,
    parse_position,
    position,
    redact,
    view,
)
from cardcore.match import Match
from cardcore.rng import Rng

REFEREE = Role.REFEREE


def without_rules(text: str) -> str:
    """The text without its rules field (docs/notation.md#the-rules-field)."""
    return nt.read_rules(text, "slapjack", Rules, None)[0]


def cs(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def normalised(state: State) -> State:
    """``state`` with the setup parse_position builds (seed 0, default event limit)."""
    return state._replace(setup=Setup(state.setup.seats, 0, state.setup.rules))


# --------------------------------------------------------------------------- the check

ONE_DECK_2 = {"stacks": [cs("5S"), cs("6S")]}

INVALID: list[tuple[str, dict[str, Any], str]] = [
    ("duplicate card, one deck", {"stacks": [cs("5S 7D"), cs("5S")]}, "stacks[1]"),
    ("pile repeats a stack card", {**ONE_DECK_2, "pile": cs("6S"), "played_by": [1]}, "pile"),
    ("a joker is in no deck", {"stacks": [(JOKER,), cs("6S")]}, "stacks[0]"),
    (
        "three of a card with two decks",
        {"stacks": [cs("5S 5S"), cs("5S")], "rules": Rules(num_decks=2)},
        "stacks[1]",
    ),
    ("one seat", {"stacks": [cs("5S")]}, "setup"),
    ("nine seats", {"stacks": [cs("5S")] * 1 + [()] * 8}, "setup"),
    (
        "an eliminated seat holds cards",
        {"stacks": [cs("5S"), cs("6S"), cs("7S")], "eliminated": [1]},
        "stacks[1]",
    ),
    ("eliminated seat out of range", {**ONE_DECK_2, "eliminated": [2]}, "eliminated"),
    ("current out of range", {**ONE_DECK_2, "current": 2}, "current"),
    ("current negative", {**ONE_DECK_2, "current": -1}, "current"),
    ("current is a bool", {**ONE_DECK_2, "current": True}, "current"),
    (
        "current at an eliminated seat",
        {"stacks": [(), cs("6S"), cs("7S")], "eliminated": [0], "current": 0},
        "current",
    ),
    ("current holds no card", {"stacks": [(), cs("6S"), cs("7S")], "current": 0}, "current"),
    (
        "current none while a seat holds a card",
        {**ONE_DECK_2, "pile": cs("JH"), "played_by": [0], "current": None},
        "current",
    ),
    (
        "current none without a target on top",
        {"stacks": [(), ()], "pile": cs("JH 5C"), "played_by": [0, 1], "current": None},
        "current",
    ),
    ("no card anywhere", {"stacks": [(), ()], "current": None}, "current"),
    ("no card anywhere, a current", {"stacks": [(), ()]}, "current"),
    (
        "played_by shorter than the pile",
        {**ONE_DECK_2, "pile": cs("9H 2C"), "played_by": [1]},
        "played_by",
    ),
    (
        "played_by longer than the pile",
        {**ONE_DECK_2, "pile": cs("9H"), "played_by": [1, 0]},
        "played_by",
    ),
    (
        "played_by seat out of range",
        {**ONE_DECK_2, "pile": cs("9H"), "played_by": [2]},
        "played_by[0]",
    ),
    (
        "played_by seat is a bool",
        {**ONE_DECK_2, "pile": cs("9H"), "played_by": [False]},
        "played_by[0]",
    ),
    ("negative epoch", {**ONE_DECK_2, "epoch": -1, "shuffles": 0}, "epoch"),
    ("bool epoch", {**ONE_DECK_2, "epoch": True, "shuffles": 1}, "epoch"),
    ("shuffles without piles taken", {**ONE_DECK_2, "epoch": 0, "shuffles": 2}, "shuffles"),
    (
        "shuffles with shuffle_after_win off",
        {**ONE_DECK_2, "epoch": 1, "shuffles": 1, "rules": Rules(shuffle_after_win=False)},
        "shuffles",
    ),
    ("already over: one seat left", {"stacks": [cs("5S"), ()], "eliminated": [1]}, "eliminated"),
    (
        "already over: one holder in slap_in_unlimited",
        {"stacks": [cs("5S"), ()], "rules": Rules(out_of_cards="slap_in_unlimited")},
        "stacks",
    ),
]


@pytest.mark.parametrize(
    ("kwargs", "field"), [(k, f) for _, k, f in INVALID], ids=[n for n, _, _ in INVALID]
)
def test_position_refuses_what_no_game_reaches(kwargs: dict[str, Any], field: str) -> None:
    kwargs = dict(kwargs)
    stacks = kwargs.pop("stacks")
    with pytest.raises(InvalidPosition) as err:
        position(stacks, **kwargs)
    assert err.value.field == field


def test_a_finished_game_is_a_position_only_when_allowed() -> None:
    state = position([cs("5S 6S"), ()], eliminated=[1], allow_over=True)
    assert outcome(state) is not None
    with pytest.raises(InvalidPosition):
        check_position(state)
    check_position(state, allow_over=True)
    with pytest.raises(InvalidPosition) as err:
        position([(), ()], eliminated=[0, 1], current=None, allow_over=True)
    assert err.value.field in ("eliminated", "current")


def test_state_fields_of_the_wrong_shape_are_refused() -> None:
    """Built and checked in one step: the compiled build's native ``State`` refuses a field of
    the wrong type as it is built (``_replace``), the interpreted one when it is checked; both
    as :class:`InvalidPosition` naming the field."""
    good: Any = position([cs("5S"), cs("6S")])  # Any: these fields are the wrong types
    bad: list[tuple[Callable[[], object], str]] = [
        (lambda: good._replace(stacks=(cs("5S"),)), "stacks"),
        (lambda: good._replace(stacks=[cs("5S"), cs("6S")]), "stacks"),
        (lambda: good._replace(stacks=(cs("5S"), [Card.parse("6S")])), "stacks[1]"),
        (lambda: good._replace(stacks=(cs("5S"), ("6S",))), "stacks[1]"),
        (lambda: good._replace(pile=[Card.parse("9H")], played_by=(0,)), "pile"),
        (lambda: good._replace(eliminated={1}), "eliminated"),
        (lambda: good._replace(setup=Setup(2, 0, object())), "setup"),
    ]
    for build, field in bad:
        with pytest.raises(InvalidPosition) as err:
            check_position(build())  # type: ignore[arg-type]
        assert err.value.field == field


def test_small_and_reachable_hand_written_positions_pass() -> None:
    position([cs("5S"), (), cs("7S")], pile=cs("JH"), played_by=[1], current=2)
    position([(), ()], pile=cs("9C JD"), played_by=[1, 0], current=None, epoch=3)
    pair = Rules(slap_targets=frozenset({"jack", "double"}))
    position([(), ()], pile=cs("9C 9D"), played_by=[1, 0], current=None, rules=pair)
    position([cs("5S 5S"), cs("5S")], rules=Rules(num_decks=3))


def test_a_false_slap_on_an_unchecked_short_played_by_never_index_errors() -> None:
    state = position([cs("5S"), cs("6S")], pile=cs("9H"), played_by=[1])._replace(played_by=())
    events = decide(state, 0, SLAP)  # the receiver falls back to current / the next player
    assert events[1] == PenaltyPaid(0, Card.parse("5S"), 1)


# --------------------------------------------------------------------------- seats


def test_seats_that_are_not_seats_raise_invalid_seat() -> None:
    state = position([cs("5S"), cs("6S"), cs("7S")])
    for seat in (5, 3, -1, True, False, "0", 1.0, None):
        with pytest.raises(InvalidSeat):
            decide(state, seat, PLAY)  # type: ignore[arg-type]
        with pytest.raises(InvalidSeat):
            legal_commands(state, seat)  # type: ignore[arg-type]
        with pytest.raises(InvalidSeat):
            is_sensible(state, seat, SLAP)  # type: ignore[arg-type]
    for viewer in (3, -1, True):
        with pytest.raises(InvalidSeat):
            view(state, viewer)
        with pytest.raises(InvalidSeat):
            format_position(state, viewer)
    with pytest.raises(InvalidSeat):
        redact(CardPlayed(0, Card.parse("5S"), 1), 8)
    with pytest.raises(InvalidSeat):
        redact(CardPlayed(0, Card.parse("5S"), 1), False)
    assert view(state, 2).current == 0 and view(state, Role.SPECTATOR).current == 0
    match = Match.from_position(GAME, state)
    with pytest.raises(InvalidSeat):
        match.submit(False, PLAY, 1)
    with pytest.raises(InvalidSeat):
        match.submit(5, PLAY, 1)


# --------------------------------------------------------------------------- matches


def _play_out(match: Match[Any, Any, Any, Any, Any], rng: Rng, limit: int = 5000) -> None:
    now = match.last_at_ms
    while match.outcome is None and limit:
        seats = match.setup.seats
        opts = [(s, c) for s in range(seats) for c in legal_commands(match.state, s)]
        sensible = [o for o in opts if is_sensible(match.state, o[0], o[1])]
        pool = sensible if sensible and rng.below(8) else opts
        seat, command = pool[rng.below(len(pool))]
        now += 1
        match.submit(seat, command, now)
        limit -= 1


def test_a_match_from_a_hand_written_position_plays_logs_and_verifies() -> None:
    state = position(
        [cs("2S JC 4H 9D"), cs("5D 5C"), cs("KH JS 7C")],
        pile=cs("8H 3S"),
        played_by=[1, 2],
        current=0,
        epoch=2,
    )
    match = Match.from_position(GAME, state, seed=42)
    assert match.writer is not None
    header = match.writer.lines[0]
    assert header["position"] == format_position(state, REFEREE)
    match.submit(0, PLAY, 1)  # 2S
    match.submit(1, PLAY, 2)  # 5D
    match.submit(2, PLAY, 3)  # KH
    match.submit(0, PLAY, 4)  # JC: a Jack
    match.submit(2, SLAP, 5)
    assert match.state.epoch == 3 and match.state.pile == ()
    # A seat downloads the log in progress: the header's stacks are ?? but for the counts.
    red = log.redact_log(match.writer.lines, 1)
    assert red[0]["position"] == format_position(state, 1)
    assert red[0]["position"].split(" ")[1] == "??,??,??,??/??,??/??,??,??"
    assert "JC" not in red[0]["position"].split(" ")[1]
    _play_out(match, Rng(42, 7))
    assert match.outcome is not None
    report = log.verify(match.writer.lines)
    assert report.outcome == match.outcome
    final = list(log.replay(match.writer.lines))[-1].state
    assert final == match.state


def test_parse_position_feeds_a_match_too() -> None:
    state = parse_position(
        "slapjack 4S,KD/-/9H,2C 7D,JC,5S 0,2,0 3 2 1 0", Rules(shuffle_after_win=False)
    )
    match = Match.from_position(GAME, state)
    _play_out(match, Rng(1, 1))
    assert match.writer is not None and match.outcome is not None
    log.verify(match.writer.lines)


# --------------------------------------------------------------------------- notation

RULES = st.builds(
    Rules,
    slap_targets=st.sampled_from(
        [
            frozenset({"jack"}),
            frozenset({"jack", "double"}),
            frozenset({"jack", "sandwich"}),
            frozenset({"jack", "double", "sandwich"}),
        ]
    ),
    shuffle_after_win=st.booleans(),
    false_slap_penalty=st.integers(0, 3),
    penalty_recipient=st.sampled_from(["player_of_top_card", "current_player"]),
    next_after_win=st.sampled_from(["rotation", "winner", "left_of_winner"]),
    out_of_cards=st.sampled_from(["next_jack", "eliminate_now", "slap_in_unlimited"]),
    zero_card_false_slap=st.sampled_from(["eliminate", "ignore"]),
    num_decks=st.integers(1, 2),
)


def _states(seats: int, seed: int, rules: Rules, steps: int) -> list[State]:
    """The states of a random playout (false slaps included), the last one possibly over."""
    setup = Setup(seats, seed, rules)
    match = Match(GAME, setup, record=False)
    rng = Rng(seed, 3)
    out = [match.state]
    for now in range(steps):
        if match.outcome is not None:
            break
        s = match.state
        opts = [(q, c) for q in range(seats) for c in legal_commands(s, q)]
        sensible = [o for o in opts if is_sensible(s, o[0], o[1])]
        pool = sensible if sensible and rng.below(5) else opts
        q, c = pool[rng.below(len(pool))]
        match.submit(q, c, now)
        out.append(match.state)
    return out


SLOW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SLOW
@given(
    seats=st.integers(2, 6),
    seed=st.integers(0, 2**64 - 1),
    rules=RULES,
    steps=st.integers(0, 400),
)
def test_notation_round_trips_on_reachable_states(
    seats: int, seed: int, rules: Rules, steps: int
) -> None:
    for state in _states(seats, seed, rules, steps)[::7]:
        over = outcome(state) is not None
        check_position(state, allow_over=over)
        text = format_position(state, REFEREE)
        assert " " not in text.split(" ", 1)[0] and "\n" not in text and text.isascii()
        if over:
            continue  # the notation describes a game to play on: parse refuses a finished one
        parsed = parse_position(text, rules)
        assert parsed == normalised(state)
        assert format_position(parsed, REFEREE) == text
        for viewer in (0, seats - 1, Role.SPECTATOR):
            shown = format_position(state, viewer)
            # ?? exactly where the view hides a card; the rest is public
            seen = view(state, viewer).stacks
            expected = "/".join(
                ",".join("??" if card is HIDDEN else str(card) for card in stack) or "-"
                for stack in seen
            )
            fields = without_rules(shown).split(" ")
            assert fields[1] == expected
            assert fields[2:] == without_rules(text).split(" ")[2:]
            assert nt.read_rules(shown, "slapjack", Rules, None)[1] == rules
            if any(state.stacks):
                with pytest.raises(InvalidPosition):
                    parse_position(shown, rules)  # display only


HAND_WRITTEN = [
    "slapjack -/-/- JH,3C,JD 1,2,0 4 - 1 4",
    "slapjack 4S,KD/-/9H,2C 7D,JC,5S 0,2,0 3 2 1 3",
    "slapjack 5S/6S - - 0 0 - 0",
    "slapjack 10D,6C/-/-/-/-/-/-/QH - - 0 7 1,2,3,4,5,6 0",
    "slapjack 5S/-/6S - - 0 0 1 0 7H,JC",  # seat 1 resigned: its cards lie under the pile
    "slapjack -/-/-/- JD 3 1 - 1,3 1 9C",
]


@pytest.mark.parametrize("text", HAND_WRITTEN)
def test_hand_written_texts_round_trip(text: str) -> None:
    state = parse_position(text, None)
    assert format_position(state, REFEREE) == text
    assert parse_position(format_position(state, REFEREE), None) == state


BAD_TEXTS = [
    ("", "notation"),
    ("ratscrew 5S/6S - - 0 0 - 0", "notation"),
    ("slapjack 5S/6S - - 0 0 -", "notation"),
    ("slapjack 5S/6S - - 0 0 - 0 0", "burned"),  # the optional eighth field holds cards
    ("slapjack 5S/6S - - 0 0 - 0 -", "burned"),  # left out when empty, never written -
    ("slapjack 5S/6S - - 0 0 - 0 7H", "burned"),  # burned only after a resignation
    ("slapjack 5S/- - - 0 0 1 0 5S", "burned"),
    ("slapjack 5S/6S - - 0 0 - 0 7H 0", "notation"),
    ("slapjack  5S/6S - - 0 0 - 0", "notation"),
    ("slapjack 5S - - 0 0 - 0", "stacks"),
    ("slapjack 5S/6S/-/-/-/-/-/-/- - - 0 0 - 0", "stacks"),
    ("slapjack 5S/6X - - 0 0 - 0", "stacks[1]"),
    ("slapjack 5S,/6S - - 0 0 - 0", "stacks[0]"),
    ("slapjack ??/6S - - 0 0 - 0", "stacks[0]"),
    ("slapjack 5S/5S - - 0 0 - 0", "stacks[1]"),
    ("slapjack 5S/6S JH - 0 0 - 0", "played_by"),
    ("slapjack 5S/6S JH 2 0 0 - 0", "played_by[0]"),
    ("slapjack 5S/6S JH +1 0 0 - 0", "played_by[0]"),
    ("slapjack 5S/6S - - -1 0 - 0", "epoch"),
    ("slapjack 5S/6S - - 0 2 - 0", "current"),
    ("slapjack 5S/- - - 0 1 - 0", "current"),
    ("slapjack 5S/6S - - 0 - - 0", "current"),
    ("slapjack 5S/6S - - 0 0 1,1 0", "eliminated"),
    ("slapjack 5S/- - - 0 0 1 0", "eliminated"),
    ("slapjack 5S/6S - - 0 0 - 1", "shuffles"),
    ("slapjack 5S/6S - - 0 Play - 0", "current"),
]


@pytest.mark.parametrize(("text", "field"), BAD_TEXTS)
def test_bad_texts_name_the_field(text: str, field: str) -> None:
    with pytest.raises(InvalidPosition) as err:
        parse_position(text, None)
    assert err.value.field == field


def test_parse_position_refuses_foreign_rules_and_non_text() -> None:
    with pytest.raises(InvalidPosition):
        parse_position("slapjack 5S/6S - - 0 0 - 0", object())  # type: ignore[arg-type]
    with pytest.raises(InvalidPosition):
        parse_position(b"slapjack 5S/6S - - 0 0 - 0", None)  # type: ignore[arg-type]


ALPHABET = st.sampled_from(list("slapjack 0123456789,/-?AJQKSHDC10 \n\t+JK"))
VALID = format_position(_states(3, 11, Rules(), 60)[-1], REFEREE)


def _parses_or_refuses(text: str) -> None:
    try:
        state = parse_position(text, None)
    except InvalidPosition:
        return
    check_position(state)
    assert parse_position(format_position(state, REFEREE), None) == state


@settings(max_examples=150, deadline=None)
@given(st.text(ALPHABET, max_size=60) | st.text(max_size=30))
def test_junk_parses_or_raises_invalid_position(text: str) -> None:
    _parses_or_refuses(text)
    _parses_or_refuses("slapjack " + text)


@settings(max_examples=150, deadline=None)
@given(
    cut=st.integers(0, len(VALID)),
    at=st.integers(0, len(VALID) - 1),
    char=ALPHABET,
    mode=st.sampled_from(["truncate", "replace", "insert", "delete"]),
)
def test_mutated_valid_texts_parse_or_raise_invalid_position(
    cut: int, at: int, char: str, mode: str
) -> None:
    if mode == "truncate":
        text = VALID[:cut]
    elif mode == "replace":
        text = VALID[:at] + char + VALID[at + 1 :]
    elif mode == "insert":
        text = VALID[:at] + char + VALID[at:]
    else:
        text = VALID[:at] + VALID[at + 1 :]
    _parses_or_refuses(text)


def test_the_documented_examples_are_what_the_code_writes() -> None:
    """docs/notation/slapjack.md: each example line parses back to itself (those with ?? are
    display only), and the first is exactly the deal it says."""
    doc = (Path(__file__).parents[2] / "docs" / "notation" / "slapjack.md").read_text()
    lines = [x for x in doc.splitlines() if x.startswith("slapjack ") and "<" not in x]
    assert len(lines) >= 4
    for line in lines:
        if "??" in line:
            with pytest.raises(InvalidPosition):
                parse_position(line, None)
        else:
            assert format_position(parse_position(line, None), REFEREE) == line
    # example 3 without shuffle_after_win: the text carries its rules field
    variant = "slapjack [shuffle_after_win=false] -/-/- JH,3C,JD 1,2,0 4 - 1 0"
    assert f"`{variant}`" in doc
    rules = Rules(shuffle_after_win=False)
    assert parse_position(variant, None).setup.rules == rules
    assert format_position(parse_position(variant, None), REFEREE) == variant
    # the same position written before the rules field (a log header's) reads alike, under
    # the rules the log gives beside it
    bare = "slapjack -/-/- JH,3C,JD 1,2,0 4 - 1 0"
    assert parse_position(bare, rules) == parse_position(variant, rules)
    dealt = Match(GAME, GAME.make_setup(2, 1), record=False).state
    assert lines[0] == format_position(dealt, REFEREE)
