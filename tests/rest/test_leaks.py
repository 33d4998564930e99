"""No leaks over REST: everything a seat receives (submit answers, views, rejections, early log
downloads, its SSE stream) is exactly the core's redaction for that seat, carries no seed or salt
before the end, names no card hidden from it in a rejection; the server's log (REST request lines
included) holds no token, seed, salt or card. Every registered game, human seats, random legal
commands (lost races and false slaps included), a server-chosen seed."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import httpx
import pytest

from cardcore import codec, registry
from cardcore import log as clog

from .helpers import RestServer, bearer, sse_events

CARD_RE = re.compile(r"(?<![0-9A-Za-z])(?:10|[2-9AJQK])[SHDC♠♥♦♣](?![0-9A-Za-z])|JK")
MAX_ACTIONS = 250


def _stream(http: httpx.Client, gid: str, token: str, upto: int) -> tuple[list[Any], str]:
    """Entries 0..upto-1 of the seat's SSE stream, and the raw text received."""
    entries: list[Any] = []
    raw: list[str] = []
    if upto == 0:
        return entries, ""
    with http.stream("GET", f"/v1/games/{gid}/events", headers=bearer(token)) as r:
        for ev in sse_events(r):
            raw.append("\n".join(ev.raw))
            if ev.event == "entry":
                entries.append(ev.json())
            if len(entries) >= upto or ev.event != "entry":
                break
    return entries, "\n".join(raw)


@pytest.mark.parametrize("name", [g.info.name for g in registry.GAMES])
def test_seats_receive_exactly_their_redaction(rest_server: RestServer, name: str) -> None:
    game = registry.get_game(name)
    rng = random.Random(name)
    http = httpx.Client(base_url=rest_server.url, timeout=10.0)
    seats = max(2, game.info.min_seats)
    r = http.post(
        "/v1/games",
        json={"game": name, "seats": [{"kind": "human"}] * seats, "event_limit": 400},
    )
    assert r.status_code == 201, r.text
    c = r.json()
    gid = c["game_id"]
    tokens = {t["seat"]: t["token"] for t in c["seat_tokens"]}
    got: dict[int, dict[str, list[Any]]] = {
        s: {"entries": [], "views": [], "errors": [], "raw": []} for s in tokens
    }
    actions = 0
    over = False
    while not over and actions < MAX_ACTIONS:
        seat = rng.choice(list(tokens))
        rv = http.get(f"/v1/games/{gid}/view", headers=bearer(tokens[seat]))
        got[seat]["raw"].append(rv.text)
        v = rv.json()
        got[seat]["views"].append((v["seq"], v["view"]))
        if v["outcome"] is not None:
            break
        if rng.random() < 0.02:
            early = http.get(f"/v1/games/{gid}/log", headers=bearer(tokens[seat]))
            assert early.headers["cardcore-log-complete"] == "false"
            got[seat]["raw"].append(early.text)
            assert all(
                "seed" not in line and "salt" not in line for line in clog.loads(early.content)
            )
        if not v["legal_commands"]:
            continue
        cmd = rng.choice(v["legal_commands"])
        rs = http.post(
            f"/v1/games/{gid}/actions", json={"command": cmd}, headers=bearer(tokens[seat])
        )
        got[seat]["raw"].append(rs.text)
        if rs.status_code == 200:
            got[seat]["entries"].append(rs.json()["entry"])
            actions += 1
            over = rs.json()["outcome"] is not None
        else:
            assert rs.status_code == 409, rs.text
            got[seat]["errors"].append((v["view"], cmd, rs.json()["detail"]))
    # every seat's SSE stream up to now (the game may still run: read what is durable)
    for seat, token in tokens.items():
        upto = http.get(f"/v1/games/{gid}/view", headers=bearer(token)).json()["seq"]
        entries, raw = _stream(http, gid, token, upto)
        assert [e["seq"] for e in entries] == list(range(upto))
        got[seat]["entries"].extend(entries)
        got[seat]["raw"].append(raw)
    # finish the game so that the full log (with the seed) is public
    for _ in range(5000):
        states = [
            http.get(f"/v1/games/{gid}/view", headers=bearer(t)).json() for t in tokens.values()
        ]
        if states[0]["outcome"] is not None:
            break
        for (_seat, token), v in zip(tokens.items(), states, strict=True):
            if v["legal_commands"]:
                http.post(
                    f"/v1/games/{gid}/actions",
                    json={"command": v["legal_commands"][0]},
                    headers=bearer(token),
                )
    full = http.get(f"/v1/games/{gid}/log", headers=bearer(c["spectator_token"]))
    assert full.headers["cardcore-log-complete"] == "true"
    http.close()
    lines = clog.loads(full.content)
    clog.verify(lines)
    end = lines[-1]
    seed, salt = str(end["seed"]), str(end["salt"])
    states_after = [step.state for step in clog.replay(lines)]
    logged = {line["seq"]: line for line in lines if line["type"] == "entry"}
    for seat, rec in got.items():
        for e in rec["entries"]:
            line = logged[e["seq"]]
            assert e["seat"] == line["seat"] and e["action"] == line["action"]
            expected = [
                codec.encode(game.redact(game.decode_event(x), seat)) for x in line["events"]
            ]
            assert e["events"] == json.loads(codec.canonical_text(expected)), (seat, e["seq"])
        for seq, view in rec["views"]:
            expected_view = codec.encode(game.view(states_after[seq - 1], seat))
            assert view == json.loads(codec.canonical_text(expected_view)), (seat, seq)
        for view, cmd, message in rec["errors"]:
            visible = set(CARD_RE.findall(json.dumps(view))) | set(CARD_RE.findall(json.dumps(cmd)))
            assert set(CARD_RE.findall(message)) <= visible, message
        received = "\n".join(rec["raw"])
        assert seed not in received and salt not in received
        for other, token in tokens.items():
            assert other == seat or token not in received
    text = rest_server.log_text()
    for token in [*tokens.values(), c["spectator_token"]]:
        assert token not in text
    assert seed not in text and salt not in text
    assert '"transport": "rest"' in text
    assert not CARD_RE.findall(text), CARD_RE.findall(text)[:5]
