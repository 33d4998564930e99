"""What every game is made of, written once: the record type of commands, events and views, the
game's state and the speed of the engine, turn order, slap patterns, joint calls, and zones (which
cards a state holds where, and who sees them).

A game module imports these instead of writing its own; each is the rule text of docs/games/ it
cites, kept small enough to read beside it. (Positions' notation and checks are in
:mod:`cardcore.notation`.)

**Speed lives here, and only here** (design.md, "Speed of the core"). A game's module is rule text:
it declares what it wants fast and the kit makes it so, by one mechanism each:

* :func:`state` — a game's ``State`` (a ``NamedTuple``) whose ``s._replace(field=...)`` is about
  as fast as a hand-written positional tuple build, so ``evolve`` names the fields it changes and
  nothing else;
* :class:`derived` — a value of a state (is the game over? what would a slap match?) worked out
  once per state and kept with it, for the questions asked of one position for every seat;
* :func:`tabulate` — a rule evaluated once, at import, over finite domains (the flag values, the
  cards, the seats), declared next to the readable rule it speeds up; a table of a command class is
  the game's interned commands;
* :func:`seated` / :func:`viewed` — the one check of the seat or viewer a rule function is given,
  so the rule below trusts it;
* :func:`union_types` — ``command_types`` and ``event_types`` read from the ``Command`` and
  ``Event`` unions, never repeated by hand.

Each is measured where it is defined. A compiled build (mypyc) keeps the same calls and may swap
how the kit makes them fast without touching a game.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import operator
import types
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import (
    Any,
    Concatenate,
    Final,
    Generic,
    Literal,
    ParamSpec,
    TypeVar,
    Union,
    dataclass_transform,
    get_args,
    get_origin,
    get_type_hints,
    overload,
)

from . import commands, notation, views
from .cards import Card, standard_deck
from .engine import Role, Viewer, check_seat
from .rng import Rng

# --------------------------------------------------------------------------- records

_R = TypeVar("_R")


def _frozen(self: object, name: str, *_: object) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


@dataclass_transform(frozen_default=True)
def record(cls: type[_R]) -> type[_R]:
    """A class of immutable values (events; commands and views have their own decorators below,
    made the same way): a slotted dataclass, so the codec, ``match`` statements, ``==``, ``hash``
    and ``repr`` work as for ``@dataclass(frozen=True, slots=True)``, built about 40 % faster
    (measured with timeit on Python 3.11: a four-field record ~0.42 us, the frozen dataclass ~0.69
    us, a NamedTuple ~0.33 us but equal to any tuple).

    The speed comes from ``__init__``: it stores each field through its slot's descriptor instead
    of ``object.__setattr__`` (what a frozen dataclass calls per field), while ``__setattr__``
    and ``__delattr__`` still raise ``FrozenInstanceError``. Type checkers treat it as a frozen
    dataclass. No ``__post_init__`` and no ``default_factory``: a record holds given values.

    ``repr`` reads back (``CardPlayed(seat=0, card=Card.parse('QS'))``); ``str`` is one readable
    line, cards as their text (``CardPlayed(seat=0, card=QS)``)."""
    made = _build(cls, checked=False)
    made.__str__ = _one_line
    return made  # type: ignore[no-any-return]


@dataclass_transform(frozen_default=True)
def view(cls: type[_R]) -> type[_R]:
    """A game's view class: a :func:`record` whose ``str`` is one line per field,
    ``name: value`` (:func:`cardcore.views.render_view`, cards as their text). It renders the
    view alone, so it shows only what its viewer may see."""
    made = _build(cls, checked=False)
    made.__str__ = _lines
    return made  # type: ignore[no-any-return]


@dataclass_transform(frozen_default=True)
def command(template: str) -> Callable[[type[_R]], type[_R]]:
    """A game's command class, with its text syntax: a :func:`record` that

    * checks the type of every field at construction, from the class's annotations, and raises
      :class:`~cardcore.commands.FieldTypeError` naming the field and the type expected
      (``Play(cards=("4S",))`` is refused there, not later as a card "not in your hand"). A
      class is exactly itself (``True`` is not an ``int``), a tuple's items are checked too;
    * reads and writes ``template`` (:mod:`cardcore.commands`; docs/notation.md#commands),
      e.g. ``@kit.command("swap {hand_card} {up_card}")``, kept on the class as ``syntax``;
      ``str(command)`` is its text (``"play 4S 4H"``).

    The check is a ``type(x) is C`` per field (one C-level set test for a tuple of cards), so
    commands built on the hot path stay cheap: measured with timeit on CPython 3.11, a two-card
    Palace ``Play`` 175 → 257 ns, Spit's ``Play(0, 1, card)`` 242 → 267 ns; the bot playouts of
    benchmarks/test_core.py moved within ±2 % (best of 24 interleaved runs; Palace, which builds
    its multi-card plays in ``legal_commands``, about -1.5 %). Most commands the games list are
    built once at import anyway."""

    def make(cls: type[_R]) -> type[_R]:
        made = _build(cls, checked=True)
        if "syntax" in made.__dataclass_fields__:
            raise TypeError(f"{made.__name__}: a command field may not be called 'syntax'")
        made.syntax = commands.Syntax(made, template, get_type_hints(made))
        made.__str__ = _command_text
        return made  # type: ignore[no-any-return]

    return make


def _one_line(self: object) -> str:
    return views.render_value(self, symbols=False)


def _lines(self: object) -> str:
    return views.render_view(self, symbols=False)


def _command_text(self: object) -> str:
    return commands.format_command(self)


def _build(cls: type, *, checked: bool) -> Any:
    """The record class of ``cls``, with the fast ``__init__`` (which checks the fields' types
    when ``checked``)."""
    made: Any = dataclass(slots=True, unsafe_hash=True)(cls)
    fields = dataclasses.fields(made)
    if hasattr(made, "__post_init__") or any(
        f.default_factory is not dataclasses.MISSING or not f.init for f in fields
    ):
        raise TypeError(f"{made.__name__}: a record takes no __post_init__ or default_factory")
    hints = get_type_hints(made) if checked else {}
    ns: dict[str, Any] = {}
    params, body = ["self"], []
    for f in fields:
        ns[f"_set_{f.name}"] = getattr(made, f.name).__set__
        if f.default is dataclasses.MISSING:
            params.append(f.name)
        else:
            ns[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        if checked:
            body += _check_lines(made, f, hints[f.name], ns)
        body.append(f"    _set_{f.name}(self, {f.name})")
    init = _compile("__init__", params, body or ["    pass"], ns)
    init.__qualname__ = f"{made.__qualname__}.__init__"
    init.__doc__ = made.__init__.__doc__
    setters = tuple(ns[f"_set_{f.name}"] for f in fields)
    names = tuple(f.name for f in fields)

    def __getstate__(self: Any) -> tuple[Any, ...]:  # pickle and copy, past __setattr__
        return tuple(getattr(self, n) for n in names)

    def __setstate__(self: Any, state: tuple[Any, ...]) -> None:
        for set_field, value in zip(setters, state, strict=True):
            set_field(self, value)

    made.__init__ = init
    made.__setattr__ = _frozen
    made.__delattr__ = _frozen
    made.__getstate__ = __getstate__
    made.__setstate__ = __setstate__
    return made


def _compile(name: str, params: Sequence[str], body: Sequence[str], ns: dict[str, Any]) -> Any:
    """The function ``def name(params): body`` compiled in the namespace ``ns``, as
    :mod:`dataclasses` and :func:`collections.namedtuple` build theirs. Every source passed here
    is made of field identifiers (a class's own annotations) and names bound in ``ns``: nothing
    else, so it reads nothing and writes nothing. The kit's one ``exec``
    (tests/unit/test_purity.py)."""
    exec(f"def {name}({', '.join(params)}):\n" + "\n".join(body), ns)
    return ns[name]


def _check_lines(made: type, f: dataclasses.Field[Any], hint: Any, ns: dict[str, Any]) -> list[str]:
    """The lines of ``__init__`` that refuse a value of field ``f`` not of type ``hint`` (a
    :class:`~cardcore.commands.FieldTypeError`), binding what they use in ``ns``."""
    if f.default is not dataclasses.MISSING and not _predicate(hint)(f.default):
        raise TypeError(f"{made.__name__}.{f.name}: the default is not of its type")
    test = _type_test(hint, f.name, ns, f"_type_{f.name}")
    ns[f"_fail_{f.name}"] = functools.partial(_wrong_type, made, f.name, hint)
    if "issuperset" not in test:  # a type() test cannot raise
        return [f"    if {test}: _fail_{f.name}({f.name})"]
    # A set test raises TypeError on an unhashable item: that item is wrong too.
    return [
        "    try:",
        f"        bad = {test}",
        "    except TypeError:",
        "        bad = True",
        f"    if bad: _fail_{f.name}({f.name})",
    ]


def _type_test(hint: Any, var: str, ns: dict[str, Any], key: str) -> str:
    """Source of a test, true when the argument ``var`` is not of type ``hint``, binding what
    it needs in ``ns`` under names starting with ``key``. The usual hints get an inline test
    (a class: ``type(x) is not C``; a tuple of a class: one C-level set check); any other goes
    through :func:`_predicate`."""
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, types.UnionType) and type(None) in args:
        rest = tuple(a for a in args if a is not type(None))
        inner: Any = rest[0] if len(rest) == 1 else Union[rest]  # noqa: UP007 - built at runtime
        return f"({var} is not None and {_type_test(inner, var, ns, key)})"
    if isinstance(hint, type) and origin is None:
        ns[key] = hint
        return f"type({var}) is not {key}"
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis and args[0] is Card:
        ns[key] = _EVERY_CARD  # cards are interned: a tuple of cards is a subset of them all
        return f"(type({var}) is not tuple or not {key}.issuperset({var}))"
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis and _is_class(args[0]):
        ns[key] = frozenset({args[0]})
        return f"(type({var}) is not tuple or not {key}.issuperset(map(type, {var})))"
    ns[key] = _predicate(hint)
    return f"not {key}({var})"


_EVERY_CARD: Final = frozenset(standard_deck(1, 1))
"""Every :class:`Card` instance (cards are interned; a joker once)."""


def _is_class(hint: Any) -> bool:
    return isinstance(hint, type) and get_origin(hint) is None


def _predicate(hint: Any) -> Callable[[Any], bool]:
    """Whether a value is of type ``hint``: classes exactly, unions, ``Literal``, tuples."""
    origin, args = get_origin(hint), get_args(hint)
    if _is_class(hint):
        return lambda v: type(v) is hint
    if origin in (Union, types.UnionType):
        options = tuple(_predicate(a) for a in args)
        return lambda v: any(ok(v) for ok in options)
    if origin is Literal:
        return lambda v: any(type(v) is type(a) and v == a for a in args)
    if hint is type(None) or hint is None:
        return lambda v: v is None
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = _predicate(args[0])
        return lambda v: type(v) is tuple and all(map(item, v))
    if origin is tuple:
        items = tuple(_predicate(a) for a in args)
        return lambda v: (
            type(v) is tuple
            and len(v) == len(items)
            and all(ok(x) for ok, x in zip(items, v, strict=True))
        )
    raise TypeError(f"a command field of type {hint!r} cannot be checked")


def _describe(hint: Any) -> str:
    """``hint`` in words: "a Card", "a tuple of Card", "an int or None", "one of 'a', 'b'"."""
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, types.UnionType):
        return " or ".join("None" if a is type(None) else _describe(a) for a in args)
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return f"a tuple of {_describe(args[0]).removeprefix('a ').removeprefix('an ')}"
    name = getattr(hint, "__name__", repr(hint))
    return f"an {name}" if name[:1] in "aeiouAEIOU" else f"a {name}"


def _wrong_type(cls: type, name: str, hint: Any, value: object) -> None:
    """Raise the :class:`~cardcore.commands.FieldTypeError` of ``cls.name`` given ``value``."""
    got = f"{type(value).__name__} {value!r:.40}"
    args = get_args(hint)
    if type(value) is tuple and get_origin(hint) is tuple and args[-1:] == (Ellipsis,):
        ok = _predicate(args[0])
        bad = next((i for i, x in enumerate(value) if not ok(x)), None)
        if bad is not None:
            got = f"{value!r:.40} (item {bad} is {type(value[bad]).__name__} {value[bad]!r:.20})"
            value = value[bad]
    hint_text = (
        f" (a card is Card.parse({value!r:.8}))"
        if type(value) is str and "Card" in _describe(hint)
        else ""
    )
    # A game's command is named by its game, wherever in the game's package it is declared
    # (cardcore.games.spit.rules.Play is spit.Play); any other by its module's last part.
    module = cls.__module__.split(".")
    owner = module[2] if module[:2] == ["cardcore", "games"] and len(module) > 2 else module[-1]
    field = f"{owner}.{cls.__name__}.{name}"
    raise commands.FieldTypeError(field, f"expected {_describe(hint)}, got {got}{hint_text}")


# --------------------------------------------------------------------------- the state

_S = TypeVar("_S")
_T = TypeVar("_T")
_P = ParamSpec("_P")


class _Unset:
    """The default of each parameter of a state's ``_replace``: the field keeps its value."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<unchanged>"


_UNSET: Final = _Unset()


def state(cls: type[_S]) -> type[_S]:
    """A game's ``State``: a ``NamedTuple`` whose first field is ``setup`` (``Match`` and the log
    replace it with ``s._replace(setup=...)``), made fast in the two ways an engine needs:

    * ``s._replace(field=...)`` builds the next state about as fast as a hand-written positional
      tuple, so ``evolve`` names only the fields an event changes;
    * :class:`derived` values (``state.ended``, ``state.slap``) are computed once per state and
      kept with it, so the questions asked of one position for every seat at every step
      (``legal_commands``, ``is_sensible``) read them instead of working them out again.

    ::

        @kit.state
        class State(NamedTuple):
            setup: Setup[Rules]
            stacks: tuple[tuple[Card, ...], ...]
            played: tuple[Card, ...] = ()
            ...

            @kit.derived
            def ended(self) -> Outcome | None:
                return outcome(self)

        case CardPlayed():
            return s._replace(played=s.played + (event.card,), current=event.current, ...)

    mypy checks each keyword of ``_replace`` against the field it names (a misspelt field or a
    value of the wrong type is a type error), and the state stays a ``NamedTuple``: immutable,
    equal by value, unpacked, pickled and matched as before. The class returned is a subclass of
    the one declared, under the same name, whose instances may keep derived values (a
    ``NamedTuple``'s own instances have no room for them).

    Why, by measurement (CPython 3.11, min of 300 runs of 2,000 on a shared machine, the 11-field
    ERS state, four fields changed, their values computed in each): a hand-written
    ``tuple.__new__(State, (...))`` 298-323 ns, the kit's ``_replace`` 413-462 ns, the stdlib's
    827-952 ns; a ``**changes`` loop over an index table, the best way without generated code,
    640-700 ns. The kit's parameters are positional-or-keyword (CPython fills their defaults from
    a tuple; from a dict for keyword-only ones, 51 ns more), and an unknown field is a
    ``TypeError`` (keeping the stdlib's ``ValueError`` cost 35 ns more; mypy refuses it first)."""
    fields: tuple[str, ...] | None = getattr(cls, "_fields", None)
    if not (isinstance(cls, type) and issubclass(cls, tuple) and fields):
        raise TypeError(f"kit.state takes a NamedTuple class, not {cls!r}")
    if fields[0] != "setup":
        raise TypeError(f"{cls.__name__}: a game's state has 'setup' as its first field")
    # No __slots__: the subclass's instances get a __dict__, where derived values are kept.
    made: Any = type(
        cls.__name__,
        (cls,),
        {"__module__": cls.__module__, "__qualname__": cls.__qualname__, "__doc__": cls.__doc__},
    )
    ns: dict[str, Any] = {"_unset": _UNSET, "_new": tuple.__new__, "_cls": made}
    new = [f"self[{i}] if {f} is _unset else {f}" for i, f in enumerate(fields)]
    body = [f"    return _new(_cls, ({', '.join(new)},))"]
    replace = _compile("_replace", ["self", *(f"{f}=_unset" for f in fields)], body, ns)
    replace.__qualname__ = f"{cls.__qualname__}._replace"
    replace.__doc__ = f"A new {cls.__name__} with the fields given changed (kit.state)."
    made._replace = replace
    return made  # type: ignore[no-any-return]


class derived(Generic[_S, _T]):  # lower case: a decorator, as property is
    """A value of a :func:`state` computed from it by ``rule`` the first time it is read, then
    kept with that state (a state never changes, so neither does the value)::

        @kit.derived
        def slap(self) -> tuple[SlapRule, tuple[Card, ...]] | None:
            \"\"\"The pattern a slap would match now.\"\"\"
            return slap_match(self.played, self.setup.rules.slap_rules)

    ``rule`` is the readable rule, or calls it; ``state.slap`` is then an attribute read. The
    next state (``_replace``) starts with none kept.

    Why, by measurement (CPython 3.11): bots and hosts ask ``legal_commands`` and
    ``is_sensible`` of one position for every seat, and ``Match`` asks ``outcome`` after every
    action; each asked again whether the game is over or the pile slappable. A kept value is read
    in ~17 ns, where calling ERS's ``outcome`` costs ~160 ns and ``slap_match`` ~200-300 ns; the
    first read costs ~190 ns more than calling the rule (the descriptor, the state's ``__dict__``).
    In the random playouts of the engine harness, ERS's rule text with ``ended`` and ``slap`` runs
    1-5 % faster than the hand-inlined fast paths it replaced (the same run, before and after)."""

    def __init__(self, rule: Callable[[_S], _T]) -> None:
        self.rule = rule
        self.name = rule.__name__
        self.__doc__ = rule.__doc__
        self.read: Callable[[_S], _T] = operator.attrgetter(self.name)
        """The value as a function of the state, kept as reading the attribute keeps it: the
        ``GAME``'s ``outcome=State.ended.read``, so that ``Match`` asking it after each action
        keeps the answer for the game's own questions of the same state."""

    @overload
    def __get__(self, state: None, owner: type[Any]) -> derived[_S, _T]: ...
    @overload
    def __get__(self, state: _S, owner: type[Any]) -> _T: ...
    def __get__(self, state: _S | None, owner: type[Any]) -> _T | derived[_S, _T]:
        if state is None:
            return self
        value = self.rule(state)
        # A non-data descriptor: once the state's __dict__ holds the value, Python reads it
        # from there and never calls this again for that state.
        state.__dict__[self.name] = value
        return value


# --------------------------------------------------------------------------- tables

_A = TypeVar("_A")
_B = TypeVar("_B")
_C = TypeVar("_C")
_D = TypeVar("_D")


@overload
def tabulate(rule: Callable[[_A], _T], a: Iterable[_A], /) -> Mapping[_A, _T]: ...
@overload
def tabulate(
    rule: Callable[[_A, _B], _T], a: Iterable[_A], b: Iterable[_B], /
) -> Mapping[tuple[_A, _B], _T]: ...
@overload
def tabulate(
    rule: Callable[[_A, _B, _C], _T], a: Iterable[_A], b: Iterable[_B], c: Iterable[_C], /
) -> Mapping[tuple[_A, _B, _C], _T]: ...
@overload
def tabulate(
    rule: Callable[[_A, _B, _C, _D], _T],
    a: Iterable[_A],
    b: Iterable[_B],
    c: Iterable[_C],
    d: Iterable[_D],
    /,
) -> Mapping[tuple[_A, _B, _C, _D], _T]: ...
def tabulate(rule: Callable[..., Any], *domains: Iterable[Any]) -> Mapping[Any, Any]:
    """``rule`` evaluated once, at import, for every combination of values of its finite
    ``domains``: a read-only mapping from the arguments (the value itself for one domain, a tuple
    of them for several) to the result. Declare it next to the readable rule it speeds up, and
    ask it where the rule is asked on the hot path::

        def _plan(rules: frozenset[SlapRule]) -> Plan:
            others = tuple((r, p) for r, p in SLAP_PATTERNS if r in rules)
            return "double" in rules, "sandwich" in rules, others

        _PLANS: Final = kit.tabulate(_plan, kit.subsets(SLAP_RULE_ORDER))
        ...
        double, sandwich, others = _PLANS[rules.slap_rules]

    The rule stays written once, readably; the table is only where its answers are kept.

    A table of a command class is the game's interned commands, built once and shared, so that
    ``legal_commands`` returns them without building one per call:
    ``PLAYS = kit.tabulate(Play, ALL_CARDS, PILES)``, then ``PLAYS[card, pile]``. A
    ``kit.command`` checks its fields' types when it is built (here, once per entry), so a table
    holds only well-typed commands.

    Keys come from the rules (a card, a flag's value, a seat the rule has already accepted),
    never unchecked from a caller: a lookup cannot tell ``True`` from ``1`` (style.md), so two
    equal values in one domain are refused here, and a domain value is refused if unhashable.

    Why a ``MappingProxyType`` over a dict: the table cannot be changed after import (no
    module-level mutable state, tests/unit/test_game_modules.py), and a look-up costs 42.8 ns
    against the dict's 39.5 ns (timeit, CPython 3.11; a read-only dict subclass, 52.9 ns)."""
    if not domains:
        raise TypeError("kit.tabulate needs at least one domain")
    values = [_domain(d) for d in domains]
    if len(values) == 1:
        table = {a: rule(a) for a in values[0]}
    else:
        table = {args: rule(*args) for args in itertools.product(*values)}
    return types.MappingProxyType(table)


def _domain(values: Iterable[Any]) -> tuple[Any, ...]:
    """``values`` as a tuple, refused when two of them are equal (``True`` and ``1``)."""
    out = tuple(values)
    seen: set[Any] = set()
    for v in out:
        if v in seen:
            raise ValueError(
                f"a table's domain holds {v!r} twice (or values equal to each other, such as "
                "True and 1): a look-up could not tell them apart"
            )
        seen.add(v)
    return out


def subsets(items: Iterable[_T]) -> tuple[frozenset[_T], ...]:
    """Every subset of ``items`` (a flag that is a set of options: 2**n of them), the empty one
    first: a domain for :func:`tabulate`."""
    pool = tuple(items)
    return tuple(
        frozenset(c) for k in range(len(pool) + 1) for c in itertools.combinations(pool, k)
    )


# --------------------------------------------------------------------------- seats


def seated(
    rule: Callable[Concatenate[_S, int, _P], _T],
) -> Callable[Concatenate[_S, int, _P], _T]:
    """The one check of the seat a game's ``decide``, ``legal_commands`` or ``is_sensible``
    (``rule(state, seat, ...)``) is asked about: a seat that is not an ``int`` (``True`` is not
    seat 1) or not one of ``state.setup.seats`` raises :class:`~cardcore.errors.InvalidSeat`, and
    the rule below trusts ``seat``::

        @kit.seated
        def legal_commands(state: State, seat: int) -> tuple[Command, ...]:
            ...

    :class:`~cardcore.match.Match` checks the seat of every action it sequences and calls the
    rule past this check (:func:`trusted`): a seat is checked once on every path. (The state's
    first field is its setup, as :func:`state` requires: the check reads ``state[0].seats``.)

    Why a wrapper: the check is written once, and declared where it applies, where the games
    wrote it inline at the top of each function, in 26 places. It costs one Python frame per call
    (timeit, CPython 3.11, ERS ``legal_commands``: 12-35 ns more than the inline check; 2-2.5 % of
    a random playout's step, where every seat's ``legal_commands`` and ``is_sensible`` are
    asked)."""
    fixed = rule.__code__.co_argcount
    if fixed not in _SEAT_CHECKS:
        raise TypeError(f"{rule.__qualname__}: kit.seated takes rule(state, seat[, command])")
    checked: Any = _SEAT_CHECKS[fixed](rule)
    functools.update_wrapper(checked, rule)
    checked.trusted = rule
    return checked  # type: ignore[no-any-return]


def _seat_checked_2(rule: Callable[[Any, int], Any]) -> Callable[[Any, Any], Any]:
    def checked(state: Any, seat: Any, /) -> Any:  # one frame: no *args to pack
        if type(seat) is not int or not 0 <= seat < state[0].seats:  # state[0] is its setup
            check_seat(state[0].seats, seat)
        return rule(state, seat)

    return checked


def _seat_checked_3(rule: Callable[[Any, int, Any], Any]) -> Callable[[Any, Any, Any], Any]:
    def checked(state: Any, seat: Any, command: Any, /) -> Any:
        if type(seat) is not int or not 0 <= seat < state[0].seats:
            check_seat(state[0].seats, seat)
        return rule(state, seat, command)

    return checked


_SEAT_CHECKS: Final[Mapping[int, Callable[[Any], Callable[..., Any]]]] = types.MappingProxyType(
    {2: _seat_checked_2, 3: _seat_checked_3}
)
"""The seat check of a rule by its number of positional parameters."""


def trusted(rule: Callable[_P, _T]) -> Callable[_P, _T]:
    """The rule behind a :func:`seated` function, which trusts its seat; any other function as it
    is. For a caller that has checked the seat itself (:class:`~cardcore.match.Match`)."""
    inner: Callable[_P, _T] | None = getattr(rule, "trusted", None)
    return rule if inner is None else inner


def check_viewer(viewer: object, seats: int) -> None:
    """A :class:`~cardcore.engine.Role` (a ``str``) passes; anything else must be a seat of a
    ``seats``-seat game, else :class:`~cardcore.errors.InvalidSeat`."""
    if not isinstance(viewer, str):
        check_seat(seats, viewer)


def viewed(
    rule: Callable[Concatenate[_S, Viewer, _P], _T],
) -> Callable[Concatenate[_S, Viewer, _P], _T]:
    """The one check of the viewer of a game's ``view`` or ``format_position``
    (``rule(state, viewer, ...)``): :func:`check_viewer` against ``state.setup.seats``; the rule
    below trusts ``viewer``."""

    @functools.wraps(rule)
    def checked(state: _S, viewer: Viewer, /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        check_viewer(viewer, state.setup.seats)  # type: ignore[attr-defined]
        return rule(state, viewer, *args, **kwargs)

    return checked


# --------------------------------------------------------------------------- unions


def union_types(union: Any) -> tuple[type, ...]:
    """The classes of a ``Command`` or ``Event`` union, in its order: a game's ``command_types``
    and ``event_types`` (``union_types(Command)``), so the union is the one list of them."""
    members = get_args(union) if get_origin(union) in (Union, types.UnionType) else (union,)
    if not all(_is_class(m) for m in members):
        raise TypeError(f"not a union of classes: {union!r}")
    return tuple(members)


# --------------------------------------------------------------------------- leaving


RESIGN_BY_TIMER: Final = "timer"


@command("resign [by {by}]")
class Resign:
    """Leave the game (docs/games/common.md#leaving-a-game), in any phase, while still in it. Every
    game has this one command class, so a host knows it without knowing the game.

    ``by``: ``None`` when the player resigns; ``"timer"`` when the host forfeits the seat on a
    time-out (a host refuses it from a client: only the host may mark an action as its own)."""

    by: str | None = None


# --------------------------------------------------------------------------- turn order


def next_holder(stacks: Sequence[Sequence[Card]], out: Collection[int], p: int) -> int | None:
    """The first seat after ``p`` (clockwise, wrapping), other than ``p``, not in ``out`` and
    holding a card; None when there is none (docs/games/ratscrew.md#setup,
    docs/games/slapjack.md#playing-a-card)."""
    for q in _AFTER[len(stacks), p]:
        if stacks[q] and q not in out:
            return q
    return None


MAX_SEATS: Final = 16
"""The most seats the kit's turn order serves (every game takes 8 or fewer)."""


def _after(n: int, p: int) -> tuple[int, ...]:
    """The seats after ``p`` of ``n``, clockwise: ``p + 1``, ..., ``p - 1``."""
    return tuple((p + i) % n for i in range(1, n)) if p < n else ()


_AFTER: Final = tabulate(_after, range(1, MAX_SEATS + 1), range(MAX_SEATS))
"""``_after`` of every seat count and seat: a turn passes once or more per step, and a tuple to
walk costs 40 ns less than the modular arithmetic (timeit, 3 seats: 137 ns against 176 ns)."""


def next_in_game(n: int, out: Collection[int], p: int) -> int | None:
    """The first of ``n`` seats after ``p``, other than ``p``, not in ``out`` (cards or not)."""
    for i in range(1, n):
        q = (p + i) % n
        if q not in out:
            return q
    return None


# --------------------------------------------------------------------------- slap patterns

PairPattern = Literal["double", "sandwich"]
DOUBLE: Final = "double"
SANDWICH: Final = "sandwich"


def double_or_sandwich(
    pile: Sequence[Card], double: bool, sandwich: bool
) -> tuple[PairPattern, tuple[Card, ...]] | None:
    """The pattern the top of ``pile`` (bottom→top) makes, double first
    (docs/games/ratscrew.md#slap-patterns, shared by docs/games/slapjack.md#variant-flags): two
    cards of a rank on top, or two of a rank with one other between."""
    n = len(pile)
    if n < 2:
        return None
    top = pile[-1]
    second = pile[-2]
    if double and second.rank == top.rank:
        return DOUBLE, (second, top)
    if sandwich and n >= 3:
        third = pile[-3]
        if third.rank == top.rank and second.rank != top.rank:
            return SANDWICH, (third, second, top)
    return None


# --------------------------------------------------------------------------- joint calls


def joint_call(calls: frozenset[int], seat: int, seats: int) -> tuple[frozenset[int], bool]:
    """A joint call (docs/games/common.md#joint-calls): ``calls`` after ``seat`` calls, and whether
    every one of the ``seats`` has now called (the call takes effect, and the set starts empty
    again)."""
    after = calls | {seat}
    if len(after) == seats:
        return frozenset(), True
    return after, False


# --------------------------------------------------------------------------- zones

Visibility = Literal["owner", "everyone", "nobody"]
"""Who sees a zone's cards face up (the referee sees every card): the seat that owns the entry
(``per_seat`` zones), every viewer, or no seat and no spectator."""


@dataclass(frozen=True, slots=True)
class Zone:
    """One field of a game's state that holds cards, and who may see them.

    The field's value is a pile (a tuple of cards), or a tuple of piles (``piles``), or one of
    those per seat (``per_seat``: entry ``i`` belongs to seat ``i``). ``face_up`` names a field
    of the same shape holding, per pile, how many of its last cards (its top) are face up to
    everyone whatever ``seen_by`` says (Spit's layouts). ``hidden_while(state)`` hides the zone
    from every viewer but the referee while it holds (Speed's centre cards before the start)."""

    field: str
    seen_by: Visibility
    per_seat: bool = False
    piles: bool = False
    face_up: str | None = None
    hidden_while: Callable[[Any], bool] | None = None


class Zones:
    """A game's zones, in a fixed order; from them :meth:`cards` (every card in play, for
    conservation), :meth:`shuffle_hidden` (the contract suite's no-leak hook) and
    :meth:`check_cards` (a position's cards against the setup's decks) are derived, so no game
    writes them by hand."""

    def __init__(self, *zones: Zone) -> None:
        self.zones = zones

    def _piles(self, zone: Zone, state: Any) -> list[tuple[str, int | None, tuple[Card, ...], int]]:
        """``(path, owner, pile, face-up count)`` for every pile of ``zone``."""
        value = getattr(state, zone.field)
        counts = getattr(state, zone.face_up) if zone.face_up is not None else None
        entries = (
            [
                (f"[{i}]", i, v, counts[i] if counts is not None else None)
                for i, v in enumerate(value)
            ]
            if zone.per_seat
            else [("", None, value, counts)]
        )
        out = []
        for path, owner, entry, count in entries:
            if zone.piles:
                for j, pile in enumerate(entry):
                    up = count[j] if count is not None else 0
                    out.append((f"{zone.field}{path}[{j}]", owner, pile, up))
            else:
                out.append((f"{zone.field}{path}", owner, entry, count or 0))
        return out

    def cards(self, state: Any) -> list[Card]:
        """Every card in every zone, hidden or not."""
        return [c for z in self.zones for _, _, pile, _ in self._piles(z, state) for c in pile]

    def _hidden(self, zone: Zone, owner: int | None, viewer: Viewer, state: Any) -> bool:
        if zone.hidden_while is not None and zone.hidden_while(state):
            return True
        if zone.seen_by == "everyone":
            return False
        return not (zone.seen_by == "owner" and owner is not None and viewer == owner)

    def shuffle_hidden(self, state: Any, viewer: Viewer, rng: Rng) -> Any:
        """The same position with every card ``viewer`` cannot see permuted among the places
        of such cards (face-up tops stay where they are)."""
        if viewer == Role.REFEREE:
            return state
        plan = []  # per zone: its piles, each with how many of its bottom cards are hidden
        pool: list[Card] = []
        for zone in self.zones:
            piles = []
            for _, owner, pile, up in self._piles(zone, state):
                down = len(pile) - up if self._hidden(zone, owner, viewer, state) else 0
                pool += pile[:down]
                piles.append((pile, down))
            plan.append(piles)
        rng.shuffle(pool)
        at = 0
        changes: dict[str, Any] = {}
        for zone, piles in zip(self.zones, plan, strict=True):
            new = []
            for pile, down in piles:
                new.append(tuple(pool[at : at + down]) + tuple(pile[down:]) if down else pile)
                at += down
            changes[zone.field] = self._rebuild(zone, getattr(state, zone.field), iter(new))
        return state._replace(**changes)

    @staticmethod
    def _rebuild(zone: Zone, value: Any, piles: Iterator[tuple[Card, ...]]) -> Any:
        def entry(e: Any) -> Any:
            return tuple(next(piles) for _ in e) if zone.piles else next(piles)

        return tuple(entry(e) for e in value) if zone.per_seat else entry(value)

    def check_cards(self, state: Any, deck: Sequence[Card]) -> None:
        """Every card comes from the setup's decks and none more often than they hold it
        (:class:`~cardcore.errors.InvalidPosition` names the pile where one is too many)."""
        places = ((path, pile) for z in self.zones for path, _, pile, _ in self._piles(z, state))
        notation.check_cards_in(places, deck)
