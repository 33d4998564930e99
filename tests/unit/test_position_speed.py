"""Speed positions (issue 10): the position check, seats at the entry points, the notation
(docs/notation/speed.md) and matches that start from a hand-written position."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardcore import log
from cardcore.cards import HIDDEN, JOKER, Card, parse_cards
from cardcore.engine import DEFAULT_EVENT_LIMIT, Role, Setup, Viewer
from cardcore.errors import InvalidPosition, InvalidSeat
from cardcore.games.speed import (
    FLIP,
    GAME,
    CardDrawn,
    Play,
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
    shuffle_hidden,
    view,
)
from cardcore.match import Match
from cardcore.notation import read_rules
from cardcore.rng import Rng


def without_rules(text: str) -> str:
    """The text without its rules field (docs/notation.md#the-rules-field)."""
    return read_rules(text, "speed", Rules, None)[0]


def cs(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def c(text: str) -> Card:
    return Card.parse(text)


def mid_game(**kw: Any) -> State:
    """A hand-written position in play: full hands, short draw piles, one-card side piles."""
    kw.setdefault("centre", (cs("5D"), cs("JC")))
    kw.setdefault("sides", (cs("7C"), cs("8C")))
    hands = kw.pop("hands", (cs("6S 4H 9C QD 2S"), cs("6H 4S 9D QS 2C")))
    draws = kw.pop("draws", (cs("KS 3C"), cs("KH 3D")))
    return position(hands, draws, **kw)


def won(**kw: Any) -> State:
    """A finished game: seat 0 emptied hand and draw pile (allow_over)."""
    kw.setdefault("wins", (1, 0))
    kw.setdefault("scores", (2, 0))
    return mid_game(
        hands=((), cs("6H 4S 9D QS 2C")), draws=((), cs("KH 3D")), phase="OVER", winner=0,
        allow_over=True, **kw,
    )  # fmt: skip


# The stuck position of the scenarios: tops 5♠ and 9♥, neither hand holds a 4, 6, 8 or 10.
STUCK = {
    "hands": (cs("AS 2S JH QH KH"), cs("AC 2C JD QD KD")),
    "draws": (cs("3C"), cs("3D")),
    "centre": (cs("7C 5S"), cs("9H")),
    "sides": (cs("6D 7D"), cs("10C 4H")),
}


def normalised(state: State) -> State:
    """What parse_position(format_position(state)) gives back: the setup without its seed."""
    return state._replace(setup=Setup(state.setup.seats, 0, state.setup.rules))


# --------------------------------------------------------------------------- the position check

INVALID: list[tuple[str, Callable[[], object], str]] = [
    # cards: from the setup's deck, none twice (one deck)
    (
        "duplicate card in a hand",
        lambda: mid_game(hands=(cs("6S 6S 9C QD 2S"), cs("6H"))),
        "hands[0]",
    ),
    (
        "card in a hand and on a centre pile",
        lambda: mid_game(centre=(cs("6S"), cs("JC"))),
        "centre[0]",
    ),
    ("card in both draw piles", lambda: mid_game(draws=(cs("KS 3C"), cs("KS 3D"))), "draws[1]"),
    ("a joker without the jokers rule", lambda: mid_game(sides=(cs("7C"), (JOKER,))), "sides[1]"),
    (
        "three jokers",
        lambda: mid_game(sides=((JOKER, JOKER), (JOKER,)), rules=Rules(jokers=2)),
        "sides[1]",
    ),
    ("not a card", lambda: mid_game()._replace(draws=(("KS",), ())), "draws[0]"),
    # zones: one pile per seat (per centre / side pile), tuples
    ("three hands", lambda: mid_game()._replace(hands=((), (), ())), "hands"),
    ("a list of piles", lambda: mid_game()._replace(sides=[(), ()]), "sides"),
    (
        "a pile that is a list",
        lambda: mid_game()._replace(centre=(cs("5D"), [c("JC")])),
        "centre[1]",
    ),
    # setup
    ("three seats", lambda: mid_game()._replace(setup=Setup(3, 0, Rules())), "setup"),
    ("another game's rules", lambda: mid_game()._replace(setup=Setup(2, 0, object())), "setup"),
    # phase
    ("a phase typo", lambda: mid_game(phase="Play"), "phase"),
    ("a phase that is not a string", lambda: mid_game()._replace(phase=1), "phase"),
    # centre piles
    ("an empty centre pile", lambda: mid_game(centre=(cs("5D"), ())), "centre[1]"),
    (
        "two cards on a centre pile before the start",
        lambda: mid_game(phase="READY", centre=(cs("5D 6D"), cs("JC"))),
        "centre[0]",
    ),
    # hands
    (
        "a hand larger than hand_size",
        lambda: mid_game(hands=(cs("6S 4H 9C QD 2S 8S"), cs("6H"))),
        "hands[0]",
    ),
    (
        "a short hand with cards to draw (auto_refill)",
        lambda: mid_game(hands=(cs("6S 4H"), cs("6H 4S 9D QS 2C"))),
        "hands[0]",
    ),
    (
        "a short hand with cards to draw before the start",
        lambda: mid_game(
            hands=(cs("6S 4H 9C QD 2S"), cs("6H")), phase="READY", rules=Rules(auto_refill=False)
        ),
        "hands[1]",
    ),
    (
        "a seat without cards in play",
        lambda: mid_game(hands=(cs("6S"), ()), draws=((), ())),
        "hands[1]",
    ),
    # the winner and the end
    ("a game already over", won, "phase"),
    (
        "a finished seat holding cards",
        lambda: won()._replace(hands=(cs("6S"), cs("6H 4S 9D QS 2C"))),
        "hands[0]",
    ),
    (
        "a finished seat with a draw pile",
        lambda: won()._replace(draws=(cs("KS"), cs("KH 3D"))),
        "hands[0]",
    ),
    ("the loser without cards", lambda: won()._replace(hands=((), ()), draws=((), ())), "hands[1]"),
    ("a winner while in play", lambda: mid_game(winner=1), "winner"),
    ("over without a winner", lambda: mid_game(phase="OVER"), "winner"),
    ("a winner out of range", lambda: won()._replace(winner=2), "winner"),
    ("a winner that is a bool", lambda: won()._replace(winner=False), "winner"),
    ("a winner who won no round", lambda: won(wins=(0, 0), scores=(0, 0)), "wins[0]"),
    # joint calls
    ("both seats called", lambda: mid_game(**STUCK, calls=(0, 1)), "calls"),
    ("a call by seat 2", lambda: mid_game(**STUCK, calls=(2,)), "calls"),
    ("a call by True", lambda: mid_game(**STUCK)._replace(calls=frozenset({True})), "calls"),
    ("calls that are a set", lambda: mid_game(**STUCK)._replace(calls={0}), "calls"),
    ("a stalemate call while not stuck", lambda: mid_game(calls=(0,)), "calls"),
    ("a call once over", lambda: won()._replace(calls=frozenset({1})), "calls"),
    # totals and rounds
    ("a negative score", lambda: mid_game(scores=(-1, 0)), "scores[0]"),
    ("a score that is a bool", lambda: mid_game(scores=(True, 0)), "scores[0]"),
    ("three scores", lambda: mid_game()._replace(scores=(0, 0, 0)), "scores"),
    (
        "points without a won round",
        lambda: mid_game(rules=Rules(target_score=20), scores=(0, 3), round=2, shuffles=1),
        "scores[1]",
    ),
    (
        "a won round in a one-round game",
        lambda: mid_game(wins=(1, 0), scores=(3, 0), round=2, shuffles=1),
        "wins",
    ),
    (
        "more won rounds than rounds",
        lambda: mid_game(rules=Rules(best_of=5), wins=(1, 1), scores=(1, 1), round=2, shuffles=1),
        "wins",
    ),
    (
        "the target reached in play",
        lambda: mid_game(
            rules=Rules(target_score=5), wins=(1, 0), scores=(5, 0), round=2, shuffles=1
        ),
        "scores[0]",
    ),
    (
        "the winner short of the target",
        lambda: won(rules=Rules(target_score=5), scores=(4, 0)),
        "scores[0]",
    ),
    (
        "the series won in play",
        lambda: mid_game(rules=Rules(best_of=3), wins=(2, 0), scores=(2, 0), round=3, shuffles=2),
        "wins[0]",
    ),
    (
        "the winner short of the series",
        lambda: won(rules=Rules(best_of=5), wins=(2, 1), scores=(4, 1), round=3, shuffles=2),
        "wins[0]",
    ),
    ("a negative number of wins", lambda: mid_game(wins=(0, -1)), "wins[1]"),
    ("round 0 (before the deal)", lambda: mid_game(round=0), "round"),
    ("a re-deal without its shuffle", lambda: mid_game(round=3, shuffles=1), "shuffles"),
    ("a round that is a bool", lambda: mid_game()._replace(round=True), "round"),
]


@pytest.mark.parametrize(
    ("build", "field"), [(b, f) for _, b, f in INVALID], ids=[n for n, _, _ in INVALID]
)
def test_invalid_positions_name_the_field_at_fault(build: Callable[[], object], field: str) -> None:
    with pytest.raises(InvalidPosition) as info:
        state = build()
        assert isinstance(state, State)
        check_position(state)
    assert info.value.field == field, info.value


def test_valid_positions_pass() -> None:
    for state in (
        mid_game(),
        mid_game(phase="READY"),
        mid_game(**STUCK, calls=(1,)),
        mid_game(phase="READY", calls=(0,)),
        mid_game(hands=(cs("6S"), cs("6H 4S")), draws=((), ())),  # short hands, empty draw piles
        mid_game(hands=(cs("6S"), cs("6H 4S")), rules=Rules(auto_refill=False)),
        mid_game(rules=Rules(target_score=9), wins=(1, 2), scores=(8, 0), round=5, shuffles=7),
        mid_game(rules=Rules(jokers=2), sides=((JOKER,), (JOKER,))),
    ):
        check_position(state)
    check_position(won(), allow_over=True)
    assert outcome(won()) is not None
    with pytest.raises(InvalidPosition) as info:
        check_position(won())
    assert info.value.field == "phase"
    assert GAME.check_position is check_position


def test_every_state_of_random_games_passes_the_check() -> None:
    for state in _playout_states(3, 0):
        check_position(state, allow_over=True)


# --------------------------------------------------------------------------- seats


@pytest.mark.parametrize("seat", [2, -1, True, False, "0", 0.0, None])
def test_entry_points_refuse_what_is_not_a_seat(seat: Any) -> None:
    state = mid_game()
    with pytest.raises(InvalidSeat):
        decide(state, seat, Play(c("6S"), 0))
    with pytest.raises(InvalidSeat):
        legal_commands(state, seat)
    with pytest.raises(InvalidSeat):
        is_sensible(state, seat, FLIP)
    if not isinstance(seat, str):
        with pytest.raises(InvalidSeat):
            view(state, seat)
        with pytest.raises(InvalidSeat):
            redact(CardDrawn(0, c("KS")), seat)


def test_match_submit_and_decide_refuse_bad_seats() -> None:
    match = Match(GAME, GAME.make_setup(2, 1), record=False)
    with pytest.raises(InvalidSeat):
        match.submit(False, FLIP, 1)
    with pytest.raises(InvalidSeat):
        decide(match.state, 5, FLIP)
    assert match.seq == 1  # nothing was sequenced
    assert view(match.state, Role.SPECTATOR).phase == "READY"
    assert view(match.state, "referee").hands == match.state.hands  # type: ignore[arg-type]


# --------------------------------------------------------------------------- from a position


def _random_finish(match: Match[Any, Any, Any, Any, Any], rng: Rng, now: int) -> int:
    """Play ``match`` to its end with a random chooser (sensible commands first)."""
    while match.outcome is None:
        state = match.state
        opts = [(s, cmd) for s in (0, 1) for cmd in legal_commands(state, s)]
        pool = [o for o in opts if is_sensible(state, *o)] or opts
        seat, cmd = pool[rng.below(len(pool))]
        now += 1
        match.submit(seat, cmd, now)
    return now


def _from_position_game(seed: int) -> tuple[State, Match[Any, Any, Any, Any, Any]]:
    """A match from a hand-written position (a match to 8 points, so later rounds are dealt
    from ``seed``), three plays into it."""
    start = mid_game(sides=(cs("7C 10H 8D"), cs("8C")), rules=Rules(target_score=8))
    match = Match.from_position(GAME, start, seed=seed)
    header = match.writer.lines[0]  # type: ignore[union-attr]
    assert header["position"] == format_position(start, Role.REFEREE)
    match.submit(0, Play(c("6S"), 0, expect_top=c("5D")), 1)  # lands, draws K♠
    match.submit(1, Play(c("QS"), 1), 2)  # Q♠ on J♣, draws K♥
    match.submit(0, Play(c("KS"), 1), 3)  # K♠ on Q♠, draws 3♣
    assert match.state.centre == (cs("5D 6S"), cs("JC QS KS"))
    assert match.state.hands[0] == cs("4H 9C QD 2S 3C") and match.state.draws[0] == ()
    return start, match


def test_from_position_plays_on_to_the_end_and_the_log_verifies() -> None:
    for seed in range(4):
        start, match = _from_position_game(seed)
        writer = match.writer
        assert writer is not None
        # Before the end, a seat's copy shows its own hand only in the header's position.
        text = log.redact_log(writer.lines, 1)[0]["position"]
        assert text == format_position(start, 1)
        assert text.startswith("speed [target_score=8] PLAY ")  # the rules field is public
        fields = without_rules(text).split(" ")
        hands = fields[2].split("/")
        assert set(hands[0].split(",")) == {"??"} and "??" not in hands[1]
        assert fields[3] == "??,??/??,??"
        _random_finish(match, Rng(seed, 5), 10)
        report = log.verify(writer.lines)
        assert report.revealed and report.outcome == match.outcome
        final = list(log.replay(writer.lines))[-1].state
        assert final == match.state


def test_from_position_refuses_an_invalid_or_finished_position() -> None:
    with pytest.raises(InvalidPosition) as info:
        Match.from_position(GAME, won())
    assert info.value.field == "phase"
    with pytest.raises(InvalidPosition) as info:
        Match.from_position(GAME, mid_game()._replace(centre=(cs("5D"), ())))
    assert info.value.field == "centre[1]"


# --------------------------------------------------------------------------- notation

VARIANTS: list[dict[str, Any]] = [
    {},
    {"side_pile_size": 5},
    {"auto_refill": False},
    {"wrap": False, "allow_equal_rank": True},
    {"multi_card_play": True},
    {"jokers": 2, "score_counts": "stock_and_hand"},
    {"target_score": 6},
    {"best_of": 3, "hand_size": 4},
    {"side_pile_size": 20, "hand_size": 1},
]


def _playout_states(seed: int, variant: int, limit: int = 400) -> list[State]:
    """Every state of a random game (random seed, rule variant, chooser)."""
    setup = GAME.make_setup(2, seed, VARIANTS[variant])
    match = Match(GAME, setup, record=False)
    rng = Rng(seed, 7)
    states = [match.state]
    now = 0
    while match.outcome is None and len(states) < limit:
        state = match.state
        opts = [(s, cmd) for s in (0, 1) for cmd in legal_commands(state, s)]
        pool = [o for o in opts if is_sensible(state, *o)] or opts
        seat, cmd = pool[rng.below(len(pool))]
        now += 1
        match.submit(seat, cmd, now)
        states.append(match.state)
    return states


def _round_trip(state: State) -> None:
    over = outcome(state) is not None
    text = format_position(state, Role.REFEREE)
    assert "??" not in text and "\n" not in text and text.isascii()
    back = parse_position(text, state.setup.rules, allow_over=over)
    assert back == normalised(state)
    assert format_position(back, Role.REFEREE) == text
    if over:
        with pytest.raises(InvalidPosition):
            parse_position(text, state.setup.rules)
    for viewer in (0, 1, Role.SPECTATOR):
        _check_view_text(state, viewer, text)


def _check_view_text(state: State, viewer: Viewer, referee: str) -> None:
    """A viewer's text is the referee's with ``??`` exactly where the view hides a card, by the
    rules of the view spelled out independently (own hand, face-up centre piles)."""
    seen = format_position(state, viewer)
    assert read_rules(seen, "speed", Rules, None)[1] == state.setup.rules
    ref_fields, seen_fields = without_rules(referee).split(" "), without_rules(seen).split(" ")
    assert len(ref_fields) == len(seen_fields) == 12
    for k, (ref, got) in enumerate(zip(ref_fields, seen_fields, strict=True)):
        if not 2 <= k <= 5:
            assert got == ref  # the name, phase, calls, totals, round, shuffles, winner
            continue
        for j, (ref_pile, got_pile) in enumerate(zip(ref.split("/"), got.split("/"), strict=True)):
            visible = (k == 2 and viewer == j) or (k == 5 and state.phase != "READY")
            if visible or ref_pile == "-":
                assert got_pile == ref_pile
            else:
                assert got_pile.split(",") == ["??"] * len(ref_pile.split(","))
    v = view(state, viewer)
    hidden = sum(
        card is HIDDEN for zone in (v.hands, v.draws, v.sides, v.centre) for p in zone for card in p
    )
    written = [t for f in seen_fields[2:6] for p in f.split("/") for t in p.split(",")]
    assert written.count("??") == hidden
    # No leak: what the viewer cannot see may be anything, its text stays the same.
    assert format_position(shuffle_hidden(state, viewer, Rng(len(referee), 1)), viewer) == seen


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), variant=st.integers(0, len(VARIANTS) - 1), data=st.data())
def test_notation_round_trips_for_states_of_random_games(
    seed: int, variant: int, data: st.DataObject
) -> None:
    states = _playout_states(seed, variant)
    picks = data.draw(st.lists(st.integers(0, len(states) - 1), min_size=1, max_size=6))
    for i in {*picks, len(states) - 1}:
        _round_trip(states[i])


def test_notation_round_trips_for_hand_written_positions() -> None:
    for state in (
        mid_game(),
        mid_game(
            **STUCK,
            calls=(0,),
            rules=Rules(best_of=5),
            wins=(1, 2),
            scores=(4, 9),
            round=6,
            shuffles=9,
        ),
        mid_game(hands=(cs("6S"), ()), draws=((), cs("QH")), rules=Rules(auto_refill=False)),
        mid_game(
            rules=Rules(jokers=2),
            hands=((JOKER,), (JOKER, c("AS"))),
            draws=((), ()),
            sides=((), ()),
        ),
        mid_game(phase="READY", calls=(1,), centre=(cs("10D"), cs("AC"))),
        won(),
    ):
        _round_trip(state)


def test_notation_of_the_deal_and_worked_examples() -> None:
    deal = Match(GAME, GAME.make_setup(2, 5), record=False).state
    text = format_position(deal, Role.REFEREE)
    assert text == (
        "speed READY 5H,KD,4H,2S,AC/6H,JH,6C,2H,4S 4C,10S,KC,5C,10D,9D,10C,QH,5D,7H/"
        "10H,QS,8D,JD,9C,2D,AD,9H,KH,3C 6S,7C,8S,JS,3D,7S,7D,QD,3H,6D/"
        "3S,8H,2C,AH,JC,AS,9S,KS,QC,5S 8C/4D - 0/0 0/0 1 0 -"
    )
    assert parse_position(text) == normalised(deal)
    assert format_position(mid_game(), Role.REFEREE) == (
        "speed PLAY 6S,4H,9C,QD,2S/6H,4S,9D,QS,2C KS,3C/KH,3D 7C/8C 5D/JC - 0/0 0/0 1 0 -"
    )
    assert format_position(mid_game(), 0) == (
        "speed PLAY 6S,4H,9C,QD,2S/??,??,??,??,?? ??,??/??,?? ??/?? 5D/JC - 0/0 0/0 1 0 -"
    )
    over = "speed OVER -/6H,4S,9D,QS,2C -/KH,3D 7C/8C 5D/JC - 2/0 1/0 1 0 0"
    assert format_position(won(), Role.REFEREE) == over
    assert parse_position(over, allow_over=True) == normalised(won())
    rules = Rules(target_score=25)
    text = (
        "speed [target_score=25] PLAY AS,2S,JH,QH,KH/AC,2C,JD,QD,KD 3C/3D 6D,7D/10C,4H 7C,5S/9H "
        "1 12/20 1/2 4 5 -"
    )
    state = parse_position(text)
    assert state.calls == frozenset({1}) and state.scores == (12, 20) and state.round == 4
    assert state.setup == Setup(2, 0, rules, DEFAULT_EVENT_LIMIT)
    assert format_position(state, Role.REFEREE) == text
    # Written before the rules field (a log header's text): the same state under the log's rules.
    assert parse_position(text.replace(" [target_score=25]", ""), rules) == state


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("spit PLAY 6S/6H - 7C/8C 5D/JC - 0/0 0/0 1 0 -", "notation"),
        ("speed PLAY 6S/6H - 7C/8C 5D/JC - 0/0 0/0 1 0", "notation"),
        ("speed Play 6S/6H -/- 7C/8C 5D/JC - 0/0 0/0 1 0 -", "phase"),
        ("speed PLAY 6S/6H/7H -/-/- 7C/8C 5D/JC - 0/0 0/0 1 0 -", "hands"),
        ("speed PLAY 6S/6H -/- 7C/8C 5D/- - 0/0 0/0 1 0 -", "centre[1]"),
        ("speed PLAY 6S,6S/6H -/- 7C/8C 5D/JC - 0/0 0/0 1 0 -", "hands[0]"),
        ("speed PLAY 6S/6H -/- 7C/8C 5D/6S - 0/0 0/0 1 0 -", "centre[1]"),
        ("speed PLAY 6S/?? -/- 7C/8C 5D/JC - 0/0 0/0 1 0 -", "hands[1]"),
        ("speed PLAY 6S/1H -/- 7C/8C 5D/JC - 0/0 0/0 1 0 -", "hands[1]"),
        ("speed PLAY 6S/6H -/- 7C/8C 5D/JC 0,0 0/0 0/0 1 0 -", "calls"),
        ("speed PLAY 6S/6H -/- 7C/8C 5D/JC 2 0/0 0/0 1 0 -", "calls"),
        ("speed PLAY 6S/6H -/- 7C/8C 5D/JC - 0/-1 0/0 1 0 -", "scores[1]"),
        ("speed PLAY 6S/6H -/- 7C/8C 5D/JC - 0/0 0 1 0 -", "wins"),
        ("speed PLAY 6S/6H -/- 7C/8C 5D/JC - 0/0 0/0 0 0 -", "round"),
        ("speed PLAY 6S/6H -/- 7C/8C 5D/JC - 0/0 0/0 1 x -", "shuffles"),
        ("speed PLAY 6S/6H -/- 7C/8C 5D/JC - 0/0 0/0 1 0 2", "winner"),
        ("speed PLAY 6S/6H -/- 7C/8C 5D/JC - 0/0 0/0 1 0 0", "winner"),
        ("speed OVER -/6H -/- 7C/8C 5D/JC - 1/0 1/0 1 0 0", "phase"),
        ("speed PLAY 6S/6H -/-  7C/8C 5D/JC - 0/0 0/0 1 0 -", "notation"),
    ],
)
def test_parse_refuses_bad_texts_naming_the_field(text: str, field: str) -> None:
    with pytest.raises(InvalidPosition) as info:
        parse_position(text)
    assert info.value.field == field, info.value


def test_parse_refuses_rules_of_another_game() -> None:
    with pytest.raises(InvalidPosition) as info:
        parse_position("speed PLAY 6S/6H -/- 7C/8C 5D/JC - 0/0 0/0 1 0 -", object())  # type: ignore[arg-type]
    assert info.value.field == "rules"


VALID_TEXTS = [
    format_position(s, Role.REFEREE)
    for s in (
        mid_game(),
        mid_game(**STUCK, calls=(0,)),
        mid_game(phase="READY", centre=(cs("10D"), cs("AC"))),
        won(),
    )
]
ALPHABET = "speedPLAYREOV0123456789AKQJSHDC,/-? \n"


def _parses_or_refuses(text: str) -> None:
    try:
        state = parse_position(text)
    except InvalidPosition:
        return
    check_position(state)
    again = format_position(state, Role.REFEREE)
    assert parse_position(again) == state


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80) | st.text(alphabet=ALPHABET, max_size=120))
def test_parse_of_junk_only_raises_invalid_position(text: str) -> None:
    _parses_or_refuses(text)


@settings(max_examples=400, deadline=None)
@given(
    base=st.sampled_from(VALID_TEXTS),
    cut=st.integers(0, 200),
    at=st.integers(0, 200),
    insert=st.text(alphabet=ALPHABET, max_size=3),
    drop=st.integers(0, 3),
)
def test_parse_of_mutated_texts_only_raises_invalid_position(
    base: str, cut: int, at: int, insert: str, drop: int
) -> None:
    _parses_or_refuses(base[: len(base) - cut % (len(base) + 1)])
    i = at % (len(base) + 1)
    _parses_or_refuses(base[:i] + insert + base[i + drop :])


def test_registered_in_game() -> None:
    assert GAME.format_position is format_position
    assert GAME.parse_position is parse_position
    assert GAME.check_position is check_position
