"""The application layer: what every transport calls; no transport here (design.md §4).

:class:`Application` is the one entry point; this package's modules are its parts.
"""

from .facade import (
    MAX_DELAY_MS,
    MAX_EVENT_LIMIT,
    MAX_SEATS,
    MAX_TIMEOUTS,
    MAX_TIMER_MS,
    Application,
    CatalogueEntry,
    CreatedGame,
    FlagEntry,
    GameSpec,
    LogResult,
    ServiceConfig,
    StreamBatch,
    SubmitResult,
    ViewResult,
    check_idempotency_key,
    request_fields,
)
from .lobby import Joined, SeatInfo, TableInfo, TableListing

__all__ = [
    "MAX_DELAY_MS",
    "MAX_EVENT_LIMIT",
    "MAX_SEATS",
    "MAX_TIMEOUTS",
    "MAX_TIMER_MS",
    "Application",
    "CatalogueEntry",
    "CreatedGame",
    "FlagEntry",
    "GameSpec",
    "Joined",
    "LogResult",
    "SeatInfo",
    "ServiceConfig",
    "StreamBatch",
    "SubmitResult",
    "TableInfo",
    "TableListing",
    "ViewResult",
    "check_idempotency_key",
    "request_fields",
]
