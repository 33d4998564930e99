"""The REST API's wire types: :mod:`msgspec` structs, the single source of request validation
and of the OpenAPI document's schemas (:mod:`.openapi`).

The JSON-in-a-string fields of the proto (``rules_json``, ``command.json``, a game's values) are
JSON objects here (``rules``, ``command``, ...). Schema evolution follows msgspec's rules: a field
is added with a default, never renamed or removed.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

import msgspec

from ...app import MAX_MY_GAMES, MAX_SEATS

API_PREFIX: Final = "/v1"
OPENAPI_PATH: Final = "/v1/openapi.json"
"""Where the OpenAPI 3.1 document is served (also as YAML at ``/v1/openapi.yaml``)."""
ADMIN_KEY_HEADER: Final = "X-Cardcore-Admin-Key"
LOG_COMPLETE_HEADER: Final = "Cardcore-Log-Complete"
PROBLEM_JSON: Final = "application/problem+json"
EVENT_STREAM: Final = "text/event-stream"
JSON_LINES: Final = "application/x-ndjson"
MAX_BODY: Final = 1024 * 1024


class Problem(msgspec.Struct, kw_only=True):
    """An RFC 9457 problem document. ``code`` is the gRPC ``ErrorInfo.reason``."""

    type: str
    title: str
    status: int
    detail: str
    code: str
    """A game's ``RejectCode`` (``NotYourTurn``, ...) or a service reason (``InvalidToken``)."""
    errors: list[FieldError] = msgspec.field(default_factory=list)
    """The malformed fields (gRPC ``BadRequest`` field violations)."""
    metadata: dict[str, str] = msgspec.field(default_factory=dict)
    """The gRPC ``ErrorInfo.metadata`` (e.g. ``game_id`` and ``next_seq`` of a rejection)."""


class FieldError(msgspec.Struct):
    """One malformed field: its path in the request and what is wrong with it."""

    field: str
    description: str


class RuleFlag(msgspec.Struct):
    """One variant flag of a game: the key in ``CreateGame.rules``."""

    name: str
    default: Any
    schema: dict[str, Any]
    help: str


class GameInfo(msgspec.Struct):
    """One catalogue entry; the schemas describe the JSON of commands, events and views."""

    name: str
    title: str
    rules_version: str
    min_seats: int
    max_seats: int
    realtime: bool
    aliases: list[str]
    flags: list[RuleFlag]
    command_schema: dict[str, Any]
    event_schema: dict[str, Any]
    view_schema: dict[str, Any]


class Catalogue(msgspec.Struct):
    """Every registered game, in catalogue order."""

    games: list[GameInfo]


_U32 = Annotated[int, msgspec.Meta(ge=0, le=2**32 - 1)]


_ENTROPY = Annotated[str, msgspec.Meta(pattern="^([0-9a-f]{32})?$")]
_COMMITMENT = Annotated[str, msgspec.Meta(pattern="^([0-9a-f]{64})?$")]


class SeatAssignment(msgspec.Struct, forbid_unknown_fields=True):
    """Who plays one seat: a human (a client holding the seat's token) or a server bot. A human
    seat may be *open*: ``invite`` (a single-use invite code fills it) or ``anyone`` (whoever
    takes it first); any open seat makes the game a table that deals once its seats are taken."""

    kind: Literal["human", "random", "reaction"] = "human"
    bot_min_delay_ms: _U32 = 0
    bot_max_delay_ms: _U32 = 0
    open: Literal["", "invite", "anyone"] = ""
    entropy: _ENTROPY = ""
    """A seat the creator holds: 16 random bytes as 32 hex digits that it adds to the deal (the
    deal seed is derived from the server's committed seed and every contribution: docs/rng.md).
    Empty: none."""
    entropy_commitment: _COMMITMENT = ""
    """A seat the creator holds: the commitment to 16 random bytes (64 hex digits) it reveals
    with ``POST /v1/games/{game_id}/reveal`` once the seats are final (docs/rng.md, "Committed
    entropy"); with no open seat the game starts ``revealing``. At most one of the two."""


class CreateGame(msgspec.Struct, forbid_unknown_fields=True):
    """A new game. The seed is accepted only by a server started with ``--allow-client-seed``."""

    game: str
    seats: Annotated[list[SeatAssignment], msgspec.Meta(max_length=MAX_SEATS)]
    rules: dict[str, Any] = msgspec.field(default_factory=dict)
    seed: Annotated[int, msgspec.Meta(ge=0)] | None = None
    event_limit: Annotated[int, msgspec.Meta(ge=0)] = 0
    timeouts_ms: dict[str, _U32] = msgspec.field(default_factory=dict)
    public: bool = False
    """List the table for anyone to find, join (its ``anyone`` seats) and watch."""
    start_deadline_ms: _U32 = 0
    """How long a table waits for its seats before it is cancelled (0 = the server's)."""
    turn_timeout_ms: _U32 = 0
    """A turn-based game: a human seat that does not act for this long forfeits (0 = none)."""
    idle_timeout_ms: _U32 = 0
    """A human seat with no action of its own for this long forfeits (0 = none)."""
    abandon_timeout_ms: _U32 = 0
    """No human action at all for this long: the host aborts the game (0 = none)."""
    idempotency_key: Annotated[str, msgspec.Meta(max_length=128)] = ""
    """A random secret of yours (32 to 128 hex digits, or 22 to 128 characters of A-Z a-z 0-9
    - _; a random UUID is one): a retry with the same key and body, and the same credentials
    (the admin key, or an ``Authorization`` header of your own), returns the same game and the
    same tokens (201 again), never a second game. Whoever sends the key with those credentials
    gets the game's tokens: keep it as secret as they are. It expires when the game ends
    (409 ``IdempotencyKeyExpired``)."""


class SeatToken(msgspec.Struct):
    """The secret token of one human seat: send it as ``Authorization: Bearer <token>``."""

    seat: int
    token: str


class SeatInvite(msgspec.Struct):
    """The single-use invite code of one ``invite`` seat, and the link that carries it: ``GET``
    the link to see the table it is for, ``POST`` to it to take the seat (or send the code to
    ``POST /v1/tables/join``)."""

    seat: int
    code: str
    link: str


class ServerInfo(msgspec.Struct):
    """What a client needs to check this server's logs."""

    server_key: str
    """The Ed25519 public key (32 bytes, base64url without padding) that signs logs."""
    algorithm: str
    cardcore: str
    """The server's cardcore version."""


class InviteInfo(msgspec.Struct):
    """What an invite is for (looking changes nothing): its seat and the table."""

    seat: int
    table: Table


class CreatedGame(msgspec.Struct):
    """The new game's id, one token per human seat the creator holds, a spectator token, the
    creator's token (starts and aborts the table), one invite per ``invite`` seat, the
    commitment, and ``status``: ``playing``, or ``waiting`` for a table with open seats."""

    game_id: str
    seat_tokens: list[SeatToken]
    spectator_token: str
    seed_commitment: str
    header: dict[str, Any]
    creator_token: str
    invites: list[SeatInvite]
    status: str


class SubmitAction(msgspec.Struct, forbid_unknown_fields=True):
    """One command for the token's seat. Resubmitting an ``action_id`` returns the original
    result and applies nothing twice."""

    command: dict[str, Any]
    """The command's JSON, ``kind`` included, e.g. ``{"kind": "Play"}``."""
    action_id: str = ""
    as_seat: Annotated[int, msgspec.Meta(ge=0, le=2**32 - 1)] | None = None
    """If set, the seat the caller believes it holds (403 ``SeatMismatch`` if it is not)."""


class Entry(msgspec.Struct):
    """One accepted action of the log as the receiver may see it (``seq`` 0 is the deal)."""

    seq: int
    at_ms: int
    seat: int | None
    action: dict[str, Any]
    events: list[dict[str, Any]]
    hash: str
    """The entry's hash in the log (keyed by the game's secret salt: it reveals nothing). Keep
    it: the final log must hold this very entry (``cardcore verify --receipts``)."""
    prev: str
    """The hash of the line before it."""


class Outcome(msgspec.Struct):
    """The end of a game."""

    termination: str
    winners: list[int]
    losers: list[int]
    scores: list[int]


class Submitted(msgspec.Struct):
    """The accepted action as the caller sees it."""

    entry: Entry
    replayed: bool
    outcome: Outcome | None = None


class GameView(msgspec.Struct):
    """The caller's view after every entry before ``seq``, and its legal commands."""

    seq: int
    view: dict[str, Any]
    legal_commands: list[dict[str, Any]]
    outcome: Outcome | None = None
    seat: int | None = None
    present_seats: list[int] = msgspec.field(default_factory=list)
    """The seats with an open event stream now (who is at the table)."""
    head_hash: str = ""
    """The hash of the last entry the view reflects (entry ``seq - 1``)."""
    rtt_ms: int | None = None
    """The caller's round trip as the server measures it on the seat's play channels (the
    smallest of the last 16 pings, in ms); ``None`` for a spectator or with none open."""
    race_delays_ms: dict[str, int] = msgspec.field(default_factory=dict)
    """Under ``race_policy: "compensated"``: each seat's delay (by seat number) its next action
    would be credited with now, in ms (docs/games/common.md#race-policy); empty otherwise."""


class JoinTable(msgspec.Struct, forbid_unknown_fields=True):
    """Take a seat: give ``invite`` (its seat), or ``game_id`` of a table with seats open to
    anyone (and ``seat``, or the first one free)."""

    invite: Annotated[str, msgspec.Meta(max_length=1024)] = ""
    game_id: Annotated[str, msgspec.Meta(max_length=64)] = ""
    seat: _U32 | None = None
    entropy: _ENTROPY = ""
    """16 random bytes as 32 hex digits that this seat adds to the deal (empty: none); the
    server learns them before the start: prefer ``entropy_commitment``."""
    entropy_commitment: _COMMITMENT = ""
    """``SHA-256("cardcore-entropy-commitment/1" || 16 random bytes)`` as 64 hex digits: the
    seat adds those bytes, revealed once the table is ``revealing`` (docs/rng.md)."""


class AcceptInvite(msgspec.Struct, forbid_unknown_fields=True):
    """The optional body of an invite link's ``POST``: what the joiner adds to the deal."""

    entropy: _ENTROPY = ""
    """16 random bytes as 32 hex digits that this seat adds to the deal (empty: none), as in
    ``JoinTable``."""
    entropy_commitment: _COMMITMENT = ""
    """A commitment to the 16 bytes the seat reveals at the start, as in ``JoinTable``."""


class Reveal(msgspec.Struct, forbid_unknown_fields=True):
    """The entropy a seat committed to, revealed once its table is ``revealing``."""

    entropy: Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{32}$")]
    """The 16 bytes as 32 lowercase hex digits."""


class Joined(msgspec.Struct):
    """The seat taken and its token; ``status`` is ``playing`` when this join dealt the game."""

    game_id: str
    seat: int
    token: str
    status: str


class StartTable(msgspec.Struct, forbid_unknown_fields=True):
    """Who plays the seats still empty when the creator starts its table."""

    fill_with: Literal["random", "reaction"] = "reaction"


class TableSeat(msgspec.Struct):
    """One seat of a table: who plays it, how it was opened, whether it is taken (a bot's and
    the creator's seats are) and whether its holder has an event stream open now."""

    seat: int
    kind: Literal["human", "random", "reaction"]
    open: Literal["", "invite", "anyone"]
    taken: bool
    present: bool
    entropy_commitment: str = ""
    """The commitment to its entropy the seat joined with (64 hex digits; empty: none)."""
    revealed: bool = False
    """Whether it has revealed that entropy (at the start)."""


class Table(msgspec.Struct):
    """A table or game: ``status`` is ``waiting``, ``revealing``, ``playing``, ``finished`` or
    ``cancelled``;
    ``deadline_ms`` (wall clock) is when a waiting table is cancelled; ``seq`` the entries so
    far."""

    game_id: str
    game: str
    status: str
    seats: list[TableSeat]
    created_ms: int
    deadline_ms: int
    public: bool
    seed_commitment: str
    rules: dict[str, Any]
    seq: int
    outcome: Outcome | None = None


class TableList(msgspec.Struct):
    """One page of public tables waiting for players, newest first; ``next_page_token``
    continues after its last table (empty: no more)."""

    tables: list[Table]
    next_page_token: str


class Watching(msgspec.Struct):
    """A new spectator token: send it as ``Authorization: Bearer <token>``."""

    spectator_token: str


class MyGamesQuery(msgspec.Struct, forbid_unknown_fields=True):
    """The tokens a client holds (seat, spectator or creator tokens)."""

    tokens: Annotated[
        list[Annotated[str, msgspec.Meta(max_length=1024)]],
        msgspec.Meta(max_length=MAX_MY_GAMES),
    ]


class MyGame(msgspec.Struct):
    """One token's game: its viewer (a seat number, ``spectator`` or ``creator``) and table."""

    viewer: str
    table: Table


class MyGames(msgspec.Struct):
    """Each token's game, in request order."""

    games: list[MyGame]


class Closing(msgspec.Struct):
    """The data of ``event: closing``: why the stream ended early (resume later)."""

    code: str
    detail: str


WIRE_TYPES: Final = (
    Problem,
    FieldError,
    RuleFlag,
    GameInfo,
    Catalogue,
    SeatAssignment,
    CreateGame,
    SeatToken,
    SeatInvite,
    CreatedGame,
    SubmitAction,
    Entry,
    Outcome,
    Submitted,
    GameView,
    JoinTable,
    AcceptInvite,
    Joined,
    StartTable,
    TableSeat,
    Table,
    TableList,
    Watching,
    MyGamesQuery,
    MyGame,
    MyGames,
    Closing,
)
"""Every wire type whose schema msgspec writes into the OpenAPI document (:mod:`.openapi`)."""
