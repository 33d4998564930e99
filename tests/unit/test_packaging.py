"""Packaging facts people rely on (issue 13): a licence, a changelog, ``cardcore --version`` and
``python -m cardcore``, ``cardcore[postgres]`` pulling everything ``serve`` needs, and ``make
serve`` keeping its database out of the source tree."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from cardcore.version import __version__

ROOT = Path(__file__).resolve().parents[2]


def test_licence_changelog_and_metadata() -> None:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert (
        meta["license"] == {"file": "LICENSE"} and "MIT License" in (ROOT / "LICENSE").read_text()
    )
    assert (ROOT / "CHANGELOG.md").read_text().startswith("# Changelog")
    assert "License :: OSI Approved :: MIT License" in meta["classifiers"]
    assert meta["dependencies"] == [], "the engine has no dependencies"
    extras = meta["optional-dependencies"]
    assert "cardcore[rest]" in extras["postgres"], "cardcore[postgres] is all serve needs"
    assert any(d.startswith("cryptography") for d in extras["verify"])


def test_version_from_both_entry_points() -> None:
    for cmd in (
        [sys.executable, "-m", "cardcore", "--version"],
        [sys.executable, "-m", "cardcore.cli", "--version"],
    ):
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        assert done.returncode == 0 and done.stdout.strip() == f"cardcore {__version__}"


def test_make_serve_keeps_its_database_out_of_the_tree() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "SERVE_DB ?= $(HOME)/.local/share/cardcore/cardcore.db" in makefile
    assert '--db "$(SERVE_DB)"' in makefile
    assert "*.db" in (ROOT / ".gitignore").read_text().splitlines()
