"""The decoders' fast path: for a type hint, a decoder that tracks no field paths and raises on
anything unusual (or None where the hint has no fast path). :func:`~cardcore.codec.decoder` runs
it first and, on any exception, the careful decoder (:mod:`.decoding`) that names the field at
fault; tests/unit/test_codec_fast.py pins that both give the same values."""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable, Mapping
from typing import Any, Final, Literal, Union, get_args, get_origin, get_type_hints

from ..cards import _BY_TEXT as _CARD_BY_TEXT
from ..cards import HIDDEN, Card, Hidden
from .canonical import JSON, KIND

Fast = Callable[[JSON], Any]
"""A fast decoder: a JSON value in, the typed value out, any exception on a mismatch."""


class Mismatch(Exception):
    """The fast path gives up; the careful decoder will say why."""


_FAST: dict[Any, Fast | None] = {}


def fast_decoder(tp: Any) -> Fast | None:
    """A decoder of ``tp`` without path tracking that raises on anything unusual, or None."""
    try:
        if tp in _FAST:
            return _FAST[tp]
    except TypeError:
        return None
    _FAST[tp] = None  # guards recursion; replaced below
    fn = _build(tp)
    _FAST[tp] = fn
    return fn


def _build(tp: Any) -> Fast | None:
    if tp is Card:
        return _CARD_BY_TEXT.__getitem__
    if tp is int:
        return _fast_int
    if tp is bool or tp is str:
        return _fast_exact(tp)
    by_origin = _BY_ORIGIN.get(get_origin(tp))
    if by_origin is not None:
        return by_origin(get_args(tp))
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _fast_tagged([tp])
    return None


# --------------------------------------------------------------------------- scalars


def _fast_int(d: JSON) -> int:
    if type(d) is not int:
        raise Mismatch
    return d


def _fast_exact(exact: type) -> Fast:
    def fast_exact(d: JSON) -> Any:
        if type(d) is not exact:
            raise Mismatch
        return d

    return fast_exact


def _fast_literal(args: tuple[Any, ...]) -> Fast | None:
    if not all(type(a) is str for a in args):
        return None
    allowed = frozenset(args)

    def fast_literal(d: JSON) -> Any:
        if type(d) is not str or d not in allowed:
            raise Mismatch
        return d

    return fast_literal


# --------------------------------------------------------------------------- unions


def _fast_union(args: tuple[Any, ...]) -> Fast | None:
    non_none = [a for a in args if a is not type(None)]
    if set(non_none) == {Card, Hidden}:
        inner: Fast = _fast_seen
    elif len(non_none) == 1:
        got = fast_decoder(non_none[0])
        if got is None:
            return None
        inner = got
    elif all(isinstance(a, type) and dataclasses.is_dataclass(a) for a in non_none):
        return _fast_tagged(non_none) if len(non_none) == len(args) else None
    else:
        return None
    if len(non_none) == len(args):
        return inner
    return _fast_optional(inner)


def _fast_seen(d: JSON) -> Any:
    return HIDDEN if d == "??" else _CARD_BY_TEXT[d]


def _fast_optional(inner: Fast) -> Fast:
    def fast_optional(d: JSON) -> Any:
        return None if d is None else inner(d)

    return fast_optional


def _fast_tagged(classes: list[Any]) -> Fast | None:
    plans: dict[str, tuple[Any, tuple[tuple[str, Fast], ...]]] = {}
    for cls in classes:
        hints = get_type_hints(cls)
        fields = []
        for f in dataclasses.fields(cls):
            fn = fast_decoder(hints[f.name])
            if fn is None:
                return None
            fields.append((f.name, fn))
        plans[cls.__name__] = (cls, tuple(fields))

    def fast_tagged(d: JSON) -> Any:
        if type(d) is not dict:
            raise Mismatch
        cls, fields = plans[d[KIND]]
        if len(d) != len(fields) + 1:
            raise Mismatch  # a missing default or an unknown field: the careful path decides
        return cls(*[fn(d[name]) for name, fn in fields])

    return fast_tagged


# --------------------------------------------------------------------------- tuples


def _fast_tuple(args: tuple[Any, ...]) -> Fast | None:
    if len(args) == 2 and args[1] is Ellipsis:
        return _fast_var_tuple(args[0])
    items = [fast_decoder(a) for a in args]
    if any(i is None for i in items):
        return None
    fns = tuple(i for i in items if i is not None)
    n = len(fns)

    def fast_fixed(d: JSON) -> Any:
        if type(d) is not list or len(d) != n:
            raise Mismatch
        return tuple(f(x) for f, x in zip(fns, d, strict=True))

    return fast_fixed


def _fast_var_tuple(item_hint: Any) -> Fast | None:
    item = fast_decoder(item_hint)
    if item is None:
        return None
    item_fn = item

    def fast_tuple(d: JSON) -> Any:
        if type(d) is not list:
            raise Mismatch
        return tuple(map(item_fn, d))

    return fast_tuple


_BY_ORIGIN: Final[Mapping[Any, Callable[[tuple[Any, ...]], Fast | None]]] = {
    Literal: _fast_literal,
    Union: _fast_union,
    types.UnionType: _fast_union,
    tuple: _fast_tuple,
}
"""The fast decoder of a generic hint, by its origin (``get_origin``), from its arguments."""
