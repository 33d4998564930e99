"""What every request to the application passes: the gate (closed once the server stops) and
the request's facts for its one log line.

The transport opens :data:`request_fields` for each request and writes the line when it ends
(``game_id``, ``seat``, ``seq``, a rejection's reason, ...); the application adds to it with
:func:`note`. A field set outside a request goes nowhere.
"""

from __future__ import annotations

import contextvars
import re
from typing import Any, Final

from ..errors import Reason, ServiceError, Status, invalid

request_fields: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "cardcore_request_fields", default=None
)

_GAME_ID_RE: Final = re.compile(r"^[0-9a-f]{32}$")


def note(**fields: Any) -> None:
    """Add ``fields`` to the current request's log line."""
    current = request_fields.get()
    if current is not None:
        current.update(fields)


def check_game_id(game_id: str) -> None:
    """A game id is 32 lowercase hex digits (``INVALID_ARGUMENT`` naming ``game_id``)."""
    if not _GAME_ID_RE.match(game_id or ""):
        raise invalid("game_id", "must be 32 lowercase hex digits")


class Gate:
    """Open while the server serves; closed by :meth:`close` when it begins to stop, after which
    every new call is refused ``UNAVAILABLE``/``ShuttingDown`` (clients retry elsewhere)."""

    __slots__ = ("closing",)

    def __init__(self) -> None:
        self.closing = False

    def close(self) -> None:
        self.closing = True

    def check_open(self) -> None:
        if self.closing:
            raise ServiceError(Status.UNAVAILABLE, Reason.SHUTTING_DOWN, "the server is stopping")

    def check_open_to_resume(self) -> None:
        """For a stream already open: the server is stopping, and the client should resume
        from its last ``seq`` on another server (or this one, once restarted)."""
        if self.closing:
            raise ServiceError(
                Status.UNAVAILABLE, Reason.SHUTTING_DOWN, "the server is stopping; resume"
            )
