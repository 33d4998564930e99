"""A submit during a database outage (issue 22, fault 7) is answered ``UNAVAILABLE`` within
``CLIENT_WAIT_S`` (2 s) of its arrival, whether the database is down (every query fails at once,
and the sequencer retries with backoff) or cut off (a query waits for TCP to give up, ~15 s
with the keepalives set): before, a client's action waited 8 s for the first, and its own
deadline for the second. Once the database is back, the same ``action_id`` gets its one answer.

PostgreSQL is reached through a proxy (:mod:`.tcpproxy`) that the test silences or takes down,
so the database itself, shared with other tests, is never disturbed."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import grpc
import pytest

from cardcore_proto import game_service_pb2 as pb
from cardcore_server.live import CLIENT_WAIT_S

from .helpers import ServerProcess, auth, stub
from .tcpproxy import Mode, TcpProxy

BOUND_S = CLIENT_WAIT_S + 0.5
"""What the test allows: the bound, plus the scheduling of a busy machine."""


def through(url: str, port: int) -> str:
    """``url`` with its host and port replaced by the proxy's."""
    parts = urlsplit(url)
    auth_part = parts.netloc.rpartition("@")[0]
    return urlunsplit(parts._replace(netloc=f"{auth_part}@127.0.0.1:{port}"))


def submit(s: Any, game_id: str, token: str, action_id: str, command: pb.GameValue) -> str:
    try:
        r = s.SubmitAction(
            pb.SubmitActionRequest(game_id=game_id, action_id=action_id, command=command),
            metadata=auth(token),
            timeout=15,
        )
    except grpc.RpcError as exc:
        return f"{exc.code().name}: {exc.details()}"  # type: ignore[attr-defined]
    return f"OK {r.entry.seq}"


def legal(s: Any, game_id: str, token: str) -> pb.GameValue:
    view = s.GetView(pb.GetViewRequest(game_id=game_id), metadata=auth(token), timeout=15)
    return view.legal_commands[0]


@pytest.mark.solo  # a time bound
def test_a_submit_during_an_outage_is_answered_within_the_bound(
    tmp_path: Path, pg_url: str
) -> None:
    parts = urlsplit(pg_url)
    with TcpProxy(parts.hostname or "127.0.0.1", parts.port or 5432) as proxy:
        server = ServerProcess(tmp_path, "--collect-window-ms", "0", db=through(pg_url, proxy.port))
        server.start()
        channel, s = stub(server.target)
        try:
            human = pb.SeatAssignment(kind=pb.SEAT_KIND_HUMAN)
            made = s.CreateGame(pb.CreateGameRequest(game="palace", seats=[human, human]))
            tokens = [t.token for t in made.seat_tokens]
            gid = made.game_id
            assert submit(s, gid, tokens[0], "warm", legal(s, gid, tokens[0])).startswith("OK")
            modes: tuple[Mode, ...] = ("silent", "down")
            for mode in modes:
                command = legal(s, gid, tokens[1])
                proxy.set(mode)
                began = time.monotonic()
                answer = submit(s, gid, tokens[1], f"during-{mode}", command)
                took = time.monotonic() - began
                assert answer.startswith("UNAVAILABLE"), (mode, answer)
                assert took < BOUND_S, f"{mode}: answered after {took:.2f} s"
                print(f"database {mode}: UNAVAILABLE after {took:.2f} s")
                proxy.set("relay")
                # Back: the same action_id gets its one answer (applied at most once).
                deadline = time.monotonic() + 30
                while (again := submit(s, gid, tokens[1], f"during-{mode}", command)).startswith(
                    "UNAVAILABLE"
                ):
                    assert time.monotonic() < deadline, "the server did not recover"
                    time.sleep(0.2)
                assert submit(s, gid, tokens[1], f"during-{mode}", command) == again
                print(f"database back: {again} after {time.monotonic() - deadline + 30:.2f} s")
            log = s.GetLog(pb.GetLogRequest(game_id=gid), metadata=auth(tokens[0]), timeout=15)
            entries = [json.loads(x) for x in log.log_jsonl.decode().splitlines()[1:]]
            assert [e["seq"] for e in entries] == list(range(len(entries)))
        finally:
            channel.close()
            assert server.stop() == 0
