"""The event store: an interface and its embedded SQLite backend.

A store keeps, per game, its record (setup, seed, salt, seat kinds), its log lines (one row per
accepted action, primary key ``(game_id, seq)``), the end line, the rejections of actions that
carried an ``action_id`` (so a retry gets the same answer after a restart) and the hashes of its
tokens (never the tokens).

**What a rejection costs is bounded.** A rejected action is not part of the log: all its
``action_id`` needs is one answer, and a resent command must be told from another one sent under
the same id. So a rejection row holds the command's digest (never the command, up to 64 KB),
its code and its detail cut to :data:`REJECTION_DETAIL` characters, and a seat keeps its last
:data:`REJECTIONS_KEPT` rejections per game (the sequencer forgets the oldest in the commit
that stores a new one). One token's flood of rejected actions therefore costs at most that
many rows of a few hundred bytes, whatever it sends.

**The order of a game's log is decided by compare-and-set on the game's row.** Each game has a
``version``: the number of commits that wrote to it. A sequencer decides a round of actions on
the state it holds (at some version ``v``) and hands the store one :class:`Commit`; the store
writes it only if the game is still at ``v`` *and* the first new entry links to the stored head
(``seq`` = head + 1, ``prev`` = the head's ``hash``, ``at_ms`` not before the head's, the game not
over), all in one statement on the game's row, which also moves the version and the head. So an
entry is appended only if it was decided on the state after exactly the entries before it, and
an ``action_id`` gets one answer: an accepted entry or a rejection, both stored under the same
check. Otherwise nothing is written and :class:`Conflict` is raised: the sequencer catches up
(:meth:`EventStore.tail`) and decides again. With one server the check always passes; with
several (:mod:`.store_postgres`) it is what makes them one.

:class:`SqliteStore` writes on the event loop's own thread, with ``journal_mode=WAL`` and
``synchronous=FULL``: every write asked for during one turn of the loop goes into one
transaction, committed by a callback scheduled for the next turn (group commit: one fsync for
every game's commit of that turn, and no window that delays a lone action). A writer thread
would let the loop work during the fsync, but measured it costs far more than it saves: two
thread wake-ups and a self-pipe write per commit (~75 µs of CPU and, on a busy 2-core machine,
~0.5 ms of latency, where this disk's fsync takes 0.07 ms). The price is that the loop waits
for the disk while it commits, so a slow disk slows every request of the server; a fast one
(SSD, NVMe) is assumed, and PostgreSQL is the backend for more. Reads and WAL checkpoints run
on threads of their own with their own connections.

:class:`SharedStore` is what a backend that several server processes write to adds
(notifications, a server's lease and the games it owns); :func:`open_store` picks the backend
from ``--db``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import json
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, NamedTuple, Protocol, runtime_checkable

from cardcore import codec
from cardcore.log import LogLine

from .errors import bounded
from .sealing import PLAINTEXT, Sealer, SealError

if TYPE_CHECKING:
    from .tables import TableRow

MAX_BATCH: Final = 1024
"""Writes committed together at most (one transaction, one fsync)."""
WRITE_BUSY_TIMEOUT_MS: Final = 200
"""How long a commit waits for another process's write lock (it blocks the event loop; past
this it fails as a :class:`StoreError` and the sequencer retries with backoff)."""
CHECKPOINT_EVERY_S: Final = 0.5
"""How often the checkpoint thread folds the WAL back into the database."""
REJECTIONS_KEPT: Final = 1024
"""Rejected action ids a seat keeps per game: a resent one of these gets its answer
again; an older one, resent, is decided anew (it was never applied, so nothing is applied
twice)."""
REJECTION_DETAIL: Final = 200
"""Characters of a rejection's detail that are kept (and sent, the first time as every time)."""


class StoreError(Exception):
    """The store could not be reached or refused a write for a reason other than
    :class:`Conflict`; a commit that raised it may or may not be durable (catch up to know)."""


class Conflict(Exception):
    """The game moved on since the commit's version (or its owner fence failed): nothing was
    written. Catch up with :meth:`EventStore.tail` and decide again."""


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
    turn_timeout_ms: int = 0
    """A turn-based game's turn timer: a human seat the game waits for that does not act for
    this long forfeits (the host injects ``Resign(by="timer")``); 0: none."""
    idle_timeout_ms: int = 0
    """A real-time game's idle timer: a human seat still in the game with no accepted action
    for this long forfeits; 0: none."""
    abandon_timeout_ms: int = 0
    """No human action at all for this long: the host aborts the game; 0: none."""
    rules_version: str | None = None
    """The rules version the game was started under, when it is an earlier one the game still
    replays (a game served across an upgrade); None: the game's own."""
    request: str | None = None
    """The hash of the CreateGame request, when it carried an idempotency key (a retry must
    ask for the same)."""
    contributions: tuple[tuple[int, str], ...] | None = None
    """Log format 2: the seats' entropy (``(seat, 32 hex digits)``) the deal seed is derived
    from with :attr:`seed`, the server's (docs/rng.md). None: a format-1 game (dealt from
    :attr:`seed` itself), as every game of an earlier server."""

    @property
    def timers(self) -> bool:
        """Whether the host acts in this game by itself on a clock (besides its bots)."""
        return (
            any(v > 0 for v in self.timeouts_ms.values())
            or self.turn_timeout_ms > 0
            or self.idle_timeout_ms > 0
            or self.abandon_timeout_ms > 0
        )

    def public_json(self) -> dict[str, Any]:
        """The record without seed and salt (those live in their own columns)."""
        out: dict[str, Any] = {
            "game": self.game,
            "rules": self.rules,
            "event_limit": self.event_limit,
            "created_ms": self.created_ms,
            "seats": [s.to_json() for s in self.seats],
            "timeouts_ms": self.timeouts_ms,
        }
        for key in ("turn_timeout_ms", "idle_timeout_ms", "abandon_timeout_ms"):
            if getattr(self, key):  # written only when set: records of earlier servers match
                out[key] = getattr(self, key)
        if self.rules_version is not None:
            out["rules_version"] = self.rules_version
        if self.contributions is not None:
            out["contributions"] = [[seat, hex_] for seat, hex_ in self.contributions]
        if self.request is not None:
            out["request"] = self.request
        return out

    @classmethod
    def from_json(cls, game_id: str, rec: dict[str, Any], seed: Any, salt: Any) -> GameRecord:
        """The record :meth:`public_json` wrote, with its seed and salt columns."""
        return cls(
            game_id=game_id,
            game=rec["game"],
            rules=rec["rules"],
            event_limit=int(rec["event_limit"]),
            seed=int(seed),
            salt=bytes(salt),
            created_ms=int(rec["created_ms"]),
            seats=tuple(SeatSpec.from_json(s) for s in rec["seats"]),
            timeouts_ms={str(k): int(v) for k, v in rec["timeouts_ms"].items()},
            turn_timeout_ms=int(rec.get("turn_timeout_ms", 0)),
            idle_timeout_ms=int(rec.get("idle_timeout_ms", 0)),
            abandon_timeout_ms=int(rec.get("abandon_timeout_ms", 0)),
            rules_version=rec.get("rules_version"),
            request=rec.get("request"),
            contributions=(
                tuple((int(seat), str(h)) for seat, h in rec["contributions"])
                if "contributions" in rec
                else None
            ),
        )


@dataclass(frozen=True, slots=True)
class StoredRejection:
    """A rejected action that carried an ``action_id``: replayed as the same rejection."""

    seat: int
    action_id: str
    command: str
    """:func:`command_digest` of the command's canonical JSON, to tell a retry from a reused
    id (a row of a store before schema 5 may hold the JSON itself: :meth:`is_for`)."""
    code: str
    detail: str

    def is_for(self, command_text: str) -> bool:
        """Whether ``command_text`` (canonical JSON) is the command this rejection answered."""
        return self.command in (command_digest(command_text), command_text)


def command_digest(command_text: str) -> str:
    """What a store keeps of a rejected command: SHA-256 of its canonical JSON, in hex."""
    return hashlib.sha256(command_text.encode()).hexdigest()


@dataclass(slots=True)
class StoredGame:
    """A game as the store holds it: record, log lines, idempotency keys and version."""

    record: GameRecord
    lines: list[LogLine]
    """Header, one line per entry in ``seq`` order, then the end line if the game is over."""
    action_ids: dict[tuple[int, str], int] = field(default_factory=dict)
    """``(seat, action_id) -> seq`` of accepted actions."""
    rejections: dict[tuple[int, str], StoredRejection] = field(default_factory=dict)
    version: int = 0
    """The game's version (commits that wrote to it) in the same snapshot as the rows."""
    owner: str | None = None
    """The server that owns the game's timers and bots (a shared store), if any."""


@dataclass(frozen=True, slots=True)
class Commit:
    """One sequencing round of one game, to be written only on the state it was decided on.

    A commit with neither entries nor rejections writes nothing: it only confirms that the game
    is still at ``version`` (a rejection that is not stored was decided on the latest state)."""

    game_id: str
    version: int
    """The version the round was decided on; the store's must still be this."""
    entries: tuple[tuple[LogLine, str | None], ...] = ()
    """``(line, action_id)`` in ``seq`` order, chained to each other and to the stored head."""
    end: LogLine | None = None
    """The end line, when the last entry ended the game."""
    rejections: tuple[StoredRejection, ...] = ()
    owner: str | None = None
    """Write only while this server owns the game (timed actions and bots: a fence, so a
    server that lost its lease never acts for the game again)."""
    texts: tuple[str, ...] = ()
    """The entries' canonical JSON (``codec.canonical_text(line)``) in the same order, when the
    sequencer has it already (its log writer made it while hashing the line); else empty."""
    forget: tuple[tuple[int, str], ...] = ()
    """``(seat, action_id)`` of stored rejections to remove (a seat past
    :data:`REJECTIONS_KEPT`), in the same transaction."""

    @property
    def writes(self) -> bool:
        return bool(self.entries or self.rejections or self.forget)

    def entry_texts(self) -> Sequence[str]:
        """The text stored for each entry: :attr:`texts`, or made now."""
        if self.texts:
            return self.texts
        return [codec.canonical_text(e) for e, _ in self.entries]


class HeadMove(NamedTuple):
    """What a writing commit checks the stored head against (its first entry's ``seq``, ``prev``
    and ``at_ms``) and moves it to (its last entry's); all ``None`` for a commit of rejections
    only. ``end`` is the end line's canonical JSON, if any."""

    first_seq: int | None
    first_prev: str | None
    first_at_ms: int | None
    last_seq: int | None
    last_hash: str | None
    last_at_ms: int | None
    end: str | None


def head_move(commit: Commit) -> HeadMove:
    """The commit's :class:`HeadMove`, once the links the store checks in memory hold (the link
    to the stored head is checked against the database in the same statement as the write):
    consecutive ``seq``, each ``prev`` the hash before, ``at_ms`` never going backwards, the end
    after the last. Raises :class:`StoreError` otherwise."""
    entries = commit.entries
    for (a, _), (b, _) in itertools.pairwise(entries):
        if b["seq"] != a["seq"] + 1 or b["prev"] != a["hash"] or b["at_ms"] < a["at_ms"]:
            raise StoreError(f"game {commit.game_id}: entry {b['seq']} does not follow {a['seq']}")
    if commit.end is not None:
        if not entries or commit.end["prev"] != entries[-1][0]["hash"]:
            raise StoreError(f"game {commit.game_id}: the end line does not follow the last entry")
    end = codec.canonical_text(commit.end) if commit.end is not None else None
    if not entries:
        return HeadMove(None, None, None, None, None, None, end)
    first, last = entries[0][0], entries[-1][0]
    return HeadMove(
        first["seq"], first["prev"], first["at_ms"], last["seq"], last["hash"], last["at_ms"], end
    )


class EventStore(Protocol):
    """What the application layer needs from a backend."""

    on_commit: Callable[[int, float], None] | None
    """Told ``(writes, seconds)`` of every transaction committed (metrics)."""
    sealer: Sealer
    """Seals the seeds and salts it writes and opens those it reads (:mod:`.sealing`)."""

    async def open(self) -> None: ...

    async def close(self) -> None: ...

    def create(
        self, record: GameRecord, header: LogLine, deal: LogLine, tokens: Sequence[tuple[str, str]]
    ) -> Awaitable[None]:
        """Enqueue a new game (version 0) with its deal entry (``seq`` 0) and token hashes
        ``(sha256 hex, viewer)``; the awaitable completes when durable."""
        ...

    async def commit(self, commit: Commit) -> int:
        """Write ``commit`` if the game is still at ``commit.version`` and its first entry links
        to the stored head; returns the game's version afterwards (one more when it wrote).
        Raises :class:`Conflict` (nothing written) or :class:`StoreError` (unknown: catch up)."""
        ...

    async def tail(self, game_id: str, from_seq: int, from_version: int) -> Tail:
        """What a game has beyond ``from_seq`` / ``from_version``, in one snapshot."""
        ...

    async def tokens(self) -> dict[str, tuple[str, str]]:
        """Every token hash → ``(game_id, viewer)``."""
        ...

    async def unfinished(self) -> list[str]:
        """The ids of games without an end line."""
        ...

    async def load(self, game_id: str) -> StoredGame | None: ...

    # ---- tables (the lobby: :mod:`.tables`) and retention

    def create_table(
        self,
        table: TableRow,
        invites: Sequence[tuple[str, int]],
        tokens: Sequence[tuple[str, str]],
    ) -> Awaitable[None]:
        """Enqueue a new table with its invites ``(sha256 hex, seat)`` and token hashes."""
        ...

    def update_table(
        self,
        table: TableRow,
        tokens: Sequence[tuple[str, str]] = (),
        start: tuple[LogLine, LogLine] | None = None,
    ) -> Awaitable[None]:
        """Write ``table`` (at ``version`` + 1 of the stored row) and add ``tokens``, only if
        the stored row is still at ``table.version - 1`` (else :class:`Conflict`, nothing
        written). ``start``: the game's header and deal, stored in the same transaction under
        ``table.record`` (the table has started)."""
        ...

    async def load_table(self, game_id: str) -> TableRow | None: ...

    async def ping(self) -> None:
        """Raise :class:`StoreError` unless the store answers a read now (readiness)."""
        ...

    async def server_key(self, new: bytes) -> bytes:
        """The key the server signs logs with (:mod:`.signing`): the one stored with the games,
        or ``new``, stored first when there is none (several servers starting at once on one
        database all end up with the same key)."""
        ...

    async def find_invite(self, invite_hash: str) -> tuple[str, int] | None:
        """``(game_id, seat)`` of an invite code's hash."""
        ...

    async def list_tables(
        self, game: str | None, before: tuple[int, str] | None, limit: int
    ) -> list[TableRow]:
        """Public tables still waiting, newest first (``created_ms``, then ``game_id``, both
        descending), strictly after ``before`` in that order."""
        ...

    async def waiting_tables(self) -> list[TableRow]:
        """Every table still waiting (their deadlines are armed on start-up)."""
        ...

    async def games_idle_since(self, cutoff_ms: int, *, finished: bool) -> list[str]:
        """Games (finished, or not) whose last entry is older than ``cutoff_ms`` (wall clock),
        and tables cancelled before it (``finished``)."""
        ...

    async def delete_game(self, game_id: str) -> None:
        """Remove a game, its table, invites and tokens (retention, after archiving)."""
        ...


@dataclass(frozen=True, slots=True)
class Tail:
    """A game's rows beyond some ``seq`` and version, as other processes may have written them."""

    version: int
    """The game's version in the same snapshot."""
    entries: list[tuple[int, LogLine, str | None]]
    """``(seq, line, action_id)`` in ``seq`` order."""
    end: LogLine | None
    """The end line, when the game is over."""
    rejections: list[StoredRejection]
    """Rejections stored after the version asked for."""
    owner: str | None = None


@runtime_checkable
class SharedStore(EventStore, Protocol):
    """A store other server processes write to as well: hints, and one owner per game for its
    timers and bots under a lease that expires when its server stops renewing it."""

    server_id: str
    """This process's name in leases, ownership and notifications."""

    def watch(self, on_change: Callable[[str | None, int | None], None]) -> None:
        """Call ``on_change(game_id, version)`` when a game may have rows this process has not
        seen (``None``: any game may have; e.g. after the notification channel was re-opened).
        A hint only: the caller re-reads with :meth:`tail`."""
        ...

    async def find_token(self, token_hash: str) -> tuple[str, str] | None:
        """``(game_id, viewer)`` of a token hash (tokens of games created elsewhere)."""
        ...

    async def renew_lease(self) -> set[str]:
        """Extend this server's lease; returns the unfinished games it owns."""
        ...

    async def claim_orphans(self, limit: int) -> list[tuple[str, str | None]]:
        """Take over up to ``limit`` unfinished games with timers or bots whose owner's lease
        has expired: ``(game_id, previous owner)`` each."""
        ...

    async def release(self) -> None:
        """Give up this server's lease and games (a graceful stop: others take over at once)."""
        ...

    def set_presence(self, game_id: str, seats: frozenset[int]) -> None:
        """Publish, soon and in order, that ``seats`` of ``game_id`` hold an event stream on this
        server now (empty: none does)."""
        ...

    async def present_seats(self, game_ids: Sequence[str]) -> dict[str, set[int]]:
        """The seats of each of ``game_ids`` holding an event stream on any server with a live
        lease, as published (this server's own latest changes may not be there yet); games with
        none are left out."""
        ...


def open_store(db: str) -> EventStore:
    """The backend for ``--db``: ``postgresql://…`` (or ``postgres://…``) selects PostgreSQL
    (needs the ``postgres`` extra: ``cardcore-server[postgres]``); ``sqlite:PATH`` or a plain path
    selects SQLite."""
    if db.startswith(("postgresql://", "postgres://")):
        try:
            from .store_postgres import PostgresStore
        except ImportError:
            raise ValueError(
                "a postgresql:// database needs psycopg, the service's postgres extra: from a "
                "clone, pip install './services[postgres]'"
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

_CAS: Final = (
    "UPDATE games SET version = version + 1, head_seq = coalesce(?, head_seq),"
    " head_hash = coalesce(?, head_hash), head_at_ms = coalesce(?, head_at_ms),"
    " end_line = coalesce(?, end_line)"
    " WHERE game_id = ? AND version = ? AND (? IS NULL OR (head_seq = ? - 1 AND head_hash = ?"
    " AND head_at_ms <= ? AND end_line IS NULL))"
)

_Write = Callable[[sqlite3.Connection], Any]


@dataclass(slots=True)
class _Job:
    write: _Write
    future: asyncio.Future[Any]


def _text(line: LogLine) -> str:
    return codec.canonical_text(line)


def _connect(path: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA busy_timeout=10000")
    return conn


SCHEMA_VERSION: Final = 5
"""The store's schema, as ``PRAGMA user_version`` records it: 1, the first service's tables
(games, entries, rejections, tokens); 2, the compare-and-set heads; 3, the lobby's tables and
invites, and the server's key; 4, PostgreSQL's ``presence`` (who streams from which server: a
SQLite store has one server, which knows that in memory, so nothing changes there); 5, a
rejection keeps its command's digest, not the command, a bounded detail, and a seat its last
:data:`REJECTIONS_KEPT` (the rows of earlier servers are brought to that: a server before 5
would take a digest for another command, so it must not serve a store of 5). A store of an
earlier version is brought forward at start (each step idempotent, so a store written before
versions were recorded upgrades too); a store of a later version is refused."""

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


def _migrate(conn: sqlite3.Connection) -> None:
    """Bring the store to :data:`SCHEMA_VERSION` (nothing to do when it is there already)."""
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


_GAME_TABLES: Final = ("entries", "rejections", "tokens", "invites", "tables", "games")
"""Every table holding rows of a game (what retention deletes)."""

_TABLE_SELECT: Final = (
    "SELECT game_id, status, version, created_ms, public, record, seed, salt, state FROM tables"
)


def _table(row: Sequence[Any], sealer: Sealer = PLAINTEXT) -> TableRow:
    """A :class:`~.tables.TableRow` from the columns of :data:`_TABLE_SELECT`."""
    from .tables import table_row

    game_id, status, version, created_ms, public, rec, seed, salt, state = row
    seed, salt = _open(sealer, str(game_id), seed, salt)
    record = GameRecord.from_json(str(game_id), json.loads(rec), seed, salt)
    return table_row(record, (status, version, created_ms, public, state))


def _open(sealer: Sealer, game_id: str, seed: Any, salt: Any) -> tuple[int, bytes]:
    """A game's seed and salt as stored, opened (:mod:`.sealing`)."""
    try:
        return sealer.open_seed(game_id, seed), sealer.open_salt(game_id, salt)
    except SealError as exc:
        raise StoreError(str(exc)) from None


def table_columns(table: TableRow, sealer: Sealer) -> tuple[Any, ...]:
    """A new table's row, in the column order of ``tables`` (both backends)."""
    rec = table.record
    return (
        rec.game_id,
        rec.game,
        table.status.value,
        table.version,
        table.created_ms,
        table.public,
        json.dumps(rec.public_json(), sort_keys=True),
        sealer.seed(rec.game_id, rec.seed),
        sealer.salt(rec.game_id, rec.salt),
        table.state_json(),
    )


def table_update(table: TableRow) -> tuple[Any, ...]:
    """The parameters of a table's compare-and-set: the new ``status, version, record,
    state``, then the game and the version the stored row must still be at."""
    return (
        table.status.value,
        table.version,
        json.dumps(table.record.public_json(), sort_keys=True),
        table.state_json(),
        table.record.game_id,
        table.version - 1,
    )


def _insert_game(
    record: GameRecord,
    header: LogLine,
    deal: LogLine,
    tokens: Sequence[tuple[str, str]],
    sealer: Sealer = PLAINTEXT,
) -> Callable[[sqlite3.Connection], None]:
    """The statements that store a new game (its row, its deal entry, its tokens)."""
    rec = json.dumps(record.public_json(), sort_keys=True)
    head, deal_text = _text(header), _text(deal)
    rows = [(h, record.game_id, v) for h, v in tokens]

    def write(c: sqlite3.Connection) -> None:
        c.execute(
            "INSERT INTO games(game_id, record, header, seed, salt, version, head_seq,"
            " head_hash, head_at_ms) VALUES (?,?,?,?,?,0,0,?,?)",
            (
                record.game_id,
                rec,
                head,
                sealer.seed(record.game_id, record.seed),
                sealer.salt(record.game_id, record.salt),
                deal["hash"],
                deal["at_ms"],
            ),
        )
        c.execute(
            "INSERT INTO entries(game_id, seq, seat, action_id, line) VALUES (?,0,NULL,NULL,?)",
            (record.game_id, deal_text),
        )
        c.executemany("INSERT INTO tokens(token_hash, game_id, viewer) VALUES (?,?,?)", rows)

    return write


class _ConflictResult:
    """A job's result meaning :class:`Conflict` (set on the loop, not raised in the thread)."""


class SqliteStore:
    """The embedded default backend (stdlib ``sqlite3``): WAL, synchronous=FULL, group commit.

    One server process per database file: the compare-and-set commit keeps the log right even
    so, but this backend sends no hints to other processes."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None
        self._pending: list[_Job] = []
        self._flush_scheduled = False
        self._checkpointer: threading.Thread | None = None
        self._stop_checkpoints = threading.Event()
        self._reader = ThreadPoolExecutor(1, thread_name_prefix="cardcore-store-read")
        self._read_conn: sqlite3.Connection | None = None
        self.commits = 0
        """Transactions committed (for the group-commit benchmark)."""
        self.writes = 0
        self.on_commit: Callable[[int, float], None] | None = None
        self.sealer: Sealer = PLAINTEXT
        """Seals seeds and salts at rest (:mod:`.sealing`; the application sets it)."""

    # ------------------------------------------------------------------ lifecycle

    async def open(self) -> None:
        conn = _connect(self.path)
        _migrate(conn)
        # Checkpoints run on their own thread, so no commit waits for one (p99 latency).
        conn.execute("PRAGMA wal_autocheckpoint=0")
        conn.execute(f"PRAGMA busy_timeout={WRITE_BUSY_TIMEOUT_MS}")
        self._conn = conn
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
        """Commit everything asked for, then stop the threads."""
        if self._conn is not None:
            self._flush()
            self._conn.close()
            self._conn = None
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

    def _enqueue(self, write: _Write) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Any] = loop.create_future()
        if self._conn is None:
            fut.set_exception(StoreError("the store is closed"))
            return fut
        self._pending.append(_Job(write, fut))
        if not self._flush_scheduled:
            self._flush_scheduled = True
            loop.call_soon(self._flush)
        return fut

    def _flush(self) -> None:
        """Commit what this turn of the loop asked for (see the module docstring)."""
        self._flush_scheduled = False
        conn = self._conn
        while self._pending:
            batch, self._pending = self._pending[:MAX_BATCH], self._pending[MAX_BATCH:]
            if conn is None:
                _settle(batch, [StoreError("the store is closed")] * len(batch))
                continue
            _settle(batch, self._commit(conn, batch))

    def create(
        self, record: GameRecord, header: LogLine, deal: LogLine, tokens: Sequence[tuple[str, str]]
    ) -> Awaitable[None]:
        return self._enqueue(_insert_game(record, header, deal, tokens, self.sealer))

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

        def write(c: sqlite3.Connection) -> None:
            c.execute("INSERT INTO tables VALUES (?,?,?,?,?,?,?,?,?,?)", row)
            c.executemany("INSERT INTO invites VALUES (?,?,?)", invite_rows)
            c.executemany("INSERT INTO tokens VALUES (?,?,?)", token_rows)

        return self._enqueue(write)

    def update_table(
        self,
        table: TableRow,
        tokens: Sequence[tuple[str, str]] = (),
        start: tuple[LogLine, LogLine] | None = None,
    ) -> Awaitable[None]:
        rec = table.record
        cas = table_update(table)
        token_rows = [(h, rec.game_id, v) for h, v in tokens]
        insert = (
            _insert_game(rec, start[0], start[1], (), self.sealer) if start is not None else None
        )

        def write(c: sqlite3.Connection) -> Any:
            if (
                c.execute(
                    "UPDATE tables SET status=?, version=?, record=?, state=?"
                    " WHERE game_id=? AND version=?",
                    cas,
                ).rowcount
                != 1
            ):
                return _ConflictResult
            c.executemany("INSERT INTO tokens VALUES (?,?,?)", token_rows)
            if insert is not None:
                insert(c)
            return None

        async def run() -> None:
            if await self._enqueue(write) is _ConflictResult:
                raise Conflict(rec.game_id)

        return asyncio.ensure_future(run())

    async def ping(self) -> None:
        try:
            await self._read(lambda c: c.execute("SELECT 1").fetchone())
        except sqlite3.Error as exc:
            raise StoreError(f"store unreadable: {type(exc).__name__}") from None

    async def server_key(self, new: bytes) -> bytes:
        await self._enqueue(
            lambda c: c.execute(
                "INSERT OR IGNORE INTO server_key(id, private_key) VALUES (1, ?)", (new,)
            )
        )
        row = await self._read(
            lambda c: c.execute("SELECT private_key FROM server_key WHERE id = 1").fetchone()
        )
        return bytes(row[0])

    async def load_table(self, game_id: str) -> TableRow | None:
        rows = await self._read(
            lambda c: c.execute(_TABLE_SELECT + " WHERE game_id=?", (game_id,)).fetchall()
        )
        return _table(rows[0], self.sealer) if rows else None

    async def find_invite(self, invite_hash: str) -> tuple[str, int] | None:
        row = await self._read(
            lambda c: c.execute(
                "SELECT game_id, seat FROM invites WHERE invite_hash=?", (invite_hash,)
            ).fetchone()
        )
        return None if row is None else (str(row[0]), int(row[1]))

    async def list_tables(
        self, game: str | None, before: tuple[int, str] | None, limit: int
    ) -> list[TableRow]:
        sql = _TABLE_SELECT + " WHERE status='waiting' AND public=1"
        params: list[Any] = []
        if game is not None:
            sql += " AND game=?"
            params.append(game)
        if before is not None:
            sql += " AND (created_ms < ? OR (created_ms = ? AND game_id < ?))"
            params += [before[0], before[0], before[1]]
        sql += " ORDER BY created_ms DESC, game_id DESC LIMIT ?"
        params.append(limit)
        rows = await self._read(lambda c: c.execute(sql, params).fetchall())
        return [_table(r, self.sealer) for r in rows]

    async def waiting_tables(self) -> list[TableRow]:
        rows = await self._read(
            lambda c: c.execute(_TABLE_SELECT + " WHERE status='waiting'").fetchall()
        )
        return [_table(r, self.sealer) for r in rows]

    async def games_idle_since(self, cutoff_ms: int, *, finished: bool) -> list[str]:
        ended = "IS NOT NULL" if finished else "IS NULL"
        sql = (
            "SELECT game_id FROM games WHERE end_line " + ended + " AND"
            " json_extract(record, '$.created_ms') + head_at_ms < ?"
        )
        if finished:
            sql += " UNION SELECT game_id FROM tables WHERE status='cancelled' AND created_ms < ?"
        params = (cutoff_ms, cutoff_ms) if finished else (cutoff_ms,)
        rows = await self._read(lambda c: c.execute(sql, params).fetchall())
        return [str(r[0]) for r in rows]

    async def delete_game(self, game_id: str) -> None:
        def write(c: sqlite3.Connection) -> None:
            for table in _GAME_TABLES:
                c.execute(f"DELETE FROM {table} WHERE game_id=?", (game_id,))

        await self._enqueue(write)

    async def commit(self, commit: Commit) -> int:
        gid = commit.game_id
        if not commit.writes:
            row = await self._read(
                lambda c: c.execute("SELECT version FROM games WHERE game_id=?", (gid,)).fetchone()
            )
            if row is None or int(row[0]) != commit.version:
                raise Conflict(gid)
            return commit.version
        h = head_move(commit)
        # in the order of _CAS's placeholders: the new head, the game, the head it must be at
        cas = (
            *(h.last_seq, h.last_hash, h.last_at_ms, h.end, gid, commit.version),
            *(h.first_seq, h.first_seq, h.first_prev, h.first_at_ms),
        )
        entry_rows = [
            (gid, e["seq"], e["seat"], aid, text)
            for (e, aid), text in zip(commit.entries, commit.entry_texts(), strict=True)
        ]
        version = commit.version + 1
        rej_rows = [
            (gid, r.seat, r.action_id, r.command, r.code, r.detail, version)
            for r in commit.rejections
        ]
        forget_rows = [(gid, seat, aid) for seat, aid in commit.forget]

        def write(c: sqlite3.Connection) -> Any:
            if c.execute(_CAS, cas).rowcount != 1:
                return _ConflictResult
            c.executemany(
                "INSERT INTO entries(game_id, seq, seat, action_id, line) VALUES (?,?,?,?,?)",
                entry_rows,
            )
            if forget_rows:
                c.executemany(
                    "DELETE FROM rejections WHERE game_id=? AND seat=? AND action_id=?",
                    forget_rows,
                )
            if rej_rows:
                c.executemany(
                    "INSERT INTO rejections(game_id, seat, action_id, command, code, detail,"
                    " version) VALUES (?,?,?,?,?,?,?)",
                    rej_rows,
                )
            return version

        result = await self._enqueue(write)
        if result is _ConflictResult:
            raise Conflict(gid)
        return int(result)

    def _commit(self, conn: sqlite3.Connection, batch: list[_Job]) -> list[Any]:
        """One transaction for the batch; if it fails, each job alone (to isolate the bad one).
        A job that finds a conflict wrote nothing (its first statement matched no row)."""
        try:
            began = time.perf_counter()
            conn.execute("BEGIN IMMEDIATE")
            results = [job.write(conn) for job in batch]
            conn.execute("COMMIT")
            self.commits += 1
            self.writes += len(batch)
            if self.on_commit is not None:
                self.on_commit(len(batch), time.perf_counter() - began)
            return results
        except sqlite3.Error:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        results = []
        for job in batch:
            try:
                conn.execute("BEGIN IMMEDIATE")
                result = job.write(conn)
                conn.execute("COMMIT")
                self.commits += 1
                self.writes += 1
                results.append(result)
            except sqlite3.Error as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                results.append(StoreError(f"write failed: {type(exc).__name__}"))
        return results

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

    async def _snapshot(self, *queries: tuple[str, tuple[Any, ...]]) -> list[list[Any]]:
        """The rows of each query, all read in one transaction (one snapshot)."""

        def fetch(c: sqlite3.Connection) -> list[list[Any]]:
            c.execute("BEGIN")
            try:
                return [c.execute(sql, params).fetchall() for sql, params in queries]
            finally:
                c.execute("COMMIT")

        result: list[list[Any]] = await self._read(fetch)
        return result

    async def load(self, game_id: str) -> StoredGame | None:
        game, entries, rejections = await self._snapshot(
            (
                "SELECT record, header, seed, salt, end_line, version FROM games WHERE game_id=?",
                (game_id,),
            ),
            (
                "SELECT seq, seat, action_id, line FROM entries WHERE game_id=? ORDER BY seq",
                (game_id,),
            ),
            (
                "SELECT seat, action_id, command, code, detail FROM rejections WHERE game_id=?"
                " ORDER BY version",
                (game_id,),
            ),
        )
        return stored_game(game_id, game[0] if game else None, entries, rejections, self.sealer)

    async def tail(self, game_id: str, from_seq: int, from_version: int) -> Tail:
        game, entries, rejections = await self._snapshot(
            ("SELECT version, end_line FROM games WHERE game_id=?", (game_id,)),
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


def make_tail(
    game_id: str,
    game: Sequence[Any] | None,
    entries: Sequence[Sequence[Any]],
    rejections: Sequence[Sequence[Any]],
) -> Tail:
    """A :class:`Tail` from the rows of ``games`` (``version, end_line[, owner]``), ``entries``
    (``seq, action_id, line``) and ``rejections`` (``seat, action_id, command, code, detail``)."""
    if game is None:
        raise StoreError(f"game {game_id} is not in the store")
    end = json.loads(game[1]) if game[1] is not None else None
    return Tail(
        version=int(game[0]),
        entries=[(int(seq), json.loads(line), aid) for seq, aid, line in entries],
        end=end,
        rejections=[_rejection(row) for row in rejections],
        owner=str(game[2]) if len(game) > 2 and game[2] is not None else None,
    )


def stored_game(
    game_id: str,
    game: Sequence[Any] | None,
    entries: Sequence[Sequence[Any]],
    rejections: Sequence[Sequence[Any]],
    sealer: Sealer = PLAINTEXT,
) -> StoredGame | None:
    """A :class:`StoredGame` from the rows of ``games`` (``record, header, seed, salt,
    end_line, version[, owner]``), ``entries`` (``seq, seat, action_id, line`` in ``seq``
    order) and ``rejections`` (``seat, action_id, command, code, detail``, oldest first); every
    backend reads these."""
    if game is None:
        return None
    rec_text, header, seed, salt, end_line, version = game[:6]
    seed, salt = _open(sealer, game_id, seed, salt)
    owner = game[6] if len(game) > 6 else None
    record = GameRecord.from_json(game_id, json.loads(rec_text), seed, salt)
    lines: list[LogLine] = [json.loads(header)]
    stored = StoredGame(
        record, lines, version=int(version), owner=str(owner) if owner is not None else None
    )
    for seq, seat, action_id, line in entries:
        if seq != len(lines) - 1:
            raise StoreError(f"game {game_id}: entry {len(lines) - 1} is missing")
        lines.append(json.loads(line))
        if action_id is not None:
            stored.action_ids[(int(seat), str(action_id))] = int(seq)
    if end_line is not None:
        lines.append(json.loads(end_line))
    for row in rejections:
        rej = _rejection(row)
        stored.rejections[(rej.seat, rej.action_id)] = rej
    return stored


def _rejection(row: Sequence[Any]) -> StoredRejection:
    """A :class:`StoredRejection` from a row ``seat, action_id, command, code, detail``."""
    seat, action_id, command, code, detail = row
    return StoredRejection(int(seat), str(action_id), str(command), str(code), str(detail))


def _settle(batch: list[_Job], results: list[Any]) -> None:
    for job, result in zip(batch, results, strict=True):
        if job.future.done():
            continue
        if isinstance(result, BaseException):
            job.future.set_exception(result)
        else:
            job.future.set_result(result)
