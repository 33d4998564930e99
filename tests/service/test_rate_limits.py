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
from cardcore_server.limits import Limiter, RateLimits

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
