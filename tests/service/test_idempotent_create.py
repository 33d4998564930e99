"""CreateGame with an idempotency key (issue 13 fault 9): the Python client retried CreateGame
on DEADLINE_EXCEEDED, and an answer lost after the game was made gave the caller a second game.
Now every call carries a random key that its retries repeat: the same key and request give the
same game and the same tokens (minted from the key under the server's secret, so nothing but
the game is stored), a restart included; the same key with another request is refused."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from cardcore_proto import game_service_pb2 as pb
from cardcore_proto import game_service_pb2_grpc as pb_grpc

from ..rest.helpers import RestServer
from .helpers import ServerProcess, auth


def request(
    key: str, *, game: str = "speed", seats: int = 2, open_seat: bool = False
) -> pb.CreateGameRequest:
    assignments = [pb.SeatAssignment(kind=pb.SEAT_KIND_HUMAN) for _ in range(seats)]
    if open_seat:
        assignments[-1].open = pb.SEAT_OPEN_INVITE
    return pb.CreateGameRequest(game=game, seats=assignments, idempotency_key=key)


def test_a_retried_create_makes_one_game(fresh_server: ServerProcess) -> None:
    fresh_server.start()
    channel = grpc.insecure_channel(fresh_server.target)
    stub = pb_grpc.GameServiceStub(channel)
    try:
        first = stub.CreateGame(request("k-1"))
        again = stub.CreateGame(request("k-1"))
        assert again.game_id == first.game_id
        assert list(again.seat_tokens) == list(first.seat_tokens)
        assert (again.spectator_token, again.creator_token) == (
            first.spectator_token,
            first.creator_token,
        )
        assert again.header_json == first.header_json
        # Each token works, and is the one of that game.
        view = stub.GetView(
            pb.GetViewRequest(game_id=first.game_id), metadata=auth(first.seat_tokens[0].token)
        )
        assert view.seat == 0
        # Another key: another game.
        assert stub.CreateGame(request("k-2")).game_id != first.game_id
        # The same key for a different request is refused, naming the field.
        with pytest.raises(grpc.RpcError) as reused:
            stub.CreateGame(request("k-1", game="spit"))
        assert reused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "idempotency_key" in (reused.value.details() or "")
        # A table: the same invites come back too, and it is still one table.
        t1 = stub.CreateGame(request("k-3", open_seat=True))
        t2 = stub.CreateGame(request("k-3", open_seat=True))
        assert (t1.game_id, list(t1.invites), t1.status) == (
            t2.game_id,
            list(t2.invites),
            "waiting",
        )
        # After a restart the server answers the same (the key's secret is kept with the store).
        fresh_server.stop()
        fresh_server.start()
        channel.close()
        channel = grpc.insecure_channel(fresh_server.target)
        stub = pb_grpc.GameServiceStub(channel)
        assert stub.CreateGame(request("k-1")).seat_tokens == first.seat_tokens
    finally:
        channel.close()


def test_the_python_client_retries_create_with_one_key() -> None:
    """The client's CreateGame request carries a fresh key per call, and a retry after
    DEADLINE_EXCEEDED (the answer lost, the game perhaps made) resends the very same request."""
    from cardcore_client import Client

    sent: list[pb.CreateGameRequest] = []

    async def flaky(req: pb.CreateGameRequest, **_: object) -> pb.CreateGameResponse:
        sent.append(req)
        if len(sent) == 1:
            raise grpc.aio.AioRpcError(
                grpc.StatusCode.DEADLINE_EXCEEDED, grpc.aio.Metadata(), grpc.aio.Metadata()
            )
        return pb.CreateGameResponse(game_id="0" * 32, status="playing")

    async def main() -> None:
        c = Client("127.0.0.1:1")
        c.retry.first_backoff_s = 0.001
        c.stub.CreateGame = flaky  # type: ignore[method-assign]
        try:
            await c.create_game("spit", ["human", "human"])
            await c.create_game("spit", ["human", "human"])
        finally:
            await c.close()

    asyncio.run(main())
    assert len(sent) == 3
    assert sent[0] is sent[1] and sent[0].idempotency_key, "the retry repeats key and entropy"
    assert sent[2].idempotency_key != sent[0].idempotency_key, "a new call, a new key"


def test_concurrent_retries_with_one_key_all_get_the_one_game(tmp_path: Path) -> None:
    """Issue 22 fault 4: 30 clients retrying one CreateGame at once (one key) got up to 29
    ``UNAVAILABLE StoreUnavailable``: each dealt the game, and all but one insert failed on its
    key. Now one deals and the others wait for it: all 30 get the same game and tokens, over
    gRPC and over REST, and the log says the retries joined."""
    server = RestServer(tmp_path).start()
    try:
        key = uuid.uuid4().hex

        async def over_grpc() -> list[Any]:
            async with grpc.aio.insecure_channel(server.target) as channel:
                stub = pb_grpc.GameServiceStub(channel)
                return await asyncio.gather(
                    *(stub.CreateGame(request(key)) for _ in range(30)), return_exceptions=True
                )

        answers = asyncio.run(over_grpc())
        failed = [a for a in answers if isinstance(a, BaseException)]
        assert not failed, failed[:3]
        first = answers[0]
        assert all(
            (a.game_id, list(a.seat_tokens), a.spectator_token, a.creator_token)
            == (first.game_id, list(first.seat_tokens), first.spectator_token, first.creator_token)
            for a in answers
        )
        body = {
            "game": "speed",
            "seats": [{"kind": "human"}] * 2,
            "idempotency_key": uuid.uuid4().hex,
        }

        async def over_rest() -> list[httpx.Response]:
            async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
                return await asyncio.gather(*(http.post("/v1/games", json=body) for _ in range(30)))

        replies = asyncio.run(over_rest())
        assert {r.status_code for r in replies} == {201}, [r.text for r in replies][:3]
        assert len({r.text for r in replies}) == 1, "one game, the same tokens"
    finally:
        assert server.stop() == 0
    # The log tells a retry storm from an outage: one creation per key, every other a retry,
    # some of them waiting for the creation under way.
    lines = [r for r in server.log_records() if r.get("rpc") == "CreateGame"]
    assert [r["code"] for r in lines] == ["OK"] * 60
    assert sum(bool(r.get("replayed")) for r in lines) == 58
    assert any(r.get("joined") for r in lines)


def test_concurrent_retries_on_two_servers_of_one_database(tmp_path: Path, pg_url: str) -> None:
    """The same on PostgreSQL, 15 retries to each of two servers: their keys make the same
    game id (the secret they derive it under is kept in the database), one insert wins and the
    other server answers from it."""
    servers = [ServerProcess(tmp_path, name=f"s{i}", db=pg_url).start() for i in range(2)]
    try:
        key = uuid.uuid4().hex

        async def retries() -> list[Any]:
            channels = [grpc.aio.insecure_channel(s.target) for s in servers]
            stubs = [pb_grpc.GameServiceStub(c) for c in channels]
            try:
                return await asyncio.gather(
                    *(stubs[i % 2].CreateGame(request(key)) for i in range(30)),
                    return_exceptions=True,
                )
            finally:
                for c in channels:
                    await c.close()

        answers = asyncio.run(retries())
        failed = [a for a in answers if isinstance(a, BaseException)]
        assert not failed, failed[:3]
        assert len({a.SerializeToString(deterministic=True) for a in answers}) == 1
    finally:
        for s in servers:
            assert s.stop() == 0
