"""Readable text renders of views and viewers, for the CLI's ``replay``, the golden logs and
``str()`` of every record (a view, an event).

A render is a pure function of the (already redacted) view, so it can show nothing the view does
not: a face-down card is ``??``. Cards are written with their suit symbols (``Q♠``, the rules
pages' form) by default, or as their text (``QS``, the notation's form) with ``symbols=False``:
``str(view)`` and ``str(event)`` use the text, as python-chess's ``str(board)`` is ASCII.
"""

from __future__ import annotations

import dataclasses
from enum import Enum

from .cards import Card, Hidden
from .engine import Role, Viewer


def viewer_name(viewer: Viewer) -> str:
    """``"seat 2"``, ``"spectator"`` or ``"referee"``."""
    return viewer.value if isinstance(viewer, Role) else f"seat {viewer}"


def render_value(value: object, *, symbols: bool = True) -> str:
    """A compact one-line text form: cards as symbols (``Q♠``; ``QS`` with ``symbols=False``),
    sequences in brackets, a record as ``Name(field=value, ...)``."""
    if isinstance(value, Card):
        return value.symbol if symbols else value.text
    if isinstance(value, Hidden):
        return "??"
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, tuple | list):
        if len(value) > 3 and all(isinstance(v, Hidden) for v in value):
            times = "×" if symbols else "x"  # ASCII without the symbols
            return f"[??{times}{len(value)}]"  # a face-down stack: its size is all there is to see
        return "[" + " ".join(render_value(v, symbols=symbols) for v in value) + "]"
    if isinstance(value, frozenset | set):
        return "{" + " ".join(sorted(render_value(v, symbols=symbols) for v in value)) + "}"
    if isinstance(value, dict):
        return (
            "{"
            + ", ".join(f"{k}: {render_value(v, symbols=symbols)}" for k, v in value.items())
            + "}"
        )
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        inner = ", ".join(
            f"{f.name}={render_value(getattr(value, f.name), symbols=symbols)}"
            for f in dataclasses.fields(value)
        )
        return f"{type(value).__name__}({inner})"
    return str(value)


def render_view(view: object, *, symbols: bool = True) -> str:
    """One line per field of a view dataclass: ``name: value`` (:func:`render_value`)."""
    if not dataclasses.is_dataclass(view) or isinstance(view, type):
        return render_value(view, symbols=symbols)
    return "\n".join(
        f"{f.name}: {render_value(getattr(view, f.name), symbols=symbols)}"
        for f in dataclasses.fields(view)
    )
