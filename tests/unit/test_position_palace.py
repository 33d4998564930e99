"""Palace positions: the position check, the notation (docs/notation/palace.md), starting a match
from a hand-written position, and seats that are not seats.

Every invalid example names the field at fault; the notation round-trips for states reached by
random playouts under many variants; junk text never raises anything but ``InvalidPosition``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardcore import log, notation
from cardcore.cards import Card, parse_cards
from cardcore.engine import Role, Setup
from cardcore.errors import InvalidPosition, InvalidSeat, InvalidSetup
from cardcore.games import palace as pal
from cardcore.games.palace import (
    READY,
    CardsDrawn,
    Dealt,
    Play,
    Rules,
    State,
    position,
)
from cardcore.match import Match
from cardcore.rng import Rng

GAME = pal.GAME
C = parse_cards


def without_rules(text: str) -> str:
    """The text without its rules field (docs/notation.md#the-rules-field)."""
    return notation.read_rules(text, "palace", Rules, None)[0]


def rows(*texts: str) -> list[tuple[Card, ...]]:
    return [C(t) for t in texts]


def base(**kw: Any) -> State:
    """A mid-game three-seat position every invalid example changes one thing of."""
    args: dict[str, Any] = {
        "hands": rows("4C 9D AS", "5C 6C AC", "8C 9C JC"),
        "up": rows("KD KH KS", "QD QH QS", "JD JH JS"),
        "down": rows("3D 3H 3S", "4D 4H 4S", "5D 5H 5S"),
        "stock": C("6D 6H"),
        "pile": C("7D 8D"),
        "current": 1,
    }
    args.update(kw)
    return position(**args)


def late(**kw: Any) -> State:
    """A three-seat position after the stock ran out and seat 0 went out."""
    args: dict[str, Any] = {
        "hands": rows("", "5C 6C", "8C"),
        "up": rows("", "QD", ""),
        "down": rows("", "4D 4H", "5D"),
        "pile": C("7D 8D"),
        "burned": C("10S 4C"),
        "current": 1,
        "finished": (0,),
    }
    args.update(kw)
    return position(**args)


def state_replace(make: Callable[[], State], **kw: Any) -> Callable[[], None]:
    """A position built, then changed behind ``position``'s back, then checked."""
    return lambda: pal.check_position(make()._replace(**kw))


INVALID: list[tuple[str, Callable[[], object], str]] = [
    ("duplicate card, one deck", lambda: base(pile=C("7D 8D 9D 9D")), "pile"),
    ("duplicate across zones", lambda: base(stock=C("4C 6H")), "stock"),
    ("a joker without jokers", lambda: base(pile=C("7D JK")), "pile"),
    ("a finished seat holds cards", lambda: late(up=rows("KS", "QD", "")), "up[0]"),
    ("a finished seat holds a hand", lambda: late(hands=rows("KS", "5C 6C", "8C")), "hands[0]"),
    ("current at a finished seat", lambda: late(current=0), "current"),
    ("current out of range", lambda: base(current=3), "current"),
    ("current is a bool", lambda: base(current=True), "current"),
    ("current None mid-game", lambda: base(current=None), "current"),
    ("already over", lambda: late(finished=(0, 2), hands=rows("", "5C 6C", "")), "finished"),
    ("every seat finished", lambda: late(finished=(0, 1, 2)), "finished"),
    ("a seat finished twice", lambda: late(finished=(0, 0)), "finished"),
    ("finished out of range", lambda: late(finished=(5,)), "finished"),
    ("phase typo", state_replace(base, phase="Play"), "phase"),
    ("more face-up cards than an area", lambda: base(up=rows("KD KH KS KC", "QD", "JD")), "up[0]"),
    ("more face-down than an area", lambda: base(down=rows("3D 3H 3S 3C", "4D", "5D")), "down[0]"),
    (
        "an unfinished seat without cards",
        lambda: late(hands=rows("", "5C 6C", ""), down=rows("", "4D", "")),
        "hands[2]",
    ),
    ("an empty hand beside a stock", lambda: base(hands=rows("4C 9D AS", "", "8C")), "hands[1]"),
    ("a seat out while the stock lasts", lambda: late(stock=C("6D")), "stock"),
    ("a 10 stays on the pile", lambda: base(pile=C("7D 10D 8D")), "pile"),
    ("a card that does not fit", lambda: base(pile=C("8D 7D")), "pile"),
    ("four of a rank on top", lambda: base(pile=C("7S 7H 7C 7D")), "pile"),
    ("a follow-up on a plain card", lambda: base(follow_up=True), "follow_up"),
    ("window at the current seat", lambda: base(window=(1, 8, 0)), "window"),
    ("window rank not on top", lambda: base(window=(0, 9, 0)), "window"),
    ("window of a finished seat", lambda: late(current=2, window=(0, 8, 0)), "window"),
    (
        "window with a follow-up",
        lambda: base(pile=C("2D"), follow_up=True, window=(0, 2, 0)),
        "window",
    ),
    ("window drawing more than the hand", lambda: base(window=(0, 8, 4)), "window"),
    (
        "window with the flag off",
        lambda: base(window=(0, 8, 0), rules=Rules(add_drawn_same_rank=False)),
        "window",
    ),
    ("window not a triple", state_replace(base, window=(0, 8)), "window"),
    ("opening after plays", lambda: base(opening=True), "opening"),
    ("reversed without jokers", lambda: base(direction=-1), "direction"),
    ("direction 2", lambda: base(direction=2, rules=Rules(jokers=1)), "direction"),
    ("play phase, not everybody ready", lambda: base(ready=(0, 1)), "ready"),
    ("ready out of range", lambda: base(ready=(0, 1, 2, 3)), "ready"),
    ("revealed card nowhere to be seen", lambda: base(revealed=Card.parse("2H")), "revealed"),
    ("revealed not a card", state_replace(base, revealed="2H"), "revealed"),
    ("follow_up not a bool", state_replace(base, follow_up=1), "follow_up"),
    ("rows of different seat counts", state_replace(base, up=rows("KD", "QD")), "up"),
    ("a row that is a list", state_replace(base, stock=[Card.parse("6D")]), "stock"),
    ("one seat", lambda: position([C("4C")], [C("KD")], [C("QD")]), "setup"),
    (
        "setup phase, short areas",
        lambda: position(rows("4C", "5C"), rows("KD", "KH"), rows("QD", "QH"), phase="setup"),
        "hands[0]",
    ),
    (
        "setup phase with a pile",
        lambda: base(phase="setup", pile=C("7D"), stock=()),
        "pile",
    ),
    (
        "setup phase, everybody ready",
        lambda: base(phase="setup", pile=(), ready=(0, 1, 2)),
        "ready",
    ),
    (
        "setup phase with a turn",
        state_replace(lambda: base(phase="setup", pile=()), current=0),
        "current",
    ),
]


@pytest.mark.parametrize(("what", "build", "field"), INVALID, ids=[w for w, _, _ in INVALID])
def test_invalid_positions_name_the_field_at_fault(
    what: str, build: Callable[[], object], field: str
) -> None:
    with pytest.raises(InvalidPosition) as info:
        build()
    assert info.value.field == field, (what, info.value)


def test_valid_hand_written_positions_pass() -> None:
    base()
    late()
    base(window=(0, 8, 1))
    base(pile=C("2D"), follow_up=True)
    base(pile=(), follow_up=True)
    base(pile=C("7D JK 3C"), rules=Rules(jokers=1, three_invisible=True), direction=-1)
    base(pile=C("7D 7H 7C 7S"), rules=Rules(four_of_a_kind_burn="off"))
    base(pile=C("7D 8D"), revealed=Card.parse("8D"))
    base(pile=(), burned=(), opening=True)
    base(phase="setup", pile=(), ready=(2,))
    position(
        rows("", "5C"), rows("", ""), rows("", ""), finished=(0,), current=None, allow_over=True
    )


def test_a_game_already_over_only_with_allow_over() -> None:
    over: dict[str, Any] = {"hands": rows("", "5C"), "up": rows("", ""), "down": rows("", "")}
    over["finished"] = (0,)
    with pytest.raises(InvalidPosition) as info:
        position(**over, current=None)
    assert info.value.field == "finished"
    s = position(**over, current=None, allow_over=True)
    assert GAME.outcome(s) is not None
    with pytest.raises(InvalidPosition) as info:
        position(**over, current=1, allow_over=True)  # nobody plays once it is over
    assert info.value.field == "current"


def test_two_decks_hold_each_card_twice() -> None:
    r = Rules(num_decks=2)
    base(pile=C("7D 8D 9H 9H"), rules=r)
    with pytest.raises(InvalidPosition) as info:
        base(pile=C("7D 8D 9H 9H 9H"), rules=r)
    assert info.value.field == "pile"


# --------------------------------------------------------------------------- from a position


def hand_written() -> State:
    return position(
        rows("4C 9D", "5C 6C 7C", "8C 9C"),
        rows("KD KH", "QD QH QS", "JD"),
        rows("3D 3H 3S", "4D 4H", "5D 5H 5S"),
        pile=C("6S 7S"),
        burned=C("10H 2S"),
        current=0,
    )


def play_out(match: Match[Any, Any, Any, Any, Any], seed: int, limit: int = 5000) -> int:
    """A random chooser (sensible commands when there are some) to the end; the steps taken."""
    rng = Rng(seed, 1)
    n = match.setup.seats
    steps = 0
    while match.outcome is None and steps < limit:
        opts = [(q, c) for q in range(n) for c in GAME.legal_commands(match.state, q)]
        sensible = [o for o in opts if GAME.is_sensible(match.state, o[0], o[1])]
        pool = sensible or opts
        q, c = pool[rng.below(len(pool))]
        steps += 1
        match.submit(q, c, match.last_at_ms + 1)
    return steps


def test_a_match_from_a_position_plays_on_verifies_and_replays() -> None:
    s = hand_written()
    match = Match.from_position(GAME, s, seed=4)
    assert match.state == s._replace(setup=match.setup)
    match.submit(0, Play(C("9D")), 1)  # 9 on a 7
    assert match.state.current == 1
    assert GAME.legal_commands(match.state, 1) == [pal.PICKUP]  # 5, 6, 7 do not beat a 9
    match.submit(1, pal.PICKUP, 2)
    assert match.state.current == 2 and match.state.pile == ()
    play_out(match, 7)
    assert match.outcome is not None
    assert match.writer is not None
    lines = match.writer.lines
    header = lines[0]
    assert header["position"] == pal.format_position(s._replace(setup=match.setup), Role.REFEREE)
    report = log.verify(lines)
    assert report.outcome == match.outcome
    final = list(log.replay(lines))[-1].state
    assert final == match.state._replace(setup=final.setup)


def test_redact_log_hides_the_other_seats_hidden_cards_in_the_header_position() -> None:
    s = hand_written()
    match = Match.from_position(GAME, s, seed=4)
    match.submit(0, Play(C("9D")), 1)
    assert match.writer is not None
    for seat in range(3):
        header = log.redact_log(match.writer.lines, seat)[0]
        text = header["position"]
        assert text == pal.format_position(s._replace(setup=match.setup), seat)
        fields = without_rules(text).split(" ")
        hands = fields[2].split("/")
        for q, h in enumerate(hands):
            if q == seat:
                assert h == notation.cards_text(s.hands[q])
            else:
                assert set(h.split(",")) == {"??"} and len(h.split(",")) == len(s.hands[q])
        assert set(fields[4].replace("/", ",").split(",")) == {"??"}  # face-down: nobody sees
        assert fields[3] == "KD,KH/QD,QH,QS/JD"  # face-up: public


def test_notation_examples_of_the_doc_parse_and_format_back() -> None:
    with open("docs/notation/palace.md", encoding="utf-8") as f:
        doc = f.read()
    examples = [line.strip("` ") for line in doc.splitlines() if line.startswith("palace ")]
    assert len(examples) >= 3
    for text in examples:
        s = pal.parse_position(text, None)  # an example under other rules says so in its text
        assert pal.format_position(s, Role.REFEREE) == text
    variant = next(t for t in examples if "JK" in t)
    rules = Rules(jokers=1, num_decks=2)
    assert variant.startswith("palace [jokers=1,num_decks=2] play ")
    assert pal.parse_position(variant, None).setup.rules == rules
    # Written before the rules field (a log header's text), it reads alike under the log's rules.
    bare = variant.replace(" [jokers=1,num_decks=2]", "")
    assert pal.parse_position(bare, rules) == pal.parse_position(variant, rules)


# --------------------------------------------------------------------------- seats


def test_seats_that_are_not_seats_are_invalid_seat() -> None:
    s = hand_written()
    match = Match.from_position(GAME, s)
    with pytest.raises(InvalidSeat):
        match.submit(False, Play(C("9D")), 1)
    for bad in (True, 5, -1, 1.0, "0", None):
        with pytest.raises(InvalidSeat):
            pal.decide(s, bad, Play(C("9D")))  # type: ignore[arg-type]
        with pytest.raises(InvalidSeat):
            pal.legal_commands(s, bad)  # type: ignore[arg-type]
        with pytest.raises(InvalidSeat):
            pal.is_sensible(s, bad, Play(C("9D")))  # type: ignore[arg-type]
    for viewer in (True, 3, -1):
        with pytest.raises(InvalidSeat):
            pal.view(s, viewer)
        with pytest.raises(InvalidSeat):
            pal.format_position(s, viewer)
    dealt = GAME.deal(GAME.make_setup(2, 1))[0]
    assert isinstance(dealt, Dealt)
    for viewer in (True, 2, -1):
        with pytest.raises(InvalidSeat):
            pal.redact(dealt, viewer)
    with pytest.raises(InvalidSeat):
        pal.redact(CardsDrawn(1, C("4C")), True)  # True == 1, but it is not seat 1
    assert pal.redact(CardsDrawn(1, C("4C")), 1) == CardsDrawn(1, C("4C"))


# --------------------------------------------------------------------------- round trips

VARIANTS: list[dict[str, Any]] = [
    {},
    {"jokers": 2, "three_invisible": True},
    {"eight_skip": True, "seven_lower": True, "nine_lower": True},
    {"finish_on_special": False, "combine_hand_and_up": True},
    {"starter_must_play_lowest": True, "starter_rule": "first_face_up_three"},
    {"four_of_a_kind_burn": "single_play", "ten_follow_up": False, "two_follow_up": False},
    {"four_of_a_kind_burn": "off", "voluntary_pickup": True, "add_drawn_same_rank": False},
    {"cards_per_area": 2, "num_decks": 2, "jokers": 1},
    {"cards_per_area": 10, "num_decks": 2},
]


def states_of(seed: int, seats: int, variant: int, steps: int) -> list[State]:
    """The states of one random playout (every ``k``-th kept, to bound the cost)."""
    flags = VARIANTS[variant]
    try:
        setup = GAME.make_setup(seats, seed, flags)
    except InvalidSetup:
        setup = GAME.make_setup(2, seed, flags)
    match = Match(GAME, setup, record=False)
    rng = Rng(seed, 3)
    out = [match.state]
    n = setup.seats
    for i in range(steps):
        if match.outcome is not None:
            break
        opts = [(q, c) for q in range(n) for c in GAME.legal_commands(match.state, q)]
        if not opts:
            break
        sensible = [o for o in opts if GAME.is_sensible(match.state, o[0], o[1])]
        pool = sensible if sensible and rng.below(4) else opts
        q, c = pool[rng.below(len(pool))]
        match.submit(q, c, i)
        if i % 7 == 0 or match.outcome is not None:
            out.append(match.state)
    return out


def normalised(s: State) -> State:
    return s._replace(setup=Setup(s.setup.seats, 0, s.setup.rules))


def check_round_trip(s: State) -> None:
    text = pal.format_position(s, Role.REFEREE)
    assert "\n" not in text and text.isascii()
    back = pal.parse_position(text, s.setup.rules)
    assert back == normalised(s)
    assert pal.format_position(back, Role.REFEREE) == text
    n = s.setup.seats
    fields = without_rules(text).split(" ")
    for viewer in (*range(n), Role.SPECTATOR):
        seen = pal.format_position(s, viewer)
        assert notation.read_rules(seen, "palace", Rules, None)[1] == s.setup.rules
        shown = without_rules(seen).split(" ")
        v = pal.view(s, viewer)
        assert shown[2] == notation.per_seat_text(v.hands, notation.cards_text)
        assert shown[4] == notation.per_seat_text(v.down, notation.cards_text)
        assert shown[5] == notation.cards_text(v.stock)
        assert shown[3] == fields[3] and shown[6:] == fields[6:]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    seats=st.integers(2, 6),
    variant=st.integers(0, len(VARIANTS) - 1),
    steps=st.integers(0, 300),
)
def test_notation_round_trips_for_reached_states(
    seed: int, seats: int, variant: int, steps: int
) -> None:
    for s in states_of(seed, seats, variant, steps):
        pal.check_position(s, allow_over=True)
        check_round_trip(s)


def test_notation_round_trips_for_hand_written_positions() -> None:
    for s in (
        hand_written(),
        base(),
        late(),
        base(window=(0, 8, 1), revealed=Card.parse("8D")),
        base(pile=C("7D JK"), rules=Rules(jokers=1), direction=-1),
        base(phase="setup", pile=(), ready=(0, 2)),
        position(
            rows("", "5C"), rows("", ""), rows("", ""), finished=(0,), current=None, allow_over=True
        ),
    ):
        check_round_trip(s)


_TEXTS = [
    pal.format_position(s, Role.REFEREE)
    for s in (*states_of(3, 3, 0, 120), *states_of(5, 2, 1, 80)[:5])
]


def parse_or_invalid(text: str, rules: Rules | None = None) -> None:
    try:
        s = pal.parse_position(text, rules)
    except InvalidPosition:
        return
    pal.check_position(s, allow_over=True)
    assert pal.parse_position(pal.format_position(s, Role.REFEREE), rules) == s


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=120))
def test_junk_text_is_invalid_position(text: str) -> None:
    parse_or_invalid(text)
    parse_or_invalid("palace " + text)


_ALPHABET = "0123456789-/,?: ASHDCKQJKcwpaylsetup"


@settings(max_examples=300, deadline=None)
@given(
    which=st.integers(0, len(_TEXTS) - 1),
    cut=st.integers(0, 10_000),
    edits=st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(_ALPHABET)), max_size=4),
    jokers=st.booleans(),
)
def test_mutated_texts_parse_or_are_invalid_position(
    which: int, cut: int, edits: list[tuple[int, str]], jokers: bool
) -> None:
    text = _TEXTS[which]
    end = len(text) - cut % (len(text) + 1) if cut % 2 else len(text)  # odd: truncated
    chars = list(text[:end])
    for i, ch in edits:
        if chars:
            chars[i % len(chars)] = ch
    parse_or_invalid("".join(chars), Rules(jokers=2) if jokers else None)


def test_notation_errors_name_the_part_at_fault() -> None:
    text = pal.format_position(base(), Role.REFEREE)
    fields = text.split(" ")

    def field_of(bad: str, rules: Rules | None = None) -> str:
        with pytest.raises(InvalidPosition) as info:
            pal.parse_position(bad, rules)
        return info.value.field

    assert field_of("speed " + " ".join(fields[1:])) == "notation"
    assert field_of(" ".join(fields[:-1])) == "notation"
    assert field_of(text.replace(fields[1], "Play", 1)) == "phase"
    assert field_of(pal.format_position(base(), 0)) == "hands[1]"  # ?? does not parse
    assert field_of(" ".join([*fields[:6], "7D,XX", *fields[7:]])) == "pile"
    assert field_of(" ".join([*fields[:8], "3", *fields[9:]])) == "current"
    assert field_of(" ".join([*fields[:10], "left", *fields[11:]])) == "direction"
    assert field_of(" ".join([*fields[:13], "0,Z,0", *fields[14:]])) == "window"
    assert field_of(" ".join([*fields[:3], "KD/QD", *fields[4:]])) == "up"
    assert field_of("palace " + " ".join(["play", "4C", *fields[3:]])) == "hands"  # one seat
    assert field_of(text, 5) == "rules"  # type: ignore[arg-type]


def test_cards_per_area_beyond_eight_deals_when_it_fits() -> None:
    setup = GAME.make_setup(3, 1, {"cards_per_area": 10, "num_decks": 2})
    s = Match(GAME, setup).state
    assert [len(h) for h in s.hands] == [10] * 3 and len(s.stock) == 104 - 90
    with pytest.raises(InvalidSetup) as info:
        GAME.make_setup(3, 1, {"cards_per_area": 10})
    assert info.value.field == "rules.cards_per_area"
    assert Rules(cards_per_area=17).cards_per_area == 17  # no upper bound but the decks'
    match = Match(GAME, setup)
    for q in range(3):
        match.submit(q, READY, 0)
    assert match.state.phase == "play"
