"""Rate limits (issue 13): a token bucket per bearer token and per client address; a request
over it is answered RESOURCE_EXHAUSTED (gRPC, reason RateLimited with retry_after_s) or 429
with Retry-After (REST), before any work; the bucket refills."""

from __future__ import annotations

import time
from pathlib import Path

import grpc
import httpx
import pytest

from cardcore_proto import game_service_pb2 as pb
from cardcore_server.errors import ServiceError
from cardcore_server.limits import Limiter, RateLimits, TrustedProxies

from ..rest.helpers import RestServer
from .helpers import auth


def test_a_bucket_allows_its_burst_then_refills() -> None:
    lim = Limiter(rate=10, burst=3)
    assert [lim.take("a", now=0.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert lim.take("a", now=0.0) == pytest.approx(0.1)
    assert lim.take("b", now=0.0) == 0.0, "another key has its own bucket"
    assert lim.take("a", now=0.2) == 0.0, "refilled"
    limits = RateLimits(per_token=0.0, per_address=0.0)
    limits.admit("t", "1.2.3.4")  # off: never refuses
    with pytest.raises(ServiceError) as over:
        strict = RateLimits(per_token=1.0)
        for _ in range(5):
            strict.admit("t", None)
    assert over.value.reason == "RateLimited" and over.value.metadata["retry_after_s"] == "1"


def test_only_a_trusted_proxy_names_the_client() -> None:
    proxies = TrustedProxies(["10.0.0.0/8"])
    assert proxies.client("192.0.2.1", ["203.0.113.9"]) == "192.0.2.1", "not a proxy of ours"
    assert proxies.client("10.1.1.1", ["203.0.113.9"]) == "203.0.113.9"
    # Each proxy appends who reached it: what the client wrote itself, on the left, is not read.
    assert proxies.client("10.1.1.1", ["6.6.6.6, 203.0.113.9, 10.0.0.2"]) == "203.0.113.9"
    assert proxies.client("10.1.1.1", ["203.0.113.9:5678", "10.0.0.2"]) == "203.0.113.9"
    assert proxies.client("10.1.1.1", ["10.0.0.3, 10.0.0.2"]) == "10.0.0.3", "all proxies"
    assert proxies.client("10.1.1.1", []) == "10.1.1.1"
    assert TrustedProxies().client("127.0.0.1", ["203.0.113.9"]) == "127.0.0.1", "default: none"


def test_over_the_limit_on_both_transports(tmp_path: Path) -> None:
    proc = RestServer(tmp_path, "--rate-limit", "5", "--rate-limit-address", "50").start()
    try:
        http = httpx.Client(base_url=proc.url)
        created = http.post("/v1/games", json={"game": "speed", "seats": [{"kind": "human"}] * 2})
        assert created.status_code == 201
        gid, token = created.json()["game_id"], created.json()["seat_tokens"][0]["token"]
        codes = [
            http.get(f"/v1/games/{gid}/view", headers={"Authorization": f"Bearer {token}"})
            for _ in range(15)
        ]
        limited = [r for r in codes if r.status_code == 429]
        assert limited, [r.status_code for r in codes]
        assert limited[0].json()["code"] == "RateLimited"
        assert int(limited[0].headers["retry-after"]) >= 1
        channel = grpc.insecure_channel(proc.target)
        view = channel.unary_unary(
            "/cardcore.v1.GameService/GetView",
            request_serializer=pb.GetViewRequest.SerializeToString,
            response_deserializer=pb.GetViewResponse.FromString,
        )
        with pytest.raises(grpc.RpcError) as over:
            for _ in range(15):
                view(pb.GetViewRequest(game_id=gid), metadata=auth(token))
        assert over.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        channel.close()
        time.sleep(1.2)  # the token's bucket refills
        again = http.get(f"/v1/games/{gid}/view", headers={"Authorization": f"Bearer {token}"})
        assert again.status_code == 200
        http.close()
    finally:
        assert proc.stop() == 0


def forged_requests(proc: RestServer, n: int) -> tuple[int, int, int]:
    """``n`` requests over each transport, each claiming another client address in
    ``X-Forwarded-For`` (REST) or ``x-forwarded-for`` metadata (gRPC), and ``n`` REST requests
    all claiming one address: how many of each were served."""
    with httpx.Client(base_url=proc.url) as http:
        rest = sum(
            http.get("/v1/games", headers={"X-Forwarded-For": f"203.0.113.{i}"}).status_code == 200
            for i in range(n)
        )
        one = sum(
            http.get("/v1/games", headers={"X-Forwarded-For": "198.51.100.7"}).status_code == 200
            for _ in range(n)
        )
    channel = grpc.insecure_channel(proc.target)
    catalogue = channel.unary_unary(
        "/cardcore.v1.GameService/ListGames",
        request_serializer=pb.ListGamesRequest.SerializeToString,
        response_deserializer=pb.ListGamesResponse.FromString,
    )
    served = 0
    for i in range(n):
        try:
            catalogue(pb.ListGamesRequest(), metadata=(("x-forwarded-for", f"203.0.113.{i}"),))
            served += 1
        except grpc.RpcError as exc:
            assert exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    channel.close()
    return rest, served, one


def test_a_forged_forwarded_for_gains_nothing_unless_its_proxy_is_trusted(
    tmp_path: Path,
) -> None:
    """Issue 22 fault 2: with the per-address limit at 5/s (bursts of 10), 30 requests each
    naming another client in X-Forwarded-For were all served (uvicorn believed any loopback
    peer). By default the header is ignored: the sender is one address, limited as one. With
    ``--trusted-proxy 127.0.0.1/32`` the header is believed, on both transports: each named
    client has its own bucket, and one named client is limited as one."""
    n = 30
    plain = RestServer(tmp_path, "--rate-limit-address", "5", name="plain").start()
    try:
        rest, grpc_served, _ = forged_requests(plain, n)
    finally:
        assert plain.stop() == 0
    # 10 of burst, plus what refills while they run (a few tenths of a second at 5/s)
    assert rest <= 15 and grpc_served <= 15, (rest, grpc_served)
    behind = RestServer(
        tmp_path, "--rate-limit-address", "5", "--trusted-proxy", "127.0.0.1/32", name="proxied"
    ).start()
    try:
        rest, grpc_served, one = forged_requests(behind, n)
    finally:
        assert behind.stop() == 0
    assert (rest, grpc_served) == (n, n)
    assert one <= 15, one
