"""The PostgreSQL backend (psycopg 3, asyncio): several server processes serve the same games.

The tables are the SQLite backend's (:mod:`.store`) plus ``servers`` (leases). How several
servers stay one:

**One order per game, decided on the game's row.** Every write of a game is one statement
(:data:`_CAS`): an ``UPDATE`` of the game's row that matches only if the row is still at the
version the round was decided on and its head (``head_seq``, ``head_hash``, ``head_at_ms``) is
what the first new entry links to, with the inserts of the round's entries and rejections fed
from that ``UPDATE``'s result and the wake-up ``NOTIFY``. PostgreSQL's row lock serialises two
such statements on one game (the second waits, re-reads the row after the first commits, and
matches nothing), so whatever the interleaving of servers, an entry is stored only if it was
decided on exactly the entries before it, and an ``action_id`` gets its answer (entry or
rejection) under the same check. No statement locks more than one game's row: no deadlocks.
It is autocommit: one round trip and one WAL flush per round, and PostgreSQL flushes the
commits of concurrent connections together (:data:`WRITERS` of them).

**One owner per game for timers and bots.** Each server holds a lease (a ``servers`` row whose
``expires_at`` it pushes forward every :data:`LEASE_RENEW_S`, by the database's clock only).
``games.owner`` names the server that arms the game's timers and bots; the game's creator first.
A game whose owner's lease has lapsed is taken over by the next server that looks
(:meth:`PostgresStore.claim_orphans`, one row at a time, ``SKIP LOCKED``). A timed or bot action
commits only while its server owns the game and holds a live lease (the fence in :data:`_CAS`),
so a server that lost its lease never acts for a game again, even before it notices.

**Wake-ups**: the write statement sends ``NOTIFY cardcore_store`` with ``"<writer> <game_id>
<version>"``; PostgreSQL delivers notifications only on commit. A listener connection turns
them into :meth:`~PostgresStore.watch` hints and the application re-reads the game's rows
(:meth:`~PostgresStore.tail`). The payload is never taken for content: the writer id only
skips this process's own commits, a payload that does not parse hints every game, and so does a
re-opened listener (notifications sent while it was down are lost).

**Presence** (which seats hold an event stream open, for ``GetTable`` and ``GetView``): each
server publishes the seats streaming from it as ``presence`` rows under its ``server_id``
(:meth:`PostgresStore.set_presence`: written in order by one task, soon after each change), and
a reader counts only the rows of servers whose lease is live, so a killed server's seats are
absent within :data:`LEASE_TTL_S`. A server whose lease had lapsed when it renews it publishes
all its rows again (others may have removed them meanwhile).

**Reads** use a few connections of their own (``load`` and ``tail`` in one ``REPEATABLE READ``
snapshot). Nothing here blocks the event loop: every call is psycopg's async API.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, TypeVar

import psycopg
import structlog

from cardcore import codec
from cardcore.log import LogLine

from .sealing import PLAINTEXT, Sealer
from .store import (
    _GAME_TABLES,
    _TABLE_SELECT,
    REJECTION_DETAIL,
    REJECTIONS_KEPT,
    SCHEMA_VERSION,
    Commit,
    Conflict,
    GameRecord,
    StoredGame,
    StoreError,
    Tail,
    _table,
    head_move,
    make_tail,
    stored_game,
    table_columns,
    table_update,
)
from .tables import TableRow

log = structlog.get_logger("cardcore_server")

CHANNEL: Final = "cardcore_store"
"""The ``LISTEN``/``NOTIFY`` channel (one per database)."""
READERS: Final = 4
"""Read connections per store."""
WRITERS: Final = 4
"""Write connections per store: rounds of different games commit concurrently on them, and
PostgreSQL flushes concurrent commits to the WAL together (group commit across games)."""
LEASE_TTL_S: Final = 3.0
"""How long a server's lease lasts unless renewed; a dead server's games are taken over after
at most this (plus one renewal period of the server that takes them)."""
LEASE_RENEW_S: Final = 1.0
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

_SCHEMA: Final = (
    """
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
CREATE TABLE IF NOT EXISTS servers(
    server_id TEXT PRIMARY KEY,
    expires_at TIMESTAMPTZ NOT NULL
);
-- the compare-and-set commit and the owners (a database of an earlier cardcore gets them)
ALTER TABLE games ADD COLUMN IF NOT EXISTS version BIGINT;
ALTER TABLE games ADD COLUMN IF NOT EXISTS head_seq BIGINT;
ALTER TABLE games ADD COLUMN IF NOT EXISTS head_hash TEXT;
ALTER TABLE games ADD COLUMN IF NOT EXISTS head_at_ms BIGINT;
ALTER TABLE games ADD COLUMN IF NOT EXISTS owner TEXT;
ALTER TABLE games ADD COLUMN IF NOT EXISTS auto BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE rejections ADD COLUMN IF NOT EXISTS version BIGINT NOT NULL DEFAULT 0;
UPDATE games g SET version = h.seq, head_seq = h.seq,
    head_hash = h.line::jsonb->>'hash', head_at_ms = (h.line::jsonb->>'at_ms')::bigint,
    auto = true
FROM (SELECT DISTINCT ON (game_id) game_id, seq, line FROM entries
      ORDER BY game_id, seq DESC) h
WHERE g.game_id = h.game_id AND g.version IS NULL;
CREATE INDEX IF NOT EXISTS games_owner ON games(owner) WHERE end_line IS NULL;
-- the lobby's tables and invites (.tables), and what retention deletes by game
CREATE INDEX IF NOT EXISTS tokens_game ON tokens(game_id);
CREATE TABLE IF NOT EXISTS tables(
    game_id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    status TEXT NOT NULL,
    version BIGINT NOT NULL,
    created_ms BIGINT NOT NULL,
    public BOOLEAN NOT NULL,
    record TEXT NOT NULL,
    seed TEXT NOT NULL,
    salt BYTEA NOT NULL,
    state TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tables_listed ON tables(created_ms DESC, game_id DESC)
    WHERE status = 'waiting' AND public;
CREATE TABLE IF NOT EXISTS invites(
    invite_hash TEXT PRIMARY KEY,
    game_id TEXT NOT NULL,
    seat INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS server_key(
    id INTEGER PRIMARY KEY CHECK (id = 1),
    private_key BYTEA NOT NULL
);
CREATE TABLE IF NOT EXISTS schema_version(
    id INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL
);
-- schema 4: who holds an event stream open on which server (presence)
CREATE TABLE IF NOT EXISTS presence(
    game_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    server_id TEXT NOT NULL,
    PRIMARY KEY (game_id, seat, server_id)
);
CREATE INDEX IF NOT EXISTS presence_server ON presence(server_id);
"""
    # schema 5 (store.SCHEMA_VERSION): a rejection keeps its command's digest (not the
    # command), a detail cut as errors.bounded cuts it, and a seat its last REJECTIONS_KEPT
    "UPDATE rejections SET command = encode(sha256(convert_to(command, 'UTF8')), 'hex')"
    " WHERE command !~ '^[0-9a-f]{64}$';"
    f" UPDATE rejections SET detail = left(detail, {REJECTION_DETAIL} - char_length(s.suffix))"
    " || s.suffix FROM (SELECT game_id AS g, seat AS st, action_id AS a, '… (' ||"
    " char_length(detail) || ' characters)' AS suffix FROM rejections"
    f" WHERE char_length(detail) > {REJECTION_DETAIL}) s"
    " WHERE game_id = s.g AND seat = s.st AND action_id = s.a;"
    " DELETE FROM rejections r USING (SELECT game_id, seat, action_id, row_number() OVER"
    " (PARTITION BY game_id, seat ORDER BY version DESC) AS n FROM rejections) o"
    " WHERE r.game_id = o.game_id AND r.seat = o.seat AND r.action_id = o.action_id"
    f" AND o.n > {REJECTIONS_KEPT};"
)

# Whether every table, column and index of _SCHEMA is there, read from the catalogue alone (no
# lock on any table). Servers that start beside running ones must not run _SCHEMA's DDL when
# there is nothing to do: even a no-op ``ALTER TABLE … ADD COLUMN IF NOT EXISTS`` takes an
# ACCESS EXCLUSIVE lock, queues behind a running server's transaction and, when that
# transaction asks for a second lock on the same table, deadlocks with it.
_SCHEMA_COLUMNS: Final = {
    "games": ("version", "head_seq", "head_hash", "head_at_ms", "owner", "auto"),
    "rejections": ("version",),
}
_SCHEMA_RELATIONS: Final = (
    "games",
    "games_unfinished",
    "entries",
    "entries_action_id",
    "rejections",
    "tokens",
    "servers",
    "games_owner",
    "tokens_game",
    "tables",
    "tables_listed",
    "invites",
    "server_key",
    "schema_version",
    "presence",
    "presence_server",
)
_SCHEMA_CURRENT: Final = (
    "SELECT bool_and(to_regclass(r) IS NOT NULL) FROM unnest(%(relations)s::text[]) AS r"
    " UNION ALL SELECT count(*) = %(n_columns)s FROM pg_attribute a"
    " JOIN unnest(%(tables)s::text[], %(columns)s::text[]) AS c(t, col)"
    " ON a.attrelid = to_regclass(c.t) AND a.attname = c.col AND NOT a.attisdropped"
)
# A schema upgrade beside running servers waits at most this long for a table's lock before it
# gives way and tries again (a queued ACCESS EXCLUSIVE request blocks every later reader and
# writer of the table, so it must not wait long); a deadlock is retried the same way.
SCHEMA_LOCK_TIMEOUT_MS: Final = 2000
SCHEMA_ATTEMPTS: Final = 5

_INSERT_GAME: Final = (
    "INSERT INTO games(game_id, record, header, seed, salt, version, head_seq, head_hash,"
    " head_at_ms, owner, auto) VALUES (%s, %s, %s, %s, %s, 0, 0, %s, %s, %s, %s)"
)
_INSERT_DEAL: Final = (
    "INSERT INTO entries(game_id, seq, seat, action_id, line) VALUES (%s, 0, NULL, NULL, %s)"
)
_INSERT_TOKEN: Final = "INSERT INTO tokens(token_hash, game_id, viewer) VALUES (%s, %s, %s)"

_CAS: Final = """
WITH cas AS (
    UPDATE games SET version = version + 1,
        head_seq = coalesce(%(last_seq)s::bigint, head_seq),
        head_hash = coalesce(%(last_hash)s::text, head_hash),
        head_at_ms = coalesce(%(last_at)s::bigint, head_at_ms),
        end_line = coalesce(%(end)s::text, end_line)
    WHERE game_id = %(g)s AND version = %(v)s
      AND (%(first_seq)s::bigint IS NULL OR (head_seq = %(first_seq)s::bigint - 1
           AND head_hash = %(prev)s::text AND head_at_ms <= %(first_at)s::bigint
           AND end_line IS NULL))
      AND (%(owner)s::text IS NULL OR (owner = %(owner)s::text AND EXISTS (
           SELECT 1 FROM servers s WHERE s.server_id = %(owner)s::text AND s.expires_at > now())))
    RETURNING version
), e AS (
    INSERT INTO entries(game_id, seq, seat, action_id, line)
    SELECT %(g)s, u.seq, u.seat, u.aid, u.line FROM cas,
        unnest(%(seqs)s::bigint[], %(seats)s::int[], %(aids)s::text[], %(lines)s::text[])
        AS u(seq, seat, aid, line)
), r AS (
    INSERT INTO rejections(game_id, seat, action_id, command, code, detail, version)
    SELECT %(g)s, u.seat, u.aid, u.cmd, u.code, u.detail, cas.version FROM cas,
        unnest(%(r_seats)s::int[], %(r_aids)s::text[], %(r_cmds)s::text[], %(r_codes)s::text[],
               %(r_details)s::text[]) AS u(seat, aid, cmd, code, detail)
), f AS (
    DELETE FROM rejections WHERE game_id = %(g)s AND EXISTS (SELECT 1 FROM cas)
      AND (seat, action_id) IN (SELECT * FROM unnest(%(f_seats)s::int[], %(f_aids)s::text[]))
)
SELECT version, pg_notify(%(channel)s, %(writer)s || ' ' || %(g)s || ' ' || version) FROM cas
"""

_RENEW: Final = """
WITH before AS (SELECT expires_at > now() AS live FROM servers WHERE server_id = %(me)s)
INSERT INTO servers(server_id, expires_at) VALUES (%(me)s, now() + make_interval(secs => %(ttl)s))
ON CONFLICT (server_id) DO UPDATE SET expires_at = excluded.expires_at
RETURNING coalesce((SELECT live FROM before), false)
"""
"""Extends the lease; returns whether it was still live (else others may have removed this
server's presence rows, :data:`_FORGET_ABSENT`)."""
_OWNED: Final = "SELECT game_id FROM games WHERE owner = %s AND end_line IS NULL"
_CLAIM: Final = """
WITH orphan AS (
    SELECT game_id, owner FROM games g
    WHERE end_line IS NULL AND auto AND (owner IS DISTINCT FROM %(me)s)
      AND NOT EXISTS (SELECT 1 FROM servers s WHERE s.server_id = g.owner
                      AND s.expires_at > now())
    ORDER BY game_id LIMIT %(limit)s FOR UPDATE SKIP LOCKED
)
UPDATE games g SET owner = %(me)s FROM orphan
WHERE g.game_id = orphan.game_id AND EXISTS (
    SELECT 1 FROM servers s WHERE s.server_id = %(me)s AND s.expires_at > now())
RETURNING g.game_id, orphan.owner
"""
_TAIL: Final = """
SELECT g.version, g.end_line, g.owner,
    (SELECT coalesce(json_agg(json_build_array(e.seq, e.action_id, e.line) ORDER BY e.seq),
                     '[]'::json)
     FROM entries e WHERE e.game_id = g.game_id AND e.seq >= %(seq)s),
    (SELECT coalesce(json_agg(json_build_array(r.seat, r.action_id, r.command, r.code,
                                               r.detail) ORDER BY r.version), '[]'::json)
     FROM rejections r WHERE r.game_id = g.game_id AND r.version > %(v)s)
FROM games g WHERE g.game_id = %(g)s
"""
_FORGET_DEAD: Final = "DELETE FROM servers WHERE expires_at < now() - interval '1 day'"
_FORGET_ABSENT: Final = """
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
PRESENCE_RETRY_S: Final = 1.0
"""How soon a presence publication that failed (the database away) is tried again."""
PRESENCE_GC_EVERY: Final = 10
"""Lease renewals between two sweeps of :data:`_FORGET_ABSENT`."""

T = TypeVar("T")
Conn = psycopg.AsyncConnection[Any]


async def _schema_current(conn: Conn) -> bool:
    tables = [t for t, cols in _SCHEMA_COLUMNS.items() for _ in cols]
    columns = [c for cols in _SCHEMA_COLUMNS.values() for c in cols]
    cursor = await conn.execute(
        _SCHEMA_CURRENT,
        {
            "relations": list(_SCHEMA_RELATIONS),
            "tables": tables,
            "columns": columns,
            "n_columns": len(columns),
        },
    )
    return all(bool(row[0]) for row in await cursor.fetchall())


async def _upgrade_schema(conn: Conn) -> None:
    """Create or upgrade the tables unless they are current (the ``schema_version`` row is
    :data:`~.store.SCHEMA_VERSION` and the catalogue has every relation). One process at a
    time (an advisory lock: several may start together); the DDL waits for table locks at most
    ``SCHEMA_LOCK_TIMEOUT_MS`` and a lock time-out or deadlock is retried from the start. A
    database of a newer cardcore's schema is refused."""
    for attempt in range(SCHEMA_ATTEMPTS):
        try:
            async with conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock(hashtext('cardcore_schema'))")
                found = await _schema_version(conn)
                if found is not None and found > SCHEMA_VERSION:
                    raise ConnectionError(
                        f"the database has schema {found}, written by a newer cardcore; this "
                        f"one knows {SCHEMA_VERSION} at most"
                    )
                if found == SCHEMA_VERSION and await _schema_current(conn):
                    return
                await conn.execute(f"SET LOCAL lock_timeout = {SCHEMA_LOCK_TIMEOUT_MS}")
                await conn.execute(_SCHEMA)
                await conn.execute(
                    "INSERT INTO schema_version(id, version) VALUES (1, %s)"
                    " ON CONFLICT (id) DO UPDATE SET version = excluded.version",
                    (SCHEMA_VERSION,),
                )
            return
        except (psycopg.errors.DeadlockDetected, psycopg.errors.LockNotAvailable):
            if attempt == SCHEMA_ATTEMPTS - 1:
                raise
            await asyncio.sleep(0.1 * 2**attempt)


async def _schema_version(conn: Conn) -> int | None:
    """The recorded schema version (None: none recorded, an earlier cardcore's database)."""
    cur = await conn.execute("SELECT to_regclass('schema_version') IS NOT NULL")
    row = await cur.fetchone()
    if row is None or not row[0]:
        return None
    cur = await conn.execute("SELECT version FROM schema_version WHERE id = 1")
    found = await cur.fetchone()
    return None if found is None else int(found[0])


def _unreachable(exc: BaseException) -> ConnectionError:
    # libpq's message names host and port, never the password.
    return ConnectionError(f"cannot reach PostgreSQL: {str(exc).strip()}")


class _TableConflict(Exception):
    """A table's row moved on (raised inside the transaction, to roll it back)."""


def _auto(record: GameRecord) -> bool:
    """Whether a game acts by itself (bots or timers): only those need an owner."""
    return any(s.kind != "human" for s in record.seats) or record.timers


class _Pool:
    """A few connections of one kind, connected on first use and replaced when lost."""

    def __init__(self, size: int, connect: Callable[[], Awaitable[Conn]]) -> None:
        self._connect = connect
        self._free: asyncio.Queue[Conn | None] = asyncio.Queue()
        for _ in range(size):
            self._free.put_nowait(None)

    async def run(self, fn: Callable[[Conn], Awaitable[T]], *, retry: bool) -> T:
        """``fn`` on a connection; a lost connection is replaced and, when ``retry`` (reads
        only: a write may have landed), ``fn`` run once more; then :class:`StoreError`."""
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


class PostgresStore:
    """An :class:`~.store.EventStore` and :class:`~.store.SharedStore` on PostgreSQL."""

    def __init__(self, url: str, *, readers: int = READERS, writers: int = WRITERS) -> None:
        self.url = url
        self.server_id = secrets.token_hex(8)
        """Names this server in leases, ownership and notifications (new each process)."""
        self._writers = _Pool(writers, self._connect_writer)
        self._readers = _Pool(readers, self._connect_reader)
        self._listener: asyncio.Task[None] | None = None
        self._watchers: list[Callable[[str | None, int | None], None]] = []
        self._inflight: set[asyncio.Task[Any]] = set()
        self._closing = False
        self.commits = 0
        """Rounds committed (for benchmarks)."""
        self.on_commit: Callable[[int, float], None] | None = None
        self.sealer: Sealer = PLAINTEXT
        """Seals seeds and salts at rest (:mod:`.sealing`; the application sets it)."""
        self._present: dict[str, frozenset[int]] = {}
        """The seats holding an event stream on this server, by game (:meth:`set_presence`)."""
        self._present_dirty: set[str] = set()
        self._present_all = False
        self._present_wake = asyncio.Event()
        self._publisher: asyncio.Task[None] | None = None
        self._renewals = 0

    # ------------------------------------------------------------------ lifecycle

    async def _connect(self, **options: Any) -> Conn:
        return await psycopg.AsyncConnection.connect(self.url, **CONNECT, **options)

    async def _connect_writer(self) -> Conn:
        conn = await self._connect(autocommit=True)
        # Acknowledged means durable: never let a server default weaken the commit.
        await conn.execute("SET synchronous_commit = on")
        return conn

    async def _connect_reader(self) -> Conn:
        conn = await self._connect(autocommit=True)
        await conn.set_isolation_level(psycopg.IsolationLevel.REPEATABLE_READ)
        await conn.set_read_only(True)
        return conn

    async def open(self) -> None:
        """Connect, create or upgrade the tables (once, under an advisory lock: several
        processes may start together), take a lease, start the listener; raises
        :class:`ConnectionError` when the database cannot be reached."""
        try:
            conn = await self._connect(autocommit=True)
        except psycopg.Error as exc:
            raise _unreachable(exc) from None
        try:
            await _upgrade_schema(conn)
            await conn.execute(_FORGET_DEAD)
            await conn.execute(_RENEW, {"me": self.server_id, "ttl": LEASE_TTL_S})
        except psycopg.Error as exc:
            raise _unreachable(exc) from None
        finally:
            await conn.close()
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._listener = asyncio.create_task(self._listen_loop(ready), name="cardcore-pg-listen")
        try:
            await asyncio.wait_for(asyncio.shield(ready), CONNECT["connect_timeout"] + 5)
        except (TimeoutError, ConnectionError) as exc:
            await self.close()
            raise _unreachable(exc) from None
        self._publisher = asyncio.create_task(self._publish_loop(), name="cardcore-pg-presence")

    async def close(self) -> None:
        """Let in-flight writes finish, then close every connection."""
        self._closing = True
        if self._inflight:
            await asyncio.gather(*self._inflight, return_exceptions=True)
        if self._publisher is not None:
            self._publisher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._publisher
            self._publisher = None
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
            self._listener = None
        await self._writers.close()
        await self._readers.close()

    # ------------------------------------------------------------------ writes

    def _tracked(self, coro: Awaitable[T]) -> asyncio.Future[T]:
        task = asyncio.ensure_future(coro)
        self._inflight.add(task)
        task.add_done_callback(self._inflight.discard)
        return task

    def create(
        self, record: GameRecord, header: LogLine, deal: LogLine, tokens: Sequence[tuple[str, str]]
    ) -> Awaitable[None]:
        gid = record.game_id
        game_row = (
            gid,
            json.dumps(record.public_json(), sort_keys=True),
            codec.canonical_text(header),
            self.sealer.seed(gid, record.seed),
            self.sealer.salt(gid, record.salt),
            deal["hash"],
            deal["at_ms"],
            self.server_id,
            _auto(record),
        )
        deal_row = (gid, codec.canonical_text(deal))
        token_rows = [(h, gid, v) for h, v in tokens]

        async def write(conn: Conn) -> None:
            async with conn.transaction(), conn.cursor() as cur:
                await cur.execute(_INSERT_GAME, game_row)
                await cur.execute(_INSERT_DEAL, deal_row)
                await cur.executemany(_INSERT_TOKEN, token_rows)

        return self._tracked(self._writers.run(write, retry=False))

    def create_table(
        self,
        table: TableRow,
        invites: Sequence[tuple[str, int]],
        tokens: Sequence[tuple[str, str]],
    ) -> Awaitable[None]:
        rec = table.record
        row = table_columns(table, self.sealer)
        invite_rows = [(h, rec.game_id, seat) for h, seat in invites]
        token_rows = [(h, rec.game_id, v) for h, v in tokens]

        async def write(conn: Conn) -> None:
            async with conn.transaction(), conn.cursor() as cur:
                await cur.execute("INSERT INTO tables VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)", row)
                await cur.executemany("INSERT INTO invites VALUES (%s,%s,%s)", invite_rows)
                await cur.executemany(_INSERT_TOKEN, token_rows)

        return self._tracked(self._writers.run(write, retry=False))

    def update_table(
        self,
        table: TableRow,
        tokens: Sequence[tuple[str, str]] = (),
        start: tuple[LogLine, LogLine] | None = None,
    ) -> Awaitable[None]:
        rec = table.record
        gid = rec.game_id
        cas = table_update(table)
        token_rows = [(h, gid, v) for h, v in tokens]
        game_rows = None
        if start is not None:
            header, deal = start
            game_rows = (
                (
                    gid,
                    json.dumps(rec.public_json(), sort_keys=True),
                    codec.canonical_text(header),
                    self.sealer.seed(gid, rec.seed),
                    self.sealer.salt(gid, rec.salt),
                    deal["hash"],
                    deal["at_ms"],
                    self.server_id,
                    _auto(rec),
                ),
                (gid, codec.canonical_text(deal)),
            )

        async def write(conn: Conn) -> None:
            # The row's lock (taken by the UPDATE) serialises writers of one table: a second
            # one waits, then matches no row (the version moved) and conflicts.
            async with conn.transaction(), conn.cursor() as cur:
                await cur.execute(
                    "UPDATE tables SET status=%s, version=%s, record=%s, state=%s"
                    " WHERE game_id=%s AND version=%s",
                    cas,
                )
                if cur.rowcount != 1:
                    raise _TableConflict()
                await cur.executemany(_INSERT_TOKEN, token_rows)
                if game_rows is not None:
                    await cur.execute(_INSERT_GAME, game_rows[0])
                    await cur.execute(_INSERT_DEAL, game_rows[1])

        async def run() -> None:
            try:
                await self._writers.run(write, retry=False)
            except _TableConflict:
                raise Conflict(gid) from None

        return self._tracked(run())

    async def ping(self) -> None:
        async def fetch(c: Conn) -> None:
            await c.execute("SELECT 1")

        await asyncio.wait_for(self._read(fetch), 5.0)

    async def server_key(self, new: bytes) -> bytes:
        async def write(conn: Conn) -> bytes:
            await conn.execute(
                "INSERT INTO server_key(id, private_key) VALUES (1, %s) ON CONFLICT DO NOTHING",
                (new,),
            )
            cur = await conn.execute("SELECT private_key FROM server_key WHERE id = 1")
            row = await cur.fetchone()
            assert row is not None
            return bytes(row[0])

        return await self._writers.run(write, retry=False)

    async def load_table(self, game_id: str) -> TableRow | None:
        async def fetch(c: Conn) -> tuple[Any, ...] | None:
            cur = await c.execute(_TABLE_SELECT + " WHERE game_id = %s", (game_id,))
            return await cur.fetchone()

        row = await self._read(fetch)
        return None if row is None else _table(row, self.sealer)

    async def find_invite(self, invite_hash: str) -> tuple[str, int] | None:
        async def fetch(c: Conn) -> tuple[Any, ...] | None:
            cur = await c.execute(
                "SELECT game_id, seat FROM invites WHERE invite_hash = %s", (invite_hash,)
            )
            return await cur.fetchone()

        row = await self._read(fetch)
        return None if row is None else (str(row[0]), int(row[1]))

    async def list_tables(
        self, game: str | None, before: tuple[int, str] | None, limit: int
    ) -> list[TableRow]:
        sql = _TABLE_SELECT + " WHERE status = 'waiting' AND public"
        params: list[Any] = []
        if game is not None:
            sql += " AND game = %s"
            params.append(game)
        if before is not None:
            sql += " AND (created_ms, game_id) < (%s, %s)"
            params += [before[0], before[1]]
        sql += " ORDER BY created_ms DESC, game_id DESC LIMIT %s"
        params.append(limit)

        async def fetch(c: Conn) -> list[tuple[Any, ...]]:
            cur = await c.execute(sql, params)
            return await cur.fetchall()

        return [_table(r, self.sealer) for r in await self._read(fetch)]

    async def waiting_tables(self) -> list[TableRow]:
        async def fetch(c: Conn) -> list[tuple[Any, ...]]:
            cur = await c.execute(_TABLE_SELECT + " WHERE status = 'waiting'")
            return await cur.fetchall()

        return [_table(r, self.sealer) for r in await self._read(fetch)]

    async def games_idle_since(self, cutoff_ms: int, *, finished: bool) -> list[str]:
        ended = "IS NOT NULL" if finished else "IS NULL"
        sql = (
            "SELECT game_id FROM games WHERE end_line " + ended + " AND"
            " (record::jsonb->>'created_ms')::bigint + head_at_ms < %(cut)s"
        )
        if finished:
            sql += (
                " UNION SELECT game_id FROM tables WHERE status = 'cancelled'"
                " AND created_ms < %(cut)s"
            )

        async def fetch(c: Conn) -> list[tuple[Any, ...]]:
            cur = await c.execute(sql, {"cut": cutoff_ms})
            return await cur.fetchall()

        return [str(r[0]) for r in await self._read(fetch)]

    async def delete_game(self, game_id: str) -> None:
        async def write(conn: Conn) -> None:
            async with conn.transaction():
                for table in (*_GAME_TABLES, "presence"):
                    await conn.execute(f"DELETE FROM {table} WHERE game_id = %s", (game_id,))

        await self._writers.run(write, retry=False)

    async def commit(self, commit: Commit) -> int:
        gid = commit.game_id
        if not commit.writes:
            return await self._confirm(gid, commit.version)
        h = head_move(commit)
        entries = commit.entries
        params = {
            "g": gid,
            "v": commit.version,
            "first_seq": h.first_seq,
            "prev": h.first_prev,
            "first_at": h.first_at_ms,
            "last_seq": h.last_seq,
            "last_hash": h.last_hash,
            "last_at": h.last_at_ms,
            "end": h.end,
            "owner": commit.owner,
            "seqs": [e["seq"] for e, _ in entries],
            "seats": [e["seat"] for e, _ in entries],
            "aids": [aid for _, aid in entries],
            "lines": list(commit.entry_texts()),
            "r_seats": [r.seat for r in commit.rejections],
            "r_aids": [r.action_id for r in commit.rejections],
            "r_cmds": [r.command for r in commit.rejections],
            "r_codes": [r.code for r in commit.rejections],
            "r_details": [r.detail for r in commit.rejections],
            "f_seats": [seat for seat, _ in commit.forget],
            "f_aids": [aid for _, aid in commit.forget],
            "channel": CHANNEL,
            "writer": self.server_id,
        }

        async def write(conn: Conn) -> tuple[Any, ...] | None:
            cur = await conn.execute(_CAS, params)
            return await cur.fetchone()

        began = time.perf_counter()
        row = await self._tracked(self._writers.run(write, retry=False))
        if row is None:
            raise Conflict(gid)
        self.commits += 1
        if self.on_commit is not None:
            self.on_commit(len(entries) + len(commit.rejections), time.perf_counter() - began)
        return int(row[0])

    async def _confirm(self, game_id: str, version: int) -> int:
        """A commit that writes nothing: the game must still be at ``version``."""

        async def fetch(conn: Conn) -> tuple[Any, ...] | None:
            cur = await conn.execute("SELECT version FROM games WHERE game_id = %s", (game_id,))
            return await cur.fetchone()

        row = await self._writers.run(fetch, retry=True)
        if row is None or int(row[0]) != version:
            raise Conflict(game_id)
        return version

    # ------------------------------------------------------------------ leases and owners

    async def renew_lease(self) -> set[str]:
        self._renewals += 1
        sweep = self._renewals % PRESENCE_GC_EVERY == 0

        async def renew(conn: Conn) -> set[str]:
            cur = await conn.execute(_RENEW, {"me": self.server_id, "ttl": LEASE_TTL_S})
            row = await cur.fetchone()
            if row is not None and not row[0]:  # lapsed: our presence rows may be gone
                self._present_all = True
                self._present_wake.set()
            if sweep:
                await conn.execute(_FORGET_ABSENT)
            cur = await conn.execute(_OWNED, (self.server_id,))
            return {str(r[0]) for r in await cur.fetchall()}

        return await self._writers.run(renew, retry=True)

    async def claim_orphans(self, limit: int) -> list[tuple[str, str | None]]:
        async def claim(conn: Conn) -> list[tuple[str, str | None]]:
            cur = await conn.execute(_CLAIM, {"me": self.server_id, "limit": limit})
            return [(str(g), None if o is None else str(o)) for g, o in await cur.fetchall()]

        return await self._writers.run(claim, retry=False)

    async def release(self) -> None:
        async def release(conn: Conn) -> None:
            async with conn.transaction():
                await conn.execute(
                    "UPDATE games SET owner = NULL WHERE owner = %s AND end_line IS NULL",
                    (self.server_id,),
                )
                await conn.execute("DELETE FROM servers WHERE server_id = %s", (self.server_id,))
                await conn.execute("DELETE FROM presence WHERE server_id = %s", (self.server_id,))

        await self._writers.run(release, retry=False)

    # ------------------------------------------------------------------ presence

    def set_presence(self, game_id: str, seats: frozenset[int]) -> None:
        if seats:
            self._present[game_id] = seats
        else:
            self._present.pop(game_id, None)
        self._present_dirty.add(game_id)
        self._present_wake.set()

    async def _publish_loop(self) -> None:
        """Write this server's presence rows as :meth:`set_presence` changes them: each write
        replaces the rows of the games changed since the last one (or all rows, after a lapsed
        lease) with what is true now, so writes that fail are simply done again."""
        while True:
            await self._present_wake.wait()
            self._present_wake.clear()
            everything, self._present_all = self._present_all, False
            games = sorted(self._present_dirty)
            self._present_dirty.clear()
            rows = [
                (g, seat)
                for g in (sorted(self._present) if everything else games)
                for seat in sorted(self._present.get(g, ()))
            ]
            try:
                await self._publish(everything, games, rows)
            except StoreError as exc:
                log.warning("presence_publish_failed", error=str(exc))
                self._present_dirty.update(games)
                self._present_all = self._present_all or everything
                await asyncio.sleep(PRESENCE_RETRY_S)
                self._present_wake.set()

    async def _publish(
        self, everything: bool, games: list[str], rows: list[tuple[str, int]]
    ) -> None:
        async def write(conn: Conn) -> None:
            me = self.server_id
            async with conn.transaction():
                await conn.execute(_UNPUBLISH, {"me": me, "all": everything, "games": games})
                if rows:
                    await conn.execute(
                        _PUBLISH, {"me": me, "g": [g for g, _ in rows], "s": [s for _, s in rows]}
                    )

        await self._writers.run(write, retry=False)

    async def present_seats(self, game_ids: Sequence[str]) -> dict[str, set[int]]:
        async def fetch(c: Conn) -> list[tuple[Any, ...]]:
            cur = await c.execute(_PRESENT, (list(game_ids),))
            return await cur.fetchall()

        found: dict[str, set[int]] = {}
        for game_id, seat in await self._read(fetch):
            found.setdefault(str(game_id), set()).add(int(seat))
        return found

    # ------------------------------------------------------------------ notifications

    def watch(self, on_change: Callable[[str | None, int | None], None]) -> None:
        self._watchers.append(on_change)

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

    # ------------------------------------------------------------------ reads

    async def _read(self, fn: Callable[[Conn], Awaitable[T]]) -> T:
        return await self._readers.run(fn, retry=True)

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
                    "SELECT record, header, seed, salt, end_line, version, owner FROM games"
                    " WHERE game_id = %s",
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
                    " WHERE game_id = %s ORDER BY version",
                    (game_id,),
                )
                rejections = await cur.fetchall()
            return game, entries, rejections

        game, entries, rejections = await self._read(fetch)
        return stored_game(game_id, game, entries, rejections, self.sealer)

    async def tail(self, game_id: str, from_seq: int, from_version: int) -> Tail:
        """One statement (one snapshot, one round trip): the game's version, end line and
        owner, its entries from ``from_seq`` and its rejections after ``from_version``."""

        async def fetch(c: Conn) -> tuple[Any, ...] | None:
            cur = await c.execute(_TAIL, {"g": game_id, "seq": from_seq, "v": from_version})
            return await cur.fetchone()

        row = await self._read(fetch)
        if row is None:
            return make_tail(game_id, None, [], [])
        version, end_line, owner, entries, rejections = row
        return make_tail(game_id, (version, end_line, owner), entries, rejections)
