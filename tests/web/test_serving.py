"""How ``cardcore serve`` serves the web table (no browser needed): the page at ``/``, its files,
the Pyodide runtime and the zipped cardcore sources; CORS only for ``--cors-origin`` origins."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator

import httpx
import pytest

from cardcore import codec, log, rng
from cardcore.engine import Setup
from cardcore.games.speed import Rules as SpeedRules
from cardcore.registry import get_game
from cardcore_server.transports import web

from ..rest.helpers import RestServer

FRONTEND = "http://cards.example:8080"


@pytest.fixture(scope="module")
def cors_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RestServer]:
    proc = RestServer(
        tmp_path_factory.mktemp("cors"), "--cors-origin", FRONTEND, name="cors"
    ).start()
    yield proc
    assert proc.stop() == 0


@pytest.fixture(scope="module")
def plain_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RestServer]:
    proc = RestServer(tmp_path_factory.mktemp("plain"), name="plain").start()
    yield proc
    assert proc.stop() == 0


def test_the_page_and_its_files(plain_server: RestServer) -> None:
    with httpx.Client(base_url=plain_server.url) as http:
        page = http.get("/")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert "script-src 'self' 'wasm-unsafe-eval'" in page.headers["content-security-policy"]
        assert '<script type="module" src="/web/js/main.js">' in page.text
        js = http.get("/web/js/main.js")
        assert js.status_code == 200 and "javascript" in js.headers["content-type"]
        for bad in ("/web/../web.py", "/web/%2e%2e/web.py", "/web/.gitignore", "/web/nope.js"):
            assert http.get(bad).status_code == 404, bad
        zipped = http.get("/web/cardcore.zip")
        assert zipped.headers["content-type"] == "application/zip"
        names = zipfile.ZipFile(io.BytesIO(zipped.content)).namelist()
        assert "cardcore/log/__init__.py" in names and "cardcore/games/spit/__init__.py" in names
        assert all(n.startswith("cardcore/") and n.endswith(".py") for n in names)
        if web.pyodide_dir() is not None:
            wasm = http.get("/web/pyodide/pyodide.asm.wasm")
            assert wasm.status_code == 200 and wasm.headers["content-type"] == "application/wasm"
        assert http.get("/web/pyodide/console.html").status_code == 404  # the runtime only
        # the API's own document is unchanged: no web route in it
        doc = http.get("/v1/openapi.json").json()
        assert not [p for p in doc["paths"] if not p.startswith("/v1/")]


def test_no_cors_by_default(plain_server: RestServer) -> None:
    with httpx.Client(base_url=plain_server.url) as http:
        r = http.get("/v1/games", headers={"Origin": FRONTEND})
        assert r.status_code == 200 and "access-control-allow-origin" not in r.headers


def test_cors_for_the_origins_given(cors_server: RestServer) -> None:
    with httpx.Client(base_url=cors_server.url) as http:
        pre = http.options(
            "/v1/games/0123456789abcdef0123456789abcdef/events",
            headers={
                "Origin": FRONTEND,
                "Access-Control-Request-Method": "GET",
                "Access-Control-Request-Headers": "authorization, last-event-id",
            },
        )
        assert pre.status_code == 204
        assert pre.headers["access-control-allow-origin"] == FRONTEND
        allowed = pre.headers["access-control-allow-headers"].lower()
        assert "authorization" in allowed and "last-event-id" in allowed
        assert "access-control-allow-credentials" not in pre.headers  # tokens, not cookies
        r = http.get("/v1/games", headers={"Origin": FRONTEND})
        assert r.headers["access-control-allow-origin"] == FRONTEND
        assert "Cardcore-Log-Complete" in r.headers["access-control-expose-headers"]
        problem = http.get("/v1/games/nope/view", headers={"Origin": FRONTEND})
        assert problem.status_code >= 400
        assert problem.headers["access-control-allow-origin"] == FRONTEND  # errors readable too
        other = http.get("/v1/games", headers={"Origin": "http://elsewhere.example"})
        assert "access-control-allow-origin" not in other.headers
        # a plain OPTIONS (no preflight) is still the API's own answer
        assert http.options("/v1/games").headers["allow"] == "GET, OPTIONS, POST"


def test_web_files_are_in_the_package() -> None:
    root = web.WEB_DIR
    assert (root / "index.html").is_file() and (root / "js" / "verify-worker.js").is_file()


def test_an_invite_link_takes_the_joiners_entropy(plain_server: RestServer) -> None:
    """``POST /v1/invites/{code}`` (the link the page follows) takes an optional body
    ``{"entropy": HEX}``, validated as JoinTable's is; the joiner's bytes are in the header's
    contributions, and the deal is derived from them (the log verifies; changed, it does not)."""
    mine, theirs = "0123456789abcdef" * 2, "fedcba9876543210" * 2
    with httpx.Client(base_url=plain_server.url) as http:
        doc = http.get("/v1/openapi.json").json()
        op = doc["paths"]["/v1/invites/{code}"]["post"]
        assert op["operationId"] == "AcceptInvite" and "entropy" in op["description"]
        body = op["requestBody"]
        assert body.get("required") is not True  # optional: a bare POST still takes the seat
        ref = body["content"]["application/json"]["schema"]
        names = [r["$ref"].rsplit("/", 1)[1] for r in ref.get("oneOf", [ref]) if "$ref" in r]
        schema = doc["components"]["schemas"][names[0]]
        assert schema["properties"]["entropy"]["pattern"] == "^([0-9a-f]{32})?$"

        def table() -> tuple[dict[str, object], str]:
            c = http.post(
                "/v1/games",
                json={
                    "game": "speed",
                    "seats": [{"kind": "human", "entropy": mine}, {"open": "invite"}],
                    "event_limit": 40,
                },
            )
            assert c.status_code == 201, c.text
            created = c.json()
            return created, "/v1/invites/" + created["invites"][0]["code"]

        created, path = table()
        for bad in ({"entropy": "xyz"}, {"entropy": "00" * 15}, {"entropy": mine.upper()}):
            r = http.post(path, json=bad)
            assert r.status_code in (400, 422), (bad, r.text)
        assert http.post(path, json={"entropy": mine, "seat": 0}).status_code in (400, 422)
        took = http.post(path, json={"entropy": theirs})
        assert took.status_code == 200, took.text
        assert (took.json()["seat"], took.json()["status"]) == (1, "playing")
        token = took.json()["token"]
        gid = created["game_id"]
        for _ in range(2):  # resign: the end line reveals the seed
            r = http.post(
                f"/v1/games/{gid}/actions",
                json={"command": {"kind": "Resign"}, "action_id": "web-resign"},
                headers={"Authorization": f"Bearer {token}"},
            )
            if r.status_code == 200:
                break
        assert r.status_code == 200, r.text
        text = http.get(f"/v1/games/{gid}/log", headers={"Authorization": f"Bearer {token}"}).text
        # a bare POST (no body) still takes an invite's seat, adding nothing
        _, bare_path = table()
        assert http.post(bare_path).status_code == 200
    lines = log.loads(text.encode())
    header = lines[0]
    assert header["format"] == 2
    assert header["contributions"] == [
        {"seat": 0, "entropy": mine},
        {"seat": 1, "entropy": theirs},
    ]
    assert log.verify(lines).revealed  # the deal re-derived from the header's contributions
    # ...and the deal is the one of the seed derived with the joiner's bytes, not without them
    game = get_game("speed")
    server_seed = int(lines[-1]["seed"])
    dealt = next(ln for ln in lines if ln.get("type") == "entry")["events"]

    def deal(contributions: list[tuple[int, bytes]]) -> list[object]:
        setup = Setup(2, rng.derive_deal_seed(server_seed, contributions), SpeedRules(), 40)
        return [codec.encode(e) for e in game.deal(setup)]

    both = [(0, bytes.fromhex(mine)), (1, bytes.fromhex(theirs))]
    assert deal(both) == dealt
    assert deal(both[:1]) != dealt


def test_a_server_without_the_runtime_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 21: the page could only say "the verifier failed to load". The server's 404 for a
    runtime file it lacks now says why and what to do, and the page's worker shows that text."""
    monkeypatch.setattr(web, "pyodide_dir", lambda: None)
    missing = web.static.fn("pyodide/pyodide.mjs")
    assert missing.status_code == 404
    text = bytes(missing.content).decode()
    assert "no Pyodide runtime" in text and "make web-vendor" in text
    assert web.static.fn("pyodide/console.html").status_code == 404  # not a runtime file
    worker = (web.WEB_DIR / "js" / "verify-worker.js").read_text()
    assert "await missing(runtime)" in worker, "the page's worker reports the server's words"
