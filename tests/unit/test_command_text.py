"""A text syntax for every game's commands (issue 21, item 11; docs/notation.md#commands).

``game.parse_command(state, seat, text)`` reads a command and ``game.format_command(command)``
(also ``str(command)``) writes it; every command the rules list along seeded bot games reads
back from its text, every field combination too, the documented examples mean what the docs say,
and a text that is not a command is refused with a ``ValueError`` that quotes it and says what
was expected.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from cardcore import codec, kit
from cardcore.cards import Card, parse_cards
from cardcore.commands import CommandSyntaxError, syntax_of
from cardcore.errors import InvalidSeat
from cardcore.games import palace, ratscrew, slapjack, speed, spit
from cardcore.match import Match
from cardcore.registry import GAMES

from .bot_play import AnyGame, play

DOCS = Path(__file__).resolve().parents[2] / "docs" / "notation.md"

VARIANTS: dict[str, list[dict[str, Any]]] = {
    "ratscrew": [{}, {"auto_collect": False, "late_slap": "reject"}],
    "slapjack": [{}],
    "palace": [{}, {"jokers": 1, "num_decks": 2}],
    "spit": [{}, {"pile_claim": "choose", "stack_equal_in_layout": True}],
    "speed": [{}, {"multi_card_play": True, "auto_refill": False}],
}
"""Rules under which every kind of command turns up in bot games (Spit's ``take`` needs
``pile_claim="choose"``, Speed's ``draw`` and ``then`` need theirs)."""

game_param = pytest.mark.parametrize("game", GAMES, ids=[g.name for g in GAMES])


def start(game: AnyGame, rules: dict[str, Any] | None = None, seed: int = 1) -> Any:
    return Match(game, game.make_setup(game.info.min_seats, seed, rules), record=False).state


@game_param
def test_every_legal_command_reads_back_from_its_text(game: AnyGame) -> None:
    kinds: set[type] = set()
    texts = 0
    for rules in VARIANTS[game.name]:
        for seed in range(3):
            for bots in ("random", "reaction"):
                match = Match(game, game.make_setup(game.info.min_seats, seed, rules), record=False)
                for m in play(match, bots, seed, 400):
                    for seat in range(m.setup.seats):
                        for command in game.legal_commands(m.state, seat):
                            text = game.format_command(command)
                            assert str(command) == text and "\n" not in text and text.isascii()
                            assert game.parse_command(m.state, seat, text) == command, text
                            kinds.add(type(command))
                            texts += 1
    # Every kind of command was met (Resign is never listed: no bot resigns by chance).
    assert kinds == set(game.command_types) - {kit.Resign} and texts > 100


C = Card.parse

EVERY_FIELD: list[tuple[AnyGame, Any, str]] = [
    (ratscrew.GAME, ratscrew.Slap(expect_epoch=3), "slap epoch 3"),
    (ratscrew.GAME, ratscrew.Slap(seen_count=12), "slap seen 12"),
    (ratscrew.GAME, ratscrew.Slap(3, 12), "slap epoch 3 seen 12"),
    (slapjack.GAME, slapjack.Slap(expect_epoch=0), "slap epoch 0"),
    (palace.GAME, palace.Play(parse_cards("4S 4H 4D")), "play 4S 4H 4D"),
    (palace.GAME, palace.Play(), "play"),
    (palace.GAME, palace.AddDrawn(parse_cards("10C")), "add 10C"),
    (palace.GAME, palace.PlayFaceDown(2), "blind 2"),
    (spit.GAME, spit.Play(4, 1, expect_top=C("QS")), "play 4 1 on QS"),
    (spit.GAME, spit.Spit(target=1), "spit onto 1"),
    (
        speed.GAME,
        speed.Play(C("4S"), 1, C("5D"), parse_cards("5S 6H")),
        "play 4S 1 on 5D then 5S 6H",
    ),
    (speed.GAME, speed.Play(C("10H"), 0, then=parse_cards("JH")), "play 10H 0 then JH"),
    (speed.GAME, kit.Resign(), "resign"),
    (palace.GAME, kit.Resign(by=kit.RESIGN_BY_TIMER), "resign by timer"),
]


@pytest.mark.parametrize(
    ("game", "command", "text"), EVERY_FIELD, ids=[t for _, _, t in EVERY_FIELD]
)
def test_every_optional_part_is_written_and_read(game: AnyGame, command: Any, text: str) -> None:
    assert game.format_command(command) == str(command) == text
    assert (
        game.parse_command(start(game, {"jokers": 0} if game is palace.GAME else None), 0, text)
        == command
    )


def test_a_person_may_type_loosely_the_writer_writes_one_form() -> None:
    state = start(speed.GAME)
    loose = "PLAY 4s 1  THEN 5♠ th  On 5d"  # any case, suit symbols, T for ten, parts in any order
    command = speed.GAME.parse_command(state, 1, loose)
    assert command == speed.Play(C("4S"), 1, C("5D"), parse_cards("5S 10H"))
    assert str(command) == "play 4S 1 on 5D then 5S 10H"


def test_the_documented_commands_mean_what_the_docs_say() -> None:
    """docs/notation.md#commands: every text of a game's table reads as the JSON beside it
    (the JSON's optional fields are those the text writes)."""
    doc = DOCS.read_text()
    sections = re.split(r"^### ", doc.split("## Commands", 1)[1], flags=re.M)[1:]
    by_title = {g.info.title.split(" (")[0]: g for g in GAMES}
    seen = set()
    for section in sections:
        game = by_title[section.splitlines()[0].strip()]
        seen.add(game.name)
        state = start(game)
        for row in re.findall(r"^\| `.*\|$", section, flags=re.M):
            texts_cell, _, json_cell = [c.strip() for c in row.strip("|").split("|")]
            texts = re.findall(r"`([^`]+)`", texts_cell)
            example = json.loads(re.findall(r"`([^`]+)`", json_cell)[0])
            commands = [game.parse_command(state, 0, t) for t in texts]
            for t, c in zip(texts, commands, strict=True):
                assert str(c) == t  # each text is the canonical one
            # The longest text fills every field the JSON names, with the JSON's values.
            assert codec.encode(commands[-1]) == example, texts[-1]
        kinds = {json.loads(j)["kind"] for j in re.findall(r'`(\{"kind".*?\})`', section)}
        assert kinds == {c.__name__ for c in game.command_types} - {"Resign"}
    assert seen == {g.name for g in GAMES}


BAD: list[tuple[AnyGame, str, str]] = [
    (
        palace.GAME,
        "play 4S 4X",
        "'play 4S 4X': cards: '4X' is not a card (e.g. AS, 10H, QC, JK); expected play CARDS...",
    ),
    (
        palace.GAME,
        "plya 4S",
        "'plya 4S': 'plya' is not a palace command; expected swap HAND_CARD UP_CARD | ready |",
    ),
    (
        palace.GAME,
        "swap 4S",
        "'swap 4S': up_card is missing (a card, e.g. QS); expected swap HAND_CARD UP_CARD",
    ),
    (palace.GAME, "", "'': no command; expected swap HAND_CARD UP_CARD"),
    (palace.GAME, "ready now", "'ready now': unexpected 'now'; expected ready"),
    (palace.GAME, "blind -1x", "'blind -1x': index: '-1x' is not a number; expected blind INDEX"),
    (
        palace.GAME,
        "play JK",
        "'play JK': cards: JK is not a card of this game's decks; expected play CARDS...",
    ),
    (ratscrew.GAME, "slap epoch 1 epoch 2", "'slap epoch 1 epoch 2': unexpected 'epoch'"),
    (ratscrew.GAME, "slap epoch", "'slap epoch': expect_epoch is missing (a number)"),
    (spit.GAME, "play 0 1 on", "'play 0 1 on': expect_top is missing (a card, e.g. QS)"),
    (spit.GAME, "flip", "'flip': pile is missing (a number); expected flip PILE"),
    (
        speed.GAME,
        "play 4S x",
        "'play 4S x': to: 'x' is not a number; expected play CARD TO [on EXPECT_TOP] [then ",
    ),
    (slapjack.GAME, "resign by two words", "'resign by two words': unexpected 'words'"),
]


@pytest.mark.parametrize(("game", "text", "message"), BAD, ids=[t or "empty" for _, t, _ in BAD])
def test_a_text_that_is_not_a_command_says_what_was_expected(
    game: AnyGame, text: str, message: str
) -> None:
    with pytest.raises(CommandSyntaxError) as info:
        game.parse_command(start(game), 0, text)
    assert str(info.value).startswith(message)
    assert isinstance(info.value, ValueError) and info.value.text == text


def test_parse_command_checks_its_seat_and_input() -> None:
    state = start(palace.GAME)
    for seat in (2, -1, True, "0"):
        with pytest.raises(InvalidSeat):
            palace.GAME.parse_command(state, seat, "ready")  # type: ignore[arg-type]
    with pytest.raises(CommandSyntaxError):
        palace.GAME.parse_command(state, 0, b"ready")  # type: ignore[arg-type]
    with pytest.raises(CommandSyntaxError, match="longer than"):
        palace.GAME.parse_command(state, 0, "play " + "4S " * 1000)


def test_format_command_refuses_another_games_command() -> None:
    with pytest.raises(TypeError, match="not a palace command"):
        palace.GAME.format_command(speed.FLIP)
    assert speed.GAME.format_command(speed.FLIP) == "flip"


@game_param
def test_every_command_declares_a_syntax_with_its_own_verb(game: AnyGame) -> None:
    syntaxes = [syntax_of(cls) for cls in game.command_types]
    assert all(s is not None for s in syntaxes)
    verbs = [s.verb for s in syntaxes if s is not None]
    assert len(set(verbs)) == len(verbs)
    assert game.command_usage == " | ".join(s.usage for s in syntaxes if s is not None)


@pytest.mark.parametrize(
    ("template", "words"),
    [
        ("{cards}", "must start with its verb"),
        ("play", "must name each field once"),
        ("play {cards} {cards}", "must name each field once"),
        ("play {nope}", "names no field 'nope'"),
        ("play [on {card}] {cards}", "optional parts last"),
        ("play {cards} {card}", "comes last among the required parts"),
        ("play [{card}] [then {cards}]", "must be the template's last"),
        ("play {card}{cards}", "cannot read the template"),
    ],
)
def test_a_template_that_cannot_be_read_back_is_refused_at_declaration(
    template: str, words: str
) -> None:
    with pytest.raises(TypeError, match=re.escape(words)):

        @kit.command(template)
        class Play:
            card: Card | None = None
            cards: tuple[Card, ...] = ()


def test_an_optional_part_needs_a_default_and_a_field_a_text_form() -> None:
    with pytest.raises(TypeError, match="needs a default"):

        @kit.command("flip [on {pile}]")
        class Flip:
            pile: int

    with pytest.raises(TypeError, match="has no text form"):

        @kit.command("deal {where}")
        class Deal:
            where: tuple[int, int]
