"""REST CreateGame with ``idempotency_key`` (issue 13 fault 9), and the view's ``head_hash``."""

from __future__ import annotations

import uuid

import httpx

from cardcore import log as clog

from .helpers import bearer


def test_the_same_key_gives_the_same_game(http: httpx.Client) -> None:
    body = {
        "game": "speed",
        "seats": [{"kind": "human"}, {"kind": "human"}],
        "idempotency_key": uuid.uuid4().hex,
    }
    a, b = http.post("/v1/games", json=body), http.post("/v1/games", json=body)
    assert a.status_code == b.status_code == 201
    assert a.json() == b.json()
    other = http.post("/v1/games", json={**body, "game": "spit"})
    assert other.status_code == 422 and other.json()["errors"][0]["field"] == "idempotency_key"


def test_a_key_is_a_secret_of_its_callers(http: httpx.Client) -> None:
    """Issue 22 fault 5, over REST: a guessable key is a 422 naming the field; the same key
    from a caller with another ``Authorization`` of its own makes another game."""
    body = {"game": "speed", "seats": [{"kind": "human"}, {"kind": "human"}]}
    for weak in ("r-1", "x" * 64):
        refused = http.post("/v1/games", json={**body, "idempotency_key": weak})
        assert refused.status_code == 422, refused.text
        assert refused.json()["errors"][0]["field"] == "idempotency_key"
    key = {**body, "idempotency_key": uuid.uuid4().hex}
    alice = {"Authorization": "Bearer alice-own-secret"}
    mine = http.post("/v1/games", json=key, headers=alice).json()
    assert http.post("/v1/games", json=key, headers=alice).json() == mine
    theirs = http.post("/v1/games", json=key, headers={"Authorization": "Bearer bob"}).json()
    anyone = http.post("/v1/games", json=key).json()
    assert len({mine["game_id"], theirs["game_id"], anyone["game_id"]}) == 3


def test_the_view_names_the_entry_it_reflects(http: httpx.Client) -> None:
    c = http.post(
        "/v1/games", json={"game": "palace", "seats": [{"kind": "human"}, {"kind": "human"}]}
    ).json()
    token = c["seat_tokens"][0]["token"]
    view = http.get(f"/v1/games/{c['game_id']}/view", headers=bearer(token)).json()
    lines = clog.loads(http.get(f"/v1/games/{c['game_id']}/log", headers=bearer(token)).content)
    assert view["seq"] == len(lines) - 1 and view["head_hash"] == lines[-1]["hash"]
