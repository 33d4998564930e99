"""The gRPC transport (``grpc.aio``): converts, delegates to the application, reports errors richly.

Only conversion lives here. Handlers receive the raw request bytes and parse them themselves (the
*decode guard*): a request that is not a valid message gets ``INVALID_ARGUMENT`` with a
``BadRequest``, never ``UNKNOWN``/``INTERNAL`` nor the parser's own text. Every error carries a
``google.rpc.Status`` in ``grpc-status-details-bin`` with an ``ErrorInfo`` (domain ``cardcore``,
reason = the game's ``RejectCode`` or a :class:`~.errors.Reason`). One log line per request.

Streams batch entries; each entry's protobuf encoding is cached per viewer and a batch is
assembled from the cached bytes, so fan-out to many subscribers costs little.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, Final, TypeVar

import grpc
import structlog
from google.protobuf import any_pb2, duration_pb2, message
from google.rpc import code_pb2, error_details_pb2, status_pb2

from cardcore import codec
from cardcore.engine import Outcome
from cardcore_proto import game_service_pb2 as pb

from ... import logs
from ...app import (
    MAX_SEATS,
    MAX_TIMEOUTS,
    Application,
    GameSpec,
    JsonObject,
    StreamBatch,
    TableInfo,
    Unreadable,
    read_json_object,
    request_fields,
)
from ...errors import DOMAIN, Reason, ServiceError, Status, invalid
from ...limits import TrustedProxies
from ...redaction import RedactedEntry, Value
from ...store import SeatSpec

SERVICE_NAME: Final = "cardcore.v1.GameService"
ADMIN_KEY_HEADER: Final = "x-cardcore-admin-key"
_WIRE: Final = "grpc"

log = structlog.get_logger("cardcore_server")

M = TypeVar("M", bound=message.Message)

_CODES: Final = {
    Status.INVALID_ARGUMENT: (grpc.StatusCode.INVALID_ARGUMENT, code_pb2.INVALID_ARGUMENT),
    Status.NOT_FOUND: (grpc.StatusCode.NOT_FOUND, code_pb2.NOT_FOUND),
    Status.UNAUTHENTICATED: (grpc.StatusCode.UNAUTHENTICATED, code_pb2.UNAUTHENTICATED),
    Status.PERMISSION_DENIED: (grpc.StatusCode.PERMISSION_DENIED, code_pb2.PERMISSION_DENIED),
    Status.FAILED_PRECONDITION: (grpc.StatusCode.FAILED_PRECONDITION, code_pb2.FAILED_PRECONDITION),
    Status.RESOURCE_EXHAUSTED: (grpc.StatusCode.RESOURCE_EXHAUSTED, code_pb2.RESOURCE_EXHAUSTED),
    Status.UNAVAILABLE: (grpc.StatusCode.UNAVAILABLE, code_pb2.UNAVAILABLE),
    Status.INTERNAL: (grpc.StatusCode.INTERNAL, code_pb2.INTERNAL),
}

_SEAT_KINDS: Final = {
    pb.SEAT_KIND_UNSPECIFIED: "human",
    pb.SEAT_KIND_HUMAN: "human",
    pb.SEAT_KIND_RANDOM_BOT: "random",
    pb.SEAT_KIND_REACTION_BOT: "reaction",
}


# --------------------------------------------------------------------------- conversion


def _value(v: Value) -> pb.GameValue:
    return pb.GameValue(kind=v.kind, json=v.json)


def _entry_bytes(e: RedactedEntry) -> bytes:
    cached = e.wire.get(_WIRE)
    if cached is None:
        msg = pb.Entry(
            seq=e.seq,
            at_ms=e.at_ms,
            action=_value(e.action),
            events=[_value(x) for x in e.events],
            hash=e.hash,
            prev=e.prev,
        )
        if e.seat is not None:
            msg.seat = e.seat
        cached = e.wire[_WIRE] = msg.SerializeToString()
    return cached


def _entry(e: RedactedEntry) -> pb.Entry:
    return pb.Entry.FromString(_entry_bytes(e))


def _outcome(o: Outcome) -> pb.Outcome:
    return pb.Outcome(
        termination=o.termination.value,
        winners=list(o.winners),
        losers=list(o.losers),
        scores=list(o.scores),
    )


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _batch_bytes(batch: StreamBatch) -> bytes:
    """A StreamEventsResponse assembled from cached entry encodings (field 1, repeated)."""
    parts = []
    for e in batch.entries:
        b = _entry_bytes(e)
        parts.append(b"\x0a" + _varint(len(b)) + b)
    if batch.outcome is not None:
        ob = _outcome(batch.outcome).SerializeToString()
        parts.append(b"\x12" + _varint(len(ob)) + ob)
    if batch.end is not None:
        eb = codec.canonical_bytes(batch.end)
        parts.append(b"\x1a" + _varint(len(eb)) + eb)
    return b"".join(parts)


def _metadata(context: grpc.aio.ServicerContext[Any, Any], key: str) -> str | None:
    for k, v in context.invocation_metadata() or ():
        if k == key:
            return v if isinstance(v, str) else None
    return None


def _token(context: grpc.aio.ServicerContext[Any, Any]) -> str | None:
    value = _metadata(context, "authorization")
    if value is None:
        return None
    scheme, _, token = value.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return "invalid"  # present but not a bearer token: UNAUTHENTICATED, not "missing"
    return token.strip()


def _client_address(context: grpc.aio.ServicerContext[Any, Any], proxies: TrustedProxies) -> str:
    """The client's address without its port (``ipv4:1.2.3.4:5678`` → ``1.2.3.4``), or the one
    a trusted proxy forwards for (``x-forwarded-for``, :class:`~.limits.TrustedProxies`)."""
    peer = context.peer() or ""
    family, _, rest = peer.partition(":")
    if family in ("ipv4", "ipv6"):
        peer = rest.rsplit(":", 1)[0].strip("[]")
    if not proxies.networks:
        return peer
    forwarded = [v for k, v in context.invocation_metadata() or () if k == "x-forwarded-for"]
    return proxies.client(peer, [v for v in forwarded if isinstance(v, str)])


RETRY_AFTER_S: Final = 1
"""What an ``UNAVAILABLE`` answer tells a client to wait before it retries (``RetryInfo``),
unless it says otherwise (``retry_after_s``); REST says the same in ``Retry-After``."""


def _status_details(err: ServiceError) -> bytes:
    rpc_code = _CODES[err.status][1]
    info = error_details_pb2.ErrorInfo(reason=err.reason, domain=DOMAIN, metadata=err.metadata)
    details = [any_pb2.Any()]
    details[0].Pack(info)
    if err.violations:
        bad = error_details_pb2.BadRequest(
            field_violations=[
                error_details_pb2.BadRequest.FieldViolation(
                    field=v.field, description=v.description
                )
                for v in err.violations
            ]
        )
        extra = any_pb2.Any()
        extra.Pack(bad)
        details.append(extra)
    if err.status in (Status.UNAVAILABLE, Status.RESOURCE_EXHAUSTED):
        # Retryable: say when (google.rpc.RetryInfo), as REST's Retry-After does.
        seconds = int(err.metadata.get("retry_after_s", RETRY_AFTER_S))
        retry = any_pb2.Any()
        retry.Pack(error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=seconds)))
        details.append(retry)
    status = status_pb2.Status(code=rpc_code, message=err.message, details=details)
    data: bytes = status.SerializeToString()
    return data


# --------------------------------------------------------------------------- handlers


Context = grpc.aio.ServicerContext[bytes, bytes]


class GameServiceHandlers:
    """``cardcore.v1.GameService`` over an :class:`~.app.Application`."""

    def __init__(self, app: Application) -> None:
        self.app = app
        self.running = 0
        """Calls in a handler now."""
        self.last_call = 0.0
        """Loop time at which the latest call reached its handler."""

    def _began(self) -> None:
        self.running += 1
        self.last_call = asyncio.get_running_loop().time()

    async def settled(self, quiet_s: float, until: float) -> None:
        """Return once no call is in a handler and none has arrived for ``quiet_s`` (or at loop
        time ``until``): the server may then stop. gRPC core cancels, with no answer and no
        handler, every call it holds that it has not handed to one yet when the server stops
        (``CANCELLED``); until then each is handed over, and refused ``ShuttingDown``."""
        loop = asyncio.get_running_loop()
        while loop.time() < until:
            idle = loop.time() - self.last_call
            if self.running == 0 and idle >= quiet_s:
                return
            await asyncio.sleep(min(max(quiet_s - idle, 0.005), until - loop.time()))

    def generic_handler(self) -> grpc.GenericRpcHandler:
        unary = grpc.unary_unary_rpc_method_handler
        return grpc.method_handlers_generic_handler(
            SERVICE_NAME,
            {
                "ListGames": unary(self._unary("ListGames", pb.ListGamesRequest, self.list_games)),
                "CreateGame": unary(
                    self._unary("CreateGame", pb.CreateGameRequest, self.create_game)
                ),
                "SubmitAction": unary(
                    self._unary("SubmitAction", pb.SubmitActionRequest, self.submit_action)
                ),
                "GetView": unary(self._unary("GetView", pb.GetViewRequest, self.get_view)),
                "GetLog": unary(self._unary("GetLog", pb.GetLogRequest, self.get_log)),
                "JoinTable": unary(self._unary("JoinTable", pb.JoinTableRequest, self.join_table)),
                "StartTable": unary(
                    self._unary("StartTable", pb.StartTableRequest, self.start_table)
                ),
                "AbortGame": unary(self._unary("AbortGame", pb.AbortGameRequest, self.abort_game)),
                "GetTable": unary(self._unary("GetTable", pb.GetTableRequest, self.get_table)),
                "ListTables": unary(
                    self._unary("ListTables", pb.ListTablesRequest, self.list_tables)
                ),
                "WatchTable": unary(
                    self._unary("WatchTable", pb.WatchTableRequest, self.watch_table)
                ),
                "ListMyGames": unary(
                    self._unary("ListMyGames", pb.ListMyGamesRequest, self.list_my_games)
                ),
                "StreamEvents": grpc.unary_stream_rpc_method_handler(self._stream_events),
            },
        )

    def _unary(
        self,
        name: str,
        request_type: type[M],
        impl: Callable[[M, Context], Awaitable[message.Message | bytes]],
    ) -> Callable[[bytes, Context], Awaitable[bytes]]:
        async def handle(raw: bytes, context: Context) -> bytes:
            fields: dict[str, Any] = {"rpc": name}
            reset = request_fields.set(fields)
            start = time.perf_counter()
            code = "OK"
            self._began()
            try:
                self.app.limits.admit(_token(context), _client_address(context, self.app.proxies))
                request = _parse(request_type, raw)
                response = await impl(request, context)
                return response if isinstance(response, bytes) else response.SerializeToString()
            except ServiceError as err:
                code = err.status.value
                fields.setdefault("reason", err.reason)
                await _abort(context, err)
                raise  # unreachable: abort raises
            except Exception as exc:
                if _is_abort(exc):
                    raise
                code = "INTERNAL"
                log.exception("internal_error", rpc=name)
                await _abort(
                    context, ServiceError(Status.INTERNAL, Reason.INTERNAL, "internal error")
                )
                raise
            finally:
                self.running -= 1
                self.app.metrics.request("grpc", name, code, time.perf_counter() - start)
                _request_line(fields, code, start)
                request_fields.reset(reset)

        return handle

    async def _stream_events(self, raw: bytes, context: Context) -> AsyncIterator[bytes]:
        fields: dict[str, Any] = {"rpc": "StreamEvents"}
        # No reset token here: when the client cancels, gRPC closes this generator from another
        # context, where ``reset`` raises (and the error surfaced as "Task exception was never
        # retrieved"). Setting the previous value back works in any context.
        previous = request_fields.get()
        request_fields.set(fields)
        start = time.perf_counter()
        code = "OK"
        sent = 0
        self._began()
        try:
            self.app.limits.admit(_token(context), _client_address(context, self.app.proxies))
            request = _parse(pb.StreamEventsRequest, raw)
            fields["from_seq"] = request.from_seq
            batches = await self.app.stream(_token(context), request.game_id, request.from_seq)
            async for batch in batches:
                sent += len(batch.entries)
                yield _batch_bytes(batch)
        except ServiceError as err:
            code = err.status.value
            fields.setdefault("reason", err.reason)
            await _abort(context, err)
        except (GeneratorExit, asyncio.CancelledError):
            code = "CANCELLED"  # the client went away mid-stream: its line says so, not OK
            raise
        except Exception as exc:
            if _is_abort(exc):
                raise
            code = "INTERNAL"
            log.exception("internal_error", rpc="StreamEvents")
            await _abort(context, ServiceError(Status.INTERNAL, Reason.INTERNAL, "internal error"))
        finally:
            self.running -= 1
            fields["entries"] = sent
            self.app.metrics.request("grpc", "StreamEvents", code, time.perf_counter() - start)
            _request_line(fields, code, start)
            request_fields.set(previous)

    # ------------------------------------------------------------------ the RPCs

    async def list_games(
        self, request: pb.ListGamesRequest, context: Context
    ) -> pb.ListGamesResponse:
        return pb.ListGamesResponse(
            games=[
                pb.GameInfo(
                    name=g.name,
                    title=g.title,
                    rules_version=g.rules_version,
                    min_seats=g.min_seats,
                    max_seats=g.max_seats,
                    realtime=g.realtime,
                    aliases=list(g.aliases),
                    flags=[
                        pb.RuleFlag(
                            name=f.name,
                            default_json=codec.canonical_text(f.default),
                            schema_json=codec.canonical_text(f.schema),
                            help=f.help,
                        )
                        for f in g.flags
                    ],
                    command_schema_json=codec.canonical_text(g.command_schema),
                    event_schema_json=codec.canonical_text(g.event_schema),
                    view_schema_json=codec.canonical_text(g.view_schema),
                )
                for g in self.app.list_games()
            ],
            server_key=self.app.server_key,
        )

    async def create_game(
        self, request: pb.CreateGameRequest, context: Context
    ) -> pb.CreateGameResponse:
        if len(request.seats) > MAX_SEATS:  # before any per-seat work (issue 13 fault 4)
            raise invalid("seats", f"at most {MAX_SEATS} seats, got {len(request.seats)}")
        if len(request.timeouts_ms) > MAX_TIMEOUTS:
            raise invalid("timeouts_ms", f"at most {MAX_TIMEOUTS} entries")
        seats = []
        opens = []
        entropy: list[bytes] = []
        for i, s in enumerate(request.seats):
            kind = _SEAT_KINDS.get(s.kind)
            if kind is None:
                raise invalid(f"seats[{i}].kind", "not a SeatKind")
            seat_open = _SEAT_OPENS.get(s.open)
            if seat_open is None:
                raise invalid(f"seats[{i}].open", "not a SeatOpen")
            seats.append(SeatSpec(kind, s.bot_min_delay_ms, s.bot_max_delay_ms))
            opens.append(seat_open)
            entropy.append(bytes(s.entropy))
        spec = GameSpec(
            game=request.game,
            seats=seats,
            rules=read_json_object(request.rules_json, "rules_json", empty=True),
            seed=request.seed if request.HasField("seed") else None,
            event_limit=request.event_limit,
            timeouts_ms=dict(request.timeouts_ms),
            seat_open=opens,
            public=request.public,
            start_deadline_ms=request.start_deadline_ms,
            turn_timeout_ms=request.turn_timeout_ms,
            idle_timeout_ms=request.idle_timeout_ms,
            abandon_timeout_ms=request.abandon_timeout_ms,
            entropy=entropy,
            idempotency_key=request.idempotency_key,
        )
        created = await self.app.create_game(
            spec, _metadata(context, ADMIN_KEY_HEADER), _metadata(context, "authorization")
        )
        return pb.CreateGameResponse(
            game_id=created.game_id,
            seat_tokens=[pb.SeatToken(seat=s, token=t) for s, t in created.seat_tokens],
            spectator_token=created.spectator_token,
            seed_commitment=created.seed_commitment,
            header_json=codec.canonical_text(created.header),
            creator_token=created.creator_token,
            invites=[pb.SeatInvite(seat=s, code=c) for s, c in created.invites],
            status=created.status,
        )

    async def submit_action(self, request: pb.SubmitActionRequest, context: Context) -> bytes:
        result = await self.app.submit(
            _token(context),
            request.game_id,
            _command(request.command),
            action_id=request.action_id,
            as_seat=request.as_seat if request.HasField("as_seat") else None,
        )
        # A SubmitActionResponse written from the entry's cached encoding (the same bytes its
        # streams send), rather than parsed back into a message and serialised again.
        entry = _entry_bytes(result.entry)
        parts = [b"\x0a", _varint(len(entry)), entry]
        if result.outcome is not None:
            ob = _outcome(result.outcome).SerializeToString()
            parts += (b"\x12", _varint(len(ob)), ob)
        if result.replayed:
            parts.append(b"\x18\x01")
        return b"".join(parts)

    async def get_view(self, request: pb.GetViewRequest, context: Context) -> pb.GetViewResponse:
        result = await self.app.view(_token(context), request.game_id)
        response = pb.GetViewResponse(
            seq=result.seq,
            view=_value(result.view),
            legal_commands=[_value(v) for v in result.legal_commands],
        )
        if result.outcome is not None:
            response.outcome.CopyFrom(_outcome(result.outcome))
        if result.seat is not None:
            response.seat = result.seat
        response.present_seats.extend(result.present)
        response.head_hash = result.head_hash
        return response

    async def get_log(self, request: pb.GetLogRequest, context: Context) -> pb.GetLogResponse:
        result = await self.app.log(_token(context), request.game_id)
        return pb.GetLogResponse(log_jsonl=result.log_jsonl, complete=result.complete)

    # ------------------------------------------------------------------ the lifecycle

    async def join_table(
        self, request: pb.JoinTableRequest, context: Context
    ) -> pb.JoinTableResponse:
        joined = await self.app.lobby.join(
            request.invite,
            request.game_id,
            request.seat if request.HasField("seat") else None,
            bytes(request.entropy),
        )
        return pb.JoinTableResponse(
            game_id=joined.game_id, seat=joined.seat, token=joined.token, status=joined.status
        )

    async def start_table(
        self, request: pb.StartTableRequest, context: Context
    ) -> pb.StartTableResponse:
        fill = _SEAT_KINDS.get(request.fill_with, "")
        if request.fill_with in (pb.SEAT_KIND_UNSPECIFIED, pb.SEAT_KIND_HUMAN):
            fill = "reaction"
        info = await self.app.lobby.start_table(_token(context), request.game_id, fill)
        return pb.StartTableResponse(table=_table(info))

    async def abort_game(
        self, request: pb.AbortGameRequest, context: Context
    ) -> pb.AbortGameResponse:
        info = await self.app.lobby.abort(
            _token(context), request.game_id, _metadata(context, ADMIN_KEY_HEADER)
        )
        return pb.AbortGameResponse(table=_table(info))

    async def get_table(self, request: pb.GetTableRequest, context: Context) -> pb.GetTableResponse:
        info = await self.app.lobby.table(_token(context), request.game_id)
        return pb.GetTableResponse(table=_table(info))

    async def list_tables(
        self, request: pb.ListTablesRequest, context: Context
    ) -> pb.ListTablesResponse:
        page = await self.app.lobby.list_tables(request.game, request.page_size, request.page_token)
        return pb.ListTablesResponse(
            tables=[_table(t) for t in page.tables], next_page_token=page.next_page_token
        )

    async def watch_table(
        self, request: pb.WatchTableRequest, context: Context
    ) -> pb.WatchTableResponse:
        token = await self.app.lobby.watch(request.game_id)
        return pb.WatchTableResponse(spectator_token=token)

    async def list_my_games(
        self, request: pb.ListMyGamesRequest, context: Context
    ) -> pb.ListMyGamesResponse:
        games = await self.app.lobby.my_games(list(request.tokens))
        return pb.ListMyGamesResponse(
            games=[pb.MyGame(viewer=v, table=_table(t)) for v, t in games]
        )


_KIND_OF: Final = {
    "human": pb.SEAT_KIND_HUMAN,
    "random": pb.SEAT_KIND_RANDOM_BOT,
    "reaction": pb.SEAT_KIND_REACTION_BOT,
}
_OPEN_OF: Final = {
    "": pb.SEAT_OPEN_UNSPECIFIED,
    "invite": pb.SEAT_OPEN_INVITE,
    "anyone": pb.SEAT_OPEN_ANYONE,
}
_SEAT_OPENS: Final = {v: k for k, v in _OPEN_OF.items()}


def _table(info: TableInfo) -> pb.TableInfo:
    msg = pb.TableInfo(
        game_id=info.game_id,
        game=info.game,
        status=info.status,
        seats=[
            pb.TableSeat(
                seat=s.seat,
                kind=_KIND_OF.get(s.kind, pb.SEAT_KIND_UNSPECIFIED),
                open=_OPEN_OF.get(s.open, pb.SEAT_OPEN_UNSPECIFIED),
                taken=s.taken,
                present=s.present,
            )
            for s in info.seats
        ],
        created_ms=info.created_ms,
        deadline_ms=info.deadline_ms,
        public=info.public,
        seed_commitment=info.seed_commitment,
        rules_json=codec.canonical_text(info.rules),
        seq=info.seq,
    )
    if info.outcome is not None:
        msg.outcome.CopyFrom(_outcome(info.outcome))
    return msg


def _command(value: pb.GameValue) -> JsonObject | Unreadable:
    """A command's JSON object, ``kind`` included: ``json`` names it, or ``kind`` alone does,
    or both the same."""
    data = read_json_object(value.json, "command.json")
    if isinstance(data, Unreadable) or not value.kind:
        return data
    if data.get(codec.KIND, value.kind) != value.kind:
        return Unreadable(invalid("command.kind", "differs from the kind in command.json"))
    data.setdefault(codec.KIND, value.kind)
    return data


def _parse(request_type: type[M], raw: bytes) -> M:
    """The decode guard: any parse failure is INVALID_ARGUMENT naming the message type."""
    try:
        return request_type.FromString(raw)
    except Exception:  # protobuf raises DecodeError, RuntimeError or others on garbage
        raise invalid("request", f"not a valid {request_type.DESCRIPTOR.full_name}") from None


def _is_abort(exc: BaseException) -> bool:
    return isinstance(exc, grpc.aio.AbortError)


async def _abort(context: Context, err: ServiceError) -> None:
    grpc_code, _ = _CODES[err.status]
    await context.abort(
        grpc_code,
        err.message,
        trailing_metadata=(("grpc-status-details-bin", _status_details(err)),),
    )


def _request_line(fields: dict[str, Any], code: str, start: float) -> None:
    if not logs.requests_logged():
        return
    log.info(
        "request",
        code=code,
        duration_ms=round((time.perf_counter() - start) * 1000, 3),
        **fields,
    )


def service_names() -> Sequence[str]:
    return (pb.DESCRIPTOR.services_by_name["GameService"].full_name,)
