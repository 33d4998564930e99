"""The routes outside the API's document: ``OPTIONS`` of the API's paths, and the operator's
``/healthz``, ``/readyz`` and ``/metrics``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from litestar import HttpMethod, Request, Response, get, route
from litestar.datastructures import State

from ...metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE

_ALLOW: Final[Mapping[str | None, str]] = {
    None: "GET, OPTIONS, POST",
    **dict.fromkeys(("actions", "start", "abort", "watch"), "OPTIONS, POST"),
}
"""The methods of ``/v1/games`` (None) and of ``/v1/games/{game_id}/<operation>`` (others: GET)."""


@route(
    ["/games", "/games/{game_id:str}/{operation:str}", "/invites/{code:str}"],
    http_method=HttpMethod.OPTIONS,
    include_in_schema=False,
)
async def options(request: Request[Any, Any, Any]) -> Response[None]:
    # Litestar's automatic OPTIONS of a path served by two handlers (GET and POST /games) lists
    # only the first one's method: answer with the real set.
    operation = request.path_params.get("operation")
    if "code" in request.path_params:
        operation = None  # an invite link: GET and POST, as /games
    allow = _ALLOW.get(operation, "GET, OPTIONS")
    return Response(None, status_code=204, headers={"Allow": allow})


@get("/healthz", include_in_schema=False, sync_to_thread=False)
def healthz() -> dict[str, str]:
    # Alive: the process answers (a load balancer's liveness probe).
    return {"status": "alive"}


@get("/metrics", include_in_schema=False, sync_to_thread=False)
def metrics(state: State) -> Response[bytes]:
    # Prometheus text (docs/operations.md): requests, latency, games, streams, store.
    return Response(state.metrics.text(), media_type=METRICS_CONTENT_TYPE)


@get("/readyz", include_in_schema=False)
async def readyz(state: State) -> Response[dict[str, str]]:
    # Ready: the store answers and the server is not draining (take traffic).
    why = await state.application.readiness()
    if why is None:
        return Response({"status": "ready"})
    return Response({"status": "not ready", "reason": why}, status_code=503)
