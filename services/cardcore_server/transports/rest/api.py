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
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal, cast

import msgspec
import structlog
import uvicorn
from litestar import HttpMethod, Litestar, Request, Response, Router, get, post, route
from litestar.datastructures import State
from litestar.enums import ScopeType
from litestar.exceptions import HTTPException, ValidationException
from litestar.openapi import OpenAPIConfig, ResponseSpec
from litestar.openapi.plugins import JsonRenderPlugin, YamlRenderPlugin
from litestar.openapi.spec import Components, SecurityScheme, Tag
from litestar.params import HeaderParameter, JSONBody, PathParameter, QueryParameter
from litestar.response import Stream
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from cardcore import codec
from cardcore.engine import Outcome as CoreOutcome
from cardcore.signatures import ALG
from cardcore.version import __version__

from ... import logs
from ...app import (
    MAX_JSON,
    MAX_SEATS,
    Application,
    GameSpec,
    JsonObject,
    StreamBatch,
    Unreadable,
    read_json_object,
    request_fields,
)
from ...app import TableInfo as CoreTable
from ...app.lobby import MAX_MY_GAMES
from ...errors import MAX_MESSAGE, FieldViolation, Reason, ServiceError, Status, bounded
from ...metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from ...redaction import RedactedEntry, Value
from ...store import SeatSpec
from .. import web
from ..connections import ACCEPT_BATCH, LISTEN_BACKLOG, TIMED_OUT, ConnectionLimits
from .protocol import Connections

log = structlog.get_logger("cardcore_server")

API_PREFIX: Final = "/v1"
OPENAPI_PATH: Final = "/v1/openapi.json"
"""Where the OpenAPI 3.1 document is served (also as YAML at ``/v1/openapi.yaml``)."""
ADMIN_KEY_HEADER: Final = "X-Cardcore-Admin-Key"
LOG_COMPLETE_HEADER: Final = "Cardcore-Log-Complete"
PROBLEM_JSON: Final = "application/problem+json"
EVENT_STREAM: Final = "text/event-stream"
JSON_LINES: Final = "application/x-ndjson"
PROBLEM_TYPE: Final = "tag:cardcore,2026:problem/"
"""Problem ``type`` URIs are this prefix and the ``code`` (RFC 9457 §3.1.1: not dereferenced)."""
HEARTBEAT_S: Final = 15.0
"""An idle event stream sends an SSE comment this often (keeps proxies from timing it out)."""
MAX_BODY: Final = 1024 * 1024
API_DESCRIPTION: Final = (
    "Play cardcore's card games (Egyptian Ratscrew, Slapjack, Palace, Spit, Speed) over HTTP: "
    "list the games and their variant flags, create a game (one secret token per human seat), "
    "submit actions as a seat, read a seat's or a spectator's view, follow the game's entries "
    "as Server-Sent Events and download its tamper-evident log. The same service as the gRPC "
    "API cardcore.v1.GameService; every error is an RFC 9457 problem document whose `code` is "
    "the rules' rejection code or the service's reason."
)
"""The OpenAPI document's ``info.description``: for the API's users, not this module's."""
_WIRE: Final = "sse"

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
_TITLES: Final[Mapping[int, str]] = {
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


# --------------------------------------------------------------------------- wire types


class Problem(msgspec.Struct, kw_only=True):
    """An RFC 9457 problem document. ``code`` is the gRPC ``ErrorInfo.reason``."""

    type: str
    title: str
    status: int
    detail: str
    code: str
    """A game's ``RejectCode`` (``NotYourTurn``, ...) or a service reason (``InvalidToken``)."""
    errors: list[FieldError] = msgspec.field(default_factory=list)
    """The malformed fields (gRPC ``BadRequest`` field violations)."""
    metadata: dict[str, str] = msgspec.field(default_factory=dict)
    """The gRPC ``ErrorInfo.metadata`` (e.g. ``game_id`` and ``next_seq`` of a rejection)."""


class FieldError(msgspec.Struct):
    """One malformed field: its path in the request and what is wrong with it."""

    field: str
    description: str


class RuleFlag(msgspec.Struct):
    """One variant flag of a game: the key in ``CreateGame.rules``."""

    name: str
    default: Any
    schema: dict[str, Any]
    help: str


class GameInfo(msgspec.Struct):
    """One catalogue entry; the schemas describe the JSON of commands, events and views."""

    name: str
    title: str
    rules_version: str
    min_seats: int
    max_seats: int
    realtime: bool
    aliases: list[str]
    flags: list[RuleFlag]
    command_schema: dict[str, Any]
    event_schema: dict[str, Any]
    view_schema: dict[str, Any]


class Catalogue(msgspec.Struct):
    """Every registered game, in catalogue order."""

    games: list[GameInfo]


_U32 = Annotated[int, msgspec.Meta(ge=0, le=2**32 - 1)]


_ENTROPY = Annotated[str, msgspec.Meta(pattern="^([0-9a-f]{32})?$")]


class SeatAssignment(msgspec.Struct, forbid_unknown_fields=True):
    """Who plays one seat: a human (a client holding the seat's token) or a server bot. A human
    seat may be *open*: ``invite`` (a single-use invite code fills it) or ``anyone`` (whoever
    takes it first); any open seat makes the game a table that deals once its seats are taken."""

    kind: Literal["human", "random", "reaction"] = "human"
    bot_min_delay_ms: _U32 = 0
    bot_max_delay_ms: _U32 = 0
    open: Literal["", "invite", "anyone"] = ""
    entropy: _ENTROPY = ""
    """A seat the creator holds: 16 random bytes as 32 hex digits that it adds to the deal (the
    deal seed is derived from the server's committed seed and every contribution: docs/rng.md).
    Empty: none."""


class CreateGame(msgspec.Struct, forbid_unknown_fields=True):
    """A new game. The seed is accepted only by a server started with ``--allow-client-seed``."""

    game: str
    seats: Annotated[list[SeatAssignment], msgspec.Meta(max_length=MAX_SEATS)]
    rules: dict[str, Any] = msgspec.field(default_factory=dict)
    seed: Annotated[int, msgspec.Meta(ge=0)] | None = None
    event_limit: Annotated[int, msgspec.Meta(ge=0)] = 0
    timeouts_ms: dict[str, _U32] = msgspec.field(default_factory=dict)
    public: bool = False
    """List the table for anyone to find, join (its ``anyone`` seats) and watch."""
    start_deadline_ms: _U32 = 0
    """How long a table waits for its seats before it is cancelled (0 = the server's)."""
    turn_timeout_ms: _U32 = 0
    """A turn-based game: a human seat that does not act for this long forfeits (0 = none)."""
    idle_timeout_ms: _U32 = 0
    """A human seat with no action of its own for this long forfeits (0 = none)."""
    abandon_timeout_ms: _U32 = 0
    """No human action at all for this long: the host aborts the game (0 = none)."""
    idempotency_key: Annotated[str, msgspec.Meta(max_length=128)] = ""
    """A random secret of yours (32 to 128 hex digits, or 22 to 128 characters of A-Z a-z 0-9
    - _; a random UUID is one): a retry with the same key and body, and the same credentials
    (the admin key, or an ``Authorization`` header of your own), returns the same game and the
    same tokens (201 again), never a second game. Whoever sends the key with those credentials
    gets the game's tokens: keep it as secret as they are. It expires when the game ends
    (409 ``IdempotencyKeyExpired``)."""


class SeatToken(msgspec.Struct):
    """The secret token of one human seat: send it as ``Authorization: Bearer <token>``."""

    seat: int
    token: str


class SeatInvite(msgspec.Struct):
    """The single-use invite code of one ``invite`` seat, and the link that carries it: ``GET``
    the link to see the table it is for, ``POST`` to it to take the seat (or send the code to
    ``POST /v1/tables/join``)."""

    seat: int
    code: str
    link: str


class ServerInfo(msgspec.Struct):
    """What a client needs to check this server's logs."""

    server_key: str
    """The Ed25519 public key (32 bytes, base64url without padding) that signs logs."""
    algorithm: str
    cardcore: str
    """The server's cardcore version."""


class InviteInfo(msgspec.Struct):
    """What an invite is for (looking changes nothing): its seat and the table."""

    seat: int
    table: Table


class CreatedGame(msgspec.Struct):
    """The new game's id, one token per human seat the creator holds, a spectator token, the
    creator's token (starts and aborts the table), one invite per ``invite`` seat, the
    commitment, and ``status``: ``playing``, or ``waiting`` for a table with open seats."""

    game_id: str
    seat_tokens: list[SeatToken]
    spectator_token: str
    seed_commitment: str
    header: dict[str, Any]
    creator_token: str
    invites: list[SeatInvite]
    status: str


class SubmitAction(msgspec.Struct, forbid_unknown_fields=True):
    """One command for the token's seat. Resubmitting an ``action_id`` returns the original
    result and applies nothing twice."""

    command: dict[str, Any]
    """The command's JSON, ``kind`` included, e.g. ``{"kind": "Play"}``."""
    action_id: str = ""
    as_seat: Annotated[int, msgspec.Meta(ge=0, le=2**32 - 1)] | None = None
    """If set, the seat the caller believes it holds (403 ``SeatMismatch`` if it is not)."""


class Entry(msgspec.Struct):
    """One accepted action of the log as the receiver may see it (``seq`` 0 is the deal)."""

    seq: int
    at_ms: int
    seat: int | None
    action: dict[str, Any]
    events: list[dict[str, Any]]
    hash: str
    """The entry's hash in the log (keyed by the game's secret salt: it reveals nothing). Keep
    it: the final log must hold this very entry (``cardcore verify --receipts``)."""
    prev: str
    """The hash of the line before it."""


class Outcome(msgspec.Struct):
    """The end of a game."""

    termination: str
    winners: list[int]
    losers: list[int]
    scores: list[int]


class Submitted(msgspec.Struct):
    """The accepted action as the caller sees it."""

    entry: Entry
    replayed: bool
    outcome: Outcome | None = None


class GameView(msgspec.Struct):
    """The caller's view after every entry before ``seq``, and its legal commands."""

    seq: int
    view: dict[str, Any]
    legal_commands: list[dict[str, Any]]
    outcome: Outcome | None = None
    seat: int | None = None
    present_seats: list[int] = msgspec.field(default_factory=list)
    """The seats with an open event stream now (who is at the table)."""
    head_hash: str = ""
    """The hash of the last entry the view reflects (entry ``seq - 1``)."""


class JoinTable(msgspec.Struct, forbid_unknown_fields=True):
    """Take a seat: give ``invite`` (its seat), or ``game_id`` of a table with seats open to
    anyone (and ``seat``, or the first one free)."""

    invite: Annotated[str, msgspec.Meta(max_length=1024)] = ""
    game_id: Annotated[str, msgspec.Meta(max_length=64)] = ""
    seat: _U32 | None = None
    entropy: _ENTROPY = ""
    """16 random bytes as 32 hex digits that this seat adds to the deal (empty: none)."""


class AcceptInvite(msgspec.Struct, forbid_unknown_fields=True):
    """The optional body of an invite link's ``POST``: what the joiner adds to the deal."""

    entropy: _ENTROPY = ""
    """16 random bytes as 32 hex digits that this seat adds to the deal (empty: none), as in
    ``JoinTable``."""


class Joined(msgspec.Struct):
    """The seat taken and its token; ``status`` is ``playing`` when this join dealt the game."""

    game_id: str
    seat: int
    token: str
    status: str


class StartTable(msgspec.Struct, forbid_unknown_fields=True):
    """Who plays the seats still empty when the creator starts its table."""

    fill_with: Literal["random", "reaction"] = "reaction"


class TableSeat(msgspec.Struct):
    """One seat of a table: who plays it, how it was opened, whether it is taken (a bot's and
    the creator's seats are) and whether its holder has an event stream open now."""

    seat: int
    kind: Literal["human", "random", "reaction"]
    open: Literal["", "invite", "anyone"]
    taken: bool
    present: bool


class Table(msgspec.Struct):
    """A table or game: ``status`` is ``waiting``, ``playing``, ``finished`` or ``cancelled``;
    ``deadline_ms`` (wall clock) is when a waiting table is cancelled; ``seq`` the entries so
    far."""

    game_id: str
    game: str
    status: str
    seats: list[TableSeat]
    created_ms: int
    deadline_ms: int
    public: bool
    seed_commitment: str
    rules: dict[str, Any]
    seq: int
    outcome: Outcome | None = None


class TableList(msgspec.Struct):
    """One page of public tables waiting for players, newest first; ``next_page_token``
    continues after its last table (empty: no more)."""

    tables: list[Table]
    next_page_token: str


class Watching(msgspec.Struct):
    """A new spectator token: send it as ``Authorization: Bearer <token>``."""

    spectator_token: str


class MyGamesQuery(msgspec.Struct, forbid_unknown_fields=True):
    """The tokens a client holds (seat, spectator or creator tokens)."""

    tokens: Annotated[
        list[Annotated[str, msgspec.Meta(max_length=1024)]],
        msgspec.Meta(max_length=MAX_MY_GAMES),
    ]


class MyGame(msgspec.Struct):
    """One token's game: its viewer (a seat number, ``spectator`` or ``creator``) and table."""

    viewer: str
    table: Table


class MyGames(msgspec.Struct):
    """Each token's game, in request order."""

    games: list[MyGame]


class Closing(msgspec.Struct):
    """The data of ``event: closing``: why the stream ended early (resume later)."""

    code: str
    detail: str


# --------------------------------------------------------------------------- conversion

_decode_json = msgspec.json.Decoder()
_encode = msgspec.json.Encoder()


def _obj(v: Value) -> Any:
    return _decode_json.decode(v.json)


def _canonical(value: Any) -> Any:
    """A JSON value as its canonical JSON (sorted keys), written as it is into the answer."""
    return msgspec.Raw(codec.canonical_bytes(value))


def _json_object(value: dict[str, Any], path: str) -> JsonObject | Unreadable:
    """A JSON object of the body as the application reads one: judged on its JSON text (as
    this transport writes it) only when that text could be refused — longer than
    :data:`~cardcore_server.app.MAX_JSON`, or with a float in it."""
    text = _encode.encode(value)
    if len(text) <= MAX_JSON and not _has_float(value):
        return value
    return read_json_object(text.decode(), path)


def _has_float(value: Any) -> bool:
    try:
        if isinstance(value, dict):
            return any(_has_float(v) for v in value.values())
        if isinstance(value, list):
            return any(_has_float(v) for v in value)
    except RecursionError:
        return True  # too deep to look at: its text says what is wrong with it
    return isinstance(value, float)


def _outcome(o: CoreOutcome | None) -> Outcome | None:
    if o is None:
        return None
    return Outcome(o.termination.value, list(o.winners), list(o.losers), list(o.scores))


def _invite_link(request: Request[Any, Any, Any], code: str) -> str:
    """The link that carries an invite: this server's ``/v1/invites/{code}``."""
    return f"{str(request.base_url).rstrip('/')}/v1/invites/{code}"


def _table(t: CoreTable) -> Table:
    return Table(
        game_id=t.game_id,
        game=t.game,
        status=t.status,
        seats=[
            TableSeat(
                s.seat,
                cast(Literal["human", "random", "reaction"], s.kind),
                cast(Literal["", "invite", "anyone"], s.open),
                s.taken,
                s.present,
            )
            for s in t.seats
        ],
        created_ms=t.created_ms,
        deadline_ms=t.deadline_ms,
        public=t.public,
        seed_commitment=t.seed_commitment,
        rules=_canonical(t.rules),
        seq=t.seq,
        outcome=_outcome(t.outcome),
    )


def _entry_json(e: RedactedEntry) -> bytes:
    """The entry's JSON (keys sorted), assembled from the canonical texts and cached per viewer."""
    cached = e.wire.get(_WIRE)
    if cached is None:
        seat = "null" if e.seat is None else str(e.seat)
        events = ",".join(x.json for x in e.events)
        cached = e.wire[_WIRE] = (
            f'{{"action":{e.action.json},"at_ms":{e.at_ms},"events":[{events}],'
            f'"hash":"{e.hash}","prev":"{e.prev}","seat":{seat},"seq":{e.seq}}}'
        ).encode()
    return cached


def _sse_batch(batch: StreamBatch) -> bytes:
    parts = [b"id: %d\nevent: entry\ndata: %s\n\n" % (e.seq, _entry_json(e)) for e in batch.entries]
    if batch.end is not None:  # the end line (seed and salt revealed): a client's copy settles it
        parts.append(b"event: end\ndata: %s\n\n" % codec.canonical_bytes(batch.end))
    if batch.outcome is not None:
        parts.append(b"event: outcome\ndata: %s\n\n" % _encode.encode(_outcome(batch.outcome)))
    return b"".join(parts)


def _rename(path: str) -> str:
    for old, new in _RENAMES:
        if path == old or path.startswith((old + ".", old + "[")):
            return new + path[len(old) :]
    return path


def _problem_document(
    status: int,
    code: str,
    detail: str,
    violations: tuple[FieldViolation, ...] = (),
    metadata: Mapping[str, str] | None = None,
) -> Problem:
    return Problem(
        type=PROBLEM_TYPE + code,
        title=_TITLES.get(status, "Error"),
        status=status,
        detail=bounded(detail, MAX_MESSAGE),
        code=code,
        errors=[FieldError(_rename(v.field), _rename_text(v.description)) for v in violations],
        metadata=dict(metadata or {}),
    )


def _problem(
    status: int,
    code: str,
    detail: str,
    violations: tuple[FieldViolation, ...] = (),
    metadata: Mapping[str, str] | None = None,
) -> Response[Problem]:
    body = _problem_document(status, code, detail, violations, metadata)
    headers = {"Retry-After": "1"} if status == 503 else None
    if status == 429:
        headers = {"Retry-After": str((metadata or {}).get("retry_after_s", "1"))}
    if status == 401:  # RFC 9110 §11.6.1: a 401 names the scheme to authenticate with
        headers = {"WWW-Authenticate": 'Bearer realm="cardcore"'}
    return Response(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


def _admit(request: Request[Any, Any, Any]) -> Response[Problem] | None:
    """Rate limits (per bearer token and client address), then :func:`_json_bodies_only`."""
    state = getattr(request.app, "state", None)
    limits = getattr(state, "limits", None)
    if limits is not None and request.url.path.startswith(API_PREFIX):
        try:
            limits.admit(_bearer(request), request.client.host if request.client else None)
        except ServiceError as err:
            _note(code=err.status.value, reason=err.reason)
            return _problem(HTTP_STATUS[err.status], err.reason, err.message, (), err.metadata)
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
    _note(code="415", reason="UnsupportedMediaType")
    response = _problem(415, "UnsupportedMediaType", "send the body as application/json")
    response.headers["Accept-Post"] = "application/json"
    return response


def _problem_for_html_404(response: Response[Any]) -> Response[Any]:
    """Litestar's OpenAPI router answers an unknown path under ``/v1`` with an HTML page: every
    error of the API is a problem document, this one too."""
    media_type = getattr(response.media_type, "value", response.media_type)  # MediaType enum
    if response.status_code == 404 and str(media_type).startswith("text/html"):
        _note(code="404", reason="NotFound")
        return _problem(404, "NotFound", "no such route")
    return response


def _rename_text(text: str) -> str:
    for old, new in _RENAMES:
        if text.startswith(old):
            return new + text[len(old) :]
    return text


def _note(**fields: Any) -> None:
    current = request_fields.get()
    if current is not None:
        current.update(fields)


def _service_error(_: Request[Any, Any, Any], err: ServiceError) -> Response[Problem]:
    status = HTTP_STATUS[err.status]
    _note(code=err.status.value, reason=err.reason)
    return _problem(status, err.reason, _rename_text(err.message), err.violations, err.metadata)


def _validation_error(_: Request[Any, Any, Any], exc: ValidationException) -> Response[Problem]:
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
    _note(code=Status.INVALID_ARGUMENT.value, reason=Reason.MALFORMED.value)
    detail = "; ".join(f"{v.field}: {v.description}" for v in violations)
    return _problem(400, Reason.MALFORMED, detail, tuple(violations))


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


def _too_deep(_: Request[Any, Any, Any], exc: RecursionError) -> Response[Problem]:
    """The request's JSON nests deeper than the decoder goes (msgspec raises RecursionError):
    the client's fault, a 400 naming the request, not an internal error."""
    _note(code=Status.INVALID_ARGUMENT.value, reason=Reason.MALFORMED.value)
    violation = FieldViolation("request", "JSON nested too deeply")
    return _problem(400, Reason.MALFORMED, "request: JSON nested too deeply", (violation,))


_CLIENT_GONE: Final = "client disconnected prematurely"
"""Litestar's text when the body's stream ends in ``http.disconnect`` (connection/request.py)."""


def _http_error(request: Request[Any, Any, Any], exc: Exception) -> Response[Problem]:
    if isinstance(exc, HTTPException):
        status = exc.status_code
        if status == 500 and exc.detail == _CLIENT_GONE:
            ended = request.scope.get("state", {}).get(TIMED_OUT)
            if ended is not None:
                # The connection layer ended it (body deadline, or the server stopping) and
                # already answered: record that answer, not a hang-up (connections.py).
                code = Reason.REQUEST_TIMEOUT if ended == 408 else Reason.SHUTTING_DOWN
                _note(code=str(ended), reason=code.value)
                return _problem(int(ended), code, "the request did not arrive in time")
            # The client hung up before sending its whole body: nothing of the server failed,
            # and nobody reads the answer (499, nginx's "client closed request").
            log.info("client_disconnected")
            _note(code="499", reason="ClientDisconnected")
            return _problem(499, "ClientDisconnected", "the client closed the connection")
        if status >= 500:
            log.error("internal_error", error=type(exc).__name__)
            _note(code=Status.INTERNAL.value)
            return _problem(500, Reason.INTERNAL, "internal error")
        reason = {
            401: Reason.MISSING_TOKEN,
            404: "NotFound",
            405: "MethodNotAllowed",
            413: "TooLarge",
        }.get(status, Reason.MALFORMED)
        _note(code=Status.INVALID_ARGUMENT.value if status == 400 else str(status), reason=reason)
        detail = _TITLES.get(status, "error").lower()
        # A body that does not decode at all (e.g. a lone surrogate escape): the request is at
        # fault as a whole, and the problem names it as a 400 from msgspec would.
        violations = (FieldViolation("request", "not valid JSON"),) if status == 400 else ()
        response = _problem(status, str(reason), detail, violations)
        for name, value in (exc.headers or {}).items():  # e.g. `Allow` on a 405 (RFC 9110)
            response.headers[name] = value
        return response
    log.error(
        "internal_error", error=type(exc).__name__, exc_info=(type(exc), exc, exc.__traceback__)
    )
    _note(code=Status.INTERNAL.value, reason=Reason.INTERNAL.value)
    return _problem(500, Reason.INTERNAL, "internal error")


def _closing_answer(status: int, code: str, detail: str, field: str = "") -> bytes:
    """A whole response that closes its connection, written by the connection layer itself
    (:mod:`.connections`: a deadline passed, the cap, the server stopping, a request framed
    twice) when no request is there to answer: the same problem document every other error is,
    naming ``field`` when one is at fault."""
    violations = (FieldViolation(field, detail),) if field else ()
    body = msgspec.json.encode(_problem_document(status, code, detail, violations))
    retry = b"retry-after: 1\r\n" if status == 503 else b""
    phrase = {400: b"Bad Request", 408: b"Request Timeout", 503: b"Service Unavailable"}.get(
        status, b"Error"
    )
    head = (
        b"HTTP/1.1 %d %s\r\ncontent-type: %s\r\ncontent-length: %d\r\n%sconnection: close\r\n\r\n"
        % (status, phrase, PROBLEM_JSON.encode(), len(body), retry)
    )
    return head + body


def _bearer(request: Request[Any, Any, Any]) -> str | None:
    """The bearer token, ``None`` when absent, or a value that no token equals when the header
    is present but not a bearer token (401 ``InvalidToken``, as in gRPC)."""
    value = request.headers.get("authorization")
    if value is None:
        return None
    scheme, _, token = value.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return "invalid"
    return token.strip()


# --------------------------------------------------------------------------- OpenAPI response specs


def _errors(*statuses: int) -> dict[int, ResponseSpec]:
    descriptions = {
        400: "The request could not be parsed (code `Malformed`; `errors` names the fields).",
        401: "No token, or an unknown one (`MissingToken`, `InvalidToken`, `AdminKeyRequired`).",
        403: "Not allowed (`WrongGame`, `SpectatorCannotAct`, `SeatMismatch`, `SeedNotAllowed`, "
        "`AdminKeyRequired`, `NotCreator`, `TableNotPublic`).",
        404: "No such game or invite (`GameNotFound`, `InvalidInvite`).",
        409: "Refused now: the game's rules (`code` is its RejectCode: `NotYourTurn`, "
        "`StaleAction`, `GameOver`, ...) or the table's state (`GameNotStarted`, `GameStarted`, "
        "`TableCancelled`, `TableFull`, `InviteUsed`, `SeatNotOpen`).",
        413: f"The body is larger than {MAX_BODY} bytes (`TooLarge`).",
        415: "The body is not `application/json` (`UnsupportedMediaType`).",
        422: "Well-formed but invalid (`Malformed`, or `HostOnly` for a command only the host "
        "may send; `errors` names the fields).",
        503: "Stopping, or the game is being rebuilt (`ShuttingDown`, `StoreUnavailable`); retry.",
    }
    return {
        s: ResponseSpec(
            data_container=Problem,
            media_type=PROBLEM_JSON,
            description=descriptions[s],
            generate_examples=False,
        )
        for s in statuses
    }


_ALLOW: Final[Mapping[str | None, str]] = {
    None: "GET, OPTIONS, POST",
    **dict.fromkeys(("actions", "start", "abort", "watch"), "OPTIONS, POST"),
}
"""The methods of ``/v1/games`` (None) and of ``/v1/games/{game_id}/<operation>`` (others: GET)."""
_BEARER: Final[list[dict[str, list[str]]]] = [{"bearer": []}]
_GAME_ID = Annotated[
    str, PathParameter(description="The game's id (32 lowercase hex digits).", max_length=64)
]
_INVITE = Annotated[
    str,
    PathParameter(description="An invite code (from CreateGame's `invites`).", max_length=64),
]
_ADMIN_KEY = Annotated[
    str,
    HeaderParameter(
        name=ADMIN_KEY_HEADER,
        required=False,
        description="The admin key, when the server requires one.",
        max_length=1024,
    ),
]


# --------------------------------------------------------------------------- the handlers


class RestApi:
    """The Litestar application over one :class:`~.app.Application`."""

    def __init__(self, app: Application) -> None:
        self.app = app
        self.closing = asyncio.Event()
        """Set when the server stops: open event streams say ``closing`` and end."""
        self._catalogue: Catalogue | None = None

    # ------------------------------------------------------------------ the operations

    def build(self) -> Litestar:
        api = self

        @get(
            "/games",
            operation_id="ListGames",
            summary="The catalogue: every game, its rule flags and JSON Schemas",
            tags=["games"],
            responses=_errors(503),
        )
        async def list_games() -> Catalogue:
            _note(rpc="ListGames")
            return api.catalogue()

        @get(
            "/server",
            operation_id="GetServer",
            summary="This server: the key its logs are signed with, and its version",
            description="`server_key` is the Ed25519 public key (base64url) that signs every "
            "log's header and end line: `cardcore verify --server-key KEY game.jsonl`.",
            tags=["games"],
            security=[{}],
            responses=_errors(503),
        )
        async def get_server() -> ServerInfo:
            _note(rpc="GetServer")
            return ServerInfo(api.app.server_key, ALG, __version__)

        @post(
            "/games",
            operation_id="CreateGame",
            summary="Deal a new game",
            description="Returns the game's id, one secret token per human seat, a spectator "
            "token and the seed commitment once the game is durable. Needs the "
            f"`{ADMIN_KEY_HEADER}` header when the server requires an admin key.",
            tags=["games"],
            status_code=201,
            security=[{}, {"adminKey": []}, {"bearer": []}],
            responses=_errors(400, 401, 403, 409, 413, 415, 422, 503),
        )
        async def create_game(
            request: Request[Any, Any, Any], data: JSONBody[CreateGame], admin_key: _ADMIN_KEY = ""
        ) -> CreatedGame:
            _note(rpc="CreateGame")
            spec = GameSpec(
                game=data.game,
                seats=[
                    SeatSpec(s.kind, s.bot_min_delay_ms, s.bot_max_delay_ms) for s in data.seats
                ],
                rules=_json_object(data.rules, "rules_json") if data.rules else {},
                seed=data.seed,
                event_limit=data.event_limit,
                timeouts_ms=data.timeouts_ms,
                seat_open=[s.open for s in data.seats],
                public=data.public,
                start_deadline_ms=data.start_deadline_ms,
                turn_timeout_ms=data.turn_timeout_ms,
                idle_timeout_ms=data.idle_timeout_ms,
                abandon_timeout_ms=data.abandon_timeout_ms,
                entropy=[bytes.fromhex(s.entropy) for s in data.seats],
                idempotency_key=data.idempotency_key,
            )
            created = await api.app.create_game(
                spec, admin_key or None, request.headers.get("authorization")
            )
            return CreatedGame(
                game_id=created.game_id,
                seat_tokens=[SeatToken(s, t) for s, t in created.seat_tokens],
                spectator_token=created.spectator_token,
                seed_commitment=created.seed_commitment,
                header=_canonical(created.header),
                creator_token=created.creator_token,
                invites=[SeatInvite(s, c, _invite_link(request, c)) for s, c in created.invites],
                status=created.status,
            )

        @post(
            "/games/{game_id:str}/actions",
            operation_id="SubmitAction",
            summary="Submit one command for the token's seat",
            description="Answers once the action is durable, with the accepted entry as the "
            "caller sees it. A rejection by the game's rules is a 409 whose `code` is the "
            "RejectCode. Retrying with the same `action_id` returns the original result.",
            tags=["play"],
            status_code=200,
            security=_BEARER,
            responses=_errors(400, 401, 403, 404, 409, 413, 415, 422, 503),
        )
        async def submit_action(
            request: Request[Any, Any, Any], game_id: _GAME_ID, data: JSONBody[SubmitAction]
        ) -> Submitted:
            _note(rpc="SubmitAction")
            result = await api.app.submit(
                _bearer(request),
                game_id,
                _json_object(data.command, "command.json"),
                action_id=data.action_id,
                as_seat=data.as_seat,
            )
            # The entry goes out as the bytes its event streams send (cached per view), not
            # decoded into an Entry to be encoded again: msgspec writes a Raw as it is.
            entry = cast(Entry, msgspec.Raw(_entry_json(result.entry)))
            return Submitted(entry, result.replayed, _outcome(result.outcome))

        @get(
            "/games/{game_id:str}/view",
            operation_id="GetView",
            summary="The caller's view and its legal commands",
            description="A table still waiting for players has no view yet (409 "
            "`GameNotStarted`); `present_seats` are the seats with an event stream open now.",
            tags=["play"],
            security=_BEARER,
            responses=_errors(400, 401, 403, 404, 409, 422, 503),
        )
        async def get_view(request: Request[Any, Any, Any], game_id: _GAME_ID) -> GameView:
            _note(rpc="GetView")
            r = await api.app.view(_bearer(request), game_id)
            return GameView(
                seq=r.seq,
                view=_obj(r.view),
                legal_commands=[_obj(c) for c in r.legal_commands],
                outcome=_outcome(r.outcome),
                seat=r.seat,
                present_seats=list(r.present),
                head_hash=r.head_hash,
            )

        @get(
            "/games/{game_id:str}/log",
            operation_id="GetLog",
            summary="The log as the caller may see it (JSON Lines)",
            description="Canonical JSON Lines, as `cardcore verify` reads them: redacted for "
            "the caller while the game runs, complete with the revealed seed once it is over "
            f"(then the `{LOG_COMPLETE_HEADER}` header is `true`).",
            tags=["audit"],
            security=_BEARER,
            media_type=JSON_LINES,
            response_description="The log, one canonical JSON object per line.",
            response_headers=[_complete_header()],
            responses=_errors(400, 401, 403, 404, 409, 422, 503),
        )
        async def get_log(request: Request[Any, Any, Any], game_id: _GAME_ID) -> Response[bytes]:
            _note(rpc="GetLog")
            r = await api.app.log(_bearer(request), game_id)
            return Response(
                r.log_jsonl,
                media_type=JSON_LINES,
                headers={LOG_COMPLETE_HEADER: "true" if r.complete else "false"},
            )

        @get(
            "/games/{game_id:str}/events",
            operation_id="StreamEvents",
            summary="The game's entries as Server-Sent Events",
            description=_STREAM_DOC,
            tags=["play"],
            security=_BEARER,
            media_type=EVENT_STREAM,
            response_description="`event: entry` per log entry (`id` = its seq, `data` = an "
            "Entry), then `event: outcome` (`data` = an Outcome) once the game is over; or "
            "`event: closing` (`data` = a Closing) when the server stops.",
            responses=_errors(400, 401, 403, 404, 409, 422, 503),
        )
        async def stream_events(
            request: Request[Any, Any, Any],
            game_id: _GAME_ID,
            from_seq: Annotated[
                int,
                QueryParameter(
                    name="from_seq",
                    ge=0,
                    description="The first seq wanted (0 = from the deal).",
                ),
            ] = 0,
            last_event_id: Annotated[
                str,
                HeaderParameter(
                    name="Last-Event-ID",
                    required=False,
                    pattern=r"^[0-9]{0,19}$",
                    description="The last seq received: resume after it (wins over from_seq).",
                ),
            ] = "",
        ) -> Stream:
            _note(rpc="StreamEvents")
            raw = request.query_params.get("from_seq")
            if raw is not None and not (raw.isascii() and raw.isdigit() and len(raw) <= 19):
                raise ValidationException(  # "1e3", "+5", 2**64: not a seq (Litestar took them)
                    extra=[{"key": "from_seq", "message": "must be a seq: 0..2^63-1, digits only"}]
                )
            start = from_seq
            if last_event_id.strip():
                text = last_event_id.strip()
                if not text.isascii() or not text.isdigit() or len(text) > 19:
                    raise ValidationException(  # unparseable: 400, like any header of bad type
                        extra=[{"key": "Last-Event-ID", "message": "must be the seq of an entry"}]
                    )
                start = int(text) + 1
            _note(from_seq=start)
            batches = await api.app.stream(_bearer(request), game_id, start)
            return Stream(
                api._sse(batches),
                media_type=EVENT_STREAM,
                headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
            )

        @post(
            "/tables/join",
            operation_id="JoinTable",
            summary="Take a seat of a table waiting for players",
            description="With `invite` (a code from CreateGame's `invites`) the invite's seat; "
            "with `game_id` a seat open to anyone (`seat`, or the first one free). No token "
            "needed: the answer carries the seat's token. The join that takes the last open "
            "seat deals the game (`status` `playing`). Of clients racing for the last seat one "
            "gets it; the others get 409 `TableFull` or `GameStarted`.",
            tags=["lobby"],
            status_code=200,
            security=[{}],
            responses=_errors(400, 404, 409, 413, 415, 422, 503),
        )
        async def join_table(data: JSONBody[JoinTable]) -> Joined:
            _note(rpc="JoinTable")
            j = await api.app.lobby.join(
                data.invite, data.game_id, data.seat, bytes.fromhex(data.entropy)
            )
            return Joined(j.game_id, j.seat, j.token, j.status)

        @get(
            "/invites/{code:str}",
            operation_id="GetInvite",
            summary="What an invite link is for: its seat and the table (changes nothing)",
            description="No token needed: the code is the credential. `POST` the same link "
            "to take the seat.",
            tags=["lobby"],
            security=[{}],
            responses=_errors(400, 404, 503),
        )
        async def get_invite(code: _INVITE) -> InviteInfo:
            _note(rpc="GetInvite")
            seat, info = await api.app.lobby.invite(code)
            return InviteInfo(seat, _table(info))

        @post(
            "/invites/{code:str}",
            operation_id="AcceptInvite",
            summary="Take the seat of an invite link",
            description='The same as `POST /v1/tables/join` with `{"invite": code}`: the '
            "answer carries the seat's token; a used invite is 409 `InviteUsed`. The body is "
            'optional: `{"entropy": "<32 hex digits>"}` adds the joiner\'s 16 random bytes to '
            "the deal (docs/rng.md), as JoinTable's `entropy` does.",
            tags=["lobby"],
            status_code=200,
            security=[{}],
            responses=_errors(400, 404, 409, 413, 415, 422, 503),
        )
        async def accept_invite(
            code: _INVITE, data: JSONBody[AcceptInvite | None] = None
        ) -> Joined:
            _note(rpc="JoinTable")
            entropy = bytes.fromhex(data.entropy) if data is not None else b""
            j = await api.app.lobby.join(code, "", None, entropy)
            return Joined(j.game_id, j.seat, j.token, j.status)

        @post(
            "/games/{game_id:str}/start",
            operation_id="StartTable",
            summary="Start a waiting table now, its empty seats played by bots",
            description="The creator's token. The body is optional (`fill_with` defaults to "
            "`reaction`).",
            tags=["lobby"],
            status_code=200,
            security=_BEARER,
            responses=_errors(400, 401, 403, 404, 409, 413, 415, 422, 503),
        )
        async def start_table(
            request: Request[Any, Any, Any],
            game_id: _GAME_ID,
            data: JSONBody[StartTable | None] = None,
        ) -> Table:
            _note(rpc="StartTable")
            fill = data.fill_with if data is not None else "reaction"
            info = await api.app.lobby.start_table(_bearer(request), game_id, fill)
            return _table(info)

        @post(
            "/games/{game_id:str}/abort",
            operation_id="AbortGame",
            summary="End a game at once, or cancel a table still waiting",
            description="The creator's token, or the `X-Cardcore-Admin-Key` header. A game "
            "ends with termination `aborted` (its log is final and reveals the seed); a table "
            "still waiting is `cancelled`.",
            tags=["lobby"],
            status_code=200,
            security=[{"bearer": []}, {"adminKey": []}],
            responses=_errors(400, 401, 403, 404, 409, 413, 415, 422, 503),
        )
        async def abort_game(
            request: Request[Any, Any, Any], game_id: _GAME_ID, admin_key: _ADMIN_KEY = ""
        ) -> Table:
            _note(rpc="AbortGame")
            info = await api.app.lobby.abort(_bearer(request), game_id, admin_key or None)
            return _table(info)

        @get(
            "/games/{game_id:str}/table",
            operation_id="GetTable",
            summary="A table's status and seats, and who is present",
            description="Any token of the game; none for a public table.",
            tags=["lobby"],
            security=[{}, {"bearer": []}],
            responses=_errors(400, 401, 403, 404, 422, 503),
        )
        async def get_table(request: Request[Any, Any, Any], game_id: _GAME_ID) -> Table:
            _note(rpc="GetTable")
            return _table(await api.app.lobby.table(_bearer(request), game_id))

        @get(
            "/tables",
            operation_id="ListTables",
            summary="Public tables waiting for players, newest first",
            description="No token needed. `page_token` (a previous page's `next_page_token`) "
            "continues the listing after that page: tables created since come before its first "
            "page, never in the pages after.",
            tags=["lobby"],
            security=[{}],
            responses=_errors(400, 422, 503),
        )
        async def list_tables(
            game: Annotated[
                str,
                QueryParameter(
                    name="game",
                    required=False,
                    max_length=64,
                    description="Only tables of this game (empty = every game).",
                ),
            ] = "",
            page_size: Annotated[
                int,
                QueryParameter(
                    name="page_size",
                    required=False,
                    ge=0,
                    le=2**32 - 1,
                    description="Tables per page, 1 to 100 (0 = 20).",
                ),
            ] = 0,
            page_token: Annotated[
                str,
                QueryParameter(
                    name="page_token",
                    required=False,
                    max_length=1024,
                    description="The previous page's next_page_token (empty = the newest).",
                ),
            ] = "",
        ) -> TableList:
            _note(rpc="ListTables")
            page = await api.app.lobby.list_tables(game, page_size, page_token)
            return TableList([_table(t) for t in page.tables], page.next_page_token)

        @post(
            "/games/{game_id:str}/watch",
            operation_id="WatchTable",
            summary="A new spectator token of a public table",
            description="No token needed; a table that is not public is 403 `TableNotPublic`.",
            tags=["lobby"],
            status_code=200,
            security=[{}],
            responses=_errors(400, 403, 413, 415, 422, 503),
        )
        async def watch_table(game_id: _GAME_ID) -> Watching:
            _note(rpc="WatchTable")
            return Watching(await api.app.lobby.watch(game_id))

        @post(
            "/my-games",
            operation_id="ListMyGames",
            summary="The games of the tokens a client holds",
            description=f"Up to {MAX_MY_GAMES} tokens (seat, spectator or creator tokens), "
            "in the body so that they stay out of URLs; one game per token, in order.",
            tags=["lobby"],
            status_code=200,
            security=[{}],
            responses=_errors(400, 401, 413, 415, 422, 503),
        )
        async def list_my_games(data: JSONBody[MyGamesQuery]) -> MyGames:
            _note(rpc="ListMyGames")
            games = await api.app.lobby.my_games(data.tokens)
            return MyGames([MyGame(v, _table(t)) for v, t in games])

        @route(
            ["/games", "/games/{game_id:str}/{operation:str}", "/invites/{code:str}"],
            http_method=HttpMethod.OPTIONS,
            include_in_schema=False,
        )
        async def options(request: Request[Any, Any, Any]) -> Response[None]:
            # Litestar's automatic OPTIONS of a path served by two handlers (GET and POST
            # /games) lists only the first one's method: answer with the real set.
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
        def metrics() -> Response[bytes]:
            # Prometheus text (docs/operations.md): requests, latency, games, streams, store.
            return Response(api.app.metrics.text(), media_type=METRICS_CONTENT_TYPE)

        @get("/readyz", include_in_schema=False)
        async def readyz() -> Response[dict[str, str]]:
            # Ready: the store answers and the server is not draining (take traffic).
            why = await api.app.readiness()
            if why is None:
                return Response({"status": "ready"})
            return Response({"status": "not ready", "reason": why}, status_code=503)

        router = Router(
            API_PREFIX,
            route_handlers=[
                options,
                list_games,
                get_server,
                create_game,
                submit_action,
                get_view,
                get_log,
                stream_events,
                join_table,
                get_invite,
                accept_invite,
                start_table,
                abort_game,
                get_table,
                list_tables,
                watch_table,
                list_my_games,
            ],
        )
        return Litestar(
            route_handlers=[router, healthz, readyz, metrics, *web.route_handlers()],
            state=State({"metrics": api.app.metrics, "limits": api.app.limits}),
            before_request=_admit,
            after_request=_problem_for_html_404,
            exception_handlers={
                ServiceError: _service_error,
                ValidationException: _validation_error,
                RecursionError: _too_deep,
                HTTPException: _http_error,
                Exception: _http_error,
            },
            openapi_config=OpenAPIConfig(
                title="cardcore",
                version="1",
                description=API_DESCRIPTION,
                path=API_PREFIX,
                render_plugins=[
                    _OpenAPIJson(path="/openapi.json"),
                    _OpenAPIYaml(path="/openapi.yaml"),
                ],
                components=Components(
                    security_schemes={
                        "bearer": SecurityScheme(
                            type="http",
                            scheme="bearer",
                            description="A seat's, the spectator's or the creator's token "
                            "(CreateGame, JoinTable, WatchTable).",
                        ),
                        "adminKey": SecurityScheme(
                            type="apiKey",
                            name=ADMIN_KEY_HEADER,
                            security_scheme_in="header",
                            description="Needed to create games when the server requires "
                            "it; aborts any game.",
                        ),
                    }
                ),
                tags=[
                    Tag(name="games", description="Catalogue and creation"),
                    Tag(name="play", description="Actions, views and the event stream"),
                    Tag(name="audit", description="The tamper-evident log"),
                    Tag(
                        name="lobby",
                        description="Tables, invites, start, abort, listing and spectators",
                    ),
                ],
                create_examples=False,
            ),
            middleware=[web.cors(api.app.config.cors_origins), _request_log],
            logging_config=None,
            request_max_body_size=MAX_BODY,
            debug=False,
        )

    def catalogue(self) -> Catalogue:
        if self._catalogue is None:
            self._catalogue = Catalogue(
                [
                    GameInfo(
                        name=g.name,
                        title=g.title,
                        rules_version=g.rules_version,
                        min_seats=g.min_seats,
                        max_seats=g.max_seats,
                        realtime=g.realtime,
                        aliases=list(g.aliases),
                        flags=[
                            RuleFlag(
                                f.name,
                                _canonical(f.default),
                                _canonical(f.schema),
                                f.help,
                            )
                            for f in g.flags
                        ],
                        command_schema=_canonical(g.command_schema),
                        event_schema=_canonical(g.event_schema),
                        view_schema=_canonical(g.view_schema),
                    )
                    for g in self.app.list_games()
                ]
            )
        return self._catalogue

    # ------------------------------------------------------------------ the event stream

    async def _sse(self, batches: AsyncIterator[StreamBatch]) -> AsyncIterator[bytes]:
        """Batches as SSE events, heartbeats while idle, ``closing`` on shutdown or failure."""
        fields = request_fields.get()
        sent = 0
        it = aiter(batches)
        closing = asyncio.ensure_future(self.closing.wait())
        nxt: asyncio.Future[StreamBatch] | None = None
        try:
            yield b"retry: 1000\n\n"
            while True:
                if nxt is None:
                    nxt = asyncio.ensure_future(anext(it))
                done, _ = await asyncio.wait(
                    (nxt, closing), timeout=HEARTBEAT_S, return_when=asyncio.FIRST_COMPLETED
                )
                if nxt in done:
                    fut, nxt = nxt, None
                    try:
                        batch = fut.result()
                    except StopAsyncIteration:
                        return
                    except ServiceError as err:
                        yield _closing(err.reason, err.message)
                        return
                    sent += len(batch.entries)
                    yield _sse_batch(batch)
                    if batch.outcome is not None:
                        return
                elif closing in done:
                    yield _closing(
                        Reason.SHUTTING_DOWN, "the server is stopping; resume with Last-Event-ID"
                    )
                    return
                else:
                    yield b": keep-alive\n\n"
        finally:
            if fields is not None:
                fields["entries"] = sent
            closing.cancel()
            if nxt is not None:
                nxt.cancel()
                with contextlib.suppress(BaseException):
                    await nxt
            with contextlib.suppress(Exception):
                await it.aclose()  # type: ignore[attr-defined]


WIRE_TYPES: Final = (
    Problem,
    FieldError,
    RuleFlag,
    GameInfo,
    Catalogue,
    SeatAssignment,
    CreateGame,
    SeatToken,
    SeatInvite,
    CreatedGame,
    SubmitAction,
    Entry,
    Outcome,
    Submitted,
    GameView,
    JoinTable,
    AcceptInvite,
    Joined,
    StartTable,
    TableSeat,
    Table,
    TableList,
    Watching,
    MyGamesQuery,
    MyGame,
    MyGames,
    Closing,
)


def openapi_document(generated: dict[str, Any]) -> dict[str, Any]:
    """Litestar's document with every wire type's schema as msgspec itself generates it (exact:
    bounds, ``additionalProperties: false`` where unknown fields are refused, nullable fields),
    so that what the document admits is what the decoder admits."""
    _, components = msgspec.json.schema_components(
        WIRE_TYPES, ref_template="#/components/schemas/{name}"
    )
    doc = dict(generated)
    schemas = dict(doc.get("components", {}).get("schemas", {}))
    schemas.update(components)
    doc["components"] = {**doc.get("components", {}), "schemas": schemas}
    paths = doc.get("paths", {})
    for path, method in _OPTIONAL_BODIES:
        body = paths.get(path, {}).get(method, {}).get("requestBody")
        if isinstance(body, dict):  # Litestar marks every body required; these may be absent
            paths[path][method]["requestBody"] = {**body, "required": False}
    return doc


_OPTIONAL_BODIES: Final = (
    (API_PREFIX + "/games/{game_id}/start", "post"),
    (API_PREFIX + "/invites/{code}", "post"),
)
"""Operations whose body may be left out (StartTable: ``fill_with`` has a default;
AcceptInvite: ``entropy`` is optional)."""


class _OpenAPIJson(JsonRenderPlugin):
    """Serves :func:`openapi_document` (built once)."""

    _doc: bytes | None = None

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        if self._doc is None:
            self._doc = _encode.encode(openapi_document(openapi_schema))
        return self._doc


class _OpenAPIYaml(YamlRenderPlugin):
    """The same document as :class:`_OpenAPIJson`, in YAML (PyYAML comes with Litestar)."""

    _doc: bytes | None = None

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        if self._doc is None:
            import yaml  # type: ignore[import-untyped]

            document = openapi_document(openapi_schema)
            self._doc = yaml.dump(document, default_flow_style=False, allow_unicode=True).encode()
        return self._doc


def _closing(code: str, detail: str) -> bytes:
    return b"event: closing\ndata: %s\n\n" % _encode.encode(Closing(code, detail))


def _complete_header() -> Any:
    from litestar.datastructures import ResponseHeader

    return ResponseHeader(
        name=LOG_COMPLETE_HEADER,
        value="false",
        description="`true` once the game is over: the log is complete and reveals the seed.",
        documentation_only=True,
    )


_STREAM_DOC: Final = (
    "Server-Sent Events (`text/event-stream`). Each log entry from `from_seq` on is one event: "
    "`id: <seq>`, `event: entry`, `data: <Entry JSON>`. Once the game is over the stream sends "
    "`event: outcome` (`data: <Outcome JSON>`) and closes. To resume after a dropped connection "
    "send `Last-Event-ID: <last seq seen>` (EventSource does): the stream continues with the "
    "next seq, with no gap and no duplicate. When the server stops, the stream sends "
    "`event: closing` (`data: {code, detail}`) and ends. Idle streams carry a comment line "
    f"every {int(HEARTBEAT_S)} s."
)


# --------------------------------------------------------------------------- request log lines


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


# --------------------------------------------------------------------------- the server


class _Uvicorn(uvicorn.Server):
    """uvicorn without its own signal handling: :func:`.server.serve` owns SIGTERM/SIGINT."""

    @contextlib.contextmanager
    def capture_signals(self) -> Any:
        yield


@dataclass
class RestServer:
    """A running REST server (uvicorn on the caller's event loop)."""

    api: RestApi
    server: uvicorn.Server
    task: asyncio.Task[None]
    host: str
    port: int

    async def stop(self, grace_s: float = 5.0) -> None:
        """End open event streams (``closing``), stop accepting, finish in-flight requests."""
        self.api.closing.set()
        self.server.should_exit = True
        try:
            await asyncio.wait_for(asyncio.shield(self.task), timeout=grace_s + 1.0)
        except Exception:
            self.server.force_exit = True
            self.task.cancel()
            with contextlib.suppress(BaseException):
                await self.task


async def start_rest(
    app: Application,
    host: str,
    port: int,
    grace_s: float = 5.0,
    tls: tuple[str, str] | None = None,
    *,
    limits: ConnectionLimits | None = None,
) -> RestServer:
    """Bind ``host:port`` (0 = any free port) and serve the REST API on the running loop;
    ``tls``: ``(certificate chain PEM, private key PEM)`` paths to serve HTTPS; ``limits``: how
    many connections, and how long a request may take to arrive (:mod:`.connections`)."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets that say so (else Nagle
    # and delayed ACKs add 40 ms to every response written in two parts)
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(LISTEN_BACKLOG)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise  # with its errno: server.port_unavailable words it, as it words gRPC's
    bound = int(sock.getsockname()[1])
    api = RestApi(app)
    connections = Connections(
        limits or ConnectionLimits(),
        _closing_answer,
        lambda why: app.metrics.connections.labels("rest", why).inc(),
    )
    app.metrics.open_connections.labels("rest").set_function(lambda: len(connections.open))
    config = uvicorn.Config(
        api.build(),
        http=connections.protocol(),
        # asyncio accepts up to `backlog` sockets per wake-up before any is closed: the cap can
        # only close what was accepted, so these bursts must fit in connections.FD_RESERVE.
        # asyncio also passes it to listen(); the kernel's queue is set back after the start.
        backlog=ACCEPT_BATCH,
        lifespan="on",
        log_config=None,
        access_log=False,
        server_header=False,
        timeout_graceful_shutdown=max(int(grace_s), 1),
        ws="none",
        # X-Forwarded-For (and -Proto) only from the proxies named by --trusted-proxy: uvicorn
        # would believe any loopback peer, letting a client pick its rate limit's address.
        proxy_headers=bool(app.config.trusted_proxies),
        forwarded_allow_ips=list(app.config.trusted_proxies),
        ssl_certfile=tls[0] if tls else None,
        ssl_keyfile=tls[1] if tls else None,
    )
    server = _Uvicorn(config)
    task = asyncio.get_running_loop().create_task(server.serve(sockets=[sock]))
    while not server.started:
        if task.done():
            sock.close()
            failure = task.exception() if not task.cancelled() else None
            raise OSError(f"the REST server did not start: {failure!r}")
        await asyncio.sleep(0.01)
    sock.listen(LISTEN_BACKLOG)  # the kernel's queue only: asyncio keeps its ACCEPT_BATCH
    return RestServer(api, server, task, host, bound)
