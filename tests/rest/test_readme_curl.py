"""The README's REST session runs as pasted (bash, curl, python3 and cardcore) against a live
server: only the REST address is changed to the test server's ephemeral port."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from cardcore import log as clog

from .helpers import RestServer

README = Path(__file__).resolve().parents[2] / "README.md"
DEFAULT_API = "http://127.0.0.1:50052"


def _session() -> str:
    text = README.read_text()
    section = text.split("### REST and Server-Sent Events", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None
    return block.group(1)


def test_the_readme_curl_session_works_as_pasted(tmp_path: Path) -> None:
    # `cardcore serve` with its defaults, but on ephemeral ports
    rest_server = RestServer(tmp_path).start()
    try:
        _run(rest_server, tmp_path)
    finally:
        assert rest_server.stop() == 0


def _run(rest_server: RestServer, tmp_path: Path) -> None:
    script = _session()
    assert DEFAULT_API in script and "curl" in script and "events" in script
    script = script.replace(DEFAULT_API, rest_server.url)
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    done = subprocess.run(
        ["bash", "-e", "-c", script],  # -e, but no pipefail: as an interactive shell runs it
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    out = done.stdout
    assert done.returncode == 0, out[-3000:] + done.stderr[-3000:]
    assert "ratscrew" in out.splitlines()[0]
    assert '"legal_commands":[{"kind":"Play"}]' in out  # the view
    assert '"action_id"' not in out  # the first play's answer: its entry, seq 1
    assert re.search(r'"entry":\{"action":\{"kind":"Play"\},"at_ms":\d+,"events":.*"seq":1\}', out)
    events = (tmp_path / "events.txt").read_text()
    assert events.startswith("retry: 1000") and "id: 0\nevent: entry" in events
    assert events.rstrip().splitlines()[-2] == "event: outcome"
    assert "id: 6\nevent: entry" in out and "id: 5\n" not in out  # resumed after seq 5
    assert "valid" in out.splitlines()[-1]  # cardcore verify
    lines = clog.loads((tmp_path / "game.jsonl").read_bytes())
    assert lines[-1]["type"] == "end"
