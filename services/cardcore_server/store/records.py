"""The typed records a store keeps and hands back: a game's record, its stored form, a commit,
a tail, a rejection, and a table of the lobby (as the store holds it).

**What a rejection costs is bounded.** A rejected action is not part of the log: all its
``action_id`` needs is one answer, and a resent command must be told from another one sent under
the same id. So a rejection row holds the command's digest (never the command, up to 64 KB),
its code and its detail cut to :data:`REJECTION_DETAIL` characters, and a seat keeps its last
:data:`REJECTIONS_KEPT` rejections per game (the sequencer forgets the oldest in the commit
that stores a new one). One token's flood of rejected actions therefore costs at most that
many rows of a few hundred bytes, whatever it sends.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Final

from cardcore import codec
from cardcore.log import LogLine

REJECTIONS_KEPT: Final = 1024
"""Rejected action ids a seat keeps per game: a resent one of these gets its answer
again; an older one, resent, is decided anew (it was never applied, so nothing is applied
twice)."""
REJECTION_DETAIL: Final = 200
"""Characters of a rejection's detail that are kept (and sent, the first time as every time)."""


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
    committed: tuple[int, ...] = ()
    """The seats among :attr:`contributions` that committed to their entropy when they joined
    and revealed it once the start was final (docs/rng.md, "Committed entropy")."""

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
        if self.committed:
            out["committed"] = list(self.committed)
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
            committed=tuple(int(seat) for seat in rec.get("committed", ())),
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


# ---------------------------------------------------------------------- tables (the lobby's)


class TableStatus(StrEnum):
    WAITING = "waiting"
    """Seats are open; nothing is dealt yet."""
    REVEALING = "revealing"
    """Every seat is filled and the start is final; the seats that committed to entropy when
    they joined are revealing it. Dealt when the last reveal arrives; cancelled at the reveal
    deadline if one never does (docs/rng.md, "Committed entropy")."""
    STARTED = "started"
    """The game is dealt (its log is in the store)."""
    CANCELLED = "cancelled"
    """The deadline passed (or the creator aborted, or a seat did not reveal its entropy)
    before it started: no game, no log."""

    @property
    def before_deal(self) -> bool:
        """Waiting for players or for reveals: the table has a deadline, and no game yet."""
        return self in (TableStatus.WAITING, TableStatus.REVEALING)


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
    """What the seat's player added to the deal (32 hex digits), if anything: given when it
    joined, or revealed once the start was final when it joined with a :attr:`commitment`."""
    commitment: str = ""
    """The commitment to its entropy the seat joined with (64 hex digits,
    :func:`cardcore.rng.entropy_commitment`), if it did."""

    @property
    def reveal_pending(self) -> bool:
        """Committed to entropy it has not revealed yet."""
        return bool(self.commitment) and not self.entropy

    def to_json(self) -> dict[str, Any]:
        out = {"open": self.open.value, "taken": self.taken, "entropy": self.entropy}
        if self.commitment:
            out["commitment"] = self.commitment
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TableSeat:
        return cls(
            SeatOpen(data["open"]),
            bool(data["taken"]),
            str(data.get("entropy", "")),
            str(data.get("commitment", "")),
        )


@dataclass(frozen=True, slots=True)
class TableRow:
    """A table as the store holds it (the lobby's lifecycle of a table: :mod:`..tables`).

    Every change of a table is a compare-and-set on its row's ``version``, exactly like a
    game's log: :meth:`~.interface.EventStore.update_table` writes the next version only if
    nobody wrote since."""

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

    @classmethod
    def from_columns(cls, record: GameRecord, columns: Sequence[Any]) -> TableRow:
        """The row from its record and the columns ``status, version, created_ms, public,
        state`` (:meth:`state_json`), as every backend reads them."""
        status, version, created_ms, public, state_text = columns
        state = json.loads(state_text)
        return cls(
            record=record,
            status=TableStatus(status),
            version=int(version),
            created_ms=int(created_ms),
            deadline_ms=int(state["deadline_ms"]),
            public=bool(public),
            seats=tuple(TableSeat.from_json(s) for s in state["seats"]),
            watch_token=str(state.get("watch_token", "")),
        )

    @property
    def reveals_pending(self) -> tuple[int, ...]:
        """The seats that committed to entropy and have not revealed it yet."""
        return tuple(i for i, s in enumerate(self.seats) if s.reveal_pending)

    def taking(self, seat: int, entropy: str = "", commitment: str = "") -> TableRow:
        """The row after ``seat`` is taken, with what its player added to the deal, or its
        commitment to it (the next version)."""
        return self._seat_changed(seat, taken=True, entropy=entropy, commitment=commitment)

    def revealing(self, seat: int, entropy: str) -> TableRow:
        """The row after ``seat`` revealed the entropy it committed to (the next version)."""
        return self._seat_changed(seat, entropy=entropy)

    def _seat_changed(self, seat: int, **changes: Any) -> TableRow:
        seats = list(self.seats)
        seats[seat] = replace(seats[seat], **changes)
        return replace(self, seats=tuple(seats), version=self.version + 1)

    def moved(self, status: TableStatus, record: GameRecord | None = None) -> TableRow:
        return replace(self, status=status, version=self.version + 1, record=record or self.record)
