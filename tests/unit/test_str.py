"""``str()`` of views, outcomes, events and commands reads as text, not as a repr (issue 21,
item 11): views render one field per line (and only what the view holds), an outcome is one line
in the log's words, fit for a verdict message, and cards are their notation (``QS``), never
``Card.parse('QS')``. ``repr()`` stays a repr that reads back.
"""

from __future__ import annotations

import dataclasses

import pytest

from cardcore import log
from cardcore.cards import Card, parse_cards
from cardcore.engine import Outcome, Role, Termination
from cardcore.errors import CorruptLog
from cardcore.games import palace, ratscrew, speed
from cardcore.match import Match
from cardcore.registry import GAMES
from cardcore.rng import Rng

from .bot_play import AnyGame, play

game_param = pytest.mark.parametrize("game", GAMES, ids=[g.name for g in GAMES])


@game_param
def test_a_view_prints_its_fields_and_nothing_it_hides(game: AnyGame) -> None:
    seats = game.info.min_seats
    shuffler = Rng(3, 99)
    match = Match(game, game.make_setup(seats, 3), record=False)
    for m in list(play(match, "reaction", 3, 200))[::10]:
        for viewer in (*range(seats), Role.SPECTATOR, Role.REFEREE):
            view = game.view(m.state, viewer)
            text = str(view)
            lines = text.splitlines()
            assert [ln.split(": ", 1)[0] for ln in lines] == list(view.__dataclass_fields__)
            assert "Card.parse" not in text and "HIDDEN" not in text and text.isascii()
            # No leak: the cards the viewer cannot see may be anywhere, the text is the same.
            shuffled = game.shuffle_hidden(m.state, viewer, shuffler)
            assert str(game.view(shuffled, viewer)) == text
            assert repr(view).startswith("View(")  # the repr is still the repr


def test_a_view_writes_cards_as_the_notation_does() -> None:
    view = speed.GAME.view(Match(speed.GAME, speed.GAME.make_setup(2, 5)).state, 1)
    text = str(view)
    assert "hands: [[??x5] [6H JH 6C 2H 4S]]" in text.splitlines()
    assert "Card.parse('6H')" in repr(view)


OUTCOMES = [
    (Outcome(Termination.OUT_OF_CARDS, (0,)), "out of cards: seat 0 wins"),
    (Outcome(Termination.OUT_OF_CARDS, (2, 0), (1,)), "out of cards: seats 2, 0 win; seat 1 loses"),
    (Outcome(Termination.TARGET_SCORE, (1,), (), (3, 5)), "target score: seat 1 wins; scores 3/5"),
    (Outcome(Termination.ALL_CARDS, (1,)), "all cards: seat 1 wins"),
    (Outcome(Termination.EVENT_LIMIT), "event limit: no winner"),
    (Outcome(Termination.ABORTED), "aborted: no winner"),
    (Outcome(Termination.RESIGNED, (), (0, 1)), "resigned: no winner; seats 0, 1 lose"),
]


@pytest.mark.parametrize(("outcome", "text"), OUTCOMES, ids=[t for _, t in OUTCOMES])
def test_an_outcome_is_one_line_in_the_logs_words(outcome: Outcome, text: str) -> None:
    assert str(outcome) == text
    assert repr(outcome).startswith("Outcome(termination=<Termination.")  # repr as it was


def test_different_outcomes_never_read_alike() -> None:
    """A verdict quotes two outcomes side by side: equal texts must mean equal outcomes."""
    outcomes = {o for o, _ in OUTCOMES}
    for game in GAMES:
        for seed in range(6):
            match = Match(game, game.make_setup(game.info.min_seats, seed), record=False)
            for _ in play(match, "random", seed, 3000):
                pass
            if match.outcome is not None:
                outcomes.add(match.outcome)
    texts = {str(o) for o in outcomes}
    assert len(texts) == len(outcomes) > len(OUTCOMES)


def test_a_forged_winner_is_named_in_words_by_verify() -> None:
    """After the end anyone may rewrite the end line and recompute its plain hash: verify
    re-decides the game and quotes both outcomes, in words (no ``Outcome(termination=...``)."""
    game = ratscrew.GAME
    match = Match(game, game.make_setup(2, 4))
    for _ in play(match, "reaction", 4, 5000):
        pass
    assert match.writer is not None and match.outcome is not None
    lines = [dict(line) for line in match.writer.lines]
    real = match.outcome
    forged = dataclasses.replace(real, winners=(1 - real.winners[0],))
    end = dict(lines[-1], outcome=dict(lines[-1]["outcome"], winners=list(forged.winners)))
    end["hash"] = log._plain_hash(end)
    lines[-1] = end
    with pytest.raises(CorruptLog) as info:
        log.verify(lines)
    assert str(info.value).endswith(f"logged outcome {forged} differs from the game's {real}")
    assert (
        str(forged)
        == f"{real.termination.value.replace('_', ' ')}: seat {1 - real.winners[0]} wins"
    )


def test_an_event_is_one_line_with_cards_as_their_text() -> None:
    event = palace.CardsPlayed(0, parse_cards("4S 4H"), (), False)
    assert str(event) == "CardsPlayed(seat=0, from_hand=[4S 4H], from_up=[], out_of_turn=no)"
    assert repr(event).startswith("CardsPlayed(seat=0, from_hand=(Card.parse('4S'),")


@game_param
def test_every_event_of_a_game_prints_on_one_line(game: AnyGame) -> None:
    match = Match(game, game.make_setup(game.info.min_seats, 2))
    for _ in play(match, "random", 2, 300):
        pass
    assert match.writer is not None
    for line in match.writer.lines[1:]:
        for raw in line.get("events", []):
            text = str(game.decode_event(raw))
            assert "\n" not in text and "Card.parse" not in text and text.startswith(raw["kind"])


def test_a_command_prints_as_its_text() -> None:
    assert str(palace.Play(parse_cards("4S 4H"))) == "play 4S 4H"
    assert str(speed.Play(Card.parse("QS"), 1)) == "play QS 1"
    assert f"{ratscrew.Slap(expect_epoch=2)}" == "slap epoch 2"
    assert repr(palace.Play(parse_cards("4S"))) == "Play(cards=(Card.parse('4S'),))"
