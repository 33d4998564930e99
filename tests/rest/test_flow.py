"""The whole REST flow against a real server: catalogue, create, view, submit (idempotent
retries, rejections), the SSE stream to the end, the log (redacted while running, complete and
verifiable after), and the same entries as the gRPC stream of the same process."""

from __future__ import annotations

import json
import threading
from typing import Any

import grpc
import httpx

from cardcore import codec, registry
from cardcore import log as clog
from cardcore_proto import game_service_pb2 as pb
from cardcore_proto import game_service_pb2_grpc as pb_grpc

from .helpers import Event, RestServer, bearer, create, sse_events


def test_catalogue_lists_every_game_with_schemas(http: httpx.Client) -> None:
    r = http.get("/v1/games")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    games = r.json()["games"]
    assert [g["name"] for g in games] == [g.info.name for g in registry.GAMES]
    for g in games:
        assert g["command_schema"] and g["event_schema"] and g["view_schema"]
        for f in g["flags"]:
            assert {"name", "default", "schema", "help"} <= set(f)


def _follow(url: str, token: str, out: list[Event], done: threading.Event) -> None:
    with (
        httpx.Client(base_url=url, timeout=httpx.Timeout(10.0, read=60.0)) as c,
        c.stream("GET", f"/v1/games/{out[0].data}/events", headers=bearer(token)) as r,
    ):
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        out.clear()
        out.extend(sse_events(r))
    done.set()


def test_whole_game_over_rest(rest_server: RestServer, http: httpx.Client) -> None:
    c = create(http, "ratscrew", 2, seed=7, event_limit=120)
    gid = c["game_id"]
    tokens = {t["seat"]: t["token"] for t in c["seat_tokens"]}
    assert set(tokens) == {0, 1} and c["header"]["commitment"] == c["seed_commitment"]
    assert "seed" not in json.dumps(c["header"]["setup"])

    # a spectator follows the whole game over SSE while the seats play
    seen: list[Event] = [Event(data=gid)]
    done = threading.Event()
    follower = threading.Thread(
        target=_follow, args=(rest_server.url, c["spectator_token"], seen, done), daemon=True
    )
    follower.start()

    # seat 1 acting first is a rejection by the rules: 409 with the RejectCode
    r = http.post(
        f"/v1/games/{gid}/actions", json={"command": {"kind": "Play"}}, headers=bearer(tokens[1])
    )
    assert r.status_code == 409 and r.headers["content-type"] == "application/problem+json"
    problem = r.json()
    assert problem["code"] == "NotYourTurn" and problem["status"] == 409
    assert problem["metadata"]["game_id"] == gid and problem["metadata"]["next_seq"] == "1"

    # an action_id is applied once; the retry returns the original answer
    body = {"command": {"kind": "Play"}, "action_id": "first-play"}
    first = http.post(f"/v1/games/{gid}/actions", json=body, headers=bearer(tokens[0]))
    assert first.status_code == 200, first.text
    again = http.post(f"/v1/games/{gid}/actions", json=body, headers=bearer(tokens[0]))
    assert again.status_code == 200
    assert again.json()["entry"] == first.json()["entry"] and again.json()["replayed"] is True
    assert first.json()["entry"]["seq"] == 1
    other = {"command": {"kind": "Slap"}, "action_id": "first-play"}
    reused = http.post(f"/v1/games/{gid}/actions", json=other, headers=bearer(tokens[0]))
    assert reused.status_code == 422 and reused.json()["errors"][0]["field"] == "action_id"

    # a running game's log is the caller's redaction, without the seed
    running = http.get(f"/v1/games/{gid}/log", headers=bearer(tokens[0]))
    assert running.status_code == 200 and running.headers["cardcore-log-complete"] == "false"
    assert all("seed" not in line for line in clog.loads(running.content))

    # play to the end: each seat submits its first legal command in turn
    outcome: dict[str, Any] | None = None
    turns = 0
    while outcome is None and turns < 2000:
        for seat, token in tokens.items():
            v = http.get(f"/v1/games/{gid}/view", headers=bearer(token)).json()
            assert v["seat"] == seat
            if v["outcome"] is not None:
                outcome = v["outcome"]
                break
            if not v["legal_commands"]:
                continue
            r = http.post(
                f"/v1/games/{gid}/actions",
                json={"command": v["legal_commands"][0], "action_id": f"t{turns}-{seat}"},
                headers=bearer(token),
            )
            assert r.status_code in (200, 409), r.text
            turns += 1
            if r.status_code == 200 and r.json()["outcome"] is not None:
                outcome = r.json()["outcome"]
                break
    assert outcome is not None, "the game must end (event limit 120)"

    assert done.wait(20), "the SSE stream must end once the game is over"
    entries = [e for e in seen if e.event == "entry"]
    assert [int(e.id or -1) for e in entries] == list(range(len(entries)))
    assert [e.json()["seq"] for e in entries] == list(range(len(entries)))
    assert seen[-1].event == "outcome" and seen[-1].json() == outcome

    # the complete log: seed revealed, verifies, and matches what the stream showed
    full = http.get(f"/v1/games/{gid}/log", headers=bearer(tokens[1]))
    assert full.headers["cardcore-log-complete"] == "true"
    assert full.headers["content-type"].startswith("application/x-ndjson")
    lines = clog.loads(full.content)
    clog.verify(lines)
    assert lines[-1]["type"] == "end" and lines[-1]["seed"] == 7
    logged = [line for line in lines if line["type"] == "entry"]
    assert len(logged) == len(entries)
    game = registry.get_game("ratscrew")
    for line, ev in zip(logged, entries, strict=True):
        got = ev.json()
        assert got["action"] == line["action"] and got["seat"] == line["seat"]
        expected = [
            codec.encode(game.redact(game.decode_event(e), "spectator")) for e in line["events"]
        ]
        assert got["events"] == json.loads(codec.canonical_text(expected))

    # the gRPC stream of the same process shows the same entries to the same viewer
    channel = grpc.insecure_channel(rest_server.target)
    stub = pb_grpc.GameServiceStub(channel)
    grpc_entries = [
        e
        for batch in stub.StreamEvents(
            pb.StreamEventsRequest(game_id=gid),
            metadata=(("authorization", f"Bearer {c['spectator_token']}"),),
            timeout=10,
        )
        for e in batch.entries
    ]
    channel.close()
    assert [e.seq for e in grpc_entries] == [e.json()["seq"] for e in entries]
    for g, ev in zip(grpc_entries, entries, strict=True):
        assert [json.loads(x.json) for x in g.events] == ev.json()["events"]
        assert ev.data == ev.data.strip() and '"' in ev.data  # one line of JSON per event

    # after the end, a new stream replays everything and closes at once
    with http.stream("GET", f"/v1/games/{gid}/events?from_seq=5", headers=bearer(tokens[0])) as r:
        again_events = list(sse_events(r))
    assert next(int(e.id or -1) for e in again_events if e.event == "entry") == 5
    assert again_events[-1].event == "outcome"
