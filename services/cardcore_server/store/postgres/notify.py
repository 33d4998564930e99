"""Wake-ups between servers: every write statement sends ``NOTIFY cardcore_store`` with
``"<writer> <game_id> <version>"`` (PostgreSQL delivers notifications only on commit), and a
listener connection turns them into hints (:meth:`~..interface.SharedStore.watch`) on which the
application re-reads the game's rows.

The payload is never taken for content: the writer id only skips this process's own commits, a
payload that does not parse hints every game, and so does a re-opened listener (notifications
sent while it was down are lost).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Final

import psycopg
import structlog

from .connections import connect, unreachable

log = structlog.get_logger("cardcore_server")

CHANNEL: Final = "cardcore_store"
"""The ``LISTEN``/``NOTIFY`` channel (one per database)."""
LISTEN_POLL_S: Final = 1.0
RECONNECT_MAX_S: Final = 5.0

Watcher = Callable[[str | None, int | None], None]


class Listener:
    """One ``LISTEN`` connection, re-opened when lost, and the watchers it tells."""

    def __init__(self, url: str, server_id: str) -> None:
        self.url = url
        self.server_id = server_id
        self._watchers: list[Watcher] = []
        self._closing = False
        self._task: asyncio.Task[None] | None = None

    def watch(self, on_change: Watcher) -> None:
        self._watchers.append(on_change)

    async def start(self, ready_within_s: float) -> None:
        """Start listening; raises :class:`ConnectionError` when the first connection fails or
        takes longer than ``ready_within_s`` (then :meth:`close` it)."""
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._listen_loop(ready), name="cardcore-pg-listen")
        try:
            await asyncio.wait_for(asyncio.shield(ready), ready_within_s)
        except (TimeoutError, ConnectionError) as exc:
            raise unreachable(exc) from None

    async def close(self) -> None:
        self._closing = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def _hint(self, game_id: str | None, version: int | None) -> None:
        for watcher in self._watchers:
            try:
                watcher(game_id, version)
            except Exception as exc:
                log.error("store_watcher_failed", error=type(exc).__name__)

    def _on_notify(self, payload: str) -> None:
        parts = payload.split(" ")
        if parts[0] == self.server_id:
            return  # our own commit: already in memory
        if len(parts) == 3 and parts[2].isdigit():
            self._hint(parts[1], int(parts[2]))
        else:
            self._hint(None, None)

    async def _listen_loop(self, ready: asyncio.Future[None]) -> None:
        backoff = 0.1
        opened = False
        while not self._closing:
            try:
                conn = await connect(self.url)
            except psycopg.Error as exc:
                if not ready.done():
                    ready.set_exception(unreachable(exc))
                    return
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, RECONNECT_MAX_S)
                continue
            try:
                await conn.execute(f"LISTEN {CHANNEL}")
                if opened:
                    log.info("store_listener_reopened")
                    self._hint(None, None)  # what was sent while we were away is lost
                opened = True
                backoff = 0.1
                if not ready.done():
                    ready.set_result(None)
                while not self._closing:
                    async for n in conn.notifies(timeout=LISTEN_POLL_S):
                        self._on_notify(n.payload)
            except psycopg.Error as exc:
                log.warning("store_listener_lost", error=type(exc).__name__)
                await asyncio.sleep(backoff)
            finally:
                with contextlib.suppress(psycopg.Error):
                    await conn.close()
