"""What both backends' tables hold, written once: the schema's version, the SQL they share (in
``?`` placeholders; :func:`pyformat` gives PostgreSQL's), and the conversions between records and
rows, in both directions.

The tables are the same in both backends (PostgreSQL adds leases, owners and presence): ``games``
(a game's record, header, sealed seed and salt, end line, version and head), ``entries`` (one row
per accepted action, primary key ``(game_id, seq)``), ``rejections`` (actions that carried an
``action_id``: :mod:`.records`), ``tokens`` (hashes only, never a token), ``tables`` and
``invites`` (the lobby) and ``server_key``.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from typing import Any, Final, NamedTuple

from cardcore import codec
from cardcore.log import LogLine

from ..sealing import Sealer, SealError
from .interface import StoreError
from .records import Commit, GameRecord, StoredGame, StoredRejection, TableRow, Tail

SCHEMA_VERSION: Final = 5
"""The store's schema, as ``PRAGMA user_version`` (SQLite) or the ``schema_version`` row
(PostgreSQL) records it: 1, the first service's tables (games, entries, rejections, tokens); 2,
the compare-and-set heads; 3, the lobby's tables and invites, and the server's key; 4,
PostgreSQL's ``presence`` (who streams from which server: a SQLite store has one server, which
knows that in memory, so nothing changes there); 5, a rejection keeps its command's digest, not
the command, a bounded detail, and a seat its last :data:`~.records.REJECTIONS_KEPT` (the rows of
earlier servers are brought to that: a server before 5 would take a digest for another command,
so it must not serve a store of 5). A store of an earlier version is brought forward at start
(each step idempotent, so a store written before versions were recorded upgrades too); a store
of a later version is refused."""

GAME_TABLES: Final = ("entries", "rejections", "tokens", "invites", "tables", "games")
"""Every table holding rows of a game (what retention deletes)."""

# ---------------------------------------------------------------------- shared SQL

INSERT_DEAL: Final = (
    "INSERT INTO entries(game_id, seq, seat, action_id, line) VALUES (?, 0, NULL, NULL, ?)"
)
INSERT_TOKEN: Final = "INSERT INTO tokens(token_hash, game_id, viewer) VALUES (?, ?, ?)"
INSERT_TABLE: Final = "INSERT INTO tables VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
INSERT_INVITE: Final = "INSERT INTO invites VALUES (?, ?, ?)"
UPDATE_TABLE: Final = (
    "UPDATE tables SET status = ?, version = ?, record = ?, state = ?"
    " WHERE game_id = ? AND version = ?"
)
"""A table's compare-and-set (parameters: :func:`table_update`): it matches no row when the
stored row moved on."""

SELECT_GAME: Final = (
    "SELECT record, header, seed, salt, end_line, version, {owner} FROM games WHERE game_id = ?"
)
"""A game's row as :func:`stored_game` reads it (``{owner}``: the column, or ``NULL`` where a
backend has no owners)."""
SELECT_ENTRIES: Final = (
    "SELECT seq, seat, action_id, line FROM entries WHERE game_id = ? ORDER BY seq"
)
SELECT_REJECTIONS: Final = (
    "SELECT seat, action_id, command, code, detail FROM rejections WHERE game_id = ?"
    " ORDER BY version"
)
SELECT_TABLE: Final = (
    "SELECT game_id, status, version, created_ms, public, record, seed, salt, state FROM tables"
)
"""The columns :func:`table_from_row` reads."""


def pyformat(sql: str) -> str:
    """The shared SQL in psycopg's placeholders (none of it holds a ``?`` or ``%`` otherwise)."""
    return sql.replace("?", "%s")


# ---------------------------------------------------------------------- records to rows


class NewGame(NamedTuple):
    """The rows that store a new game: ``games`` (``game_id, record, header, seed, salt,
    head_hash, head_at_ms``; a backend may add columns of its own), its deal entry
    (:data:`INSERT_DEAL`) and its tokens (:data:`INSERT_TOKEN`)."""

    game: tuple[Any, ...]
    deal: tuple[str, str]
    tokens: list[tuple[str, str, str]]


def new_game(
    record: GameRecord,
    header: LogLine,
    deal: LogLine,
    tokens: Sequence[tuple[str, str]],
    sealer: Sealer,
) -> NewGame:
    """A new game's rows (version 0, its head the deal), the seed and salt sealed."""
    gid = record.game_id
    game = (
        gid,
        json.dumps(record.public_json(), sort_keys=True),
        codec.canonical_text(header),
        sealer.seed(gid, record.seed),
        sealer.salt(gid, record.salt),
        deal["hash"],
        deal["at_ms"],
    )
    return NewGame(game, (gid, codec.canonical_text(deal)), token_rows(gid, tokens))


def token_rows(game_id: str, tokens: Sequence[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """Rows of :data:`INSERT_TOKEN` from ``(sha256 hex, viewer)`` pairs."""
    return [(h, game_id, viewer) for h, viewer in tokens]


def table_columns(table: TableRow, sealer: Sealer) -> tuple[Any, ...]:
    """A new table's row, in the column order of ``tables`` (:data:`INSERT_TABLE`)."""
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


def invite_rows(game_id: str, invites: Sequence[tuple[str, int]]) -> list[tuple[str, str, int]]:
    """Rows of :data:`INSERT_INVITE` from ``(sha256 hex, seat)`` pairs."""
    return [(h, game_id, seat) for h, seat in invites]


def table_update(table: TableRow) -> tuple[Any, ...]:
    """The parameters of :data:`UPDATE_TABLE`: the new ``status, version, record, state``, then
    the game and the version the stored row must still be at."""
    return (
        table.status.value,
        table.version,
        json.dumps(table.record.public_json(), sort_keys=True),
        table.state_json(),
        table.record.game_id,
        table.version - 1,
    )


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
    after the last. Raises :class:`~.interface.StoreError` otherwise."""
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


class CommitRows(NamedTuple):
    """A writing commit's rows (without the game's id, which each backend adds its own way):
    ``entries`` (``seq, seat, action_id, line``), ``rejections`` (``seat, action_id, command,
    code, detail``) and ``forget`` (``seat, action_id`` of rejections to remove)."""

    entries: list[tuple[int, int | None, str | None, str]]
    rejections: list[tuple[int, str, str, str, str]]
    forget: list[tuple[int, str]]


def commit_rows(commit: Commit) -> CommitRows:
    entries = [
        (e["seq"], e["seat"], aid, text)
        for (e, aid), text in zip(commit.entries, commit.entry_texts(), strict=True)
    ]
    rejections = [(r.seat, r.action_id, r.command, r.code, r.detail) for r in commit.rejections]
    return CommitRows(entries, rejections, list(commit.forget))


# ---------------------------------------------------------------------- rows to records


def open_secrets(sealer: Sealer, game_id: str, seed: Any, salt: Any) -> tuple[int, bytes]:
    """A game's seed and salt as stored, opened (:mod:`..sealing`)."""
    try:
        return sealer.open_seed(game_id, seed), sealer.open_salt(game_id, salt)
    except SealError as exc:
        raise StoreError(str(exc)) from None


def table_from_row(row: Sequence[Any], sealer: Sealer) -> TableRow:
    """A :class:`~.records.TableRow` from the columns of :data:`SELECT_TABLE`."""
    game_id, status, version, created_ms, public, rec, seed, salt, state = row
    seed, salt = open_secrets(sealer, str(game_id), seed, salt)
    record = GameRecord.from_json(str(game_id), json.loads(rec), seed, salt)
    return TableRow.from_columns(record, (status, version, created_ms, public, state))


def stored_game(
    game_id: str,
    game: Sequence[Any] | None,
    entries: Sequence[Sequence[Any]],
    rejections: Sequence[Sequence[Any]],
    sealer: Sealer,
) -> StoredGame | None:
    """A :class:`~.records.StoredGame` from the rows of :data:`SELECT_GAME`,
    :data:`SELECT_ENTRIES` (in ``seq`` order) and :data:`SELECT_REJECTIONS` (oldest first)."""
    if game is None:
        return None
    rec_text, header, seed, salt, end_line, version, owner = game
    seed, salt = open_secrets(sealer, game_id, seed, salt)
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
        rej = rejection_from_row(row)
        stored.rejections[(rej.seat, rej.action_id)] = rej
    return stored


def make_tail(
    game_id: str,
    game: Sequence[Any] | None,
    entries: Sequence[Sequence[Any]],
    rejections: Sequence[Sequence[Any]],
) -> Tail:
    """A :class:`~.records.Tail` from the rows of ``games`` (``version, end_line, owner``),
    ``entries`` (``seq, action_id, line``) and ``rejections`` (``seat, action_id, command, code,
    detail``)."""
    if game is None:
        raise StoreError(f"game {game_id} is not in the store")
    version, end_line, owner = game
    return Tail(
        version=int(version),
        entries=[(int(seq), json.loads(line), aid) for seq, aid, line in entries],
        end=json.loads(end_line) if end_line is not None else None,
        rejections=[rejection_from_row(row) for row in rejections],
        owner=str(owner) if owner is not None else None,
    )


def rejection_from_row(row: Sequence[Any]) -> StoredRejection:
    """A :class:`~.records.StoredRejection` from a row ``seat, action_id, command, code,
    detail``."""
    seat, action_id, command, code, detail = row
    return StoredRejection(int(seat), str(action_id), str(command), str(code), str(detail))
