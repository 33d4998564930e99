"""Tables: a game before it is dealt, while people take its seats (the lobby's lifecycle).

A table is created with some seats *open*: each gets a single-use invite (an unguessable code a
link can carry) or is open to anyone who finds the table in the listing. The game is dealt when
every human seat is taken, or when the creator starts it (the empty seats filled by bots); a
table that has not started by its deadline is cancelled. Its seed and salt are drawn at creation
and the commitment published then, so nobody can choose the deal by choosing when to start.

Every change of a table is a compare-and-set on its row's ``version`` (a
:class:`~.store.TableRow`), exactly like a game's log (:mod:`.store`): a join decides on the row
it read and writes only if nobody wrote since; otherwise it reads again and decides again. So of
twenty clients racing for the last seat one gets it and the others find the table full, on one
server or on several sharing PostgreSQL, and a join that fills the table deals the game in the
same transaction (nobody can join a table that has started, and a started table always has its
game).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

# The rows of tables are records of the store, which keeps them (:mod:`.store.records`); they are
# named here too, the lobby's vocabulary.
from .store import SeatOpen, TableRow, TableSeat, TableStatus

__all__ = ["PAGE_MAX", "SeatOpen", "TablePage", "TableRow", "TableSeat", "TableStatus"]

PAGE_MAX: Final = 100
"""The most tables one listing page holds."""


@dataclass(frozen=True, slots=True)
class TablePage:
    tables: Sequence[TableRow]
    next_cursor: tuple[int, str] | None
    """``(created_ms, game_id)`` of the last table: the next page starts after it."""
