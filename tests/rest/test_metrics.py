"""``GET /metrics`` (issue 13): Prometheus text, scraped after a game, with the counters it must
have moved — requests by transport/RPC/code, latency histograms, rejections by code, store
commits, the host's timed actions (here a bot's), live games and open streams."""

from __future__ import annotations

import re

import httpx

from .helpers import bearer


def sample(text: str, name: str, **labels: str) -> float:
    """The value of one sample of the exposition text (0 when absent)."""
    for line in text.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', line.split(" ")[0]))
        if all(found.get(k) == v for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_metrics_after_a_game(http: httpx.Client) -> None:
    before = http.get("/metrics").text
    r = http.post(
        "/v1/games",
        json={
            "game": "ratscrew",
            "seats": [
                {"kind": "human"},
                {"kind": "random", "bot_min_delay_ms": 1, "bot_max_delay_ms": 2},
            ],
            "event_limit": 40,
        },
    )
    assert r.status_code == 201, r.text
    gid, token = r.json()["game_id"], r.json()["seat_tokens"][0]["token"]
    wrong = http.post(
        f"/v1/games/{gid}/actions", headers=bearer(token), json={"command": {"kind": "Collect"}}
    )
    assert wrong.status_code == 409
    with http.stream("GET", f"/v1/games/{gid}/events", headers=bearer(token)) as stream:
        for line in stream.iter_lines():
            if line.startswith("event: outcome"):
                break
            v = http.get(f"/v1/games/{gid}/view", headers=bearer(token)).json()
            if v["legal_commands"] and not v["outcome"]:
                http.post(
                    f"/v1/games/{gid}/actions",
                    headers=bearer(token),
                    json={"command": v["legal_commands"][0]},
                )
    scrape = http.get("/metrics")
    assert scrape.status_code == 200 and scrape.headers["content-type"].startswith("text/plain")
    text = scrape.text
    created = sample(text, "cardcore_requests_total", transport="rest", rpc="CreateGame", code="OK")
    assert created >= sample(before, "cardcore_requests_total", rpc="CreateGame", code="OK") + 1
    assert (
        sample(text, "cardcore_requests_total", transport="rest", rpc="SubmitAction", code="OK")
        >= 1
    )
    assert sample(text, "cardcore_request_seconds_count", transport="rest", rpc="GetView") >= 1
    rejected = re.findall(r'cardcore_rejections_total\{code="(\w+)"\}', text)
    assert rejected, "the rejected Collect is counted by its code"
    assert sample(text, "cardcore_store_commit_seconds_count") >= 2
    assert sample(text, "cardcore_store_commit_batch_count") >= 2
    assert (
        sum(float(v) for v in re.findall(r"cardcore_timer_firings_total\{[^}]*\} (\S+)", text)) >= 1
    ), "the bot's moves are the host's timed actions"
    assert "cardcore_live_games" in text and "cardcore_open_streams" in text
