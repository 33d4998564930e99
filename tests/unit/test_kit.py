"""cardcore.kit: the mechanics the games share, tested on their own."""

from __future__ import annotations

import dis
import importlib.util
import inspect
import linecache
import pickle
import traceback
import types
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

import cardcore
from cardcore import kit
from cardcore.cards import Card, parse_cards
from cardcore.engine import Role, Setup, Viewer, check_seat
from cardcore.errors import InvalidPosition, InvalidSeat
from cardcore.kit import codegen
from cardcore.rng import Rng


class Table(NamedTuple):
    hands: tuple[tuple[Card, ...], ...]
    layouts: tuple[tuple[tuple[Card, ...], ...], ...]
    up: tuple[tuple[int, ...], ...]
    centre: tuple[tuple[Card, ...], ...]
    started: bool


ZONES = kit.Zones(
    kit.Zone("hands", "owner", per_seat=True),
    kit.Zone("layouts", "nobody", per_seat=True, piles=True, face_up="up"),
    kit.Zone("centre", "everyone", piles=True, hidden_while=lambda t: not t.started),
)
TABLE = Table(
    hands=(parse_cards("AS 2S 3S"), parse_cards("4S 5S 6S")),
    layouts=((parse_cards("7S 8S"), parse_cards("9S")), (parse_cards("10S JS QS"), ())),
    up=((1, 1), (1, 0)),
    centre=(parse_cards("KS"), parse_cards("AH")),
    started=True,
)


def places(table: Table) -> dict[str, object]:
    return {f: getattr(table, f) for f in ("hands", "layouts", "centre")}


def test_cards_lists_every_zone_in_order() -> None:
    assert ZONES.cards(TABLE) == list(parse_cards("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AH"))


@pytest.mark.parametrize("viewer", [0, 1, Role.SPECTATOR])
def test_shuffle_hidden_moves_only_what_the_viewer_cannot_see(viewer: object) -> None:
    fixed = {  # what the viewer sees stays in its place: own hand, face-up tops, the centre
        0: ["hands[0]"],
        1: ["hands[1]"],
        Role.SPECTATOR: [],
    }[viewer]
    moved = 0
    for i in range(40):
        alt = ZONES.shuffle_hidden(TABLE, viewer, Rng(i, 3))  # type: ignore[arg-type]
        assert Counter(ZONES.cards(alt)) == Counter(ZONES.cards(TABLE))
        assert alt.centre == TABLE.centre and alt.up == TABLE.up and alt.started
        for seat in (0, 1):  # the face-up tops never move; pile sizes never change
            for pile, alt_pile, up in zip(
                TABLE.layouts[seat], alt.layouts[seat], TABLE.up[seat], strict=True
            ):
                assert len(alt_pile) == len(pile)
                assert alt_pile[len(pile) - up :] == pile[len(pile) - up :]
            assert len(alt.hands[seat]) == len(TABLE.hands[seat])
        if "hands[0]" in fixed:
            assert alt.hands[0] == TABLE.hands[0]
        if "hands[1]" in fixed:
            assert alt.hands[1] == TABLE.hands[1]
        moved += alt != TABLE
    assert moved >= 35  # 5 or more hidden cards: the identity arrangement is rare


def test_the_referee_sees_everything_and_hidden_while_hides_a_zone() -> None:
    assert ZONES.shuffle_hidden(TABLE, Role.REFEREE, Rng(1, 1)) is TABLE
    before = TABLE._replace(started=False)
    moved = sum(
        ZONES.shuffle_hidden(before, 0, Rng(i, 1)).centre != before.centre for i in range(40)
    )
    assert moved > 0  # before the start the centre cards are face down to everyone


def test_check_cards_names_the_pile_with_one_too_many() -> None:
    deck = list(parse_cards("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AH"))
    ZONES.check_cards(TABLE, deck)
    doubled = TABLE._replace(centre=(parse_cards("KS"), parse_cards("7S")))
    with pytest.raises(InvalidPosition) as err:
        ZONES.check_cards(doubled, deck)
    assert err.value.field == "centre[1]"
    with pytest.raises(InvalidPosition) as err:
        ZONES.check_cards(TABLE._replace(hands=((1,), ())), deck)  # type: ignore[arg-type]
    assert err.value.field == "hands[0]"


def test_turn_order_patterns_and_joint_calls() -> None:
    stacks = ((Card.parse("AS"),), (), (Card.parse("2S"),), (Card.parse("3S"),))
    assert kit.next_holder(stacks, frozenset({2}), 0) == 3
    assert kit.next_holder(stacks, frozenset({2, 3}), 0) is None
    assert kit.next_in_game(4, frozenset({1}), 0) == 2
    assert kit.double_or_sandwich(parse_cards("5H 5S"), True, True) == (
        "double",
        parse_cards("5H 5S"),
    )
    assert kit.double_or_sandwich(parse_cards("5H 5S"), False, True) is None
    pile = parse_cards("5H 9C 5S")
    assert kit.double_or_sandwich(pile, True, True) == ("sandwich", pile)
    assert kit.double_or_sandwich(parse_cards("5H 5C 5S"), False, True) is None
    calls, done = kit.joint_call(frozenset(), 1, 2)
    assert calls == {1} and not done
    assert kit.joint_call(calls, 1, 2) == (calls, False)  # calling again changes nothing
    assert kit.joint_call(calls, 0, 2) == (frozenset(), True)


# --------------------------------------------------------------------------- speed: the state


@kit.state
class Position(NamedTuple):
    setup: Setup[None]
    stacks: tuple[tuple[Card, ...], ...]
    current: int | None = 0
    pile: tuple[Card, ...] = ()

    @kit.derived
    def pile_size(self) -> int:
        """How many cards the pile holds (counted once per position)."""
        COUNTED.append(self)
        return len(self.pile)


COUNTED: list[Position] = []
SETUP: Setup[None] = Setup(2, 0, None)
POSITION = Position(SETUP, (parse_cards("AS 2S"), parse_cards("3S")), 1, parse_cards("4S 5S"))


@pytest.mark.parametrize(
    "changes",
    [{}, {"current": None}, {"pile": ()}, {"stacks": ((), ()), "current": 0}, {"setup": SETUP}],
)
def test_replace_is_the_stdlibs_replace_faster(changes: dict[str, object]) -> None:
    base = Position.__mro__[1]  # the NamedTuple declared, whose _replace is the stdlib's
    expected = base._replace(POSITION, **changes)  # type: ignore[attr-defined]
    made = POSITION._replace(**changes)  # type: ignore[arg-type]
    assert made == expected and type(made) is Position and made._fields == POSITION._fields


def test_a_state_stays_a_named_tuple() -> None:
    assert isinstance(POSITION, tuple) and POSITION.current == 1 and POSITION[2] == 1
    assert Position(*POSITION) == POSITION and hash(POSITION) == hash(tuple(POSITION))
    assert pickle.loads(pickle.dumps(POSITION)) == POSITION
    assert repr(POSITION).startswith("Position(setup=")
    assert Position.__name__ == Position.__qualname__ == "Position"
    with pytest.raises(AttributeError):
        POSITION.current = 0  # type: ignore[misc]
    with pytest.raises(TypeError):  # an unknown field (mypy refuses it first)
        POSITION._replace(curent=0)  # type: ignore[call-arg]


def test_a_state_is_a_named_tuple_led_by_its_setup() -> None:
    class NoSetup(NamedTuple):
        stacks: tuple[int, ...]
        setup: int = 0

    with pytest.raises(TypeError, match="'setup' as its first field"):
        kit.state(NoSetup)
    with pytest.raises(TypeError, match="NamedTuple"):
        kit.state(dict)


def test_a_derived_value_is_worked_out_once_per_state() -> None:
    COUNTED.clear()
    fresh = POSITION._replace(current=0)
    assert fresh.pile_size == 2 and fresh.pile_size == 2
    assert len(COUNTED) == 1 and COUNTED[0] is fresh  # counted once
    after = fresh._replace(pile=())  # the next state keeps nothing of the last
    assert after.pile_size == 0 and len(COUNTED) == 2
    read = Position.pile_size.read
    other = POSITION._replace(current=None)
    assert read(other) == 2 and other.pile_size == 2 and len(COUNTED) == 3
    assert other == POSITION._replace(current=None)  # a kept value is not part of the state
    assert (
        Position.pile_size.__doc__ == "How many cards the pile holds (counted once per position)."
    )
    assert isinstance(Position.pile_size, kit.derived)


class _Other(NamedTuple):
    current: int | None = 0
    pile: tuple[Card, ...] = ()


def _step(s: Position, card: Card, other: _Other) -> tuple[Position, _Other, Position]:
    """A rule that builds states: the next, another NamedTuple's next, and one made in a call."""
    t = s._replace(pile=s.pile + (card,), current=None if s.current else 1)
    o = other._replace(pile=other.pile + (card,))  # not a Position: its own _replace
    nested = t._replace(stacks=t._replace(current=0).stacks[:1] + ((card,),))
    if card.rank == 13:
        raise ValueError("no kings")  # the line a traceback names
    return t, o, nested


_built = kit.builds(Position)(_step)


def test_builds_compiles_replace_as_the_positional_build_with_the_same_results() -> None:
    """kit.builds: each ``x._replace(...)`` on a Position runs as ``tuple.__new__(Position, ...)``
    (no call of ``_replace``), on anything else as written; the same values, the same types, the
    rule's name, words and lines."""
    assert _built is not _step and _built.__code__.co_name == "_step"
    assert "_replace" not in _built.__code__.co_names or "_kit_new" in _built.__code__.co_freevars
    assert _built.__wrapped__ is _step and _built.__doc__ == _step.__doc__  # type: ignore[attr-defined]
    for card in parse_cards("QS 2H"):
        for other in (_Other(), _Other(None, parse_cards("3S"))):
            for position in (POSITION, POSITION._replace(current=None, pile=())):
                got, want = _built(position, card, other), _step(position, card, other)
                assert got == want and [type(x) for x in got] == [type(x) for x in want]
                assert [type(x) for x in got] == [Position, _Other, Position]
    with pytest.raises(ValueError, match="no kings") as info:
        _built(POSITION, Card.parse("KS"), _Other())
    frame = traceback.extract_tb(info.value.__traceback__)[-1]
    assert frame.name == "_step" and frame.line is not None and "traceback names" in frame.line


def test_builds_takes_a_state_class_and_leaves_what_it_cannot_compile() -> None:
    with pytest.raises(TypeError, match=r"kit\.state class"):
        kit.builds(_Other)
    offset = 1

    def closure(s: Position) -> Position:
        return s._replace(current=offset)

    assert kit.builds(Position)(closure) is closure  # a closure stays as written
    assert closure(POSITION).current == 1


def _next(s: Position, card: Card) -> Position:
    """The statement form of a build: ``return x._replace(...)``."""
    return s._replace(pile=s.pile + (card,), current=None if s.current else 1)


_next_built = kit.builds(Position)(_next)


def test_builds_unpacks_the_state_of_a_returned_build() -> None:
    """``return s._replace(...)`` runs as one unpacking of ``s`` and a positional build; on
    another NamedTuple, as written."""
    assert "UNPACK_SEQUENCE" in {i.opname for i in dis.get_instructions(_next_built)}
    for position in (POSITION, POSITION._replace(current=None, pile=())):
        got = _next_built(position, Card.parse("QS"))
        assert got == _next(position, Card.parse("QS")) and type(got) is Position
    other = _Other(None, parse_cards("3S"))
    assert _next_built(other, Card.parse("QS")) == _Other(1, parse_cards("3S QS"))  # type: ignore[arg-type]


# --------------------------------------------------------------------------- speed: inline


@kit.inline
def _top_rank(pile: tuple[Card, ...], empty: int) -> int:
    """A one-expression helper."""
    return pile[-1].rank if pile else empty


@kit.inline
def _tops(s: Position) -> tuple[int, int]:
    return _top_rank(s.pile, 0), _top_rank(s.stacks[0], -1)  # a helper in a helper


def _pile_size_plus(s: Position, n: int) -> int:
    return len(s.pile) + n


@kit.hot
def _hot_rule(s: Position, extra: tuple[Card, ...]) -> tuple[int, ...]:
    """Its calls of _tops with pure reads are written in; a call with a computed argument, or
    one whose helper reads a global the rule has a local of, stays a call."""
    written = _tops(s)
    computed = _top_rank(s.pile + extra, 0)  # not a pure read: a call
    if not s.stacks[1]:
        raise ValueError("no second stack")  # the line a traceback names
    return (*written, computed)


def _shadowing(s: Position, _top_rank: int) -> int:
    return _tops(s)[0] + _top_rank


_hot_shadowing = kit.hot(_shadowing)


def test_inline_writes_one_expression_helpers_into_hot_rules() -> None:
    """kit.inline / kit.hot: the same answers, without calling the helpers it could write in;
    the rule's name, words and lines as they were; the helpers themselves unchanged."""
    names = codegen.names_read(_hot_rule.__code__)
    assert "_tops" not in names and "_top_rank" in names  # the computed argument's call stays
    assert _hot_rule.__wrapped__.__code__ is not _hot_rule.__code__  # type: ignore[attr-defined]
    assert _hot_rule.__name__ == "_hot_rule" and _hot_rule.__doc__ == _hot_rule.__wrapped__.__doc__  # type: ignore[attr-defined]
    for position in (POSITION, POSITION._replace(pile=()), POSITION._replace(stacks=((), ("x",)))):
        for extra in ((), parse_cards("KS")):
            assert _hot_rule(position, extra) == _hot_rule.__wrapped__(position, extra)  # type: ignore[attr-defined]
    assert _top_rank(parse_cards("2S 5S"), 0) == 5 and _tops(POSITION) == (5, 2)
    fault = _frames(lambda: _hot_rule(POSITION._replace(stacks=(parse_cards("AS"), ())), ()))
    assert [f.name for f in fault] == ["_hot_rule"]
    assert fault[0].line is not None and fault[0].line.endswith("# the line a traceback names")


def test_inline_leaves_a_call_whose_helper_reads_a_name_the_rule_binds() -> None:
    """``_tops`` reads the global ``_top_rank``; in ``_shadowing`` that name is a parameter, so
    writing ``_tops`` in would read the parameter: the call stays."""
    assert "_tops" in codegen.names_read(_hot_shadowing.__code__)
    assert _hot_shadowing(POSITION, 10) == _shadowing(POSITION, 10) == 15


@kit.hot
def _seat_checked(s: Position, seat: object) -> int:
    """Another module's helper written in: ``kit.seat_of``, whose global ``check_seat`` the rule
    reads from a cell of its own."""
    return kit.seat_of(2, seat) + len(s.pile)


def test_inline_writes_in_another_modules_helper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``kit.seat_of`` is written into a hot rule (the pure build's seat check at no call), with
    the same answers and refusals as the call; a rule whose module binds a builtin the helper
    reads (``type``) keeps the call, as it would otherwise read its module's ``type``."""
    assert "seat_of" not in codegen.names_read(_seat_checked.__code__)
    assert _seat_checked.__code__.co_freevars == ("_kit_check_seat",)
    assert _seat_checked(POSITION, 1) == 3
    for bad in (2, -1, True, "0", None):
        with pytest.raises(InvalidSeat) as written:
            _seat_checked(POSITION, bad)
        with pytest.raises(InvalidSeat) as called:
            kit.seat_of(2, bad)
        assert str(written.value) == str(called.value)
    source = "from cardcore import kit\ntype = None\n\n@kit.hot\ndef rule(seat):\n"
    module = _module_from(source + "    return kit.seat_of(2, seat)\n", tmp_path, "shadows")
    assert "seat_of" in codegen.names_read(module.rule.__code__) and module.rule(1) == 1
    # two modules' helpers reading a global of one name, each its own: the first written in,
    # the second left a call (one cell per name), the answer the same
    helper = "from cardcore import kit\nBASE = {}\n\n@kit.inline\ndef f(x):\n    return x + BASE\n"
    for b in (1, 10):
        (tmp_path / f"kit_base_{b}.py").write_text(helper.format(b))
    monkeypatch.syspath_prepend(tmp_path)
    source = "import kit_base_1 as one\nimport kit_base_10 as ten\n\n\ndef rule(x):\n"
    rules = _module_from(source + "    return one.f(x) * ten.f(x)\n", tmp_path, "two")
    hot = kit.hot(rules.rule)
    assert hot is not rules.rule and hot(1) == rules.rule(1) == 22
    assert hot.__code__.co_freevars == ("_kit_BASE",) and "f" in codegen.names_read(hot.__code__)


def _module_from(source: str, folder: Path, name: str) -> Any:
    """A module of its own file holding ``source`` (a rule the kit reads the source of)."""
    path = folder / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_inline_takes_only_a_one_expression_function(tmp_path: Path) -> None:
    def body(x: int) -> int:
        return x

    with pytest.raises(TypeError, match="plain function of its module"):
        kit.inline(body)  # a closure
    for i, source in enumerate(
        [
            "def f(x):\n    y = x\n    return y\n",
            "def f(x=1):\n    return x\n",
            "def f(*xs):\n    return xs\n",
            "def f(xs):\n    return [x for x in xs]\n",
        ]
    ):
        module = _module_from(source, tmp_path, f"helper_{i}")
        with pytest.raises(TypeError, match="one 'return EXPR'"):
            kit.inline(module.f)
    assert kit.inline(_pile_size_plus) is _pile_size_plus  # the helper itself, marked


def test_a_function_of_unknown_code_flags_is_left_as_written() -> None:
    """CPython 3.14 (Pyodide, where the page verifies logs) marks a function with a docstring by
    a code flag 3.11 does not have: the kit leaves such a helper a call and such a rule as
    written (the same answers), rather than refusing to import."""
    code = _top_rank.__code__
    unknown = code.replace(co_flags=code.co_flags | 0x4000000)  # CO_HAS_DOCSTRING in 3.14
    helper = types.FunctionType(unknown, _top_rank.__globals__, "_top_rank")
    assert kit.inline(helper) is helper and not hasattr(helper, codegen.INLINE)
    written = _hot_rule.__wrapped__.__code__  # type: ignore[attr-defined]
    rule = types.FunctionType(
        written.replace(co_flags=written.co_flags | 0x4000000), _hot_rule.__globals__, "_hot_rule"
    )
    assert kit.hot(rule) is rule and rule(POSITION, ()) == _hot_rule(POSITION, ())


@pytest.mark.skipif(
    cardcore.compiled, reason="the kit's generated code: the compiled build leaves rules as written"
)
@kit.seated
def _seated_tops(state: Position, seat: int) -> tuple[int, int]:
    return _tops(state)


def test_seated_rules_trusted_form_is_hot() -> None:
    """Match asks ``kit.trusted(decide)``: a seated rule's trusted form is compiled with its
    helpers written in too (here ``_tops``); a rule that calls no helper is left as written
    (``hot``: nothing to gain, only import time to pay). No game's rule is seated any more
    (their native rules check their seat themselves, kit.seat_of): the kit's own example."""
    trusted = kit.trusted(_seated_tops)
    assert trusted is not inspect.unwrap(_seated_tops)
    assert trusted(POSITION, True) == _seated_tops(POSITION, 0)  # the same answer, unchecked
    assert "_tops" in codegen.names_read(inspect.unwrap(_seated_tops).__code__)
    assert "_tops" not in codegen.names_read(trusted.__code__)
    assert kit.hot(_pile_size_plus) is _pile_size_plus  # no helper to write in


# --------------------------------------------------------------------------- speed: tables


def test_tabulate_keeps_a_rule_for_every_combination() -> None:
    one = kit.tabulate(lambda n: n * n, range(4))
    assert dict(one) == {0: 0, 1: 1, 2: 4, 3: 9}
    two = kit.tabulate(lambda a, b: f"{a}{b}", "ab", (1, 2))
    assert dict(two) == {("a", 1): "a1", ("a", 2): "a2", ("b", 1): "b1", ("b", 2): "b2"}
    with pytest.raises(TypeError):
        two["c", 1] = "c1"  # type: ignore[index]
    plays = kit.tabulate(kit.Resign, (None, "timer"))  # a table of commands: built once, shared
    assert plays["timer"] == kit.Resign("timer") and plays["timer"] is plays["timer"]


def test_tabulate_refuses_a_domain_it_could_not_look_up() -> None:
    with pytest.raises(ValueError, match="True and 1"):
        kit.tabulate(str, (0, 1, True))  # a look-up cannot tell True from 1 (style.md)
    with pytest.raises(ValueError, match="twice"):
        kit.tabulate(str, "aba")
    with pytest.raises(TypeError):
        kit.tabulate(str)  # type: ignore[call-overload]


def test_subsets_are_every_set_of_options() -> None:
    assert kit.subsets("ab") == tuple(map(frozenset, ("", "a", "b", "ab")))
    assert len(kit.subsets(range(8))) == 256


def test_next_holder_walks_the_seats_clockwise_for_every_table() -> None:
    """``next_holder`` reads its order from a table: the table is the modular walk."""
    rng = Rng(5, 0)
    for n in range(1, kit.MAX_SEATS + 1):
        for p in range(n):
            stacks = tuple((Card.parse("AS"),) * rng.below(2) for _ in range(n))
            out = frozenset(q for q in range(n) if rng.below(4) == 0)
            walk = [(p + i) % n for i in range(1, n)]
            expected = next((q for q in walk if stacks[q] and q not in out), None)
            assert kit.next_holder(stacks, out, p) == expected


# --------------------------------------------------------------------------- speed: seats


@kit.seated
def _commands_of(state: Position, seat: int) -> tuple[int, ...]:
    return (seat,)


@kit.seated
def _sensible(state: Position, seat: int, command: object) -> bool:
    return command == seat


@pytest.mark.parametrize("seat", [2, -1, True, False, 1.0, "0", None])
def test_seated_refuses_what_check_seat_refuses_in_its_words(seat: object) -> None:
    with pytest.raises(InvalidSeat) as expected:
        check_seat(2, seat)
    for call in (
        lambda: _commands_of(POSITION, seat),  # type: ignore[arg-type]
        lambda: _sensible(POSITION, seat, 0),  # type: ignore[arg-type]
    ):
        with pytest.raises(InvalidSeat) as got:
            call()
        assert str(got.value) == str(expected.value)


def test_seated_passes_a_seat_and_the_rule_behind_trusts_it() -> None:
    assert _commands_of(POSITION, 1) == (1,) and _sensible(POSITION, 0, 0)
    assert _commands_of.__name__ == "_commands_of"
    trusted = kit.trusted(_commands_of)
    assert trusted is not _commands_of and trusted(POSITION, True) == (True,)  # no check
    assert kit.trusted(len) is len  # a function that checks nothing is its own rule
    with pytest.raises(TypeError, match="rule"):
        kit.seated(lambda state, seat, a, b: None)


@kit.seated
def _play(state: Position, seat: int, card: str) -> Card:
    """Seat ``seat`` plays ``card`` (the check goes after this docstring)."""
    if card == "??":
        raise ValueError(f"seat {seat} cannot play a hidden card")  # the line a traceback names
    return Card.parse(card)


def _frames(call: Callable[[], object]) -> list[traceback.FrameSummary]:
    """The frames of the exception ``call`` raises, from the call's own on."""
    try:
        call()
    except Exception as exc:
        return traceback.extract_tb(exc.__traceback__)[2:]  # past _frames and the lambda
    raise AssertionError("nothing raised")


def test_seated_checks_in_the_rules_own_frame() -> None:
    """kit.seated compiles a rule of its module's top level again with the check as its first
    statement: the check and the rule are one frame; the rule's words, lines and signature are
    as they were."""
    rule = kit.trusted(_play)
    assert _play.__code__ is not rule.__code__ and _play.__code__.co_filename == __file__
    assert (_play.__name__, _play.__qualname__, _play.__doc__) == ("_play", "_play", rule.__doc__)
    assert inspect.signature(_play) == inspect.signature(rule)
    assert _play(POSITION, 1, "QS") is Card.parse("QS")
    fault = _frames(lambda: _play(POSITION, 1, "??"))
    assert [f.name for f in fault] == ["_play"]
    assert fault[0].lineno == inspect.unwrap(rule).__code__.co_firstlineno + 4
    assert fault[0].line is not None and fault[0].line.endswith("# the line a traceback names")
    refused = _frames(lambda: _play(POSITION, 2, "QS"))
    assert [f.name for f in refused] == ["_play", "check_seat"]


def test_seated_wraps_a_rule_it_cannot_compile_again() -> None:
    """A closure (or a rule whose source cannot be read, or whose source is not the code that
    runs) is wrapped in a function that checks the seat, then calls it: the same answers."""
    offset = 10

    @kit.seated
    def commands(state: Position, seat: int) -> tuple[int, ...]:
        return (seat + offset,)

    assert commands(POSITION, 1) == (11,) and kit.trusted(commands)(POSITION, 5) == (15,)
    with pytest.raises(InvalidSeat):
        commands(POSITION, True)  # a bool is no seat (mypy lets it through as an int)
    assert [Path(f.filename).parts[-2:] for f in _frames(lambda: commands(POSITION, 7))][:1] == [
        ("kit", "seats.py")
    ]


def _numbers() -> Iterator[int]:
    yield 1


@pytest.mark.parametrize(
    "rule",
    [len, lambda state, seat: seat, _numbers, Position._replace],
    ids=["builtin", "lambda", "generator", "generated"],
)
def test_with_prologue_declines_what_is_not_a_plain_function(rule: Callable[..., Any]) -> None:
    assert codegen.with_prologue(rule, ["pass"], {}) is None


def test_with_prologue_declines_a_source_changed_since_import(tmp_path: Path) -> None:
    path = tmp_path / "changed_rules.py"
    path.write_text("def rule(state, seat):\n    return seat\n")
    spec = importlib.util.spec_from_file_location("changed_rules", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert codegen.with_prologue(module.rule, ["pass"], {}) is not None
    path.write_text("def rule(state, seat):\n    return -seat\n")
    linecache.checkcache(str(path))
    assert codegen.with_prologue(module.rule, ["pass"], {}) is None  # not the code that runs


def test_viewed_and_check_viewer_let_roles_and_seats_through() -> None:
    @kit.viewed
    def shown(state: Position, viewer: Viewer) -> str:
        return str(viewer)

    assert shown(POSITION, 1) == "1" and shown(POSITION, Role.SPECTATOR) == "spectator"
    for bad in (2, -1, True, None):
        with pytest.raises(InvalidSeat):
            shown(POSITION, bad)  # type: ignore[arg-type]
        with pytest.raises(InvalidSeat):
            kit.check_viewer(bad, 2)
    kit.check_viewer(Role.REFEREE, 2)


# --------------------------------------------------------------------------- unions


def test_union_types_are_the_unions_classes_in_order() -> None:
    assert kit.union_types(Card | kit.Resign) == (Card, kit.Resign)
    assert kit.union_types(kit.Resign) == (kit.Resign,)
    with pytest.raises(TypeError):
        kit.union_types(int | tuple[int, ...])
