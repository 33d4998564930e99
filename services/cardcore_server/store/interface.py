"""The event store's interface: what the application layer needs from a backend
(:class:`EventStore`), what a backend several server processes share adds (:class:`SharedStore`),
and the two ways a write fails.

**The order of a game's log is decided by compare-and-set on the game's row.** Each game has a
``version``: the number of commits that wrote to it. A sequencer decides a round of actions on
the state it holds (at some version ``v``) and hands the store one :class:`~.records.Commit`;
the store writes it only if the game is still at ``v`` *and* the first new entry links to the
stored head (``seq`` = head + 1, ``prev`` = the head's ``hash``, ``at_ms`` not before the
head's, the game not over), all in one statement on the game's row, which also moves the version
and the head. So an entry is appended only if it was decided on the state after exactly the
entries before it, and an ``action_id`` gets one answer: an accepted entry or a rejection, both
stored under the same check. Otherwise nothing is written and :class:`Conflict` is raised: the
sequencer catches up (:meth:`EventStore.tail`) and decides again. With one server the check
always passes; with several (:mod:`.postgres`) it is what makes them one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol, runtime_checkable

from cardcore.log import LogLine

from ..sealing import Sealer
from .records import Commit, GameRecord, StoredGame, TableRow, Tail


class StoreError(Exception):
    """The store could not be reached or refused a write for a reason other than
    :class:`Conflict`; a commit that raised it may or may not be durable (catch up to know)."""


class Conflict(Exception):
    """The game moved on since the commit's version (or its owner fence failed): nothing was
    written. Catch up with :meth:`EventStore.tail` and decide again."""


class EventStore(Protocol):
    """What the application layer needs from a backend."""

    on_commit: Callable[[int, float], None] | None
    """Told ``(writes, seconds)`` of every transaction committed (metrics)."""
    sealer: Sealer
    """Seals the seeds and salts it writes and opens those it reads (:mod:`..sealing`)."""

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

    # ---- tables (the lobby: :mod:`..tables`) and retention

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
        """The key the server signs logs with (:mod:`..signing`): the one stored with the games,
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
        """Every table not started yet: waiting for players or for reveals (their deadlines
        are armed on start-up)."""
        ...

    async def games_idle_since(self, cutoff_ms: int, *, finished: bool) -> list[str]:
        """Games (finished, or not) whose last entry is older than ``cutoff_ms`` (wall clock),
        and tables cancelled before it (``finished``)."""
        ...

    async def delete_game(self, game_id: str) -> None:
        """Remove a game, its table, invites and tokens (retention, after archiving)."""
        ...


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
