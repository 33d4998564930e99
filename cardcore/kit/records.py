"""The record classes of a game: its events (:func:`record`), its view (:func:`view`) and its
commands (:func:`command`, which check their fields' types, :mod:`.fieldtypes`), all slotted
dataclasses built fast; a native game's events, plain classes made records in place
(:func:`native_records`, issue 24: every shipped game's); and :func:`union_types`, a game's
``command_types`` and ``event_types`` read from its unions."""

from __future__ import annotations

import dataclasses
import inspect
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, TypeVar, Union, get_args, get_origin, get_type_hints

from .. import commands, views
from .._mypyc import compiled_class, dataclass_transform
from . import codegen, fieldtypes

try:  # the compiled wheel's (hatch_build.py): mypyc keeps no annotations of a native class
    from .._annotations import ANNOTATIONS as _BUILT  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # the interpreted build: each class has its own
    _BUILT = {}

_R = TypeVar("_R")


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

    def __str__(self: object) -> str:
        return views.render_value(self, symbols=False)

    made.__str__ = __str__
    return made  # type: ignore[no-any-return]


@dataclass_transform(frozen_default=True)
def view(cls: type[_R]) -> type[_R]:
    """A game's view class: a :func:`record` whose ``str`` is one line per field,
    ``name: value`` (:func:`cardcore.views.render_view`, cards as their text). It renders the
    view alone, so it shows only what its viewer may see."""
    made = _build(cls, checked=False)

    def __str__(self: object) -> str:
        return views.render_view(self, symbols=False)

    made.__str__ = __str__
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

        def __str__(self: object) -> str:
            return commands.format_command(self)

        made.__str__ = __str__
        return made  # type: ignore[no-any-return]

    return make


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
            body += fieldtypes.init_checks(made, f, hints[f.name], ns)
        body.append(f"    _set_{f.name}(self, {f.name})")
    init = codegen.function("__init__", params, body or ["    pass"], ns)
    init.__qualname__ = f"{made.__qualname__}.__init__"
    init.__doc__ = made.__init__.__doc__
    setters = tuple(ns[f"_set_{f.name}"] for f in fields)
    names = tuple(f.name for f in fields)

    # The methods added are defined here, in the function that adds them: a function of a module
    # compiled by mypyc is no descriptor (it would not be bound to the record as a method), a
    # function nested in one is.
    def __setattr__(self: object, name: str, *_: object) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

    def __getstate__(self: Any) -> tuple[Any, ...]:  # pickle and copy, past __setattr__
        return tuple(getattr(self, n) for n in names)

    def __setstate__(self: Any, state: tuple[Any, ...]) -> None:
        for set_field, value in zip(setters, state, strict=True):
            set_field(self, value)

    made.__init__ = init
    made.__setattr__ = __setattr__
    made.__delattr__ = __setattr__
    made.__getstate__ = __getstate__
    made.__setstate__ = __setstate__
    return made


# --------------------------------------------------------------------------- native records


def native_records(union: Any) -> None:
    """Gives each event class of ``union`` (a game's ``Event``), written as a plain class with
    annotated attributes and an ``__init__`` that takes them in order, in a module mypyc compiles
    (a native class: the rules build it and read its fields as a C struct), what the codec,
    ``match``, ``==`` and ``str`` read of a :func:`record`, in place::

        class PileOwed:
            \"\"\"The pile is owed to ``seat``.\"\"\"

            __match_args__: Final = ("seat",)  # the type checker's (a Final: mypyc's too)
            seat: int

            def __init__(self, seat: int) -> None:
                self.seat = seat

        Event = PileOwed | ...
        kit.native_records(Event)

    ``__match_args__``, which the type checker reads, is optional, a ``Final`` (mypyc makes an
    attribute declared in a native class's body an instance attribute, where ``match`` reads the
    class's), and checked against the fields. Given: its annotations (in the compiled build, the
    text ``hatch_build.py`` wrote at build time from the class's source into
    ``cardcore/_annotations.py``: mypyc keeps none, and the core reads no file), dataclass
    fields, ``__match_args__``, ``==`` and ``hash`` by value, the ``repr`` and
    ``str`` of a record, pickling; and frozen as a record is (``FrozenInstanceError``). The
    compiled class keeps its own ``__init__`` (a C function: assigning the attributes natively,
    past the frozen ``__setattr__``); the interpreted one is given one that stores its fields in
    the instance's ``__dict__`` past it.

    A field may have a default, written once, in the ``__init__``'s signature (``def
    __init__(self, seat: int, by: str | None = None)``): a simple literal, None, True or False,
    an int, a str or ``()`` (any other is refused with a ``TypeError``). Its dataclass field
    carries it, so that, as for a record's default, the codec decodes a line without the field,
    the schema makes it optional, and the interpreted ``__init__`` given takes it too (the
    compiled one has it natively). The compiled build reads it from the text signature mypyc
    writes on the class (``__text_signature__``); the interpreted one, from the function.

    A class of the union that is a record already (:func:`record`: an event without fields,
    which has nothing to read natively) is left as it is.

    Why, by measurement (issue 24's native prototype, Ratscrew's compiled random playouts): 1.68
    to 1.94-1.96x RLCard uno, the events read and built natively by compiled rules."""
    for cls in union_types(union):
        if not dataclasses.is_dataclass(cls):
            _native_record(cls)


def _native_record(cls: Any) -> None:
    compiled = compiled_class(cls)
    key = f"{cls.__module__}.{cls.__qualname__}"
    declared = _BUILT.get(key) if compiled else vars(cls).get("__annotations__")
    written = {n: t for n, t in (declared or {}).items() if not n.startswith("__")}
    if not written:
        raise TypeError(f"{key}: kit.native_records takes a class with annotated fields")
    names = tuple(written)
    if vars(cls).get("__match_args__", names) != names:  # declared for the type checker
        raise TypeError(f"{key}: __match_args__ names the fields, in the order declared")
    defaults = _defaults(cls, key, names, compiled=compiled)
    cls.__annotations__ = written
    dataclass(init=False, eq=True, unsafe_hash=True, frozen=True)(cls)  # in place: no slots
    for f in dataclasses.fields(cls):
        # compiled, the native attribute's descriptor: the default is the __init__'s
        f.default = defaults.get(f.name, dataclasses.MISSING)
    if not compiled:
        ns = {f"_default_{n}": value for n, value in defaults.items()}
        params = [f"{n}=_default_{n}" if n in defaults else n for n in names]
        # frozen: written past __setattr__, one item each (a third quicker than one update);
        # `__d`, as no field is named (a field's name never begins with two underscores)
        body = ["    __d = self.__dict__", *(f"    __d[{n!r}] = {n}" for n in names)]
        cls.__init__ = codegen.function("__init__", ["self", *params], body, ns)

    def __str__(self: object) -> str:
        return views.render_value(self, symbols=False)

    def __reduce__(self: object) -> tuple[Any, ...]:  # pickle and copy, past __setattr__
        return type(self), tuple([getattr(self, n) for n in names])

    cls.__str__ = __str__
    cls.__reduce__ = __reduce__


_LITERALS: Final = (type(None), bool, int, str)
"""The types of the defaults a native event may declare (and ``()``): literals mypyc writes into a
compiled class's signature as written, so both builds read the same value. (It writes no signature
for a ``frozenset()`` default, nor for an int as large as ``10**30``: the compiled build then
refuses the class, where the interpreted one would take that int.)"""


def _defaults(cls: Any, key: str, names: tuple[str, ...], *, compiled: bool) -> dict[str, Any]:
    """Each field of ``cls`` that its ``__init__`` gives a default → that default, read from its
    signature: the interpreted function's own, or the text mypyc writes on the compiled class
    (``__text_signature__``, ``(seat, cards, by=None)``), which :func:`inspect.signature` reads
    back. Checked: the ``__init__`` takes the fields, in the order declared, each a default of
    :data:`_LITERALS` or ``()`` at most."""
    try:  # compiled: the class's signature (no self); interpreted: the function's
        signature = inspect.signature(cls if compiled else cls.__init__)
    except ValueError:  # mypyc wrote none: a default it cannot write as a literal
        raise TypeError(
            f"{key}: no signature of __init__ to read (a default not a literal?)"
        ) from None
    params = list(signature.parameters.values())[0 if compiled else 1 :]
    if tuple(p.name for p in params) != names or any(
        p.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD for p in params
    ):
        raise TypeError(f"{key}: __init__ takes its fields, in the order declared")
    defaults = {p.name: p.default for p in params if p.default is not inspect.Parameter.empty}
    for name, value in defaults.items():
        if type(value) not in _LITERALS and not (type(value) is tuple and value == ()):
            raise TypeError(
                f"{key}: the default of {name} is {value!r}: a native event's default is None, "
                "True or False, an int, a str or ()"
            )
    return defaults


# --------------------------------------------------------------------------- unions


def union_types(union: Any) -> tuple[type, ...]:
    """The classes of a ``Command`` or ``Event`` union, in its order: a game's ``command_types``
    and ``event_types`` (``union_types(Command)``), so the union is the one list of them."""
    members = get_args(union) if get_origin(union) in (Union, types.UnionType) else (union,)
    if not all(fieldtypes.is_class(m) for m in members):
        raise TypeError(f"not a union of classes: {union!r}")
    return tuple(members)
