"""The game lifecycle over REST against a real server: tables with invite and open-to-anyone
seats, joins (used invites, full and started tables, twenty clients racing for the last seat),
start by the creator with bots, abort by the creator or the admin key (a final, verifiable log),
the listing (newest first, a page token stable while tables are created), spectators of public
tables, a client's own games, presence, ``Resign`` (the host's ``by`` refused) and an event
stream opened on a table before its deal. Lifecycle errors carry the same reason as gRPC with the
HTTP status of its gRPC code."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from cardcore import log as clog
from cardcore import registry
from cardcore_proto import game_service_pb2 as pb
from cardcore_proto import game_service_pb2_grpc as pb_grpc

from .helpers import Event, RestServer, bearer, sse_events

PROBLEM = "application/problem+json"
UNKNOWN_GAME = "0123456789abcdef0123456789abcdef"
HUMAN: dict[str, Any] = {"kind": "human"}
INVITE: dict[str, Any] = {"kind": "human", "open": "invite"}
ANYONE: dict[str, Any] = {"kind": "human", "open": "anyone"}


def table(http: httpx.Client, game: str, *seats: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """Create a game whose seats are ``seats`` (some of them open): the CreateGame answer."""
    r = http.post("/v1/games", json={"game": game, "seats": list(seats), **extra})
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def problem(r: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert r.headers["content-type"] == PROBLEM, (r.status_code, r.text[:300])
    body: dict[str, Any] = r.json()
    assert (r.status_code, body["code"]) == (status, code), body
    assert body["status"] == status and body["type"].endswith("/" + code)
    return body


def join(http: httpx.Client, **body: Any) -> httpx.Response:
    return http.post("/v1/tables/join", json=body)


def joined(http: httpx.Client, **body: Any) -> dict[str, Any]:
    r = join(http, **body)
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    assert set(data) == {"game_id", "seat", "token", "status"}
    return data


def has_resign(game: str) -> bool:
    return "Resign" in {t.__name__ for t in registry.get_game(game).command_types}


# --------------------------------------------------------------------------- creating and joining


def test_an_invite_fills_its_seat_once(http: httpx.Client) -> None:
    c = table(http, "speed", HUMAN, INVITE)
    gid = c["game_id"]
    assert c["status"] == "waiting"
    assert [t["seat"] for t in c["seat_tokens"]] == [0]
    assert [i["seat"] for i in c["invites"]] == [1] and c["invites"][0]["code"].startswith("cci_")
    assert c["creator_token"].startswith("cct_") and len(c["seed_commitment"]) == 64
    assert c["header"] == {}, "a waiting table's header is written at the deal"
    creator = c["seat_tokens"][0]["token"]

    # nothing is dealt yet: no view, no log
    problem(http.get(f"/v1/games/{gid}/view", headers=bearer(creator)), 409, "GameNotStarted")
    problem(http.get(f"/v1/games/{gid}/log", headers=bearer(creator)), 409, "GameNotStarted")
    t = http.get(f"/v1/games/{gid}/table", headers=bearer(creator)).json()
    assert t["status"] == "waiting" and t["seed_commitment"] == c["seed_commitment"]
    assert [(s["seat"], s["kind"], s["open"], s["taken"]) for s in t["seats"]] == [
        (0, "human", "", True),
        (1, "human", "invite", False),
    ]
    assert t["outcome"] is None and t["public"] is False and t["deadline_ms"] > t["created_ms"]

    j = joined(http, invite=c["invites"][0]["code"])
    assert (j["game_id"], j["seat"], j["status"]) == (gid, 1, "playing")
    v = http.get(f"/v1/games/{gid}/view", headers=bearer(j["token"]))
    assert v.status_code == 200, v.text
    assert v.json()["seat"] == 1 and v.json()["seq"] >= 1 and v.json()["present_seats"] == []
    assert http.get(f"/v1/games/{gid}/view", headers=bearer(creator)).json()["seat"] == 0
    t = http.get(f"/v1/games/{gid}/table", headers=bearer(j["token"])).json()
    assert t["status"] == "playing" and all(s["taken"] for s in t["seats"])

    problem(join(http, invite=c["invites"][0]["code"]), 409, "InviteUsed")
    problem(join(http, invite="cci_no-such-invite"), 404, "InvalidInvite")
    problem(join(http, invite="not-an-invite"), 404, "InvalidInvite")


def test_full_and_started_tables(http: httpx.Client) -> None:
    c = table(http, "ratscrew", HUMAN, ANYONE, ANYONE)
    gid = c["game_id"]
    assert c["invites"] == [] and c["status"] == "waiting"
    first = joined(http, game_id=gid)
    assert (first["seat"], first["status"]) == (1, "waiting")
    second = joined(http, game_id=gid)
    assert (second["seat"], second["status"]) == (2, "playing")
    problem(join(http, game_id=gid), 409, "GameStarted")

    c = table(http, "ratscrew", HUMAN, ANYONE, ANYONE)
    gid = c["game_id"]
    problem(join(http, game_id=gid, seat=0), 409, "SeatNotOpen")  # the creator's seat
    problem(join(http, game_id=gid, seat=7), 409, "SeatNotOpen")
    assert joined(http, game_id=gid, seat=2)["seat"] == 2
    problem(join(http, game_id=gid, seat=2), 409, "TableFull")
    problem(join(http, game_id=UNKNOWN_GAME), 404, "GameNotFound")
    problem(join(http, game_id="NOT-A-GAME"), 422, "Malformed")
    problem(join(http), 422, "Malformed")  # neither an invite nor a game id
    problem(join(http, game_id=gid, surprise=1), 400, "Malformed")


def test_an_invite_seat_is_not_open_to_anyone(http: httpx.Client) -> None:
    c = table(http, "ratscrew", HUMAN, INVITE)
    problem(join(http, game_id=c["game_id"]), 409, "TableFull")  # no seat open to anyone
    problem(join(http, game_id=c["game_id"], seat=1), 409, "SeatNotOpen")


def test_twenty_clients_race_for_the_last_seat(rest_server: RestServer, http: httpx.Client) -> None:
    c = table(http, "ratscrew", HUMAN, ANYONE, ANYONE)
    gid = c["game_id"]
    assert joined(http, game_id=gid)["status"] == "waiting"  # one seat left
    barrier = threading.Barrier(20)
    answers: list[httpx.Response] = []
    lock = threading.Lock()

    def racer() -> None:
        with httpx.Client(base_url=rest_server.url, timeout=20.0) as client:
            barrier.wait()
            r = join(client, game_id=gid)
        with lock:
            answers.append(r)

    threads = [threading.Thread(target=racer, daemon=True) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(answers) == 20
    winners = [r for r in answers if r.status_code == 200]
    assert len(winners) == 1, [r.text for r in answers]
    assert winners[0].json()["status"] == "playing" and winners[0].json()["seat"] == 2
    for r in answers:
        if r.status_code != 200:
            assert r.status_code == 409 and r.json()["code"] in ("TableFull", "GameStarted"), r.text
    v = http.get(f"/v1/games/{gid}/view", headers=bearer(winners[0].json()["token"]))
    assert v.status_code == 200 and v.json()["seat"] == 2


def test_open_seats_are_checked_at_creation(http: httpx.Client) -> None:
    r = http.post(
        "/v1/games",
        json={"game": "ratscrew", "seats": [HUMAN, {"kind": "random", "open": "anyone"}]},
    )
    body = problem(r, 422, "Malformed")
    assert body["errors"][0]["field"] == "seats[1].open"
    r = http.post(
        "/v1/games", json={"game": "ratscrew", "seats": [HUMAN, {"kind": "human", "open": "all"}]}
    )
    problem(r, 400, "Malformed")
    r = http.post(
        "/v1/games", json={"game": "ratscrew", "seats": [HUMAN, ANYONE], "start_deadline_ms": 2**32}
    )
    problem(r, 400, "Malformed")
    r = http.post(
        "/v1/games",
        json={"game": "ratscrew", "seats": [HUMAN, HUMAN], "turn_timeout_ms": 1000},
    )
    assert problem(r, 422, "Malformed")["errors"][0]["field"] == "turn_timeout_ms"  # realtime
    # a table with only the creator's seats deals at once, with a creator token
    c = table(http, "palace", HUMAN, HUMAN, idle_timeout_ms=120_000, abandon_timeout_ms=600_000)
    assert c["status"] == "playing" and c["invites"] == [] and c["creator_token"]


# --------------------------------------------------------------------------- start and abort


def test_the_creator_starts_with_bots(http: httpx.Client) -> None:
    c = table(http, "ratscrew", HUMAN, ANYONE, INVITE)
    gid = c["game_id"]
    seat0 = c["seat_tokens"][0]["token"]
    problem(http.post(f"/v1/games/{gid}/start", headers=bearer(seat0)), 403, "NotCreator")
    problem(http.post(f"/v1/games/{gid}/start"), 401, "MissingToken")
    r = http.post(
        f"/v1/games/{gid}/start", json={"fill_with": "random"}, headers=bearer(c["creator_token"])
    )
    assert r.status_code == 200, r.text
    t = r.json()
    assert t["status"] == "playing" and t["game_id"] == gid
    assert [s["kind"] for s in t["seats"]] == ["human", "random", "random"]
    problem(
        http.post(f"/v1/games/{gid}/start", headers=bearer(c["creator_token"])), 409, "GameStarted"
    )
    # the invite's seat went to a bot: the game started without it
    problem(join(http, invite=c["invites"][0]["code"]), 409, "GameStarted")
    assert http.get(f"/v1/games/{gid}/view", headers=bearer(seat0)).status_code == 200

    # no body: reaction bots
    c = table(http, "ratscrew", HUMAN, ANYONE)
    r = http.post(f"/v1/games/{c['game_id']}/start", headers=bearer(c["creator_token"]))
    assert r.status_code == 200, r.text
    assert [s["kind"] for s in r.json()["seats"]] == ["human", "reaction"]
    c = table(http, "ratscrew", HUMAN, ANYONE)
    r = http.post(
        f"/v1/games/{c['game_id']}/start",
        json={"fill_with": "human"},
        headers=bearer(c["creator_token"]),
    )
    problem(r, 400, "Malformed")


def test_a_committed_seat_reveals_when_the_creator_starts(http: httpx.Client) -> None:
    """A seat that joined with a commitment to its entropy (docs/rng.md, "Committed entropy"):
    the creator's start makes the seats final (the empty one a random bot) and the table
    ``revealing``; a reveal before that, or of another value, is refused and changes nothing;
    the reveal deals, and the header records the commitment."""
    from cardcore.rng import entropy_commitment

    c = table(http, "slapjack", HUMAN, ANYONE, ANYONE)
    gid, creator = c["game_id"], bearer(c["creator_token"])
    secret = bytes(range(16))
    commitment = entropy_commitment(secret)
    problem(join(http, game_id=gid, entropy_commitment="ab" * 31), 400, "Malformed")
    seat = joined(http, game_id=gid, entropy_commitment=commitment)
    mine = bearer(seat["token"])
    reveal = f"/v1/games/{gid}/reveal"
    problem(http.post(reveal, json={"entropy": secret.hex()}, headers=mine), 409, "NotRevealing")
    r = http.post(f"/v1/games/{gid}/start", json={"fill_with": "random"}, headers=creator)
    assert r.status_code == 200, r.text
    t = r.json()
    assert t["status"] == "revealing" and t["deadline_ms"] > 0
    assert [s["kind"] for s in t["seats"]] == ["human", "human", "random"]
    assert (t["seats"][1]["entropy_commitment"], t["seats"][1]["revealed"]) == (commitment, False)
    problem(join(http, game_id=gid), 409, "GameStarted")
    problem(http.post(reveal, json={"entropy": "00" * 16}, headers=mine), 422, "Malformed")
    problem(http.post(reveal, json={"entropy": secret.hex()}, headers=creator), 409, "NotRevealing")
    r = http.post(reveal, json={"entropy": secret.hex()}, headers=mine)
    assert r.status_code == 200, r.text
    t = r.json()
    assert t["status"] == "playing" and t["seats"][1]["revealed"] is True
    assert [s["kind"] for s in t["seats"]] == ["human", "human", "random"]
    http.post(f"/v1/games/{gid}/abort", headers=creator).raise_for_status()
    lines = clog.loads(http.get(f"/v1/games/{gid}/log", headers=mine).content)
    assert {"seat": 1, "entropy": secret.hex(), "commitment": commitment} in lines[0][
        "contributions"
    ]
    assert clog.verify(lines).committed == (1,)


def test_the_creator_aborts_and_the_log_verifies(http: httpx.Client) -> None:
    c = table(http, "ratscrew", HUMAN, ANYONE)
    gid = c["game_id"]
    seat0 = c["seat_tokens"][0]["token"]
    seat1 = joined(http, game_id=gid)["token"]
    for token in (seat0, seat1):  # a few plays
        v = http.get(f"/v1/games/{gid}/view", headers=bearer(token)).json()
        if v["legal_commands"]:
            http.post(
                f"/v1/games/{gid}/actions",
                json={"command": v["legal_commands"][0]},
                headers=bearer(token),
            )
    problem(http.post(f"/v1/games/{gid}/abort", headers=bearer(seat1)), 403, "NotCreator")
    problem(http.post(f"/v1/games/{gid}/abort"), 401, "MissingToken")
    problem(
        http.post(f"/v1/games/{gid}/abort", headers={"X-Cardcore-Admin-Key": "guess"}),
        403,
        "AdminKeyRequired",  # this server has no admin key: nobody aborts with one
    )
    r = http.post(f"/v1/games/{gid}/abort", headers=bearer(c["creator_token"]))
    assert r.status_code == 200, r.text
    t = r.json()
    assert t["status"] == "finished"
    assert t["outcome"]["termination"] == "aborted" and t["outcome"]["winners"] == []
    log = http.get(f"/v1/games/{gid}/log", headers=bearer(c["creator_token"]))
    assert log.status_code == 200 and log.headers["cardcore-log-complete"] == "true"
    lines = clog.loads(log.content)
    assert lines[-1]["type"] == "end"
    clog.verify(lines)
    v = http.get(f"/v1/games/{gid}/view", headers=bearer(seat0)).json()
    assert v["outcome"]["termination"] == "aborted" and v["legal_commands"] == []
    r = http.post(f"/v1/games/{gid}/abort", headers=bearer(c["creator_token"]))
    assert r.status_code == 409 and r.headers["content-type"] == PROBLEM, r.text  # over


def test_aborting_a_waiting_table_cancels_it(rest_server: RestServer, http: httpx.Client) -> None:
    c = table(http, "ratscrew", HUMAN, INVITE)
    gid = c["game_id"]
    seat0 = c["seat_tokens"][0]["token"]
    ends: list[list[Event]] = []

    def follow() -> None:  # a stream waiting for the deal learns that none will come
        with (
            httpx.Client(base_url=rest_server.url, timeout=20.0) as client,
            client.stream("GET", f"/v1/games/{gid}/events", headers=bearer(seat0)) as s,
        ):
            assert s.status_code == 200
            ends.append(list(sse_events(s)))

    follower = threading.Thread(target=follow, daemon=True)
    follower.start()
    time.sleep(0.5)
    r = http.post(f"/v1/games/{gid}/abort", headers=bearer(c["creator_token"]))
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "cancelled" and r.json()["outcome"] is None
    follower.join(10)
    assert not follower.is_alive() and len(ends) == 1
    assert [e.event for e in ends[0]] == ["closing"]
    assert ends[0][0].json()["code"] == "TableCancelled"
    problem(join(http, invite=c["invites"][0]["code"]), 409, "TableCancelled")
    problem(http.get(f"/v1/games/{gid}/view", headers=bearer(seat0)), 409, "TableCancelled")
    problem(
        http.post(f"/v1/games/{gid}/abort", headers=bearer(c["creator_token"])),
        409,
        "TableCancelled",
    )
    t = http.get(f"/v1/games/{gid}/table", headers=bearer(seat0)).json()
    assert t["status"] == "cancelled"


def test_a_table_not_started_by_its_deadline_is_cancelled(http: httpx.Client) -> None:
    c = table(http, "slapjack", HUMAN, ANYONE, start_deadline_ms=300, public=True)
    gid = c["game_id"]
    t = http.get(f"/v1/games/{gid}/table").json()
    assert t["deadline_ms"] - t["created_ms"] == 300 and t["status"] == "waiting"
    deadline = time.monotonic() + 10
    while http.get(f"/v1/games/{gid}/table").json()["status"] != "cancelled":
        assert time.monotonic() < deadline, "the deadline did not cancel the table"
        time.sleep(0.05)
    problem(join(http, game_id=gid), 409, "TableCancelled")
    listed = http.get("/v1/tables", params={"game": "slapjack", "page_size": 100}).json()
    assert gid not in {t["game_id"] for t in listed["tables"]}


def test_the_admin_key_aborts_any_game(tmp_path: Path) -> None:
    key = "K-admin-lifecycle"
    server = RestServer(tmp_path, "--admin-key", key, name="admin").start()
    try:
        with httpx.Client(base_url=server.url, timeout=10.0) as http:
            admin = {"X-Cardcore-Admin-Key": key}
            r = http.post(
                "/v1/games", json={"game": "ratscrew", "seats": [HUMAN, HUMAN]}, headers=admin
            )
            assert r.status_code == 201, r.text
            c = r.json()
            gid = c["game_id"]
            wrong = {"X-Cardcore-Admin-Key": "wrong"}
            problem(http.post(f"/v1/games/{gid}/abort", headers=wrong), 403, "AdminKeyRequired")
            problem(
                http.post(f"/v1/games/{UNKNOWN_GAME}/abort", headers=admin), 404, "GameNotFound"
            )
            r = http.post(f"/v1/games/{gid}/abort", headers=admin)  # no token
            assert r.status_code == 200, r.text
            assert r.json()["outcome"]["termination"] == "aborted"
            log = http.get(f"/v1/games/{gid}/log", headers=bearer(c["spectator_token"]))
            lines = clog.loads(log.content)
            assert lines[-1]["type"] == "end"
            clog.verify(lines)
            # a waiting table: cancelled by the admin key
            r = http.post(
                "/v1/games", json={"game": "ratscrew", "seats": [HUMAN, ANYONE]}, headers=admin
            )
            gid = r.json()["game_id"]
            r = http.post(f"/v1/games/{gid}/abort", headers=admin)
            assert r.status_code == 200 and r.json()["status"] == "cancelled", r.text
        assert server.stop() == 0
        assert key not in server.log_text()
    finally:
        server.stop()


# --------------------------------------------------------------------------- listing


def test_the_listing_is_newest_first_and_its_page_token_stable(http: httpx.Client) -> None:
    """Palace tables are listed only here (the filter keeps other tests' tables out)."""

    def create_public() -> str:
        time.sleep(0.003)  # distinct created_ms: newest first is creation order reversed
        gid: str = table(http, "palace", HUMAN, ANYONE, public=True)["game_id"]
        return gid

    table(http, "palace", HUMAN, ANYONE)  # not public: never listed
    first = [create_public() for _ in range(5)]
    r = http.get("/v1/tables", params={"game": "palace", "page_size": 2})
    assert r.status_code == 200, r.text
    page = r.json()
    assert [t["game_id"] for t in page["tables"]] == first[::-1][:2]
    assert all(t["status"] == "waiting" and t["public"] for t in page["tables"])
    token = page["next_page_token"]
    assert token
    later = [create_public() for _ in range(3)]
    rest: list[dict[str, Any]] = []
    for _ in range(10):
        r = http.get("/v1/tables", params={"game": "palace", "page_size": 2, "page_token": token})
        assert r.status_code == 200, r.text
        rest.extend(r.json()["tables"])
        token = r.json()["next_page_token"]
        if not token:
            break
    assert not token
    listed = [t["game_id"] for t in page["tables"]] + [t["game_id"] for t in rest]
    assert len(listed) == len(set(listed)), "no duplicates"
    assert listed == first[::-1], "none missing, none added, newest first"
    assert not set(later) & set(listed)
    keys = [(t["created_ms"], t["game_id"]) for t in page["tables"] + rest]
    assert keys == sorted(keys, reverse=True)
    # a new listing starts with the newest
    fresh = http.get("/v1/tables", params={"game": "palace", "page_size": 3}).json()
    assert [t["game_id"] for t in fresh["tables"]] == later[::-1]
    # every game: the newest palace table is among them
    everything = http.get("/v1/tables", params={"page_size": 100}).json()["tables"]
    assert later[-1] in {t["game_id"] for t in everything}
    # the listing stays without the tables that started
    joined(http, game_id=later[-1])
    fresh = http.get("/v1/tables", params={"game": "palace", "page_size": 3}).json()
    assert later[-1] not in {t["game_id"] for t in fresh["tables"]}


def test_listing_input_is_checked(http: httpx.Client) -> None:
    problem(http.get("/v1/tables", params={"page_token": "garbage!"}), 422, "Malformed")
    problem(http.get("/v1/tables", params={"page_size": 101}), 422, "Malformed")
    problem(http.get("/v1/tables", params={"game": "chess"}), 422, "Malformed")
    problem(http.get("/v1/tables", params={"page_size": -1}), 400, "Malformed")
    assert http.get("/v1/tables", params={"game": "ers"}).status_code == 200  # an alias


# --------------------------------------------------------------------------- spectators, my games


def test_spectators_of_public_tables(http: httpx.Client) -> None:
    c = table(http, "ratscrew", HUMAN, ANYONE, public=True)
    gid = c["game_id"]
    t = http.get(f"/v1/games/{gid}/table")  # public: no token needed
    assert t.status_code == 200 and t.json()["public"] is True, t.text
    r = http.post(f"/v1/games/{gid}/watch")
    assert r.status_code == 200, r.text
    watcher = r.json()["spectator_token"]
    assert watcher.startswith("cct_") and watcher != c["spectator_token"]
    assert http.get(f"/v1/games/{gid}/table", headers=bearer(watcher)).status_code == 200
    problem(http.get(f"/v1/games/{gid}/view", headers=bearer(watcher)), 409, "GameNotStarted")
    joined(http, game_id=gid)
    v = http.get(f"/v1/games/{gid}/view", headers=bearer(watcher))
    assert v.status_code == 200, v.text
    assert v.json()["seat"] is None and v.json()["legal_commands"] == []
    problem(
        http.post(
            f"/v1/games/{gid}/actions", json={"command": {"kind": "Play"}}, headers=bearer(watcher)
        ),
        403,
        "SpectatorCannotAct",
    )

    private = table(http, "ratscrew", HUMAN, ANYONE)
    problem(http.post(f"/v1/games/{private['game_id']}/watch"), 403, "TableNotPublic")
    problem(http.get(f"/v1/games/{private['game_id']}/table"), 401, "MissingToken")
    problem(http.post(f"/v1/games/{UNKNOWN_GAME}/watch"), 403, "TableNotPublic")
    problem(http.post("/v1/games/NOT-A-GAME/watch"), 422, "Malformed")
    other = private["seat_tokens"][0]["token"]
    problem(http.get(f"/v1/games/{gid}/table", headers=bearer(other)), 403, "WrongGame")


def test_my_games(http: httpx.Client) -> None:
    a = table(http, "ratscrew", HUMAN, ANYONE)
    b = table(http, "speed", HUMAN, HUMAN)
    j = joined(http, game_id=a["game_id"])
    tokens = [j["token"], a["creator_token"], b["spectator_token"], b["seat_tokens"][0]["token"]]
    r = http.post("/v1/my-games", json={"tokens": tokens})
    assert r.status_code == 200, r.text
    games = r.json()["games"]
    assert [g["viewer"] for g in games] == ["1", "creator", "spectator", "0"]
    assert [g["table"]["game_id"] for g in games] == [a["game_id"]] * 2 + [b["game_id"]] * 2
    assert {g["table"]["status"] for g in games} == {"playing"}
    assert http.post("/v1/my-games", json={"tokens": []}).json() == {"games": []}
    problem(http.post("/v1/my-games", json={"tokens": ["cct_nope"]}), 401, "InvalidToken")
    problem(http.post("/v1/my-games", json={"tokens": [j["token"]] * 51}), 400, "Malformed")
    problem(http.post("/v1/my-games", json={}), 400, "Malformed")


# --------------------------------------------------------------------------- leaving, presence, SSE


def test_only_the_host_resigns_as_the_timer(http: httpx.Client) -> None:
    if not has_resign("ratscrew"):
        pytest.skip("ratscrew has no Resign yet")
    c = table(http, "ratscrew", HUMAN, HUMAN)
    gid = c["game_id"]
    token = c["seat_tokens"][1]["token"]
    r = http.post(
        f"/v1/games/{gid}/actions",
        json={"command": {"kind": "Resign", "by": "timer"}},
        headers=bearer(token),
    )
    body = problem(r, 422, "HostOnly")
    assert body["errors"][0]["field"] == "command.by" and "command.json" not in r.text
    r = http.post(
        f"/v1/games/{gid}/actions", json={"command": {"kind": "Resign"}}, headers=bearer(token)
    )
    assert r.status_code == 200, r.text
    assert r.json()["outcome"]["termination"] == "resigned"
    assert r.json()["outcome"]["winners"] == [0]
    t = http.get(f"/v1/games/{gid}/table", headers=bearer(token)).json()
    assert t["status"] == "finished" and t["outcome"]["termination"] == "resigned"


def test_a_stream_on_a_waiting_table_gets_the_deal(
    rest_server: RestServer, http: httpx.Client
) -> None:
    c = table(http, "speed", HUMAN, INVITE)
    gid = c["game_id"]
    seat0 = c["seat_tokens"][0]["token"]
    got: list[Event] = []
    opened = threading.Event()

    def follow() -> None:
        with (
            httpx.Client(base_url=rest_server.url, timeout=httpx.Timeout(10.0, read=30.0)) as cl,
            cl.stream("GET", f"/v1/games/{gid}/events", headers=bearer(seat0)) as s,
        ):
            assert s.status_code == 200 and s.headers["content-type"].startswith(
                "text/event-stream"
            )
            opened.set()
            for ev in sse_events(s):
                got.append(ev)
                if ev.event != "entry" or len(got) >= 1:
                    break

    follower = threading.Thread(target=follow, daemon=True)
    follower.start()
    assert opened.wait(10)
    deadline = time.monotonic() + 5
    while True:  # the waiting stream counts as presence
        seats = http.get(f"/v1/games/{gid}/table", headers=bearer(seat0)).json()["seats"]
        if seats[0]["present"]:
            break
        assert time.monotonic() < deadline, seats
        time.sleep(0.05)
    assert not seats[1]["present"]
    time.sleep(0.5)
    assert not got, "nothing before the deal"
    j = joined(http, invite=c["invites"][0]["code"])
    assert j["status"] == "playing"
    follower.join(15)
    assert not follower.is_alive()
    assert [(e.event, e.id) for e in got] == [("entry", "0")]
    assert got[0].json()["action"] == {"kind": "Deal"}


def test_present_seats_in_the_view(rest_server: RestServer, http: httpx.Client) -> None:
    c = table(http, "ratscrew", HUMAN, HUMAN)
    gid = c["game_id"]
    seat1 = c["seat_tokens"][1]["token"]
    stop = threading.Event()

    def follow() -> None:
        with (
            httpx.Client(base_url=rest_server.url, timeout=20.0) as cl,
            cl.stream("GET", f"/v1/games/{gid}/events", headers=bearer(seat1)) as s,
        ):
            for _ in sse_events(s):
                if stop.is_set():
                    break

    follower = threading.Thread(target=follow, daemon=True)
    follower.start()
    seat0 = c["seat_tokens"][0]["token"]
    deadline = time.monotonic() + 5
    while http.get(f"/v1/games/{gid}/view", headers=bearer(seat0)).json()["present_seats"] != [1]:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    stop.set()
    http.post(f"/v1/games/{gid}/actions", json={"command": {"kind": "Play"}}, headers=bearer(seat0))
    follower.join(10)
    deadline = time.monotonic() + 5
    while http.get(f"/v1/games/{gid}/view", headers=bearer(seat0)).json()["present_seats"]:
        assert time.monotonic() < deadline
        time.sleep(0.05)


# --------------------------------------------------------------------------- the contract


def test_every_lifecycle_route_is_documented(http: httpx.Client) -> None:
    doc = http.get("/v1/openapi.json").json()
    expected = {
        ("/v1/tables/join", "post"): ("JoinTable", {"404", "409", "422"}),
        ("/v1/games/{game_id}/reveal", "post"): ("RevealEntropy", {"401", "409", "422"}),
        ("/v1/games/{game_id}/start", "post"): ("StartTable", {"401", "403", "409"}),
        ("/v1/games/{game_id}/abort", "post"): ("AbortGame", {"401", "403", "404", "409"}),
        ("/v1/games/{game_id}/table", "get"): ("GetTable", {"401", "403", "404"}),
        ("/v1/tables", "get"): ("ListTables", {"422"}),
        ("/v1/games/{game_id}/watch", "post"): ("WatchTable", {"403"}),
        ("/v1/my-games", "post"): ("ListMyGames", {"401", "400"}),
        ("/v1/games/{game_id}/view", "get"): ("GetView", {"409"}),
    }
    for (path, method), (operation, statuses) in expected.items():
        op = doc["paths"][path][method]
        assert op["operationId"] == operation
        assert statuses <= set(op["responses"]), (path, sorted(op["responses"]))
        for status, response in op["responses"].items():
            if status.startswith(("4", "5")):
                assert PROBLEM in response["content"], (path, status)
    assert doc["paths"]["/v1/games/{game_id}/start"]["post"]["requestBody"]["required"] is False
    schemas = doc["components"]["schemas"]
    assert "open" in schemas["SeatAssignment"]["properties"]
    assert {"public", "start_deadline_ms", "turn_timeout_ms", "idle_timeout_ms"} <= set(
        schemas["CreateGame"]["properties"]
    )
    assert {"creator_token", "invites", "status"} <= set(schemas["CreatedGame"]["properties"])
    assert "present_seats" in schemas["GameView"]["properties"]
    assert set(schemas["Table"]["properties"]) >= {
        "game_id", "game", "status", "seats", "created_ms", "deadline_ms", "public",
        "seed_commitment", "rules", "outcome", "seq",
    }  # fmt: skip
    r = http.options("/v1/games/" + UNKNOWN_GAME + "/abort")
    assert r.headers["allow"] == "OPTIONS, POST"
    r = http.options("/v1/games/" + UNKNOWN_GAME + "/table")
    assert r.headers["allow"] == "GET, OPTIONS"


@pytest.fixture
def stub(rest_server: RestServer) -> Iterator[Any]:
    channel = grpc.insecure_channel(rest_server.target)
    yield pb_grpc.GameServiceStub(channel)
    channel.close()


def _grpc_reason(call: Any) -> tuple[grpc.StatusCode, str]:
    try:
        call()
    except grpc.RpcError as exc:
        status = rpc_status.from_call(exc)  # type: ignore[arg-type]
        assert status is not None
        info = error_details_pb2.ErrorInfo()
        assert status.details[0].Unpack(info)
        return exc.code(), info.reason  # type: ignore[attr-defined]
    raise AssertionError("the gRPC call succeeded")


HTTP_FOR = {
    grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.INVALID_ARGUMENT: 422,
    grpc.StatusCode.FAILED_PRECONDITION: 409,
}


def test_lifecycle_errors_match_grpc(http: httpx.Client, stub: Any) -> None:
    c = table(http, "ratscrew", HUMAN, INVITE)
    gid = c["game_id"]
    seat0 = c["seat_tokens"][0]["token"]
    md = (("authorization", f"Bearer {seat0}"),)
    code = c["invites"][0]["code"]
    cases = [
        (
            lambda: http.get(f"/v1/games/{gid}/view", headers=bearer(seat0)),
            lambda: stub.GetView(pb.GetViewRequest(game_id=gid), metadata=md, timeout=5),
        ),
        (
            lambda: http.post(f"/v1/games/{gid}/start", headers=bearer(seat0)),
            lambda: stub.StartTable(pb.StartTableRequest(game_id=gid), metadata=md, timeout=5),
        ),
        (
            lambda: http.post(f"/v1/games/{gid}/abort", headers=bearer(seat0)),
            lambda: stub.AbortGame(pb.AbortGameRequest(game_id=gid), metadata=md, timeout=5),
        ),
        (
            lambda: http.post(f"/v1/games/{gid}/watch"),
            lambda: stub.WatchTable(pb.WatchTableRequest(game_id=gid), timeout=5),
        ),
        (
            lambda: http.get(f"/v1/games/{gid}/table"),
            lambda: stub.GetTable(pb.GetTableRequest(game_id=gid), timeout=5),
        ),
        (
            lambda: join(http, invite="cci_unknown"),
            lambda: stub.JoinTable(pb.JoinTableRequest(invite="cci_unknown"), timeout=5),
        ),
        (
            lambda: join(http, game_id=gid, seat=0),
            lambda: stub.JoinTable(pb.JoinTableRequest(game_id=gid, seat=0), timeout=5),
        ),
        (
            lambda: http.get("/v1/tables", params={"page_size": 500}),
            lambda: stub.ListTables(pb.ListTablesRequest(page_size=500), timeout=5),
        ),
        (
            lambda: http.post("/v1/my-games", json={"tokens": ["cct_x"]}),
            lambda: stub.ListMyGames(pb.ListMyGamesRequest(tokens=["cct_x"]), timeout=5),
        ),
    ]
    seen = set()
    for rest_call, grpc_call in cases:
        grpc_code, reason = _grpc_reason(grpc_call)
        problem(rest_call(), HTTP_FOR[grpc_code], reason)
        seen.add(reason)
    joined(http, invite=code)
    grpc_code, reason = _grpc_reason(
        lambda: stub.JoinTable(pb.JoinTableRequest(invite=code), timeout=5)
    )
    problem(join(http, invite=code), HTTP_FOR[grpc_code], reason)
    seen.add(reason)
    assert seen >= {
        "GameNotStarted", "NotCreator", "TableNotPublic", "MissingToken", "InvalidInvite",
        "SeatNotOpen", "InviteUsed", "Malformed", "InvalidToken",
    }  # fmt: skip


def test_an_invite_link_shows_its_table_then_takes_the_seat(http: httpx.Client) -> None:
    """The link CreateGame gives with each invite: GET shows what it is for and changes nothing;
    POST takes the seat (once); both need no token; a made-up code is 404 InvalidInvite."""
    c = table(http, "spit", HUMAN, INVITE)
    link = c["invites"][0]["link"]
    assert link.startswith(str(http.base_url).rstrip("/") + "/v1/invites/cci_")
    path = httpx.URL(link).path
    for _ in range(2):  # looking twice changes nothing
        seen = http.get(path)
        assert seen.status_code == 200, seen.text
        assert seen.json()["seat"] == 1 and seen.json()["table"]["status"] == "waiting"
    took = http.post(path)
    assert took.status_code == 200, took.text
    assert (took.json()["seat"], took.json()["status"]) == (1, "playing")
    problem(http.post(path), 409, "InviteUsed")
    assert http.get(path).json()["table"]["status"] == "playing"
    problem(http.get("/v1/invites/cci_made-up"), 404, "InvalidInvite")
    assert http.options(path).headers["allow"] == "GET, OPTIONS, POST"


def test_streamed_entries_carry_their_log_hashes(http: httpx.Client) -> None:
    """Every entry sent (SSE, submit answer) carries its ``hash`` and ``prev`` exactly as the
    log has them: a receipt the final log must match."""
    c = table(http, "speed", HUMAN, {"kind": "random"})
    gid, token = c["game_id"], c["seat_tokens"][0]["token"]
    log_lines = clog.loads(http.get(f"/v1/games/{gid}/log", headers=bearer(token)).content)
    with http.stream(
        "GET", f"/v1/games/{gid}/events", headers=bearer(token), params={"from_seq": 0}
    ) as r:
        first = next(sse_events(r))
    entry = json.loads(first.data)
    assert entry["seq"] == 0
    assert (entry["hash"], entry["prev"]) == (log_lines[1]["hash"], log_lines[1]["prev"])
    assert entry["prev"] == log_lines[0]["hash"]
