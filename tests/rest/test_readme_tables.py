"""The README's table walk-through runs as pasted, and plays as a reader expects: terminal 1
creates a table with two invite seats and prints their links; terminals 2 and 3 (two bash
processes at once, each in its own directory) open their link, take the seat, wait for the deal
without a traceback, leave Palace's setup by pressing Ready and both play cards; terminal 3
resigns and verifies the log. Only the REST address is changed to the test server's port.

tests/e2e runs the same walk-through, with these checks, against ``make serve`` on a fresh tree
in a new shell (``walk_through`` and ``check_walk_through``)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from cardcore import log as clog

from ..e2e import snippets
from .helpers import RestServer
from .test_readme_curl import cli_verdict


def scripts() -> tuple[str, str, str]:
    blocks = snippets.under(snippets.README, "### Tables: invite two friends, play, resign")
    host, friend, resign = (b.text for b in blocks)  # exactly three: host, friend, resign
    return host, friend, resign


def run(script: str, cwd: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        ["bash", "-e", "-c", script],  # -e, but no pipefail: as an interactive shell runs it
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@dataclass
class Terminal:
    cwd: Path
    returncode: int
    out: str
    err: str


def walk_through(api: str, tmp: Path, env: dict[str, str]) -> list[Terminal]:
    """Terminals 1, 2 and 3, run as the README says, against the REST server at ``api``."""
    host, friend, resign = (s.replace(snippets.DEFAULT_API, api) for s in scripts())
    dirs = [tmp / f"terminal{i}" for i in (1, 2, 3)]
    for d in dirs:
        d.mkdir()
    first = run(host, dirs[0], env)
    out, err = first.communicate(timeout=60)
    terminals = [Terminal(dirs[0], first.returncode, out, err)]
    status, *links = out.split() or [""]
    assert first.returncode == 0 and status == "waiting" and len(links) == 2, out + err
    assert all(link.startswith(f"{api}/v1/invites/cci_") for link in links), links
    two = run(friend, dirs[1], {**env, "LINK": links[0]})
    time.sleep(1.5)  # the second friend comes later: the first meets a table not dealt yet
    three = run(friend + resign, dirs[2], {**env, "LINK": links[1]})
    for proc, d in ((two, dirs[1]), (three, dirs[2])):
        out, err = proc.communicate(timeout=120)
        terminals.append(Terminal(d, proc.returncode, out, err))
    return terminals


def check_walk_through(terminals: list[Terminal]) -> None:
    for t in terminals:
        assert t.returncode == 0, t.out + t.err
        assert "Traceback" not in t.err and "Error" not in t.err, t.err[-3000:]
    for t in terminals[1:]:
        assert '"game":"palace"' in t.out.splitlines()[0]  # what the link was for
    last = terminals[2]
    assert "'termination': 'resigned'" in last.out
    lines = clog.loads((last.cwd / "game.jsonl").read_bytes())
    code, verdict = cli_verdict(last.cwd / "game.jsonl")
    assert last.out.rstrip().endswith(verdict) and code == 0, (code, verdict, last.out[-500:])
    entries = [ln for ln in lines if ln.get("type") == "entry"]
    kinds = [e["kind"] for ln in entries for e in ln["events"]]
    assert "PlayStarted" in kinds, "both pressed Ready: the game left its setup"
    played = {e["seat"] for ln in entries for e in ln["events"] if e["kind"] == "CardsPlayed"}
    assert played == {0, 1}, f"both friends played cards: {played}"
    swaps = [ln["seq"] for ln in entries if ln["action"].get("kind") == "Swap"]
    assert not swaps, f"nobody swaps for ever: {swaps}"
    assert entries[-1]["action"] == {"by": None, "kind": "Resign"}


def test_the_readme_table_walk_through_plays_and_resigns(tmp_path: Path) -> None:
    server = RestServer(tmp_path).start()
    try:
        env = dict(os.environ)
        env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
        terminals = walk_through(server.url, tmp_path, env)
        refused = [r for r in server.log_records() if r.get("code") not in (None, "OK")]
        try:
            check_walk_through(terminals)
        except AssertionError as e:
            raise AssertionError(f"{e}\nthe server refused: {refused}") from None
    finally:
        assert server.stop() == 0
