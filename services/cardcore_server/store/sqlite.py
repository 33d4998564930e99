"""The embedded default backend (stdlib ``sqlite3``): ``journal_mode=WAL``, ``synchronous=FULL``,
writes grouped into one transaction per turn of the event loop (:mod:`.group_commit`).

Reads and WAL checkpoints run on threads of their own with their own connections, so neither
waits for a commit nor makes one wait (but for the last few frames of each checkpoint, which the
writer copies between two transactions: :meth:`.group_commit.GroupCommit.flush` says why).

One server process per database file: the compare-and-set commit keeps the log right even so,
but this backend sends no hints to other processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final

from cardcore.log import LogLine

from ..errors import bounded
from ..sealing import PLAINTEXT, Sealer
from .group_commit import CONFLICT, GroupCommit, Write
from .interface import Conflict, StoreError
from .reads import Query, Row, SqlReads
from .records import (
    REJECTION_DETAIL,
    REJECTIONS_KEPT,
    Commit,
    GameRecord,
    TableRow,
    Tail,
    command_digest,
)
from .rows import (
    GAME_TABLES,
    INSERT_DEAL,
    INSERT_INVITE,
    INSERT_TABLE,
    INSERT_TOKEN,
    SCHEMA_VERSION,
    UPDATE_TABLE,
    commit_rows,
    head_move,
    invite_rows,
    make_tail,
    new_game,
    table_columns,
    table_update,
    token_rows,
)

WRITE_BUSY_TIMEOUT_MS: Final = 200
"""How long a commit waits for another process's write lock (it blocks the event loop; past
this it fails as a :class:`~.interface.StoreError` and the sequencer retries with backoff)."""
CHECKPOINT_EVERY_S: Final = 0.1
"""How often the checkpoint thread folds the WAL back into the database. Each pass lets the WAL
start again from its beginning, so this bounds its size to a tenth of a second of commits (a
played game's commit: COMMIT p90 240 µs at 0.1 s, 374 µs at 0.5 s, where the longer WAL ran
past the blocks it had before)."""

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS games(
    game_id TEXT PRIMARY KEY,
    record TEXT NOT NULL,
    header TEXT NOT NULL,
    seed TEXT NOT NULL,
    salt BLOB NOT NULL,
    end_line TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS entries(
    game_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    seat INTEGER,
    action_id TEXT,
    line TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
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
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tokens(
    token_hash TEXT PRIMARY KEY,
    game_id TEXT NOT NULL,
    viewer TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tokens_game ON tokens(game_id);
CREATE TABLE IF NOT EXISTS tables(
    game_id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    status TEXT NOT NULL,
    version INTEGER NOT NULL,
    created_ms INTEGER NOT NULL,
    public INTEGER NOT NULL,
    record TEXT NOT NULL,
    seed TEXT NOT NULL,
    salt BLOB NOT NULL,
    state TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tables_listed ON tables(status, public, created_ms, game_id);
CREATE TABLE IF NOT EXISTS invites(
    invite_hash TEXT PRIMARY KEY,
    game_id TEXT NOT NULL,
    seat INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS server_key(
    id INTEGER PRIMARY KEY CHECK (id = 1),
    private_key BLOB NOT NULL
);
"""

_HEAD_COLUMNS: Final = (
    ("games", "version", "INTEGER NOT NULL DEFAULT 0"),
    ("games", "head_seq", "INTEGER NOT NULL DEFAULT 0"),
    ("games", "head_hash", "TEXT NOT NULL DEFAULT ''"),
    ("games", "head_at_ms", "INTEGER NOT NULL DEFAULT 0"),
    ("rejections", "version", "INTEGER NOT NULL DEFAULT 0"),
)
"""Columns added by the compare-and-set commit (a database of an earlier cardcore gets them and
its games' heads are filled in from their last entries)."""

_FILL_HEADS: Final = """
UPDATE games SET
    head_seq = (SELECT max(seq) FROM entries e WHERE e.game_id = games.game_id),
    head_hash = (SELECT json_extract(line, '$.hash') FROM entries e
                 WHERE e.game_id = games.game_id ORDER BY seq DESC LIMIT 1),
    head_at_ms = (SELECT json_extract(line, '$.at_ms') FROM entries e
                  WHERE e.game_id = games.game_id ORDER BY seq DESC LIMIT 1),
    version = (SELECT max(seq) FROM entries e WHERE e.game_id = games.game_id)
WHERE head_hash = ''
"""

_COMPACT_REJECTIONS: Final = (
    # schema 5: digests for commands kept whole, details cut, each seat's oldest beyond the cap
    "UPDATE rejections SET command = cardcore_digest(command)"
    " WHERE length(command) != 64 OR command GLOB '*[^0-9a-f]*'",
    "UPDATE rejections SET detail = cardcore_detail(detail)"
    f" WHERE length(detail) > {REJECTION_DETAIL}",
    "DELETE FROM rejections WHERE (game_id, seat, action_id) IN (SELECT game_id, seat, action_id"
    " FROM (SELECT game_id, seat, action_id, row_number() OVER (PARTITION BY game_id, seat"
    f" ORDER BY version DESC) AS n FROM rejections) WHERE n > {REJECTIONS_KEPT})",
)

_INSERT_GAME: Final = (
    "INSERT INTO games(game_id, record, header, seed, salt, version, head_seq,"
    " head_hash, head_at_ms) VALUES (?,?,?,?,?,0,0,?,?)"
)

_CAS: Final = (
    "UPDATE games SET version = version + 1, head_seq = coalesce(?, head_seq),"
    " head_hash = coalesce(?, head_hash), head_at_ms = coalesce(?, head_at_ms),"
    " end_line = coalesce(?, end_line)"
    " WHERE game_id = ? AND version = ? AND (? IS NULL OR (head_seq = ? - 1 AND head_hash = ?"
    " AND head_at_ms <= ? AND end_line IS NULL))"
)


def _connect(path: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA busy_timeout=10000")
    return conn


def _migrate(conn: sqlite3.Connection) -> None:
    """Bring the store to :data:`~.rows.SCHEMA_VERSION` (nothing to do when it is there
    already)."""
    found = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if found > SCHEMA_VERSION:
        raise ValueError(
            f"the store has schema {found}, written by a newer cardcore; this one knows "
            f"{SCHEMA_VERSION} at most"
        )
    if found == SCHEMA_VERSION:
        return
    conn.executescript(_SCHEMA)  # steps 1 and 3: CREATE ... IF NOT EXISTS
    missing = [  # step 2: columns of the compare-and-set commit, heads filled from the entries
        (table, column, decl)
        for table, column, decl in _HEAD_COLUMNS
        if column not in {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
    ]
    conn.create_function("cardcore_digest", 1, command_digest, deterministic=True)
    conn.create_function("cardcore_detail", 1, _bounded_detail, deterministic=True)
    conn.execute("BEGIN IMMEDIATE")
    for table, column, decl in missing:
        conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {decl}")
    if missing:
        conn.execute(_FILL_HEADS)
    for statement in _COMPACT_REJECTIONS:  # step 5
        conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    conn.execute("COMMIT")


def _bounded_detail(detail: str) -> str:
    return bounded(detail, REJECTION_DETAIL)


def _insert_game(
    record: GameRecord,
    header: LogLine,
    deal: LogLine,
    tokens: Sequence[tuple[str, str]],
    sealer: Sealer,
) -> Write:
    """The statements that store a new game (its row, its deal entry, its tokens)."""
    rows = new_game(record, header, deal, tokens, sealer)

    def write(c: sqlite3.Connection) -> None:
        c.execute(_INSERT_GAME, rows.game)
        c.execute(INSERT_DEAL, rows.deal)
        c.executemany(INSERT_TOKEN, rows.tokens)

    return write


class SqliteStore(SqlReads):
    """An :class:`~.interface.EventStore` in one SQLite file."""

    OWNER = "NULL"
    RECORD_CREATED_MS = "json_extract(record, '$.created_ms')"

    def __init__(self, path: str) -> None:
        self.path = path
        self._writer = GroupCommit()
        self._checkpointer: threading.Thread | None = None
        self._stop_checkpoints = threading.Event()
        self._reader = ThreadPoolExecutor(1, thread_name_prefix="cardcore-store-read")
        self._read_conn: sqlite3.Connection | None = None
        self.sealer: Sealer = PLAINTEXT
        """Seals seeds and salts at rest (:mod:`..sealing`; the application sets it)."""

    @property
    def on_commit(self) -> Callable[[int, float], None] | None:
        """Told ``(writes, seconds)`` of every transaction committed (metrics)."""
        return self._writer.on_commit

    @on_commit.setter
    def on_commit(self, observer: Callable[[int, float], None] | None) -> None:
        self._writer.on_commit = observer

    @property
    def commits(self) -> int:
        """Transactions committed."""
        return self._writer.commits

    @property
    def writes(self) -> int:
        """Writes committed (several per transaction when they came in one turn of the loop)."""
        return self._writer.writes

    # ------------------------------------------------------------------ lifecycle

    async def open(self) -> None:
        conn = _connect(self.path)
        _migrate(conn)
        # Checkpoints run on their own thread, so no commit waits for one (p99 latency).
        conn.execute("PRAGMA wal_autocheckpoint=0")
        conn.execute(f"PRAGMA busy_timeout={WRITE_BUSY_TIMEOUT_MS}")
        self._writer.conn = conn
        self._checkpointer = threading.Thread(
            target=self._checkpoint_loop, name="cardcore-store-checkpoint", daemon=True
        )
        self._checkpointer.start()

    def _checkpoint_loop(self) -> None:
        conn = _connect(self.path)
        try:
            while not self._stop_checkpoints.wait(CHECKPOINT_EVERY_S):
                with contextlib.suppress(sqlite3.Error):
                    _busy, frames, _copied = conn.execute(
                        "PRAGMA wal_checkpoint(PASSIVE)"
                    ).fetchone()
                    if frames > 0:  # the loop's writer finishes the copy (GroupCommit)
                        self._writer.finish_checkpoint = True
            with contextlib.suppress(sqlite3.Error):
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            conn.close()

    async def close(self) -> None:
        """Commit everything asked for, then stop the threads."""
        conn = self._writer.conn
        if conn is not None:
            self._writer.flush()
            conn.close()
            self._writer.conn = None
        if self._checkpointer is not None:
            self._stop_checkpoints.set()
            await asyncio.to_thread(self._checkpointer.join)
            self._checkpointer = None
        await asyncio.get_running_loop().run_in_executor(self._reader, self._close_reader)
        self._reader.shutdown(wait=True)

    def _close_reader(self) -> None:
        if self._read_conn is not None:
            self._read_conn.close()
            self._read_conn = None

    # ------------------------------------------------------------------ writes

    def create(
        self, record: GameRecord, header: LogLine, deal: LogLine, tokens: Sequence[tuple[str, str]]
    ) -> Awaitable[None]:
        return self._writer.enqueue(_insert_game(record, header, deal, tokens, self.sealer))

    def create_table(
        self,
        table: TableRow,
        invites: Sequence[tuple[str, int]],
        tokens: Sequence[tuple[str, str]],
    ) -> Awaitable[None]:
        gid = table.game_id
        row = table_columns(table, self.sealer)
        invite_list, token_list = invite_rows(gid, invites), token_rows(gid, tokens)

        def write(c: sqlite3.Connection) -> None:
            c.execute(INSERT_TABLE, row)
            c.executemany(INSERT_INVITE, invite_list)
            c.executemany(INSERT_TOKEN, token_list)

        return self._writer.enqueue(write)

    def update_table(
        self,
        table: TableRow,
        tokens: Sequence[tuple[str, str]] = (),
        start: tuple[LogLine, LogLine] | None = None,
    ) -> Awaitable[None]:
        rec = table.record
        cas = table_update(table)
        token_list = token_rows(rec.game_id, tokens)
        insert = None if start is None else _insert_game(rec, *start, (), self.sealer)

        def write(c: sqlite3.Connection) -> Any:
            if c.execute(UPDATE_TABLE, cas).rowcount != 1:
                return CONFLICT
            c.executemany(INSERT_TOKEN, token_list)
            if insert is not None:
                insert(c)
            return None

        async def run() -> None:
            if await self._writer.enqueue(write) is CONFLICT:
                raise Conflict(rec.game_id)

        return asyncio.ensure_future(run())

    async def ping(self) -> None:
        try:
            await self._rows("SELECT 1")
        except sqlite3.Error as exc:
            raise StoreError(f"store unreadable: {type(exc).__name__}") from None

    async def server_key(self, new: bytes) -> bytes:
        await self._writer.enqueue(
            lambda c: c.execute(
                "INSERT OR IGNORE INTO server_key(id, private_key) VALUES (1, ?)", (new,)
            )
        )
        rows = await self._rows("SELECT private_key FROM server_key WHERE id = 1")
        return bytes(rows[0][0])

    async def delete_game(self, game_id: str) -> None:
        def write(c: sqlite3.Connection) -> None:
            for table in GAME_TABLES:
                c.execute(f"DELETE FROM {table} WHERE game_id=?", (game_id,))

        await self._writer.enqueue(write)

    async def commit(self, commit: Commit) -> int:
        gid = commit.game_id
        if not commit.writes:
            found = await self._rows("SELECT version FROM games WHERE game_id=?", (gid,))
            if not found or int(found[0][0]) != commit.version:
                raise Conflict(gid)
            return commit.version
        h = head_move(commit)
        # in the order of _CAS's placeholders: the new head, the game, the head it must be at
        cas = (
            *(h.last_seq, h.last_hash, h.last_at_ms, h.end, gid, commit.version),
            *(h.first_seq, h.first_seq, h.first_prev, h.first_at_ms),
        )
        version = commit.version + 1
        rows = commit_rows(commit)
        entry_list = [(gid, *row) for row in rows.entries]
        rejection_list = [(gid, *row, version) for row in rows.rejections]
        forget_list = [(gid, *row) for row in rows.forget]

        def write(c: sqlite3.Connection) -> Any:
            if c.execute(_CAS, cas).rowcount != 1:
                return CONFLICT
            c.executemany(
                "INSERT INTO entries(game_id, seq, seat, action_id, line) VALUES (?,?,?,?,?)",
                entry_list,
            )
            if forget_list:
                c.executemany(
                    "DELETE FROM rejections WHERE game_id=? AND seat=? AND action_id=?",
                    forget_list,
                )
            if rejection_list:
                c.executemany(
                    "INSERT INTO rejections(game_id, seat, action_id, command, code, detail,"
                    " version) VALUES (?,?,?,?,?,?,?)",
                    rejection_list,
                )
            return version

        result = await self._writer.enqueue(write)
        if result is CONFLICT:
            raise Conflict(gid)
        return int(result)

    # ------------------------------------------------------------------ reads

    async def _read(self, fn: Callable[[sqlite3.Connection], Any]) -> Any:
        def run() -> Any:
            if self._read_conn is None:
                self._read_conn = _connect(self.path)
            return fn(self._read_conn)

        return await asyncio.get_running_loop().run_in_executor(self._reader, run)

    async def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        rows: list[Row] = await self._read(lambda c: c.execute(sql, params).fetchall())
        return rows

    async def _snapshot(self, *queries: Query) -> list[list[Row]]:
        def fetch(c: sqlite3.Connection) -> list[list[Row]]:
            c.execute("BEGIN")
            try:
                return [c.execute(sql, params).fetchall() for sql, params in queries]
            finally:
                c.execute("COMMIT")

        result: list[list[Row]] = await self._read(fetch)
        return result

    async def tail(self, game_id: str, from_seq: int, from_version: int) -> Tail:
        game, entries, rejections = await self._snapshot(
            ("SELECT version, end_line, NULL FROM games WHERE game_id=?", (game_id,)),
            (
                "SELECT seq, action_id, line FROM entries WHERE game_id=? AND seq>=? ORDER BY seq",
                (game_id, from_seq),
            ),
            (
                "SELECT seat, action_id, command, code, detail FROM rejections"
                " WHERE game_id=? AND version>? ORDER BY version",
                (game_id, from_version),
            ),
        )
        return make_tail(game_id, game[0] if game else None, entries, rejections)
