"""Stopping with actions in flight (issue 13 fault 7): an action still waiting when the server
stops is answered ``UNAVAILABLE`` — a retryable answer: send it again with the same
``action_id`` to the next server — never ``CANCELLED`` by the end of the grace period. Here the
store's commit hangs, so one action is in the round being committed and one queued behind it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc

from cardcore_proto import game_service_pb2 as pb
from cardcore_proto import game_service_pb2_grpc as pb_grpc
from cardcore_server.server import ServerOptions, start

from .helpers import auth, command, hang_store_commits


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
