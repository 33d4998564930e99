"""The gRPC contract against a real server: catalogue, health, reflection, play, idempotency,
the auth matrix and the rich error details."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_status import rpc_status

from cardcore import log as clog
from cardcore import registry
from cardcore_proto import game_service_pb2 as pb

from .helpers import ServerProcess, auth, command, create, stub


def details(exc: grpc.RpcError) -> tuple[str, dict[str, str]]:
    """(ErrorInfo.reason, BadRequest field → description) of a failed call."""
    status = rpc_status.from_call(exc)  # type: ignore[arg-type]
    assert status is not None, "every error carries google.rpc.Status details"
    reason, fields = "", {}
    for d in status.details:
        if d.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            d.Unpack(info)
            assert info.domain == "cardcore"
            reason = info.reason
        elif d.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            d.Unpack(bad)
            fields = {v.field: v.description for v in bad.field_violations}
    return reason, fields


def call_error(fn: Any) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        fn()
    return info.value


@pytest.fixture(scope="module")
def s(server: ServerProcess) -> Any:
    channel, st = stub(server.target)
    yield st
    channel.close()


def test_catalogue_lists_every_registered_game_with_schemas(s: Any) -> None:
    games = s.ListGames(pb.ListGamesRequest()).games
    assert [g.name for g in games] == [g.info.name for g in registry.GAMES]
    for g in games:
        assert g.rules_version and g.min_seats <= g.max_seats
        for text in (g.command_schema_json, g.event_schema_json, g.view_schema_json):
            assert isinstance(json.loads(text), dict)
        for f in g.flags:
            json.loads(f.default_json)
            assert isinstance(json.loads(f.schema_json), dict)


def test_health_and_reflection(server: ServerProcess) -> None:
    channel = grpc.insecure_channel(server.target)
    health = health_pb2_grpc.HealthStub(channel)
    for name in ("", "cardcore.v1.GameService"):
        r = health.Check(health_pb2.HealthCheckRequest(service=name))
        assert r.status == health_pb2.HealthCheckResponse.SERVING
    refl = reflection_pb2_grpc.ServerReflectionStub(channel)
    responses = refl.ServerReflectionInfo(
        iter([reflection_pb2.ServerReflectionRequest(list_services="")])
    )
    names = {s.name for r in responses for s in r.list_services_response.service}
    assert {"cardcore.v1.GameService", "grpc.health.v1.Health"} <= names
    channel.close()


def play_until_over(s: Any, game_id: str, tokens: dict[int, str], limit: int = 20000) -> int:
    """Every human seat plays its first legal command that is not a slap, in turn."""
    actions = 0
    while actions < limit:
        progressed = False
        for token in tokens.values():
            v = s.GetView(pb.GetViewRequest(game_id=game_id), metadata=auth(token))
            if v.HasField("outcome"):
                return actions
            cmds = [c for c in v.legal_commands if c.kind != "Slap"]
            if cmds:
                try:
                    s.SubmitAction(
                        pb.SubmitActionRequest(game_id=game_id, command=cmds[0]),
                        metadata=auth(token),
                    )
                    actions += 1
                    progressed = True
                except grpc.RpcError as exc:
                    assert exc.code() == grpc.StatusCode.FAILED_PRECONDITION
        if not progressed:
            import time

            time.sleep(0.01)
    raise AssertionError("game did not end")


@pytest.mark.parametrize("name", [g.info.name for g in registry.GAMES])
def test_every_game_plays_to_the_end_and_its_log_verifies(s: Any, name: str) -> None:
    g = registry.get_game(name)
    c = create(s, name, g.info.min_seats, bots=g.info.min_seats - 1, event_limit=2000)
    tokens = {t.seat: t.token for t in c.seat_tokens}
    play_until_over(s, c.game_id, tokens)
    r = s.GetLog(pb.GetLogRequest(game_id=c.game_id), metadata=auth(c.spectator_token))
    assert r.complete
    report = clog.verify(clog.loads(r.log_jsonl))
    assert report.revealed and report.outcome is not None
    # the stream of a finished game replays every entry and ends with the outcome
    entries, outcome = [], None
    for batch in s.StreamEvents(
        pb.StreamEventsRequest(game_id=c.game_id), metadata=auth(c.spectator_token), timeout=10
    ):
        entries.extend(e.seq for e in batch.entries)
        if batch.HasField("outcome"):
            outcome = batch.outcome
    assert entries == list(range(report.entries))
    assert outcome is not None and outcome.termination == report.outcome.termination.value


def test_submit_is_idempotent_per_action_id(s: Any) -> None:
    c = create(s, "ratscrew", 2, seed=42)
    t0, t1 = c.seat_tokens[0].token, c.seat_tokens[1].token
    req = pb.SubmitActionRequest(game_id=c.game_id, action_id="play-1", command=command("Play"))
    first = s.SubmitAction(req, metadata=auth(t0))
    again = s.SubmitAction(req, metadata=auth(t0))
    assert not first.replayed and again.replayed
    assert again.entry == first.entry
    # a rejection is replayed too, even after the state changed so that it would now pass
    stale = pb.SubmitActionRequest(game_id=c.game_id, action_id="p0-early", command=command("Play"))
    e1 = call_error(lambda: s.SubmitAction(stale, metadata=auth(t0)))
    assert details(e1)[0] == "NotYourTurn"
    s.SubmitAction(
        pb.SubmitActionRequest(game_id=c.game_id, command=command("Play")), metadata=auth(t1)
    )
    e2 = call_error(lambda: s.SubmitAction(stale, metadata=auth(t0)))
    assert details(e2)[0] == "NotYourTurn"
    # the same id with a different command is refused
    other = pb.SubmitActionRequest(game_id=c.game_id, action_id="play-1", command=command("Slap"))
    e3 = call_error(lambda: s.SubmitAction(other, metadata=auth(t0)))
    assert e3.code() == grpc.StatusCode.INVALID_ARGUMENT and "action_id" in details(e3)[1]
    # applied once: the log has the deal, play-1 and seat 1's play
    lines = clog.loads(s.GetLog(pb.GetLogRequest(game_id=c.game_id), metadata=auth(t0)).log_jsonl)
    assert [line["seq"] for line in lines if line["type"] == "entry"] == [0, 1, 2]


def play_some(s: Any, game_id: str, tokens: dict[int, str], n: int) -> None:
    """n accepted actions: each time, the first seat with a non-slap legal command plays it."""
    done = 0
    while done < n:
        for token in tokens.values():
            v = s.GetView(pb.GetViewRequest(game_id=game_id), metadata=auth(token))
            cmds = [c for c in v.legal_commands if c.kind != "Slap"]
            if cmds:
                s.SubmitAction(
                    pb.SubmitActionRequest(game_id=game_id, action_id=f"a{done}", command=cmds[0]),
                    metadata=auth(token),
                )
                done += 1
                break


RPCS = ["SubmitAction", "StreamEvents", "GetView", "GetLog"]


def invoke(s: Any, rpc: str, game_id: str, metadata: Any, **extra: Any) -> Any:
    if rpc == "SubmitAction":
        return s.SubmitAction(
            pb.SubmitActionRequest(game_id=game_id, command=command("Play"), **extra),
            metadata=metadata,
        )
    if rpc == "StreamEvents":
        return next(
            iter(
                s.StreamEvents(
                    pb.StreamEventsRequest(game_id=game_id), metadata=metadata, timeout=5
                )
            )
        )
    if rpc == "GetView":
        return s.GetView(pb.GetViewRequest(game_id=game_id), metadata=metadata)
    return s.GetLog(pb.GetLogRequest(game_id=game_id), metadata=metadata)


@pytest.fixture(scope="module")
def two_games(s: Any) -> tuple[Any, Any]:
    return create(s, "ratscrew", 2, seed=1), create(s, "ratscrew", 2, seed=2)


@pytest.mark.parametrize("rpc", RPCS)
@pytest.mark.parametrize(
    ("case", "code", "reason"),
    [
        ("no token", grpc.StatusCode.UNAUTHENTICATED, "MissingToken"),
        ("garbage token", grpc.StatusCode.UNAUTHENTICATED, "InvalidToken"),
        ("not a bearer", grpc.StatusCode.UNAUTHENTICATED, "InvalidToken"),
        ("another game's token", grpc.StatusCode.PERMISSION_DENIED, "WrongGame"),
        ("unknown game", grpc.StatusCode.NOT_FOUND, "GameNotFound"),
        ("malformed game id", grpc.StatusCode.INVALID_ARGUMENT, "Malformed"),
    ],
)
def test_auth_matrix(
    s: Any, two_games: tuple[Any, Any], rpc: str, case: str, code: grpc.StatusCode, reason: str
) -> None:
    a, b = two_games
    game_id = a.game_id
    metadata: Any = {
        "no token": (),
        "garbage token": auth("cct_" + "x" * 43),
        "not a bearer": (("authorization", a.seat_tokens[0].token),),
        "another game's token": auth(b.seat_tokens[0].token),
        "unknown game": auth(a.seat_tokens[0].token),
        "malformed game id": auth(a.seat_tokens[0].token),
    }[case]
    if case == "unknown game":
        game_id = "0" * 32
    if case == "malformed game id":
        game_id = "not-an-id"
    exc = call_error(lambda: invoke(s, rpc, game_id, metadata))
    assert exc.code() == code
    assert details(exc)[0] == reason


def test_auth_matrix_acting_roles(s: Any, two_games: tuple[Any, Any]) -> None:
    a, _ = two_games
    spectator = auth(a.spectator_token)
    exc = call_error(lambda: invoke(s, "SubmitAction", a.game_id, spectator))
    assert (exc.code(), details(exc)[0]) == (
        grpc.StatusCode.PERMISSION_DENIED,
        "SpectatorCannotAct",
    )
    # a seat claiming another seat
    exc = call_error(
        lambda: invoke(s, "SubmitAction", a.game_id, auth(a.seat_tokens[1].token), as_seat=0)
    )
    assert (exc.code(), details(exc)[0]) == (grpc.StatusCode.PERMISSION_DENIED, "SeatMismatch")
    # a seat naming a seat inside the command: the payload never carries one
    bad = pb.GameValue(kind="Play", json='{"kind":"Play","seat":0}')
    exc = call_error(
        lambda: s.SubmitAction(
            pb.SubmitActionRequest(game_id=a.game_id, command=bad),
            metadata=auth(a.seat_tokens[1].token),
        )
    )
    assert exc.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "command.json.seat" in details(exc)[1]
    # the spectator may watch: view, log and stream succeed
    for rpc in ("GetView", "GetLog", "StreamEvents"):
        invoke(s, rpc, a.game_id, spectator)
    v = s.GetView(pb.GetViewRequest(game_id=a.game_id), metadata=spectator)
    assert not v.HasField("seat") and not v.legal_commands


def test_setup_errors_name_the_field(s: Any) -> None:
    cases = [
        (pb.CreateGameRequest(game="nope", seats=[pb.SeatAssignment()] * 2), "game"),
        (pb.CreateGameRequest(game="ratscrew", seats=[pb.SeatAssignment()] * 1), "seats"),
        (
            pb.CreateGameRequest(
                game="ratscrew", seats=[pb.SeatAssignment()] * 2, rules_json='{"bogus": 1}'
            ),
            "rules_json.bogus",
        ),
        (
            pb.CreateGameRequest(
                game="ratscrew",
                seats=[pb.SeatAssignment()] * 2,
                rules_json='{"false_slap_penalty": -1}',
            ),
            "rules_json.false_slap_penalty",
        ),
        (
            pb.CreateGameRequest(game="ratscrew", seats=[pb.SeatAssignment()] * 2, rules_json="[1"),
            "rules_json",
        ),
        (
            pb.CreateGameRequest(
                game="ratscrew", seats=[pb.SeatAssignment()] * 2, timeouts_ms={"Fly": 5}
            ),
            "timeouts_ms.Fly",
        ),
    ]
    for request, field in cases:
        exc = call_error(lambda request=request: s.CreateGame(request))
        assert exc.code() == grpc.StatusCode.INVALID_ARGUMENT, field
        assert field in details(exc)[1], (field, details(exc))


def test_bad_input_is_echoed_bounded_and_sendable(s: Any) -> None:
    """Issue 13 faults 1 and 3: an error quoting a lone-surrogate escape (``"\\ud800"``) was
    ``UNKNOWN`` with an exception text; a 10,000-character key or a 65,537-character kind made
    the error metadata exceed 16 KiB (grpcio answered RESOURCE_EXHAUSTED without ErrorInfo).
    Now each is INVALID_ARGUMENT with its ErrorInfo and BadRequest, quoting a bounded prefix."""
    seats = [pb.SeatAssignment()] * 2
    game = create(s)
    cases = [
        lambda: s.CreateGame(
            pb.CreateGameRequest(game="ratscrew", seats=seats, rules_json='{"\\ud800":1}')
        ),
        lambda: s.CreateGame(
            pb.CreateGameRequest(game="ratscrew", seats=seats, timeouts_ms={"k" * 10_000: 5})
        ),
        lambda: s.SubmitAction(
            pb.SubmitActionRequest(
                game_id=game.game_id,
                command=pb.GameValue(kind="Play", json='{"kind":"Play","\\udc00":1}'),
            ),
            metadata=auth(game.seat_tokens[0].token),
        ),
        lambda: s.SubmitAction(
            pb.SubmitActionRequest(game_id=game.game_id, command=command("K" * 65_537)),
            metadata=auth(game.seat_tokens[0].token),
        ),
    ]
    for i, call in enumerate(cases):
        exc = call_error(call)
        assert exc.code() == grpc.StatusCode.INVALID_ARGUMENT, (i, exc.code(), exc.details())
        reason, fields = details(exc)
        assert reason == "Malformed" and fields, i
        status = rpc_status.from_call(exc)  # type: ignore[arg-type]
        assert status is not None and status.ByteSize() < 4096, (i, status.ByteSize())
        assert len(exc.details() or "") < 1024


def test_sizes_are_bounded_before_any_work(s: Any) -> None:
    """Issue 13 fault 4: CreateGame with 1,000,000 seats blocked the server for 2.2 s, working
    through every seat before the count was checked. The count now comes first: with 100,000
    seats of which the last is malformed, the error is the count, not ``seats[99999].kind``."""
    from cardcore_server.app import MAX_SEATS

    assert max(g.info.max_seats for g in registry.GAMES) == MAX_SEATS
    seats = [pb.SeatAssignment()] * 99_999 + [pb.SeatAssignment(kind=99)]  # type: ignore[arg-type]
    exc = call_error(lambda: s.CreateGame(pb.CreateGameRequest(game="ratscrew", seats=seats)))
    assert exc.code() == grpc.StatusCode.INVALID_ARGUMENT
    _, fields = details(exc)
    assert list(fields) == ["seats"] and "at most 8" in fields["seats"], fields
    nine = [pb.SeatAssignment()] * 9
    exc = call_error(lambda: s.CreateGame(pb.CreateGameRequest(game="speed", seats=nine)))
    assert list(details(exc)[1]) == ["seats"]
    many = {f"K{i}": 5 for i in range(1000)}
    request = pb.CreateGameRequest(game="ratscrew", seats=nine[:2], timeouts_ms=many)
    exc = call_error(lambda: s.CreateGame(request))
    assert list(details(exc)[1]) == ["timeouts_ms"]


def test_admin_key_and_client_seed_policy(tmp_path: Path) -> None:
    srv = ServerProcess(tmp_path, "--admin-key", "k3y", name="admin").start()
    try:
        channel, st = stub(srv.target)
        req = pb.CreateGameRequest(game="ratscrew", seats=[pb.SeatAssignment()] * 2)
        exc = call_error(lambda: st.CreateGame(req))
        assert (exc.code(), details(exc)[0]) == (
            grpc.StatusCode.UNAUTHENTICATED,
            "AdminKeyRequired",
        )
        exc = call_error(lambda: st.CreateGame(req, metadata=(("x-cardcore-admin-key", "nope"),)))
        assert exc.code() == grpc.StatusCode.PERMISSION_DENIED
        good = (("x-cardcore-admin-key", "k3y"),)
        created = st.CreateGame(req, metadata=good)
        assert len(created.seat_tokens) == 2 and len(created.seed_commitment) == 64
        tokens = {t.token for t in created.seat_tokens} | {created.spectator_token}
        assert len(tokens) == 3 and all(len(t) > 40 for t in tokens)
        seeded = pb.CreateGameRequest(game="ratscrew", seats=[pb.SeatAssignment()] * 2, seed=5)
        exc = call_error(lambda: st.CreateGame(seeded, metadata=good))
        assert (exc.code(), details(exc)[0]) == (
            grpc.StatusCode.PERMISSION_DENIED,
            "SeedNotAllowed",
        )
        channel.close()
    finally:
        assert srv.stop() == 0


def test_binding_beyond_loopback_needs_an_admin_key(tmp_path: Path) -> None:
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-m", "cardcore.cli", "serve", "--host", "0.0.0.0", "--port", "0",
         "--db", str(tmp_path / "x.db")],
        capture_output=True, text=True, timeout=60, check=False,
        env={k: v for k, v in __import__("os").environ.items() if k != "CARDCORE_ADMIN_KEY"},
    )  # fmt: skip
    assert r.returncode == 2 and "admin key" in r.stderr


def test_restart_rebuilds_unfinished_games(tmp_path: Path) -> None:
    srv = ServerProcess(tmp_path, "--allow-client-seed", name="rebuild").start()
    try:
        channel, st = stub(srv.target)
        c = create(st, "ratscrew", 2, seed=9)
        t = {x.seat: x.token for x in c.seat_tokens}
        play_some(st, c.game_id, t, 3)
        before = st.GetLog(pb.GetLogRequest(game_id=c.game_id), metadata=auth(t[0])).log_jsonl
        channel.close()
        assert srv.stop() == 0
        srv.start()
        channel, st = stub(srv.target)
        after = st.GetLog(pb.GetLogRequest(game_id=c.game_id), metadata=auth(t[0])).log_jsonl
        assert after == before
        assert '"rebuilt_games": 1' in srv.log_text()
        channel.close()
    finally:
        srv.stop()


def test_sigterm_ends_open_streams_promptly_and_exits_zero(tmp_path: Path) -> None:
    import threading
    import time

    srv = ServerProcess(tmp_path, "--allow-client-seed", name="sigterm").start()
    channel, st = stub(srv.target)
    c = create(st, "ratscrew", 2, seed=4)
    codes: list[grpc.StatusCode] = []

    def watch() -> None:
        try:
            for _ in st.StreamEvents(
                pb.StreamEventsRequest(game_id=c.game_id),
                metadata=auth(c.spectator_token),
                timeout=30,
            ):
                pass
        except grpc.RpcError as exc:
            codes.append(exc.code())

    t = threading.Thread(target=watch)
    t.start()
    time.sleep(0.5)
    start = time.monotonic()
    assert srv.stop() == 0
    t.join(10)
    assert time.monotonic() - start < 4.0, "the open stream held the shutdown"
    assert codes == [grpc.StatusCode.UNAVAILABLE]
    channel.close()
