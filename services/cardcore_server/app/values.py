"""The application API's values: what the transports hand in and get back. Typed values only
(a JSON object is a ``dict``, a log line a :data:`~cardcore.log.LogLine`, a game's value the
kind and canonical JSON :mod:`.redaction` made of it), never a wire format: each transport
reads its own wire into these and renders these into its own wire.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cardcore.engine import Outcome
from cardcore.log import LogLine

from ..errors import ServiceError
from ..redaction import RedactedEntry, Value
from ..store import SeatSpec

JsonObject = dict[str, Any]
"""A JSON object as Python reads it (``str`` keys; no floats: cardcore's JSON has none)."""


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A field its transport could not read as a JSON value (not JSON, a float, too long): the
    application refuses it with ``error`` when it comes to that field, so that a request is
    answered for its first fault in the same order over every transport (a caller without a
    valid token learns nothing of what its command would have made)."""

    error: ServiceError


# --------------------------------------------------------------------------- in


@dataclass(frozen=True, slots=True)
class GameSpec:
    """What a client asks for when it creates a game."""

    game: str
    seats: Sequence[SeatSpec]
    rules: JsonObject | Unreadable = field(default_factory=dict)
    """The variant flags (``{}``: the game's defaults)."""
    seed: int | None = None
    event_limit: int = 0
    timeouts_ms: Mapping[str, int] = field(default_factory=dict)
    seat_open: Sequence[str] = ()
    """Per seat (in order; missing = ``""``): ``""`` the creator holds it (a human seat's token
    comes back) or a bot plays it; ``"invite"`` a single-use invite fills it; ``"anyone"``
    whoever takes it first. Any open seat makes the game a table that deals when it starts."""
    public: bool = False
    """List the table for anyone to find, join (its open-to-anyone seats) and watch."""
    start_deadline_ms: int = 0
    """How long the table waits for its seats before it is cancelled (0 = the server's)."""
    turn_timeout_ms: int = 0
    idle_timeout_ms: int = 0
    abandon_timeout_ms: int = 0
    entropy: Sequence[bytes] = ()
    """Per seat (in order; missing or empty = none): 16 random bytes the creator adds to the
    deal for a seat it holds (docs/rng.md, "The deal seed")."""
    entropy_commitments: Sequence[bytes] = ()
    """Per seat (in order; missing or empty = none): the commitment to the entropy a seat the
    creator holds reveals once the seats are final (docs/rng.md, "Committed entropy")."""
    idempotency_key: str = ""
    """A client's random key for this creation: a retry with the same key and request, from
    the same caller, gets the same game and the same tokens, never a second game (a lost
    answer is safe to retry). It is a secret (:func:`.create.check_idempotency_key`)."""


# --------------------------------------------------------------------------- out


@dataclass(frozen=True, slots=True)
class CreatedGame:
    game_id: str
    seat_tokens: tuple[tuple[int, str], ...]
    spectator_token: str
    seed_commitment: str
    header: LogLine
    """The log's header line (``{}`` for a table still waiting: it is written at the deal,
    with the seats' contributions)."""
    creator_token: str = ""
    invites: tuple[tuple[int, str], ...] = ()
    """``(seat, invite code)`` of every seat a single-use invite fills."""
    status: str = "playing"
    """``playing``, or ``waiting`` for a table with open seats."""


@dataclass(frozen=True, slots=True)
class SubmitResult:
    entry: RedactedEntry
    outcome: Outcome | None
    replayed: bool


@dataclass(frozen=True, slots=True)
class StreamBatch:
    entries: tuple[RedactedEntry, ...]
    outcome: Outcome | None
    end: LogLine | None = None
    """With the outcome: the log's end line (it reveals seed and salt, so the viewer's own copy
    settles the game: ``cardcore verify``)."""


@dataclass(frozen=True, slots=True)
class ViewResult:
    seq: int
    view: Value
    legal_commands: tuple[Value, ...]
    outcome: Outcome | None
    seat: int | None
    present: tuple[int, ...] = ()
    """The seats with an open event stream on this server (who is at the table)."""
    head_hash: str = ""
    """The hash of the last entry the view reflects (``seq - 1``)."""
    rtt_ms: int | None = None
    """The seat's round trip as the server measures it on its play channels (``None``: a
    spectator, or no channel open; :mod:`.roundtrips`)."""
    race_delays_ms: dict[int, int] = field(default_factory=dict)
    """In a game under ``race_policy: "compensated"``: each seat's delay its next action would
    be credited with now (measured, up to the cap; docs/games/common.md#race-policy). Shown to
    everyone at the table, so a race reads as the log will decide it. Empty otherwise."""


@dataclass(frozen=True, slots=True)
class LogResult:
    log_jsonl: bytes
    """The log as the caller may see it (redacted until the game is over), as its file is
    written: canonical JSON Lines, what ``cardcore verify`` reads."""
    complete: bool


@dataclass(frozen=True, slots=True)
class SeatInfo:
    seat: int
    kind: str
    open: str
    taken: bool
    present: bool
    entropy_commitment: str = ""
    """The commitment to its entropy the seat joined with (64 hex digits), published to
    everyone at the table before anyone reveals; empty: it committed to nothing."""
    revealed: bool = False
    """Whether the seat has revealed the entropy it committed to (at the start)."""


@dataclass(frozen=True, slots=True)
class TableInfo:
    """What anyone allowed to see a table is told of it."""

    game_id: str
    game: str
    status: str
    """``waiting``, ``revealing``, ``playing``, ``finished`` or ``cancelled``."""
    seats: tuple[SeatInfo, ...]
    created_ms: int
    deadline_ms: int
    public: bool
    seed_commitment: str
    rules: JsonObject
    outcome: Outcome | None = None
    seq: int = 0


@dataclass(frozen=True, slots=True)
class Joined:
    game_id: str
    seat: int
    token: str
    status: str


@dataclass(frozen=True, slots=True)
class TableListing:
    tables: tuple[TableInfo, ...]
    next_page_token: str


@dataclass(frozen=True, slots=True)
class RuleFlag:
    """One variant flag of a game: its key in the rules, default, JSON Schema and help."""

    name: str
    default: Any
    """A JSON value."""
    schema: Mapping[str, Any]
    help: str


@dataclass(frozen=True, slots=True)
class CatalogueEntry:
    """One game of the catalogue (:mod:`.catalogue`)."""

    name: str
    title: str
    rules_version: str
    min_seats: int
    max_seats: int
    realtime: bool
    aliases: tuple[str, ...]
    flags: tuple[RuleFlag, ...]
    command_schema: Mapping[str, Any]
    event_schema: Mapping[str, Any]
    view_schema: Mapping[str, Any]
