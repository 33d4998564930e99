"""Canonical JSON for cardcore's typed values, driven by their type hints.

Commands, events and views are frozen dataclasses. On every wire and in the log they are JSON
objects ``{"kind": "<ClassName>", <field>: <value>, ...}``; cards are strings (``"QS"``), a hidden
card is ``"??"``, tuples are arrays, frozensets are sorted arrays, enums are their values.
:func:`canonical_bytes` writes sorted keys, no spaces, UTF-8 and refuses floats, so the same value
always has the same bytes: the basis of the log's hash chain and of the no-leak property tests.

:func:`decode` is the inverse and is strict: unknown kinds, missing or unexpected fields and values
of the wrong type raise :class:`~cardcore.errors.DecodeError` naming the field path.
:func:`json_schema` describes the same JSON for non-Python clients.

One job per module, every name imported from here (``codec.encode``): :mod:`.canonical` (the
canonical text, :func:`parse_json`), :mod:`.encoding` (a value's JSON), :mod:`.pairs` (its JSON and
canonical text in one pass: the log's hot path, and :func:`pair_source`, a record's encoder
written out as source), :mod:`.decoding` (the careful decoders, which name the field at fault,
and :func:`decoder`), :mod:`.fast` (the decoders' fast path) and :mod:`.schema`.
"""

from __future__ import annotations

from typing import Final

from .canonical import (
    JSON,
    KIND,
    canonical_bytes,
    canonical_text,
    object_text,
    parse_json,
    value_text,
)
from .decoding import decode, decoder
from .encoding import encode
from .pairs import (
    canonical_text_of,
    encode_all_with_text,
    encode_with_text,
    encoder_with_text,
    pair_source,
    text_encoder,
)
from .schema import json_schema, schema_of, union_schema

_schema: Final = schema_of
"""The schema of one field's type, without ``$schema`` (cardcore.engine reads a rule flag's by
this name)."""

__all__ = [
    "JSON",
    "KIND",
    "canonical_bytes",
    "canonical_text",
    "canonical_text_of",
    "decode",
    "decoder",
    "encode",
    "encode_all_with_text",
    "encode_with_text",
    "encoder_with_text",
    "json_schema",
    "object_text",
    "pair_source",
    "parse_json",
    "schema_of",
    "text_encoder",
    "union_schema",
    "value_text",
]
