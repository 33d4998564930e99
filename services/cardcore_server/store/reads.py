"""The reads both backends answer the same way, written once: each backend gives two primitives
(:meth:`SqlReads._rows`, one query; :meth:`SqlReads._snapshot`, several in one snapshot) and
the few words of SQL its dialect spells differently; the queries and the conversion of their rows
(:mod:`.rows`) are shared."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from ..sealing import Sealer
from .records import StoredGame, TableRow
from .rows import (
    SELECT_ENTRIES,
    SELECT_GAME,
    SELECT_REJECTIONS,
    SELECT_TABLE,
    stored_game,
    table_from_row,
)

Row = Sequence[Any]
Query = tuple[str, Sequence[Any]]


class SqlReads:
    """The shared reads of :class:`~.interface.EventStore` (a base of both backends). Queries
    are written with ``?`` placeholders; a backend whose driver wants others converts them in
    its primitives."""

    OWNER: ClassVar[str]
    """The expression of a game's owner in ``games`` (``NULL`` where a backend has none)."""
    RECORD_CREATED_MS: ClassVar[str]
    """The expression of a game's ``created_ms`` inside its JSON ``record`` column."""

    sealer: Sealer

    async def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """Every row of one query."""
        raise NotImplementedError

    async def _snapshot(self, *queries: Query) -> list[list[Row]]:
        """The rows of each query, all read in one snapshot."""
        raise NotImplementedError

    async def tokens(self) -> dict[str, tuple[str, str]]:
        rows = await self._rows("SELECT token_hash, game_id, viewer FROM tokens")
        return {str(h): (str(g), str(v)) for h, g, v in rows}

    async def unfinished(self) -> list[str]:
        rows = await self._rows("SELECT game_id FROM games WHERE end_line IS NULL")
        return [str(r[0]) for r in rows]

    async def load(self, game_id: str) -> StoredGame | None:
        game, entries, rejections = await self._snapshot(
            (SELECT_GAME.format(owner=self.OWNER), (game_id,)),
            (SELECT_ENTRIES, (game_id,)),
            (SELECT_REJECTIONS, (game_id,)),
        )
        return stored_game(game_id, game[0] if game else None, entries, rejections, self.sealer)

    async def load_table(self, game_id: str) -> TableRow | None:
        rows = await self._rows(SELECT_TABLE + " WHERE game_id = ?", (game_id,))
        return table_from_row(rows[0], self.sealer) if rows else None

    async def find_invite(self, invite_hash: str) -> tuple[str, int] | None:
        rows = await self._rows(
            "SELECT game_id, seat FROM invites WHERE invite_hash = ?", (invite_hash,)
        )
        return (str(rows[0][0]), int(rows[0][1])) if rows else None

    async def list_tables(
        self, game: str | None, before: tuple[int, str] | None, limit: int
    ) -> list[TableRow]:
        sql = SELECT_TABLE + " WHERE status = 'waiting' AND public = TRUE"
        params: list[Any] = []
        if game is not None:
            sql += " AND game = ?"
            params.append(game)
        if before is not None:
            sql += " AND (created_ms, game_id) < (?, ?)"
            params += [before[0], before[1]]
        sql += " ORDER BY created_ms DESC, game_id DESC LIMIT ?"
        params.append(limit)
        return [table_from_row(r, self.sealer) for r in await self._rows(sql, params)]

    async def waiting_tables(self) -> list[TableRow]:
        rows = await self._rows(SELECT_TABLE + " WHERE status IN ('waiting', 'revealing')")
        return [table_from_row(r, self.sealer) for r in rows]

    async def games_idle_since(self, cutoff_ms: int, *, finished: bool) -> list[str]:
        ended = "IS NOT NULL" if finished else "IS NULL"
        sql = (
            f"SELECT game_id FROM games WHERE end_line {ended}"
            f" AND {self.RECORD_CREATED_MS} + head_at_ms < ?"
        )
        params = [cutoff_ms]
        if finished:
            sql += " UNION SELECT game_id FROM tables WHERE status = 'cancelled' AND created_ms < ?"
            params.append(cutoff_ms)
        return [str(r[0]) for r in await self._rows(sql, params)]
