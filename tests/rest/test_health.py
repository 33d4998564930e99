"""Health over HTTP (issue 13): ``/healthz`` (alive) and ``/readyz`` (the store answers, the
server is not draining), beside gRPC health."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx

from cardcore_server.app import Application
from cardcore_server.store import SqliteStore


def test_alive_and_ready(http: httpx.Client) -> None:
    assert http.get("/healthz").json() == {"status": "alive"}
    ready = http.get("/readyz")
    assert ready.status_code == 200 and ready.json() == {"status": "ready"}


def test_not_ready_while_draining(tmp_path: Path) -> None:
    async def main() -> None:
        app = Application(SqliteStore(str(tmp_path / "h.db")))
        await app.start()
        try:
            assert await app.readiness() is None
            app.begin_shutdown()
            assert await app.readiness() == "the server is stopping"
        finally:
            await app.close()

    asyncio.run(main())
