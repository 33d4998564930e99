"""The SSE stream: resume after a dropped connection with no gap or duplicate (Last-Event-ID
wins over ?from_seq=), live delivery, malformed resume points, and a clean end on SIGTERM."""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path

import httpx

from .helpers import Event, RestServer, bearer, create, sse_events


def _play(http: httpx.Client, gid: str, tokens: dict[int, str], n: int) -> None:
    """Submit ``n`` accepted actions (each seat's first legal command, in turn)."""
    done = 0
    while done < n:
        for token in tokens.values():
            v = http.get(f"/v1/games/{gid}/view", headers=bearer(token)).json()
            if v["legal_commands"] and done < n:
                r = http.post(
                    f"/v1/games/{gid}/actions",
                    json={"command": v["legal_commands"][0]},
                    headers=bearer(token),
                )
                done += r.status_code == 200


def _read(
    http: httpx.Client, gid: str, token: str, count: int, headers: dict[str, str], query: str = ""
) -> list[Event]:
    got: list[Event] = []
    with http.stream(
        "GET", f"/v1/games/{gid}/events{query}", headers={**bearer(token), **headers}
    ) as r:
        assert r.status_code == 200, r.read()
        for ev in sse_events(r):
            if ev.event == "entry":
                got.append(ev)
            if len(got) == count:
                break  # drop the connection mid-stream
    return got


def test_resume_after_a_dropped_connection(http: httpx.Client) -> None:
    c = create(http, "ratscrew", 2, seed=11)
    gid = c["game_id"]
    tokens = {t["seat"]: t["token"] for t in c["seat_tokens"]}
    _play(http, gid, tokens, 6)  # entries 0..6
    first = _read(http, gid, tokens[0], 4, {})
    assert [e.id for e in first] == ["0", "1", "2", "3"]
    _play(http, gid, tokens, 5)  # entries 7..11 arrive while disconnected
    # a reconnecting browser repeats the URL's from_seq=0 and adds Last-Event-ID: it wins
    rest = _read(http, gid, tokens[0], 8, {"Last-Event-ID": first[-1].id or ""}, "?from_seq=0")
    seqs = [int(e.id or -1) for e in first + rest]
    assert seqs == list(range(12)), seqs
    assert [e.json()["seq"] for e in first + rest] == seqs
    # ?from_seq= alone starts there
    tail = _read(http, gid, tokens[1], 3, {}, "?from_seq=9")
    assert [e.id for e in tail] == ["9", "10", "11"]


def test_live_entries_reach_an_open_stream(http: httpx.Client, rest_server: RestServer) -> None:
    c = create(http, "ratscrew", 2, seed=12)
    gid = c["game_id"]
    tokens = {t["seat"]: t["token"] for t in c["seat_tokens"]}
    got: list[Event] = []

    def follow() -> None:
        with httpx.Client(base_url=rest_server.url, timeout=20.0) as client:
            got.extend(_read(client, gid, c["spectator_token"], 6, {}))

    t = threading.Thread(target=follow, daemon=True)
    t.start()
    time.sleep(0.3)  # the stream is open and idle after the deal
    _play(http, gid, tokens, 5)
    t.join(20)
    assert not t.is_alive()
    assert [e.id for e in got] == ["0", "1", "2", "3", "4", "5"]


def test_malformed_resume_points_are_400(http: httpx.Client) -> None:
    c = create(http, "ratscrew", 2)
    gid, token = c["game_id"], c["spectator_token"]
    for value in ("abc", "-3", "1.5", "99999999999999999999999"):
        r = http.get(f"/v1/games/{gid}/events", headers={**bearer(token), "Last-Event-ID": value})
        assert r.status_code == 400, (value, r.text)
        assert r.json()["errors"][0]["field"] == "Last-Event-ID"
    r = http.get(f"/v1/games/{gid}/events?from_seq=-1", headers=bearer(token))
    assert r.status_code == 400 and r.json()["code"] == "Malformed"
    assert r.json()["errors"][0]["field"] == "from_seq"


def test_sigterm_ends_open_streams_cleanly(tmp_path: Path) -> None:
    server = RestServer(tmp_path, "--collect-window-ms", "0").start()
    try:
        with httpx.Client(base_url=server.url, timeout=10.0) as http:
            c = create(http, "ratscrew", 2)
        ends: list[list[Event]] = []
        first = threading.Semaphore(0)  # released once per stream that got its first event

        def follow() -> None:
            with (
                httpx.Client(base_url=server.url, timeout=30.0) as client,
                client.stream(
                    "GET", f"/v1/games/{c['game_id']}/events", headers=bearer(c["spectator_token"])
                ) as r,
            ):
                events: list[Event] = []
                for event in sse_events(r):
                    events.append(event)
                    if len(events) == 1:
                        first.release()
                ends.append(events)

        threads = [threading.Thread(target=follow, daemon=True) for _ in range(3)]
        for t in threads:
            t.start()
        for _ in threads:  # every stream open and served (a loaded machine may take a while)
            assert first.acquire(timeout=30)
        assert server.proc is not None
        started = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        rc = server.proc.wait(10)
        took = time.monotonic() - started
        server.proc = None
        for t in threads:
            t.join(5)
        assert rc == 0 and took < 4.0, (rc, took)
        assert len(ends) == 3
        for events in ends:
            assert events[0].event == "entry" and events[0].id == "0"
            assert events[-1].event == "closing"
            assert events[-1].json()["code"] == "ShuttingDown"
    finally:
        server.stop()
