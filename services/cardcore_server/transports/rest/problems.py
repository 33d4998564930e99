"""Errors as RFC 9457 problem documents (``application/problem+json``), the same for every
route: ``code`` is the gRPC ``ErrorInfo.reason`` (a game's ``RejectCode`` or a service reason),
``errors`` the gRPC ``BadRequest`` field violations, ``metadata`` the ``ErrorInfo.metadata``.

Field paths name REST's fields (``command``, ``rules``), not the proto's (``command.json``,
``rules_json``). Here are the exception handlers, the checks made before a request is read (rate
limits, the body's media type), and the answer the connection layer writes by itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import msgspec
import structlog
from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException

from ...app import note
from ...errors import MAX_MESSAGE, FieldViolation, Reason, ServiceError, Status, bounded
from ..connections import TIMED_OUT
from .render import bearer
from .wire import ADMIN_KEY_HEADER, API_PREFIX, PROBLEM_JSON, FieldError, Problem

log = structlog.get_logger("cardcore_server")

PROBLEM_TYPE: Final = "tag:cardcore,2026:problem/"
"""Problem ``type`` URIs are this prefix and the ``code`` (RFC 9457 §3.1.1: not dereferenced)."""

HTTP_STATUS: Final[Mapping[Status, int]] = {
    Status.INVALID_ARGUMENT: 422,  # well-formed, refused by the application (400: unparseable)
    Status.NOT_FOUND: 404,
    Status.UNAUTHENTICATED: 401,
    Status.PERMISSION_DENIED: 403,
    Status.FAILED_PRECONDITION: 409,  # the game's rules refused the command now (RejectCode)
    Status.RESOURCE_EXHAUSTED: 429,  # over a rate limit: Retry-After says when to come back
    Status.UNAVAILABLE: 503,
    Status.INTERNAL: 500,
}
TITLES: Final[Mapping[int, str]] = {
    400: "Malformed request",
    401: "Unauthenticated",
    403: "Permission denied",
    404: "Not found",
    405: "Method not allowed",
    409: "Rejected by the game",
    413: "Request too large",
    415: "Unsupported media type",
    422: "Invalid request",
    500: "Internal error",
    503: "Unavailable",
}
_RENAMES: Final = (("command.json", "command"), ("rules_json", "rules"))


def _rename(path: str) -> str:
    for old, new in _RENAMES:
        if path == old or path.startswith((old + ".", old + "[")):
            return new + path[len(old) :]
    return path


def _rename_text(text: str) -> str:
    for old, new in _RENAMES:
        if text.startswith(old):
            return new + text[len(old) :]
    return text


def problem_document(
    status: int,
    code: str,
    detail: str,
    violations: tuple[FieldViolation, ...] = (),
    metadata: Mapping[str, str] | None = None,
) -> Problem:
    return Problem(
        type=PROBLEM_TYPE + code,
        title=TITLES.get(status, "Error"),
        status=status,
        detail=bounded(detail, MAX_MESSAGE),
        code=code,
        errors=[FieldError(_rename(v.field), _rename_text(v.description)) for v in violations],
        metadata=dict(metadata or {}),
    )


def problem(
    status: int,
    code: str,
    detail: str,
    violations: tuple[FieldViolation, ...] = (),
    metadata: Mapping[str, str] | None = None,
) -> Response[Problem]:
    body = problem_document(status, code, detail, violations, metadata)
    headers = {"Retry-After": "1"} if status == 503 else None
    if status == 429:
        headers = {"Retry-After": str((metadata or {}).get("retry_after_s", "1"))}
    if status == 401:  # RFC 9110 §11.6.1: a 401 names the scheme to authenticate with
        headers = {"WWW-Authenticate": 'Bearer realm="cardcore"'}
    return Response(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


# --------------------------------------------------------------------------- before the handler


def admit(request: Request[Any, Any, Any]) -> Response[Problem] | None:
    """Rate limits (per bearer token and client address), then :func:`_json_bodies_only`."""
    state = getattr(request.app, "state", None)
    limits = getattr(state, "limits", None)
    if limits is not None and limits.on and request.url.path.startswith(API_PREFIX):
        try:
            limits.admit(bearer(request), request.client.host if request.client else None)
        except ServiceError as err:
            note(code=err.status.value, reason=err.reason)
            return problem(HTTP_STATUS[err.status], err.reason, err.message, (), err.metadata)
    return _json_bodies_only(request)


def _json_bodies_only(request: Request[Any, Any, Any]) -> Response[Problem] | None:
    """A POST body must be JSON (``application/json``, ``application/*+json``; a request that
    names no type is read as JSON): anything else is a 415, before the body is read."""
    if request.method != "POST":
        return None
    declared = request.headers.get("content-type")
    if declared is None:
        return None
    media = declared.split(";", 1)[0].strip().lower()
    if media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    ):
        return None
    note(code="415", reason="UnsupportedMediaType")
    response = problem(415, "UnsupportedMediaType", "send the body as application/json")
    response.headers["Accept-Post"] = "application/json"
    return response


def problem_for_html_404(response: Response[Any]) -> Response[Any]:
    """Litestar's OpenAPI router answers an unknown path under ``/v1`` with an HTML page: every
    error of the API is a problem document, this one too."""
    media_type = getattr(response.media_type, "value", response.media_type)  # MediaType enum
    if response.status_code == 404 and str(media_type).startswith("text/html"):
        note(code="404", reason="NotFound")
        return problem(404, "NotFound", "no such route")
    return response


# --------------------------------------------------------------------------- exception handlers


def service_error(_: Request[Any, Any, Any], err: ServiceError) -> Response[Problem]:
    status = HTTP_STATUS[err.status]
    note(code=err.status.value, reason=err.reason)
    return problem(status, err.reason, _rename_text(err.message), err.violations, err.metadata)


def problem_of(err: ServiceError) -> Problem:
    """The problem document of ``err``, as :func:`service_error` answers it (the play
    channel's ``rejected`` frames carry it)."""
    status = HTTP_STATUS[err.status]
    return problem_document(
        status, err.reason, _rename_text(err.message), err.violations, err.metadata
    )


def validation_error(_: Request[Any, Any, Any], exc: ValidationException) -> Response[Problem]:
    """Litestar's request parsing failed (msgspec): 400 with the fields at fault."""
    violations: list[FieldViolation] = []
    for item in exc.extra if isinstance(exc.extra, list) else ():
        if not isinstance(item, dict):
            continue
        key = str(item.get("key") or item.get("source") or "request")
        message = str(item.get("message", "invalid"))
        violations.append(FieldViolation(_field_path(key, message), _clean(message)))
    if not violations:
        violations.append(FieldViolation("request", "not valid JSON for this operation"))
    note(code=Status.INVALID_ARGUMENT.value, reason=Reason.MALFORMED.value)
    detail = "; ".join(f"{v.field}: {v.description}" for v in violations)
    return problem(400, Reason.MALFORMED, detail, tuple(violations))


_PARAMETERS: Final = {
    "data": "request",  # the body as a whole (gRPC names an undecodable message so)
    "last_event_id": "Last-Event-ID",
    "admin_key": ADMIN_KEY_HEADER,
}


def _field_path(key: str, message: str) -> str:
    # msgspec reports the JSON path at the end of its message: "... - at `$.seats[0].kind`".
    _, sep, at = message.rpartition(" - at `$")
    if sep and at.endswith("`"):
        return at[:-1].lstrip(".") or "request"
    return _PARAMETERS.get(key, key)


def _clean(message: str) -> str:
    text, sep, _ = message.rpartition(" - at `$")
    return (text if sep else message)[:200]


def too_deep(_: Request[Any, Any, Any], exc: RecursionError) -> Response[Problem]:
    """The request's JSON nests deeper than the decoder goes (msgspec raises RecursionError):
    the client's fault, a 400 naming the request, not an internal error."""
    note(code=Status.INVALID_ARGUMENT.value, reason=Reason.MALFORMED.value)
    violation = FieldViolation("request", "JSON nested too deeply")
    return problem(400, Reason.MALFORMED, "request: JSON nested too deeply", (violation,))


_CLIENT_GONE: Final = "client disconnected prematurely"
"""Litestar's text when the body's stream ends in ``http.disconnect`` (connection/request.py)."""


def http_error(request: Request[Any, Any, Any], exc: Exception) -> Response[Problem]:
    if not isinstance(exc, HTTPException):
        log.error(
            "internal_error",
            error=type(exc).__name__,
            exc_info=(type(exc), exc, exc.__traceback__),
        )
        note(code=Status.INTERNAL.value, reason=Reason.INTERNAL.value)
        return problem(500, Reason.INTERNAL, "internal error")
    status = exc.status_code
    if status == 500 and exc.detail == _CLIENT_GONE:
        return _body_cut_short(request)
    if status >= 500:
        log.error("internal_error", error=type(exc).__name__)
        note(code=Status.INTERNAL.value)
        return problem(500, Reason.INTERNAL, "internal error")
    reason = {
        401: Reason.MISSING_TOKEN,
        404: "NotFound",
        405: "MethodNotAllowed",
        413: "TooLarge",
    }.get(status, Reason.MALFORMED)
    note(code=Status.INVALID_ARGUMENT.value if status == 400 else str(status), reason=reason)
    detail = TITLES.get(status, "error").lower()
    # A body that does not decode at all (e.g. a lone surrogate escape): the request is at
    # fault as a whole, and the problem names it as a 400 from msgspec would.
    violations = (FieldViolation("request", "not valid JSON"),) if status == 400 else ()
    response = problem(status, str(reason), detail, violations)
    for name, value in (exc.headers or {}).items():  # e.g. `Allow` on a 405 (RFC 9110)
        response.headers[name] = value
    return response


def _body_cut_short(request: Request[Any, Any, Any]) -> Response[Problem]:
    """The body never arrived whole: the connection layer ended it, or the client hung up."""
    ended = request.scope.get("state", {}).get(TIMED_OUT)
    if ended is not None:
        # The connection layer ended it (body deadline, or the server stopping) and already
        # answered: record that answer, not a hang-up (transports/connections.py).
        code = Reason.REQUEST_TIMEOUT if ended == 408 else Reason.SHUTTING_DOWN
        note(code=str(ended), reason=code.value)
        return problem(int(ended), code, "the request did not arrive in time")
    # The client hung up before sending its whole body: nothing of the server failed, and
    # nobody reads the answer (499, nginx's "client closed request").
    log.info("client_disconnected")
    note(code="499", reason="ClientDisconnected")
    return problem(499, "ClientDisconnected", "the client closed the connection")


# --------------------------------------------------------------------------- with no request


def closing_answer(status: int, code: str, detail: str, field: str = "") -> bytes:
    """A whole response that closes its connection, written by the connection layer itself
    (:mod:`..connections`: a deadline passed, the cap, the server stopping, a request framed
    twice) when no request is there to answer: the same problem document every other error is,
    naming ``field`` when one is at fault."""
    violations = (FieldViolation(field, detail),) if field else ()
    body = msgspec.json.encode(problem_document(status, code, detail, violations))
    retry = b"retry-after: 1\r\n" if status == 503 else b""
    phrase = {400: b"Bad Request", 408: b"Request Timeout", 503: b"Service Unavailable"}.get(
        status, b"Error"
    )
    head = (
        b"HTTP/1.1 %d %s\r\ncontent-type: %s\r\ncontent-length: %d\r\n%sconnection: close\r\n\r\n"
        % (status, phrase, PROBLEM_JSON.encode(), len(body), retry)
    )
    return head + body
