"""The play channel over a WebSocket: ``/v1/games/{game_id}/play`` (docs/reference/
play-channel.md, the contract; :mod:`cardcore_server.app.channel`, what it carries).

One connection per player. The first frame authenticates (never the URL); from then on the
connection is one :class:`~cardcore_server.app.channel.PlayChannel` and four jobs share it:

* the **reader** decodes the client's frames (a frame that is not a known JSON object closes the
  connection with the code that says so) and starts each ``act`` as a task of its own, at most
  :data:`MAX_IN_FLIGHT` at once (then it stops reading: TCP pushes back on the client);
* the **entries** pump sends the durable entries from ``from_seq`` on, then ``end``;
* the **pinger** sends a ``ping`` every second and hands each answer's round trip to the channel;
* the **writer** is the only one that sends: every frame goes through one bounded queue
  (:class:`_Outbox`), so a client that stops reading is closed with 4409, never allowed to grow
  the server's memory.

Acks and rejections are made by the same application calls as ``SubmitAction``'s answers, and
entries by the same redaction as the event stream's: nothing here decides what a player sees.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Final

import msgspec
import structlog
from litestar import WebSocket, websocket
from litestar.datastructures import State
from uvicorn.protocols.utils import ClientDisconnected

from cardcore import codec

from ...app import Application, PlayChannel, StreamBatch
from ...app.roundtrips import PING_INTERVAL_S, ping_nonce
from ...errors import Reason, ServiceError, Status
from . import render
from .openapi import GameId
from .problems import problem_of
from .protocol import DIRECT, GuardedWebSocketProtocol

log = structlog.get_logger("cardcore_server")

MAX_FRAME: Final = 64 * 1024
"""The largest frame a client may send (uvicorn's ``ws_max_size``: above it, 1009)."""
SEND_QUEUE: Final = 64
"""Frames waiting for a client at most; past it the client is closed with 4409."""
SEND_STALL_S: Final = 10.0
"""How long the entries pump waits for room in the queue before it gives the client up."""
MAX_WRITE: Final = 32
"""Frames sent in one write at most."""
MAX_IN_FLIGHT: Final = 32
"""Acts of one connection being sequenced at once; past it the reader waits."""
PINGS_KEPT: Final = 16
"""Pings awaiting their pong at most (an older one's pong is ignored)."""
AUTH_TIMEOUT_S: Final = 10.0
"""The ``auth`` frame must arrive within this of the upgrade."""
SUBPROTOCOL: Final = "cardcore.v1"
"""Accepted when the client offers it (``Sec-WebSocket-Protocol``); none is required."""


class Close:
    """The closing codes of docs/reference/play-channel.md."""

    NORMAL: Final = 1000
    GOING_AWAY: Final = 1001
    UNSUPPORTED: Final = 1003
    INVALID: Final = 1007
    POLICY: Final = 1008
    INTERNAL: Final = 1011
    TRY_LATER: Final = 1013
    UNAUTHENTICATED: Final = 4401
    FORBIDDEN: Final = 4403
    NOT_FOUND: Final = 4404
    AUTH_TIMEOUT: Final = 4408
    FELL_BEHIND: Final = 4409
    UNAVAILABLE: Final = 4503


_CLOSE_FOR_STATUS: Final = {
    Status.UNAUTHENTICATED: Close.UNAUTHENTICATED,
    Status.PERMISSION_DENIED: Close.FORBIDDEN,
    Status.NOT_FOUND: Close.NOT_FOUND,
    Status.UNAVAILABLE: Close.UNAVAILABLE,
    Status.RESOURCE_EXHAUSTED: Close.TRY_LATER,
    Status.FAILED_PRECONDITION: Close.UNAVAILABLE,  # GameNotStarted: open again once dealt
    Status.INVALID_ARGUMENT: Close.INVALID,
    Status.INTERNAL: Close.INTERNAL,
}


# --------------------------------------------------------------------------- frames in


class _Frame(msgspec.Struct, tag_field="type", forbid_unknown_fields=True):
    pass


class Auth(_Frame, tag="auth"):
    token: Annotated[str, msgspec.Meta(max_length=1024)]
    from_seq: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)] = 0


class Act(_Frame, tag="act"):
    command: dict[str, Any]
    action_id: Annotated[str, msgspec.Meta(max_length=128)] = ""


class Pong(_Frame, tag="pong"):
    nonce: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)]


class AskView(_Frame, tag="view"):
    pass


_decode: Final = msgspec.json.Decoder(Auth | Act | Pong | AskView).decode


# --------------------------------------------------------------------------- frames out


class Ready(msgspec.Struct, tag_field="type", tag="ready"):
    game_id: str
    seat: int | None
    next_seq: int
    ping_interval_ms: int


class Ack(msgspec.Struct, tag_field="type", tag="ack"):
    action_id: str
    seq: int
    replayed: bool
    outcome: Any


class Rejected(msgspec.Struct, tag_field="type", tag="rejected"):
    action_id: str
    problem: Any


_encode: Final = msgspec.json.Encoder().encode


def _entry_frames(batch: StreamBatch) -> list[bytes]:
    frames = [b'{"type":"entry","entry":%s}' % render.entry_json(e) for e in batch.entries]
    if batch.outcome is not None:
        end = codec.canonical_bytes(batch.end) if batch.end is not None else b"null"
        outcome = _encode(render.outcome(batch.outcome))
        frames.append(b'{"type":"end","end":%s,"outcome":%s}' % (end, outcome))
    return frames


def _reason(text: str) -> str:
    """A close frame's reason: at most 123 bytes of UTF-8 (RFC 6455 §5.5)."""
    data = text.encode()
    return text if len(data) <= 123 else data[:120].decode(errors="ignore") + "..."


class _Closed(Exception):
    """The connection is closing: stop what you were doing."""


# --------------------------------------------------------------------------- the connection


class _Outbox:
    """Every frame a client gets: written at once while the connection takes them, else
    through one bounded queue and one writer (in order either way)."""

    def __init__(self, socket: WebSocket[Any, Any, Any], direct: GuardedWebSocketProtocol | None):
        self._socket = socket
        self._direct = direct
        self._queue: asyncio.Queue[bytes] = asyncio.Queue(SEND_QUEUE)
        self._writing = False
        """The writer holds frames taken from the queue and not yet written."""
        self._batch: list[bytes] = []
        """Frames made in this turn of the event loop, written together at its end."""
        self.close_code: int | None = None
        self.close_reason = ""
        self.done = asyncio.Event()
        """Set once the connection is to close (the writer then sends what is queued first,
        unless the client fell behind)."""

    def _written_now(self, frame: bytes) -> bool:
        """Taken to be written at the end of this turn of the event loop, with every frame
        made in it: an action's ack and its entry are made in the same turn, so they leave in
        one write (one system call). Only while nothing waits in the queue before it and the
        transport takes more; a batch is never over :data:`SEND_QUEUE` frames, and while one
        is open the queue stays empty, so frames leave in the order they were made."""
        if self._direct is None:
            return False
        if self._batch:
            if len(self._batch) < SEND_QUEUE:
                self._batch.append(frame)
                return True
            self._flush()  # written, or moved into the empty queue: this frame goes after
            return False
        if self._writing or not self._queue.empty() or not self._direct.writable.is_set():
            return False
        asyncio.get_running_loop().call_soon(self._flush)
        self._batch.append(frame)
        return True

    def _flush(self) -> None:
        frames, self._batch = self._batch, []
        if self._direct is None or not frames:
            return
        try:
            if self._direct.write_now(frames):
                return
        except ClientDisconnected:
            return  # the reader sees the client go
        for frame in frames:  # the transport filled up meanwhile: the writer takes them
            self._queue.put_nowait(frame)

    def offer(self, frame: bytes) -> None:
        """Send ``frame`` if there is room now, else drop it (a ping: the next one will do)."""
        if self.close_code is not None:
            return
        with contextlib.suppress(_Closed):
            if not self._written_now(frame) and not self._queue.full():
                self._queue.put_nowait(frame)

    async def put(self, frame: bytes) -> None:
        """Send ``frame``, waiting up to :data:`SEND_STALL_S` for room in the queue: a client
        that reads more slowly than it asks is slowed down; one that stops reading is closed
        with 4409."""
        if self.close_code is not None:
            raise _Closed()
        if self._written_now(frame):
            return
        try:
            self._queue.put_nowait(frame)
            return
        except asyncio.QueueFull:
            pass
        try:
            await asyncio.wait_for(self._queue.put(frame), SEND_STALL_S)
        except TimeoutError:
            self.fell_behind()
            raise _Closed() from None

    def fell_behind(self) -> None:
        self.close(Close.FELL_BEHIND, "fell behind: resume from the last seq you saw")
        while not self._queue.empty():  # what is queued will not be sent: free it now
            self._queue.get_nowait()

    def close(self, code: int, reason: str) -> None:
        """Close with ``code`` once what is queued is sent (the first reason given wins)."""
        if self.close_code is None:
            self.close_code, self.close_reason = code, _reason(reason)
            self.done.set()

    async def run(self) -> None:
        """The writer: send what is queued (all of it in one write) until the connection is
        to close and the queue is empty."""
        queue = self._queue
        send = self._direct.send_texts if self._direct is not None else self._one_by_one
        while True:
            if queue.empty():
                if self.close_code is not None:
                    return
                getter = asyncio.ensure_future(queue.get())
                closer = asyncio.ensure_future(self.done.wait())
                try:
                    await asyncio.wait((getter, closer), return_when=asyncio.FIRST_COMPLETED)
                finally:  # cancelled too (the client went): neither is left pending
                    closer.cancel()
                    if not getter.done():
                        getter.cancel()
                if getter.cancelled():
                    continue
                frames = [getter.result()]
            else:
                frames = [queue.get_nowait()]
            while not queue.empty() and len(frames) < MAX_WRITE:
                frames.append(queue.get_nowait())
            self._writing = True
            try:
                await send(frames)
            finally:
                self._writing = False

    async def _one_by_one(self, frames: Sequence[bytes]) -> None:
        for frame in frames:
            await self._socket.send_text(frame)


class SocketChannel:
    """One WebSocket play connection, from its upgrade to its close."""

    def __init__(
        self, socket: WebSocket[Any, Any, Any], app: Application, stopping: asyncio.Event
    ) -> None:
        self._socket = socket
        self._app = app
        self._stopping = stopping
        extensions: dict[str, Any] = dict(socket.scope.get("extensions") or {})
        direct = extensions.get(DIRECT)
        self._direct = direct if isinstance(direct, GuardedWebSocketProtocol) else None
        self._out = _Outbox(socket, self._direct)
        self._channel: PlayChannel | None = None
        self._acts: set[asyncio.Task[None]] = set()
        """Acts and view requests being answered (at most :data:`MAX_IN_FLIGHT`)."""
        self._held: deque[Act | AskView] = deque()
        """Requests read beyond that, waiting for one in flight to end (reading is held)."""
        self._pings: dict[int, float] = {}
        self._address = socket.client.host if socket.client else None

    async def run(self, game_id: str) -> None:
        offered = self._socket.headers.get("sec-websocket-protocol", "")
        accept = SUBPROTOCOL if SUBPROTOCOL in (p.strip() for p in offered.split(",")) else None
        await self._socket.accept(subprotocols=accept)
        writer = asyncio.ensure_future(self._out.run())
        gone = False
        try:
            opened = await self._open(game_id)
            if opened is not None:
                await self._serve(*opened)
        except _Disconnected:
            gone = True
        finally:
            await self._finish(writer, gone)

    async def _finish(self, writer: asyncio.Future[None], gone: bool) -> None:
        """Send what is queued, then the close frame (unless the client already went). A
        client that does not read even that is cut off (the transport aborted)."""
        self._out.close(Close.NORMAL, "")
        for task in self._acts:
            task.cancel()
        code = "client" if gone else str(self._out.close_code)
        self._app.metrics.play_closed.labels("websocket", code).inc()
        if gone:
            writer.cancel()
            return
        try:
            async with asyncio.timeout(SEND_STALL_S):
                with contextlib.suppress(Exception):
                    await writer
                await self._socket.close(
                    self._out.close_code or Close.NORMAL, self._out.close_reason
                )
        except (TimeoutError, Exception):
            writer.cancel()
            if self._direct is not None:
                self._direct.abort()

    async def _open(self, game_id: str) -> tuple[PlayChannel, int] | None:
        """Wait for ``auth``; the channel and the first seq wanted, or ``None`` (closing)."""
        try:
            async with asyncio.timeout(AUTH_TIMEOUT_S):
                frame = await self._frame()
        except TimeoutError:
            self._out.close(Close.AUTH_TIMEOUT, f"no auth frame within {AUTH_TIMEOUT_S:g} s")
            return None
        if frame is None:
            return None
        if not isinstance(frame, Auth):
            self._out.close(Close.POLICY, "the first frame must be auth")
            return None
        try:
            self._app.limits.admit(frame.token, self._address)
            channel = await self._app.open_channel(frame.token, game_id)
        except ServiceError as err:
            code = _CLOSE_FOR_STATUS.get(err.status, Close.INTERNAL)
            self._out.close(code, f"{err.reason}: {err.message}")
            return None
        ready = Ready(game_id, channel.seat, channel.next_seq, int(PING_INTERVAL_S * 1000))
        self._out.offer(_encode(ready))  # the first frame: the queue is empty
        return channel, frame.from_seq

    async def _serve(self, channel: PlayChannel, from_seq: int) -> None:
        gauge = self._app.metrics.play_channels.labels("websocket")
        gauge.inc()
        jobs = [
            asyncio.ensure_future(job)
            for job in (self._read(channel), self._entries(channel, from_seq), self._ping(channel))
        ]
        stop = asyncio.ensure_future(self._stopping.wait())
        closing = asyncio.ensure_future(self._out.done.wait())
        try:
            await asyncio.wait([*jobs, stop, closing], return_when=asyncio.FIRST_COMPLETED)
            if self._stopping.is_set():
                # Stopping: no new act is read; those in flight are answered, then 1001.
                jobs[0].cancel()
                if self._acts:
                    await asyncio.wait(self._acts)
                self._out.close(
                    Close.GOING_AWAY,
                    f"the server is stopping: resume from seq {channel.next_seq}",
                )
            errors = [j.exception() for j in jobs if j.done() and not j.cancelled()]
            for error in errors:
                if error is not None and not isinstance(error, _Disconnected | _Closed):
                    log.error("play_channel_failed", error=repr(error))
                    self._out.close(Close.INTERNAL, "internal error; resume")
        finally:
            stop.cancel()
            closing.cancel()
            for job in jobs:
                job.cancel()
            for job in jobs:
                with contextlib.suppress(BaseException):
                    await job
            channel.close()
            gauge.dec()
        if any(isinstance(e, _Disconnected) for e in errors):
            raise _Disconnected()

    # ------------------------------------------------------------------ reading

    async def _frame(self) -> Auth | Act | Pong | AskView | None:
        """The next frame through ASGI; ``None`` when it closed the connection (its code is
        set)."""
        text = await self._text()
        return None if text is None else self._parse(text)

    async def _text(self) -> str | None:
        """The next message through ASGI; ``None`` for a binary one, which closes."""
        message = await self._socket.receive()
        if message["type"] == "websocket.disconnect":
            raise _Disconnected()
        text = message.get("text")
        if not isinstance(text, str):
            self._out.close(Close.UNSUPPORTED, "frames are JSON text, never binary")
            return None
        return text

    def _parse(self, text: str) -> Auth | Act | Pong | AskView | None:
        """A frame's JSON as its frame; ``None`` when it is not one (the connection closes)."""
        try:
            frame: Auth | Act | Pong | AskView = _decode(text)
            return frame
        except msgspec.ValidationError as exc:
            self._out.close(Close.INVALID, f"invalid frame: {exc}")
        except msgspec.DecodeError:
            self._out.close(Close.INVALID, "a frame is one JSON object")
        return None

    async def _read(self, channel: PlayChannel) -> None:
        """Frames through ASGI: all of them until the channel takes them directly (then only a
        binary frame or the close come this way)."""
        self._channel = channel
        if self._direct is not None:
            self._direct.attach(self._on_text)
        while self._out.close_code is None:
            text = await self._text()
            if text is None:
                return
            self._on_text(text)

    def _on_text(self, text: str) -> None:
        """One frame of the client, as it is parsed."""
        if self._out.close_code is not None or self._channel is None:
            return
        frame = self._parse(text)
        if frame is None:
            return
        if isinstance(frame, Pong):
            sent = self._pings.pop(frame.nonce, None)
            if sent is not None:
                self._channel.round_trip(time.monotonic() - sent)
        elif isinstance(frame, Auth):
            self._out.close(Close.POLICY, "auth was already sent")
        elif len(self._acts) < MAX_IN_FLIGHT:
            self._start(frame)
        else:
            self._held.append(frame)
            if self._direct is not None:
                self._direct.hold_reading(True)

    def _start(self, frame: Act | AskView) -> None:
        assert self._channel is not None
        job = self._act(self._channel, frame) if isinstance(frame, Act) else self._view_of()
        task = asyncio.ensure_future(job)
        self._acts.add(task)
        task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task[None]) -> None:
        self._acts.discard(task)
        if self._held and self._out.close_code is None:
            self._start(self._held.popleft())
        if not self._held and self._direct is not None:
            self._direct.hold_reading(False)

    async def _view_of(self) -> None:
        assert self._channel is not None
        with contextlib.suppress(_Closed):
            await self._out.put(await self._view(self._channel))

    async def _act(self, channel: PlayChannel, frame: Act) -> None:
        try:
            result = await channel.act(
                render.json_object(frame.command, "command.json"), frame.action_id
            )
            answer = Ack(
                frame.action_id, result.entry.seq, result.replayed, render.outcome(result.outcome)
            )
            await self._out.put(_encode(answer))
        except ServiceError as err:
            with contextlib.suppress(_Closed):
                await self._out.put(_encode(Rejected(frame.action_id, problem_of(err))))
        except _Closed:
            pass  # closing (4409, or the client went): the action stands; its retry replays it

    async def _view(self, channel: PlayChannel) -> bytes:
        body = _encode(render.game_view(await channel.view()))
        return b'{"type":"view",' + body[1:]

    # ------------------------------------------------------------------ writing

    async def _entries(self, channel: PlayChannel, from_seq: int) -> None:
        try:
            async for batch in channel.entries(from_seq):
                for frame in _entry_frames(batch):
                    await self._out.put(frame)
                if batch.outcome is not None:
                    self._out.close(Close.NORMAL, "the game is over")
                    return
        except ServiceError as err:
            if err.reason == Reason.SHUTTING_DOWN:
                await self._stopping.wait()  # _serve closes with 1001 once acts are answered
                return
            code = _CLOSE_FOR_STATUS.get(err.status, Close.INTERNAL)
            self._out.close(code, f"{err.reason}: {err.message}")

    async def _ping(self, channel: PlayChannel) -> None:
        """A ping at once (a seat has its round trip from the start), then every second, each
        with a nonce of :func:`~cardcore_server.app.roundtrips.ping_nonce`."""
        while True:
            if len(self._pings) >= PINGS_KEPT:  # never answered: forget the oldest
                del self._pings[next(iter(self._pings))]
            nonce = ping_nonce()
            self._pings[nonce] = time.monotonic()
            self._out.offer(b'{"type":"ping","nonce":%d}' % nonce)
            await asyncio.sleep(PING_INTERVAL_S)


class _Disconnected(Exception):
    """The client closed the connection, or it dropped."""


def route(stopping: Callable[[State], asyncio.Event]) -> Any:
    """The route handler; ``stopping`` finds the event set when the server stops."""

    @websocket("/games/{game_id:str}/play", opt={"operation_id": "Play"})
    async def play(socket: WebSocket[Any, Any, Any], game_id: GameId) -> None:
        state = socket.app.state
        await SocketChannel(socket, state.application, stopping(state)).run(game_id)

    return play
