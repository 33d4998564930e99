"""Egyptian Ratscrew positions: the position check, seats, the notation (docs/notation/ratscrew.md)
and games started from a position (Match.from_position, the log's header position).

Stacks are written top first, the pile bottom→top (docs/games/common.md#piles).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardcore import log
from cardcore import notation as nt
from cardcore.cards import HIDDEN, Card, parse_cards
from cardcore.engine import Role, Setup, Viewer
from cardcore.errors import InvalidPosition, InvalidSeat
from cardcore.games import ratscrew as ers
from cardcore.games.ratscrew import (
    COLLECT,
    GAME,
    PLAY,
    SLAP,
    Rules,
    State,
    check_position,
    format_position,
    parse_position,
    position,
)
from cardcore.match import Match
from cardcore.rng import Rng, shuffled

C = parse_cards
REF = Role.REFEREE


def without_rules(text: str) -> str:
    """The text without its rules field (docs/notation.md#the-rules-field)."""
    return nt.read_rules(text, "ratscrew", Rules, None)[0]


def rules_field(text: str) -> str | None:
    """The text's rules field, if it has one."""
    second = text.split(" ")[1]
    return second if second.startswith("[") else None


def pos(stacks: list[str], **kw: Any) -> State:
    for zone in ("played", "burned"):
        if zone in kw:
            kw[zone] = C(kw[zone])
    return position([C(s) for s in stacks], **kw)


def bad(value: Any) -> Any:
    """A value of the wrong type on purpose (or one mypy cannot narrow)."""
    return value


def field_of(build: Callable[[], object]) -> str:
    with pytest.raises(InvalidPosition) as info:
        build()
    return info.value.field


def normalised(state: State) -> State:
    """``state`` with the setup parse_position builds (seats, seed 0, same rules)."""
    return state._replace(setup=Setup(state.setup.seats, 0, state.setup.rules))


# --------------------------------------------------------------------------- the position check

INVALID: list[tuple[str, Callable[[], object], str]] = [
    ("duplicate card, one deck", lambda: pos(["5S 2H", "5S"]), "stacks[1]"),
    ("duplicate across zones", lambda: pos(["5S", "6H"], played="7C", burned="6H"), "burned"),
    ("a joker without jokers", lambda: pos(["JK 2S", "3S"]), "stacks[0]"),
    ("too many copies, two decks", lambda: pos(["5S 5S", "5S"], rules=Rules(num_decks=2)),
     "stacks[1]"),
    ("an eliminated seat holds cards", lambda: pos(["5S", "6S", "7S"], eliminated=[2]),
     "stacks[2]"),
    ("current is eliminated", lambda: pos(["5S", "", "7S"], eliminated=[1], current=1),
     "current"),
    ("current out of range", lambda: pos(["5S", "6S"], current=5), "current"),
    ("current negative", lambda: pos(["5S", "6S"], current=-1), "current"),
    ("current is a bool", lambda: pos(["5S", "6S"], current=True), "current"),
    ("current holds no card", lambda: pos(["", "6S"], played="2C", current=0), "current"),
    ("current None with cards held", lambda: pos(["5S", "6S"], played="2C", current=None),
     "current"),
    ("current None on an empty pile", lambda: pos(["", ""], current=None), "current"),
    ("over: one player holds every card", lambda: pos(["5S 6S", ""]), "stacks"),
    ("over: last standing", lambda: pos(["5S", ""], played="7C", eliminated=[1]),
     "eliminated"),
    ("played_by shorter than the pile", lambda: pos(["5S", "6S"], played="7C 8C",
     played_by=[1]), "played_by"),
    ("played_by longer than the pile", lambda: pos(["5S", "6S"], played="7C",
     played_by=[1, 0]), "played_by"),
    ("played_by not a seat", lambda: pos(["5S", "6S"], played="7C 8C", played_by=[1, 2]),
     "played_by[1]"),
    ("burned cards without a played card", lambda: pos(["5S", "6S"], burned="7C"), "burned"),
    ("negative epoch", lambda: pos(["5S", "6S"], epoch=-1), "epoch"),
    ("eliminated out of range", lambda: pos(["5S", "6S"], eliminated=[2]), "eliminated"),
    ("every seat eliminated", lambda: pos(["", ""], played="7C", current=None,
     eliminated=[0, 1], allow_over=True), "eliminated"),
    ("nobody is eliminated under ignore", lambda: pos(["5S", "", "6S"], eliminated=[1],
     rules=Rules(zero_card_false_slap="ignore")), "eliminated"),
    ("slap_in off: a seat at 0 cards without a claim", lambda: pos(["5S", "", "6S"],
     played="7C", rules=Rules(slap_in=False)), "stacks[1]"),
    ("owed and someone to play", lambda: pos(["5S", "6S"], played="KC", owed_to=0),
     "current"),
    ("owed and a challenge", lambda: pos(["5S", "6S"], played="KC", current=None, owed_to=0,
     challenge=(0, 3)), "challenge"),
    ("owed to an eliminated seat", lambda: pos(["5S", "6S", ""], played="KC", current=None,
     owed_to=2, eliminated=[2]), "owed_to"),
    ("owed with an empty pile", lambda: pos(["5S", "6S"], current=None, owed_to=1),
     "owed_to"),
    ("auto_collect leaves nothing owed", lambda: pos(["5S", "6S"], played="KC", current=None,
     owed_to=0, rules=Rules(auto_collect=True)), "owed_to"),
    ("challenger out of range", lambda: pos(["5S", "6S"], played="KC", current=1,
     challenge=(2, 3)), "challenge"),
    ("challenge with nothing left", lambda: pos(["5S", "6S"], played="KC", current=1,
     challenge=(0, 0)), "challenge"),
    ("challenge count beyond the royal's", lambda: pos(["5S", "6S"], played="KC", current=1,
     challenge=(0, 4)), "challenge"),
    ("challenge count not less the cards played", lambda: pos(["5S", "6S"], played="KC 2D",
     played_by=[0, 1], current=1, challenge=(0, 3)), "challenge"),
    ("challenge without a royal", lambda: pos(["5S", "6S"], played="9C", current=1,
     challenge=(0, 1)), "challenge"),
    ("challenge by another seat than the royal's", lambda: pos(["5S", "6S", "7S"],
     played="JC", played_by=[2], current=1, challenge=(0, 1)), "challenge"),
    ("challenger answers its own challenge", lambda: pos(["5S", "6S"], played="JC",
     played_by=[0], current=0, challenge=(0, 1)), "challenge"),
    ("eliminated challenger", lambda: pos(["", "6S", "7S"], played="JC", played_by=[0],
     current=1, challenge=(0, 1), eliminated=[0]), "challenge"),
    ("challenge not a pair", lambda: pos(["5S", "6S"], played="JC", current=1,
     challenge=(0, 1, 2)), "challenge"),
    ("one stack", lambda: pos(["5S"]), "stacks"),
    ("nine stacks", lambda: pos(["5S"] * 9), "stacks"),
    ("a stack that is not a tuple", lambda: check_position(pos(["5S", "6S"])._replace(
     stacks=bad(([Card.parse("5S")], ())))), "stacks[0]"),
    ("not a card", lambda: check_position(pos(["5S", "6S"])._replace(stacks=bad((("5S",), ())))),
     "stacks[0]"),
    ("seats and stacks disagree", lambda: check_position(pos(["5S", "6S"])._replace(
     setup=Setup(3, 0, Rules()))), "stacks"),
    ("played_by a bool", lambda: pos(["5S", "6S"], played="7C", played_by=[True]),
     "played_by[0]"),
    ("eliminated not a frozenset", lambda: check_position(pos(["5S", "6S"])._replace(
     eliminated=bad({1}))), "eliminated"),
]  # fmt: skip


@pytest.mark.parametrize(("build", "field"), [(b, f) for _, b, f in INVALID],
                         ids=[name for name, _, _ in INVALID])  # fmt: skip
def test_unreachable_positions_name_the_field_at_fault(
    build: Callable[[], object], field: str
) -> None:
    assert field_of(build) == field


def test_reachable_positions_pass() -> None:
    pos(["5S", "6S"])
    pos(["5S 5S", "5S"], rules=Rules(num_decks=3))
    pos(["5S", "6S"], played="KC 2D", played_by=[0, 1], current=1, challenge=(0, 2))
    pos(["", "6S"], played="KC", played_by=[0], current=1, challenge=(0, 3))  # last card royal
    pos(["5S", "6S"], played="KC 2D", played_by=[0, 1], current=None, owed_to=0)
    pos(["", ""], played="7C", burned="2D", current=None)  # a false slap emptied every stack
    pos(["", "", ""], played="KC", current=None, owed_to=1, rules=Rules(auto_collect=True))
    pos(["5S", "", "6S"], played="KC", played_by=[1], current=2, challenge=(1, 3),
        rules=Rules(slap_in=False))  # fmt: skip
    pos(["5S 6S", ""], allow_over=True)
    pos(["5S", ""], played="7C", eliminated=[1], allow_over=True)


def after(state: State, seat: int, command: ers.Command) -> State:
    for event in ers.decide(state, seat, command):
        state = ers.evolve(state, event)
    check_position(state)
    assert parse_position(format_position(state, REF), state.setup.rules) == normalised(state)
    return state


def test_the_engine_reaches_the_edge_positions_the_check_allows() -> None:
    # The current player pays its last card for a false slap and nobody else holds one.
    stuck = after(pos(["5S", ""], played="7C 8D", played_by=[1, 0], current=0), 0, SLAP)
    assert stuck.current is None and stuck.owed_to is None and not any(stuck.stacks)
    # A challenger at 0 cards false-slaps: out, and its challenge lapses
    # (docs/games/ratscrew.md#decisions).
    lapsed = pos(["", "6S", "7S"], played="JC", played_by=[0], current=1, challenge=(0, 1))
    lapsed = after(lapsed, 0, SLAP)
    assert lapsed.challenge is None and lapsed.current == 1 and lapsed.eliminated == {0}
    # Under auto_collect a pile stays owed only when nobody holds a card.
    owed = pos(["", "", ""], played="5C KD", played_by=[1, 0], current=None, owed_to=0,
               rules=Rules(auto_collect=True))  # fmt: skip
    owed = after(owed, 0, SLAP)
    assert owed.owed_to == 1 and owed.eliminated == {0}
    # Under slap_in=False the challenger at 0 cards stays in until its claim is settled.
    claim = pos(["KS", "9C 8C", "3D"], rules=Rules(slap_in=False))
    claim = after(claim, 0, PLAY)
    assert claim.challenge == (0, 3) and not claim.stacks[0] and not claim.eliminated


def test_position_and_parse_refuse_a_finished_game_unless_asked() -> None:
    text = "ratscrew 5S,6S/- - - - 3 0 - - -"
    assert field_of(lambda: parse_position(text)) == "stacks"
    assert parse_position(text, allow_over=True).stacks == (C("5S 6S"), ())
    assert field_of(lambda: GAME.parse_position(text, None)) == "stacks"  # type: ignore[misc]
    over = pos(["5S 6S", ""], allow_over=True)
    assert field_of(lambda: Match.from_position(GAME, over)) == "stacks"


# --------------------------------------------------------------------------- seats


@pytest.mark.parametrize("seat", [5, -1, True, False, 1.0, "0", None])
def test_bad_seats_raise_invalid_seat(seat: Any) -> None:
    state = pos(["5S 7S", "6S", "8S"], played="9C")
    with pytest.raises(InvalidSeat):
        ers.decide(state, seat, PLAY)
    with pytest.raises(InvalidSeat):
        ers.legal_commands(state, seat)
    with pytest.raises(InvalidSeat):
        ers.is_sensible(state, seat, SLAP)
    if not isinstance(seat, str) and seat is not None:
        with pytest.raises(InvalidSeat):
            ers.view(state, seat)
        with pytest.raises(InvalidSeat):
            format_position(state, seat)


def test_submit_and_decide_refuse_bad_seats() -> None:
    match = Match(GAME, GAME.make_setup(3, 1))
    with pytest.raises(InvalidSeat):
        match.submit(False, PLAY, 1)
    with pytest.raises(InvalidSeat):
        ers.decide(match.state, 5, PLAY)
    with pytest.raises(InvalidSeat):
        ers.redact(ers.deal(match.setup)[0], 3)
    with pytest.raises(InvalidSeat):
        ers.redact(ers.deal(match.setup)[0], True)
    assert match.submit(0, PLAY, 1)  # nothing was spoilt


# --------------------------------------------------------------------------- notation

MID = "ratscrew 9C,3D/4H,5H,6H KS,7D 0,1 2S 3 1 0,2 - -"
"""Mid-game: seat 0's king is answered by seat 1 (2 cards still owed), one burned card."""
LATE = "ratscrew [num_decks=2] 5S,5S/-/QD 8C,QH,2C,2C 2,0,2,2 7H,9S 12 - - 0 1"
LATE_BARE = "ratscrew 5S,5S/-/QD 8C,QH,2C,2C 2,0,2,2 7H,9S 12 - - 0 1"
"""LATE as a text written before the rules field (a log header's): read under given rules."""
"""Two decks: the pile is owed to seat 0 (seat 2 answered its queen with two number cards, a
double the others may still slap), seat 1 is eliminated, two burned cards."""
RESIGNED = "ratscrew -/4H,5H/-/7C,8C 9S 0 6D 0 1 - - 2 2"
"""Seat 2 resigned (docs/games/common.md#leaving-a-game): out, its one card burned under the pile;
seat 1 to play."""


def test_the_resigned_field_is_written_only_when_a_seat_resigned() -> None:
    state = parse_position(RESIGNED)
    assert state.resigned == {2} and state.eliminated == {2} and state.burned == C("6D")
    assert format_position(state, REF) == RESIGNED
    assert format_position(state, 1) == "ratscrew -/??,??/-/??,?? 9S 0 ?? 0 1 - - 2 2"
    assert format_position(state._replace(resigned=frozenset()), REF) == RESIGNED[:-2]
    # The game a resignation ended (two left): a finished position, the resigner still in.
    over = "ratscrew 5S/6S,7S 9C 1 - 0 0 - - - 1"
    assert field_of(lambda: parse_position(over)) == "resigned"
    assert parse_position(over, allow_over=True).resigned == {1}
    assert format_position(parse_position(over, allow_over=True), REF) == over


def test_worked_examples_round_trip() -> None:
    deal = Match(GAME, GAME.make_setup(2, 1)).state
    text = format_position(deal, REF)
    assert text.startswith("ratscrew ") and text.endswith(" - - 0 0 - - -")
    assert parse_position(text) == normalised(deal)
    mid = MID
    state = parse_position(mid)
    assert state.played == C("KS 7D") and state.challenge == (0, 2) and state.burned == C("2S")
    assert format_position(state, REF) == mid
    assert format_position(state, 0) == "ratscrew ??,??/??,??,?? KS,7D 0,1 ?? 3 1 0,2 - -"
    rules = Rules(num_decks=2)
    state = parse_position(LATE)  # the text carries its rules
    assert state.setup.rules == rules and parse_position(LATE, rules) == state
    assert state.owed_to == 0 and state.eliminated == {1} and state.stacks[0] == C("5S 5S")
    assert format_position(state, REF) == LATE
    assert parse_position(LATE_BARE, rules) == state  # an old text, under the log's rules
    assert field_of(lambda: parse_position(LATE_BARE)) == "stacks[0]"  # one deck: 5S twice
    assert field_of(lambda: parse_position(LATE, Rules())) == "rules"  # never other rules


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("", "notation"),
        ("slapjack 5S/6S - - - 0 0 - - -", "notation"),
        ("ratscrew 5S/6S - - - 0 0 - -", "notation"),
        ("ratscrew 5S/6S - - - 0 0 - - - -", "notation"),
        ("ratscrew 5S/6S  - - 0 0 - - -", "played"),
        ("ratscrew 5S - - - 0 0 - - -", "stacks"),
        ("ratscrew 5S/6S/7S/8S/9S/10S/JS/QS/KS - - - 0 0 - - -", "stacks"),
        ("ratscrew 5S,/6S - - - 0 0 - - -", "stacks[0]"),
        ("ratscrew 5S/?? - - - 0 0 - - -", "stacks[1]"),
        ("ratscrew 5S/6S XX - - 0 0 - - -", "played"),
        ("ratscrew 5S/6S 7C 2 - 0 0 - - -", "played_by"),
        ("ratscrew 5S/6S 7C - - 0 0 - - -", "played_by"),
        ("ratscrew 5S/6S 7C 1 8C, 0 0 - - -", "burned"),
        ("ratscrew 5S/6S - - - x 0 - - -", "epoch"),
        ("ratscrew 5S/6S - - - -1 0 - - -", "epoch"),
        ("ratscrew 5S/6S - - - 0 2 - - -", "current"),
        ("ratscrew 5S/6S - - - 0 Play - - -", "current"),
        ("ratscrew 5S/6S KC 0 - 0 1 0 - -", "challenge"),
        ("ratscrew 5S/6S KC 0 - 0 1 0,0 - -", "challenge"),
        ("ratscrew 5S/6S KC 0 - 0 1 0,3,1 - -", "challenge"),
        ("ratscrew 5S/6S KC 0 - 0 - - 2 -", "owed_to"),
        ("ratscrew 5S/6S - - - 0 0 - - 1,1", "eliminated"),
        ("ratscrew 5S/6S - - - 0 0 - - 2", "eliminated"),
        ("ratscrew 5S/6S - - - 0 0 - - - 1 -", "notation"),
        ("ratscrew 5S/-/6S 9C 0 - 0 2 - - - 1", "resigned"),
        ("ratscrew 5S/6S 9C 0 - 0 1 - - - 1", "resigned"),
        ("ratscrew 5S/6S - - - 0 0 - - - 2", "resigned"),
        ("ratscrew 5S/-/6S 9C 0 - 0 2 - - 1 1,1", "resigned"),
        ("ratscrew 5S/-/6S 9C 0 - 0 2 - - 1 x", "resigned"),
    ],
)
def test_bad_notation_names_the_field(text: str, field: str) -> None:
    assert field_of(lambda: parse_position(text)) == field


# --------------------------------------------------------------------------- random playouts

VARIANTS = st.builds(
    Rules,
    slap_rules=st.frozensets(st.sampled_from(ers.SLAP_RULE_ORDER[:-1])),
    false_slap_penalty=st.integers(0, 3),
    false_slap_destination=st.sampled_from(["pile_bottom", "to_player_of_top_card"]),
    late_slap=st.sampled_from(["penalize", "reject"]),
    slap_in=st.booleans(),
    zero_card_false_slap=st.sampled_from(["eliminate", "ignore"]),
    challenge_exhausted=st.sampled_from(["challenger_wins", "pass_to_next"]),
    auto_collect=st.booleans(),
    num_decks=st.integers(1, 2),
    challenge_counts=st.sampled_from(
        [{"J": 1, "Q": 2, "K": 3, "A": 4}, {"K": 1}, {"J": 2, "7": 1, "A": 3}, {}]
    ),
)


def small_start(seats: int, rules: Rules, seed: int, per_seat: int) -> State:
    """A hand-written start: ``per_seat`` cards each from a shuffled deck (games end soon)."""
    cards = shuffled(seed, 0, ers.deck(Setup(seats, seed, rules)))
    return position([cards[i * per_seat : (i + 1) * per_seat] for i in range(seats)], rules=rules)


def playout(state: State, seed: int, steps: int) -> Iterator[State]:
    """The states after each action of a random game: sensible commands most of the time."""
    rng = Rng(seed, 1)
    n = state.setup.seats
    for _ in range(steps):
        yield state
        if ers.outcome(state) is not None:
            return
        options = [(s, c) for s in range(n) for c in ers.legal_commands(state, s)]
        sensible = [o for o in options if ers.is_sensible(state, *o)]
        pool = sensible if sensible and rng.below(4) else options
        seat, command = pool[rng.below(len(pool))]
        for e in ers.decide(state, seat, command):
            state = ers.evolve(state, e)
    yield state


def check_notation(state: State) -> None:
    check_position(state, allow_over=True)  # the engine keeps every guarantee of the check
    text = format_position(state, REF)
    back = parse_position(text, state.setup.rules, allow_over=True)
    assert back == normalised(state)
    assert format_position(back, REF) == text
    fields = without_rules(text).split(" ")
    for viewer in (*range(state.setup.seats), Role.SPECTATOR):
        seen = ers.view(state, viewer)
        burned = seen.pile[: len(seen.pile) - seen.played_count]
        expected = list(fields)
        expected[1] = nt.per_seat_text(seen.stacks, nt.cards_text)
        expected[4] = nt.cards_text(burned)
        shown = format_position(state, viewer)
        assert without_rules(shown).split(" ") == expected
        assert rules_field(shown) == rules_field(text) == nt.rules_text(state.setup.rules)
        if state.stacks[0] or state.burned:
            assert "??" in format_position(state, viewer)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seats=st.integers(2, 8),
    rules=VARIANTS,
    seed=st.integers(0, 2**32),
    jokers=st.integers(0, 2),
)
def test_round_trip_along_random_dealt_games(
    seats: int, rules: Rules, seed: int, jokers: int
) -> None:
    if jokers:
        slap_rules = rules.slap_rules | {bad("joker")} if seed % 2 else rules.slap_rules
        rules = dataclasses.replace(rules, jokers=jokers, slap_rules=slap_rules)
    match = Match(GAME, Setup(seats, seed, rules), record=False)
    for i, state in enumerate(playout(match.state, seed, 400)):
        if i % 7 == 0 or ers.outcome(state) is not None:
            check_notation(state)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seats=st.integers(2, 5),
    rules=VARIANTS,
    seed=st.integers(0, 2**32),
    per_seat=st.integers(1, 4),
)
def test_round_trip_along_small_games_to_the_end(
    seats: int, rules: Rules, seed: int, per_seat: int
) -> None:
    for state in playout(small_start(seats, rules, seed, per_seat), seed, 3000):
        check_notation(state)


JUNK_ALPHABET = "ratscrew 0123456789,/-?AJQKSHDC\t\n"


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=JUNK_ALPHABET, max_size=60) | st.text(max_size=40))
def test_junk_parses_or_raises_invalid_position(text: str) -> None:
    _parse_or_invalid(text)
    _parse_or_invalid("ratscrew " + text)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_mutated_texts_parse_or_raise_invalid_position(data: st.DataObject) -> None:
    text = data.draw(st.sampled_from([MID, LATE, RESIGNED, "ratscrew 5S/6S - - - 0 0 - - -"]))
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(text)))
        how = data.draw(st.sampled_from(["cut", "drop", "insert", "replace"]))
        char = data.draw(st.sampled_from(JUNK_ALPHABET))
        if how == "cut":
            text = text[:i]
        elif how == "drop":
            text = text[:i] + text[i + 1 :]
        elif how == "insert":
            text = text[:i] + char + text[i:]
        else:
            text = text[:i] + char + text[i + 1 :]
    _parse_or_invalid(text)
    _parse_or_invalid(text, Rules(num_decks=2, slap_in=False))


def _parse_or_invalid(text: str, rules: Rules | None = None) -> None:
    try:
        state = parse_position(text, rules)
    except InvalidPosition:
        return
    again = format_position(state, REF)
    assert parse_position(again, rules) == state


# --------------------------------------------------------------------------- from a position


def random_chooser(match: Match[Any, Any, Any, Any, Any], seed: int, limit: int) -> None:
    rng = Rng(seed, 2)
    n = match.setup.seats
    now = match.last_at_ms
    while match.outcome is None and limit:
        limit -= 1
        options = [(s, c) for s in range(n) for c in match.legal_commands(s)]
        sensible = [o for o in options if GAME.is_sensible(match.state, *o)]
        pool = sensible or options
        seat, command = pool[rng.below(len(pool))]
        now += 1
        match.submit(seat, command, now)


def start() -> State:
    """Mid-game: seat 0's king is being answered by seat 1; seat 2 has a burned card's worth."""
    return pos(
        ["9C 3D 7H 7S", "4H 5H 6H QS 2C", "8D 10C JD"],
        played="KS 4D",
        played_by=[0, 1],
        burned="2S",
        current=1,
        challenge=(0, 2),
        epoch=3,
    )


def test_match_from_position_plays_on_to_the_end_and_verifies() -> None:
    match = Match.from_position(GAME, start(), seed=9)
    assert match.writer is not None
    header = match.writer.lines[0]
    assert header["position"] == format_position(start(), REF)
    match.submit(1, PLAY, 1)  # 4H: one more owed
    match.submit(1, PLAY, 2)  # 5H: the challenge is lost
    assert match.state.owed_to == 0
    match.submit(2, SLAP, 3)  # a false slap: 8D burned under the pile
    match.submit(0, COLLECT, 4)
    assert match.state.stacks[0] == C("9C 3D 7H 7S 8D 2S KS 4D 4H 5H")
    random_chooser(match, 5, 20_000)
    assert match.outcome is not None
    report = log.verify(match.writer.lines)
    assert report is not None
    *_, last = log.replay(match.writer.lines)
    assert last.state == match.state


def test_redacted_log_hides_the_header_positions_cards() -> None:
    match = Match.from_position(GAME, start(), seed=9)
    match.submit(1, PLAY, 1)
    assert match.writer is not None
    for viewer in (0, 1, Role.SPECTATOR):
        red = log.redact_log(match.writer.lines, viewer)
        text = red[0]["position"]
        assert text == format_position(start(), viewer)
        assert text == "ratscrew ??,??,??,??/??,??,??,??,??/??,??,?? KS,4D 0,1 ?? 3 1 0,2 - -"
    ref = log.redact_log(match.writer.lines, REF)
    assert ref[0]["position"] == format_position(start(), REF)
    assert "??" not in ref[0]["position"]


def test_hidden_notation_does_not_parse() -> None:
    hidden = format_position(start(), 0)
    assert field_of(lambda: parse_position(hidden)) == "stacks[0]"


def _viewers(state: State) -> list[Viewer]:
    return [*range(state.setup.seats), Role.SPECTATOR, REF]


def test_view_hides_exactly_what_the_notation_hides() -> None:
    state = start()
    for viewer in _viewers(state):
        seen = ers.view(state, viewer)
        text = format_position(state, viewer)
        hidden_cards = sum(c is HIDDEN for s in seen.stacks for c in s)
        hidden_cards += sum(c is HIDDEN for c in seen.pile)
        assert text.count("??") == hidden_cards


def test_the_documented_examples_parse_and_format_back() -> None:
    doc = (Path(__file__).parents[2] / "docs" / "notation" / "ratscrew.md").read_text()
    texts = [t for t in doc.splitlines() if t.startswith("ratscrew ") and "<" not in t]
    assert len(texts) >= 4
    for text in texts:
        if "??" in text:
            assert field_of(partial(parse_position, text)) == "stacks[0]"
            continue
        assert format_position(parse_position(text), REF) == text
    assert MID in texts and LATE in texts and RESIGNED in texts
