"""Tables waiting for their seats: their start deadlines, and the streams waiting for the deal.

A table that is not full when its deadline passes is cancelled, once, by whichever server gets
there first (the others' compare-and-set writes conflict and find it no longer waiting); every
server arms the deadlines of the waiting tables it finds in the store, so one that stopped
leaves none behind. A stream opened on a waiting table waits here until the table starts (on
this server or another) or is cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine, Mapping, Sequence
from typing import Any, Final

import structlog

from ..errors import Reason, ServiceError, Status
from ..live import wall_ms
from ..store import Conflict, EventStore, GameRecord, StoreError
from ..tables import SeatOpen, TableRow, TableSeat, TableStatus
from .outage import unavailable
from .requests import Gate

log = structlog.get_logger("cardcore_server")

JOIN_ATTEMPTS: Final = 64
"""Compare-and-set rounds a change of a table tries before it answers ``UNAVAILABLE`` (each
lost round means another client's change landed; 64 covers a crowd racing for a table of
eight)."""
SWEEP_S: Final = 2.0
"""How often waiting tables' deadlines are checked (tables other servers created included)."""
STREAM_POLL_S: Final = 0.5
"""How often a stream opened on a waiting table looks whether another server started it."""


def new_table(
    record: GameRecord,
    opens: Sequence[SeatOpen],
    deadline_ms: int,
    watch_token: str = "",
    committed: Mapping[int, str] | None = None,
) -> TableRow:
    """A table waiting for its seats; public (listed, watchable) when it has a watch token.
    ``committed``: the creator's seats' commitments to their entropy, by seat."""
    committed = committed or {}
    now = wall_ms()
    return TableRow(
        record=record,
        status=TableStatus.WAITING,
        version=0,
        created_ms=now,
        deadline_ms=now + deadline_ms,
        public=bool(watch_token),
        seats=tuple(
            TableSeat(o, False, commitment=committed.get(i, "")) for i, o in enumerate(opens)
        ),
        watch_token=watch_token,
    )


async def table_or_none(store: EventStore, game_id: str) -> TableRow | None:
    try:
        return await store.load_table(game_id)
    except StoreError:
        raise unavailable() from None


async def table_of(store: EventStore, game_id: str) -> TableRow:
    table = await table_or_none(store, game_id)
    if table is None:
        raise ServiceError(Status.NOT_FOUND, Reason.GAME_NOT_FOUND, "no such table")
    return table


def cancelled() -> ServiceError:
    return ServiceError(
        Status.FAILED_PRECONDITION,
        Reason.TABLE_CANCELLED,
        "the table was cancelled before it started (its deadline passed, a seat did not reveal "
        "its entropy in time, or it was aborted)",
    )


class WaitingTables:
    """The deadlines armed on this server, and the streams waiting for a deal."""

    def __init__(self, store: EventStore, gate: Gate) -> None:
        self._store = store
        self._gate = gate
        self._started: dict[str, asyncio.Event] = {}
        self._deadlines: dict[str, asyncio.TimerHandle] = {}
        self._tasks: list[asyncio.Task[None]] = []

    async def open(self) -> None:
        """Start the sweep that arms the deadlines of waiting tables (a deadline passed while
        no server ran fires at once)."""
        self._spawn(self._sweep_loop())

    async def close(self) -> None:
        for h in self._deadlines.values():
            h.cancel()
        self._deadlines.clear()
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        self._tasks.clear()

    # ------------------------------------------------------------------ deadlines

    def arm(self, table: TableRow) -> None:
        loop = asyncio.get_running_loop()
        delay = max(table.deadline_ms - wall_ms(), 0) / 1000
        self.disarm(table.game_id)
        self._deadlines[table.game_id] = loop.call_later(
            delay, lambda: self._spawn(self._expire(table.game_id))
        )

    def disarm(self, game_id: str) -> None:
        """The table started or was cancelled: its deadline is moot."""
        handle = self._deadlines.pop(game_id, None)
        if handle is not None:
            handle.cancel()

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.append(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        if task in self._tasks:
            self._tasks.remove(task)

    async def _expire(self, game_id: str) -> None:
        """The deadline passed: cancel the table if it has not started (once, whichever server
        gets there first: the others' writes conflict and find it no longer waiting). A table
        still missing a reveal is cancelled rather than dealt without it: any other deal would
        let the seat that withheld its reveal choose between two deals."""
        self._deadlines.pop(game_id, None)
        for _ in range(JOIN_ATTEMPTS):
            try:
                table = await self._store.load_table(game_id)
                if table is None or not table.status.before_deal:
                    return
                if table.deadline_ms > wall_ms():
                    self.arm(table)
                    return
                await self._store.update_table(table.moved(TableStatus.CANCELLED))
            except Conflict:
                continue
            except StoreError as exc:
                log.warning("table_expire_failed", game_id=game_id, error=str(exc))
                return
            if table.status is TableStatus.REVEALING:
                unrevealed = table.reveals_pending
                log.info("table_cancelled", game_id=game_id, reason="reveal", seats=unrevealed)
            else:
                log.info("table_cancelled", game_id=game_id, reason="deadline")
            self.wake(game_id)
            return

    async def _sweep_loop(self) -> None:
        while True:
            try:
                for table in await self._store.waiting_tables():
                    if table.game_id not in self._deadlines:
                        self.arm(table)
            except StoreError as exc:
                log.warning("table_sweep_failed", error=str(exc))
            await asyncio.sleep(SWEEP_S)

    # ------------------------------------------------------------------ waiting for the deal

    async def wait_started(self, game_id: str) -> None:
        """Return once the table of ``game_id`` has started (here or on another server);
        raises ``TableCancelled`` if it never will."""
        while True:
            table = await table_of(self._store, game_id)
            if table.status is TableStatus.STARTED:
                return
            if table.status is TableStatus.CANCELLED:
                raise cancelled()
            event = self._started.setdefault(game_id, asyncio.Event())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), STREAM_POLL_S)
            self._gate.check_open_to_resume()

    def wake(self, game_id: str) -> None:
        """The table of ``game_id`` started or was cancelled: its waiting streams look now."""
        event = self._started.pop(game_id, None)
        if event is not None:
            event.set()

    def wake_all(self) -> None:
        """The server is stopping: the streams waiting for a deal look again now (and end)."""
        for event in self._started.values():
            event.set()
