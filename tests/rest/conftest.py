"""Fixtures: a real ``cardcore serve`` with REST on an ephemeral loopback port (nothing mocked)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from .helpers import RestServer


@pytest.fixture(scope="session")
def rest_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RestServer]:
    """The shared server: client seeds allowed, the timed Collect off."""
    tmp = tmp_path_factory.mktemp("rest")
    proc = RestServer(tmp, "--allow-client-seed", "--collect-window-ms", "0").start()
    yield proc
    rc = proc.stop()
    assert rc == 0, "graceful shutdown must exit 0"


@pytest.fixture
def http(rest_server: RestServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=rest_server.url, timeout=10.0) as client:
        yield client
