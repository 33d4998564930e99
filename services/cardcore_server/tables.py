"""Tables: a game before it is dealt, while people take its seats (the lobby's lifecycle).

A table is created with some seats *open*: each gets a single-use invite (an unguessable code a
link can carry) or is open to anyone who finds the table in the listing. The game is dealt when
every human seat is taken, or when the creator starts it (the empty seats filled by bots); a
table that has not started by its deadline is cancelled. Its seed and salt are drawn at creation
and the commitment published then, so nobody can choose the deal by choosing when to start.

Every change of a table is a compare-and-set on its row's ``version``, exactly like a game's
log (:mod:`.store`): a join decides on the row it read and writes only if nobody wrote since;
otherwise it reads again and decides again. So of twenty clients racing for the last seat one
gets it and the others find the table full, on one server or on several sharing PostgreSQL, and
a join that fills the table deals the game in the same transaction (nobody can join a table that
has started, and a started table always has its game).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Final

from .store import GameRecord


class TableStatus(StrEnum):
    WAITING = "waiting"
    """Seats are open; nothing is dealt yet."""
    STARTED = "started"
    """The game is dealt (its log is in the store)."""
    CANCELLED = "cancelled"
    """The deadline passed (or the creator aborted) before it started: no game, no log."""


class SeatOpen(StrEnum):
    """How a seat of a table is filled."""

    CREATOR = ""
    """The creator holds it (its token comes with the creation), or a bot plays it."""
    INVITE = "invite"
    """Whoever brings its single-use invite code."""
    ANYONE = "anyone"
    """Whoever takes it first (from the listing, or with the table's id)."""


@dataclass(frozen=True, slots=True)
class TableSeat:
    open: SeatOpen
    taken: bool
    entropy: str = ""
    """What the seat's player added to the deal when it joined (32 hex digits), if anything."""

    def to_json(self) -> dict[str, Any]:
        return {"open": self.open.value, "taken": self.taken, "entropy": self.entropy}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TableSeat:
        return cls(SeatOpen(data["open"]), bool(data["taken"]), str(data.get("entropy", "")))


@dataclass(frozen=True, slots=True)
class TableRow:
    """A table as the store holds it."""

    record: GameRecord
    """The game as planned (seats' kinds as created; bots fill the empty ones at start)."""
    status: TableStatus
    version: int
    created_ms: int
    """Wall-clock milliseconds when the table was created (listing order)."""
    deadline_ms: int
    """Wall-clock milliseconds by which it must have started, or it is cancelled."""
    public: bool
    """Listed for anyone to join or watch."""
    seats: tuple[TableSeat, ...]
    watch_token: str = ""
    """A public table's spectator token, handed to whoever asks to watch (one per table, so
    watchers cannot grow the token table; it is no secret: anyone may have it)."""

    @property
    def game_id(self) -> str:
        return self.record.game_id

    @property
    def open_seats(self) -> tuple[int, ...]:
        return tuple(i for i, s in enumerate(self.seats) if s.open and not s.taken)

    def state_json(self) -> str:
        return json.dumps(
            {
                "deadline_ms": self.deadline_ms,
                "seats": [s.to_json() for s in self.seats],
                "watch_token": self.watch_token,
            },
            sort_keys=True,
        )

    def taking(self, seat: int, entropy: str = "") -> TableRow:
        """The row after ``seat`` is taken, with what its player added to the deal (the next
        version)."""
        seats = list(self.seats)
        seats[seat] = replace(seats[seat], taken=True, entropy=entropy)
        return replace(self, seats=tuple(seats), version=self.version + 1)

    def moved(self, status: TableStatus, record: GameRecord | None = None) -> TableRow:
        return replace(self, status=status, version=self.version + 1, record=record or self.record)


def table_row(record: GameRecord, columns: Sequence[Any]) -> TableRow:
    """A :class:`TableRow` from its record and the columns ``status, version, created_ms,
    public, state`` (every backend reads these)."""
    status, version, created_ms, public, state_text = columns
    state = json.loads(state_text)
    return TableRow(
        record=record,
        status=TableStatus(status),
        version=int(version),
        created_ms=int(created_ms),
        deadline_ms=int(state["deadline_ms"]),
        public=bool(public),
        seats=tuple(TableSeat.from_json(s) for s in state["seats"]),
        watch_token=str(state.get("watch_token", "")),
    )


PAGE_MAX: Final = 100
"""The most tables one listing page holds."""


@dataclass(frozen=True, slots=True)
class TablePage:
    tables: Sequence[TableRow]
    next_cursor: tuple[int, str] | None
    """``(created_ms, game_id)`` of the last table: the next page starts after it."""
