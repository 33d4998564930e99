"""Presence: which seats hold an event stream open, on any server (``GetTable`` and ``GetView``).

Each server publishes the seats streaming from it as ``presence`` rows under its ``server_id``
(:meth:`Presence.publish`: written in order by one task, soon after each change), and a reader
counts only the rows of servers whose lease is live, so a killed server's seats are absent
within :data:`~.backend.LEASE_TTL_S`. A server whose lease had lapsed when it renews it
publishes all its rows again (others may have removed them meanwhile: :data:`FORGET_ABSENT`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import Any, Final

import structlog

from ..interface import StoreError
from .connections import Conn, Pool

log = structlog.get_logger("cardcore_server")

PRESENCE_RETRY_S: Final = 1.0
"""How soon a presence publication that failed (the database away) is tried again."""

FORGET_ABSENT: Final = """
DELETE FROM presence p WHERE NOT EXISTS (
    SELECT 1 FROM servers s WHERE s.server_id = p.server_id
    AND s.expires_at > now() - interval '10 seconds')
"""
"""The presence rows of servers gone for a while (readers already skip them once the lease
lapses; the margin keeps a statement that started before a renewal from taking a live server's
rows: a server back after longer than that publishes its rows again)."""
_PRESENT: Final = """
SELECT DISTINCT p.game_id, p.seat FROM presence p JOIN servers s ON s.server_id = p.server_id
WHERE p.game_id = ANY(%s) AND s.expires_at > now()
"""
_UNPUBLISH: Final = (
    "DELETE FROM presence WHERE server_id = %(me)s AND (%(all)s OR game_id = ANY(%(games)s))"
)
_PUBLISH: Final = """
INSERT INTO presence(game_id, seat, server_id)
SELECT u.g, u.s, %(me)s FROM unnest(%(g)s::text[], %(s)s::int[]) AS u(g, s)
"""


class Presence:
    """This server's streaming seats, published by one task; everyone's, read."""

    def __init__(self, server_id: str, writers: Pool, readers: Pool) -> None:
        self.server_id = server_id
        self._writers = writers
        self._readers = readers
        self._present: dict[str, frozenset[int]] = {}
        """The seats holding an event stream on this server, by game (:meth:`publish`)."""
        self._dirty: set[str] = set()
        self._all = False
        self._wake = asyncio.Event()
        self._publisher: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._publisher = asyncio.create_task(self._publish_loop(), name="cardcore-pg-presence")

    async def close(self) -> None:
        if self._publisher is not None:
            self._publisher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._publisher
            self._publisher = None

    def publish(self, game_id: str, seats: frozenset[int]) -> None:
        """:meth:`~..interface.SharedStore.set_presence`."""
        if seats:
            self._present[game_id] = seats
        else:
            self._present.pop(game_id, None)
        self._dirty.add(game_id)
        self._wake.set()

    def republish(self) -> None:
        """Publish every row again (the lease had lapsed: others may have removed them)."""
        self._all = True
        self._wake.set()

    async def _publish_loop(self) -> None:
        """Write this server's presence rows as :meth:`publish` changes them: each write replaces
        the rows of the games changed since the last one (or all rows, after a lapsed lease)
        with what is true now, so writes that fail are simply done again."""
        while True:
            await self._wake.wait()
            self._wake.clear()
            everything, self._all = self._all, False
            games = sorted(self._dirty)
            self._dirty.clear()
            rows = [
                (g, seat)
                for g in (sorted(self._present) if everything else games)
                for seat in sorted(self._present.get(g, ()))
            ]
            try:
                await self._write(everything, games, rows)
            except StoreError as exc:
                log.warning("presence_publish_failed", error=str(exc))
                self._dirty.update(games)
                self._all = self._all or everything
                await asyncio.sleep(PRESENCE_RETRY_S)
                self._wake.set()

    async def _write(self, everything: bool, games: list[str], rows: list[tuple[str, int]]) -> None:
        async def write(conn: Conn) -> None:
            me = self.server_id
            async with conn.transaction():
                await conn.execute(_UNPUBLISH, {"me": me, "all": everything, "games": games})
                if rows:
                    await conn.execute(
                        _PUBLISH, {"me": me, "g": [g for g, _ in rows], "s": [s for _, s in rows]}
                    )

        await self._writers.run(write, retry=False)

    async def seats(self, game_ids: Sequence[str]) -> dict[str, set[int]]:
        """:meth:`~..interface.SharedStore.present_seats`."""

        async def fetch(c: Conn) -> list[tuple[Any, ...]]:
            cur = await c.execute(_PRESENT, (list(game_ids),))
            return await cur.fetchall()

        found: dict[str, set[int]] = {}
        for game_id, seat in await self._readers.run(fetch, retry=True):
            found.setdefault(str(game_id), set()).add(int(seat))
        return found
