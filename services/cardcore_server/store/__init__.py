"""The event store: an interface (:mod:`.interface`), the records it keeps (:mod:`.records`) and
two backends, the embedded default (:mod:`.sqlite`, with its group commit :mod:`.group_commit`)
and PostgreSQL, which several server processes share (:mod:`.postgres`). What both backends' tables
hold and the SQL they share is written once (:mod:`.rows`, :mod:`.reads`).

A store keeps, per game, its record (setup, seed, salt, seat kinds), its log lines (one row per
accepted action, primary key ``(game_id, seq)``), the end line, the rejections of actions that
carried an ``action_id`` (so a retry gets the same answer after a restart) and the hashes of its
tokens (never the tokens); and the lobby's tables and invites. Acknowledged means durable: a
write's awaitable completes once it is committed (SQLite ``synchronous=FULL``, PostgreSQL
``synchronous_commit = on``).

:func:`open_store` picks the backend from ``--db``.
"""

from .interface import Conflict, EventStore, SharedStore, StoreError
from .records import (
    REJECTION_DETAIL,
    REJECTIONS_KEPT,
    Commit,
    GameRecord,
    SeatOpen,
    SeatSpec,
    StoredGame,
    StoredRejection,
    TableRow,
    TableSeat,
    TableStatus,
    Tail,
    command_digest,
)
from .rows import SCHEMA_VERSION
from .sqlite import SqliteStore

__all__ = [
    "REJECTIONS_KEPT",
    "REJECTION_DETAIL",
    "SCHEMA_VERSION",
    "Commit",
    "Conflict",
    "EventStore",
    "GameRecord",
    "SeatOpen",
    "SeatSpec",
    "SharedStore",
    "SqliteStore",
    "StoreError",
    "StoredGame",
    "StoredRejection",
    "TableRow",
    "TableSeat",
    "TableStatus",
    "Tail",
    "command_digest",
    "open_store",
]


def open_store(db: str) -> EventStore:
    """The backend for ``--db``: ``postgresql://…`` (or ``postgres://…``) selects PostgreSQL
    (needs the ``postgres`` extra: ``cardcore-server[postgres]``); ``sqlite:PATH`` or a plain path
    selects SQLite."""
    if db.startswith(("postgresql://", "postgres://")):
        try:
            # Lazily, as psycopg is an optional extra, and importing it costs a SQLite server
            # ~130 ms of start-up it never needs; no module of .postgres imports this one.
            from .postgres import PostgresStore
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
