"""Run the gRPC server: application + store + ``GameService`` + health + reflection, and the
REST API (:mod:`.rest`) on the same application, in the same process and event loop.

:func:`serve` rebuilds every unfinished game from the store before it starts listening, announces
``cardcore serving on HOST:PORT`` on stdout once it accepts calls (then ``cardcore REST on
http://HOST:PORT`` when REST is on), and on SIGTERM/SIGINT stops gracefully: health turns
NOT_SERVING, new calls are refused (each by its handler, ``UNAVAILABLE`` ``ShuttingDown``: gRPC
stops only once no call comes for a moment, as it would cancel those it holds), open event
streams end, in-flight calls get ``grace`` seconds, timers stop, every enqueued write is
committed, the store is closed.
"""

from __future__ import annotations

import asyncio
import errno
import ipaddress
import signal
import socket
import sys
from dataclasses import dataclass

import grpc
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

import cardcore

from ..app import Application, ServiceConfig
from ..store import open_store
from .connections import ConnectionLimits, fit_descriptors, grpc_options
from .grpc import SERVICE_NAME, GameServiceHandlers
from .rest import RestServer, start_rest

log = structlog.get_logger("cardcore_server")

MAX_MESSAGE: int = 4 * 1024 * 1024
MAX_PENDING_CALLS: int = 20_000
"""Calls gRPC core holds for the handlers before it refuses more. Its defaults (1,000, then
3,000 at most) answer a burst beyond them ``CANCELLED`` without reaching a handler: a reconnect
storm after a restart (every client resubmitting, every stream resuming at once) would lose
hundreds of calls. A pending call costs a few KiB; past twice this many gRPC core refuses with
``RESOURCE_EXHAUSTED``."""
MAX_PENDING_S: int = 300
"""How long gRPC core holds a call for the handlers before it cancels it. Its default, 30 s,
answered ``CANCELLED`` the calls of a 3,000-call burst that a busy machine's server had not
reached in that time (1,131 of them, reproduced with the test under eight busy loops): calls
the server would have served. Held longer, a call is served, or ends when its caller's own
deadline says (``DEADLINE_EXCEEDED``, the caller's choice); the pending calls are still bounded
in number (:data:`MAX_PENDING_CALLS`)."""


DRAIN_BEFORE_S: float = 0.5
"""How long before the end of the grace period the actions still in flight are answered
``UNAVAILABLE`` (their calls then end with that answer, not ``CANCELLED``)."""
QUIET_S: float = 0.05
"""At a stop, gRPC goes on handing calls to their handlers (which refuse them
``ShuttingDown``) until none has arrived for this long and none is running."""
REFUSING_S: float = 0.5
"""... but for this long at most: clients that retry without a pause do not hold the stop."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True, slots=True)
class ServerOptions:
    host: str = "127.0.0.1"
    port: int = 50051
    db: str = "cardcore.db"
    """A SQLite file (``sqlite:PATH`` or a plain path) or a ``postgresql://`` URL."""
    grace_s: float = 5.0
    config: ServiceConfig = ServiceConfig()
    rest_port: int | None = None
    """The REST API's port on the same host (0 = any free port); ``None`` = no REST.
    ``cardcore serve`` turns it on by default (see :mod:`.cli`)."""
    tls_cert: str | None = None
    """A PEM certificate chain: gRPC and REST are served over TLS (with :attr:`tls_key`)."""
    tls_key: str | None = None
    limits: ConnectionLimits = ConnectionLimits()
    """Each listener's connection cap and request deadlines (:mod:`.connections`)."""


class Running:
    """A started server (for in-process use by the demo and tests)."""

    def __init__(
        self,
        server: grpc.aio.Server,
        app: Application,
        health_servicer: health.aio.HealthServicer,
        port: int,
        rest: RestServer | None = None,
        *,
        handlers: GameServiceHandlers | None = None,
    ) -> None:
        self.server = server
        self.app = app
        self.handlers = handlers
        self.health = health_servicer
        self.port = port
        self.rest = rest
        self.rest_port = rest.port if rest is not None else None

    async def stop(self, grace_s: float = 5.0) -> None:
        await self.health.enter_graceful_shutdown()
        self.app.begin_shutdown()
        # In-flight calls get the grace period; just before it ends, every action still waiting
        # is answered UNAVAILABLE (retryable) instead of being cancelled with its call.
        drain = asyncio.get_running_loop().call_later(
            max(grace_s - DRAIN_BEFORE_S, 0), self.app.drain_all
        )
        try:
            if self.rest is not None:
                await asyncio.gather(self._stop_grpc(grace_s), self.rest.stop(grace_s))
            else:
                await self._stop_grpc(grace_s)
        finally:
            drain.cancel()
        await self.app.close()
        log.info("stopped")

    async def _stop_grpc(self, grace_s: float) -> None:
        """Every call that reached the server gets an answer of ours: the calls gRPC core
        holds are handed to their handlers (refused ``ShuttingDown``, each with its log line)
        and those running end, before gRPC stops, which would cancel them."""
        loop = asyncio.get_running_loop()
        began = loop.time()
        if self.handlers is not None:
            until = began + min(REFUSING_S, max(grace_s - DRAIN_BEFORE_S, 0))
            await self.handlers.settled(QUIET_S, until)
        await self.server.stop(max(grace_s - (loop.time() - began), 0))


class PortUnavailable(OSError):
    """A listener's address cannot be bound. Its text is the one line ``cardcore serve`` prints
    (exit 2): which listener and port, why, and the flag that changes it."""


def port_unavailable(
    listener: str, host: str, port: int, flag: str, exc: BaseException | None
) -> PortUnavailable:
    """The one wording of a failed bind, gRPC's and REST's alike."""
    where = f"{host}:{port}" if port else f"{host} (any free port)"
    if isinstance(exc, OSError) and exc.errno == errno.EADDRINUSE:
        return PortUnavailable(f"the {listener} port {where} is in use: choose another with {flag}")
    why = (exc.strerror if isinstance(exc, OSError) else None) or str(exc or "gRPC refused it")
    return PortUnavailable(f"cannot listen for {listener} on {where}: {why} (see --host, {flag})")


def bind_error(host: str, port: int) -> OSError | None:
    """Why ``host:port`` cannot be bound now, or ``None``. Asked before gRPC binds: gRPC core
    says only "Failed to bind" (after logging its own reason to stderr), never which errno."""
    try:
        found = socket.getaddrinfo(
            host.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except OSError as exc:  # an unknown host name
        return exc
    first: OSError | None = None
    for family, kind, proto, _, address in found:  # gRPC serves if any of them binds
        try:
            with socket.socket(family, kind, proto) as sock:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gRPC and REST
                sock.bind(address)
            return None
        except OSError as exc:  # in use, not this host's, or a family this host lacks
            first = first or exc
    return first


def _listeners(options: ServerOptions) -> list[tuple[str, int, str]]:
    rest = [] if options.rest_port is None else [("REST", options.rest_port, "--rest-port")]
    return [("gRPC", options.port, "--port"), *rest]


async def start(options: ServerOptions) -> Running:
    if not is_loopback(options.host) and options.config.admin_key is None:
        raise ValueError(
            f"binding {options.host} (beyond loopback) needs an admin key: --admin-key or "
            "CARDCORE_ADMIN_KEY"
        )
    tls = _tls(options)
    for listener, port, flag in _listeners(options):  # before the store opens and games rebuild
        if (exc := bind_error(options.host, port)) is not None:
            raise port_unavailable(listener, options.host, port, flag, exc)
    limits = fit_descriptors(options.limits, listeners=1 if options.rest_port is None else 2)
    app = Application(open_store(options.db), options.config)
    rebuilt = await app.start()
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE),
            ("grpc.max_send_message_length", MAX_MESSAGE),
            ("grpc.so_reuseport", 0),
            ("grpc.server.max_pending_requests", MAX_PENDING_CALLS),
            ("grpc.server.max_pending_requests_hard_limit", 2 * MAX_PENDING_CALLS),
            ("grpc.server_max_unrequested_time_in_server", MAX_PENDING_S),
            *grpc_options(limits),
        ]
    )
    handlers = GameServiceHandlers(app)
    server.add_generic_rpc_handlers((handlers.generic_handler(),))
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    address = f"{options.host}:{options.port}"
    try:
        if tls is not None:
            chain, key = (open(path, "rb").read() for path in tls)  # noqa: SIM115 — read once
            port = server.add_secure_port(address, grpc.ssl_server_credentials([(key, chain)]))
        else:
            port = server.add_insecure_port(address)
    except RuntimeError:  # taken since bind_error looked: gRPC tells no more than that
        port = 0
    if port == 0:
        await app.close()
        raise port_unavailable("gRPC", options.host, options.port, "--port", None)
    rest = None
    if options.rest_port is not None:
        try:
            rest = await start_rest(
                app, options.host, options.rest_port, options.grace_s, tls, limits=limits
            )
        except OSError as exc:
            await app.close()
            raise port_unavailable(
                "REST", options.host, options.rest_port, "--rest-port", exc
            ) from None
    await server.start()
    for name in ("", SERVICE_NAME):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    log.info(
        "listening",
        host=options.host,
        port=port,
        rest_port=rest.port if rest is not None else None,
        rebuilt_games=rebuilt,
        # Which build of the engine serves (docs/operations.md): the compiled one when its
        # wheel is installed, unless CARDCORE_PURE=1.
        engine="compiled" if cardcore.compiled else "pure",
    )
    return Running(server, app, health_servicer, port, rest, handlers=handlers)


def _tls(options: ServerOptions) -> tuple[str, str] | None:
    """The certificate and key paths, both or neither (checked readable before any binding)."""
    if (options.tls_cert is None) != (options.tls_key is None):
        raise ValueError("--tls-cert and --tls-key go together")
    if options.tls_cert is None or options.tls_key is None:
        return None
    for path in (options.tls_cert, options.tls_key):
        with open(path, "rb"):  # an OSError names the file: cardcore serve reports it
            pass
    return options.tls_cert, options.tls_key


async def serve(options: ServerOptions) -> int:
    """Serve until SIGTERM or SIGINT; returns the exit status."""
    running = await start(options)
    # Before the ready lines: a SIGTERM just after them stops gracefully too.
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    print(f"cardcore serving on {options.host}:{running.port}", flush=True)
    if running.rest is not None:
        host = f"[{options.host}]" if ":" in options.host else options.host
        scheme = "https" if options.tls_cert else "http"
        print(f"cardcore REST on {scheme}://{host}:{running.rest.port}", flush=True)
    await stop.wait()
    log.info("shutting_down", grace_s=options.grace_s)
    await running.stop(options.grace_s)
    sys.stdout.flush()
    return 0
