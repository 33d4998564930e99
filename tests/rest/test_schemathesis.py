"""Schemathesis against the served OpenAPI document of a real server (bounded in time): no
server error, no undocumented status, content type, header or body, malformed input refused,
auth not ignored. ``game_id`` is often a real, finished game and the token a real seat's, so the
operations are exercised past authentication too.

Left out: ``positive_data_acceptance``, since the document cannot express each game's own rules
(seat counts, rule flags, whose turn it is): a schema-valid request that breaks them is a 409/422
by design."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx

from .helpers import RestServer, bearer, create

MAX_TIME_S = 60
"""What bounds the run (``--max-examples`` does not: with 240 s it generated 9,508 cases and took
the whole of it). 30 s once ran out on a machine loaded by the rest of ``make test`` while
Schemathesis was still loading the document and planning its coverage phase (14 s and 28 s), and
no operation was tested at all: twice that leaves room for the testing itself."""


def _finish(http: httpx.Client, gid: str, tokens: dict[int, str]) -> None:
    for _ in range(500):
        for token in tokens.values():
            v = http.get(f"/v1/games/{gid}/view", headers=bearer(token)).json()
            if v["outcome"] is not None:
                return
            if v["legal_commands"]:
                http.post(
                    f"/v1/games/{gid}/actions",
                    json={"command": v["legal_commands"][0]},
                    headers=bearer(token),
                )
    raise AssertionError("the game did not end")


def test_schemathesis_finds_nothing(tmp_path: Path) -> None:
    server = RestServer(tmp_path, "--collect-window-ms", "0").start()
    try:
        with httpx.Client(base_url=server.url, timeout=10.0) as http:
            c = create(http, "ratscrew", 2, event_limit=12)
            tokens = {t["seat"]: t["token"] for t in c["seat_tokens"]}
            _finish(http, c["game_id"], tokens)
        config = tmp_path / "schemathesis.toml"
        config.write_text(
            "[dictionaries.games]\n"
            f"values = [{json.dumps(c['game_id'])}]\n"
            "[parameters]\n"
            '"path.game_id" = { dictionary = "games", probability = 0.6 }\n'
        )
        st = Path(sys.executable).with_name("st")
        cmd = [
            str(st),
            "--config-file",
            str(config),
            "run",
            f"{server.url}/v1/openapi.json",
            "--checks",
            "all",
            "--exclude-checks",
            "positive_data_acceptance",
            "--workers",
            "1",  # ast.parse in Hypothesis is not thread-safe on CPython 3.11
            "--max-examples",
            "40",
            "--max-time",
            str(MAX_TIME_S),
            "--request-timeout",
            "10",
            "--generation-deterministic",
            "-H",
            f"Authorization: Bearer {tokens[0]}",
        ]
        done = subprocess.run(
            cmd, capture_output=True, text=True, timeout=MAX_TIME_S + 60, cwd=tmp_path, check=False
        )
        report = done.stdout[-6000:] + done.stderr[-2000:]
        assert done.returncode == 0, report
        assert "No issues found" in done.stdout or " passed" in done.stdout, report
        print("schemathesis:", " ".join(done.stdout.split("Test cases:")[-1].split()[:6]))
        assert server.stop() == 0
        assert "internal_error" not in server.log_text()
    finally:
        server.stop()
