"""Spit positions (issue 10): the position check, seats at the entry points, the notation
(docs/notation/spit.md) and matches that start from a hand-written position."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardcore import log, notation
from cardcore.cards import HIDDEN, Card, parse_cards, standard_deck
from cardcore.engine import DEFAULT_EVENT_LIMIT, Role, Setup, Viewer
from cardcore.errors import InvalidPosition, InvalidSeat
from cardcore.games.spit import (
    GAME,
    CardPlayed,
    Flip,
    Move,
    Play,
    Rules,
    State,
    check_position,
    decide,
    format_position,
    is_sensible,
    lay_out,
    legal_commands,
    outcome,
    parse_position,
    position,
    redact,
    view,
)
from cardcore.match import Match
from cardcore.rng import Rng


def cs(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def c(text: str) -> Card:
    return Card.parse(text)


def table(p0: tuple[str, ...], p1: tuple[str, ...], **kw: Any) -> State:
    """Layouts as one string per stock pile (bottom→top, "" an empty space)."""
    kw.setdefault("spit_piles", (cs("8H"), cs("KC")))
    kw.setdefault("spit_cards", (cs("7C 9H"), cs("QD AS")))
    return position([[cs(p) for p in p0], [cs(p) for p in p1]], **kw)


# Spit piles 8♥ and K♣ take 7, 9, Q and A; neither layout shows one: stuck.
STUCK_P0 = ("2S", "3H 4C", "5D 5S 6H", "10C 10D 2H 3S", "JH JC 4D 5C 6S")
STUCK_P1 = ("2D", "3D 4H", "5H 8C 6C", "10S 10H 2C 3C", "JS JD 4S 8S 6D")
PLAYING = ("7S", "3H 4C", "", "10C 10D 2H")


def mid_game(**kw: Any) -> State:
    """A hand-written position in play: seat 0 can play 7♠, has a space and a short pile."""
    return table(PLAYING, STUCK_P1, **kw)


def ready(**kw: Any) -> State:
    kw.setdefault("spit_piles", ((), ()))
    return table(STUCK_P0, STUCK_P1, phase="READY", **kw)


def slap(**kw: Any) -> State:
    """Seat 0 emptied its layout: slap for the two spit piles."""
    kw.setdefault("spit_piles", (cs("8H 7S 6D"), cs("KC")))
    kw.setdefault("phase", "SLAP")
    return table(("",), ("2D", "3D 4C"), **kw)


def won(**kw: Any) -> State:
    """Seat 0's new packet was empty: over; seat 1's packet stays face down in spit_cards."""
    kw.setdefault("spit_cards", ((), cs("9C 8H 7S 4C 5C 2D 3D")))
    kw.setdefault("winner", 0)
    return position([[], []], phase="OVER", round=2, allow_over=True, **kw)


# --------------------------------------------------------------------------- the check

STACK = Rules(stack_equal_in_layout=True)
INVALID: list[tuple[str, Callable[[], object], str]] = [
    ("duplicate card, one deck", lambda: table(("2D",), STUCK_P1), "layouts[1][0]"),
    ("duplicate across zones", lambda: mid_game(spit_cards=(cs("7C 2D"), ())), "spit_cards[0]"),
    ("card of no deck", lambda: mid_game(spit_piles=(cs("8H JK"), cs("KC"))), "spit_piles[0]"),
    ("phase typo", lambda: mid_game(phase="Play"), "phase"),
    ("game already over", lambda: position([[], []], phase="OVER", winner=0), "winner"),
    ("finished seat holds cards", lambda: won(spit_cards=(cs("2S"), cs("3S"))), "spit_cards[0]"),
    ("seat 0 would have won first", lambda: won(winner=1, spit_cards=((), ())), "winner"),
    ("winner while playing", lambda: mid_game(winner=0), "winner"),
    ("OVER without winner", lambda: position([[], []], phase="OVER"), "winner"),
    (
        "over with cards laid out",
        lambda: won(spit_cards=((), cs("QH")))._replace(
            layouts=mid_game().layouts, up=mid_game().up
        ),
        "layouts[0]",
    ),
    ("face-up count > pile", lambda: mid_game(up=[(2, 1, 0, 1)]), "up[0][0]"),
    ("negative face-up count", lambda: mid_game(up=[(1, -1, 0, 1)]), "up[0][1]"),
    ("face-down top on pile 0", lambda: mid_game(up=[(0, 1, 0, 1)]), "up[0][0]"),
    ("pile 1 all face down", lambda: mid_game(up=[(1, 0, 0, 1)]), "up[0][1]"),
    ("pile too big unstacked", lambda: table(("7S", "3H 4C 5H"), STUCK_P1), "layouts[0][1]"),
    ("two face up unstacked", lambda: mid_game(up=[(1, 2, 0, 1)]), "up[0][1]"),
    (
        "auto_flip top face down",
        lambda: mid_game(up=[(1, 1, 0, 0)], rules=Rules(auto_flip=True)),
        "up[0][3]",
    ),
    ("wrong pile count", lambda: mid_game()._replace(layouts=(((),), ((),))), "layouts[0]"),
    ("round 0", lambda: mid_game(round=0), "round"),
    ("round not an int", lambda: mid_game(round=True), "round"),
    ("shuffles not 2 per round", lambda: mid_game(round=2, shuffles=3), "shuffles"),
    ("both calls recorded", lambda: table(STUCK_P0, STUCK_P1, called={0, 1}), "called"),
    ("caller not a seat", lambda: table(STUCK_P0, STUCK_P1, called={2}), "called"),
    (
        "target without call",
        lambda: table(STUCK_P0, STUCK_P1, call_targets=(0, None)),
        "call_targets[0]",
    ),
    (
        "target not a pile",
        lambda: table(STUCK_P0, STUCK_P1, called={0}, call_targets=(2, None)),
        "call_targets[0]",
    ),
    ("call while not stuck", lambda: mid_game(called={1}), "called"),
    ("locked while both have spit cards", lambda: mid_game(locked=0), "locked"),
    (
        "locked to a missing pile",
        lambda: mid_game(locked=1, spit_piles=(cs("8H"), ()), spit_cards=(cs("7C"), ())),
        "locked",
    ),
    ("locked to a bool", lambda: mid_game(locked=True, spit_cards=(cs("7C"), ())), "locked"),
    ("spit cards without own pile", lambda: mid_game(spit_piles=(cs("8H"), ())), "spit_piles[1]"),
    ("empty layout in play", lambda: table(("",), STUCK_P1), "layouts[0]"),
    (
        "stuck, no spit cards, in play",
        lambda: table(STUCK_P0, STUCK_P1, spit_cards=((), ())),
        "phase",
    ),
    (
        "READY not as laid out",
        lambda: table(
            PLAYING, STUCK_P1, phase="READY", spit_cards=((), cs("QD")), spit_piles=((), ())
        ),
        "layouts[0][2]",
    ),
    (
        "READY spit cards, short layout",
        lambda: table(("2S", "3H 4C"), STUCK_P1, phase="READY", spit_piles=((), ())),
        "layouts[0][2]",
    ),
    ("READY face-down top", lambda: ready(up=[(1, 1, 1, 1, 0)]), "up[0][4]"),
    ("READY with a spit pile", lambda: ready(spit_piles=(cs("8H"), ())), "spit_piles[0]"),
    ("READY with a lock", lambda: ready(locked=0), "locked"),
    ("READY call target", lambda: ready(called={0}, call_targets=(0, None)), "call_targets[0]"),
    (
        "READY empty packet",
        lambda: table(
            ("",), STUCK_P1, phase="READY", spit_cards=((), cs("QD")), spit_piles=((), ())
        ),
        "layouts[0]",
    ),
    ("SLAP with one pile", lambda: slap(spit_piles=(cs("8H"), ())), "spit_piles[1]"),
    ("SLAP with a call", lambda: slap(called={1}), "called"),
    ("SLAP without a round end", lambda: mid_game(phase="SLAP"), "phase"),
    ("CHOOSE under the slap rule", lambda: slap(phase="CHOOSE", chooser=0), "phase"),
    (
        "chooser out of range",
        lambda: slap(phase="CHOOSE", chooser=2, rules=Rules(pile_claim="choose")),
        "chooser",
    ),
    (
        "chooser still has a layout",
        lambda: slap(phase="CHOOSE", chooser=1, rules=Rules(pile_claim="choose")),
        "chooser",
    ),
    ("chooser outside CHOOSE", lambda: slap(chooser=0), "chooser"),
    ("three seats", lambda: mid_game()._replace(setup=Setup(3, 0, Rules())), "setup"),
    ("rules of another game", lambda: mid_game()._replace(setup=Setup(2, 0, object())), "setup"),
    ("called not a set", lambda: mid_game()._replace(called=(True, False)), "called"),
]


@pytest.mark.parametrize(("build", "field"), [(b, f) for _, b, f in INVALID],
                         ids=[name for name, _, _ in INVALID])  # fmt: skip
def test_invalid_positions_name_the_field_at_fault(build: Callable[[], object], field: str) -> None:
    with pytest.raises(InvalidPosition) as info:
        state = build()
        check_position(state)  # type: ignore[arg-type]
    assert info.value.field == field, info.value


def test_valid_positions_pass() -> None:
    for state in (
        mid_game(),
        ready(),
        ready(called={1}),
        table(STUCK_P0, STUCK_P1, called={0}, call_targets=(1, None)),
        table(STUCK_P0, STUCK_P1, spit_cards=(cs("7C"), ()), locked=1),
        slap(),
        slap(phase="CHOOSE", chooser=0, rules=Rules(pile_claim="choose")),
        table(("6S 6H", "4D", "", "3D 5C"), ("2D",), up=[(2, 0, 0, 0)], rules=STACK),
        table(STUCK_P0, STUCK_P1, spit_cards=((), ()), spit_piles=((), ())),  # no pile started
        mid_game(round=3),
    ):
        check_position(state)
    check_position(won(), allow_over=True)
    assert mid_game(round=3).shuffles == 4


def random_states(seed: int, rules: Rules, limit: int = 400) -> list[State]:
    """The states of one random game (a random legal command of a random seat each step)."""
    match = Match(GAME, Setup(2, seed, rules), record=False)
    rng = Rng(seed, 99)
    states = [match.state]
    at = 0
    while match.outcome is None and at < limit:
        options = [(s, cmd) for s in (0, 1) for cmd in legal_commands(match.state, s)]
        sensible = [o for o in options if is_sensible(match.state, *o)] or options
        seat, cmd = sensible[rng.below(len(sensible))]
        at += 1
        match.submit(seat, cmd, at)
        states.append(match.state)
    return states


VARIANTS = [
    Rules(),
    Rules(num_stock_piles=4, pile_claim="choose"),
    Rules(stack_equal_in_layout=True, auto_flip=True),
    Rules(alternate_colours=True, wrap=False, allow_equal_rank=True),
    Rules(stack_equal_in_layout=True, alternate_colours=True),
    Rules(one_pile_stalemate_owner="fewer_layout_cards"),
]


def test_every_state_of_random_games_passes_the_check() -> None:
    for i, rules in enumerate(VARIANTS):
        for seed in range(2):
            for state in random_states(seed + 10 * i, rules, 3000):
                check_position(state, allow_over=True)


# --------------------------------------------------------------------------- seats


@pytest.mark.parametrize("seat", [2, -1, 5, True, False, 1.0, "0", None])
def test_entry_points_refuse_what_is_not_a_seat(seat: Any) -> None:
    state = mid_game()
    with pytest.raises(InvalidSeat):
        decide(state, seat, Play(0, 0))
    with pytest.raises(InvalidSeat):
        legal_commands(state, seat)
    with pytest.raises(InvalidSeat):
        is_sensible(state, seat, Flip(0))


@pytest.mark.parametrize("viewer", [2, -1, True])
def test_views_refuse_an_int_viewer_out_of_range(viewer: Any) -> None:
    state = mid_game()
    with pytest.raises(InvalidSeat):
        view(state, viewer)
    with pytest.raises(InvalidSeat):
        redact(CardPlayed(0, 0, 0, c("7S")), viewer)
    with pytest.raises(InvalidSeat):
        format_position(state, viewer)


def test_match_submit_and_decide_refuse_bad_seats() -> None:
    match = Match.from_position(GAME, mid_game())
    with pytest.raises(InvalidSeat):
        match.submit(False, Play(0, 0), 1)  # type: ignore[arg-type]
    with pytest.raises(InvalidSeat):
        match.submit(2, Play(0, 0), 1)
    with pytest.raises(InvalidSeat):
        decide(match.state, 5, Play(0, 0))
    assert match.seq == 1  # nothing was sequenced


# --------------------------------------------------------------------------- from_position


def test_from_position_plays_on_to_the_end_and_the_log_verifies() -> None:
    match = Match.from_position(GAME, mid_game(), seed=7)
    match.submit(0, Play(0, 0), 1)  # 7♠ on 8♥
    assert match.state.spit_piles[0] == cs("8H 7S")
    match.submit(0, Move(1, 0), 2)  # 4♣ into the space, uncovering 3♥ face down
    match.submit(0, Flip(1), 3)
    assert match.state.layouts[0][:2] == (cs("4C"), cs("3H")) and match.state.up[0][:2] == (1, 1)
    rng = Rng(7, 1)
    at = 3
    while match.outcome is None:
        options = [(s, cmd) for s in (0, 1) for cmd in legal_commands(match.state, s)]
        sensible = [o for o in options if is_sensible(match.state, *o)] or options
        seat, cmd = sensible[rng.below(len(sensible))]
        at += 1
        match.submit(seat, cmd, at)
        assert at < 20_000
    assert outcome(match.state) == match.outcome
    assert match.writer is not None
    lines = match.writer.lines
    assert lines[0]["position"] == format_position(mid_game(), Role.REFEREE)
    report = log.verify(lines)
    assert report.revealed and report.entries == len(lines) - 2
    final = list(log.replay(lines))[-1].state
    assert final == match.state


def test_redacted_log_hides_the_other_cards_in_the_header_position() -> None:
    match = Match.from_position(GAME, mid_game(), seed=3)
    match.submit(0, Play(0, 0), 1)
    assert match.writer is not None
    for viewer in (0, 1, Role.SPECTATOR):
        red = log.redact_log(match.writer.lines, viewer)
        text = red[0]["position"]
        assert text == format_position(mid_game(), viewer)
        fields = text.split(" ")
        assert fields[6] == "??,??,2H/??,??,??,3C"  # L3: face-down cards of both seats
        assert fields[9] == "??,??/??,??"  # spit cards, even the viewer's own
        assert "10D" not in text and "7C" not in text
    assert (
        log.redact_log(match.writer.lines, Role.REFEREE)[0]["position"]
        == (match.writer.lines[0]["position"])
    )


def test_from_position_refuses_an_invalid_or_finished_position() -> None:
    with pytest.raises(InvalidPosition, match="winner"):
        Match.from_position(GAME, won())
    with pytest.raises(InvalidPosition, match="phase"):
        Match.from_position(GAME, mid_game()._replace(phase="Play"))


# --------------------------------------------------------------------------- notation


def normalised(state: State) -> State:
    return state._replace(setup=Setup(2, 0, state.setup.rules, DEFAULT_EVENT_LIMIT))


def view_text(state: State, viewer: Viewer) -> str:
    """The notation built from ``view(state, viewer)``: ``??`` exactly where the view hides."""
    v = view(state, viewer)
    n = state.setup.rules.num_stock_piles
    piles = [notation.per_seat_text((lay[i] for lay in v.layouts), notation.cards_text)
             for i in range(n)]  # fmt: skip
    rules = notation.rules_text(state.setup.rules)  # the rules field, public to every viewer
    return " ".join([
        "spit", *([rules] if rules else []), v.phase, str(v.round), *piles,
        "/".join(",".join(str(u) for u in ups) for ups in state.up),
        notation.per_seat_text(v.spit_cards, notation.cards_text),
        notation.per_seat_text(v.spit_piles, notation.cards_text),
        notation.seats_text(p for p in (0, 1) if v.called[p]),
        notation.per_seat_text(v.call_targets, notation.int_text),
        notation.int_text(v.locked), notation.int_text(v.chooser), notation.int_text(v.winner),
    ])  # fmt: skip


def round_trips(state: State) -> None:
    text = format_position(state, Role.REFEREE)
    rules = state.setup.rules
    back = parse_position(text, rules)
    assert back == normalised(state), text
    assert format_position(back, Role.REFEREE) == text
    assert "\n" not in text and text.isascii() and "  " not in text
    for viewer in (0, 1, Role.SPECTATOR):
        hidden = format_position(state, viewer)
        assert hidden == view_text(state, viewer)
        assert len(hidden.split(" ")) == len(text.split(" "))
        if "??" in hidden:
            with pytest.raises(InvalidPosition):
                parse_position(hidden, rules)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), variant=st.integers(0, len(VARIANTS) - 1), data=st.data())
def test_notation_round_trips_for_states_of_random_games(
    seed: int, variant: int, data: Any
) -> None:
    states = random_states(seed, VARIANTS[variant])
    picks = data.draw(st.lists(st.integers(0, len(states) - 1), min_size=1, max_size=6))
    for i in {0, len(states) - 1, *picks}:
        round_trips(states[i])


def test_notation_round_trips_for_hand_written_positions() -> None:
    for state in (
        mid_game(),
        ready(called={1}),
        table(STUCK_P0, STUCK_P1, called={0}, call_targets=(1, None)),
        table(STUCK_P0, STUCK_P1, spit_cards=(cs("7C"), ()), locked=1),
        slap(round=5),
        slap(phase="CHOOSE", chooser=0, rules=Rules(pile_claim="choose")),
        table(("6S 6H", "4D", "", "3D 5C"), ("2D",), up=[(2, 0, 0, 0)], rules=STACK),
        table(("7S", "", "", ""), ("2D",), rules=Rules(num_stock_piles=4)),
        won(),
    ):
        round_trips(state)


AFTER_DEAL = (
    "spit READY 1 5H/7H 3H,QC/6D,QD 8S,JC,4C/2S,9C,5S 6C,JS,4D,6S/9S,3C,AS,4S "
    "2C,AH,JH,7D,2H/QS,AC,KD,3S,8D 1,1,1,1,1/1,1,1,1,1 "
    "8H,KS,8C,7S,JD,7C,10D,9D,5C,10S,AD/KC,3D,4H,5D,9H,10C,KH,10H,QH,2D,6H -/- - -/- - - -"
)
MID_GAME = (
    "spit PLAY 1 7S/2D 3H,4C/3D,4H -/5H,8C,6C 10C,10D,2H/10S,10H,2C,3C -/JS,JD,4S,8S,6D "
    "1,1,0,1,0/1,1,1,1,1 7C,9H/QD,AS 8H/KC - -/- - - -"
)
OPTIONAL = (
    "spit PLAY 3 2S/2D 3H,4C/3D,4H 5D,5S,6H/5H,8C,6C 10C,10D,2H,3S/10S,10H,2C,3C "
    "JH,JC,4D,5C,6S/JS,JD,4S,8S,6D 1,1,1,1,1/1,1,1,1,1 7C/- 8H/KC 1 -/1 1 - -"
)


def test_notation_of_the_deal_and_worked_examples() -> None:
    """The three worked examples of docs/notation/spit.md."""
    dealt = Match(GAME, GAME.make_setup(2, 43), record=False).state
    assert format_position(dealt, Role.REFEREE) == AFTER_DEAL
    assert parse_position(AFTER_DEAL, None) == normalised(dealt)
    assert format_position(mid_game(), Role.REFEREE) == MID_GAME
    assert format_position(mid_game(), 0) == (
        "spit PLAY 1 7S/2D ??,4C/??,4H -/??,??,6C ??,??,2H/??,??,??,3C -/??,??,??,??,6D "
        "1,1,0,1,0/1,1,1,1,1 ??,??/??,?? 8H/KC - -/- - - -"
    )
    optional = table(STUCK_P0, STUCK_P1, spit_cards=(cs("7C"), ()), locked=1, called={1},
                     call_targets=(None, 1), round=3)  # fmt: skip
    assert format_position(optional, Role.REFEREE) == OPTIONAL
    assert parse_position(OPTIONAL, Rules()) == normalised(optional)
    assert parse_position(OPTIONAL, None).shuffles == 4
    bare = "spit PLAY 1 7S/2D -/- -/- -/- 1,0,0,0/1,0,0,0 -/- 8H/KC - -/- - - -"
    four = parse_position(bare, Rules(num_stock_piles=4))  # a text written beside its rules
    assert four.layouts == ((cs("7S"), (), (), ()), (cs("2D"), (), (), ()))
    own = bare.replace("spit ", "spit [num_stock_piles=4] ", 1)  # a text carrying its rules
    assert format_position(four, Role.REFEREE) == own and parse_position(own, None) == four
    with pytest.raises(InvalidPosition):
        parse_position(bare, None)  # five piles by default: a field too few
    assert parse_position(format_position(won(), Role.REFEREE), None) == normalised(won())


def with_field(k: int, value: str, text: str = MID_GAME) -> str:
    """``text`` with its field ``k`` (0: the game's name) replaced by ``value``."""
    fields = text.split(" ")
    fields[k] = value
    return " ".join(fields)


BAD_TEXTS = [
    ("speed " + MID_GAME[5:], "notation"),
    (MID_GAME + " -", "notation"),
    (MID_GAME.replace(" ", "  ", 1), "notation"),
    (with_field(1, "Play"), "phase"),
    (with_field(2, "0"), "round"),
    (with_field(2, "1e3"), "round"),
    (with_field(3, "7S/2D/4D"), "L0"),
    (with_field(3, "7S,XX/2D"), "layouts[0][0]"),
    (with_field(3, "7S/7S"), "layouts[1][0]"),
    (with_field(3, "7S,/2D"), "layouts[0][0]"),
    (with_field(8, "1,1,0,1/1,1,1,1,1"), "up[0]"),
    (with_field(8, "1,1,a,1,0/1,1,1,1,1"), "up[0][2]"),
    (with_field(8, "1,1,2,1,0/1,1,1,1,1"), "up[0][2]"),
    (with_field(9, "??,??/QD,AS"), "spit_cards[0]"),
    (with_field(10, "8H/KC/QS"), "spit_piles"),
    (with_field(10, "8H/-"), "spit_piles[1]"),
    (with_field(11, "0,0"), "called"),
    (with_field(11, "2"), "called"),
    (with_field(12, "2/-"), "call_targets[0]"),
    (with_field(12, "-"), "call_targets"),
    (with_field(13, "x"), "locked"),
    (with_field(14, "2"), "chooser"),
    (with_field(15, "01"), "winner"),
    (42, "notation"),
]


@pytest.mark.parametrize(("text", "field"), BAD_TEXTS)
def test_parse_refuses_bad_texts_naming_the_field(text: Any, field: str) -> None:
    with pytest.raises(InvalidPosition) as info:
        parse_position(text, None)
    assert info.value.field == field, info.value


def test_parse_refuses_rules_of_another_game() -> None:
    with pytest.raises(InvalidPosition, match="rules"):
        parse_position(MID_GAME, object())  # type: ignore[arg-type]
    with pytest.raises(InvalidPosition, match="notation"):  # four piles: one field too many
        parse_position(MID_GAME, Rules(num_stock_piles=4))


def junk_ok(text: str) -> None:
    try:
        state = parse_position(text, None)
    except InvalidPosition:
        return
    check_position(state, allow_over=True)
    assert parse_position(format_position(state, Role.REFEREE), None) == state


ALPHABET = "spitPLAYREDOVSC 0123456789,/-?AKQJHDX"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80) | st.text(alphabet=ALPHABET, max_size=160))
def test_parse_of_junk_only_raises_invalid_position(text: str) -> None:
    junk_ok(text)
    junk_ok("spit " + text)


@settings(max_examples=400, deadline=None)
@given(
    base=st.sampled_from([AFTER_DEAL, MID_GAME, OPTIONAL]),
    at=st.integers(0, 400),
    cut=st.integers(0, 6),
    insert=st.text(alphabet=ALPHABET, max_size=4),
)
def test_parse_of_mutated_texts_only_raises_invalid_position(
    base: str, at: int, cut: int, insert: str
) -> None:
    at %= len(base) + 1
    junk_ok(base[:at] + insert + base[at + cut :])
    junk_ok(base[:at])


def test_registered_in_game() -> None:
    assert GAME.check_position is check_position
    assert GAME.format_position is format_position
    assert GAME.parse_position is parse_position
    assert GAME.info.name == AFTER_DEAL.split(" ", maxsplit=1)[0]


def test_lay_out_and_the_notation_agree_on_the_deal() -> None:
    piles, spits = lay_out(standard_deck()[:16], 5)
    state = position([piles, [cs("KD")]], spit_cards=[spits, ()], phase="READY")
    text = format_position(state, Role.REFEREE)
    assert text.split(" ")[3:9] == ["AS/KD", "2S,3S/-", "4S,5S,6S/-", "7S,8S,9S,10S/-",
                                    "JS,QS,KS,AH,2H/-", "1,1,1,1,1/1,0,0,0,0"]  # fmt: skip
    assert parse_position(text, None) == state
    assert HIDDEN not in state.spit_cards[0]
    with pytest.raises(InvalidPosition, match="spit_piles"):
        parse_position(text.replace("READY", "SLAP"), None)
