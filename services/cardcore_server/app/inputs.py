"""JSON a request carries (a command, a game's rules), read as the application reads it: a JSON
object of at most :data:`MAX_JSON` characters, without floats (cardcore's JSON has none).

A transport whose wire carries JSON as text (gRPC) reads it with :func:`read_json_object`; one
whose wire decoded it already (REST) hands the value in, judged on its JSON text only when that
text would be refused. Either way, what cannot be read becomes :class:`~.values.Unreadable`,
and the application refuses it in its turn (:func:`readable`).
"""

from __future__ import annotations

from typing import Final

from cardcore import codec
from cardcore.errors import DecodeError

from ..errors import invalid
from .values import JsonObject, Unreadable

MAX_JSON: Final = 64 * 1024
"""The longest JSON text of a command or of a game's rules, in characters."""


def read_json_object(text: str, path: str, *, empty: bool = False) -> JsonObject | Unreadable:
    """``text`` as a JSON object (``empty``: blank text is ``{}``), or why it is not one,
    naming ``path``."""
    if empty and not text.strip():
        return {}
    if len(text) > MAX_JSON:
        return Unreadable(invalid(path, f"longer than {MAX_JSON} characters"))
    try:
        data = codec.parse_json(text)
    except DecodeError as exc:
        return Unreadable(invalid(path, exc.message))
    except (RecursionError, ValueError):
        return Unreadable(invalid(path, "not valid JSON"))
    if not isinstance(data, dict):
        return Unreadable(invalid(path, "must be a JSON object"))
    return data


def readable(value: JsonObject | Unreadable) -> JsonObject:
    """The JSON object, or its transport's reason why there is none, raised now."""
    if isinstance(value, Unreadable):
        raise value.error
    return value
