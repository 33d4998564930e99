"""JSON Schema (2020-12) of the JSON that :func:`~cardcore.codec.encode` produces for a type, for
non-Python clients (the catalogue serves each game's)."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from enum import Enum
from typing import Any, Final, Literal, Union, get_args, get_origin, get_type_hints

from ..cards import RANKS, SUITS, Card, Hidden
from .canonical import JSON, KIND

_DRAFT: Final = "https://json-schema.org/draft/2020-12/schema"


def json_schema(tp: Any) -> JSON:
    """A JSON Schema (2020-12) of the JSON that :func:`encode` produces for type ``tp``."""
    return {"$schema": _DRAFT, **schema_of(tp)}


def union_schema(classes: tuple[type, ...]) -> JSON:
    """A schema accepting any of the given dataclasses, discriminated by ``kind``."""
    return {"$schema": _DRAFT, "oneOf": [schema_of(c) for c in classes]}


_CARD_PATTERN: Final = "^(JK|(" + "|".join(RANKS) + ")[" + "".join(SUITS) + "])$"


def schema_of(tp: Any) -> JSON:
    """The schema of type ``tp`` without the ``$schema`` key (a field's, an item's)."""
    try:
        scalar = _SCALARS.get(tp)
    except TypeError:  # unhashable hint
        scalar = None
    if scalar is not None:
        return dict(scalar)  # a new object each time: callers may extend it
    if isinstance(tp, type) and issubclass(tp, Enum):
        return {"enum": [m.value for m in tp]}
    by_origin = _BY_ORIGIN.get(get_origin(tp))
    if by_origin is not None:
        return by_origin(get_args(tp))
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _record_schema(tp)
    raise TypeError(f"no JSON Schema for {tp!r}")


_SCALARS: Final[Mapping[Any, Mapping[str, str]]] = {
    Card: {"type": "string", "pattern": _CARD_PATTERN, "description": "a card, e.g. QS"},
    Hidden: {"const": "??", "description": "a card the viewer may not see"},
    type(None): {"type": "null"},
    None: {"type": "null"},
    bool: {"type": "boolean"},
    int: {"type": "integer"},
    str: {"type": "string"},
    Any: {},
}
"""The schema of each hint that is one exact type (``None`` stands for ``NoneType``)."""


def _literal_schema(args: tuple[Any, ...]) -> JSON:
    return {"enum": list(args)}


def _union_schema(args: tuple[Any, ...]) -> JSON:
    return {"anyOf": [schema_of(a) for a in args]}


def _tuple_schema(args: tuple[Any, ...]) -> JSON:
    if len(args) == 2 and args[1] is Ellipsis:
        return {"type": "array", "items": schema_of(args[0])}
    return {
        "type": "array",
        "prefixItems": [schema_of(a) for a in args],
        "minItems": len(args),
        "maxItems": len(args),
    }


def _set_schema(args: tuple[Any, ...]) -> JSON:
    return {"type": "array", "items": schema_of(args[0]), "uniqueItems": True}


def _map_schema(args: tuple[Any, ...]) -> JSON:
    return {"type": "object", "additionalProperties": schema_of(args[1]) if args else {}}


def _record_schema(tp: type) -> JSON:
    hints = get_type_hints(tp)
    props: dict[str, JSON] = {KIND: {"const": tp.__name__}}
    required = [KIND]
    for f in dataclasses.fields(tp):
        props[f.name] = schema_of(hints[f.name])
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            required.append(f.name)
    out: dict[str, JSON] = {
        "title": tp.__name__,
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }
    if tp.__doc__ and not tp.__doc__.startswith(tp.__name__ + "("):
        out["description"] = " ".join(tp.__doc__.split())
    return out


_BY_ORIGIN: Final[Mapping[Any, Callable[[tuple[Any, ...]], JSON]]] = {
    Literal: _literal_schema,
    Union: _union_schema,
    types.UnionType: _union_schema,
    tuple: _tuple_schema,
    frozenset: _set_schema,
    set: _set_schema,
    dict: _map_schema,
    Mapping: _map_schema,
    typing.Mapping: _map_schema,
}
"""The schema of a generic hint, by its origin (``get_origin``), from its arguments."""
