"""Positions round-trip with their rules (issue 21, item 11; docs/notation.md#the-rules-field).

``parse_position(format_position(s, REFEREE), None)`` used to come back under the default rules,
silently: the variant flags were not in the text. The notation now carries the flags that differ
from the defaults, after the game's name; a text without them (every text written before, e.g.
in a log's header) still reads as it did under the rules given beside it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cardcore import log, notation
from cardcore.engine import Role, Setup
from cardcore.errors import InvalidPosition
from cardcore.games import palace, ratscrew, slapjack, speed, spit
from cardcore.match import Match
from cardcore.registry import GAMES

from .bot_play import AnyGame, play, setup_or_none, variants

REF = Role.REFEREE

CASES = [(game, label, rules) for game in GAMES for label, rules in variants(game)]


def normalised(state: Any) -> Any:
    """The state as a text describes it: seed 0 and the default event limit."""
    setup = state.setup
    return state._replace(setup=Setup(setup.seats, 0, setup.rules))


def bare(text: str) -> str:
    """The text as written before the rules field existed."""
    name, _, rest = text.partition(" ")
    return f"{name} {rest.partition(' ')[2]}" if rest.startswith("[") else text


@pytest.mark.parametrize(
    ("game", "rules"),
    [(g, r) for g, _, r in CASES],
    ids=[f"{g.name}-{label}" for g, label, _ in CASES],
)
def test_every_non_default_flag_round_trips_in_the_text(
    game: AnyGame, rules: dict[str, Any]
) -> None:
    setup = setup_or_none(game, game.info.min_seats, 5, rules)
    if setup is None:
        pytest.skip("a value the game refuses (best_of=2, jokers=1 in Speed, a joker slap alone)")
    assert game.parse_position is not None and game.format_position is not None
    states = [normalised(m.state) for m in play(Match(game, setup, record=False), "random", 5, 40)]
    for state in states[::8]:
        text = game.format_position(state, REF)
        field = text.split(" ")[1]
        assert field == notation.rules_text(setup.rules) and field.startswith("[")
        back = game.parse_position(text, None)  # the rules come back with the text
        assert back == state and back.setup.rules == setup.rules
        assert game.format_position(back, REF) == text
        assert game.parse_position(text, setup.rules) == state  # the same rules given: fine
        with pytest.raises(InvalidPosition) as info:
            game.parse_position(text, game.rules_type())  # never read under other rules
        assert info.value.field == "rules"
        # A text written before the field (a log header's) reads as it did, beside its rules.
        assert game.parse_position(bare(text), setup.rules) == state
        for viewer in (0, Role.SPECTATOR):  # the rules are public: every viewer's text has them
            assert game.format_position(state, viewer).split(" ")[1] == field


@pytest.mark.parametrize("game", GAMES, ids=[g.name for g in GAMES])
def test_default_rules_write_no_field(game: AnyGame) -> None:
    """Every text of the default rules is the text it always was (docs examples, old logs)."""
    state = Match(game, game.make_setup(game.info.min_seats, 3), record=False).state
    assert game.format_position is not None and game.parse_position is not None
    text = game.format_position(state, REF)
    assert not text.split(" ")[1].startswith("[")
    assert game.parse_position(text, None).setup.rules == game.rules_type()


def test_every_flag_of_a_game_at_once() -> None:
    rules = {
        "slap_rules": ["double", "joker", "tens"],
        "challenge_counts": {"A": 5, "J": 1, "K": 3, "Q": 2},
        "false_slap_penalty": 2,
        "late_slap": "reject",
        "slap_in": False,
        "auto_collect": True,
        "num_decks": 2,
        "jokers": 1,
    }
    setup = ratscrew.GAME.make_setup(3, 9, rules)
    state = normalised(Match(ratscrew.GAME, setup, record=False).state)
    text = ratscrew.format_position(state, REF)
    assert text.split(" ")[1] == (
        "[slap_rules=double+joker+tens,challenge_counts=A:5+J:1+K:3+Q:2,false_slap_penalty=2,"
        "late_slap=reject,slap_in=false,auto_collect=true,num_decks=2,jokers=1]"
    )
    assert ratscrew.parse_position(text) == state


def test_a_none_value_and_an_empty_set_have_their_text() -> None:
    # target_score's default is None: a number is written; an empty set of slap rules is "-".
    assert notation.rules_text(speed.Rules(target_score=3)) == "[target_score=3]"
    empty = ratscrew.Rules(slap_rules=frozenset())
    assert notation.rules_text(empty) == "[slap_rules=-]"
    assert notation.parse_rules_field("[slap_rules=-]", ratscrew.Rules) == empty


def test_a_logged_position_under_rules_replays_from_either_text() -> None:
    """A log started from a position records its notation in the header; one written before the
    rules field holds the bare text beside ``setup.rules``: both replay to the same states."""
    setup = palace.GAME.make_setup(3, 4, {"jokers": 1, "seven_lower": True})
    states = [m.state for m in play(Match(palace.GAME, setup, record=False), "reaction", 4, 30)]
    match = Match.from_position(palace.GAME, states[-1], seed=6)
    for _ in play(match, "reaction", 6, 20):
        pass
    assert match.writer is not None
    lines = match.writer.lines
    text = lines[0]["position"]
    assert text.startswith("palace [seven_lower=true,jokers=1] ")
    assert log.verify(lines).entries == match.seq
    old = [dict(lines[0], position=bare(text)), *lines[1:]]
    replayed = [step.state for step in log.replay(old)]
    assert replayed == [step.state for step in log.replay(lines)]
    assert replayed[-1] == match.state._replace(setup=replayed[-1].setup)


def test_the_examples_of_the_rules_field_parse_and_format_back() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "notation.md").read_text()
    section = doc.split("## The rules field", 1)[1].split("\n## ", 1)[0]
    games = {g.name: g for g in GAMES}
    examples = [ln for ln in section.splitlines() if ln.split(" ")[0] in games and "…" not in ln]
    assert len(examples) >= 2
    for text in examples:
        game = games[text.split(" ")[0]]
        assert game.parse_position is not None and game.format_position is not None
        state = game.parse_position(text, None)
        assert state.setup.rules != game.rules_type()
        assert game.format_position(state, REF) == text


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        ("[]", "rules", "[flag=value,...]"),
        ("[jokers=1", "rules", "[flag=value,...]"),
        ("[joker=1]", "rules", "not a flag=value"),
        ("[jokers]", "rules", "not a flag=value"),
        ("[num_decks=2,jokers=1]", "rules", "out of order"),
        ("[jokers=1,jokers=1]", "rules", "out of order"),
        ("[jokers=0]", "rules.jokers", "the default"),
        ("[jokers=3]", "rules.jokers", "at most 2"),
        ("[jokers=x]", "rules.jokers", "not a non-negative integer"),
        ("[seven_lower=yes]", "rules.seven_lower", "true or false"),
        ("[starter_rule=youngest]", "rules.starter_rule", "youngest"),
    ],
)
def test_a_bad_rules_field_names_the_flag(text: str, field: str, words: str) -> None:
    with pytest.raises(InvalidPosition) as info:
        notation.parse_rules_field(text, palace.Rules)
    assert info.value.field == field and words in str(info.value)


def test_the_rules_of_another_game_are_refused() -> None:
    text = slapjack.format_position(
        Match(slapjack.GAME, slapjack.GAME.make_setup(2, 1), record=False).state, REF
    )
    with pytest.raises(InvalidPosition) as info:
        slapjack.parse_position(text, spit.Rules())  # type: ignore[arg-type]
    assert info.value.field == "rules" and "slapjack rules" in str(info.value)
