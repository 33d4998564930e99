"""The PostgreSQL backend (psycopg 3, asyncio): several server processes serve the same games.

The tables are the SQLite backend's (:mod:`..rows`) plus ``servers`` (leases) and ``presence``
(:mod:`.presence`); :mod:`.schema` creates and upgrades them. How several servers stay one:

**One order per game, decided on the game's row.** Every write of a game is one statement
(:data:`_CAS`): an ``UPDATE`` of the game's row that matches only if the row is still at the
version the round was decided on and its head (``head_seq``, ``head_hash``, ``head_at_ms``) is
what the first new entry links to, with the inserts of the round's entries and rejections fed
from that ``UPDATE``'s result and the wake-up ``NOTIFY`` (:mod:`.notify`). PostgreSQL's row lock
serialises two such statements on one game (the second waits, re-reads the row after the first
commits, and matches nothing), so whatever the interleaving of servers, an entry is stored only
if it was decided on exactly the entries before it, and an ``action_id`` gets its answer (entry
or rejection) under the same check. No statement locks more than one game's row: no deadlocks.
It is autocommit: one round trip and one WAL flush per round, and PostgreSQL flushes the
commits of concurrent connections together (:data:`WRITERS` of them).

**One owner per game for timers and bots.** Each server holds a lease (a ``servers`` row whose
``expires_at`` it pushes forward every :data:`LEASE_RENEW_S`, by the database's clock only).
``games.owner`` names the server that arms the game's timers and bots; the game's creator first.
A game whose owner's lease has lapsed is taken over by the next server that looks
(:meth:`PostgresStore.claim_orphans`, one row at a time, ``SKIP LOCKED``). A timed or bot action
commits only while its server owns the game and holds a live lease (the fence in :data:`_CAS`),
so a server that lost its lease never acts for a game again, even before it notices.

**Reads** use a few connections of their own (``load`` in one ``REPEATABLE READ`` snapshot,
``tail`` in one statement); the ones both backends share are :mod:`..reads`'.
"""

from __future__ import annotations

import asyncio
import functools
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final

import psycopg

from cardcore.log import LogLine

from ...sealing import PLAINTEXT, Sealer
from ..interface import Conflict
from ..reads import Query, Row, SqlReads
from ..records import Commit, GameRecord, TableRow, Tail
from ..rows import (
    GAME_TABLES,
    INSERT_DEAL,
    INSERT_INVITE,
    INSERT_TABLE,
    INSERT_TOKEN,
    UPDATE_TABLE,
    commit_rows,
    head_move,
    invite_rows,
    make_tail,
    new_game,
    pyformat,
    table_columns,
    table_update,
    token_rows,
)
from .connections import (
    CONNECT,
    Conn,
    Pool,
    T,
    connect,
    connect_reader,
    connect_writer,
    unreachable,
)
from .notify import CHANNEL, Listener
from .presence import FORGET_ABSENT, Presence
from .schema import upgrade_schema

READERS: Final = 4
"""Read connections per store."""
WRITERS: Final = 4
"""Write connections per store: rounds of different games commit concurrently on them, and
PostgreSQL flushes concurrent commits to the WAL together (group commit across games)."""
LEASE_TTL_S: Final = 3.0
"""How long a server's lease lasts unless renewed; a dead server's games are taken over after
at most this (plus one renewal period of the server that takes them)."""
LEASE_RENEW_S: Final = 1.0
PRESENCE_GC_EVERY: Final = 10
"""Lease renewals between two sweeps of :data:`.presence.FORGET_ABSENT`."""

_INSERT_GAME: Final = (
    "INSERT INTO games(game_id, record, header, seed, salt, version, head_seq, head_hash,"
    " head_at_ms, owner, auto) VALUES (%s, %s, %s, %s, %s, 0, 0, %s, %s, %s, %s)"
)
_INSERT_DEAL: Final = pyformat(INSERT_DEAL)
_INSERT_TOKEN: Final = pyformat(INSERT_TOKEN)
_INSERT_TABLE: Final = pyformat(INSERT_TABLE)
_INSERT_INVITE: Final = pyformat(INSERT_INVITE)
_UPDATE_TABLE: Final = pyformat(UPDATE_TABLE)

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
server's presence rows, :data:`.presence.FORGET_ABSENT`)."""
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


class _TableConflict(Exception):
    """A table's row moved on (raised inside the transaction, to roll it back)."""


def _auto(record: GameRecord) -> bool:
    """Whether a game acts by itself (bots or timers): only those need an owner."""
    return any(s.kind != "human" for s in record.seats) or record.timers


class PostgresStore(SqlReads):
    """An :class:`~..interface.EventStore` and :class:`~..interface.SharedStore` on
    PostgreSQL."""

    OWNER = "owner"
    RECORD_CREATED_MS = "(record::jsonb->>'created_ms')::bigint"

    def __init__(self, url: str, *, readers: int = READERS, writers: int = WRITERS) -> None:
        self.url = url
        self.server_id = secrets.token_hex(8)
        """Names this server in leases, ownership and notifications (new each process)."""
        self._writers = Pool(writers, functools.partial(connect_writer, url))
        self._readers = Pool(readers, functools.partial(connect_reader, url))
        self._listener = Listener(url, self.server_id)
        self._presence = Presence(self.server_id, self._writers, self._readers)
        self._inflight: set[asyncio.Task[Any]] = set()
        self.commits = 0
        """Rounds committed (for benchmarks)."""
        self.on_commit: Callable[[int, float], None] | None = None
        self.sealer: Sealer = PLAINTEXT
        """Seals seeds and salts at rest (:mod:`...sealing`; the application sets it)."""
        self._renewals = 0

    # ------------------------------------------------------------------ lifecycle

    async def open(self) -> None:
        """Connect, create or upgrade the tables (once, under an advisory lock: several
        processes may start together), take a lease, start the listener; raises
        :class:`ConnectionError` when the database cannot be reached."""
        try:
            conn = await connect(self.url)
        except psycopg.Error as exc:
            raise unreachable(exc) from None
        try:
            await upgrade_schema(conn)
            await conn.execute(_FORGET_DEAD)
            await conn.execute(_RENEW, {"me": self.server_id, "ttl": LEASE_TTL_S})
        except psycopg.Error as exc:
            raise unreachable(exc) from None
        finally:
            await conn.close()
        try:
            await self._listener.start(CONNECT["connect_timeout"] + 5)
        except ConnectionError:
            await self.close()
            raise
        self._presence.start()

    async def close(self) -> None:
        """Let in-flight writes finish, then close every connection."""
        if self._inflight:
            await asyncio.gather(*self._inflight, return_exceptions=True)
        await self._presence.close()
        await self._listener.close()
        await self._writers.close()
        await self._readers.close()

    # ------------------------------------------------------------------ writes

    def _tracked(self, coro: Awaitable[T]) -> asyncio.Future[T]:
        task = asyncio.ensure_future(coro)
        self._inflight.add(task)
        task.add_done_callback(self._inflight.discard)
        return task

    def _game_rows(
        self,
        record: GameRecord,
        header: LogLine,
        deal: LogLine,
        tokens: Sequence[tuple[str, str]],
    ) -> tuple[tuple[Any, ...], tuple[str, str], list[tuple[str, str, str]]]:
        """:func:`~..rows.new_game`'s rows, the game's owned by this server when it acts by
        itself (:data:`_INSERT_GAME`)."""
        rows = new_game(record, header, deal, tokens, self.sealer)
        return (*rows.game, self.server_id, _auto(record)), rows.deal, rows.tokens

    def create(
        self, record: GameRecord, header: LogLine, deal: LogLine, tokens: Sequence[tuple[str, str]]
    ) -> Awaitable[None]:
        game_row, deal_row, token_list = self._game_rows(record, header, deal, tokens)

        async def write(conn: Conn) -> None:
            async with conn.transaction(), conn.cursor() as cur:
                await cur.execute(_INSERT_GAME, game_row)
                await cur.execute(_INSERT_DEAL, deal_row)
                await cur.executemany(_INSERT_TOKEN, token_list)

        return self._tracked(self._writers.run(write, retry=False))

    def create_table(
        self,
        table: TableRow,
        invites: Sequence[tuple[str, int]],
        tokens: Sequence[tuple[str, str]],
    ) -> Awaitable[None]:
        gid = table.game_id
        row = table_columns(table, self.sealer)
        invite_list, token_list = invite_rows(gid, invites), token_rows(gid, tokens)

        async def write(conn: Conn) -> None:
            async with conn.transaction(), conn.cursor() as cur:
                await cur.execute(_INSERT_TABLE, row)
                await cur.executemany(_INSERT_INVITE, invite_list)
                await cur.executemany(_INSERT_TOKEN, token_list)

        return self._tracked(self._writers.run(write, retry=False))

    def update_table(
        self,
        table: TableRow,
        tokens: Sequence[tuple[str, str]] = (),
        start: tuple[LogLine, LogLine] | None = None,
    ) -> Awaitable[None]:
        gid = table.game_id
        cas = table_update(table)
        token_list = token_rows(gid, tokens)
        game_rows = None if start is None else self._game_rows(table.record, *start, ())

        async def write(conn: Conn) -> None:
            # The row's lock (taken by the UPDATE) serialises writers of one table: a second
            # one waits, then matches no row (the version moved) and conflicts.
            async with conn.transaction(), conn.cursor() as cur:
                await cur.execute(_UPDATE_TABLE, cas)
                if cur.rowcount != 1:
                    raise _TableConflict()
                await cur.executemany(_INSERT_TOKEN, token_list)
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

        await asyncio.wait_for(self._readers.run(fetch, retry=True), 5.0)

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

    async def delete_game(self, game_id: str) -> None:
        async def write(conn: Conn) -> None:
            async with conn.transaction():
                for table in (*GAME_TABLES, "presence"):
                    await conn.execute(f"DELETE FROM {table} WHERE game_id = %s", (game_id,))

        await self._writers.run(write, retry=False)

    async def commit(self, commit: Commit) -> int:
        gid = commit.game_id
        if not commit.writes:
            return await self._confirm(gid, commit.version)
        h = head_move(commit)
        rows = commit_rows(commit)
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
            **_columns(rows.entries, "seqs", "seats", "aids", "lines"),
            **_columns(rows.rejections, "r_seats", "r_aids", "r_cmds", "r_codes", "r_details"),
            **_columns(rows.forget, "f_seats", "f_aids"),
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
            self.on_commit(len(rows.entries) + len(rows.rejections), time.perf_counter() - began)
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
                self._presence.republish()
            if sweep:
                await conn.execute(FORGET_ABSENT)
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

    # ------------------------------------------------------------------ hints and presence

    def watch(self, on_change: Callable[[str | None, int | None], None]) -> None:
        self._listener.watch(on_change)

    def set_presence(self, game_id: str, seats: frozenset[int]) -> None:
        self._presence.publish(game_id, seats)

    async def present_seats(self, game_ids: Sequence[str]) -> dict[str, set[int]]:
        return await self._presence.seats(game_ids)

    # ------------------------------------------------------------------ reads

    async def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        async def fetch(c: Conn) -> list[Row]:
            cur = await c.execute(pyformat(sql), params)
            return await cur.fetchall()

        return await self._readers.run(fetch, retry=True)

    async def _snapshot(self, *queries: Query) -> list[list[Row]]:
        async def fetch(c: Conn) -> list[list[Row]]:
            out: list[list[Row]] = []
            async with c.transaction():  # one snapshot (REPEATABLE READ) for every query
                for sql, params in queries:
                    cur = await c.execute(pyformat(sql), params)
                    out.append(await cur.fetchall())
            return out

        return await self._readers.run(fetch, retry=True)

    async def find_token(self, token_hash: str) -> tuple[str, str] | None:
        rows = await self._rows(
            "SELECT game_id, viewer FROM tokens WHERE token_hash = ?", (token_hash,)
        )
        return (str(rows[0][0]), str(rows[0][1])) if rows else None

    async def tail(self, game_id: str, from_seq: int, from_version: int) -> Tail:
        """One statement (one snapshot, one round trip): the game's version, end line and
        owner, its entries from ``from_seq`` and its rejections after ``from_version``."""

        async def fetch(c: Conn) -> tuple[Any, ...] | None:
            cur = await c.execute(_TAIL, {"g": game_id, "seq": from_seq, "v": from_version})
            return await cur.fetchone()

        row = await self._readers.run(fetch, retry=True)
        if row is None:
            return make_tail(game_id, None, [], [])
        version, end_line, owner, entries, rejections = row
        return make_tail(game_id, (version, end_line, owner), entries, rejections)


def _columns(rows: Sequence[Sequence[Any]], *names: str) -> dict[str, list[Any]]:
    """``rows`` as one list per column, under ``names`` (the arrays :data:`_CAS` unnests)."""
    return {name: [row[i] for row in rows] for i, name in enumerate(names)}
