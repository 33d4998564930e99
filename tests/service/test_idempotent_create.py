"""CreateGame with an idempotency key (issue 13 fault 9): the Python client retried CreateGame
on DEADLINE_EXCEEDED, and an answer lost after the game was made gave the caller a second game.
Now every call carries a random key that its retries repeat: the same key and request give the
same game and the same tokens (minted from the key under the server's secret, so nothing but
the game is stored), a restart included; the same key with another request is refused."""

from __future__ import annotations

import asyncio
import secrets
import uuid
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from cardcore_proto import game_service_pb2 as pb
from cardcore_proto import game_service_pb2_grpc as pb_grpc
from cardcore_server.app import check_idempotency_key

from ..rest.helpers import RestServer
from .helpers import ServerProcess, auth

K1, K2, K3 = (uuid.uuid4().hex for _ in range(3))


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
        first = stub.CreateGame(request(K1))
        again = stub.CreateGame(request(K1))
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
        assert stub.CreateGame(request(K2)).game_id != first.game_id
        # The same key for a different request is refused, naming the field.
        with pytest.raises(grpc.RpcError) as reused:
            stub.CreateGame(request(K1, game="spit"))
        assert reused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "idempotency_key" in (reused.value.details() or "")
        # A table: the same invites come back too, and it is still one table.
        t1 = stub.CreateGame(request(K3, open_seat=True))
        t2 = stub.CreateGame(request(K3, open_seat=True))
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
        assert stub.CreateGame(request(K1)).seat_tokens == first.seat_tokens
    finally:
        channel.close()


def test_the_python_client_retries_create_with_one_key() -> None:
    """The client's CreateGame request carries a fresh key per call, and a retry after
    DEADLINE_EXCEEDED (the answer lost, the game perhaps made) resends the very same request."""
    from cardcore_client import Client

    sent: list[pb.CreateGameRequest] = []
    credentials: list[object] = []

    async def flaky(req: pb.CreateGameRequest, **kw: object) -> pb.CreateGameResponse:
        sent.append(req)
        credentials.append(dict(kw["metadata"]).get("authorization"))  # type: ignore[call-overload]
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
    check_idempotency_key(sent[0].idempotency_key)  # a key the server takes (issue 22)
    assert credentials[0] and len(set(credentials)) == 1, "the client's own credential scopes it"


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


# --------------------------------------------------------------------------- keys are secrets


def create(stub: Any, key: str, *, credential: str = "", admin: str = "", **kw: Any) -> Any:
    metadata = [("authorization", f"Bearer {credential}")] if credential else []
    if admin:
        metadata.append(("x-cardcore-admin-key", admin))
    return stub.CreateGame(request(key, **kw), metadata=metadata)


def refusal(call: Any) -> tuple[grpc.StatusCode, str, str]:
    """The code, ErrorInfo reason and first BadRequest field of a refused call."""
    from google.rpc import error_details_pb2, status_pb2

    with pytest.raises(grpc.RpcError) as refused:
        call()
    err = refused.value
    status = status_pb2.Status.FromString(
        dict(err.trailing_metadata())["grpc-status-details-bin"]  # type: ignore[attr-defined]
    )
    info, bad = error_details_pb2.ErrorInfo(), error_details_pb2.BadRequest()
    status.details[0].Unpack(info)
    field = ""
    if len(status.details) > 1 and status.details[1].Unpack(bad):
        field = bad.field_violations[0].field
    return err.code(), info.reason, field  # type: ignore[attr-defined]


def test_a_short_or_guessable_key_is_refused_naming_the_field(server: ServerProcess) -> None:
    """Issue 22 fault 5: a key is a bearer secret (it hands out every token of its game), so a
    guessable one is refused: short, or made of repeats or runs. Random ones pass: a UUID's 32
    hex digits, a UUID, 22 characters of base64url."""
    channel = grpc.insecure_channel(server.target)
    stub = pb_grpc.GameServiceStub(channel)
    try:
        for weak in (
            "k-1",
            "0f3a9c",  # hex, 24 bits
            "Xq3_kP9-zL2mN8v",  # 15 characters of base64url: 90 bits
            "a" * 40,
            "ab" * 20,
            "00000000-0000-0000-0000-000000000000",
            "0123456789abcdef0123456789abcdef",
            "key with spaces and more than enough length",
        ):
            code, reason, field = refusal(lambda weak=weak: create(stub, weak))
            assert (code, reason, field) == (
                grpc.StatusCode.INVALID_ARGUMENT,
                "Malformed",
                "idempotency_key",
            ), weak
        for strong in (
            uuid.uuid4().hex,
            str(uuid.uuid4()),
            secrets.token_urlsafe(16),
            secrets.token_hex(64),
        ):
            assert create(stub, strong).game_id
    finally:
        channel.close()
    assert "Xq3_kP9-zL2mN8v" not in server.log_text(), "a key is never logged"


def test_a_key_used_by_another_caller_gets_nothing(tmp_path: Path) -> None:
    """A key belongs to the caller that sent it: to its own credential (any ``authorization``
    header it sends with CreateGame) and, on a server with one, the admin key. The same key
    from another caller makes another game, and says nothing of the first (even with another
    body: no 'already used'); only its own caller gets the first game back."""
    proc = ServerProcess(tmp_path, "--admin-key", "the-admin-key").start()
    channel = grpc.insecure_channel(proc.target)
    stub = pb_grpc.GameServiceStub(channel)
    admin = "the-admin-key"
    key = uuid.uuid4().hex
    try:
        mine = create(stub, key, credential="alice-own-secret", admin=admin)
        again = create(stub, key, credential="alice-own-secret", admin=admin)
        assert again == mine
        for other in ("bob-own-secret", ""):
            theirs = create(stub, key, credential=other, admin=admin)
            assert theirs.game_id != mine.game_id
            assert not {t.token for t in theirs.seat_tokens} & {t.token for t in mine.seat_tokens}
        # another body under the key: not "already used" (that would tell the key exists)
        spit = create(stub, key, credential="carol-own-secret", admin=admin, game="spit")
        assert spit.game_id != mine.game_id
        code, reason, _ = refusal(lambda: stub.CreateGame(request(key)))  # no admin key
        assert (code, reason) == (grpc.StatusCode.UNAUTHENTICATED, "AdminKeyRequired")
    finally:
        channel.close()
        assert proc.stop() == 0


def test_a_key_expires_with_its_game(server: ServerProcess) -> None:
    """Once the game a key made is over (here: aborted; a table: cancelled) the key no longer
    hands out its tokens: FAILED_PRECONDITION IdempotencyKeyExpired, naming the field."""
    channel = grpc.insecure_channel(server.target)
    stub = pb_grpc.GameServiceStub(channel)
    try:
        for open_seat in (False, True):
            key = uuid.uuid4().hex
            made = create(stub, key, open_seat=open_seat)
            assert create(stub, key, open_seat=open_seat) == made
            stub.AbortGame(
                pb.AbortGameRequest(game_id=made.game_id), metadata=auth(made.creator_token)
            )
            code, reason, field = refusal(lambda k=key, o=open_seat: create(stub, k, open_seat=o))
            assert (code, reason, field) == (
                grpc.StatusCode.FAILED_PRECONDITION,
                "IdempotencyKeyExpired",
                "idempotency_key",
            )
    finally:
        channel.close()
