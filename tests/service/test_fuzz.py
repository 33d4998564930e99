"""Bad input: Hypothesis fuzzing of every RPC against a real server.

Malformed bytes and malformed-but-decodable messages (random ids, tokens, invites, page tokens,
JSON with lone surrogates and deep nesting, kinds, enum values, sizes) never get ``UNKNOWN`` or
``INTERNAL``, never echo parser text, every error's message and details stay under 4 KiB, the
server keeps serving, and its resident memory stays under :data:`RSS_BOUND_MB`. ~2,100 cases
in all, each a real call on 127.0.0.1.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardcore_proto import game_service_pb2 as pb

from .helpers import ServerProcess, auth, create, stub

SERVICE = "/cardcore.v1.GameService/"
UNARY = [
    "ListGames",
    "CreateGame",
    "SubmitAction",
    "GetView",
    "GetLog",
    "JoinTable",
    "StartTable",
    "AbortGame",
    "GetTable",
    "ListTables",
    "WatchTable",
    "ListMyGames",
]
RSS_BOUND_MB = 400
"""The server's resident memory after the whole fuzz run stays below this (it starts near 90)."""
MAX_ERROR_BYTES = 4096
FORBIDDEN = {grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL}
LEAKY = ("Traceback", "google.protobuf", "DecodeError", "Error parsing", "Exception")


def fuzz(n: int) -> settings:
    return settings(
        max_examples=n,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )


class Env:
    def __init__(self, srv: ServerProcess) -> None:
        self.srv = srv
        self.channel, self.stub = stub(srv.target)
        c = create(self.stub, "ratscrew", 2, seed=3)
        self.game_id = c.game_id
        self.tokens = [c.seat_tokens[0].token, c.seat_tokens[1].token, c.spectator_token]

    def metadata(self, choice: int | None, garbage: str) -> tuple[tuple[str, str], ...]:
        if choice is None:
            return ()
        if choice >= len(self.tokens):
            return (("authorization", garbage),)
        return auth(self.tokens[choice])


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Env]:
    tmp: Path = tmp_path_factory.mktemp("fuzz")
    srv = ServerProcess(tmp, "--allow-client-seed", "--collect-window-ms", "0", name="fuzz").start()
    e = Env(srv)
    yield e
    e.channel.close()
    # still serving, and nothing internal was ever logged
    health = health_pb2_grpc.HealthStub(grpc.insecure_channel(srv.target))
    assert health.Check(health_pb2.HealthCheckRequest()).status == 1
    assert '"internal_error"' not in srv.log_text()
    assert srv.proc is not None
    status = Path(f"/proc/{srv.proc.pid}/status").read_text()
    rss_kb = int(next(ln for ln in status.splitlines() if ln.startswith("VmRSS:")).split()[1])
    assert rss_kb < RSS_BOUND_MB * 1024, f"the server grew to {rss_kb // 1024} MB"
    assert srv.stop() == 0


def check(exc: grpc.RpcError) -> None:
    assert exc.code() not in FORBIDDEN, (exc.code(), exc.details())
    details = exc.details() or ""
    assert not any(word in details for word in LEAKY), details
    trailing = exc.trailing_metadata() or ()  # type: ignore[attr-defined]
    size = len(details.encode()) + sum(len(k) + len(v) for k, v in trailing)
    assert size < MAX_ERROR_BYTES, f"an error of {size} bytes"
    if exc.code() != grpc.StatusCode.DEADLINE_EXCEEDED:
        assert any(k == "grpc-status-details-bin" for k, _ in trailing), "no ErrorInfo"


def call(env: Env, method: str, payload: bytes, metadata: Any) -> None:
    try:
        if method == "StreamEvents":
            stream = env.channel.unary_stream(SERVICE + method)(
                payload, metadata=metadata, timeout=0.3
            )
            for _ in stream:
                pass
        else:
            env.channel.unary_unary(SERVICE + method)(payload, metadata=metadata, timeout=5)
    except grpc.RpcError as exc:
        if exc.code() == grpc.StatusCode.DEADLINE_EXCEEDED and method == "StreamEvents":
            return  # a live game's stream waits for more
        check(exc)


token_choice = st.one_of(st.none(), st.integers(0, 3))
garbage = st.text(max_size=60).map(lambda t: "".join(c for c in t if 32 <= ord(c) < 127))


@fuzz(900)
@given(
    method=st.sampled_from([*UNARY, "StreamEvents"]),
    payload=st.binary(max_size=300),
    who=token_choice,
    junk=garbage,
)
def test_malformed_bytes(env: Env, method: str, payload: bytes, who: int | None, junk: str) -> None:
    call(env, method, payload, env.metadata(who, junk))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
KINDS = ["Play", "Slap", "Collect", "", "Deal", "View", "play"]


@st.composite
def command_json(draw: st.DrawFn) -> str:
    choice = draw(st.integers(0, 5))
    if choice == 0:
        return draw(st.text(max_size=80))  # not JSON, mostly
    if choice == 4:  # a lone surrogate escape, as a key and as a value
        return '{"kind":"Play","\\ud800":"\\udc00"}'
    if choice == 5:  # nesting far past any sane depth
        return "[" * draw(st.integers(100, 5000))
    if choice == 1:
        return json.dumps(draw(json_values))
    fields = draw(
        st.dictionaries(
            st.sampled_from(["kind", "expect_epoch", "seen_count", "seat", "x"]),
            json_values,
            max_size=4,
        )
    )
    if choice == 2:
        fields["kind"] = draw(st.sampled_from(KINDS))
    return json.dumps(fields)


def game_ids(env: Env) -> st.SearchStrategy[str]:
    return st.one_of(st.just(env.game_id), st.text(max_size=40), st.just("f" * 32))


seat_assignments = st.builds(
    pb.SeatAssignment,
    kind=st.sampled_from([0, 1, 7, 99]),  # humans and unknown enum values (bots run elsewhere)
    bot_min_delay_ms=st.integers(0, 2**32 - 1),
    bot_max_delay_ms=st.integers(0, 2**32 - 1),
)


@fuzz(1200)
@given(
    data=st.data(), method=st.sampled_from([*UNARY, "StreamEvents"]), who=token_choice, junk=garbage
)
def test_malformed_but_decodable_messages(
    env: Env, data: st.DataObject, method: str, who: int | None, junk: str
) -> None:
    ids = game_ids(env)
    if method == "ListGames":
        msg: Any = pb.ListGamesRequest()
    elif method == "CreateGame":
        msg = pb.CreateGameRequest(
            game=data.draw(st.sampled_from(["ratscrew", "ers", "speed", "palace", "", "x" * 200])),
            seats=data.draw(st.lists(seat_assignments, max_size=10)),
            rules_json=data.draw(st.one_of(st.just(""), command_json())),
            event_limit=data.draw(st.integers(0, 2**64 - 1)),
            timeouts_ms=data.draw(
                st.dictionaries(st.sampled_from(KINDS), st.integers(0, 2**32 - 1), max_size=3)
            ),
        )
        if data.draw(st.booleans()):
            msg.seed = data.draw(st.integers(0, 2**64 - 1))
    elif method == "SubmitAction":
        msg = pb.SubmitActionRequest(
            game_id=data.draw(ids),
            action_id=data.draw(st.text(max_size=140)),
            command=pb.GameValue(
                kind=data.draw(st.sampled_from(KINDS)), json=data.draw(command_json())
            ),
        )
        if data.draw(st.booleans()):
            msg.as_seat = data.draw(st.integers(0, 2**32 - 1))
    elif method == "StreamEvents":
        msg = pb.StreamEventsRequest(
            game_id=data.draw(ids), from_seq=data.draw(st.integers(0, 2**64 - 1))
        )
    elif method == "GetView":
        msg = pb.GetViewRequest(game_id=data.draw(ids))
    elif method == "GetLog":
        msg = pb.GetLogRequest(game_id=data.draw(ids))
    elif method == "JoinTable":
        msg = pb.JoinTableRequest(
            invite=data.draw(st.one_of(st.text(max_size=70), st.just("cci_" + "x" * 32))),
            game_id=data.draw(ids),
            entropy=data.draw(st.binary(max_size=40)),
        )
        if data.draw(st.booleans()):
            msg.seat = data.draw(st.integers(0, 2**32 - 1))
    elif method == "StartTable":
        msg = pb.StartTableRequest(game_id=data.draw(ids), fill_with=data.draw(st.integers(0, 9)))
    elif method == "AbortGame":
        msg = pb.AbortGameRequest(game_id=data.draw(ids))
    elif method == "GetTable":
        msg = pb.GetTableRequest(game_id=data.draw(ids))
    elif method == "ListTables":
        msg = pb.ListTablesRequest(
            game=data.draw(st.sampled_from(["", "palace", "nope", "x" * 100])),
            page_size=data.draw(st.integers(0, 2**32 - 1)),
            page_token=data.draw(st.text(max_size=120)),
        )
    elif method == "WatchTable":
        msg = pb.WatchTableRequest(game_id=data.draw(ids))
    else:
        msg = pb.ListMyGamesRequest(tokens=data.draw(st.lists(st.text(max_size=60), max_size=60)))
    call(env, method, msg.SerializeToString(), env.metadata(who, junk))
