"""The auth matrix on every REST route, each case checked against the gRPC answer of the same
server: the same reason (``ErrorInfo.reason`` = the problem's ``code``) with the HTTP status that
fits the gRPC code. Plus the admin key and the client-seed policy."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from cardcore_proto import game_service_pb2 as pb
from cardcore_proto import game_service_pb2_grpc as pb_grpc

from .helpers import RestServer, bearer, create

HTTP_FOR: dict[grpc.StatusCode, int] = {
    grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.INVALID_ARGUMENT: 422,
    grpc.StatusCode.FAILED_PRECONDITION: 409,
}
UNKNOWN_GAME = "0123456789abcdef0123456789abcdef"


@pytest.fixture(scope="module")
def games(http_module: httpx.Client) -> dict[str, Any]:
    return {"a": create(http_module, "ratscrew", 2), "b": create(http_module, "ratscrew", 2)}


@pytest.fixture(scope="module")
def http_module(rest_server: RestServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=rest_server.url, timeout=10.0) as client:
        yield client


@pytest.fixture(scope="module")
def stub(rest_server: RestServer) -> Iterator[Any]:
    channel = grpc.insecure_channel(rest_server.target)
    yield pb_grpc.GameServiceStub(channel)
    channel.close()


def _grpc_error(call: Callable[[], Any]) -> tuple[grpc.StatusCode, str]:
    try:
        result = call()
        if hasattr(result, "__iter__") and not hasattr(result, "SerializeToString"):
            list(result)
    except grpc.RpcError as exc:
        status = rpc_status.from_call(exc)  # type: ignore[arg-type]
        assert status is not None
        info = error_details_pb2.ErrorInfo()
        assert status.details[0].Unpack(info)
        return exc.code(), info.reason  # type: ignore[attr-defined]
    raise AssertionError("the gRPC call succeeded")


def _rest(http: httpx.Client, route: str, game_id: str, headers: dict[str, str]) -> httpx.Response:
    url = f"/v1/games/{game_id}/{route}"
    if route == "actions":
        return http.post(url, json={"command": {"kind": "Play"}}, headers=headers)
    return http.get(url, headers=headers)


def _grpc(stub: Any, route: str, game_id: str, md: tuple[tuple[str, str], ...]) -> Any:
    if route == "actions":
        cmd = pb.GameValue(kind="Play", json='{"kind":"Play"}')
        req = pb.SubmitActionRequest(game_id=game_id, command=cmd)
        return lambda: stub.SubmitAction(req, metadata=md, timeout=5)
    if route == "view":
        return lambda: stub.GetView(pb.GetViewRequest(game_id=game_id), metadata=md, timeout=5)
    if route == "log":
        return lambda: stub.GetLog(pb.GetLogRequest(game_id=game_id), metadata=md, timeout=5)
    req = pb.StreamEventsRequest(game_id=game_id)
    return lambda: stub.StreamEvents(req, metadata=md, timeout=5)


ROUTES = ["actions", "view", "log", "events"]
CASES = {
    "no token": (lambda g: {}, "a", "MissingToken"),
    "not bearer": (lambda g: {"Authorization": "Basic dXNlcjpwYXNz"}, "a", "InvalidToken"),
    "garbage token": (lambda g: bearer("cct_not-a-real-token"), "a", "InvalidToken"),
    "other game's token": (lambda g: bearer(g["b"]["seat_tokens"][0]["token"]), "a", "WrongGame"),
    "unknown game": (lambda g: bearer(g["a"]["seat_tokens"][0]["token"]), "?", "GameNotFound"),
    "malformed game id": (lambda g: bearer(g["a"]["seat_tokens"][0]["token"]), "!", "Malformed"),
}


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("case", list(CASES))
def test_auth_matrix_matches_grpc(
    http_module: httpx.Client, stub: Any, games: dict[str, Any], route: str, case: str
) -> None:
    make_headers, which, reason = CASES[case]
    headers = make_headers(games)
    game_id = {"a": games["a"]["game_id"], "?": UNKNOWN_GAME, "!": "NOT-A-GAME"}[which]
    r = _rest(http_module, route, game_id, headers)
    md = tuple((k.lower(), v) for k, v in headers.items())
    code, grpc_reason = _grpc_error(_grpc(stub, route, game_id, md))
    assert grpc_reason == reason
    assert r.headers["content-type"] == "application/problem+json", r.text
    problem = r.json()
    assert (r.status_code, problem["code"]) == (HTTP_FOR[code], reason), problem
    assert problem["status"] == r.status_code and problem["type"].endswith("/" + reason)
    if reason == "Malformed":
        assert problem["errors"] == [
            {"field": "game_id", "description": problem["errors"][0]["description"]}
        ]
    assert "cct_" not in r.text


def test_spectators_watch_but_cannot_act(
    http_module: httpx.Client, stub: Any, games: dict[str, Any]
) -> None:
    gid, token = games["a"]["game_id"], games["a"]["spectator_token"]
    r = _rest(http_module, "actions", gid, bearer(token))
    assert (r.status_code, r.json()["code"]) == (403, "SpectatorCannotAct")
    assert _grpc_error(_grpc(stub, "actions", gid, (("authorization", f"Bearer {token}"),))) == (
        grpc.StatusCode.PERMISSION_DENIED,
        "SpectatorCannotAct",
    )
    v = http_module.get(f"/v1/games/{gid}/view", headers=bearer(token))
    assert v.status_code == 200 and v.json()["seat"] is None and v.json()["legal_commands"] == []
    assert http_module.get(f"/v1/games/{gid}/log", headers=bearer(token)).status_code == 200
    with http_module.stream("GET", f"/v1/games/{gid}/events", headers=bearer(token)) as s:
        assert s.status_code == 200


def test_a_seat_cannot_act_as_another(http_module: httpx.Client, games: dict[str, Any]) -> None:
    gid = games["a"]["game_id"]
    token = games["a"]["seat_tokens"][0]["token"]
    r = http_module.post(
        f"/v1/games/{gid}/actions",
        json={"command": {"kind": "Play"}, "as_seat": 1},
        headers=bearer(token),
    )
    assert (r.status_code, r.json()["code"]) == (403, "SeatMismatch")


def test_catalogue_needs_no_token(http_module: httpx.Client) -> None:
    assert http_module.get("/v1/games").status_code == 200
    assert http_module.get("/v1/games", headers=bearer("garbage")).status_code == 200


def test_admin_key_and_seed_policy(tmp_path: Path) -> None:
    server = RestServer(tmp_path, "--admin-key", "s3cret-admin").start()
    body = {"game": "ratscrew", "seats": [{"kind": "human"}, {"kind": "human"}]}
    try:
        with httpx.Client(base_url=server.url, timeout=10.0) as http:
            r = http.post("/v1/games", json=body)
            assert (r.status_code, r.json()["code"]) == (401, "AdminKeyRequired")
            r = http.post("/v1/games", json=body, headers={"X-Cardcore-Admin-Key": "wrong"})
            assert (r.status_code, r.json()["code"]) == (403, "AdminKeyRequired")
            ok = {"X-Cardcore-Admin-Key": "s3cret-admin"}
            assert http.post("/v1/games", json=body, headers=ok).status_code == 201
            r = http.post("/v1/games", json={**body, "seed": 5}, headers=ok)
            assert (r.status_code, r.json()["code"]) == (403, "SeedNotAllowed")
        assert server.stop() == 0
        assert "s3cret-admin" not in server.log_text()
    finally:
        server.stop()


def test_beyond_loopback_needs_an_admin_key(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "cardcore.cli", "serve", "--host", "0.0.0.0", "--port", "0"]
    done = subprocess.run(
        [*cmd, "--db", str(tmp_path / "x.db")], capture_output=True, timeout=30, check=False
    )
    assert done.returncode == 2 and b"admin key" in done.stderr


def test_field_paths_match_grpc(
    http_module: httpx.Client, stub: Any, games: dict[str, Any]
) -> None:
    """Malformed input names the same field on both transports; the proto's JSON-in-a-string
    fields (`command.json`, `rules_json`) are the objects `command` and `rules` in REST."""
    gid = games["a"]["game_id"]
    token = games["a"]["seat_tokens"][0]["token"]
    md = (("authorization", f"Bearer {token}"),)
    cases = [
        ({"kind": "Bogus"}, "command.kind"),
        ({"kind": "Slap", "expect_epoch": "x"}, "command.expect_epoch"),
    ]
    for command, rest_path in cases:
        r = http_module.post(
            f"/v1/games/{gid}/actions", json={"command": command}, headers=bearer(token)
        )
        assert r.status_code == 422, r.text
        req = pb.SubmitActionRequest(
            game_id=gid, command=pb.GameValue(kind=command["kind"], json=json.dumps(command))
        )
        try:
            stub.SubmitAction(req, metadata=md, timeout=5)
            raise AssertionError("accepted")
        except grpc.RpcError as exc:
            status = rpc_status.from_call(exc)  # type: ignore[arg-type]
            assert status is not None
            bad = error_details_pb2.BadRequest()
            assert status.details[1].Unpack(bad)
            grpc_path = bad.field_violations[0].field
        assert grpc_path.replace("command.json", "command") == rest_path
        assert r.json()["errors"][0]["field"] == rest_path
        assert r.json()["code"] == "Malformed"
    r = http_module.post(
        "/v1/games",
        json={"game": "ratscrew", "seats": [{"kind": "human"}] * 2, "rules": {"num_decks": 99}},
    )
    assert (r.status_code, r.json()["errors"][0]["field"]) == (422, "rules.num_decks")
