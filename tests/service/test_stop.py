"""Stopping with actions in flight (issue 13 fault 7): an action still waiting when the server
stops is answered ``UNAVAILABLE`` — a retryable answer: send it again with the same
``action_id`` to the next server — never ``CANCELLED`` by the end of the grace period. Here the
store's commit hangs, so one action is in the round being committed and one queued behind it.
And SIGTERM under load (issue 22 fault 3): every caller answered, every stream told."""

from __future__ import annotations

import asyncio
import json
import signal
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from cardcore_proto import game_service_pb2 as pb
from cardcore_proto import game_service_pb2_grpc as pb_grpc
from cardcore_server.app import Application, GameSpec
from cardcore_server.errors import ServiceError
from cardcore_server.store import SeatSpec, SqliteStore
from cardcore_server.transports.server import ServerOptions, start

from .helpers import ServerProcess, auth, command, hang_store_commits, stub


def test_actions_in_flight_at_stop_get_unavailable(tmp_path: Path) -> None:
    async def main() -> None:
        running = await start(ServerOptions(port=0, db=str(tmp_path / "s.db")))
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
        stub = pb_grpc.GameServiceStub(channel)
        created = await stub.CreateGame(
            pb.CreateGameRequest(
                game="ratscrew",
                seats=[pb.SeatAssignment(kind=pb.SEAT_KIND_HUMAN)] * 2,
                timeouts_ms={"Collect": 0},
            )
        )
        token = created.seat_tokens[0].token
        hang_store_commits(running.app)

        async def submit(action_id: str) -> str:
            try:
                await stub.SubmitAction(
                    pb.SubmitActionRequest(
                        game_id=created.game_id, action_id=action_id, command=command("Play")
                    ),
                    metadata=auth(token),
                )
            except grpc.aio.AioRpcError as exc:
                return f"{exc.code().name}: {exc.details()}"
            return "OK"

        calls = [asyncio.create_task(submit(f"a{i}")) for i in range(2)]
        await asyncio.sleep(0.3)  # both are in: one in the hanging round, one queued
        await running.stop(grace_s=1.5)
        codes = await asyncio.gather(*calls)
        # Our retryable answer, not the transport's "Cancelling all calls" at the end of grace.
        retry = "UNAVAILABLE: the store did not confirm the action; retry with the same action_id"
        assert codes == [retry, retry], codes
        await channel.close()

    asyncio.run(main())


# --------------------------------------------------------------------------- SIGTERM under load

ROUNDS = 20
GAMES = 10
"""One event stream each, and both seats submitting: 10 streams, 20 submits in flight."""
STOP_BOUND_S = 1.0
"""SIGTERM to exit, beyond the commits in flight (SQLite's: milliseconds)."""


@dataclass
class Call:
    """One call's end as the client saw it."""

    code: str
    reason: str = ""
    retry_delay_s: float | None = None
    game_id: str = ""
    seat: int = 0
    token: str = ""
    seq: int | None = None


def ended(exc: grpc.aio.AioRpcError) -> Call:
    """The code, ErrorInfo reason and RetryInfo delay of a failed call."""
    details = dict(exc.trailing_metadata() or ()).get("grpc-status-details-bin")
    reason, delay = "", None
    if isinstance(details, bytes):
        for any_ in status_pb2.Status.FromString(details).details:
            info, retry = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()
            if any_.Unpack(info):
                reason = info.reason
            elif any_.Unpack(retry):
                delay = retry.retry_delay.ToTimedelta().total_seconds()
    return Call(exc.code().name, reason, delay)


async def one_round(server: ServerProcess) -> tuple[float, list[Call], list[Call]]:
    """Games with a stream each and both seats submitting without a pause, then SIGTERM: how
    long the stop took, and how each submit and each stream ended."""
    async with grpc.aio.insecure_channel(server.target) as channel:
        s = pb_grpc.GameServiceStub(channel)
        human = pb.SeatAssignment(kind=pb.SEAT_KIND_HUMAN)
        games = [
            await s.CreateGame(pb.CreateGameRequest(game="ratscrew", seats=[human, human]))
            for _ in range(GAMES)
        ]
        stopping = asyncio.Event()

        async def follow(game: Any) -> Call:
            stream = s.StreamEvents(
                pb.StreamEventsRequest(game_id=game.game_id),
                metadata=auth(game.seat_tokens[0].token),
            )
            try:
                async for _ in stream:
                    pass
            except grpc.aio.AioRpcError as exc:
                return ended(exc)
            return Call("OK")

        async def play(game: Any, seat: int) -> list[Call]:
            calls = []
            token = game.seat_tokens[seat].token
            while not stopping.is_set():
                request = pb.SubmitActionRequest(
                    game_id=game.game_id, action_id=uuid.uuid4().hex, command=command("Play")
                )
                try:
                    r = await s.SubmitAction(request, metadata=auth(token), timeout=10)
                    call = Call("OK", seq=r.entry.seq)
                except grpc.aio.AioRpcError as exc:
                    call = ended(exc)
                call.game_id, call.seat, call.token = game.game_id, seat, token
                calls.append(call)
            return calls

        streams = [asyncio.create_task(follow(g)) for g in games]
        players = [asyncio.create_task(play(g, seat)) for g in games for seat in (0, 1)]
        await asyncio.sleep(0.3)
        assert server.proc is not None
        stopping.set()  # no call starts after this: every one still running is in flight
        began = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        rc = await asyncio.to_thread(server.proc.wait, 15)
        took = time.monotonic() - began
        server.proc = None
        assert rc == 0
        submits = [c for calls in await asyncio.gather(*players) for c in calls]
        return took, submits, list(await asyncio.gather(*streams))


def acknowledged_are_logged(server: ServerProcess, acked: list[Call]) -> None:
    """Every acknowledged action is in its game's log, at its seq, by its seat."""
    channel, s = stub(server.target)
    try:
        by_game: dict[str, list[Call]] = {}
        for c in acked:
            by_game.setdefault(c.game_id, []).append(c)
        for game_id, calls in by_game.items():
            log = s.GetLog(pb.GetLogRequest(game_id=game_id), metadata=auth(calls[0].token))
            lines = [json.loads(x) for x in log.log_jsonl.decode().splitlines()]
            seats = {e["seq"]: e.get("seat") for e in lines if e.get("type") == "entry"}
            lost = [c.seq for c in calls if seats.get(c.seq) != c.seat]
            assert not lost, f"acknowledged and lost in {game_id}: {lost}"
    finally:
        channel.close()


@pytest.mark.solo  # a time bound
def test_sigterm_under_load_answers_every_caller_and_loses_nothing(tmp_path: Path) -> None:
    """Issue 22 fault 3, 20 times: 10 open streams and 20 submits in flight at SIGTERM. Every
    stream is told ShuttingDown (one on a game that had just acknowledged an action was not,
    and held the stop for the whole grace); every submit is answered, those not applied
    UNAVAILABLE with a RetryInfo, none CANCELLED (gRPC core cancelled the calls it had not
    handed to a handler yet, with no log line); each has its request line; every stop takes
    under 1 s; no acknowledged action is lost."""
    server = ServerProcess(tmp_path, "--no-rest", "--collect-window-ms", "0")
    acked: list[Call] = []
    stops = []
    for _ in range(ROUNDS):
        server.start()
        seen = server.log_path.stat().st_size
        took, submits, streams = asyncio.run(one_round(server))
        stops.append(took)
        assert took < STOP_BOUND_S, f"the stop took {took:.2f} s"
        assert {(c.code, c.reason) for c in streams} == {("UNAVAILABLE", "ShuttingDown")}
        codes = {c.code for c in submits}
        assert codes <= {"OK", "FAILED_PRECONDITION", "UNAVAILABLE"}, codes
        for c in submits:
            if c.code == "UNAVAILABLE":
                assert c.reason in ("ShuttingDown", "StoreUnavailable") and c.retry_delay_s, c
        with server.log_path.open("rb") as log:
            log.seek(seen)
            lines = [json.loads(line) for line in log]
        logged = [r for r in lines if r.get("rpc") == "SubmitAction"]
        assert len(logged) == len(submits), "a submit without its request line"
        acked += [c for c in submits if c.code == "OK"]
    server.start()  # after 20 stops: every acknowledged action is there
    acknowledged_are_logged(server, acked)
    assert server.stop() == 0
    print(f"{ROUNDS} stops under load: the longest took {max(stops):.2f} s")


def test_a_stream_between_two_batches_is_told_at_once(tmp_path: Path) -> None:
    """The cause of the stream that held a stop for its whole grace: it was sending a batch
    (an action just acknowledged) when the stop woke the waiting streams, then waited for a
    change that never came. Told before it waits, it ends at once."""

    async def main() -> None:
        app = Application(SqliteStore(str(tmp_path / "s.db")))
        await app.start()
        made = await app.create_game(GameSpec("ratscrew", [SeatSpec("human"), SeatSpec("human")]))
        batches = await app.stream(dict(made.seat_tokens)[0], made.game_id)
        await anext(batches)  # the deal: the stream is between two batches now
        app.begin_shutdown()
        with pytest.raises(ServiceError) as told:
            await asyncio.wait_for(anext(batches), 1.0)
        assert (told.value.status, told.value.reason) == ("UNAVAILABLE", "ShuttingDown")
        await app.close()

    asyncio.run(main())


def test_a_sigterm_right_after_the_ready_line_stops_gracefully(tmp_path: Path) -> None:
    """The signal handlers are set before ``cardcore serving on`` is printed: a SIGTERM sent
    as soon as it is read stops the server gracefully (exit 0), never kills it (-15)."""
    server = ServerProcess(tmp_path, "--no-rest")
    for _ in range(3):
        server.start()
        assert server.stop() == 0
