"""The shell lines of the README and the getting-started guide, found the way a reader finds
them: each fenced ``sh`` block under its heading (headings inside a fence are bash comments, not
headings). The tests that run them take them from here, so that they run what the files say."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
GETTING_STARTED = ROOT / "docs" / "getting-started.md"
DEFAULT_API = "http://127.0.0.1:50052"
"""The REST address the lines use (``cardcore serve``'s default): tests put their server's."""
DEFAULT_GRPC = "127.0.0.1:50051"

_FENCE = re.compile(r"^```(\S*)\s*$")
_HEADING = re.compile(r"^#{1,6} ")


@dataclass(frozen=True)
class Block:
    """One fenced block: the file, the heading it stands under, its language and text."""

    path: Path
    heading: str
    lang: str
    text: str

    @property
    def lines(self) -> list[str]:
        """Its lines that do something: not blank, not a comment alone."""
        return [
            ln for ln in self.text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")
        ]


def blocks(path: Path, lang: str = "sh") -> list[Block]:
    """Every fenced block of ``lang`` in ``path``, in order."""
    found: list[Block] = []
    heading, fence, body = "", None, []
    for line in path.read_text().splitlines():
        m = _FENCE.match(line)
        if fence is None and m:
            fence, body = m.group(1), []
        elif fence is not None and line.strip() == "```":
            if fence == lang:
                found.append(Block(path, heading, fence, "\n".join(body) + "\n"))
            fence = None
        elif fence is not None:
            body.append(line)
        elif _HEADING.match(line):
            heading = line
    return found


def under(path: Path, heading: str, lang: str = "sh", holding: str = "") -> list[Block]:
    """The ``lang`` blocks directly under ``heading`` (its exact line, e.g. ``"## Install"``)
    that hold the text ``holding``."""
    found = [b for b in blocks(path, lang) if b.heading == heading and holding in b.text]
    assert found, f"no {lang} block under {heading!r} holding {holding!r} in {path.name}"
    return found


def run_by(block: Block) -> str | None:
    """The test that runs every line of ``block`` (RUN_BY), if one does."""
    for (name, heading, holding), test in RUN_BY.items():
        if block.path.name == name and block.heading == heading and holding in block.text:
            return test
    return None


def command(line: str) -> str:
    """A line without its comment (two spaces, then ``#``)."""
    return line.partition("  #")[0].strip()


# --------------------------------------------------------------------------- who runs each line

RUN_BY: dict[tuple[str, str, str], str] = {
    # (file, heading, a text the block holds, "" for any): the test that runs every line of
    # the sh blocks under that heading that hold that text
    ("README.md", "## Install and play", ""): "test_install.py",
    ("README.md", "## The command line", ""): "test_install.py",
    ("getting-started.md", "## Install", "pip install"): "test_install.py",
    ("getting-started.md", "## Install", "cardcore games"): "test_install.py",
    ("README.md", "### Settling a dispute", ""): "test_serve.py::test_settling_a_dispute",
    ("README.md", "## The service", ""): "test_serve.py::test_the_service_lines",
    ("README.md", "### REST and Server-Sent Events", ""): (
        "test_serve.py::test_the_readme_rest_session"
    ),
    ("README.md", "### Tables: invite two friends, play, resign", ""): (
        "test_serve.py::test_the_readme_tables_walk_through"
    ),
    ("getting-started.md", "## A first game over REST", ""): (
        "test_serve.py::test_the_guide_rest_game"
    ),
    ("getting-started.md", "## A first game over gRPC", ""): (
        "test_serve.py::test_the_guide_grpc_game"
    ),
    ("README.md", "### Other clients: Node, and buf curl", ""): (
        "test_serve.py::test_the_readme_buf_curl_line"
    ),
}
"""The README's REST and tables lines also run in tests/rest (test_readme_curl, _tables)."""

MAKE_RUN_BY = "test_serve.py::test_the_make_lines"
"""Every other line that is a ``make`` target (``make serve``: the ``served`` fixture)."""

NOT_HERE: dict[str, str] = {
    "make test": "the whole suite, this test among them: CI runs it (.ci/run)",
    ".venv/bin/mkdocs serve": (
        "a development server on the fixed port 8000 that runs until stopped; it builds what"
        " make docs builds (which runs here)"
    ),
    "make bench": "minutes of benchmarks, never part of make test (the README says so)",
    "git clone <this repository> cardcore && cd cardcore": (
        "the repository's address is a placeholder; the tests copy its tracked files instead,"
        " as a clone has them"
    ),
}


def make_lines() -> list[str]:
    """The ``make`` lines of both files, in order, but those not run here."""
    return [
        line
        for path in (README, GETTING_STARTED)
        for b in blocks(path)
        for line in b.lines
        if command(line).startswith("make ") and command(line) not in NOT_HERE
    ]
