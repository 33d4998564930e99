"""The event store: an interface and its embedded SQLite backend.

A store keeps, per game, its record (setup, seed, salt, seat kinds), its log lines (one row per
accepted action, primary key ``(game_id, seq)`` as the concurrency check), the end line, the
rejections of actions that carried an ``action_id`` (so a retry gets the same answer after a
restart) and the hashes of its tokens (never the tokens).

Writes are *ordered*: :meth:`EventStore.append` enqueues at once, in call order, and returns an
awaitable that completes when that write is durable; a write is durable only after every write
enqueued before it. The sequencer relies on this to pipeline: it applies action N+1 while N is
being committed, and acknowledges each only once it is on disk.

:class:`SqliteStore` runs every write on one writer thread that drains its queue into one
transaction per batch (group commit: one fsync for many actions), with ``journal_mode=WAL`` and
``synchronous=FULL``. Reads run on a second thread with their own connection; nothing blocks the
event loop.

:class:`SharedStore` is what a backend that several server processes write to adds (the
PostgreSQL one, :mod:`.store_postgres`); :func:`open_store` picks the backend from ``--db``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import sqlite3
import threading
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Final, Protocol, runtime_checkable

from cardcore import codec
from cardcore.log import LogLine

MAX_BATCH: Final = 1024
"""Writes committed together at most (one transaction, one fsync)."""
CHECKPOINT_EVERY_S: Final = 0.5
"""How often the checkpoint thread folds the WAL back into the database."""


class StoreError(Exception):
    """A write could not be made durable (including a ``(game_id, seq)`` conflict)."""


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """Who plays a seat: ``"human"``, ``"random"`` or ``"reaction"`` (a server bot)."""

    kind: str
    min_delay_ms: int = 0
    max_delay_ms: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "min_delay_ms": self.min_delay_ms,
            "max_delay_ms": self.max_delay_ms,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SeatSpec:
        return cls(str(data["kind"]), int(data["min_delay_ms"]), int(data["max_delay_ms"]))


@dataclass(frozen=True, slots=True)
class GameRecord:
    """Everything that fixes a served game before its first action."""

    game_id: str
    game: str
    rules: dict[str, Any]
    event_limit: int
    seed: int
    salt: bytes
    created_ms: int
    """Wall-clock milliseconds at creation; ``at_ms`` counts from here."""
    seats: tuple[SeatSpec, ...]
    timeouts_ms: dict[str, int]

    def public_json(self) -> dict[str, Any]:
        """The record without seed and salt (those live in their own columns)."""
        return {
            "game": self.game,
            "rules": self.rules,
            "event_limit": self.event_limit,
            "created_ms": self.created_ms,
            "seats": [s.to_json() for s in self.seats],
            "timeouts_ms": self.timeouts_ms,
        }


@dataclass(frozen=True, slots=True)
class StoredRejection:
    """A rejected action that carried an ``action_id``: replayed as the same rejection."""

    seat: int
    action_id: str
    command: str
    """The command's canonical JSON, to tell a retry from a reused id."""
    code: str
    detail: str


@dataclass(slots=True)
class StoredGame:
    """A game as the store holds it: record, log lines and idempotency keys."""

    record: GameRecord
    lines: list[LogLine]
    """Header, one line per entry in ``seq`` order, then the end line if the game is over."""
    action_ids: dict[tuple[int, str], int] = field(default_factory=dict)
    """``(seat, action_id) -> seq`` of accepted actions."""
    rejections: dict[tuple[int, str], StoredRejection] = field(default_factory=dict)


class EventStore(Protocol):
    """What the application layer needs from a backend."""

    async def open(self) -> None: ...

    async def close(self) -> None: ...

    def create(
        self, record: GameRecord, header: LogLine, deal: LogLine, tokens: Sequence[tuple[str, str]]
    ) -> Awaitable[None]:
        """Enqueue a new game with its deal entry (``seq`` 0) and token hashes
        ``(sha256 hex, viewer)``; the awaitable completes when durable."""
        ...

    def append(
        self,
        game_id: str,
        entry: LogLine | None,
        action_id: str | None,
        end: LogLine | None,
        rejection: StoredRejection | None,
    ) -> Awaitable[None]:
        """Enqueue an accepted entry (with the end line if it ended the game) or a rejection;
        the awaitable completes when durable, after every earlier write."""
        ...

    async def tokens(self) -> dict[str, tuple[str, str]]:
        """Every token hash → ``(game_id, viewer)``."""
        ...

    async def unfinished(self) -> list[str]:
        """The ids of games without an end line."""
        ...

    async def load(self, game_id: str) -> StoredGame | None: ...


@dataclass(frozen=True, slots=True)
class Tail:
    """A game's entries from some ``seq`` on, as another process may have appended them."""

    entries: list[tuple[int, LogLine, str | None]]
    """``(seq, line, action_id)`` in ``seq`` order."""
    end: LogLine | None
    """The end line, when the game is over."""


@runtime_checkable
class SharedStore(EventStore, Protocol):
    """A store other server processes append to as well: they re-read by ``seq`` on a hint."""

    def watch(self, on_change: Callable[[str | None], None]) -> None:
        """Call ``on_change(game_id)`` when a game may have entries this process has not seen
        (``None``: any game may have; e.g. after the notification channel was re-opened). A
        hint only: the caller re-reads with :meth:`tail`."""
        ...

    async def tail(self, game_id: str, from_seq: int) -> Tail: ...

    async def rejection(self, game_id: str, seat: int, action_id: str) -> StoredRejection | None:
        """The stored rejection of ``(seat, action_id)``, if another process recorded one."""
        ...

    async def find_token(self, token_hash: str) -> tuple[str, str] | None:
        """``(game_id, viewer)`` of a token hash (tokens of games created elsewhere)."""
        ...


def open_store(db: str) -> EventStore:
    """The backend for ``--db``: ``postgresql://…`` (or ``postgres://…``) selects PostgreSQL
    (needs ``cardcore[postgres]``); ``sqlite:PATH`` or a plain path selects SQLite."""
    if db.startswith(("postgresql://", "postgres://")):
        try:
            from .store_postgres import PostgresStore
        except ImportError:
            raise ValueError(
                "a postgresql:// database needs psycopg: install cardcore[postgres]"
            ) from None
        return PostgresStore(db)
    db = db.removeprefix("sqlite:")
    if not db:
        raise ValueError("--db: empty SQLite path")
    return SqliteStore(db)


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
"""

_Write = Callable[[sqlite3.Connection], None]


@dataclass(slots=True)
class _Job:
    game_id: str
    write: _Write
    future: asyncio.Future[None]


_STOP: Final = object()


def _text(line: LogLine) -> str:
    return codec.canonical_text(line)


def _connect(path: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA busy_timeout=10000")
    return conn


class SqliteStore:
    """The embedded default backend (stdlib ``sqlite3``): WAL, synchronous=FULL, group commit."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._queue: queue.SimpleQueue[_Job | object] = queue.SimpleQueue()
        self._writer: threading.Thread | None = None
        self._checkpointer: threading.Thread | None = None
        self._stop_checkpoints = threading.Event()
        self._reader = ThreadPoolExecutor(1, thread_name_prefix="cardcore-store-read")
        self._read_conn: sqlite3.Connection | None = None
        self._poisoned: set[str] = set()
        self.commits = 0
        """Transactions committed (for the group-commit benchmark)."""
        self.writes = 0

    # ------------------------------------------------------------------ lifecycle

    async def open(self) -> None:
        conn = _connect(self.path)
        conn.executescript(_SCHEMA)
        # Checkpoints run on their own thread, so no commit waits for one (p99 latency).
        conn.execute("PRAGMA wal_autocheckpoint=0")
        loop = asyncio.get_running_loop()
        self._writer = threading.Thread(
            target=self._write_loop, args=(conn, loop), name="cardcore-store-write", daemon=True
        )
        self._writer.start()
        self._checkpointer = threading.Thread(
            target=self._checkpoint_loop, name="cardcore-store-checkpoint", daemon=True
        )
        self._checkpointer.start()

    def _checkpoint_loop(self) -> None:
        conn = _connect(self.path)
        try:
            while not self._stop_checkpoints.wait(CHECKPOINT_EVERY_S):
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
            with contextlib.suppress(sqlite3.Error):
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            conn.close()

    async def close(self) -> None:
        """Commit everything enqueued, then stop the threads."""
        if self._writer is not None:
            self._queue.put(_STOP)
            await asyncio.to_thread(self._writer.join)
            self._writer = None
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

    def _enqueue(self, game_id: str, write: _Write) -> asyncio.Future[None]:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put(_Job(game_id, write, fut))
        return fut

    def create(
        self, record: GameRecord, header: LogLine, deal: LogLine, tokens: Sequence[tuple[str, str]]
    ) -> Awaitable[None]:
        rec = json.dumps(record.public_json(), sort_keys=True)
        head, deal_text = _text(header), _text(deal)
        rows = list(tokens)

        def write(c: sqlite3.Connection) -> None:
            c.execute(
                "INSERT INTO games(game_id, record, header, seed, salt) VALUES (?,?,?,?,?)",
                (record.game_id, rec, head, str(record.seed), record.salt),
            )
            c.execute(
                "INSERT INTO entries(game_id, seq, seat, action_id, line) VALUES (?,0,NULL,NULL,?)",
                (record.game_id, deal_text),
            )
            c.executemany(
                "INSERT INTO tokens(token_hash, game_id, viewer) VALUES (?,?,?)",
                [(h, record.game_id, v) for h, v in rows],
            )

        return self._enqueue(record.game_id, write)

    def append(
        self,
        game_id: str,
        entry: LogLine | None,
        action_id: str | None,
        end: LogLine | None,
        rejection: StoredRejection | None,
    ) -> Awaitable[None]:
        entry_row = (
            (game_id, entry["seq"], entry["seat"], action_id, _text(entry)) if entry else None
        )
        end_row = (_text(end), game_id) if end else None
        rej_row = (
            (
                game_id,
                rejection.seat,
                rejection.action_id,
                rejection.command,
                rejection.code,
                rejection.detail,
            )
            if rejection
            else None
        )

        def write(c: sqlite3.Connection) -> None:
            if entry_row is not None:
                c.execute(
                    "INSERT INTO entries(game_id, seq, seat, action_id, line) VALUES (?,?,?,?,?)",
                    entry_row,
                )
            if end_row is not None:
                c.execute("UPDATE games SET end_line=? WHERE game_id=?", end_row)
            if rej_row is not None:
                c.execute(
                    "INSERT OR IGNORE INTO rejections(game_id, seat, action_id, command, code,"
                    " detail) VALUES (?,?,?,?,?,?)",
                    rej_row,
                )

        return self._enqueue(game_id, write)

    def _write_loop(self, conn: sqlite3.Connection, loop: asyncio.AbstractEventLoop) -> None:
        q = self._queue
        stop = False
        while not stop:
            first = q.get()
            if first is _STOP:
                break
            batch: list[_Job] = [first]  # type: ignore[list-item]
            while len(batch) < MAX_BATCH:
                try:
                    nxt = q.get_nowait()
                except queue.Empty:
                    break
                if nxt is _STOP:
                    stop = True
                    break
                batch.append(nxt)  # type: ignore[arg-type]
            results = self._commit(conn, batch)
            loop.call_soon_threadsafe(_settle, batch, results)
        conn.close()

    def _commit(self, conn: sqlite3.Connection, batch: list[_Job]) -> list[BaseException | None]:
        """One transaction for the batch; if it fails, each job alone (to isolate the bad one)."""
        live = [j for j in batch if j.game_id not in self._poisoned]
        try:
            conn.execute("BEGIN IMMEDIATE")
            for job in live:
                job.write(conn)
            conn.execute("COMMIT")
            self.commits += 1
            self.writes += len(live)
            return [
                StoreError("an earlier write of this game failed")
                if j.game_id in self._poisoned
                else None
                for j in batch
            ]
        except sqlite3.Error:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        results: list[BaseException | None] = []
        for job in batch:
            if job.game_id in self._poisoned:
                results.append(StoreError("an earlier write of this game failed"))
                continue
            try:
                conn.execute("BEGIN IMMEDIATE")
                job.write(conn)
                conn.execute("COMMIT")
                self.commits += 1
                self.writes += 1
                results.append(None)
            except sqlite3.Error as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                # Later writes of this game were decided on top of this one: refuse them too.
                self._poisoned.add(job.game_id)
                results.append(StoreError(f"write failed: {type(exc).__name__}"))
        return results

    def forgive(self, game_id: str) -> None:
        """Accept writes of a game again (after it was rebuilt from the store)."""
        self._poisoned.discard(game_id)

    # ------------------------------------------------------------------ reads

    async def _read(self, fn: Callable[[sqlite3.Connection], Any]) -> Any:
        def run() -> Any:
            if self._read_conn is None:
                self._read_conn = _connect(self.path)
            return fn(self._read_conn)

        return await asyncio.get_running_loop().run_in_executor(self._reader, run)

    async def tokens(self) -> dict[str, tuple[str, str]]:
        rows = await self._read(
            lambda c: c.execute("SELECT token_hash, game_id, viewer FROM tokens").fetchall()
        )
        return {h: (g, v) for h, g, v in rows}

    async def unfinished(self) -> list[str]:
        rows = await self._read(
            lambda c: c.execute("SELECT game_id FROM games WHERE end_line IS NULL").fetchall()
        )
        return [r[0] for r in rows]

    async def load(self, game_id: str) -> StoredGame | None:
        def fetch(c: sqlite3.Connection) -> Any:
            c.execute("BEGIN")
            try:
                game = c.execute(
                    "SELECT record, header, seed, salt, end_line FROM games WHERE game_id=?",
                    (game_id,),
                ).fetchone()
                entries = c.execute(
                    "SELECT seq, seat, action_id, line FROM entries WHERE game_id=? ORDER BY seq",
                    (game_id,),
                ).fetchall()
                rejections = c.execute(
                    "SELECT seat, action_id, command, code, detail FROM rejections WHERE game_id=?",
                    (game_id,),
                ).fetchall()
            finally:
                c.execute("COMMIT")
            return game, entries, rejections

        game, entries, rejections = await self._read(fetch)
        return stored_game(game_id, game, entries, rejections)


def stored_game(
    game_id: str,
    game: Sequence[Any] | None,
    entries: Sequence[Sequence[Any]],
    rejections: Sequence[Sequence[Any]],
) -> StoredGame | None:
    """A :class:`StoredGame` from the rows of ``games`` (``record, header, seed, salt,
    end_line``), ``entries`` (``seq, seat, action_id, line`` in ``seq`` order) and
    ``rejections`` (``seat, action_id, command, code, detail``); every backend reads these."""
    if game is None:
        return None
    rec_text, header, seed, salt, end_line = game
    rec = json.loads(rec_text)
    record = GameRecord(
        game_id=game_id,
        game=rec["game"],
        rules=rec["rules"],
        event_limit=int(rec["event_limit"]),
        seed=int(seed),
        salt=bytes(salt),
        created_ms=int(rec["created_ms"]),
        seats=tuple(SeatSpec.from_json(s) for s in rec["seats"]),
        timeouts_ms={str(k): int(v) for k, v in rec["timeouts_ms"].items()},
    )
    lines: list[LogLine] = [json.loads(header)]
    stored = StoredGame(record, lines)
    for seq, seat, action_id, line in entries:
        if seq != len(lines) - 1:
            raise StoreError(f"game {game_id}: entry {len(lines) - 1} is missing")
        lines.append(json.loads(line))
        if action_id is not None:
            stored.action_ids[(int(seat), str(action_id))] = int(seq)
    if end_line is not None:
        lines.append(json.loads(end_line))
    for seat, action_id, command, code, detail in rejections:
        stored.rejections[(int(seat), str(action_id))] = StoredRejection(
            int(seat), str(action_id), str(command), str(code), str(detail)
        )
    return stored


def _settle(batch: list[_Job], results: list[BaseException | None]) -> None:
    for job, err in zip(batch, results, strict=True):
        if job.future.done():
            continue
        if err is None:
            job.future.set_result(None)
        else:
            job.future.set_exception(err)
