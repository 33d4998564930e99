"""The application layer: what every transport calls; no transport here (design.md §4).

:class:`Application` is the one entry point (:mod:`.facade`); the values it takes and gives are
:mod:`.values`. A transport reads its wire into those values, calls the application, and
renders what comes back; it has no rules of its own.
"""

from ..config import ServiceConfig
from .channel import PlayChannel
from .facade import Application
from .idempotency import check_idempotency_key
from .inputs import MAX_JSON, read_json_object
from .lobby import MAX_MY_GAMES
from .plan import MAX_DELAY_MS, MAX_EVENT_LIMIT, MAX_SEATS, MAX_TIMEOUTS, MAX_TIMER_MS
from .requests import note, request_fields
from .values import (
    CatalogueEntry,
    CreatedGame,
    GameSpec,
    Joined,
    JsonObject,
    LogResult,
    RuleFlag,
    SeatInfo,
    StreamBatch,
    SubmitResult,
    TableInfo,
    TableListing,
    Unreadable,
    ViewResult,
)

__all__ = [
    "MAX_DELAY_MS",
    "MAX_EVENT_LIMIT",
    "MAX_JSON",
    "MAX_MY_GAMES",
    "MAX_SEATS",
    "MAX_TIMEOUTS",
    "MAX_TIMER_MS",
    "Application",
    "CatalogueEntry",
    "CreatedGame",
    "GameSpec",
    "Joined",
    "JsonObject",
    "LogResult",
    "PlayChannel",
    "RuleFlag",
    "SeatInfo",
    "ServiceConfig",
    "StreamBatch",
    "SubmitResult",
    "TableInfo",
    "TableListing",
    "Unreadable",
    "ViewResult",
    "check_idempotency_key",
    "note",
    "read_json_object",
    "request_fields",
]
