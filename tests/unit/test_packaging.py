"""Packaging facts people rely on (issues 13 and 21): a licence, a changelog, ``cardcore
--version`` and ``python -m cardcore``; three distributions from one repository at one version —
the engine with no dependency, the client with the stubs, the service with everything ``serve``
needs — and ``make serve`` keeping its database out of the source tree."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from cardcore import cli
from cardcore.version import __version__
from cardcore_server import pyodide_runtime

ROOT = Path(__file__).resolve().parents[2]


def _project(folder: str) -> dict[str, Any]:
    return dict(tomllib.loads((ROOT / folder / "pyproject.toml").read_text())["project"])


def test_licence_changelog_and_metadata() -> None:
    meta = _project(".")
    assert (
        meta["license"] == {"file": "LICENSE"} and "MIT License" in (ROOT / "LICENSE").read_text()
    )
    assert (ROOT / "CHANGELOG.md").read_text().startswith("# Changelog")
    assert "License :: OSI Approved :: MIT License" in meta["classifiers"]
    assert meta["dependencies"] == [], "the engine has no dependencies"
    # The service and the client are distributions of their own, never extras of the engine;
    # its extras are the bot and RL authors' tools (docs/rl.md, docs/ladder.md).
    extras = meta["optional-dependencies"]
    assert set(extras) == {"rl", "ladder"}
    assert not [d for ds in extras.values() for d in ds if d.startswith(("cardcore", "grpc"))]
    for folder in ("clients/python", "services"):
        assert (ROOT / folder / "LICENSE").read_text() == (ROOT / "LICENSE").read_text()


def test_the_three_distributions_share_one_version_and_pin_each_other() -> None:
    client, server = _project("clients/python"), _project("services")
    assert client["name"] == "cardcore-client" and server["name"] == "cardcore-server"
    assert client["version"] == server["version"] == __version__
    assert not [d for d in client["dependencies"] if d.startswith("cardcore")], (
        "the client speaks the wire contract only: it needs no engine"
    )
    assert f"cardcore=={__version__}" in server["dependencies"]
    assert f"cardcore-client=={__version__}" in server["dependencies"]
    needs = {re.split(r"[<>=\[]", d)[0] for d in server["dependencies"]}
    assert {"grpcio", "litestar", "uvicorn", "msgspec", "cryptography"} <= needs, (
        "everything `cardcore serve` serves by default (gRPC, REST, the web table)"
    )
    assert server["optional-dependencies"]["postgres"] == ["psycopg[binary]>=3.2"]
    commands = server["entry-points"]["cardcore.commands"]
    assert set(commands) == {"serve", "demo", "backup"}


def test_the_pyodide_pin_is_the_lockfiles() -> None:
    lock = json.loads((ROOT / "package-lock.json").read_text())["packages"]
    pinned = lock["node_modules/pyodide"]
    assert (pinned["version"], pinned["integrity"]) == (
        pyodide_runtime.VERSION,
        pyodide_runtime.INTEGRITY,
    ), "services/cardcore_server/pyodide_runtime.py pins another pyodide than package-lock.json"


def test_a_service_command_without_the_service_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cli, "entry_points", lambda group: [])
    assert cli.main(["serve"]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert "pip install . ./clients/python ./services" in err
    assert "cardcore[server]" not in err


def test_version_from_both_entry_points() -> None:
    """The version and which build runs (``cardcore.compiled``): the dev tree's is the pure one
    unless compiled in place; ``CARDCORE_PURE=1`` makes it so. tests/e2e/test_compiled_build.py
    asks an installed compiled wheel."""
    probe = [sys.executable, "-c", "import cardcore; print(cardcore.compiled)"]
    compiled = subprocess.run(probe, capture_output=True, text=True, check=True).stdout.strip()
    build = "compiled" if compiled == "True" else "pure Python"
    for cmd, env in (
        ([sys.executable, "-m", "cardcore", "--version"], {}),
        ([sys.executable, "-m", "cardcore.cli", "--version"], {}),
        ([sys.executable, "-m", "cardcore", "--version"], {"CARDCORE_PURE": "1"}),
    ):
        build = "pure Python" if env else build
        done = subprocess.run(
            cmd, capture_output=True, text=True, check=False, env={**os.environ, **env}
        )
        assert done.returncode == 0 and done.stdout.strip() == f"cardcore {__version__} ({build})"


def test_make_serve_keeps_its_database_out_of_the_tree() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "SERVE_DB ?= $(HOME)/.local/share/cardcore/cardcore.db" in makefile
    assert '--db "$(SERVE_DB)"' in makefile
    assert "*.db" in (ROOT / ".gitignore").read_text().splitlines()


def test_the_old_name_of_the_stubs_is_only_an_alias_for_outside_programs() -> None:
    """``cardcore_server._pb`` is kept for the shared benchmark harness alone; the stubs are
    ``cardcore_proto`` and nothing here imports the old name."""
    from cardcore_proto import game_service_pb2
    from cardcore_server import _pb

    assert _pb.game_service_pb2 is game_service_pb2
    users = [
        str(p)
        for folder in ("cardcore", "services", "clients/python", "tests", "benchmarks")
        for p in (ROOT / folder).rglob("*.py")
        if "cardcore_server._pb" in p.read_text(encoding="utf-8") and p.name != "_pb.py"
    ]
    assert users == [str(Path(__file__))], users
