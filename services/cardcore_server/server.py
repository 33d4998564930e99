"""Run the gRPC server: application + store + ``GameService`` + health + reflection.

:func:`serve` rebuilds every unfinished game from the store before it starts listening, announces
``cardcore serving on HOST:PORT`` on stdout once it accepts calls, and on SIGTERM/SIGINT stops
gracefully: health turns NOT_SERVING, new calls are refused, in-flight calls get ``grace``
seconds, timers stop, every enqueued write is committed, the store is closed.
"""

from __future__ import annotations

import asyncio
import ipaddress
import signal
import sys
from dataclasses import dataclass

import grpc
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from .app import Application, ServiceConfig
from .grpc_api import SERVICE_NAME, GameServiceHandlers
from .store import SqliteStore

log = structlog.get_logger("cardcore_server")

MAX_MESSAGE: int = 4 * 1024 * 1024


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
    grace_s: float = 5.0
    config: ServiceConfig = ServiceConfig()


class Running:
    """A started server (for in-process use by the demo and tests)."""

    def __init__(
        self,
        server: grpc.aio.Server,
        app: Application,
        health_servicer: health.aio.HealthServicer,
        port: int,
    ) -> None:
        self.server = server
        self.app = app
        self.health = health_servicer
        self.port = port

    async def stop(self, grace_s: float = 5.0) -> None:
        await self.health.enter_graceful_shutdown()
        self.app.closing = True
        await self.server.stop(grace_s)
        await self.app.close()
        log.info("stopped")


async def start(options: ServerOptions) -> Running:
    if not is_loopback(options.host) and options.config.admin_key is None:
        raise ValueError(
            f"binding {options.host} (beyond loopback) needs an admin key: --admin-key or "
            "CARDCORE_ADMIN_KEY"
        )
    app = Application(SqliteStore(options.db), options.config)
    rebuilt = await app.start()
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE),
            ("grpc.max_send_message_length", MAX_MESSAGE),
            ("grpc.so_reuseport", 0),
        ]
    )
    server.add_generic_rpc_handlers((GameServiceHandlers(app).generic_handler(),))
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    port = server.add_insecure_port(f"{options.host}:{options.port}")
    if port == 0:
        await app.close()
        raise OSError(f"cannot bind {options.host}:{options.port}")
    await server.start()
    for name in ("", SERVICE_NAME):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    log.info("listening", host=options.host, port=port, rebuilt_games=rebuilt)
    return Running(server, app, health_servicer, port)


async def serve(options: ServerOptions) -> int:
    """Serve until SIGTERM or SIGINT; returns the exit status."""
    running = await start(options)
    print(f"cardcore serving on {options.host}:{running.port}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("shutting_down", grace_s=options.grace_s)
    await running.stop(options.grace_s)
    sys.stdout.flush()
    return 0
