"""The REST listener's connections under :class:`.connections.ConnectionLimits`: uvicorn's h11
protocol with a connection cap, header and body deadlines, a stop that answers a request still
arriving at once (the why is in :mod:`..connections`), and no request whose framing is ambiguous."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

import h11
import structlog
from h11._connection import DEFAULT_MAX_INCOMPLETE_EVENT_SIZE  # as uvicorn itself does
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from ..connections import TIMED_OUT, ConnectionLimits

DIRECT: Final = "cardcore.direct"
"""The scope's extension holding the connection's :class:`GuardedWebSocketProtocol`: the play
channel (:mod:`.channel`) takes its frames and writes its own from there, once authenticated."""

log = structlog.get_logger("cardcore_server")

Answer = Callable[[int, str, str, str], bytes]
"""Builds a whole HTTP/1.1 response (status, problem code, detail, the field at fault or "")
that closes the connection."""

AMBIGUOUS_FRAMING: Final = (
    "Content-Length and Transfer-Encoding together: the body's length is ambiguous "
    "(RFC 9112 §6.3); send one of them"
)


class _AmbiguousFraming(Exception):
    """A request carries both ``Content-Length`` and ``Transfer-Encoding``."""


class _FramingConnection(h11.Connection):
    """h11, refusing a request that frames its body twice. h11 follows ``Transfer-Encoding``
    and keeps the connection, but a proxy in front may have followed ``Content-Length``: the
    two then disagree on where the next request starts (request smuggling), so RFC 9112 §6.3
    says the connection must be closed after answering; this one is never served at all."""

    def next_event(self) -> Any:
        event = super().next_event()
        if isinstance(event, h11.Request):
            names = {name.lower() for name, _ in event.headers}
            if b"content-length" in names and b"transfer-encoding" in names:
                raise _AmbiguousFraming()
        return event


@dataclass
class Connections:
    """One REST listener's open connections and the bounds they live under."""

    limits: ConnectionLimits
    answer: Answer
    on_event: Callable[[str], None] = lambda _kind: None
    """Called with ``refused``, ``evicted``, ``header_timeout``, ``body_timeout`` or
    ``ambiguous_framing`` (metrics)."""
    open: dict[GuardedH11Protocol, None] = field(default_factory=dict)
    waiting: dict[GuardedH11Protocol, None] = field(default_factory=dict)
    """Open connections with no request in progress, longest waiting first: the ones the cap
    closes to make room."""
    channels: dict[GuardedWebSocketProtocol, None] = field(default_factory=dict)
    """Connections upgraded to a WebSocket (play channels): they count against the cap, and
    are never closed to make room (each is a player at a table)."""
    _noted: dict[str, int] = field(default_factory=dict)
    _noted_at: float = 0.0

    def protocol(self) -> type[H11Protocol]:
        """The protocol class for uvicorn's ``Config(http=...)``, bound to this listener."""
        return type("GuardedH11Protocol", (GuardedH11Protocol,), {"listener": self})

    def websocket_protocol(self) -> type[WebSocketsSansIOProtocol]:
        """The protocol class for uvicorn's ``Config(ws=...)``, bound to this listener."""
        return type("GuardedWebSocketProtocol", (GuardedWebSocketProtocol,), {"listener": self})

    def admit(self, newcomer: GuardedH11Protocol) -> bool:
        """Make room for ``newcomer`` (closing the longest-waiting idle connection) or refuse."""
        if len(self.open) + len(self.channels) >= self.limits.max_connections:
            if not self.waiting:
                self.note("refused")
                return False
            oldest = next(iter(self.waiting))
            self.note("evicted")
            oldest.close_waiting()
        self.open[newcomer] = None
        return True

    def note(self, kind: str) -> None:
        """Count ``kind``; log the counts at most once a second (a flood writes a few lines,
        not one per socket)."""
        self.on_event(kind)
        self._noted[kind] = self._noted.get(kind, 0) + 1
        now = time.monotonic()
        if now - self._noted_at >= 1.0:
            log.info("connections_bounded", open=len(self.open), **self._noted)
            self._noted.clear()
            self._noted_at = now


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol under a :class:`Connections` listener's bounds."""

    listener: ClassVar[Connections]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        size = self.config.h11_max_incomplete_event_size
        self.conn = _FramingConnection(
            h11.SERVER, DEFAULT_MAX_INCOMPLETE_EVENT_SIZE if size is None else size
        )
        self._deadline: asyncio.TimerHandle | None = None
        self._deadline_phase = ""
        self._received_any = False
        self._upgraded = False
        """Handed over to the WebSocket protocol: no HTTP deadline or answer of this one may
        touch the connection any more."""

    # ------------------------------------------------------------------ uvicorn's hooks

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if not self.listener.admit(self):
            self._answer_and_close(503, "TooManyConnections", "too many connections; retry")
            return
        self._track()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self.listener.open.pop(self, None)
        self.listener.waiting.pop(self, None)
        super().connection_lost(exc)

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        # The connection becomes a play channel: the WebSocket protocol counts it from now on,
        # and no HTTP deadline runs on it any more (one armed later would write an HTTP 408
        # into the WebSocket's stream).
        self._upgraded = True
        self._disarm()
        self.listener.open.pop(self, None)
        self.listener.waiting.pop(self, None)
        super().handle_websocket_upgrade(event)
        # uvicorn hands the WebSocket protocol the request's head only: frames a client sent
        # right behind it, before the 101 came back, would be lost. They go on too.
        early, _ = self.conn.trailing_data
        if early:
            upgraded = self.transport.get_protocol()
            assert isinstance(upgraded, asyncio.Protocol)
            upgraded.data_received(bytes(early))

    def data_received(self, data: bytes) -> None:
        self._received_any = True
        super().data_received(data)
        self._track()

    def handle_events(self) -> None:
        try:
            super().handle_events()
        except _AmbiguousFraming:
            self.listener.note("ambiguous_framing")
            self._answer_and_close(400, "Malformed", AMBIGUOUS_FRAMING, "Transfer-Encoding")

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._received_any = False  # uvicorn's keep-alive timer watches the idle connection
        self._track()

    def shutdown(self) -> None:
        if self._arriving():
            # The request will not be complete before the stop: say so now, retryably.
            self._answer_and_close(503, "ShuttingDown", "the server is stopping; retry")
            return
        super().shutdown()

    # ------------------------------------------------------------------ the bounds

    def _arriving(self) -> bool:
        """Still sending its headers, or its body."""
        state = self.conn.their_state
        return (state is h11.IDLE and self._received_any) or state is h11.SEND_BODY

    def _busy(self) -> bool:
        return self.cycle is not None and not self.cycle.response_complete

    def _track(self) -> None:
        if self._upgraded:
            return
        """Follow the request's phase: which deadline runs, and whether the cap may close this
        connection to make room."""
        if self.transport is None or self.transport.is_closing():
            return
        state = self.conn.their_state
        waiting = self.listener.waiting
        if state is h11.IDLE and not self._busy():
            if self not in waiting:
                waiting[self] = None
            fresh = self.cycle is None  # uvicorn arms no keep-alive timer before a request
            if self._received_any or fresh:
                self._arm("header", self.listener.limits.header_timeout_s)
            else:
                self._disarm()
            return
        waiting.pop(self, None)
        if state is h11.SEND_BODY:
            self._arm("body", self.listener.limits.body_timeout_s)
        else:
            self._disarm()

    def _arm(self, phase: str, seconds: float) -> None:
        if self._deadline is not None and self._deadline_phase == phase:
            return  # counts from the start of the phase, not from the latest byte
        self._disarm()
        self._deadline_phase = phase
        self._deadline = self.loop.call_later(seconds, self._expired, phase)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = None
        self._deadline_phase = ""

    def _expired(self, phase: str) -> None:
        self._deadline = None
        if self._upgraded:
            return
        if self.transport.is_closing():
            return
        self.listener.note(f"{phase}_timeout")
        if phase == "header" and not self._received_any:
            self.transport.close()  # it never said anything: nothing to answer
            return
        what = "headers" if phase == "header" else "body"
        self._answer_and_close(408, "RequestTimeout", f"the request's {what} took too long")

    def close_waiting(self) -> None:
        """Closed to make room for a newer connection (the cap)."""
        self.listener.waiting.pop(self, None)
        if self._received_any:
            self._answer_and_close(503, "TooManyConnections", "too many connections; retry")
        else:
            self.transport.close()

    def _answer_and_close(self, status: int, code: str, detail: str, field: str = "") -> None:
        """Answer outside h11 (it may not let a server answer before a request) and close; an
        application still reading the body sees ``http.disconnect``, marked as ours."""
        self._disarm()
        self.listener.waiting.pop(self, None)
        if self.cycle is not None and not self.cycle.response_complete:
            self.cycle.scope["state"][TIMED_OUT] = status
            if self.cycle.response_started:
                self.transport.close()  # a response is under way: it cannot be replaced
                return
        if not self.transport.is_closing():
            self.transport.write(self.listener.answer(status, code, detail, field))
            self.transport.close()


class GuardedWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol, counted against its :class:`Connections` listener's cap,
    and able to cut off a client that reads nothing (the scope's ``cardcore.abort``)."""

    listener: ClassVar[Connections]

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.listener.channels[self] = None

    def connection_lost(self, exc: Exception | None) -> None:
        self.listener.channels.pop(self, None)
        super().connection_lost(exc)

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        extensions: dict[str, Any] = self.scope["extensions"]
        extensions[DIRECT] = self

    # ------------------------------------------------------------------ the direct path
    #
    # ASGI hands an application one message at a time: uvicorn queues each frame, stops
    # reading the socket until the application takes it (two epoll_ctl calls a frame), and
    # each send is a coroutine of its own. A play channel exchanges a few small frames per
    # action, so once it is authenticated it takes its frames from here as they are parsed and
    # writes its own, with TCP (and :meth:`hold_reading`) as the only flow control.

    receiver: Callable[[str], None] | None = None

    def attach(self, receiver: Callable[[str], None]) -> None:
        """From now on each text message goes to ``receiver`` as it is parsed (binary messages
        and the close still reach the application through ASGI)."""
        self.receiver = receiver

    def send_receive_event_to_app(self) -> None:
        receiver = self.receiver
        if receiver is None or self.close_sent or self.curr_msg_data_type != "text":
            super().send_receive_event_to_app()
            return
        data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
        self.frames = []
        receiver(data.decode())  # websockets has checked that a text frame is UTF-8

    def hold_reading(self, hold: bool) -> None:
        """Stop (or go on) reading the socket: the channel has as many requests in flight as
        it takes."""
        if hold != self.read_paused and not self.transport.is_closing():
            self.read_paused = hold
            if hold:
                self.transport.pause_reading()
            else:
                self.transport.resume_reading()

    def write_now(self, frames: Sequence[bytes]) -> bool:
        """Write ``frames`` (UTF-8 JSON) as text frames in one write if the transport takes
        more now; ``False`` if it is full (then :meth:`send_texts`)."""
        if self.disconnected or self.close_sent or self.transport.is_closing():
            raise ClientDisconnected()
        if not self.writable.is_set():
            return False
        for frame in frames:
            self.conn.send_text(frame)
        self.transport.write(b"".join(self.conn.data_to_send()))
        return True

    async def send_texts(self, frames: Sequence[bytes]) -> None:
        """:meth:`write_now` once the transport takes more."""
        while not self.write_now(frames):
            await self.writable.wait()

    def abort(self) -> None:
        """Cut the connection off (a client that reads nothing, not even its close frame)."""
        self.transport.abort()
