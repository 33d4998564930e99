"""The record classes of a game: its events (:func:`record`), its view (:func:`view`) and its
commands (:func:`command`, which check their fields' types, :mod:`.fieldtypes`), all slotted
dataclasses built fast; and :func:`union_types`, a game's ``command_types`` and ``event_types``
read from its unions."""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

from .. import commands, views
from .._mypyc import dataclass_transform
from . import codegen, fieldtypes

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


# --------------------------------------------------------------------------- unions


def union_types(union: Any) -> tuple[type, ...]:
    """The classes of a ``Command`` or ``Event`` union, in its order: a game's ``command_types``
    and ``event_types`` (``union_types(Command)``), so the union is the one list of them."""
    members = get_args(union) if get_origin(union) in (Union, types.UnionType) else (union,)
    if not all(fieldtypes.is_class(m) for m in members):
        raise TypeError(f"not a union of classes: {union!r}")
    return tuple(members)
