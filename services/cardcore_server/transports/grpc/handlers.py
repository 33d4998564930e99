"""The gRPC transport (``grpc.aio``): ``cardcore.v1.GameService`` over the application. Each RPC
converts its request (:mod:`.convert`), delegates to the application and converts the answer;
errors go out rich (:mod:`.status`).

Handlers receive the raw request bytes and parse them themselves (the *decode guard*): a
request that is not a valid message gets ``INVALID_ARGUMENT`` with a ``BadRequest``, never
``UNKNOWN``/``INTERNAL`` nor the parser's own text. One log line per request.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, Final, TypeVar

import grpc
import structlog
from google.protobuf import message

from cardcore_proto import game_service_pb2 as pb

from ... import logs
from ...app import Application, request_fields
from ...errors import Reason, ServiceError, Status, invalid
from ...limits import TrustedProxies
from . import convert
from .play import PlayCall, read_open
from .status import abort, is_abort

SERVICE_NAME: Final = "cardcore.v1.GameService"
ADMIN_KEY_HEADER: Final = "x-cardcore-admin-key"

log = structlog.get_logger("cardcore_server")

M = TypeVar("M", bound=message.Message)


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
        self._catalogue: pb.ListGamesResponse | None = None

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

    def _admit(self, context: Context) -> None:
        """The rate limits (per bearer token and client address), before any work."""
        limits = self.app.limits
        if limits.on:
            limits.admit(_token(context), _client_address(context, self.app.proxies))

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
                "RevealEntropy": unary(
                    self._unary("RevealEntropy", pb.RevealEntropyRequest, self.reveal_entropy)
                ),
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
                "Play": grpc.stream_stream_rpc_method_handler(self._play),
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
                self._admit(context)
                request = _parse(request_type, raw)
                response = await impl(request, context)
                return response if isinstance(response, bytes) else response.SerializeToString()
            except ServiceError as err:
                code = err.status.value
                fields.setdefault("reason", err.reason)
                await abort(context, err)
                raise  # unreachable: abort raises
            except Exception as exc:
                if is_abort(exc):
                    raise
                code = "INTERNAL"
                log.exception("internal_error", rpc=name)
                await abort(
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
            self._admit(context)
            request = _parse(pb.StreamEventsRequest, raw)
            fields["from_seq"] = request.from_seq
            batches = await self.app.stream(_token(context), request.game_id, request.from_seq)
            async for batch in batches:
                sent += len(batch.entries)
                yield convert.stream_response(batch)
        except ServiceError as err:
            code = err.status.value
            fields.setdefault("reason", err.reason)
            await abort(context, err)
        except (GeneratorExit, asyncio.CancelledError):
            code = "CANCELLED"  # the client went away mid-stream: its line says so, not OK
            raise
        except Exception as exc:
            if is_abort(exc):
                raise
            code = "INTERNAL"
            log.exception("internal_error", rpc="StreamEvents")
            await abort(context, ServiceError(Status.INTERNAL, Reason.INTERNAL, "internal error"))
        finally:
            self.running -= 1
            fields["entries"] = sent
            self.app.metrics.request("grpc", "StreamEvents", code, time.perf_counter() - start)
            _request_line(fields, code, start)
            request_fields.set(previous)

    async def _play(self, requests: AsyncIterator[bytes], context: Context) -> AsyncIterator[bytes]:
        """``Play`` (:mod:`.play`): authenticated once, at its ``open``; its errors end the
        call as a unary call's would, and each act gets a log line of its own."""
        fields: dict[str, Any] = {"rpc": "Play"}
        previous = request_fields.get()  # set back, not reset: see _stream_events
        request_fields.set(fields)
        start = time.perf_counter()
        code = "OK"
        call: PlayCall | None = None
        self._began()
        try:
            self._admit(context)
            opened = await read_open(requests)
            fields["from_seq"] = opened.from_seq
            channel = await self.app.open_channel(_token(context), opened.game_id)
            gauge = self.app.metrics.play_channels.labels("grpc")
            gauge.inc()
            try:
                call = PlayCall(channel, requests, opened.from_seq, self._act_done)
                async with contextlib.aclosing(call.responses()) as responses:
                    async for data in responses:
                        yield data
            finally:
                channel.close()
                gauge.dec()
        except ServiceError as err:
            code = err.status.value
            fields.setdefault("reason", err.reason)
            await abort(context, err)
        except (GeneratorExit, asyncio.CancelledError):
            code = "CANCELLED"
            raise
        except Exception as exc:
            if is_abort(exc):
                raise
            code = "INTERNAL"
            log.exception("internal_error", rpc="Play")
            await abort(context, ServiceError(Status.INTERNAL, Reason.INTERNAL, "internal error"))
        finally:
            self.running -= 1
            if call is not None:
                fields["entries"], fields["acts"] = call.entries, call.acts
            self.app.metrics.request("grpc", "Play", code, time.perf_counter() - start)
            _request_line(fields, code, start)
            request_fields.set(previous)

    def _act_done(self, fields: dict[str, Any], code: str, start: float) -> None:
        """An act of a ``Play`` call was answered: its own line and metrics, as a request's."""
        self.app.metrics.request("grpc", "Play.act", code, time.perf_counter() - start)
        _request_line(fields, code, start)

    # ------------------------------------------------------------------ the RPCs

    async def list_games(
        self, request: pb.ListGamesRequest, context: Context
    ) -> pb.ListGamesResponse:
        if self._catalogue is None:  # rendered once: the catalogue and the key never change
            self._catalogue = convert.catalogue(self.app.list_games(), self.app.server_key)
        return self._catalogue

    async def create_game(
        self, request: pb.CreateGameRequest, context: Context
    ) -> pb.CreateGameResponse:
        made = await self.app.create_game(
            convert.game_spec(request),
            _metadata(context, ADMIN_KEY_HEADER),
            _metadata(context, "authorization"),
        )
        return convert.created(made)

    async def submit_action(self, request: pb.SubmitActionRequest, context: Context) -> bytes:
        result = await self.app.submit(
            _token(context),
            request.game_id,
            convert.command(request.command),
            action_id=request.action_id,
            as_seat=request.as_seat if request.HasField("as_seat") else None,
        )
        return convert.submitted(result)

    async def get_view(self, request: pb.GetViewRequest, context: Context) -> pb.GetViewResponse:
        return convert.game_view(await self.app.view(_token(context), request.game_id))

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
            bytes(request.entropy_commitment),
        )
        return pb.JoinTableResponse(
            game_id=joined.game_id, seat=joined.seat, token=joined.token, status=joined.status
        )

    async def reveal_entropy(
        self, request: pb.RevealEntropyRequest, context: Context
    ) -> pb.RevealEntropyResponse:
        info = await self.app.lobby.reveal(_token(context), request.game_id, bytes(request.entropy))
        return pb.RevealEntropyResponse(table=convert.table(info))

    async def start_table(
        self, request: pb.StartTableRequest, context: Context
    ) -> pb.StartTableResponse:
        fill = convert.fill_with(request)
        info = await self.app.lobby.start_table(_token(context), request.game_id, fill)
        return pb.StartTableResponse(table=convert.table(info))

    async def abort_game(
        self, request: pb.AbortGameRequest, context: Context
    ) -> pb.AbortGameResponse:
        info = await self.app.lobby.abort(
            _token(context), request.game_id, _metadata(context, ADMIN_KEY_HEADER)
        )
        return pb.AbortGameResponse(table=convert.table(info))

    async def get_table(self, request: pb.GetTableRequest, context: Context) -> pb.GetTableResponse:
        info = await self.app.lobby.table(_token(context), request.game_id)
        return pb.GetTableResponse(table=convert.table(info))

    async def list_tables(
        self, request: pb.ListTablesRequest, context: Context
    ) -> pb.ListTablesResponse:
        page = await self.app.lobby.list_tables(request.game, request.page_size, request.page_token)
        return pb.ListTablesResponse(
            tables=[convert.table(t) for t in page.tables], next_page_token=page.next_page_token
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
            games=[pb.MyGame(viewer=v, table=convert.table(t)) for v, t in games]
        )


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


def _parse(request_type: type[M], raw: bytes) -> M:
    """The decode guard: any parse failure is INVALID_ARGUMENT naming the message type."""
    try:
        return request_type.FromString(raw)
    except Exception:  # protobuf raises DecodeError, RuntimeError or others on garbage
        raise invalid("request", f"not a valid {request_type.DESCRIPTOR.full_name}") from None


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
