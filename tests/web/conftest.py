"""Browser tests of the web table: a real ``cardcore serve`` and the distribution's headless
Chromium, driven by playwright-core (``tests/web/driver``: Node). Without Chromium (or Node, or
``npm ci``) they skip, with the reason; under CI (``CI`` set) they fail instead."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ..rest.helpers import RestServer

ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).with_name("driver") / "run.mjs"
ARTIFACTS = Path(os.environ.get("CARDCORE_WEB_ARTIFACTS", Path(__file__).with_name("artifacts")))
CHROMIUM = os.environ.get("CARDCORE_CHROMIUM", "/usr/bin/chromium")
SCENARIO_TIMEOUT_S = 300
METRICS: dict[str, Any] = {}
"""The figures the browser tests measure (``record_metric``), written to
``artifacts/metrics.json`` and printed at the end of the run."""


def _missing() -> str | None:
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM} (apt-get install -y chromium; or set CARDCORE_CHROMIUM)"
    if shutil.which("node") is None:
        return "no node on PATH"
    for package in ("playwright-core", "axe-core", "pyodide"):
        if not (ROOT / "node_modules" / package / "package.json").exists():
            return f"node_modules/{package} is missing (npm ci)"
    return None


@pytest.fixture(scope="session")
def browser_ready() -> None:
    why = _missing()
    if why is not None:
        if os.environ.get("CI"):
            pytest.fail(f"the browser tests must run under CI: {why}")
        pytest.skip(why)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    print(f"\nweb table screenshots: {ARTIFACTS}")
    return ARTIFACTS


@pytest.fixture(scope="session")
def web_server(
    browser_ready: None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RestServer]:
    tmp = tmp_path_factory.mktemp("web")
    proc = RestServer(tmp, name="web").start()
    yield proc
    assert proc.stop() == 0


Scenario = Callable[..., dict[str, Any]]


@pytest.fixture(scope="session")
def scenario(
    web_server: RestServer, artifacts: Path, tmp_path_factory: pytest.TempPathFactory
) -> Scenario:
    """Run one scenario of ``driver/scenarios.mjs`` in a fresh browser; its result as a dict."""
    tmp = tmp_path_factory.mktemp("web-results")
    count = itertools.count(1)  # next() of it is atomic: scenarios may run at once, in threads

    def run(name: str, **args: Any) -> dict[str, Any]:
        result_file = tmp / f"{name}-{next(count)}.json"
        payload = {
            "base": web_server.url,
            "out": str(artifacts),
            "result": str(result_file),
            **args,
        }
        proc = subprocess.run(
            ["node", str(DRIVER), name, json.dumps(payload)],
            check=False,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=SCENARIO_TIMEOUT_S,
            env={**os.environ, "CARDCORE_CHROMIUM": CHROMIUM},
        )
        if not result_file.exists():
            raise AssertionError(f"scenario {name} wrote no result:\n{proc.stdout}\n{proc.stderr}")
        result: dict[str, Any] = json.loads(result_file.read_text())
        if "error" in result:
            raise AssertionError(f"scenario {name} failed: {result['error']}")
        return result

    return run


@pytest.fixture(scope="session")
def record_metric(artifacts: Path) -> Iterator[Callable[[str, Any], None]]:
    """``record_metric(name, value)``: a figure for the closing note (metrics.json)."""

    def record(name: str, value: Any) -> None:
        METRICS[name] = value

    yield record
    if METRICS:
        # the browser tests run in two processes (``serial``, then ``solo``): each adds its
        # figures to the file, replacing only its own
        path = artifacts / "metrics.json"
        kept = json.loads(path.read_text()) if path.is_file() else {}
        path.write_text(json.dumps(kept | METRICS, indent=2, sort_keys=True) + "\n")


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if METRICS:
        terminalreporter.section("web table metrics (tests/web/artifacts/metrics.json)")
        for name, value in sorted(METRICS.items()):
            terminalreporter.write_line(f"{name}: {json.dumps(value)}")
