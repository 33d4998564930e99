"""One-pass encoding: a value's JSON (exactly what :func:`~cardcore.codec.encode` builds) together
with its canonical text, written directly by per-type encoders built on first use, without going
through the intermediate JSON value. The log's hot path: it keeps the JSON value in the line and
hashes (and stores) the canonical text."""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from enum import Enum
from typing import Any, Final, Literal, Union, get_args, get_origin, get_type_hints

from ..cards import _BY_TEXT as _CARD_BY_TEXT
from ..cards import Card, Hidden
from .canonical import JSON, KIND, canonical_text, json_string
from .encoding import TEXTED, encode, encoder_of, family

# The module has two parts: the per-type encoders (closures, built on first use), and
# pair_source, the source of a record's encoder written out from its fields' declared types,
# which a caller that may generate code has compiled (the log writer, by the kit's one exec).

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


def text_encoder(cls: type) -> Callable[[Any], str]:
    """The function :func:`canonical_text_of` applies to values of type ``cls`` (built once per
    type): for a record, :func:`encoder_with_text`'s text without its JSON value (what a log
    writer that builds the value later hashes), else that encoder's text."""
    fn = _TEXTS.get(cls)
    if fn is None:
        record = family(cls) == "dataclass"
        if record and (plan := _record_plan(cls)) is not None:
            fn = _fields_text(*plan)
        elif record and not dataclasses.fields(cls):  # most commands: one text, made once
            fn = _constant_text(_key_order((), cls.__name__)[1])
        else:
            fn = _text_of(_pair_encoder(cls))
        _TEXTS[cls] = fn
    return fn


def _constant_text(text: str) -> Callable[[Any], str]:
    def constant_text(v: Any) -> str:
        return text

    return constant_text


def _text_of(pair: Callable[[Any], Pair]) -> Callable[[Any], str]:
    def text_of_pair(v: Any) -> str:
        return pair(v)[1]

    return text_of_pair


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
_TEXTS: dict[type, Callable[[Any], str]] = {}


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


def _record_plan(cls: type) -> tuple[tuple[tuple[str, str], ...], str] | None:
    """:func:`_key_order` of a record class with fields, none named ``kind`` (else None)."""
    names = tuple(f.name for f in dataclasses.fields(cls))
    if not names or KIND in names:
        return None
    return _key_order(names, cls.__name__)


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
    card_json, small = _CARD_JSON, _SMALL_INTS

    # The text's pieces are gathered and joined once (compiled, 18 % faster than adding each
    # to the text); a small int's text is looked up, not made. An int or a Card is known as one
    # once its exact type is checked: the compiled build reads it natively.
    def dataclass_pair(v: Any) -> Pair:
        out = base.copy()
        parts: list[str] = []
        for n, key in in_key_order:
            parts.append(key)
            x = getattr(v, n)
            if type(x) is int:
                out[n] = x
                parts.append(small[x] if 0 <= x < _SMALL_INT_END else str(x))
            elif type(x) is Card:
                out[n] = x.text
                parts.append(card_json[x])
            elif x is None:  # already None in the copy
                parts.append("null")
            elif (t := type(x)) is bool:
                out[n] = x
                parts.append("true" if x else "false")
            elif t is str:
                out[n] = x
                parts.append(json_string(x))
            elif t is tuple:
                if x:
                    out[n], item = _sequence_pair(x)
                    parts.append(item)
                else:
                    out[n] = []
                    parts.append("[]")
            else:
                out[n], item = encode_with_text(x)
                parts.append(item)
        parts.append(end)
        return out, "".join(parts)

    return dataclass_pair


def _fields_text(in_key_order: tuple[tuple[str, str], ...], end: str) -> Callable[[Any], str]:
    """:func:`_fields_pair`'s encoder without the JSON value: the text only."""
    card_json, small = _CARD_JSON, _SMALL_INTS

    def dataclass_text(v: Any) -> str:
        parts: list[str] = []
        for n, key in in_key_order:
            parts.append(key)
            x = getattr(v, n)
            if type(x) is int:
                parts.append(small[x] if 0 <= x < _SMALL_INT_END else str(x))
            elif type(x) is Card:
                parts.append(card_json[x])
            elif x is None:
                parts.append("null")
            elif (t := type(x)) is bool:
                parts.append("true" if x else "false")
            elif t is str:
                parts.append(json_string(x))
            elif t is tuple:
                parts.append(_sequence_text(x))
            else:
                parts.append(encode_with_text(x)[1])
        parts.append(end)
        return "".join(parts)

    return dataclass_text


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
_SMALL_INT_END: Final = 1024
_SMALL_INTS: Final[tuple[str, ...]] = tuple(str(i) for i in range(_SMALL_INT_END))
"""The text of each int from 0 up to :data:`_SMALL_INT_END` (seats, counts, indexes, times)."""


def _sequence_pair(v: tuple[object, ...] | list[object]) -> Pair:
    if not v:
        return [], "[]"
    first = type(v[0])
    if first is Card or first is Hidden:
        # Cards (and hidden cards), read one by one: a short hand or play (most are) costs about
        # half what building the set of their types did; a Card is read natively when compiled.
        out: list[JSON] = []
        for x in v:
            if type(x) is Card or type(x) is Hidden:
                out.append(x.text)
            else:
                break
        else:
            return out, '["' + '","'.join(out) + '"]'
    elif first is int:
        written: list[str] = []
        small = _SMALL_INTS
        for x in v:
            if type(x) is not int:
                break
            written.append(small[x] if 0 <= x < _SMALL_INT_END else str(x))
        else:  # ints, their texts joined (a list's repr with its spaces dropped took 3x as long)
            return list(v), "[" + ",".join(written) + "]"
    kinds = {*map(type, v)}
    each: Callable[[Any], Pair] = _sequence_pair if kinds == _TUPLE_ONLY else encode_with_text
    values, texts = zip(*map(each, v), strict=True)
    return list(values), "[" + ",".join(texts) + "]"


def _sequence_text(v: tuple[object, ...]) -> str:
    """:func:`_sequence_pair`'s text: cards (the common case) without their JSON list."""
    if v and (type(v[0]) is Card or type(v[0]) is Hidden):
        texts: list[str] = []
        for x in v:
            if type(x) is Card or type(x) is Hidden:
                texts.append(x.text)
            else:
                return _sequence_pair(v)[1]
        return '["' + '","'.join(texts) + '"]'
    return _sequence_pair(v)[1]


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


# --------------------------------------------------------------------------- a record's source


def pair_source(cls: type, *, text: bool = False) -> tuple[list[str], dict[str, Any]] | None:
    """The source of a one-pass encoder of the record class ``cls``: the body of ``def
    pair(v)`` and the names it reads, for :func:`cardcore.kit.codegen.function` (the codec
    itself generates no code, and its caller decides where the source pays: the log writer uses
    it in the interpreted build only). None where the closures serve as well: not a dataclass,
    no fields, a field named ``kind``.

    The encoder gives exactly what :func:`encoder_with_text` of ``cls`` gives, for any value.
    It is written from each field's declared type (the one the schema reads): straight-line
    code that reads each field once, with no dispatch on the type of a value, where the
    closures' loop asks every field's value its type in turn. A declared type is a promise
    the encoder checks, not trusts: a field of another type (a bool where ``int`` is declared)
    sends the whole record to the closures.

    ``text``: the source of :func:`text_encoder`'s function instead (the text only)."""
    if not dataclasses.is_dataclass(cls) or not isinstance(cls, type):
        return None
    names = tuple(f.name for f in dataclasses.fields(cls))
    if not names or KIND in names:
        return None
    try:
        hints = get_type_hints(cls)
    except (NameError, TypeError):  # a hint that does not resolve: the closures need none
        return None
    in_key_order, end = _key_order(names, cls.__name__)
    ns: dict[str, Any] = {
        "KIND": KIND,
        "NAME": cls.__name__,
        "END": end,
        "SLOW": text_encoder(cls) if text else _pair_encoder(cls),
        "PAIR": encode_with_text,
        "SEQUENCE_PAIR": _sequence_pair,
        "SEQUENCE_TEXT": _sequence_text,
        "CARD": Card,
        "CARD_JSON": _CARD_JSON,
        "TEXTED": TEXTED,
        "JSON_STRING": json_string,
        "NULL": "null",
        "NO_PAIR": (None, "null"),
        "TRUE": "true",
        "FALSE": "false",
    }
    loads, checks, pairs, values, pieces = [], [], [], {}, []
    for i, (name, before) in enumerate(in_key_order):
        x = f"f{i}"
        loads.append(f"    {x} = v.{name}")
        ns[f"K{i}"] = before
        kind = _field_kind(hints[name])
        check, value, written = _FIELD_SOURCE[kind](x)
        if check:
            checks.append(check)
        if value is None and text:  # the text only
            written = _TEXT_ONLY_SOURCE[kind](x)
        elif value is None:  # ``written`` makes the field's pair
            pairs.append(f"    {x}_value, {x}_text = {written}")
            value, written = f"{x}_value", f"{x}_text"
        values[name] = value
        pieces.append(f"{{K{i}}}{{{written}}}")
    if checks:
        loads.append(f"    if not ({' and '.join(checks)}):\n        return SLOW(v)")
    value_source = ", ".join(f"'{n}': {values[n]}" for n in names)
    written_text = f"f'{''.join(pieces)}{{END}}'"
    if text:
        return [*loads, f"    return {written_text}"], ns
    body = [*loads, *pairs, f"    return {{KIND: NAME, {value_source}}}, {written_text}"]
    return body, ns


def _field_kind(hint: Any) -> str:
    """How a field of declared type ``hint`` is written (a key of :data:`_FIELD_SOURCE`)."""
    if hint is int or hint is bool or hint is str or hint is Card:
        return str(hint.__name__)
    origin, args = get_origin(hint), get_args(hint)
    if origin is Literal and all(type(a) is str for a in args):
        return "str"
    if origin is tuple:
        return "tuple"
    if origin is Union or origin is types.UnionType:
        if set(args) == {int, type(None)}:
            return "int?"
        if set(args) == TEXTED:
            return "seen"
        if len(args) == 2 and type(None) in args and get_origin(args[0]) is tuple:
            return "tuple?"
    return "other"


# Per kind of declared type, for the local variable ``x`` holding the field: the check that its
# value is of that type ("": none), and the source of its JSON value and of its canonical text;
# or (value None) the source of the pair of both.


def _int_source(x: str) -> tuple[str, str | None, str]:
    return f"type({x}) is int", x, x


def _optional_int_source(x: str) -> tuple[str, str | None, str]:
    return f"({x} is None or type({x}) is int)", x, f"NULL if {x} is None else {x}"


def _bool_source(x: str) -> tuple[str, str | None, str]:
    return f"type({x}) is bool", x, f"TRUE if {x} else FALSE"


def _str_source(x: str) -> tuple[str, str | None, str]:
    return f"type({x}) is str", x, f"JSON_STRING({x})"


def _card_source(x: str) -> tuple[str, str | None, str]:
    return f"type({x}) is CARD", f"{x}.text", f"CARD_JSON[{x}]"


def _seen_source(x: str) -> tuple[str, str | None, str]:
    # A card or a hidden card: its text needs no escaping (TEXTED).
    return f"type({x}) in TEXTED", f"{x}.text", f"JSON_STRING({x}.text)"


def _tuple_source(x: str) -> tuple[str, str | None, str]:
    return f"type({x}) is tuple", None, f"SEQUENCE_PAIR({x})"


def _optional_tuple_source(x: str) -> tuple[str, str | None, str]:
    check = f"({x} is None or type({x}) is tuple)"
    return check, None, f"NO_PAIR if {x} is None else SEQUENCE_PAIR({x})"


def _other_source(x: str) -> tuple[str, str | None, str]:
    return "", None, f"PAIR({x})"


_FIELD_SOURCE: Final[dict[str, Callable[[str], tuple[str, str | None, str]]]] = {
    "int": _int_source,
    "int?": _optional_int_source,
    "bool": _bool_source,
    "str": _str_source,
    "Card": _card_source,
    "seen": _seen_source,
    "tuple": _tuple_source,
    "tuple?": _optional_tuple_source,
    "other": _other_source,
}
"""How a field of each kind of declared type is written (the comment above)."""


def _tuple_text_source(x: str) -> str:
    return f"SEQUENCE_TEXT({x})"


def _optional_tuple_text_source(x: str) -> str:
    return f"NULL if {x} is None else SEQUENCE_TEXT({x})"


def _other_text_source(x: str) -> str:
    return f"PAIR({x})[1]"


_TEXT_ONLY_SOURCE: Final[dict[str, Callable[[str], str]]] = {
    "tuple": _tuple_text_source,
    "tuple?": _optional_tuple_text_source,
    "other": _other_text_source,
}
"""For ``pair_source(text=True)``: the text of a field whose pair :data:`_FIELD_SOURCE` makes."""
