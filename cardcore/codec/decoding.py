"""Decoding, the inverse of :func:`~cardcore.codec.encode`, strict: unknown kinds, missing or
unexpected fields and values of the wrong type raise :class:`~cardcore.errors.DecodeError` naming
the field path. :func:`decoder` runs the fast path (:mod:`.fast`) first and this module's careful
decoder on any mismatch."""

from __future__ import annotations

import contextlib
import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any, Final, Literal, Union, get_args, get_origin, get_type_hints

from ..cards import HIDDEN, Card, Hidden
from ..errors import DecodeError
from .canonical import JSON, KIND
from .fast import fast_decoder

Decoder = Callable[[JSON, str], Any]
"""A careful decoder: a JSON value and its path in, the typed value out, or a DecodeError."""


def decode(tp: Any, data: JSON, path: str = "") -> Any:
    """Decode ``data`` as type ``tp`` (a dataclass, a union of dataclasses tagged by ``kind``,
    or any type hint :func:`encode` produces). Raises :class:`DecodeError` naming the path."""
    return decoder(tp)(data, path)


def decoder(tp: Any) -> Decoder:
    """The decoding function for ``tp``, for hot loops (replay): a fast path that tracks no
    field paths, and on any mismatch the careful decoder that names the field at fault."""
    try:
        fn = _CHECKED.get(tp)
    except TypeError:
        fn = None
    if fn is not None:
        return fn
    quick, careful = fast_decoder(tp), _decoder(tp)
    if quick is None:
        fn = careful
    else:

        def fn(data: JSON, path: str = "") -> Any:
            try:
                return quick(data)
            except Exception:
                return careful(data, path)

    with contextlib.suppress(TypeError):
        _CHECKED[tp] = fn
    return fn


_CHECKED: dict[Any, Decoder] = {}
_DECODERS: dict[Any, Decoder] = {}


def _decoder(tp: Any) -> Decoder:
    try:
        fn = _DECODERS.get(tp)
    except TypeError:  # unhashable hint
        fn = None
    if fn is None:
        fn = _build(tp)
        try:
            _DECODERS[tp] = fn
        except TypeError:
            pass
    return fn


def _build(tp: Any) -> Decoder:
    try:
        scalar = _SCALARS.get(tp)
    except TypeError:  # unhashable hint
        scalar = None
    if scalar is not None:
        return scalar
    if isinstance(tp, type) and issubclass(tp, Enum):
        return _enum_decoder(tp)
    by_origin = _BY_ORIGIN.get(get_origin(tp))
    if by_origin is not None:
        return by_origin(get_args(tp))
    if tp is dict:
        return _map_decoder(())
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _union_decoder((tp,))
    raise TypeError(f"cardcore cannot decode type {tp!r}")


def _type_name(data: JSON) -> str:
    return "null" if data is None else type(data).__name__


# --------------------------------------------------------------------------- scalars


def _decode_any(d: JSON, p: str) -> Any:
    return d


def _decode_card(d: JSON, p: str) -> Card:
    if not isinstance(d, str):
        raise DecodeError(p, f"expected a card string, got {_type_name(d)}")
    try:
        return Card.parse(d)
    except ValueError as exc:
        raise DecodeError(p, str(exc)) from None


def _decode_hidden(d: JSON, p: str) -> Hidden:
    if d != "??":
        raise DecodeError(p, f"expected '??', got {d!r}")
    return HIDDEN


def _decode_none(d: JSON, p: str) -> None:
    if d is not None:
        raise DecodeError(p, f"expected null, got {_type_name(d)}")


def _decode_bool(d: JSON, p: str) -> bool:
    if not isinstance(d, bool):
        raise DecodeError(p, f"expected a boolean, got {_type_name(d)}")
    return d


def _decode_int(d: JSON, p: str) -> int:
    if not isinstance(d, int) or isinstance(d, bool):
        raise DecodeError(p, f"expected an integer, got {_type_name(d)}")
    return d


def _decode_str(d: JSON, p: str) -> str:
    if not isinstance(d, str):
        raise DecodeError(p, f"expected a string, got {_type_name(d)}")
    return d


_SCALARS: Final[Mapping[Any, Decoder]] = {
    Any: _decode_any,
    Card: _decode_card,
    Hidden: _decode_hidden,
    type(None): _decode_none,
    None: _decode_none,
    bool: _decode_bool,
    int: _decode_int,
    str: _decode_str,
}
"""The decoder of each hint that is one exact type (``None`` stands for ``NoneType``)."""


def _enum_decoder(tp: type[Enum]) -> Decoder:
    values = {m.value: m for m in tp}

    def dec_enum(d: JSON, p: str) -> Any:
        try:
            return values[d]
        except (KeyError, TypeError):
            raise DecodeError(p, f"expected one of {sorted(values)}, got {d!r}") from None

    return dec_enum


def _literal_decoder(args: tuple[Any, ...]) -> Decoder:
    allowed = args

    def dec_literal(d: JSON, p: str) -> Any:
        for a in allowed:
            if d == a and type(d) is type(a):
                return a
        raise DecodeError(p, f"expected one of {list(allowed)}, got {d!r}")

    return dec_literal


# --------------------------------------------------------------------------- containers


def _tuple_decoder(args: tuple[Any, ...]) -> Decoder:
    if len(args) == 2 and args[1] is Ellipsis:
        item = _decoder(args[0])

        def dec_var_tuple(d: JSON, p: str) -> tuple[Any, ...]:
            if not isinstance(d, list):
                raise DecodeError(p, f"expected an array, got {_type_name(d)}")
            return tuple(item(x, f"{p}[{i}]") for i, x in enumerate(d))

        return dec_var_tuple
    items = [_decoder(a) for a in args]

    def dec_fixed_tuple(d: JSON, p: str) -> tuple[Any, ...]:
        if not isinstance(d, list) or len(d) != len(items):
            raise DecodeError(p, f"expected an array of {len(items)} items")
        return tuple(f(x, f"{p}[{i}]") for i, (f, x) in enumerate(zip(items, d, strict=True)))

    return dec_fixed_tuple


def _set_decoder(args: tuple[Any, ...]) -> Decoder:
    item = _decoder(args[0])

    def dec_set(d: JSON, p: str) -> frozenset[Any]:
        if not isinstance(d, list):
            raise DecodeError(p, f"expected an array, got {_type_name(d)}")
        out = frozenset(item(x, f"{p}[{i}]") for i, x in enumerate(d))
        if len(out) != len(d):
            raise DecodeError(p, "duplicate items in a set")
        return out

    return dec_set


def _map_decoder(args: tuple[Any, ...]) -> Decoder:
    key_dec = _decoder(args[0]) if args else _decoder(str)
    val_dec = _decoder(args[1]) if args else _decoder(Any)

    def dec_map(d: JSON, p: str) -> dict[Any, Any]:
        if not isinstance(d, dict):
            raise DecodeError(p, f"expected an object, got {_type_name(d)}")
        return {key_dec(k, f"{p}.{k}"): val_dec(v, f"{p}.{k}") for k, v in d.items()}

    return dec_map


# --------------------------------------------------------------------------- unions and records


def _union_decoder(args: tuple[Any, ...]) -> Decoder:
    classes = {a.__name__: a for a in args if isinstance(a, type) and dataclasses.is_dataclass(a)}
    others = [a for a in args if a.__name__ not in classes] if classes else list(args)
    if classes and not others:
        return _tagged_decoder(classes)
    if not classes:
        return _first_of(others)
    raise TypeError(f"cannot decode a union mixing dataclasses and scalars: {args!r}")


def _first_of(options: list[Any]) -> Decoder:
    """A union of hints that are not dataclasses: the first that decodes the value."""
    decoders = [_decoder(a) for a in options]
    # Hidden before Card so "??" is not reported as a bad card; None first for speed.
    order = sorted(range(len(options)), key=lambda i: (options[i] is not type(None), i))

    def dec_union(d: JSON, p: str) -> Any:
        errors: list[str] = []
        for i in order:
            try:
                return decoders[i](d, p)
            except DecodeError as exc:
                errors.append(exc.message)
        raise DecodeError(p, " / ".join(errors))

    return dec_union


FieldPlan = list[tuple[str, Decoder, bool]]
"""A record's fields: name, decoder, and whether it has a default."""


def _plan(cls: type) -> FieldPlan:
    hints = get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        has_default = (
            f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        )
        out.append((f.name, _decoder(hints[f.name]), has_default))
    return out


def _tagged_decoder(classes: dict[str, type]) -> Decoder:
    plans: dict[str, tuple[type, FieldPlan]] = {}

    def dec_tagged(d: JSON, p: str) -> Any:
        if not isinstance(d, dict):
            raise DecodeError(p, f"expected an object, got {_type_name(d)}")
        kind = d.get(KIND)
        if not isinstance(kind, str) or kind not in classes:
            raise DecodeError(
                f"{p}.kind" if p else "kind",
                f"expected one of {sorted(classes)}, got {kind!r}",
            )
        entry = plans.get(kind)
        if entry is None:
            entry = plans[kind] = (classes[kind], _plan(classes[kind]))
        cls, fields = entry
        known = {KIND}
        kwargs: dict[str, Any] = {}
        for name, dec, has_default in fields:
            known.add(name)
            sub = f"{p}.{name}" if p else name
            if name in d:
                kwargs[name] = dec(d[name], sub)
            elif not has_default:
                raise DecodeError(sub, "missing field")
        extra = sorted(set(d) - known)
        if extra:
            first = extra[0]
            raise DecodeError(f"{p}.{first}" if p else first, "unknown field")
        try:
            return cls(**kwargs)
        except (TypeError, ValueError) as exc:
            raise DecodeError(p, str(exc)) from None

    return dec_tagged


_BY_ORIGIN: Final[Mapping[Any, Callable[[tuple[Any, ...]], Decoder]]] = {
    Literal: _literal_decoder,
    Union: _union_decoder,
    types.UnionType: _union_decoder,
    tuple: _tuple_decoder,
    frozenset: _set_decoder,
    set: _set_decoder,
    dict: _map_decoder,
    Mapping: _map_decoder,
    typing.Mapping: _map_decoder,
}
"""The careful decoder of a generic hint, by its origin (``get_origin``), from its arguments."""
