"""Canonical JSON for cardcore's typed values, driven by their type hints.

Commands, events and views are frozen dataclasses. On every wire and in the log they are JSON
objects ``{"kind": "<ClassName>", <field>: <value>, ...}``; cards are strings (``"QS"``), a hidden
card is ``"??"``, tuples are arrays, frozensets are sorted arrays, enums are their values.
:func:`canonical_bytes` writes sorted keys, no spaces, UTF-8 and refuses floats, so the same value
always has the same bytes: the basis of the log's hash chain and of the no-leak property tests.

:func:`decode` is the inverse and is strict: unknown kinds, missing or unexpected fields and values
of the wrong type raise :class:`~cardcore.errors.DecodeError` naming the field path.
:func:`json_schema` describes the same JSON for non-Python clients.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import json.encoder
import operator
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from enum import Enum
from typing import Any, Final, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

from .cards import _BY_TEXT as _CARD_BY_TEXT
from .cards import HIDDEN, RANKS, SUITS, Card, Hidden
from .errors import DecodeError

JSON = Any
"""A JSON value as the stdlib ``json`` module reads and writes it (no floats in cardcore)."""

T = TypeVar("T")

KIND: Final = "kind"


# What json.dumps runs: the string escaper of ensure_ascii=False and (on CPython) the C encoder,
# here built once instead of on every call.
_json_string: Final[Callable[[str], str]] = json.encoder.encode_basestring
_make_encoder: Any = getattr(json.encoder, "c_make_encoder", None)


def _not_json(o: object) -> Any:
    raise TypeError(f"Object of type {o.__class__.__name__} is not JSON serializable")


if _make_encoder is not None:
    _c_canonical = _make_encoder(None, _not_json, _json_string, None, ":", ",", True, False, False)

    def canonical_text(value: JSON) -> str:
        """:func:`canonical_bytes` as text."""
        return "".join(_c_canonical(value, 0))

else:  # pragma: no cover - other Pythons
    _py_canonical = json.JSONEncoder(
        sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )

    def canonical_text(value: JSON) -> str:
        """:func:`canonical_bytes` as text."""
        return _py_canonical.encode(value)


def canonical_bytes(value: JSON) -> bytes:
    """The canonical encoding of a JSON value: sorted keys, compact, UTF-8, integers only.

    Byte for byte ``json.dumps(value, sort_keys=True, separators=(",", ":"),
    ensure_ascii=False, allow_nan=False).encode()``: the same C encoder, built once, and without
    the check for circular references (a JSON value is a tree; a cycle fails with RecursionError
    instead of ValueError)."""
    return canonical_text(value).encode()


def parse_json(data: bytes | str) -> JSON:
    """Parse JSON, refusing floats and non-finite numbers (they have no place in cardcore)."""

    def no_float(text: str) -> float:
        raise DecodeError("", f"floats are not allowed: {text}")

    try:
        return json.loads(data, parse_float=no_float, parse_constant=no_float)
    except json.JSONDecodeError as exc:
        raise DecodeError("", f"invalid JSON: {exc.msg} at position {exc.pos}") from None


# --------------------------------------------------------------------------- encoding


def encode(value: object) -> JSON:
    """The JSON value of a cardcore value (dataclass, card, tuple, enum, scalar)."""
    cls = type(value)
    if cls in _ATOMS:
        return value
    if cls is Card:
        return value.text  # type: ignore[attr-defined]
    fn = _ENCODERS.get(cls)
    if fn is None:
        fn = _encoder(cls)
    return fn(value)


def canonical_text_of(value: object) -> str:
    """``canonical_text(encode(value))``, in one pass and without the intermediate JSON value.

    For hot paths that need the canonical text of a cardcore value (a command, an event, a
    redacted event, a view): per-class encoders that write the sorted keys directly."""
    return encode_with_text(value)[1]


def encode_with_text(value: object) -> tuple[JSON, str]:
    """``(encode(value), canonical_text_of(value))`` in one pass: the log's hot path, which keeps
    the JSON value in the line and hashes (and stores) the canonical text.

    The value is exactly what :func:`encode` returns (same types, same key order); the text is
    exactly ``canonical_text`` of it (tests/unit/test_codec_fast.py checks both)."""
    cls = type(value)
    if cls is int:
        return value, str(value)
    if cls is Card:
        text: str = value.text  # type: ignore[attr-defined]
        return text, _json_string(text)
    fn = _PAIRS.get(cls)
    if fn is None:
        fn = _pair_encoder(cls)
    return fn(value)


def encoder_with_text(cls: type) -> Callable[[Any], tuple[JSON, str]]:
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


_ATOMS: Final[frozenset[type]] = frozenset({int, str, bool, type(None)})
"""Types that :func:`encode` returns as they are (exact types: subclasses take the slow path)."""

_ENCODERS: dict[type, Callable[[Any], JSON]] = {}
_PAIRS: dict[type, Callable[[Any], tuple[JSON, str]]] = {}


def _family(cls: type) -> str:
    """Which way values of ``cls`` are encoded: the one classification that both
    :func:`_encoder` and :func:`_pair_encoder` dispatch on."""
    if dataclasses.is_dataclass(cls):
        return "dataclass"
    if cls is Card:
        return "card"
    if cls is Hidden:
        return "hidden"
    if issubclass(cls, Enum):
        return "enum"
    if cls in _ATOMS:
        return "atom"
    if issubclass(cls, tuple | list):
        return "sequence"
    if issubclass(cls, frozenset | set):
        return "set"
    if issubclass(cls, Mapping):
        return "mapping"
    raise TypeError(f"cardcore cannot encode a {cls.__name__}")


def _encoder(cls: type) -> Callable[[Any], JSON]:
    fn = _ENCODERS.get(cls)
    if fn is None:
        family = _family(cls)
        fn = _dataclass_encoder(cls) if family == "dataclass" else _VALUE_BY_FAMILY[family]
        _ENCODERS[cls] = fn
    return fn


def _dataclass_encoder(cls: type) -> Callable[[Any], JSON]:
    names = tuple(f.name for f in dataclasses.fields(cls))
    kind = cls.__name__
    base: dict[str, JSON] = {KIND: kind}
    for n in names:
        base[n] = None  # every key in declaration order (a field named "kind" keeps its place)
    atoms, card = _ATOMS, Card

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


def _encode_sequence(v: tuple[object, ...]) -> JSON:
    kinds = {*map(type, v)}
    if kinds <= _ATOMS:
        return list(v)
    if kinds <= _TEXTED:
        return list(map(_text_of, v))
    return list(map(encode, v))


def _encode_set(v: frozenset[object]) -> JSON:
    items = [encode(x) for x in v]
    return sorted(items, key=canonical_text)


def _encode_mapping(v: Mapping[object, object]) -> JSON:
    return {str(encode(k)): encode(x) for k, x in v.items()}


# The one-pass encoders behind encode_with_text, built per type on first use like _encoder's: each
# returns the JSON value exactly as encode() builds it and its canonical text, written directly.


def _pair_encoder(cls: type) -> Callable[[Any], tuple[JSON, str]]:
    fn = _PAIRS.get(cls)
    if fn is None:
        family = _family(cls)
        fn = _dataclass_pair(cls) if family == "dataclass" else _PAIR_BY_FAMILY[family]
        _PAIRS[cls] = fn
    return fn


def _dataclass_pair(cls: type) -> Callable[[Any], tuple[JSON, str]]:
    names = tuple(f.name for f in dataclasses.fields(cls))
    kind = cls.__name__
    if KIND in names:  # a field shadows the tag: encode() decides, canonical_text writes
        value_of = _encoder(cls)

        def generic_dataclass_pair(v: Any) -> tuple[JSON, str]:
            out = value_of(v)
            return out, canonical_text(out)

        return generic_dataclass_pair
    # The canonical text is written in key order: each field's text after its key (and after
    # "kind", wherever that sorts). The JSON value starts as a copy of a dict holding every key
    # in declaration order, as encode() makes it, whatever order the fields are filled in.
    base: dict[str, JSON] = {KIND: kind, **dict.fromkeys(names)}
    plan: list[tuple[str, str]] = []
    pending = "{"
    for key in sorted((*names, KIND)):
        piece = ("," if len(pending) > 1 or plan else "") + _json_string(key) + ":"
        if key == KIND:
            pending += piece + _json_string(kind)
        else:
            plan.append((key, pending + piece))
            pending = ""
    in_key_order = tuple(plan)
    end = pending + "}"
    if not names:
        empty_text = end

        def empty_dataclass_pair(v: Any) -> tuple[JSON, str]:
            return {KIND: kind}, empty_text

        return empty_dataclass_pair
    card, card_json = Card, _CARD_JSON

    def dataclass_pair(v: Any) -> tuple[JSON, str]:
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
                text += key + _json_string(x)
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


def _card_pair(v: Card) -> tuple[JSON, str]:
    return v.text, _json_string(v.text)


def _hidden_pair(v: Hidden) -> tuple[JSON, str]:
    return "??", '"??"'


def _enum_pair(v: Enum) -> tuple[JSON, str]:
    out = v.value
    return out, canonical_text(out)


def _atom_pair(v: object) -> tuple[JSON, str]:
    if v is None:
        return None, "null"
    if type(v) is str:
        return v, _json_string(v)
    return v, canonical_text(v)


_CARD_JSON: Final[dict[Card, str]] = {c: _json_string(c.text) for c in _CARD_BY_TEXT.values()}
"""Every card's JSON text (cards are interned: these are all the Card objects there are)."""
_TEXTED: Final[frozenset[type]] = frozenset({Card, Hidden})
"""Types whose JSON is their ``text`` (never in need of escaping: ``"QS"``, ``"10H"``, ``"??"``)."""
_TUPLE_ONLY: Final[frozenset[type]] = frozenset({tuple})
_text_of: Final = operator.attrgetter("text")


def _sequence_pair(v: tuple[object, ...]) -> tuple[JSON, str]:
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
    if kinds <= _TEXTED:  # cards (and hidden cards)
        out: list[JSON] = list(map(_text_of, v))
        return out, '["' + '","'.join(out) + '"]'
    each: Callable[[Any], tuple[JSON, str]] = (
        _sequence_pair if kinds == _TUPLE_ONLY else encode_with_text
    )
    values, texts = zip(*map(each, v), strict=True)
    return list(values), "[" + ",".join(texts) + "]"


def _set_pair(v: frozenset[object]) -> tuple[JSON, str]:
    if not v:
        return [], "[]"
    values, texts = zip(*sorted(map(encode_with_text, v), key=_second), strict=True)
    return list(values), "[" + ",".join(texts) + "]"


def _second(pair: tuple[JSON, str]) -> str:
    return pair[1]


def _mapping_pair(v: Mapping[object, object]) -> tuple[JSON, str]:
    out: dict[str, JSON] = {}
    texts: dict[str, str] = {}
    for k, x in v.items():
        key = str(encode(k))
        out[key], texts[key] = encode_with_text(x)
    inner = ",".join([_json_string(k) + ":" + texts[k] for k in sorted(texts)])
    return out, "{" + inner + "}"


_VALUE_BY_FAMILY: Final[dict[str, Callable[[Any], JSON]]] = {
    "card": _card_text,
    "hidden": _hidden_text,
    "enum": _enum_value,
    "atom": _identity,
    "sequence": _encode_sequence,
    "set": _encode_set,
    "mapping": _encode_mapping,
}
_PAIR_BY_FAMILY: Final[dict[str, Callable[[Any], tuple[JSON, str]]]] = {
    "card": _card_pair,
    "hidden": _hidden_pair,
    "enum": _enum_pair,
    "atom": _atom_pair,
    "sequence": _sequence_pair,
    "set": _set_pair,
    "mapping": _mapping_pair,
}


# --------------------------------------------------------------------------- decoding


def decode(tp: Any, data: JSON, path: str = "") -> Any:
    """Decode ``data`` as type ``tp`` (a dataclass, a union of dataclasses tagged by ``kind``,
    or any type hint :func:`encode` produces). Raises :class:`DecodeError` naming the path."""
    return decoder(tp)(data, path)


def decoder(tp: Any) -> Callable[[JSON, str], Any]:
    """The decoding function for ``tp``, for hot loops (replay): a fast path that tracks no
    field paths, and on any mismatch the careful decoder that names the field at fault."""
    try:
        fn = _CHECKED.get(tp)
    except TypeError:
        fn = None
    if fn is not None:
        return fn
    fast, careful = _fast(tp), _decoder(tp)
    if fast is None:
        fn = careful
    else:

        def fn(data: JSON, path: str = "") -> Any:
            try:
                return fast(data)
            except Exception:
                return careful(data, path)

    with contextlib.suppress(TypeError):
        _CHECKED[tp] = fn
    return fn


_CHECKED: dict[Any, Callable[[JSON, str], Any]] = {}
_FAST: dict[Any, Callable[[JSON], Any] | None] = {}


class _Mismatch(Exception):
    """The fast path gives up; the careful decoder will say why."""


def _fast(tp: Any) -> Callable[[JSON], Any] | None:
    """A decoder without path tracking that raises on anything unusual, or None."""
    try:
        if tp in _FAST:
            return _FAST[tp]
    except TypeError:
        return None
    _FAST[tp] = None  # guards recursion; replaced below
    fn = _build_fast(tp)
    _FAST[tp] = fn
    return fn


def _build_fast(tp: Any) -> Callable[[JSON], Any] | None:
    origin, args = get_origin(tp), get_args(tp)
    if tp is Card:
        by_text = _CARD_BY_TEXT
        return by_text.__getitem__
    if tp is int:

        def fast_int(d: JSON) -> int:
            if type(d) is not int:
                raise _Mismatch
            return d

        return fast_int
    if tp is bool or tp is str:
        exact = tp

        def fast_exact(d: JSON) -> Any:
            if type(d) is not exact:
                raise _Mismatch
            return d

        return fast_exact
    if origin is Literal and all(type(a) is str for a in args):
        allowed = frozenset(args)

        def fast_literal(d: JSON) -> Any:
            if type(d) is not str or d not in allowed:
                raise _Mismatch
            return d

        return fast_literal
    if origin in (Union, types.UnionType):
        non_none = [a for a in args if a is not type(None)]
        if set(non_none) == {Card, Hidden}:
            by_text = _CARD_BY_TEXT

            def fast_seen(d: JSON) -> Any:
                return HIDDEN if d == "??" else by_text[d]

            inner_seen: Callable[[JSON], Any] = fast_seen
        elif len(non_none) == 1:
            got = _fast(non_none[0])
            if got is None:
                return None
            inner_seen = got
        elif all(isinstance(a, type) and dataclasses.is_dataclass(a) for a in non_none):
            return _fast_tagged(non_none) if len(non_none) == len(args) else None
        else:
            return None
        if len(non_none) == len(args):
            return inner_seen
        inner = inner_seen

        def fast_optional(d: JSON) -> Any:
            return None if d is None else inner(d)

        return fast_optional
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            item = _fast(args[0])
            if item is None:
                return None
            item_fn = item

            def fast_tuple(d: JSON) -> Any:
                if type(d) is not list:
                    raise _Mismatch
                return tuple(map(item_fn, d))

            return fast_tuple
        items = [_fast(a) for a in args]
        if any(i is None for i in items):
            return None
        fns = tuple(i for i in items if i is not None)
        n = len(fns)

        def fast_fixed(d: JSON) -> Any:
            if type(d) is not list or len(d) != n:
                raise _Mismatch
            return tuple(f(x) for f, x in zip(fns, d, strict=True))

        return fast_fixed
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _fast_tagged([tp])
    return None


def _fast_tagged(classes: list[Any]) -> Callable[[JSON], Any] | None:
    plans: dict[str, tuple[Any, tuple[tuple[str, Callable[[JSON], Any]], ...]]] = {}
    for cls in classes:
        hints = get_type_hints(cls)
        fields = []
        for f in dataclasses.fields(cls):
            fn = _fast(hints[f.name])
            if fn is None:
                return None
            fields.append((f.name, fn))
        plans[cls.__name__] = (cls, tuple(fields))

    def fast_tagged(d: JSON) -> Any:
        if type(d) is not dict:
            raise _Mismatch
        cls, fields = plans[d[KIND]]
        if len(d) != len(fields) + 1:
            raise _Mismatch  # a missing default or an unknown field: the careful path decides
        return cls(*[fn(d[name]) for name, fn in fields])

    return fast_tagged


_DECODERS: dict[Any, Callable[[JSON, str], Any]] = {}


def _decoder(tp: Any) -> Callable[[JSON, str], Any]:
    try:
        fn = _DECODERS.get(tp)
    except TypeError:  # unhashable hint
        fn = None
    if fn is None:
        fn = _build_decoder(tp)
        try:
            _DECODERS[tp] = fn
        except TypeError:
            pass
    return fn


def _type_name(data: JSON) -> str:
    return "null" if data is None else type(data).__name__


def _build_decoder(tp: Any) -> Callable[[JSON, str], Any]:
    origin = get_origin(tp)
    args = get_args(tp)
    if tp is Any:
        return lambda d, p: d
    if tp is Card:
        return _decode_card
    if tp is Hidden:
        return _decode_hidden
    if tp is type(None) or tp is None:

        def dec_none(d: JSON, p: str) -> None:
            if d is not None:
                raise DecodeError(p, f"expected null, got {_type_name(d)}")

        return dec_none
    if tp is bool:

        def dec_bool(d: JSON, p: str) -> bool:
            if not isinstance(d, bool):
                raise DecodeError(p, f"expected a boolean, got {_type_name(d)}")
            return d

        return dec_bool
    if tp is int:

        def dec_int(d: JSON, p: str) -> int:
            if not isinstance(d, int) or isinstance(d, bool):
                raise DecodeError(p, f"expected an integer, got {_type_name(d)}")
            return d

        return dec_int
    if tp is str:

        def dec_str(d: JSON, p: str) -> str:
            if not isinstance(d, str):
                raise DecodeError(p, f"expected a string, got {_type_name(d)}")
            return d

        return dec_str
    if isinstance(tp, type) and issubclass(tp, Enum):
        values = {m.value: m for m in tp}

        def dec_enum(d: JSON, p: str) -> Any:
            try:
                return values[d]
            except (KeyError, TypeError):
                raise DecodeError(p, f"expected one of {sorted(values)}, got {d!r}") from None

        return dec_enum
    if origin is Literal:
        allowed = args

        def dec_literal(d: JSON, p: str) -> Any:
            for a in allowed:
                if d == a and type(d) is type(a):
                    return a
            raise DecodeError(p, f"expected one of {list(allowed)}, got {d!r}")

        return dec_literal
    if origin in (Union, types.UnionType):
        return _union_decoder(args)
    if origin is tuple:
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
    if origin in (frozenset, set):
        item = _decoder(args[0])

        def dec_set(d: JSON, p: str) -> frozenset[Any]:
            if not isinstance(d, list):
                raise DecodeError(p, f"expected an array, got {_type_name(d)}")
            out = frozenset(item(x, f"{p}[{i}]") for i, x in enumerate(d))
            if len(out) != len(d):
                raise DecodeError(p, "duplicate items in a set")
            return out

        return dec_set
    if origin in (dict, Mapping, typing.Mapping) or tp is dict:
        key_dec = _decoder(args[0]) if args else _decoder(str)
        val_dec = _decoder(args[1]) if args else _decoder(Any)

        def dec_map(d: JSON, p: str) -> dict[Any, Any]:
            if not isinstance(d, dict):
                raise DecodeError(p, f"expected an object, got {_type_name(d)}")
            return {key_dec(k, f"{p}.{k}"): val_dec(v, f"{p}.{k}") for k, v in d.items()}

        return dec_map
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _union_decoder((tp,))
    raise TypeError(f"cardcore cannot decode type {tp!r}")


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


def _union_decoder(args: tuple[Any, ...]) -> Callable[[JSON, str], Any]:
    classes = {a.__name__: a for a in args if isinstance(a, type) and dataclasses.is_dataclass(a)}
    others = [a for a in args if a.__name__ not in classes] if classes else list(args)
    if classes and not others:
        return _tagged_decoder(classes)
    if not classes:
        decoders = [_decoder(a) for a in others]
        # Hidden before Card so "??" is not reported as a bad card; None first for speed.
        order = sorted(range(len(others)), key=lambda i: (others[i] is not type(None), i))

        def dec_union(d: JSON, p: str) -> Any:
            errors: list[str] = []
            for i in order:
                try:
                    return decoders[i](d, p)
                except DecodeError as exc:
                    errors.append(exc.message)
            raise DecodeError(p, " / ".join(errors))

        return dec_union
    raise TypeError(f"cannot decode a union mixing dataclasses and scalars: {args!r}")


def _tagged_decoder(classes: dict[str, type]) -> Callable[[JSON, str], Any]:
    plans: dict[str, tuple[type, list[tuple[str, Callable[[JSON, str], Any], bool]]]] = {}

    def plan(cls: type) -> list[tuple[str, Callable[[JSON, str], Any], bool]]:
        hints = get_type_hints(cls)
        out = []
        for f in dataclasses.fields(cls):
            has_default = (
                f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
            )
            out.append((f.name, _decoder(hints[f.name]), has_default))
        return out

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
            entry = plans[kind] = (classes[kind], plan(classes[kind]))
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


# --------------------------------------------------------------------------- JSON Schema


def json_schema(tp: Any) -> JSON:
    """A JSON Schema (2020-12) of the JSON that :func:`encode` produces for type ``tp``."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **_schema(tp)}


_CARD_PATTERN: Final = "^(JK|(" + "|".join(RANKS) + ")[" + "".join(SUITS) + "])$"


def _schema(tp: Any) -> JSON:
    origin, args = get_origin(tp), get_args(tp)
    if tp is Card:
        return {"type": "string", "pattern": _CARD_PATTERN, "description": "a card, e.g. QS"}
    if tp is Hidden:
        return {"const": "??", "description": "a card the viewer may not see"}
    if tp is type(None) or tp is None:
        return {"type": "null"}
    if tp is bool:
        return {"type": "boolean"}
    if tp is int:
        return {"type": "integer"}
    if tp is str:
        return {"type": "string"}
    if tp is Any:
        return {}
    if isinstance(tp, type) and issubclass(tp, Enum):
        return {"enum": [m.value for m in tp]}
    if origin is Literal:
        return {"enum": list(args)}
    if origin in (Union, types.UnionType):
        return {"anyOf": [_schema(a) for a in args]}
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": _schema(args[0])}
        return {
            "type": "array",
            "prefixItems": [_schema(a) for a in args],
            "minItems": len(args),
            "maxItems": len(args),
        }
    if origin in (frozenset, set):
        return {"type": "array", "items": _schema(args[0]), "uniqueItems": True}
    if origin in (dict, Mapping, typing.Mapping):
        return {"type": "object", "additionalProperties": _schema(args[1]) if args else {}}
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        hints = get_type_hints(tp)
        props: dict[str, JSON] = {KIND: {"const": tp.__name__}}
        required = [KIND]
        for f in dataclasses.fields(tp):
            props[f.name] = _schema(hints[f.name])
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
    raise TypeError(f"no JSON Schema for {tp!r}")


def union_schema(classes: tuple[type, ...]) -> JSON:
    """A schema accepting any of the given dataclasses, discriminated by ``kind``."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "oneOf": [_schema(c) for c in classes],
    }
