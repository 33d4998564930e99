"""A new shell, as a newcomer opens one on this machine: ``bash`` with a clean environment — a
HOME of its own (nothing of ours under ``~/.local/share/cardcore``, no pip or npm state), the
default PATH (no virtualenv active) — and pip as the machine configures it (its per-user config
file, which a new HOME would hide, and its ``PIP_*`` variables: the package index it may use)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
PIP_USER_CONFIG = Path.home() / ".config" / "pip" / "pip.conf"


def new_shell_env(home: Path, **extra: str) -> dict[str, str]:
    home.mkdir(parents=True, exist_ok=True)
    env = {"HOME": str(home), "PATH": DEFAULT_PATH, "LANG": "C.UTF-8"}
    if PIP_USER_CONFIG.is_file():
        env["PIP_CONFIG_FILE"] = str(PIP_USER_CONFIG)
    env.update({k: v for k, v in os.environ.items() if k.startswith("PIP_")})
    env.update(extra)
    return env


def bash(
    script: str, cwd: Path, env: dict[str, str], timeout: float = 600, errexit: bool = True
) -> subprocess.CompletedProcess[str]:
    """``script`` in a new bash (``-e``, but no pipefail: as an interactive shell runs it, the
    first failing line stops it)."""
    return subprocess.run(
        ["bash", "-e", "-c", script] if errexit else ["bash", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def activate(tree: Path) -> str:
    """What the README says to type first in a new shell: ``source .venv/bin/activate``."""
    return f"source {shlex.quote(str(tree / '.venv' / 'bin' / 'activate'))}\n"


def expected_exit(line: str) -> int:
    """The exit status a line's comment promises (``# … exit 3 …``), else 0."""
    comment = line.partition("  #")[2]
    m = re.search(r"\bexit (\d+)", comment)
    return int(m.group(1)) if m else 0


def no_traceback(done: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in done.stderr and "Error:" not in done.stderr, done.stderr[-3000:]
