"""Issue 13 faults 1–3 over REST: deeply nested JSON was a 500 (a ``RecursionError``), a 500 KB
key came back as a 1 MB 422; now each is a 400 problem document of bounded size, and the server
stays healthy."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import httpx
import pytest

from .helpers import RestServer, bearer, create

PROBLEM = "application/problem+json"


def check_problem(r: httpx.Response, field: str, status: int = 400) -> None:
    assert r.status_code == status, (r.status_code, r.text[:300])
    assert r.headers["content-type"] == PROBLEM
    assert len(r.content) < 4096, len(r.content)
    problem = r.json()
    assert problem["code"] == "Malformed"
    assert any(e["field"].startswith(field) for e in problem["errors"]), problem["errors"]


@pytest.mark.parametrize("body", [b"[" * 100_000, b'{"game":' + b"[" * 100_000])
def test_deeply_nested_json_is_a_400(http: httpx.Client, body: bytes) -> None:
    r = http.post("/v1/games", content=body, headers={"Content-Type": "application/json"})
    check_problem(r, "request")
    assert http.get("/v1/games").status_code == 200  # still serving


def test_a_deeply_nested_command_is_a_400(http: httpx.Client) -> None:
    game = create(http)
    token = game["seat_tokens"][0]["token"]
    body = b'{"command":{"kind":"Play","x":' + b"[" * 100_000 + b"}"
    r = http.post(
        f"/v1/games/{game['game_id']}/actions",
        content=body,
        headers={**bearer(token), "Content-Type": "application/json"},
    )
    check_problem(r, "")


def test_a_huge_key_is_quoted_bounded(http: httpx.Client) -> None:
    body = {"game": "ratscrew", "seats": [{"kind": "human"}] * 2, "rules": {"k" * 50_000: 1}}
    r = http.post("/v1/games", json=body)  # the request decodes: the flag is refused (422)
    check_problem(r, "rules.", 422)
    assert "characters)" in r.json()["errors"][0]["field"]  # says how long the key was
    body["rules"] = {"k" * 500_000: 1}
    check_problem(http.post("/v1/games", json=body), "rules", 422)  # over the rules' bound


def test_a_lone_surrogate_key_is_a_400(http: httpx.Client) -> None:
    body = b'{"game":"ratscrew","seats":[{"kind":"human"},{"kind":"human"}],"rules":{"\\ud800":1}}'
    r = http.post("/v1/games", content=body, headers={"Content-Type": "application/json"})
    check_problem(r, "request")  # msgspec refuses the escape: the body does not decode


def test_an_unknown_route_is_a_problem_document(http: httpx.Client) -> None:
    """Issue 13 fault 8: ``/v1/<unknown>`` answered text/html (Litestar's OpenAPI router)."""
    for path in ("/v1/nope", "/v1/games/x/nope/deeper", "/v1/nope.html"):
        r = http.get(path)
        assert r.status_code == 404 and r.headers["content-type"] == PROBLEM, (path, r.text[:80])
        assert r.json()["code"] == "NotFound"


def test_the_openapi_document_is_served_as_yaml_too(http: httpx.Client) -> None:
    import yaml  # type: ignore[import-untyped]

    as_json = http.get("/v1/openapi.json")
    as_yaml = http.get("/v1/openapi.yaml")
    assert as_yaml.status_code == 200, as_yaml.status_code
    assert yaml.safe_load(as_yaml.text) == as_json.json()


def test_a_401_names_its_scheme(http: httpx.Client) -> None:
    game = create(http)
    r = http.get(f"/v1/games/{game['game_id']}/view")
    assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize("value", ["1e3", str(2**64), "+1", "-1", " 1"])
def test_from_seq_is_a_seq(http: httpx.Client, value: str) -> None:
    """Issue 13 fault 8: ``from_seq=1e3`` and values above 2^64 were accepted."""
    game = create(http)
    r = http.get(
        f"/v1/games/{game['game_id']}/events",
        params={"from_seq": value},
        headers=bearer(game["seat_tokens"][0]["token"]),
        timeout=5,
    )
    check_problem(r, "from_seq")


def test_the_openapi_document_speaks_to_its_users(http: httpx.Client) -> None:
    """Issue 13 fault 8: ``info.description`` was this module's docstring; 413 undocumented."""
    doc = http.get("/v1/openapi.json").json()
    description = doc["info"]["description"]
    assert "Litestar" not in description and "transport" not in description
    assert "Server-Sent Events" in description
    for path, method in (("/v1/games", "post"), ("/v1/games/{game_id}/actions", "post")):
        assert "413" in doc["paths"][path][method]["responses"], (path, method)


def test_the_seat_count_is_bounded_by_the_decoder(http: httpx.Client) -> None:
    """Issue 13 fault 4: 300,000 seats over REST stalled the server for 0.7 s in per-seat work;
    the wire type now bounds the list (a 400 naming ``seats``), as gRPC checks the count first."""
    body = {"game": "ratscrew", "seats": [{"kind": "human"}] * 50_000}  # under the 1 MiB body cap
    r = http.post("/v1/games", json=body)
    check_problem(r, "seats")
    assert "length <= 8" in r.json()["errors"][0]["description"]


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded"])
def test_a_body_that_is_not_json_is_a_415(http: httpx.Client, content_type: str) -> None:
    """Issue 13 fault 8: REST accepted any Content-Type."""
    body = b'{"game":"ratscrew","seats":[{"kind":"human"},{"kind":"human"}]}'
    r = http.post("/v1/games", content=body, headers={"Content-Type": content_type})
    assert r.status_code == 415 and r.headers["content-type"] == PROBLEM, r.text[:200]
    assert r.json()["code"] == "UnsupportedMediaType" and r.headers["accept-post"]
    ok = http.post(
        "/v1/games", content=body, headers={"Content-Type": "application/json; charset=utf-8"}
    )
    assert ok.status_code == 201, ok.text[:200]


def test_a_client_hanging_up_mid_body_is_not_an_internal_error(tmp_path: Path) -> None:
    """Issue 13 fault 6: a client that closed the connection before its whole body was sent
    was logged as ``internal_error`` (HTTP 500). It is the client's doing: an info line."""
    server = RestServer(tmp_path, name="hangup").start()
    try:
        for _ in range(3):
            with socket.create_connection(("127.0.0.1", server.rest_port), timeout=5) as sock:
                sock.sendall(
                    b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    b"Content-Length: 1000\r\n\r\n" + b'{"game": "ratscrew", "seats": ['
                )
        with httpx.Client(base_url=server.url, timeout=5) as client:
            assert client.get("/v1/games").status_code == 200  # the requests above are done
        deadline = time.monotonic() + 5
        while "client_disconnected" not in server.log_path.read_text():
            assert time.monotonic() < deadline, server.log_path.read_text()[-2000:]
            time.sleep(0.05)
    finally:
        assert server.stop() == 0
    log = server.log_path.read_text()
    assert "internal_error" not in log and "Traceback" not in log, log[-2000:]
