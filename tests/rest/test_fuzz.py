"""Bad input over REST (issue 13): Hypothesis throws the classes of input the issue lists — text
that is not JSON, lone surrogate escapes, nesting far past any decoder, huge keys and values,
oversized bodies, wrong content types, odd path segments and query values, garbage tokens — at
every operation of the served OpenAPI document (so a new route is fuzzed without a change
here), against one real server.

Every answer: never a 5xx; an error is a problem document (its own content type, its ``status``,
a ``code``) under 4 KiB with its headers, that repeats no parser text; the status is one the
document declares for the operation (or 404/405 for a path that no longer matches it). After
the run the server is healthy, logged no internal error and no line that is not JSON, and its
resident memory stays under :data:`RSS_BOUND_MB`. The gRPC side is :mod:`tests.service.test_fuzz`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from .helpers import RestServer, bearer, create

RSS_BOUND_MB = 400
"""The server's resident memory after the whole run stays below this (it starts near 90)."""
MAX_ERROR_BYTES = 4096
LEAKY = ("Traceback", "msgspec", "JSONDecodeError", "Exception", "litestar", "line ")
EXAMPLES = 500


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    query: tuple[str, ...]
    body: bool
    statuses: frozenset[int]


class Env:
    def __init__(self, server: RestServer) -> None:
        self.server = server
        self.http = httpx.Client(base_url=server.url, timeout=10)
        game = create(self.http, "ratscrew", 2)
        self.game_id = game["game_id"]
        self.tokens = [t["token"] for t in game["seat_tokens"]] + [game["spectator_token"]]
        doc = self.http.get("/v1/openapi.json").json()
        self.operations = [
            Operation(
                method.upper(),
                path,
                tuple(p["name"] for p in op.get("parameters", []) if p["in"] == "query"),
                "requestBody" in op,
                frozenset(int(s) for s in op["responses"]),
            )
            for path, ops in doc["paths"].items()
            for method, op in ops.items()
        ]


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    server = RestServer(tmp_path_factory.mktemp("rest-fuzz"), "--collect-window-ms", "0").start()
    e = Env(server)
    yield e
    assert e.http.get("/healthz").status_code == 200
    e.http.close()
    assert server.proc is not None
    status = Path(f"/proc/{server.proc.pid}/status").read_text()
    rss_kb = int(next(ln for ln in status.splitlines() if ln.startswith("VmRSS:")).split()[1])
    assert rss_kb < RSS_BOUND_MB * 1024, f"the server grew to {rss_kb // 1024} MB"
    assert server.stop() == 0
    server.log_records()  # every line is JSON
    lines = server.log_text().splitlines()
    assert not [line for line in lines if '"internal_error"' in line or '"error"' in line[:40]]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = [
    "game",
    "seats",
    "rules",
    "seed",
    "event_limit",
    "timeouts_ms",
    "command",
    "action_id",
    "entropy",
    "invite",
    "game_id",
    "seat",
    "tokens",
    "fill_with",
    "kind",
]


@st.composite
def bodies(draw: st.DrawFn) -> bytes:
    choice = draw(st.integers(0, 9))
    if choice == 0:
        return draw(st.binary(max_size=200))  # not JSON, mostly
    if choice == 1:  # lone surrogate escapes, as a key and as a value, nested in a command
        return b'{"command":{"kind":"Play","\\ud800":"\\udc00"},"\\udfff":1}'
    if choice == 2:  # nesting far past any decoder
        return b"[" * draw(st.integers(100, 100_000))
    if choice == 3:  # a huge key (its error must quote a bounded prefix of it)
        return json.dumps(
            {"game": "ratscrew", "x" * draw(st.integers(10_000, 500_000)): 1}
        ).encode()
    if choice == 4:  # many seats, or a body past the size limit
        return json.dumps(
            {"game": "ratscrew", "seats": [{}] * draw(st.integers(50, 400_000))}
        ).encode()
    if choice == 5:
        return json.dumps(draw(json_values)).encode()
    fields = draw(st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=5))
    if choice == 6:
        fields["command"] = {"kind": draw(st.sampled_from(["Play", "Slap", "", "x" * 70_000]))}
    if choice == 7:
        fields["game"] = draw(st.sampled_from(["ratscrew", "palace", "", "nope"]))
        fields["seats"] = [{"kind": draw(st.sampled_from(["human", "bot", 7, None]))}] * 2
    return json.dumps(fields).encode()


segment = st.one_of(
    st.text(max_size=40),
    st.just("f" * 32),
    st.just("x" * 5000),
    st.sampled_from(["..", "%00", " ", "cci_" + "x" * 32]),
)
query_values = st.one_of(
    st.sampled_from(["-1", "1e3", "18446744073709551616", "0x10", "", "99999999999999999999999"]),
    st.text(max_size=20),
)
CONTENT_TYPES = [
    "application/json",
    "text/plain",
    None,
    "application/json; charset=latin-1",
    "multipart/form-data",
]
printable = st.text(max_size=60).map(
    # what a header may carry: visible ASCII and inner spaces (a field value's surrounding
    # whitespace is not part of it, RFC 9110 §5.5, and h11 refuses to send it)
    lambda t: "".join(c for c in t if 32 <= ord(c) < 127).strip(" ")
)


def check(op: Operation, response: httpx.Response, body: bytes) -> None:
    status = response.status_code
    assert status < 500, (op, status, body[:300])
    assert status in op.statuses | {404, 405}, (op, status, body[:300])
    if status < 400:
        return
    assert response.headers["content-type"].startswith("application/problem+json"), body[:200]
    size = len(body) + sum(len(k) + len(v) for k, v in response.headers.items())
    assert size < MAX_ERROR_BYTES, f"an error of {size} bytes: {body[:200]!r}"
    problem = json.loads(body)
    assert problem["status"] == status and problem["code"], problem
    assert not any(word in problem["detail"] for word in LEAKY), problem


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_every_route_answers_bad_input_in_bounds(env: Env, data: st.DataObject) -> None:
    op = data.draw(st.sampled_from(env.operations))
    path = op.path
    for name in ("game_id", "code"):
        if "{" + name + "}" in path:
            value = data.draw(st.one_of(st.just(env.game_id), segment))
            path = path.replace("{" + name + "}", quote(value, safe="") or "x")
    params = {name: data.draw(query_values) for name in op.query if data.draw(st.booleans())}
    headers: dict[str, str] = {}
    who = data.draw(st.integers(0, 5))
    if who < len(env.tokens):
        headers |= bearer(env.tokens[who])
    elif who == 4:
        headers["Authorization"] = data.draw(
            st.one_of(printable, st.just("Bearer " + "x" * 10_000))
        )
    if data.draw(st.booleans()):
        headers["Last-Event-ID"] = data.draw(query_values.map(lambda v: v.encode().hex()[:40]))
    content: bytes | None = None
    if op.body or data.draw(st.integers(0, 4)) == 0:
        content = data.draw(bodies())
        kind = data.draw(st.sampled_from(CONTENT_TYPES))
        if kind is not None:
            headers["Content-Type"] = kind
    with env.http.stream(
        op.method, path, params=params, headers=headers, content=content
    ) as response:
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            event(f"{op.method} {op.path} -> stream")
            assert response.status_code == 200
            return  # a live game's stream: it would wait for more
        event(f"{op.method} {op.path} -> {response.status_code}")
        check(op, response, response.read())
