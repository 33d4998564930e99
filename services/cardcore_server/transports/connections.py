"""What a connection may cost the server: how many may be open, how long a request may take to
arrive, and what a stop does to one still arriving (issue 13, faults 5–7).

uvicorn's h11 protocol bounds none of these. A socket that sends nothing, a request line sent a
byte at a time, or a body that never ends holds its connection, and a file descriptor, for ever;
enough of them take the process to its descriptor limit, after which no one is served. And a
stop waits its whole grace period for a request that will never be complete. This module is the
one place where the REST listener's connections are bounded: the h11 protocol with

* **a cap on open connections**: at the cap, the connection that has waited longest with no
  request in progress (idle between requests, never sent one, or still sending its headers) is
  closed to make room. A flood of idle sockets therefore never keeps a real client out, and
  never reaches the descriptor limit. With no such connection to close, the newcomer gets a
  503 problem document and is closed;
* **a header deadline**: the request line and headers must arrive within it, counted from the
  connection (or from the first byte of the next request on a kept-alive connection). Past it
  the server answers 408 and closes; a connection that sent nothing at all is just closed;
* **a body deadline**: the body must arrive within it, counted from the end of the headers. Past
  it the server answers 408 and closes;
* **at stop**: a connection still sending its request gets 503 (``Retry-After``) and is closed
  at once. Requests already received run to their end within the grace period, as before.

The limits and the descriptor budget are here; the REST listener's protocol is in
:mod:`.rest.protocol` (it needs uvicorn); gRPC gets the same bounds from gRPC core's own options
(:func:`grpc_options`).
"""

from __future__ import annotations

import resource
from dataclasses import dataclass, replace
from typing import Final

import structlog

log = structlog.get_logger("cardcore_server")

FD_RESERVE: Final = 256
"""Descriptors kept for everything but client connections: the store, log files, the
listening sockets, gRPC core's own pipes and timers."""

ACCEPT_BATCH: Final = 32
"""How many sockets asyncio accepts from the REST listener in one wake-up (asyncio takes this
from the ``backlog`` it is given). The cap can only close a connection once its protocol exists,
two loop turns after the accept, and the socket it closes is released one turn later, so under a
flood about three batches are open beyond the cap: they must fit in :data:`FD_RESERVE`. With
uvicorn's default (2048), one burst took a 512-descriptor process past its limit before the cap
could close any."""

LISTEN_BACKLOG: Final = 1024
"""The kernel's queue of connections not yet accepted, set apart from :data:`ACCEPT_BATCH` (a
short queue would drop the SYNs of a legitimate burst, costing each a one-second retransmit)."""

assert 3 * ACCEPT_BATCH < FD_RESERVE // 2

TIMED_OUT: Final = "cardcore.timed_out"
"""Key in a request's ASGI ``scope["state"]`` set when this module ended the request (its body
deadline passed, or the server stopped while it arrived): the application's answer to the
``http.disconnect`` that follows is then not a client's hang-up."""


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    """The bounds of each listener (gRPC and REST count their connections separately)."""

    max_connections: int = 4096
    header_timeout_s: float = 10.0
    """Request line and headers, from the connection (REST); the TLS and HTTP/2 handshake up to
    the client's first SETTINGS frame (gRPC)."""
    body_timeout_s: float = 30.0
    """The whole body, from the end of its headers (REST; gRPC messages are bounded in size)."""

    def __post_init__(self) -> None:
        if self.max_connections < 1:
            raise ValueError("--max-connections must be at least 1")
        if self.header_timeout_s <= 0 or self.body_timeout_s <= 0:
            raise ValueError("--header-timeout and --body-timeout must be positive")


def fit_descriptors(limits: ConnectionLimits, listeners: int) -> ConnectionLimits:
    """Raise this process's soft descriptor limit to its hard limit, then lower
    ``max_connections`` if ``listeners`` listeners at the cap would still not fit in it (with
    :data:`FD_RESERVE` to spare): the cap, not the kernel, must be what refuses a connection."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    fits = max((soft - FD_RESERVE) // max(listeners, 1), 1)
    if limits.max_connections <= fits:
        return limits
    log.warning(
        "max_connections_lowered",
        asked=limits.max_connections,
        now=fits,
        descriptor_limit=soft,
        why="the process may not open that many descriptors (ulimit -n)",
    )
    return replace(limits, max_connections=fits)


def grpc_options(limits: ConnectionLimits) -> list[tuple[str, int]]:
    """gRPC core's equivalents: its own cap (enforced before any handshake, so raw sockets
    count) and a handshake deadline (a socket that never sends the HTTP/2 preface is closed)."""
    return [
        ("grpc.max_allowed_incoming_connections", limits.max_connections),
        ("grpc.server_handshake_timeout_ms", int(limits.header_timeout_s * 1000)),
    ]
