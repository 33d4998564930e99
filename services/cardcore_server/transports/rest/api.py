"""The REST transport: Litestar on uvicorn, in the gRPC server's process and event loop.

Like the gRPC transport it only converts and delegates to the application
(:mod:`cardcore_server.app`): every value it sends was produced by the application layer, i.e. by
:mod:`cardcore_server.redaction`; it has no rules and no redaction of its own. Wire types are
:mod:`msgspec` structs, the single source of request validation and of the OpenAPI 3.1 document
(served at :data:`OPENAPI_PATH`).

Routes (all under ``/v1``; the seat is the bearer token's, never a field of the request):

=========================================  =================  ====================================
``GET  /v1/games``                          ``ListGames``      the catalogue
``POST /v1/games``                          ``CreateGame``     admin key header when required
``POST /v1/games/{game_id}/actions``        ``SubmitAction``   idempotent per ``action_id``
``GET  /v1/games/{game_id}/view``           ``GetView``
``GET  /v1/games/{game_id}/log``            ``GetLog``         JSON Lines, as ``cardcore verify``
``GET  /v1/games/{game_id}/events``         ``StreamEvents``   Server-Sent Events
``POST /v1/tables/join``                    ``JoinTable``      no token: an invite or a game id
``GET  /v1/invites/{code}``                 (REST only)        an invite link: what it is for
``POST /v1/invites/{code}``                 ``JoinTable``      an invite link: take its seat
``POST /v1/games/{game_id}/reveal``         ``RevealEntropy``  the seat's token, at the start
``POST /v1/games/{game_id}/start``          ``StartTable``     the creator's token
``POST /v1/games/{game_id}/abort``          ``AbortGame``      the creator's token or admin key
``GET  /v1/games/{game_id}/table``          ``GetTable``       any token; none for a public table
``GET  /v1/tables``                         ``ListTables``     public tables waiting, newest first
``POST /v1/games/{game_id}/watch``          ``WatchTable``     a spectator token (public tables)
``POST /v1/my-games``                       ``ListMyGames``    the tokens travel in the body
``GET  /v1/server``                         (REST only)        the server's log-signing key
=========================================  =================  ====================================

Errors are RFC 9457 problem documents (``application/problem+json``) whose ``code`` is the gRPC
``ErrorInfo.reason`` (a game's ``RejectCode`` or a service reason) and whose ``errors`` are the
gRPC ``BadRequest`` field violations. The JSON-in-a-string fields of the proto (``rules_json``,
``command.json``) are objects here (``rules``, ``command``), and field paths name them so.

The event stream sends one SSE event per log entry (``id`` = its ``seq``, ``event: entry``),
then ``event: outcome`` once the game is over, and closes. A client resumes with
``Last-Event-ID`` (the last ``seq`` it saw; it wins over ``?from_seq=``, which a reconnecting
browser repeats) and gets no gap and no duplicate. When the server stops, or the game has to be
rebuilt, the stream sends ``event: closing`` (a problem document) and ends; resume later.
A stream opened on a table still waiting for players waits for the deal (heartbeats meanwhile),
or sends ``event: closing`` with ``TableCancelled`` if the table is cancelled instead.

The modules: :mod:`.wire` (the wire types), :mod:`.render` (the application's values as wire
types), :mod:`.problems` (errors), :mod:`.sse` (the event stream), :mod:`.openapi`, one module
of routes per part of the API (:mod:`.games`, :mod:`.play`, :mod:`.lobby`; :mod:`.ops` for the
operator's), and :mod:`.server` (uvicorn under the connection bounds of :mod:`.protocol`).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import structlog
from litestar import Litestar, Router
from litestar.datastructures import State
from litestar.enums import ScopeType
from litestar.exceptions import HTTPException, ValidationException
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from ... import logs
from ...app import Application, request_fields
from ...errors import ServiceError
from .. import web
from . import channel, games, lobby, openapi, ops, play, problems
from .wire import API_PREFIX, MAX_BODY

log = structlog.get_logger("cardcore_server")


class RestApi:
    """The Litestar application over one :class:`~cardcore_server.app.Application`."""

    def __init__(self, app: Application) -> None:
        self.app = app
        self.closing = asyncio.Event()
        """Set when the server stops: open event streams say ``closing`` and end."""

    def build(self) -> Litestar:
        """The routes (``/v1``: the API; the operator's; the web table's) over the application,
        which each finds in the app's state."""
        router = Router(
            API_PREFIX,
            route_handlers=[
                ops.options,
                *games.ROUTES,
                *play.ROUTES,
                channel.route(lambda state: state.closing),
                *lobby.ROUTES,
            ],
        )
        state = {
            "application": self.app,
            "closing": self.closing,
            "metrics": self.app.metrics,
            "limits": self.app.limits,
        }
        return Litestar(
            route_handlers=[router, ops.healthz, ops.readyz, ops.metrics, *web.route_handlers()],
            state=State(state),
            before_request=problems.admit,
            after_request=problems.problem_for_html_404,
            exception_handlers={
                ServiceError: problems.service_error,
                ValidationException: problems.validation_error,
                RecursionError: problems.too_deep,
                HTTPException: problems.http_error,
                Exception: problems.http_error,
            },
            openapi_config=openapi.config(),
            middleware=[web.cors(self.app.config.cors_origins), _request_log],
            logging_config=None,
            request_max_body_size=MAX_BODY,
            debug=False,
        )


def _request_log(app: ASGIApp) -> ASGIApp:
    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return
        fields: dict[str, Any] = {"transport": "rest", "method": scope.get("method", "")}
        reset = request_fields.set(fields)
        start = time.perf_counter()
        status = 500

        async def send_wrapper(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await app(scope, receive, send_wrapper)
        finally:
            handler = scope.get("route_handler")
            operation = getattr(handler, "operation_id", None)
            if isinstance(operation, str):
                fields.setdefault("rpc", operation)
            fields.setdefault("code", "OK" if status < 400 else str(status))
            metrics = getattr(getattr(scope.get("app"), "state", None), "metrics", None)
            if metrics is not None:
                elapsed = time.perf_counter() - start
                metrics.request(
                    "rest", str(fields.get("rpc", "other")), str(fields["code"]), elapsed
                )
            if logs.requests_logged():
                log.info(
                    "request",
                    http_status=status,
                    duration_ms=round((time.perf_counter() - start) * 1000, 3),
                    **fields,
                )
            request_fields.reset(reset)

    return middleware
