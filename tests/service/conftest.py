"""Fixtures: real servers on 127.0.0.1 with ephemeral ports (nothing is mocked)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .helpers import ServerProcess


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The shared test server: client seeds allowed, the timed Collect off unless asked for."""
    tmp = tmp_path_factory.mktemp("server")
    proc = ServerProcess(tmp, "--allow-client-seed", "--collect-window-ms", "0").start()
    yield proc
    rc = proc.stop()
    assert rc == 0, "graceful shutdown must exit 0"


@pytest.fixture
def fresh_server(tmp_path: Path) -> Iterator[ServerProcess]:
    """A server of one test's own (crash tests kill it)."""
    proc = ServerProcess(tmp_path, "--allow-client-seed", "--collect-window-ms", "0")
    yield proc
    if proc.alive():
        proc.stop()


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A PostgreSQL URL with a fresh schema of this test's own, one such test at a time (see
    :mod:`.pg`: skips when no server is reachable, fails instead under ``CI``)."""
    from .pg import one_test_at_a_time, scratch_schema

    with one_test_at_a_time(), scratch_schema() as url:
        yield url
