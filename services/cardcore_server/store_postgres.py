"""The PostgreSQL backend (psycopg 3, asyncio): several server processes serve the same games.

The tables are the SQLite backend's (:mod:`.store`): ``games``, ``entries`` with primary key
``(game_id, seq)``, ``rejections`` and ``tokens``. The primary key is the concurrency check
between processes: when two of them decide the same ``seq`` of a game, the second insert fails
(``unique_violation``), that write and every later write of the game from this process fail with
:class:`~.store.StoreError`, and the application rebuilds the game from what is durable
(:meth:`PostgresStore.forgive` then accepts its writes again).

**Writes** run on one connection in one task: :meth:`~PostgresStore.append` enqueues at once, in
call order, and the task drains the queue into one transaction per batch (group commit: one WAL
flush for many actions; ``executemany`` pipelines the rows). A write's awaitable completes once
``COMMIT`` has returned with ``synchronous_commit=on``, i.e. once it is durable, and never before
the writes enqueued ahead of it.

**Wake-ups**: the same transaction sends ``NOTIFY cardcore_store`` with ``"<writer> <game_id>"``
for each game it touched; PostgreSQL delivers notifications only on commit. A listener connection
turns them into :meth:`~PostgresStore.watch` hints, and the application re-reads the game's
entries by ``seq`` (:meth:`~PostgresStore.tail`). The payload is never taken for content: the
writer id only skips this process's own commits, a payload that does not parse hints every game,
and so does a re-opened listener (notifications sent while it was down are lost).

**Reads** use a few connections of their own (``load`` in one ``REPEATABLE READ`` snapshot).
Nothing here blocks the event loop: every call is psycopg's async API.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

import psycopg
import structlog

from cardcore import codec
from cardcore.log import LogLine

from .store import (
    MAX_BATCH,
    GameRecord,
    StoredGame,
    StoredRejection,
    StoreError,
    Tail,
    stored_game,
)

log = structlog.get_logger("cardcore_server")

CHANNEL: Final = "cardcore_store"
"""The ``LISTEN``/``NOTIFY`` channel (one per database)."""
READERS: Final = 4
"""Read connections per store."""
CONNECT: Final[dict[str, Any]] = {
    "connect_timeout": 10,
    # A peer that vanished without closing the socket shows within ~15 s, also on the listener.
    "keepalives": 1,
    "keepalives_idle": 5,
    "keepalives_interval": 2,
    "keepalives_count": 3,
    "application_name": "cardcore",
}
LISTEN_POLL_S: Final = 1.0
RECONNECT_MAX_S: Final = 5.0

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS games(
    game_id TEXT PRIMARY KEY,
    record TEXT NOT NULL,
    header TEXT NOT NULL,
    seed TEXT NOT NULL,
    salt BYTEA NOT NULL,
    end_line TEXT
);
CREATE INDEX IF NOT EXISTS games_unfinished ON games(game_id) WHERE end_line IS NULL;
CREATE TABLE IF NOT EXISTS entries(
    game_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    seat INTEGER,
    action_id TEXT,
    line TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE UNIQUE INDEX IF NOT EXISTS entries_action_id
    ON entries(game_id, seat, action_id) WHERE action_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS rejections(
    game_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    action_id TEXT NOT NULL,
    command TEXT NOT NULL,
    code TEXT NOT NULL,
    detail TEXT NOT NULL,
    PRIMARY KEY (game_id, seat, action_id)
);
CREATE TABLE IF NOT EXISTS tokens(
    token_hash TEXT PRIMARY KEY,
    game_id TEXT NOT NULL,
    viewer TEXT NOT NULL
);
"""

_INSERT_GAME: Final = (
    "INSERT INTO games(game_id, record, header, seed, salt) VALUES (%s, %s, %s, %s, %s)"
)
_INSERT_ENTRY: Final = (
    "INSERT INTO entries(game_id, seq, seat, action_id, line) VALUES (%s, %s, %s, %s, %s)"
)
_INSERT_TOKEN: Final = "INSERT INTO tokens(token_hash, game_id, viewer) VALUES (%s, %s, %s)"
_SET_END: Final = "UPDATE games SET end_line = %s WHERE game_id = %s"
_INSERT_REJECTION: Final = (
    "INSERT INTO rejections(game_id, seat, action_id, command, code, detail)"
    " VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING"
)
_NOTIFY: Final = "SELECT pg_notify(%s, %s || ' ' || g) FROM unnest(%s::text[]) AS g"

T = TypeVar("T")
Conn = psycopg.AsyncConnection[Any]


@dataclass(slots=True)
class _Rows:
    """The rows one write adds (a batch adds the union, table by table, in order)."""

    games: list[tuple[Any, ...]] = field(default_factory=list)
    entries: list[tuple[Any, ...]] = field(default_factory=list)
    tokens: list[tuple[Any, ...]] = field(default_factory=list)
    ends: list[tuple[Any, ...]] = field(default_factory=list)
    rejections: list[tuple[Any, ...]] = field(default_factory=list)


@dataclass(slots=True)
class _Job:
    game_id: str
    rows: _Rows
    future: asyncio.Future[None]


def _unreachable(exc: BaseException) -> ConnectionError:
    # libpq's message names host and port, never the password.
    return ConnectionError(f"cannot reach PostgreSQL: {str(exc).strip()}")


class PostgresStore:
    """An :class:`~.store.EventStore` and :class:`~.store.SharedStore` on PostgreSQL."""

    def __init__(self, url: str, *, readers: int = READERS) -> None:
        self.url = url
        self.writer_id = secrets.token_hex(8)
        """Names this store's commits in notifications (to skip its own)."""
        self._queue: asyncio.Queue[_Job | None] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self._write_conn: Conn | None = None
        self._readers: asyncio.Queue[Conn | None] = asyncio.Queue()
        for _ in range(readers):
            self._readers.put_nowait(None)  # connected on first use
        self._listener: asyncio.Task[None] | None = None
        self._watchers: list[Callable[[str | None], None]] = []
        self._poisoned: set[str] = set()
        self._closing = False
        self.commits = 0
        """Transactions committed (for the group-commit benchmark)."""
        self.writes = 0

    # ------------------------------------------------------------------ lifecycle

    async def _connect(self, **options: Any) -> Conn:
        return await psycopg.AsyncConnection.connect(self.url, **CONNECT, **options)

    async def open(self) -> None:
        """Connect, create the tables (once, under an advisory lock: several processes may
        start together), start the writer and the listener; raises :class:`ConnectionError`
        when the database cannot be reached."""
        try:
            conn = await self._connect(autocommit=True)
        except psycopg.Error as exc:
            raise _unreachable(exc) from None
        try:
            # Acknowledged means durable: never let a server default weaken the commit.
            await conn.execute("SET synchronous_commit = on")
            async with conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock(hashtext('cardcore_schema'))")
                await conn.execute(_SCHEMA)
        except psycopg.Error as exc:
            await conn.close()
            raise _unreachable(exc) from None
        self._write_conn = conn
        self._writer = asyncio.create_task(self._write_loop(), name="cardcore-pg-writer")
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._listener = asyncio.create_task(self._listen_loop(ready), name="cardcore-pg-listen")
        try:
            await asyncio.wait_for(asyncio.shield(ready), CONNECT["connect_timeout"] + 5)
        except (TimeoutError, ConnectionError) as exc:
            await self.close()
            raise _unreachable(exc) from None

    async def close(self) -> None:
        """Commit everything enqueued, then close every connection."""
        self._closing = True
        if self._writer is not None:
            self._queue.put_nowait(None)
            await self._writer
            self._writer = None
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
            self._listener = None
        await self._drop_writer()
        while not self._readers.empty():
            conn = self._readers.get_nowait()
            if conn is not None:
                await conn.close()

    async def _drop_writer(self) -> None:
        conn, self._write_conn = self._write_conn, None
        if conn is not None:
            with contextlib.suppress(psycopg.Error):
                await conn.close()

    # ------------------------------------------------------------------ writes

    def _enqueue(self, game_id: str, rows: _Rows) -> asyncio.Future[None]:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Job(game_id, rows, fut))
        return fut

    def create(
        self, record: GameRecord, header: LogLine, deal: LogLine, tokens: Sequence[tuple[str, str]]
    ) -> Awaitable[None]:
        gid = record.game_id
        rows = _Rows(
            games=[
                (
                    gid,
                    json.dumps(record.public_json(), sort_keys=True),
                    codec.canonical_text(header),
                    str(record.seed),
                    record.salt,
                )
            ],
            entries=[(gid, 0, None, None, codec.canonical_text(deal))],
            tokens=[(h, gid, v) for h, v in tokens],
        )
        return self._enqueue(gid, rows)

    def append(
        self,
        game_id: str,
        entry: LogLine | None,
        action_id: str | None,
        end: LogLine | None,
        rejection: StoredRejection | None,
    ) -> Awaitable[None]:
        rows = _Rows()
        if entry is not None:
            rows.entries.append(
                (game_id, entry["seq"], entry["seat"], action_id, codec.canonical_text(entry))
            )
        if end is not None:
            rows.ends.append((codec.canonical_text(end), game_id))
        if rejection is not None:
            r = rejection
            rows.rejections.append((game_id, r.seat, r.action_id, r.command, r.code, r.detail))
        return self._enqueue(game_id, rows)

    async def _write_loop(self) -> None:
        q = self._queue
        stop = False
        while not stop:
            first = await q.get()
            if first is None:
                break
            batch = [first]
            while len(batch) < MAX_BATCH:
                try:
                    nxt = q.get_nowait()
                except asyncio.QueueEmpty:
                    break
                if nxt is None:
                    stop = True
                    break
                batch.append(nxt)
            try:
                results = await self._commit(batch)
            except Exception as exc:  # a bug must not leave callers waiting forever
                log.error("store_write_crashed", error=type(exc).__name__)
                self._poisoned.update(j.game_id for j in batch)
                results = [StoreError("write failed")] * len(batch)
            for job, err in zip(batch, results, strict=True):
                if job.future.done():
                    continue
                if err is None:
                    job.future.set_result(None)
                else:
                    job.future.set_exception(err)

    async def _writer_conn(self) -> Conn:
        if self._write_conn is None or self._write_conn.closed:
            conn = await self._connect(autocommit=True)
            await conn.execute("SET synchronous_commit = on")
            self._write_conn = conn
        return self._write_conn

    async def _execute(self, jobs: Sequence[_Job]) -> None:
        """One transaction for ``jobs`` (with their notifications); raises on any failure."""
        rows = _Rows()
        for job in jobs:
            r = job.rows
            rows.games += r.games
            rows.entries += r.entries
            rows.tokens += r.tokens
            rows.ends += r.ends
            rows.rejections += r.rejections
        games = sorted({job.game_id for job in jobs})
        conn = await self._writer_conn()
        async with conn.transaction(), conn.cursor() as cur:
            for sql, params in (
                (_INSERT_GAME, rows.games),
                (_INSERT_ENTRY, rows.entries),
                (_INSERT_TOKEN, rows.tokens),
                (_SET_END, rows.ends),
                (_INSERT_REJECTION, rows.rejections),
            ):
                if params:
                    await cur.executemany(sql, params)
            await cur.execute(_NOTIFY, (CHANNEL, self.writer_id, games))

    async def _failed(self, exc: psycopg.Error) -> StoreError:
        if self._write_conn is not None and (self._write_conn.closed or self._write_conn.broken):
            await self._drop_writer()
        return StoreError(f"write failed: {type(exc).__name__}")

    async def _commit(self, batch: list[_Job]) -> list[BaseException | None]:
        """One transaction for the batch; if it fails, each job alone (to isolate the bad one).
        A job of a game whose earlier write failed fails too: it was decided on top of it."""
        live = [j for j in batch if j.game_id not in self._poisoned]
        try:
            if live:
                await self._execute(live)
                self.commits += 1
                self.writes += len(live)
            return [
                StoreError("an earlier write of this game failed")
                if j.game_id in self._poisoned
                else None
                for j in batch
            ]
        except psycopg.OperationalError as exc:
            # The connection is gone: nothing tells which of these committed. Fail them all;
            # the games are rebuilt from whatever is durable.
            err = await self._failed(exc)
            self._poisoned.update(j.game_id for j in batch)
            return [err] * len(batch)
        except psycopg.Error:
            pass
        results: list[BaseException | None] = []
        for job in batch:
            if job.game_id in self._poisoned:
                results.append(StoreError("an earlier write of this game failed"))
                continue
            try:
                await self._execute([job])
            except psycopg.Error as exc:
                self._poisoned.add(job.game_id)
                results.append(await self._failed(exc))
            else:
                self.commits += 1
                self.writes += 1
                results.append(None)
        return results

    def forgive(self, game_id: str) -> None:
        """Accept writes of a game again (after it was rebuilt from the store)."""
        self._poisoned.discard(game_id)

    # ------------------------------------------------------------------ notifications

    def watch(self, on_change: Callable[[str | None], None]) -> None:
        self._watchers.append(on_change)

    def _hint(self, game_id: str | None) -> None:
        for watcher in self._watchers:
            try:
                watcher(game_id)
            except Exception as exc:
                log.error("store_watcher_failed", error=type(exc).__name__)

    def _on_notify(self, payload: str) -> None:
        writer, _, game_id = payload.partition(" ")
        if writer == self.writer_id:
            return  # our own commit: already in memory
        self._hint(game_id if game_id and " " not in game_id else None)

    async def _listen_loop(self, ready: asyncio.Future[None]) -> None:
        backoff = 0.1
        opened = False
        while not self._closing:
            try:
                conn = await self._connect(autocommit=True)
            except psycopg.Error as exc:
                if not ready.done():
                    ready.set_exception(_unreachable(exc))
                    return
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, RECONNECT_MAX_S)
                continue
            try:
                await conn.execute(f"LISTEN {CHANNEL}")
                if opened:
                    log.info("store_listener_reopened")
                    self._hint(None)  # what was sent while we were away is lost
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

    # ------------------------------------------------------------------ reads

    async def _read(self, fn: Callable[[Conn], Awaitable[T]]) -> T:
        """Run ``fn`` on a read connection; a lost connection is replaced and ``fn`` retried
        once, then :class:`~.store.StoreError`."""
        for attempt in range(2):
            conn = await self._readers.get()
            try:
                if conn is None or conn.closed:
                    conn = await self._connect(autocommit=True)
                    await conn.set_isolation_level(psycopg.IsolationLevel.REPEATABLE_READ)
                    await conn.set_read_only(True)
                return await fn(conn)
            except psycopg.OperationalError as exc:
                if conn is not None:
                    with contextlib.suppress(psycopg.Error):
                        await conn.close()
                conn = None
                if attempt == 1:
                    raise StoreError(f"read failed: {type(exc).__name__}") from None
            except psycopg.Error as exc:
                raise StoreError(f"read failed: {type(exc).__name__}") from None
            finally:
                self._readers.put_nowait(conn)
        raise AssertionError("unreachable")

    async def tokens(self) -> dict[str, tuple[str, str]]:
        async def fetch(c: Conn) -> list[tuple[Any, ...]]:
            cur = await c.execute("SELECT token_hash, game_id, viewer FROM tokens")
            return await cur.fetchall()

        return {h: (g, v) for h, g, v in await self._read(fetch)}

    async def find_token(self, token_hash: str) -> tuple[str, str] | None:
        async def fetch(c: Conn) -> tuple[Any, ...] | None:
            cur = await c.execute(
                "SELECT game_id, viewer FROM tokens WHERE token_hash = %s", (token_hash,)
            )
            return await cur.fetchone()

        row = await self._read(fetch)
        return None if row is None else (str(row[0]), str(row[1]))

    async def unfinished(self) -> list[str]:
        async def fetch(c: Conn) -> list[tuple[Any, ...]]:
            cur = await c.execute("SELECT game_id FROM games WHERE end_line IS NULL")
            return await cur.fetchall()

        return [str(r[0]) for r in await self._read(fetch)]

    async def load(self, game_id: str) -> StoredGame | None:
        async def fetch(c: Conn) -> tuple[Any, ...]:
            async with c.transaction():  # one snapshot for the three reads
                cur = await c.execute(
                    "SELECT record, header, seed, salt, end_line FROM games WHERE game_id = %s",
                    (game_id,),
                )
                game = await cur.fetchone()
                cur = await c.execute(
                    "SELECT seq, seat, action_id, line FROM entries WHERE game_id = %s"
                    " ORDER BY seq",
                    (game_id,),
                )
                entries = await cur.fetchall()
                cur = await c.execute(
                    "SELECT seat, action_id, command, code, detail FROM rejections"
                    " WHERE game_id = %s",
                    (game_id,),
                )
                rejections = await cur.fetchall()
            return game, entries, rejections

        game, entries, rejections = await self._read(fetch)
        return stored_game(game_id, game, entries, rejections)

    async def tail(self, game_id: str, from_seq: int) -> Tail:
        """The entries from ``from_seq`` on, and the end line (one statement: one snapshot)."""

        async def fetch(c: Conn) -> list[tuple[Any, ...]]:
            cur = await c.execute(
                "SELECT e.seq, e.action_id, e.line, g.end_line FROM entries e"
                " JOIN games g ON g.game_id = e.game_id"
                " WHERE e.game_id = %s AND e.seq >= %s ORDER BY e.seq",
                (game_id, from_seq),
            )
            return await cur.fetchall()

        rows = await self._read(fetch)
        entries = [(int(seq), json.loads(line), aid) for seq, aid, line, _ in rows]
        end = json.loads(rows[-1][3]) if rows and rows[-1][3] is not None else None
        return Tail(entries, end)

    async def rejection(self, game_id: str, seat: int, action_id: str) -> StoredRejection | None:
        async def fetch(c: Conn) -> tuple[Any, ...] | None:
            cur = await c.execute(
                "SELECT command, code, detail FROM rejections"
                " WHERE game_id = %s AND seat = %s AND action_id = %s",
                (game_id, seat, action_id),
            )
            return await cur.fetchone()

        row = await self._read(fetch)
        if row is None:
            return None
        return StoredRejection(seat, action_id, str(row[0]), str(row[1]), str(row[2]))
