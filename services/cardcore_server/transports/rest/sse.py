"""The event stream as Server-Sent Events: one event per log entry (``id`` = its ``seq``,
``event: entry``), then ``event: end`` (the log's end line) and ``event: outcome`` once the game
is over; ``event: closing`` (a :class:`~.wire.Closing`) when the server stops or the game has
to be rebuilt; a comment line while idle. A client resumes with ``Last-Event-ID``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Final

import msgspec

from cardcore import codec

from ...app import StreamBatch, request_fields
from ...errors import Reason, ServiceError
from .render import entry_json, outcome
from .wire import Closing

HEARTBEAT_S: Final = 15.0
"""An idle event stream sends an SSE comment this often (keeps proxies from timing it out)."""

_encode = msgspec.json.Encoder()


def batch_events(batch: StreamBatch) -> bytes:
    parts = [b"id: %d\nevent: entry\ndata: %s\n\n" % (e.seq, entry_json(e)) for e in batch.entries]
    if batch.end is not None:  # the end line (seed and salt revealed): a client's copy settles it
        parts.append(b"event: end\ndata: %s\n\n" % codec.canonical_bytes(batch.end))
    if batch.outcome is not None:
        parts.append(b"event: outcome\ndata: %s\n\n" % _encode.encode(outcome(batch.outcome)))
    return b"".join(parts)


def closing_event(code: str, detail: str) -> bytes:
    return b"event: closing\ndata: %s\n\n" % _encode.encode(Closing(code, detail))


async def events(
    batches: AsyncIterator[StreamBatch], closing: asyncio.Event
) -> AsyncIterator[bytes]:
    """Batches as SSE events, heartbeats while idle, ``closing`` on shutdown (``closing`` set)
    or failure."""
    fields = request_fields.get()
    sent = 0
    it = aiter(batches)
    stop = asyncio.ensure_future(closing.wait())
    nxt: asyncio.Future[StreamBatch] | None = None
    try:
        yield b"retry: 1000\n\n"
        while True:
            if nxt is None:
                nxt = asyncio.ensure_future(anext(it))
            done, _ = await asyncio.wait(
                (nxt, stop), timeout=HEARTBEAT_S, return_when=asyncio.FIRST_COMPLETED
            )
            if nxt in done:
                fut, nxt = nxt, None
                try:
                    batch = fut.result()
                except StopAsyncIteration:
                    return
                except ServiceError as err:
                    yield closing_event(err.reason, err.message)
                    return
                sent += len(batch.entries)
                yield batch_events(batch)
                if batch.outcome is not None:
                    return
            elif stop in done:
                yield closing_event(
                    Reason.SHUTTING_DOWN, "the server is stopping; resume with Last-Event-ID"
                )
                return
            else:
                yield b": keep-alive\n\n"
    finally:
        if fields is not None:
            fields["entries"] = sent
        stop.cancel()
        if nxt is not None:
            nxt.cancel()
            with contextlib.suppress(BaseException):
                await nxt
        with contextlib.suppress(Exception):
            await it.aclose()  # type: ignore[attr-defined]
