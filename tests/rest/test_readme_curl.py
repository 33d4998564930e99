"""The README's REST session runs as pasted (bash, curl, python3 and cardcore) against a live
server, and plays as a reader expects: no traceback, no card thrown away on a false slap, the game
over at its promised length (60 events) or at a natural end, and the verify line's verdict on the
finished game. Only the REST address is changed to the test server's ephemeral port.

tests/e2e runs the same session, with these same checks, against ``make serve`` on a fresh tree
in a new shell (``check_session``)."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from cardcore import cli
from cardcore import log as clog

from ..e2e import snippets
from .helpers import RestServer

EVENT_LIMIT = 60  # the session's "event_limit", which its comment promises


def session_script() -> str:
    (block,) = snippets.under(snippets.README, "### REST and Server-Sent Events")
    assert snippets.DEFAULT_API in block.text and "events" in block.text
    return block.text


def run_bash(script: str, cwd: Path, env: dict[str, str], timeout: float = 180) -> Any:
    return subprocess.run(
        ["bash", "-e", "-c", script],  # -e, but no pipefail: as an interactive shell runs it
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def cli_verdict(path: Path, *options: str) -> tuple[int, str]:
    """``cardcore verify [OPTIONS] PATH`` as the engine says it: its exit code and its words."""
    out = io.StringIO()
    code = cli.main(["verify", *options, str(path)], out)
    return code, out.getvalue().strip()


def check_sensible_game(lines: list[dict[str, Any]], seat: int) -> None:
    """A seat of the README's Ratscrew game played sensibly, and the game ran its promised
    length: ``event_limit`` events (the entry that reaches them ends it) or a natural end."""
    entries = [ln for ln in lines if ln.get("type") == "entry"]
    false = [
        ln["seq"]
        for ln in entries
        for e in ln["events"]
        if e["kind"] == "Slapped" and e["seat"] == seat and not e["valid"]
    ]
    assert not false, f"seat {seat} threw cards away on false slaps at seq {false}"
    mine = [ln for ln in entries if ln["seat"] == seat]
    assert len(mine) >= 5, f"seat {seat} hardly played: {len(mine)} actions"
    counts = [len(ln["events"]) for ln in entries]
    termination = lines[-1]["outcome"]["termination"]
    if termination == "event_limit":
        assert sum(counts) >= EVENT_LIMIT > sum(counts[:-1]), counts
    else:
        assert termination != "aborted" and sum(counts) < EVENT_LIMIT, (termination, counts)


def check_session(done: Any, cwd: Path) -> None:
    """What a reader of the session expects to see, run in ``cwd``."""
    out = done.stdout
    assert done.returncode == 0, out[-3000:] + done.stderr[-3000:]
    assert "Traceback" not in done.stderr and "Error" not in done.stderr, done.stderr[-3000:]
    assert "ratscrew" in out.splitlines()[0]
    assert '"legal_commands":[{"kind":"Play"}]' in out  # the view
    assert '"action_id"' not in out  # the first play's answer: its entry, seq 1
    assert re.search(r'"entry":\{"action":\{"kind":"Play"\},"at_ms":\d+,"events":.*"seq":1\}', out)
    events = (cwd / "events.txt").read_text()
    assert events.startswith("retry: 1000") and "id: 0\nevent: entry" in events
    assert events.rstrip().splitlines()[-2] == "event: outcome"
    assert "id: 6\nevent: entry" in out and "id: 5\n" not in out  # resumed after seq 5
    lines = clog.loads((cwd / "game.jsonl").read_bytes())
    assert lines[-1]["type"] == "end", "the log of a finished game"
    check_sensible_game(lines, seat=0)
    # the output ends with cardcore verify's verdict on the finished game, word for word
    code, verdict = cli_verdict(cwd / "game.jsonl")
    assert out.rstrip().endswith(verdict) and code == 0, (code, verdict, out[-500:])


def test_the_readme_curl_session_plays_sensibly_to_its_end(tmp_path: Path) -> None:
    # `cardcore serve` with its defaults, but on ephemeral ports
    rest_server = RestServer(tmp_path).start()
    try:
        env = dict(os.environ)
        env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
        script = session_script().replace(snippets.DEFAULT_API, rest_server.url)
        check_session(run_bash(script, tmp_path, env), tmp_path)
    finally:
        assert rest_server.stop() == 0
