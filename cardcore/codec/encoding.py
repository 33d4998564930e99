"""The JSON value of a cardcore value (:func:`encode`): a dataclass is an object tagged with its
class name under ``kind``, a card its text (``"QS"``), a hidden card ``"??"``, a tuple an array, a
frozenset a sorted array, an enum its value. One encoder per type, built on first use."""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from enum import Enum
from typing import Any, Final

from ..cards import Card, Hidden
from .canonical import JSON, KIND, canonical_text


def encode(value: object) -> JSON:
    """The JSON value of a cardcore value (dataclass, card, tuple, enum, scalar)."""
    cls = type(value)
    if cls in ATOMS:
        return value
    if cls is Card:
        return value.text  # type: ignore[attr-defined]
    fn = _ENCODERS.get(cls)
    if fn is None:
        fn = encoder_of(cls)
    return fn(value)


ATOMS: Final[frozenset[type]] = frozenset({int, str, bool, type(None)})
"""Types that :func:`encode` returns as they are (exact types: subclasses take the slow path)."""
TEXTED: Final[frozenset[type]] = frozenset({Card, Hidden})
"""Types whose JSON is their ``text`` (never in need of escaping: ``"QS"``, ``"10H"``, ``"??"``)."""
text_of: Final = operator.attrgetter("text")

_ENCODERS: dict[type, Callable[[Any], JSON]] = {}


def family(cls: type) -> str:
    """Which way values of ``cls`` are encoded: the one classification that both
    :func:`encoder_of` and the one-pass encoders (:mod:`.pairs`) dispatch on."""
    if dataclasses.is_dataclass(cls):
        return "dataclass"
    if cls is Card:
        return "card"
    if cls is Hidden:
        return "hidden"
    if issubclass(cls, Enum):
        return "enum"
    if cls in ATOMS:
        return "atom"
    if issubclass(cls, tuple | list):
        return "sequence"
    if issubclass(cls, frozenset | set):
        return "set"
    if issubclass(cls, Mapping):
        return "mapping"
    raise TypeError(f"cardcore cannot encode a {cls.__name__}")


def encoder_of(cls: type) -> Callable[[Any], JSON]:
    """The function :func:`encode` applies to values of type ``cls`` (built once per type)."""
    fn = _ENCODERS.get(cls)
    if fn is None:
        kind = family(cls)
        fn = _dataclass_encoder(cls) if kind == "dataclass" else _VALUE_BY_FAMILY[kind]
        _ENCODERS[cls] = fn
    return fn


def _dataclass_encoder(cls: type) -> Callable[[Any], JSON]:
    names = tuple(f.name for f in dataclasses.fields(cls))
    kind = cls.__name__
    base: dict[str, JSON] = {KIND: kind}
    for n in names:
        base[n] = None  # every key in declaration order (a field named "kind" keeps its place)
    atoms, card = ATOMS, Card

    def encode_dataclass(v: Any) -> JSON:
        out = base.copy()
        for n in names:
            x = getattr(v, n)
            t = type(x)
            if t in atoms:
                out[n] = x
            elif t is card:
                out[n] = x.text
            else:
                out[n] = encode(x)
        return out

    return encode_dataclass


def _card_text(v: Card) -> str:
    return v.text


def _hidden_text(v: Hidden) -> str:
    return "??"


def _enum_value(v: Enum) -> JSON:
    return v.value


def _identity(v: object) -> JSON:
    return v


def _encode_sequence(v: tuple[object, ...] | list[object]) -> JSON:
    kinds = {*map(type, v)}
    if kinds <= ATOMS:
        return list(v)
    if kinds <= TEXTED:
        return list(map(text_of, v))
    return list(map(encode, v))


def _encode_set(v: AbstractSet[object]) -> JSON:  # a set too (family "set"), in both builds
    items = [encode(x) for x in v]
    return sorted(items, key=canonical_text)


def _encode_mapping(v: Mapping[object, object]) -> JSON:
    return {str(encode(k)): encode(x) for k, x in v.items()}


_VALUE_BY_FAMILY: Final[dict[str, Callable[[Any], JSON]]] = {
    "card": _card_text,
    "hidden": _hidden_text,
    "enum": _enum_value,
    "atom": _identity,
    "sequence": _encode_sequence,
    "set": _encode_set,
    "mapping": _encode_mapping,
}
