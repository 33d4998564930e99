"""Retention (``--retain-days``, ``--archive``): what is older than that leaves the store.

Unfinished games idle that long are aborted first (through their sequencer: the abort is
logged, and the log becomes final); each finished game's final log is written to the archive
(``<game_id>.jsonl``, fsynced, then renamed into place) before it is removed from the store and
from this server's memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
from pathlib import Path
from typing import Final

import structlog

from cardcore import codec
from cardcore.errors import Rejected
from cardcore.log import abort_action, dumps

from ..config import ServiceConfig
from ..errors import ServiceError
from ..live import HOST_SEAT, HostAbort, Unavailable, wall_ms
from ..store import EventStore, StoreError
from .games import Games

log = structlog.get_logger("cardcore_server")

RETENTION_EVERY_S: Final = 3600.0


class Retention:
    """Runs :meth:`retain` every :data:`RETENTION_EVERY_S` while the server runs, when the
    configuration asks for it."""

    def __init__(self, config: ServiceConfig, store: EventStore, games: Games) -> None:
        self._days = config.retain_days
        self._archive = Path(config.archive_dir) if config.archive_dir else None
        self._store = store
        self._games = games
        self._task: asyncio.Task[None] | None = None

    async def open(self) -> None:
        if self._days is not None:
            self._task = asyncio.get_running_loop().create_task(self._loop())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None

    async def _loop(self) -> None:
        while True:
            try:
                await self.retain()
            except StoreError as exc:
                log.warning("retention_failed", error=str(exc))
            await asyncio.sleep(RETENTION_EVERY_S)

    async def retain(self, now_ms: int | None = None) -> list[str]:
        """Archive and remove what is older than ``--retain-days``; returns the ids removed."""
        if self._days is None:
            return []
        cutoff = (wall_ms() if now_ms is None else now_ms) - int(self._days * 86_400_000)
        aborted = await self._abort_idle(cutoff)
        removed = []
        for game_id in [*aborted, *await self._store.games_idle_since(cutoff, finished=True)]:
            stored = await self._store.load(game_id)
            if stored is not None:
                if stored.lines[-1].get("type") != "end":
                    continue  # not final after all (an abort that did not land): next time
                if self._archive is not None:
                    _write_archive(self._archive / f"{game_id}.jsonl", dumps(stored.lines))
            await self._store.delete_game(game_id)
            await self._games.forget(game_id)
            removed.append(game_id)
            log.info("game_archived", game_id=game_id, archived=self._archive is not None)
        return removed

    async def _abort_idle(self, cutoff: int) -> list[str]:
        """Abort the unfinished games idle since ``cutoff``; the ids of those now final."""
        aborted = []
        for game_id in await self._store.games_idle_since(cutoff, finished=False):
            text = codec.canonical_text(abort_action("retention"))
            try:
                live = await self._games.live(game_id)
                await live.submit(HOST_SEAT, HostAbort("retention"), text, None)
            except (ServiceError, Rejected, StoreError, Unavailable) as exc:
                log.warning("retention_abort_failed", game_id=game_id, error=str(exc))
                continue
            aborted.append(game_id)  # final now (its last entry is new: not "idle since")
        return aborted


def _write_archive(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{secrets.token_hex(4)}")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    with contextlib.suppress(OSError):  # the rename itself durable
        fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
