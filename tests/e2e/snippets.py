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


def under(path: Path, heading: str, lang: str = "sh") -> list[Block]:
    """The ``lang`` blocks directly under ``heading`` (its exact line, e.g. ``"## Install"``)."""
    found = [b for b in blocks(path, lang) if b.heading == heading]
    assert found, f"no {lang} block under {heading!r} in {path.name}"
    return found
