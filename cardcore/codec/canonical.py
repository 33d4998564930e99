"""Canonical JSON text: sorted keys, no spaces, UTF-8, no floats, so the same value always has the
same bytes (the basis of the log's hash chain and of the no-leak property tests); and
:func:`parse_json`, which refuses floats."""

from __future__ import annotations

import json
import json.encoder
from collections.abc import Callable
from typing import Any, Final

from ..errors import DecodeError

JSON = Any
"""A JSON value as the stdlib ``json`` module reads and writes it (no floats in cardcore)."""

KIND: Final = "kind"
"""The key of a typed value's class name: ``{"kind": "<ClassName>", <field>: <value>, ...}``."""


# What json.dumps runs: the string escaper of ensure_ascii=False and (on CPython) the C encoder,
# here built once instead of on every call.
json_string: Final[Callable[[str], str]] = json.encoder.encode_basestring
"""A string's JSON text (quoted and escaped, non-ASCII kept)."""
_make_encoder: Any = getattr(json.encoder, "c_make_encoder", None)


def _not_json(o: object) -> Any:
    raise TypeError(f"Object of type {o.__class__.__name__} is not JSON serializable")


# Built once: CPython's C encoder where there is one, else the stdlib's JSONEncoder (other Pythons).
_c_canonical: Any = (
    None
    if _make_encoder is None
    else _make_encoder(None, _not_json, json_string, None, ":", ",", True, False, False)
)
_py_canonical: Final = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)


def canonical_text(value: JSON) -> str:
    """:func:`canonical_bytes` as text."""
    if _c_canonical is not None:
        return "".join(_c_canonical(value, 0))
    return _py_canonical.encode(value)  # pragma: no cover - other Pythons


def canonical_bytes(value: JSON) -> bytes:
    """The canonical encoding of a JSON value: sorted keys, compact, UTF-8, integers only.

    Byte for byte ``json.dumps(value, sort_keys=True, separators=(",", ":"),
    ensure_ascii=False, allow_nan=False).encode()``: the same C encoder, built once, and without
    the check for circular references (a JSON value is a tree; a cycle fails with RecursionError
    instead of ValueError)."""
    return canonical_text(value).encode()


def object_text(texts: dict[str, str]) -> str:
    """The canonical text of a JSON object given each value's canonical text, by key: the keys
    sorted and written as :func:`canonical_text` writes them, the texts as they are. (A line
    whose parts are written once and joined twice, without and with its hash.)"""
    return "{" + ",".join([json_string(k) + ":" + texts[k] for k in sorted(texts)]) + "}"


def value_text(value: JSON) -> str:
    """:func:`canonical_text`, a string's without the encoder's set-up."""
    return json_string(value) if type(value) is str else canonical_text(value)


def parse_json(data: bytes | str) -> JSON:
    """Parse JSON, refusing floats and non-finite numbers (they have no place in cardcore)."""

    def no_float(text: str) -> float:
        raise DecodeError("", f"floats are not allowed: {text}")

    try:
        return json.loads(data, parse_float=no_float, parse_constant=no_float)
    except json.JSONDecodeError as exc:
        raise DecodeError("", f"invalid JSON: {exc.msg} at position {exc.pos}") from None
