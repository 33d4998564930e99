"""The REST server: uvicorn on the gRPC server's event loop, its own listening socket, the h11
protocol under the connection bounds (:mod:`.protocol`), uvicorn's signal handling left to
:func:`cardcore_server.transports.server.serve`."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from dataclasses import dataclass
from typing import Any

import uvicorn

from ...app import Application
from ..connections import ACCEPT_BATCH, LISTEN_BACKLOG, ConnectionLimits
from .api import RestApi
from .channel import MAX_FRAME
from .problems import closing_answer
from .protocol import Connections

CHANNELS_CLOSE_S = 0.25
"""What a stop leaves of its grace period for play channels to send their 1001 after the
application's drain (``DRAIN_BEFORE_S`` before the end) has answered their last acts."""


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
    connections: Connections

    async def stop(self, grace_s: float = 5.0) -> None:
        """End open event streams (``closing``) and play channels (1001, once the acts they
        carry are answered), stop accepting, finish in-flight requests."""
        self.api.closing.set()
        # Before uvicorn's own shutdown, which would close the channels at once (1012): their
        # acts in flight are answered first (by their store, or by the app's drain just before
        # the grace period ends), then each closes with 1001.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace_s
        while self.connections.channels and loop.time() < deadline - CHANNELS_CLOSE_S:
            await asyncio.sleep(0.02)
        self.server.should_exit = True
        try:
            remaining = max(deadline - loop.time(), 0.0)
            await asyncio.wait_for(asyncio.shield(self.task), timeout=remaining + 1.0)
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
        closing_answer,
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
        # The play channel (.channel): websockets' sans-I/O protocol under the same bounds
        ws=connections.websocket_protocol(),
        ws_max_size=MAX_FRAME,
        ws_ping_interval=None,  # the channel pings itself, and times the answers
        ws_per_message_deflate=False,
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
    return RestServer(api, server, task, host, bound, connections)
