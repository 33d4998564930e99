"""One-pass encoding: a value's JSON (exactly what :func:`~cardcore.codec.encode` builds) together
with its canonical text, written directly by per-type encoders built on first use, without going
through the intermediate JSON value. The log's hot path: it keeps the JSON value in the line and
hashes (and stores) the canonical text."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from enum import Enum
from typing import Any, Final

from ..cards import _BY_TEXT as _CARD_BY_TEXT
from ..cards import Card, Hidden
from .canonical import JSON, KIND, canonical_text, json_string
from .encoding import TEXTED, encode, encoder_of, family, text_of

Pair = tuple[JSON, str]
"""A value's JSON and its canonical text."""


def canonical_text_of(value: object) -> str:
    """``canonical_text(encode(value))``, in one pass and without the intermediate JSON value.

    For hot paths that need the canonical text of a cardcore value (a command, an event, a
    redacted event, a view): per-class encoders that write the sorted keys directly."""
    return encode_with_text(value)[1]


def encode_with_text(value: object) -> Pair:
    """``(encode(value), canonical_text_of(value))`` in one pass: the log's hot path, which keeps
    the JSON value in the line and hashes (and stores) the canonical text.

    The value is exactly what :func:`encode` returns (same types, same key order); the text is
    exactly ``canonical_text`` of it (tests/unit/test_codec_fast.py checks both)."""
    cls = type(value)
    if cls is int:
        return value, str(value)
    if cls is Card:
        text: str = value.text  # type: ignore[attr-defined]
        return text, json_string(text)
    fn = _PAIRS.get(cls)
    if fn is None:
        fn = _pair_encoder(cls)
    return fn(value)


def encoder_with_text(cls: type) -> Callable[[Any], Pair]:
    """The function :func:`encode_with_text` applies to values of type ``cls`` (built once per
    type), for callers that encode many values of few types."""
    fn = _PAIRS.get(cls)
    return fn if fn is not None else _pair_encoder(cls)


def encode_all_with_text(values: Iterable[object]) -> tuple[list[JSON], str]:
    """``([encode(v) for v in values], canonical_text(that list))`` in one pass (a log entry's
    events as the line holds them, and as they are hashed)."""
    out: list[JSON] = []
    texts: list[str] = []
    pairs = _PAIRS
    for value in values:
        fn = pairs.get(type(value))
        if fn is None:
            fn = _pair_encoder(type(value))
        item, text = fn(value)
        out.append(item)
        texts.append(text)
    return out, "[" + ",".join(texts) + "]"


_PAIRS: dict[type, Callable[[Any], Pair]] = {}


def _pair_encoder(cls: type) -> Callable[[Any], Pair]:
    fn = _PAIRS.get(cls)
    if fn is None:
        kind = family(cls)
        fn = _dataclass_pair(cls) if kind == "dataclass" else _PAIR_BY_FAMILY[kind]
        _PAIRS[cls] = fn
    return fn


# --------------------------------------------------------------------------- dataclasses


def _dataclass_pair(cls: type) -> Callable[[Any], Pair]:
    names = tuple(f.name for f in dataclasses.fields(cls))
    kind = cls.__name__
    if KIND in names:  # a field shadows the tag: encode() decides, canonical_text writes
        value_of = encoder_of(cls)

        def generic_dataclass_pair(v: Any) -> Pair:
            out = value_of(v)
            return out, canonical_text(out)

        return generic_dataclass_pair
    in_key_order, end = _key_order(names, kind)
    if not names:
        empty_text = end

        def empty_dataclass_pair(v: Any) -> Pair:
            return {KIND: kind}, empty_text

        return empty_dataclass_pair
    # The JSON value starts as a copy of a dict holding every key in declaration order, as
    # encode() makes it, whatever order the fields are filled in.
    return _fields_pair({KIND: kind, **dict.fromkeys(names)}, in_key_order, end)


def _key_order(names: tuple[str, ...], kind: str) -> tuple[tuple[tuple[str, str], ...], str]:
    """How the canonical text of a record of fields ``names`` and class ``kind`` is written, in
    key order: each field's name with the text that goes before its value (its key, and
    ``"kind"`` wherever that sorts), and the text after the last value."""
    plan: list[tuple[str, str]] = []
    pending = "{"
    for key in sorted((*names, KIND)):
        piece = ("," if len(pending) > 1 or plan else "") + json_string(key) + ":"
        if key == KIND:
            pending += piece + json_string(kind)
        else:
            plan.append((key, pending + piece))
            pending = ""
    return tuple(plan), pending + "}"


def _fields_pair(
    base: dict[str, JSON], in_key_order: tuple[tuple[str, str], ...], end: str
) -> Callable[[Any], Pair]:
    """The one-pass encoder of a record: ``base`` (every key, in declaration order) filled
    field by field, and the text written in key order (:func:`_key_order`)."""
    card, card_json = Card, _CARD_JSON

    def dataclass_pair(v: Any) -> Pair:
        out = base.copy()
        text = ""
        for n, key in in_key_order:
            x = getattr(v, n)
            t = type(x)
            if t is int:
                out[n] = x
                text += f"{key}{x}"
            elif t is card:
                out[n] = x.text
                text += key + card_json[x]
            elif x is None:  # already None in the copy
                text += key + "null"
            elif t is bool:
                out[n] = x
                text += key + ("true" if x else "false")
            elif t is str:
                out[n] = x
                text += key + json_string(x)
            elif t is tuple:
                if x:
                    out[n], item = _sequence_pair(x)
                    text += key + item
                else:
                    out[n] = []
                    text += key + "[]"
            else:
                out[n], item = encode_with_text(x)
                text += key + item
        return out, text + end

    return dataclass_pair


# --------------------------------------------------------------------------- other values


def _card_pair(v: Card) -> Pair:
    return v.text, json_string(v.text)


def _hidden_pair(v: Hidden) -> Pair:
    return "??", '"??"'


def _enum_pair(v: Enum) -> Pair:
    out = v.value
    return out, canonical_text(out)


def _atom_pair(v: object) -> Pair:
    if v is None:
        return None, "null"
    if type(v) is str:
        return v, json_string(v)
    return v, canonical_text(v)


_CARD_JSON: Final[dict[Card, str]] = {c: json_string(c.text) for c in _CARD_BY_TEXT.values()}
"""Every card's JSON text (cards are interned: these are all the Card objects there are)."""
_TUPLE_ONLY: Final[frozenset[type]] = frozenset({tuple})


def _sequence_pair(v: tuple[object, ...] | list[object]) -> Pair:
    if not v:
        return [], "[]"
    if type(v[0]) is int:
        for x in v:
            if type(x) is not int:
                break
        else:  # ints (a list's repr is "[1, 2]": the JSON, with spaces)
            ints = list(v)
            return ints, repr(ints).replace(" ", "")
    kinds = {*map(type, v)}
    if kinds <= TEXTED:  # cards (and hidden cards)
        out: list[JSON] = list(map(text_of, v))
        return out, '["' + '","'.join(out) + '"]'
    each: Callable[[Any], Pair] = _sequence_pair if kinds == _TUPLE_ONLY else encode_with_text
    values, texts = zip(*map(each, v), strict=True)
    return list(values), "[" + ",".join(texts) + "]"


def _set_pair(v: AbstractSet[object]) -> Pair:  # a set too (family "set"), in both builds
    if not v:
        return [], "[]"
    values, texts = zip(*sorted(map(encode_with_text, v), key=_second), strict=True)
    return list(values), "[" + ",".join(texts) + "]"


def _second(pair: Pair) -> str:
    return pair[1]


def _mapping_pair(v: Mapping[object, object]) -> Pair:
    out: dict[str, JSON] = {}
    texts: dict[str, str] = {}
    for k, x in v.items():
        key = str(encode(k))
        out[key], texts[key] = encode_with_text(x)
    inner = ",".join([json_string(k) + ":" + texts[k] for k in sorted(texts)])
    return out, "{" + inner + "}"


_PAIR_BY_FAMILY: Final[dict[str, Callable[[Any], Pair]]] = {
    "card": _card_pair,
    "hidden": _hidden_pair,
    "enum": _enum_pair,
    "atom": _atom_pair,
    "sequence": _sequence_pair,
    "set": _set_pair,
    "mapping": _mapping_pair,
}
