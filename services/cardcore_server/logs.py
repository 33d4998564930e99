"""structlog JSON logs: one line per request, never a token, seed, salt or hidden card.

The service never passes those values to a logger in the first place (requests are logged by
their ``game_id``, ``seat``, ``seq``, RPC name, status and reason only); :func:`scrub` is the
second line of defence, dropping sensitive keys and masking anything shaped like a token.
Tracebacks are rendered without local variables. What the libraries underneath write through
:mod:`logging` (asyncio's loop, uvicorn, gRPC) is routed into the same JSON lines, so the log is
JSON only whatever reports it.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import MutableMapping
from typing import Any, Final, TextIO

import structlog
from structlog.tracebacks import ExceptionDictTransformer

SENSITIVE_KEYS: Final = frozenset(
    {
        "token",
        "tokens",
        "seed",
        "salt",
        "authorization",
        "admin_key",
        "idempotency_key",
        "command",
        "events",
        "view",
    }
)
_TOKEN_RE: Final = re.compile(r"cct_[A-Za-z0-9_\-]+")


def scrub(_: Any, __: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """Drop sensitive keys; mask token-shaped text in string values."""
    for key in list(event):
        if key in SENSITIVE_KEYS:
            del event[key]
            continue
        value = event[key]
        if isinstance(value, str) and "cct_" in value:
            event[key] = _TOKEN_RE.sub("cct_***", value)
    return event


_level = [logging.INFO]  # as configured (a list: set by configure, read on every request)


def requests_logged() -> bool:
    """Whether the per-request line is written (level ``info`` or below): the transports skip
    building it otherwise, as it would be dropped anyway."""
    return _level[0] <= logging.INFO


def configure(stream: TextIO | None = None, level: str = "info") -> None:
    """JSON lines on ``stream`` (stderr by default)."""
    _level[0] = logging.getLevelNamesMapping()[level.upper()]
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            scrub,
            structlog.processors.ExceptionRenderer(ExceptionDictTransformer(show_locals=False)),
            structlog.processors.JSONRenderer(sort_keys=True),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]
        ),
        logger_factory=structlog.WriteLoggerFactory(file=stream or sys.stderr),
        cache_logger_on_first_use=True,
    )
    _route_stdlib_logging(_level[0])


class _IntoStructlog(logging.Handler):
    """Writes a :mod:`logging` record as one of our JSON lines (scrubbed like every other)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            structlog.get_logger("cardcore_server").log(
                record.levelno,
                record.getMessage(),
                logger=record.name,
                exc_info=record.exc_info or False,
            )
        except Exception:
            self.handleError(record)


def _route_stdlib_logging(level: int) -> None:
    root = logging.getLogger()
    for handler in list(root.handlers):
        if isinstance(handler, _IntoStructlog):
            root.removeHandler(handler)
    root.addHandler(_IntoStructlog())
    # Libraries' own info lines (uvicorn's "Started server process", ...) repeat what ours say.
    root.setLevel(max(level, logging.WARNING))
