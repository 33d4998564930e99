"""The play channel over a WebSocket (docs/reference/play-channel.md), against a real server:
the frames of a whole game for every seat are exactly the core's redaction for that seat; acts
are acknowledged once durable, rejected with REST's codes, idempotent across both paths; round
trips reach the view; every malformed frame closes with its code and changes nothing."""

from __future__ import annotations

import contextlib
import json
import random
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from cardcore import codec, registry
from cardcore import log as clog

from .helpers import RestServer, bearer, create
from .test_leaks import CARD_RE


@contextlib.contextmanager
def _open(
    server: RestServer, gid: str, token: str, from_seq: int = 0
) -> Iterator[ClientConnection]:
    """A channel of ``token`` on ``gid``, authenticated (its ``ready`` read)."""
    with connect(f"ws://127.0.0.1:{server.rest_port}/v1/games/{gid}/play", open_timeout=5) as ws:
        ws.send(json.dumps({"type": "auth", "token": token, "from_seq": from_seq}))
        ready = json.loads(ws.recv(timeout=5))
        assert ready["type"] == "ready" and ready["game_id"] == gid, ready
        yield ws


def _until(ws: ClientConnection, kind: str, seen: list[dict[str, Any]]) -> dict[str, Any]:
    """Frames up to the first of ``kind`` (pings answered), all kept in ``seen``."""
    return _first(ws, seen, lambda frame: frame["type"] == kind)


def _answer(ws: ClientConnection, action_id: str, seen: list[dict[str, Any]]) -> dict[str, Any]:
    """Frames up to the ``ack`` or ``rejected`` of ``action_id``."""
    return _first(
        ws, seen, lambda f: f["type"] in ("ack", "rejected") and f["action_id"] == action_id
    )


def _first(
    ws: ClientConnection, seen: list[dict[str, Any]], wanted: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    """Frames up to the first ``wanted`` one (pings answered), all kept in ``seen``."""
    while True:
        frame = json.loads(ws.recv(timeout=5))
        seen.append(frame)
        if frame["type"] == "ping":
            ws.send(json.dumps({"type": "pong", "nonce": frame["nonce"]}))
        if wanted(frame):
            return frame


def _closed_with(ws: ClientConnection) -> tuple[int, str]:
    with pytest.raises(ConnectionClosed) as closed:
        for _ in range(100):
            ws.recv(timeout=5)
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code, closed.value.rcvd.reason


def test_act_ack_rejection_and_idempotency(rest_server: RestServer, http: httpx.Client) -> None:
    c = create(http, "ratscrew", 2, seed=11, event_limit=200)
    gid, tokens = c["game_id"], {t["seat"]: t["token"] for t in c["seat_tokens"]}
    seen: list[dict[str, Any]] = []
    with _open(rest_server, gid, tokens[0]) as ws:
        assert _until(ws, "entry", seen)["entry"]["seq"] == 0  # the deal, redacted
        ws.send(json.dumps({"type": "act", "command": {"kind": "Play"}, "action_id": "p1"}))
        ack = _until(ws, "ack", seen)
        assert ack == {
            "type": "ack",
            "action_id": "p1",
            "seq": 1,
            "replayed": False,
            "outcome": None,
        }
        assert _until(ws, "entry", seen)["entry"]["seq"] == 1
        # not seat 0's turn now: the REST answer's code and document, nothing changed
        ws.send(json.dumps({"type": "act", "command": {"kind": "Play"}, "action_id": "p2"}))
        rejected = _until(ws, "rejected", seen)
        assert rejected["action_id"] == "p2"
        assert rejected["problem"]["code"] == "NotYourTurn"
        assert rejected["problem"]["status"] == 409
        assert rejected["problem"]["metadata"]["next_seq"] == "2"
        # the same action_id again, over the channel then over REST: the first answer
        ws.send(json.dumps({"type": "act", "command": {"kind": "Play"}, "action_id": "p1"}))
        assert _until(ws, "ack", seen) == {**ack, "replayed": True}
        r = http.post(
            f"/v1/games/{gid}/actions",
            json={"command": {"kind": "Play"}, "action_id": "p1"},
            headers=bearer(tokens[0]),
        )
        assert r.status_code == 200 and r.json()["replayed"] and r.json()["entry"]["seq"] == 1
        # a command that is not one: the field at fault, as REST names it
        ws.send(json.dumps({"type": "act", "command": {"kind": "Fly"}, "action_id": "p3"}))
        bad = _until(ws, "rejected", seen)["problem"]
        assert bad["status"] == 422 and bad["errors"][0]["field"].startswith("command")
        ws.send(json.dumps({"type": "view"}))
        view = _until(ws, "view", seen)
        assert view["seq"] == 2 and view["seat"] == 0
    assert http.get(f"/v1/games/{gid}/view", headers=bearer(tokens[1])).json()["seq"] == 2


def test_resume_has_no_gap_and_no_duplicate(rest_server: RestServer, http: httpx.Client) -> None:
    c = create(http, "slapjack", 2, seed=5, event_limit=200)
    gid, tokens = c["game_id"], {t["seat"]: t["token"] for t in c["seat_tokens"]}
    for i in range(6):
        seat = i % 2
        http.post(
            f"/v1/games/{gid}/actions",
            json={"command": {"kind": "Play"}},
            headers=bearer(tokens[seat]),
        )
    seen: list[dict[str, Any]] = []
    with _open(rest_server, gid, tokens[1], from_seq=3) as ws:
        entries = [_until(ws, "entry", seen)["entry"]["seq"] for _ in range(4)]
    assert entries == [3, 4, 5, 6]


def test_round_trips_reach_the_seat_view(rest_server: RestServer, http: httpx.Client) -> None:
    c = create(http, "speed", 2, seed=3, event_limit=200)
    gid, tokens = c["game_id"], {t["seat"]: t["token"] for t in c["seat_tokens"]}
    seen: list[dict[str, Any]] = []
    assert http.get(f"/v1/games/{gid}/view", headers=bearer(tokens[0])).json()["rtt_ms"] is None
    with _open(rest_server, gid, tokens[0]) as ws:
        ping = _until(ws, "ping", seen)  # the first comes with ready; answered at once
        assert 0 < ping["nonce"] < 2**53  # random, and exact in a JavaScript client
        time.sleep(0.05)
        ws.send(json.dumps({"type": "view"}))
        rtt = _until(ws, "view", seen)["rtt_ms"]
        assert isinstance(rtt, int) and 0 <= rtt < 1000
        rest = http.get(f"/v1/games/{gid}/view", headers=bearer(tokens[0])).json()
        assert rest["rtt_ms"] == rtt and 0 in rest["present_seats"]
        other = http.get(f"/v1/games/{gid}/view", headers=bearer(tokens[1])).json()
        assert other["rtt_ms"] is None
    metrics = http.get("/metrics").text
    assert "cardcore_play_rtt_seconds_count" in metrics
    assert 'cardcore_play_channels{transport="websocket"}' in metrics


BAD_FRAMES = [
    ("binary", b'{"type":"view"}', 1003),
    ("not JSON", "{nope", 1007),
    ("not an object", "[1,2]", 1007),
    ("unknown type", '{"type":"shout"}', 1007),
    ("unknown field", '{"type":"view","extra":1}', 1007),
    ("wrong field type", '{"type":"pong","nonce":"x"}', 1007),
    ("auth again", '{"type":"auth","token":"x"}', 1008),
    ("over 64 KiB", '{"type":"act","command":{"kind":"' + "x" * 70_000 + '"}}', 1009),
]


@pytest.mark.parametrize(("name", "frame", "code"), BAD_FRAMES, ids=[b[0] for b in BAD_FRAMES])
def test_bad_frames_close_with_their_code_and_change_nothing(
    rest_server: RestServer, http: httpx.Client, name: str, frame: str | bytes, code: int
) -> None:
    c = create(http, "ratscrew", 2, seed=2, event_limit=50)
    gid, token = c["game_id"], c["seat_tokens"][0]["token"]
    with _open(rest_server, gid, token) as ws:
        ws.send(frame)
        assert _closed_with(ws)[0] == code, name
    assert http.get(f"/v1/games/{gid}/view", headers=bearer(token)).json()["seq"] == 1


@pytest.mark.parametrize(
    ("first", "code"),
    [
        ('{"type":"act","command":{"kind":"Play"}}', 1008),
        ('{"type":"auth","token":"not-a-token"}', 4401),
        ("other game's token", 4403),
    ],
    ids=["act before auth", "unknown token", "another game's token"],
)
def test_authentication_comes_first(
    rest_server: RestServer, http: httpx.Client, first: str, code: int
) -> None:
    c = create(http, "ratscrew", 2, seed=2, event_limit=50)
    other = create(http, "ratscrew", 2, seed=3, event_limit=50)
    if first == "other game's token":
        first = json.dumps({"type": "auth", "token": other["seat_tokens"][0]["token"]})
    url = f"ws://127.0.0.1:{rest_server.rest_port}/v1/games/{c['game_id']}/play"
    with connect(url, open_timeout=5) as ws:
        ws.send(first)
        assert _closed_with(ws)[0] == code
    view = http.get(f"/v1/games/{c['game_id']}/view", headers=bearer(c["seat_tokens"][0]["token"]))
    assert view.json()["seq"] == 1


def test_spectators_watch_but_may_not_act(rest_server: RestServer, http: httpx.Client) -> None:
    c = create(http, "ratscrew", 2, seed=9, event_limit=50)
    seen: list[dict[str, Any]] = []
    with _open(rest_server, c["game_id"], c["spectator_token"]) as ws:
        ws.send(json.dumps({"type": "act", "command": {"kind": "Play"}, "action_id": "s"}))
        assert _until(ws, "rejected", seen)["problem"]["code"] == "SpectatorCannotAct"


@pytest.mark.parametrize("name", [g.info.name for g in registry.GAMES])
def test_whole_game_frames_are_each_seats_redaction(
    rest_server: RestServer, http: httpx.Client, name: str
) -> None:
    """Every seat on a channel, random legal commands from its view frames until the game
    ends: each seat's entries and views are the core's for it, rejections name no card it
    cannot see, no frame carries the seed, the salt or another seat's token; ``end``, then 1000."""
    game = registry.get_game(name)
    rng = random.Random(name)
    seats = max(2, game.info.min_seats)
    c = create(http, name, seats, event_limit=300)
    gid, tokens = c["game_id"], {t["seat"]: t["token"] for t in c["seat_tokens"]}
    opened = contextlib.ExitStack()
    sockets = {s: opened.enter_context(_open(rest_server, gid, t)) for s, t in tokens.items()}
    frames: dict[int, list[dict[str, Any]]] = {s: [] for s in tokens}
    raw: dict[int, list[str]] = {s: [] for s in tokens}
    views: dict[int, list[dict[str, Any]]] = {s: [] for s in tokens}
    over = False
    for n in range(400):
        seat = rng.choice(list(tokens))
        ws = sockets[seat]
        ws.send(json.dumps({"type": "view"}))
        view = _until(ws, "view", frames[seat])
        views[seat].append(view)
        if view["outcome"] is not None:
            over = True
            break
        if view["legal_commands"]:
            cmd = rng.choice(view["legal_commands"])
            ws.send(json.dumps({"type": "act", "command": cmd, "action_id": f"a{n}"}))
            answer = _answer(ws, f"a{n}", frames[seat])
            if answer["type"] == "ack" and answer["outcome"] is not None:
                over = True
                break
    if not over:  # finish over REST so that the log, and the seed, are public
        http.post(
            f"/v1/games/{gid}/abort", headers={"authorization": f"Bearer {c['creator_token']}"}
        )
    for seat, ws in sockets.items():  # each reads to its end: every entry, then end, then 1000
        try:
            while True:
                text = ws.recv(timeout=5)
                assert isinstance(text, str)
                frames[seat].append(json.loads(text))
        except ConnectionClosed as closed:
            assert closed.rcvd is not None and closed.rcvd.code == 1000, closed
        raw[seat] = [json.dumps(f) for f in frames[seat]]
    opened.close()
    full = http.get(f"/v1/games/{gid}/log", headers=bearer(c["spectator_token"]))
    assert full.headers["cardcore-log-complete"] == "true"
    lines = clog.loads(full.content)
    clog.verify(lines)
    end = lines[-1]
    seed, salt = str(end["seed"]), str(end["salt"])
    states_after = [step.state for step in clog.replay(lines)]
    logged = {line["seq"]: line for line in lines if line["type"] == "entry"}
    for seat in tokens:
        entries = [f["entry"] for f in frames[seat] if f["type"] == "entry"]
        assert [e["seq"] for e in entries] == sorted(logged), (seat, "gap or duplicate")
        for e in entries:
            line = logged[e["seq"]]
            expected = [
                codec.encode(game.redact(game.decode_event(x), seat)) for x in line["events"]
            ]
            assert e["events"] == json.loads(codec.canonical_text(expected)), (seat, e["seq"])
        for v in views[seat]:
            expected_view = codec.encode(game.view(states_after[v["seq"] - 1], seat))
            assert v["view"] == json.loads(codec.canonical_text(expected_view)), (seat, v["seq"])
        for f in frames[seat]:
            if f["type"] == "rejected":
                assert not set(CARD_RE.findall(f["problem"]["detail"])) - _visible(views[seat])
        ends = [f for f in frames[seat] if f["type"] == "end"]
        assert len(ends) == 1 and frames[seat][-1]["type"] == "end"
        before_end = "\n".join(raw[seat][:-1])
        assert seed not in before_end and salt not in before_end
        for other, token in tokens.items():
            assert other == seat or token not in "\n".join(raw[seat])


def _visible(views: list[dict[str, Any]]) -> set[str]:
    return {card for v in views for card in CARD_RE.findall(json.dumps(v))}
