"""The README's table walk-through runs as pasted: terminal 1 creates a table with two invite
seats and prints their links; terminals 2 and 3 (two bash processes at once, each in its own
directory) open their link, take the seat and play; terminal 3 resigns and verifies the log.
Only the REST address is changed to the test server's ephemeral port."""

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


def blocks() -> list[str]:
    text = README.read_text()
    section = text.split("### Tables: invite two friends, play, resign", 1)[1]
    section = section.split("\n### ", 1)[0]
    found = re.findall(r"```sh\n(.*?)```", section, re.S)
    assert len(found) == 3, "host, friend, resign"
    return found


def run(script: str, cwd: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        ["bash", "-e", "-c", script],  # -e, but no pipefail: as an interactive shell runs it
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_the_readme_table_walk_through_works_as_pasted(tmp_path: Path) -> None:
    host, friend, resign = (b.replace(DEFAULT_API, "{API}") for b in blocks())
    server = RestServer(tmp_path).start()
    try:
        env = dict(os.environ)
        env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
        api = server.url
        dirs = [tmp_path / f"terminal{i}" for i in (1, 2, 3)]
        for d in dirs:
            d.mkdir()
        first = run(host.replace("{API}", api), dirs[0], env)
        out, err = first.communicate(timeout=60)
        assert first.returncode == 0, out + err
        status, *links = out.split()
        assert status == "waiting" and len(links) == 2
        assert all(link.startswith(f"{api}/v1/invites/cci_") for link in links)
        two = run(friend.replace("{API}", api), dirs[1], {**env, "LINK": links[0]})
        three = run(
            friend.replace("{API}", api) + resign.replace("{API}", api),
            dirs[2],
            {**env, "LINK": links[1]},
        )
        out2, err2 = two.communicate(timeout=120)
        out3, err3 = three.communicate(timeout=120)
        assert two.returncode == 0, out2 + err2
        assert three.returncode == 0, out3 + err3
        for out in (out2, out3):
            assert '"game":"palace"' in out.splitlines()[0]  # what the link was for
        assert "'termination': 'resigned'" in out3
        assert out3.splitlines()[-1].startswith("valid")  # cardcore verify
        lines = clog.loads((dirs[2] / "game.jsonl").read_bytes())
        played = [ln for ln in lines if ln.get("type") == "entry" and ln["seat"] is not None]
        assert len({ln["seat"] for ln in played}) == 2, "both friends played"
        assert played[-1]["action"] == {"by": None, "kind": "Resign"}
    finally:
        assert server.stop() == 0
