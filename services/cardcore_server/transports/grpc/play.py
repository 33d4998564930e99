"""gRPC's ``Play``: one player's play channel (docs/reference/play-channel.md) as a
bidirectional stream of ``PlayRequest`` in and ``PlayResponse`` out, over an open
:class:`~cardcore_server.app.channel.PlayChannel`.

Three tasks feed one bounded send queue that the call's response generator empties: the entries
(in order, from ``from_seq``), the requests read (an act runs as a task of its own, at most
:data:`MAX_ACTS` at once; a view is answered in turn; a pong is timed) and the pings. A client
that does not read is ended ``RESOURCE_EXHAUSTED``/``FellBehind`` once :data:`SEND_QUEUE`
messages wait for it: the server's memory never grows with a client's patience. Entries wait
for room instead (at most :data:`ENTRIES_QUEUED` of them queued), so a client catching up on a
long log is paced, not dropped, and the answers and pings always find room while it reads.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Any, Final

import structlog

from cardcore import codec
from cardcore_proto import game_service_pb2 as pb

from ...app import request_fields
from ...app.channel import PlayChannel
from ...app.roundtrips import PING_INTERVAL_S, ping_nonce
from ...errors import Reason, ServiceError, Status, invalid
from . import convert

log = structlog.get_logger("cardcore_server")

MAX_ACTS: Final = 32
"""Acts in flight on one call at most: while this many wait for their answers, the server reads
no further request (the client's sends wait in flow control)."""
SEND_QUEUE: Final = 64
"""Messages waiting for a client at most; one more, and the call ends ``FellBehind``."""
ENTRIES_QUEUED: Final = SEND_QUEUE // 2
"""Entries wait for room beyond this many queued: the rest of the queue is the answers' (at
most :data:`MAX_ACTS`), the pings' and the views'."""
OPEN_WAIT_S: Final = 10.0
"""The first message (``open``) must come within this (the WebSocket's 4408)."""
PINGS_KEPT: Final = 32
"""Pings awaiting their pong at most: an older one's pong is ignored (it would be over
:data:`~cardcore_server.app.roundtrips.MAX_RTT_S` anyway)."""

ActDone = Callable[[dict[str, Any], str, float], None]
"""Called when an act is answered: its log fields, its code and when it began
(``time.perf_counter()``): the act's log line and metrics."""


async def read_open(requests: AsyncIterator[bytes]) -> pb.PlayOpen:
    """The call's first message, which must be ``open`` (within :data:`OPEN_WAIT_S`)."""
    try:
        raw = await asyncio.wait_for(anext(requests), OPEN_WAIT_S)
    except StopAsyncIteration:
        raise invalid("open", "the first message must be open") from None
    except TimeoutError:
        raise ServiceError(
            Status.UNAVAILABLE,
            Reason.REQUEST_TIMEOUT,
            f"no open within {OPEN_WAIT_S:g} s; call again",
        ) from None
    request = parse(raw)
    if request.WhichOneof("frame") != "open":
        raise invalid("open", "the first message must be open")
    return request.open


def parse(raw: bytes) -> pb.PlayRequest:
    """The decode guard of every message (as :func:`.handlers._parse` for a unary request)."""
    try:
        return pb.PlayRequest.FromString(raw)
    except Exception:  # protobuf raises DecodeError, RuntimeError or others on garbage
        raise invalid("request", "not a valid cardcore.v1.PlayRequest") from None


class PlayCall:
    """One ``Play`` call after its ``open``: :meth:`responses` is what it sends."""

    def __init__(
        self,
        channel: PlayChannel,
        requests: AsyncIterator[bytes],
        from_seq: int,
        act_done: ActDone,
    ) -> None:
        self._channel = channel
        self._requests = requests
        self._from_seq = from_seq
        self._act_done = act_done
        self._out: deque[tuple[bytes, bool]] = deque()
        """Messages to send, each with whether it is an entry."""
        self._queued_entries = 0
        self._wake = asyncio.Event()
        """Set when there is something to send, or the call is ending."""
        self._taken = asyncio.Event()
        """Set when an entry left the queue (the entries wait on it for room)."""
        self._ending = False
        self._error: ServiceError | None = None
        """What the call ends with once :attr:`_ending` (``None``: OK, after ``end``)."""
        self._dropped = False
        """The client fell behind: what is queued is dropped, not sent."""
        self._slots = asyncio.Semaphore(MAX_ACTS)
        self._acts: set[asyncio.Task[None]] = set()
        self._pings: dict[int, float] = {}
        """Each ping awaiting its pong: nonce → ``time.monotonic()`` when it was queued."""
        self.entries = 0
        """Entries sent (the call's log line)."""
        self.acts = 0
        """Acts received."""

    # ------------------------------------------------------------------ the send queue

    def _send(self, data: bytes, *, entry: bool = False) -> None:
        """Queue a message that cannot wait (an answer, a ping, a view, the end)."""
        if self._dropped:
            return
        if not self._ending and len(self._out) >= SEND_QUEUE:
            # Once ending, the last answers (at most MAX_ACTS) still go: the call waits for them.
            self._finish(
                ServiceError(
                    Status.RESOURCE_EXHAUSTED,
                    Reason.FELL_BEHIND,
                    "the client did not read its messages; resume from your last seq",
                ),
                drop=True,
            )
            return
        self._out.append((data, entry))
        self._wake.set()

    async def _send_entry(self, data: bytes) -> None:
        """Queue an entry once there is room for it (entries are paced by the client's reads)."""
        while self._queued_entries >= ENTRIES_QUEUED and not self._dropped:
            self._taken.clear()
            await self._taken.wait()
        self._queued_entries += 1
        self._send(data, entry=True)

    def _finish(self, error: ServiceError | None, *, drop: bool = False) -> None:
        """End the call (the first reason wins): with ``error``, or OK after ``end``. Unless
        ``drop``, the acts in flight are answered and everything queued is sent first."""
        if self._ending:
            return
        self._ending = True
        self._error = error
        if drop:
            self._dropped = True
            self._out.clear()
            self._taken.set()
        self._wake.set()

    # ------------------------------------------------------------------ the call

    def _ready(self) -> bytes:
        channel = self._channel
        ready = pb.PlayReady(
            game_id=channel.game_id,
            seat=channel.seat,
            next_seq=channel.next_seq,
            ping_interval_ms=round(PING_INTERVAL_S * 1000),
        )
        data: bytes = pb.PlayResponse(ready=ready).SerializeToString()
        return data

    async def responses(self) -> AsyncGenerator[bytes, None]:
        """``ready``, then every message as it is made; returns after ``end`` (the call ends
        OK) or raises the :class:`ServiceError` the call ends with."""
        self._send(self._ready())
        tasks = [
            asyncio.create_task(self._read()),
            asyncio.create_task(self._follow()),
            asyncio.create_task(self._ping()),
        ]
        try:
            while True:
                while self._out and not self._dropped:
                    data, entry = self._out.popleft()
                    if entry:  # room for the next
                        self._queued_entries -= 1
                        self._taken.set()
                    yield data
                if self._ending:
                    if self._dropped:
                        break
                    # Nothing new comes in; the acts in flight are answered, then all is sent.
                    for task in tasks:
                        task.cancel()
                    if self._acts:
                        await asyncio.wait(set(self._acts))
                        continue
                    if not self._out:
                        break
                    continue
                self._wake.clear()
                await self._wake.wait()
        finally:
            pending = [*tasks, *self._acts]
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        if self._error is not None:
            raise self._error

    async def _guarded(self, what: str, work: Callable[[], Awaitable[None]]) -> None:
        """Run ``work`` (a coroutine function); a failure ends the call with its error."""
        try:
            await work()
        except ServiceError as err:
            self._finish(err)
        except Exception:
            log.exception("internal_error", rpc="Play", part=what)
            self._finish(ServiceError(Status.INTERNAL, Reason.INTERNAL, "internal error"))

    async def _follow(self) -> None:
        await self._guarded("entries", self._entries)

    async def _entries(self) -> None:
        async for batch in self._channel.entries(self._from_seq):
            for entry in batch.entries:
                await self._send_entry(convert.play_entry(entry))
                self.entries += 1
            if batch.outcome is not None or batch.end is not None:
                end = pb.PlayEnd(
                    outcome=convert.outcome(batch.outcome) if batch.outcome is not None else None,
                    end_json=codec.canonical_text(batch.end) if batch.end is not None else "",
                )
                self._send(pb.PlayResponse(end=end).SerializeToString())
                self._finish(None)
                return

    async def _ping(self) -> None:
        """A ping now and every :data:`PING_INTERVAL_S`. Nonces are random: a client cannot
        answer a ping before it has it (a round trip shorter than its own flatters it in races
        that credit it)."""
        while True:
            nonce = ping_nonce()
            self._pings[nonce] = time.monotonic()
            while len(self._pings) > PINGS_KEPT:
                del self._pings[next(iter(self._pings))]
            self._send(pb.PlayResponse(ping=pb.PlayPing(nonce=nonce)).SerializeToString())
            await asyncio.sleep(PING_INTERVAL_S)

    async def _read(self) -> None:
        await self._guarded("requests", self._requests_in)

    async def _requests_in(self) -> None:
        """Read requests while an act may be taken: with :data:`MAX_ACTS` in flight, the next
        request waits (in gRPC's flow control, not in the server's memory)."""
        while True:
            await self._slots.acquire()
            try:
                raw = await anext(self._requests)
            except StopAsyncIteration:  # the client sends no more; its entries still go
                self._slots.release()
                return
            request = parse(raw)
            kind = request.WhichOneof("frame")
            if kind == "act":
                self.acts += 1
                task = asyncio.create_task(self._act(request.act))  # the slot goes with it
                self._acts.add(task)
                task.add_done_callback(self._acts.discard)
                continue
            self._slots.release()
            if kind == "pong":
                sent = self._pings.pop(request.pong.nonce, None)
                if sent is not None:
                    self._channel.round_trip(time.monotonic() - sent)
            elif kind == "view":
                view = convert.game_view(await self._channel.view())
                self._send(pb.PlayResponse(view=view).SerializeToString())
            elif kind == "open":
                raise invalid("open", "only the first message opens the call")
            else:
                raise invalid("frame", "a PlayRequest with no message set")

    async def _act(self, act: pb.PlayAct) -> None:
        """One act, answered ``ack`` or ``rejected``, with a log line of its own."""
        channel = self._channel
        fields: dict[str, Any] = {"rpc": "Play.act", "game_id": channel.game_id}
        fields["seat"] = channel.seat
        request_fields.set(fields)  # this task's own context: the act's notes land here
        start = time.perf_counter()
        code = "OK"
        answer: pb.PlayResponse
        try:
            result = await channel.act(convert.command(act.command), act.action_id)
            answer = convert.play_ack(act.action_id, result)
        except ServiceError as err:
            code = err.status.value
            fields.setdefault("reason", err.reason)
            answer = convert.play_rejected(act.action_id, err)
        except asyncio.CancelledError:
            code = "CANCELLED"
            raise
        except Exception:
            code = "INTERNAL"
            log.exception("internal_error", rpc="Play.act")
            internal = ServiceError(Status.INTERNAL, Reason.INTERNAL, "internal error")
            answer = convert.play_rejected(act.action_id, internal)
        finally:
            self._slots.release()
            self._act_done(fields, code, start)
        self._send(answer.SerializeToString())
