"""Commands check their field types at construction (issue 21, item 11).

``palace.Play(cards=("4S",))`` (a string where a Card belongs) used to be built, then rejected
by the rules as a card "not in your hand". Every command class of every game (``kit.command``)
now refuses a wrong type when it is built, naming the field and the type it expected; the check
is made once, in the kit, from the class's annotations.
"""

from __future__ import annotations

import dataclasses
import pickle
import typing
from typing import Any

import pytest

from cardcore import kit
from cardcore.cards import HIDDEN, Card
from cardcore.commands import FieldTypeError
from cardcore.engine import check_command, needs_no_check
from cardcore.errors import DecodeError
from cardcore.games import palace, ratscrew
from cardcore.registry import GAMES

QS = Card.parse("QS")

GOOD: dict[Any, Any] = {Card: QS, int: 2, str: "timer", tuple[Card, ...]: (QS, Card.parse("4H"))}
"""A value of each field type the games' commands declare (None is good for an optional)."""

BAD: dict[Any, list[Any]] = {
    Card: ["QS", 3, None, HIDDEN, (QS,)],
    int: [True, "2", 2.0, None, QS],
    str: [1, b"timer", None],
    tuple[Card, ...]: [["QS"], ("QS",), (QS, "4H"), QS, (QS, None), ([QS],), None],
}
"""Values of the wrong type for each, the string-for-a-card mistake first."""


def fields() -> list[tuple[str, type, str, Any, bool]]:
    """``(id, class, field, declared type, optional)`` of every field of every command."""
    out = []
    for game in GAMES:
        for cls in game.command_types:
            hints = typing.get_type_hints(cls)
            for f in dataclasses.fields(cls):
                hint = hints[f.name]
                args = typing.get_args(hint)
                optional = type(None) in args
                base = next(a for a in args if a is not type(None)) if optional else hint
                out.append((f"{game.name}.{cls.__name__}.{f.name}", cls, f.name, base, optional))
    return out


FIELDS = fields()


def build(cls: type, name: str, value: Any) -> Any:
    """An instance of ``cls`` with ``name`` set to ``value`` and good values elsewhere."""
    hints = typing.get_type_hints(cls)
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name == name:
            kwargs[f.name] = value
        elif f.default is dataclasses.MISSING:
            kwargs[f.name] = GOOD[hints[f.name]]
    return cls(**kwargs)


@pytest.mark.parametrize(
    ("cls", "name", "hint", "optional"), [f[1:] for f in FIELDS], ids=[f[0] for f in FIELDS]
)
def test_every_field_of_every_command_refuses_a_wrong_type(
    cls: type, name: str, hint: Any, optional: bool
) -> None:
    good = build(cls, name, GOOD[hint])
    assert getattr(good, name) == GOOD[hint]
    if optional:
        assert getattr(build(cls, name, None), name) is None
    for value in BAD[hint]:
        if optional and value is None:
            continue
        with pytest.raises(FieldTypeError) as info:
            build(cls, name, value)
        # named by its game (cardcore.games.spit.rules.Play is spit.Play), kit.Resign by the kit
        parts = cls.__module__.split(".")
        module = parts[2] if parts[:2] == ["cardcore", "games"] else parts[-1]
        assert info.value.field == f"{module}.{cls.__name__}.{name}"
        assert str(info.value).startswith(f"{module}.{cls.__name__}.{name}: expected ")
        assert isinstance(info.value, TypeError)


def test_a_string_for_a_card_is_refused_when_built_saying_how_to_make_a_card() -> None:
    with pytest.raises(FieldTypeError) as info:
        palace.Play(cards=("4S",))  # type: ignore[arg-type]
    assert str(info.value) == (
        "palace.Play.cards: expected a tuple of Card, got ('4S',) (item 0 is str '4S') "
        "(a card is Card.parse('4S'))"
    )
    with pytest.raises(
        FieldTypeError, match=r"ratscrew.Slap.expect_epoch: expected an int or None, got bool True"
    ):
        ratscrew.Slap(expect_epoch=True)  # type: ignore[arg-type]


def test_commands_built_right_still_compare_hash_pickle_and_read_back() -> None:
    play = palace.Play((QS,))
    assert play == palace.Play(cards=(QS,)) and hash(play) == hash(palace.Play((QS,)))
    assert pickle.loads(pickle.dumps(play)) == play
    assert eval(repr(play), {"Play": palace.Play, "Card": Card}) == play
    with pytest.raises(dataclasses.FrozenInstanceError):
        play.cards = ()  # type: ignore[misc]


def test_a_command_decoded_from_json_is_refused_as_before() -> None:
    """The codec checks JSON before it builds: its errors name the JSON field, as ever."""
    with pytest.raises(DecodeError) as info:
        palace.GAME.decode_command({"kind": "Play", "cards": ["4X"]})
    assert info.value.field == "command.cards[0]"
    assert palace.GAME.decode_command({"kind": "Play", "cards": ["4S"]}) == palace.Play(
        (Card.parse("4S"),)
    )


def test_a_plain_record_command_is_still_checked_by_the_sequencer() -> None:
    """A game of your own whose commands are plain records (no construction check) still has
    the bool-for-an-int guard of ``Match.submit`` (``check_command``); a checked command skips
    it, its constructor having refused a bool already."""

    @kit.record
    class Move:
        pile: int

    with pytest.raises(DecodeError, match=r"command\.pile"):
        check_command(Move(True))
    check_command(palace.PlayFaceDown(1))
    skipped = needs_no_check((Move, palace.PlayFaceDown))  # what a sequencer does not ask
    assert Move not in skipped and palace.PlayFaceDown in skipped
