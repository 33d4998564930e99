"""REST CreateGame with ``idempotency_key`` (issue 13 fault 9), and the view's ``head_hash``."""

from __future__ import annotations

import httpx

from cardcore import log as clog

from .helpers import bearer


def test_the_same_key_gives_the_same_game(http: httpx.Client) -> None:
    body = {
        "game": "speed",
        "seats": [{"kind": "human"}, {"kind": "human"}],
        "idempotency_key": "r-1",
    }
    a, b = http.post("/v1/games", json=body), http.post("/v1/games", json=body)
    assert a.status_code == b.status_code == 201
    assert a.json() == b.json()
    other = http.post("/v1/games", json={**body, "game": "spit"})
    assert other.status_code == 422 and other.json()["errors"][0]["field"] == "idempotency_key"


def test_the_view_names_the_entry_it_reflects(http: httpx.Client) -> None:
    c = http.post(
        "/v1/games", json={"game": "palace", "seats": [{"kind": "human"}, {"kind": "human"}]}
    ).json()
    token = c["seat_tokens"][0]["token"]
    view = http.get(f"/v1/games/{c['game_id']}/view", headers=bearer(token)).json()
    lines = clog.loads(http.get(f"/v1/games/{c['game_id']}/log", headers=bearer(token)).content)
    assert view["seq"] == len(lines) - 1 and view["head_hash"] == lines[-1]["hash"]
