"""The PostgreSQL backend's tables, created or brought to :data:`~..rows.SCHEMA_VERSION` when a
server starts: once, under an advisory lock (several servers may start together), and not at
all when they are current (read from the catalogue alone)."""

from __future__ import annotations

import asyncio
from typing import Final

import psycopg

from ..records import REJECTION_DETAIL, REJECTIONS_KEPT
from ..rows import SCHEMA_VERSION
from .connections import Conn

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
    # schema 5 (rows.SCHEMA_VERSION): a rejection keeps its command's digest (not the
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


async def upgrade_schema(conn: Conn) -> None:
    """Create or upgrade the tables unless they are current (the ``schema_version`` row is
    :data:`~..rows.SCHEMA_VERSION` and the catalogue has every relation). One process at a
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
