"""cardcore's gRPC ``Play`` (a bidirectional stream per seat) from the Python worker (grpc.aio).

Part of the overlay of ``benchmarks/servers`` onto the shared servers harness: the worker's copy
calls :func:`install` with its own globals, which adds the runner ``("cc_play", "seq")`` beside
its ``cc_grpc`` ones and drives the same games the same way (its ``Driver`` makes the pool of
ratscrew games before the clock starts; its ``Game`` follows whose turn the entries say; its
``Meter`` takes the CPU), only the actions go as ``PlayAct`` on the mover's seat's ``Play`` call
instead of a ``SubmitAction`` each.

Both seats' calls of every game in the pool are opened (and past the deal) before the clock
starts, on the client's one channel (one TCP connection, as the unary rows). Each call has a
reader task that answers the server's pings at once (one at open, then every second). A move is
done when its ``ack`` and its ``entry`` have both reached the mover's call.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import grpc

from cardcore_proto import game_service_pb2 as pb

PLAY_METHOD = "/cardcore.v1.GameService/Play"
WAIT_S = 10.0  # every wait's bound, as the harness's
pc = time.perf_counter


class _Answer:
    """What the worker's ``Game.after`` reads of a ``SubmitActionResponse``: the entry and
    whether the action ended the game."""

    __slots__ = ("_over", "entry")

    def __init__(self, entry: pb.Entry, over: bool) -> None:
        self.entry, self._over = entry, over

    def HasField(self, name: str) -> bool:  # protobuf's name
        return name == "outcome" and self._over


class PlayCall:
    """One seat's ``Play`` call: a reader task answers pings and hands over acks and entries."""

    def __init__(self, call: Any) -> None:
        self.call = call
        self.lock = asyncio.Lock()  # one write at a time on a call (grpc.aio's rule)
        self.seen = -1
        self.want = -1
        self.entry: asyncio.Future[tuple[float, pb.Entry | None]] | None = None
        self.acks: dict[str, asyncio.Future[tuple[float, pb.PlayAck]]] = {}
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.over = False
        self.failed: BaseException | None = None
        self.task = asyncio.create_task(self._read())

    async def write(self, request: pb.PlayRequest) -> None:
        async with self.lock:
            await self.call.write(request)

    def _fail(self, err: BaseException) -> None:
        self.failed = err
        waiting = [self.ready, *self.acks.values()] + ([self.entry] if self.entry else [])
        for f in waiting:
            if not f.done():
                f.set_exception(err)

    async def _read(self) -> None:
        try:
            while True:
                r = await self.call.read()
                if r is grpc.aio.EOF:
                    break
                await self._received(r)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the call failed: every wait on it fails with it
            if not self.over:
                self._fail(exc)
            return
        if not self.over:
            self._fail(RuntimeError("Play call ended before the game's end"))

    async def _received(self, r: pb.PlayResponse) -> None:
        kind = r.WhichOneof("frame")
        if kind == "ping":  # at once
            await self.write(pb.PlayRequest(pong=pb.PlayPong(nonce=r.ping.nonce)))
        elif kind == "entry":
            if r.entry.seq != self.seen + 1:
                self._fail(RuntimeError(f"Play: entry {r.entry.seq} after {self.seen}"))
            self.seen = r.entry.seq
            if self.entry is not None and r.entry.seq >= self.want and not self.entry.done():
                self.entry.set_result((pc(), r.entry))
        elif kind == "ack":
            f = self.acks.pop(r.ack.action_id, None)
            if f is not None and not f.done():
                f.set_result((pc(), r.ack))
        elif kind == "rejected":
            f = self.acks.pop(r.rejected.action_id, None)
            if f is not None and not f.done():
                f.set_exception(RuntimeError(f"Play: act rejected: {r.rejected.problem}"))
        elif kind == "ready":
            if not self.ready.done():
                self.ready.set_result(None)
        elif kind == "end":
            self.over = True

    def until(self, seq: int) -> asyncio.Future[tuple[float, pb.Entry | None]]:
        """Resolves with (when, the entry) once entry ``seq`` arrived (the entry is ``None``
        if it had arrived before)."""
        self.want = seq
        self.entry = asyncio.get_running_loop().create_future()
        if self.failed is not None:
            self.entry.set_exception(self.failed)
        elif self.seen >= seq:
            self.entry.set_result((pc(), None))
        return self.entry

    def answer(self, action_id: str) -> asyncio.Future[tuple[float, pb.PlayAck]]:
        f: asyncio.Future[tuple[float, pb.PlayAck]] = asyncio.get_running_loop().create_future()
        if self.failed is not None:
            f.set_exception(self.failed)
        self.acks[action_id] = f
        return f

    async def close(self) -> None:
        self.over = True
        self.call.cancel()
        self.task.cancel()
        try:
            await self.task
        except (asyncio.CancelledError, grpc.aio.AioRpcError):
            pass


def install(w: dict[str, Any]) -> None:
    """Register the ``cc_play`` runner in the worker whose globals are ``w``."""
    driver_cls, meter_cls, result = w["Driver"], w["Meter"], w["result"]

    async def open_calls(channel: grpc.aio.Channel, game: Any) -> list[PlayCall]:
        play = channel.stream_stream(
            PLAY_METHOD,
            request_serializer=pb.PlayRequest.SerializeToString,
            response_deserializer=pb.PlayResponse.FromString,
        )
        calls = [PlayCall(play(metadata=md)) for md in game.metadata]
        for c in calls:
            await c.write(pb.PlayRequest(open=pb.PlayOpen(game_id=game.game_id, from_seq=0)))
        async with asyncio.timeout(WAIT_S):
            for c in calls:
                await c.ready
                await c.until(0)  # the deal
        return calls

    async def cc_play_seq(cmd: dict[str, Any]) -> dict[str, Any]:
        stubs = w["Stubs"](w["open_channel"](cmd["target"]))
        drv = driver_cls(stubs, 0, w["moves_needed"](cmd))
        await drv.prepare()
        calls: dict[str, list[PlayCall]] = {}
        for g in [drv.game, *drv.pool]:  # every game's calls open before the clock starts
            calls[g.game_id] = await open_calls(stubs.channel, g)

        async def run(max_moves: int, deadline: float, lat: list[float], ack: list[float]) -> float:
            moves, untimed = 0, 0.0
            while moves < max_moves and pc() < deadline:
                g = drv.game
                drv.n += 1
                action_id = f"a{drv.n}"
                mover = calls[g.game_id][g.turn]
                seq = g.next_seq
                answered, arrived = mover.answer(action_id), mover.until(seq)
                t = pc()
                act = pb.PlayAct(action_id=action_id, command=g.command)
                await mover.write(pb.PlayRequest(act=act))
                async with asyncio.timeout(WAIT_S):
                    (t_ack, a), (t_entry, entry) = await answered, await arrived
                if a.seq != seq or entry is None or entry.seq != seq:
                    raise RuntimeError(f"Play: ack {a.seq} for the entry expected, {seq}")
                lat.append(max(t_ack, t_entry) - t)
                ack.append(t_ack - t)
                moves += 1
                g.after(_Answer(entry, a.HasField("outcome")))
                if g.over:
                    u = pc()
                    for c in calls.pop(g.game_id):
                        await c.close()
                    await drv.next_game()
                    if drv.game.game_id not in calls:  # the pool ran dry: a new game, untimed
                        calls[drv.game.game_id] = await open_calls(stubs.channel, drv.game)
                    untimed += pc() - u
            return untimed

        await run(cmd["warmup"], pc() + 30, [], [])
        lat: list[float] = []
        ack: list[float] = []
        meter = meter_cls(cmd)
        meter.start()
        start = pc()
        untimed = await run(cmd["max_moves"], start + cmd["max_s"], lat, ack)
        wall = pc() - start - untimed
        out: dict[str, Any] = result(
            lat, len(lat), wall, meter, ack_ms=[x * 1000 for x in ack], untimed_s=untimed
        )
        for cs in calls.values():
            for c in cs:
                await c.close()
        await stubs.channel.close()
        return out

    w["RUNNERS"][("cc_play", "seq")] = cc_play_seq
