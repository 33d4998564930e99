"""The type check of a command's fields (:func:`cardcore.kit.command`): the lines of a command
class's generated ``__init__`` that refuse a value of the wrong type, and the
:class:`~cardcore.commands.FieldTypeError` that says so in words."""

from __future__ import annotations

import dataclasses
import functools
import types
from collections.abc import Callable
from typing import Any, Final, Literal, Union, get_args, get_origin

from .. import commands
from ..cards import Card, standard_deck


def init_checks(made: type, f: dataclasses.Field[Any], hint: Any, ns: dict[str, Any]) -> list[str]:
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
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis and is_class(args[0]):
        ns[key] = frozenset({args[0]})
        return f"(type({var}) is not tuple or not {key}.issuperset(map(type, {var})))"
    ns[key] = _predicate(hint)
    return f"not {key}({var})"


_EVERY_CARD: Final = frozenset(standard_deck(1, 1))
"""Every :class:`Card` instance (cards are interned; a joker once)."""


def is_class(hint: Any) -> bool:
    return isinstance(hint, type) and get_origin(hint) is None


def _predicate(hint: Any) -> Callable[[Any], bool]:
    """Whether a value is of type ``hint``: classes exactly, unions, ``Literal``, tuples."""
    origin, args = get_origin(hint), get_args(hint)
    if is_class(hint):
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
