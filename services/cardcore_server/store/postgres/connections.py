"""Connections to PostgreSQL: how each kind is opened, and a few of one kind kept in a pool that
replaces a lost one. Nothing here blocks the event loop: every call is psycopg's async API."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, Final, TypeVar

import psycopg

from ..interface import StoreError

T = TypeVar("T")
Conn = psycopg.AsyncConnection[Any]

CONNECT: Final[dict[str, Any]] = {
    "connect_timeout": 10,
    # A peer that vanished without closing the socket shows within ~15 s, also on the listener.
    "keepalives": 1,
    "keepalives_idle": 5,
    "keepalives_interval": 2,
    "keepalives_count": 3,
    "application_name": "cardcore",
}


async def connect(url: str) -> Conn:
    """An autocommit connection (one statement, one transaction, unless a caller opens one)."""
    return await psycopg.AsyncConnection.connect(url, **CONNECT, autocommit=True)


async def connect_writer(url: str) -> Conn:
    conn = await connect(url)
    # Acknowledged means durable: never let a server default weaken the commit.
    await conn.execute("SET synchronous_commit = on")
    return conn


async def connect_reader(url: str) -> Conn:
    conn = await connect(url)
    # A transaction of several reads (``load``) sees one snapshot.
    await conn.set_isolation_level(psycopg.IsolationLevel.REPEATABLE_READ)
    await conn.set_read_only(True)
    return conn


def unreachable(exc: BaseException) -> ConnectionError:
    # libpq's message names host and port, never the password.
    return ConnectionError(f"cannot reach PostgreSQL: {str(exc).strip()}")


class Pool:
    """A few connections of one kind, connected on first use and replaced when lost."""

    def __init__(self, size: int, connect: Callable[[], Awaitable[Conn]]) -> None:
        self._connect = connect
        self._free: asyncio.Queue[Conn | None] = asyncio.Queue()
        for _ in range(size):
            self._free.put_nowait(None)

    async def run(self, fn: Callable[[Conn], Awaitable[T]], *, retry: bool) -> T:
        """``fn`` on a connection; a lost connection is replaced and, when ``retry`` (reads
        only: a write may have landed), ``fn`` run once more; then
        :class:`~..interface.StoreError`."""
        for attempt in range(2 if retry else 1):
            conn = await self._free.get()
            try:
                if conn is None or conn.closed:
                    conn = await self._connect()
                return await fn(conn)
            except psycopg.OperationalError as exc:
                if conn is not None:
                    with contextlib.suppress(psycopg.Error):
                        await conn.close()
                conn = None
                if attempt == 1 or not retry:
                    raise StoreError(f"store unreachable: {type(exc).__name__}") from None
            except psycopg.Error as exc:
                if conn is not None and (conn.closed or conn.broken):
                    conn = None
                raise StoreError(f"store error: {type(exc).__name__}") from None
            finally:
                self._free.put_nowait(conn)
        raise AssertionError("unreachable")

    async def close(self) -> None:
        while not self._free.empty():
            conn = self._free.get_nowait()
            if conn is not None:
                with contextlib.suppress(psycopg.Error):
                    await conn.close()
