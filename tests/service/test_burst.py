"""A burst of calls at once (a reconnect storm after a restart) is served, never ``CANCELLED``.

gRPC core cancels the calls it holds beyond its pending-call limit before any handler sees them
(server.py: ``MAX_PENDING_CALLS``), and those it has held longer than its pending time
(``MAX_PENDING_S``: a busy machine's server reaches a burst's last calls late). 3,000
``SubmitAction``, ``GetView`` and ``StreamEvents`` calls are opened at once from one grpc.aio
client over 3 and over 30 channels: each must be answered (accepted, or refused by the rules) or
refused with a retryable ``RESOURCE_EXHAUSTED`` / ``UNAVAILABLE``; none ``CANCELLED``.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from typing import Any

import grpc
import pytest

from cardcore_client import Client
from cardcore_proto import game_service_pb2 as pb
from cardcore_proto import game_service_pb2_grpc as pb_grpc

from .helpers import ServerProcess

BURST = 3000
RETRYABLE = {"RESOURCE_EXHAUSTED", "UNAVAILABLE"}
DEADLINE_S = 120
"""Each call's own deadline: the caller's choice, long enough for a busy machine's server to
reach the burst's last calls (its pending time is longer still), so that what is checked is
how the server answers, not how long this caller waits."""


async def burst(target: str, channels: int) -> dict[str, Counter[str]]:
    async with Client(target) as c:
        g = await c.create_game(
            "ratscrew", ["human", "human"], seed=3754, rules={"auto_collect": True}
        )
    chans = [grpc.aio.insecure_channel(target) for _ in range(channels)]
    stubs = [pb_grpc.GameServiceStub(ch) for ch in chans]
    md = (("authorization", f"Bearer {g.seat_tokens[0]}"),)
    play = pb.GameValue(kind="Play", json=json.dumps({"kind": "Play"}))

    async def outcome(call: Any) -> str:
        try:
            await call
        except grpc.aio.AioRpcError as exc:
            if exc.code() == grpc.StatusCode.FAILED_PRECONDITION:
                return "answered"  # refused by the rules: the handler ran
            return exc.code().name
        return "answered"

    async def view(i: int) -> str:
        request = pb.GetViewRequest(game_id=g.game_id)
        return await outcome(stubs[i % channels].GetView(request, metadata=md, timeout=DEADLINE_S))

    async def submit(i: int) -> str:
        request = pb.SubmitActionRequest(game_id=g.game_id, action_id=f"burst-{i}", command=play)
        return await outcome(
            stubs[i % channels].SubmitAction(request, metadata=md, timeout=DEADLINE_S)
        )

    async def stream(i: int) -> str:
        request = pb.StreamEventsRequest(game_id=g.game_id, from_seq=0)
        call = stubs[i % channels].StreamEvents(request, metadata=md, timeout=DEADLINE_S)
        try:
            async for _ in call:
                return "answered"  # the first batch came: served
        except grpc.aio.AioRpcError as exc:
            return exc.code().name
        finally:
            call.cancel()
        return "answered"

    got: dict[str, Counter[str]] = {}
    try:
        for name, fn in (("GetView", view), ("SubmitAction", submit), ("StreamEvents", stream)):
            got[name] = Counter(await asyncio.gather(*(fn(i) for i in range(BURST))))
    finally:
        for ch in chans:
            await ch.close()
    return got


@pytest.mark.parametrize("channels", [3, 30])
def test_a_burst_of_calls_is_served_never_cancelled(
    fresh_server: ServerProcess, channels: int
) -> None:
    fresh_server.start()
    got = asyncio.run(burst(fresh_server.target, channels))
    for rpc, counts in got.items():
        assert sum(counts.values()) == BURST
        wrong = {code: n for code, n in counts.items() if code not in {"answered", *RETRYABLE}}
        assert not wrong, f"{rpc} over {channels} channels: {dict(counts)}"
        assert counts["answered"] > BURST // 2, f"{rpc}: {dict(counts)}"
