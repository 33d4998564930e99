"""The client: :class:`Client` (catalogue, create) and :class:`GameClient` (one token's calls).

Errors come back as :class:`Rejection` (the game's ``RejectCode`` in ``code``) or
:class:`CallError` (``status`` = the gRPC code name, ``reason`` from the ``ErrorInfo``, ``fields``
from the ``BadRequest``). The stubs are generated from ``proto/`` into ``cardcore_proto``, which
this client's distribution (``cardcore-client``) ships and the server imports too.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import random
import secrets
import uuid
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import grpc
from google.rpc import error_details_pb2, status_pb2

from cardcore_proto import game_service_pb2 as pb
from cardcore_proto import game_service_pb2_grpc as pb_grpc

ENTROPY_BYTES: Final = 16
_COMMITMENT_TAG: Final = b"cardcore-entropy-commitment/1"
REVEAL_POLL_S: Final = 0.1
"""How often a seat holding entropy to reveal looks whether its table's start is final."""
NOT_DEALT_RETRY_S: Final = 0.5
"""How often a play channel opened on a table not dealt yet asks again (as the web table
does): its :meth:`PlaySession.open` returns once the game is dealt."""


def entropy_commitment(entropy: bytes) -> bytes:
    """What a seat joins with instead of its entropy (docs/rng.md, "Committed entropy"):
    ``SHA-256("cardcore-entropy-commitment/1" || entropy)``."""
    return hashlib.sha256(_COMMITMENT_TAG + entropy).digest()


"""What a seat adds to the deal: 128 random bits (docs/rng.md, "The deal seed")."""
RETRYABLE: Final = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})
_STREAM_RETRYABLE: Final = RETRYABLE | {grpc.StatusCode.CANCELLED}
_PLAY_RETRYABLE: Final = _STREAM_RETRYABLE | {grpc.StatusCode.RESOURCE_EXHAUSTED}
"""A play session resumes after these; ``RESOURCE_EXHAUSTED`` is the server's ``FellBehind``
(this client read too slowly) or a rate limit, both over after a pause."""
_SEAT_KINDS: Final = {
    "human": pb.SEAT_KIND_HUMAN,
    "random": pb.SEAT_KIND_RANDOM_BOT,
    "reaction": pb.SEAT_KIND_REACTION_BOT,
}
_KIND_NAMES: Final = {v: k for k, v in _SEAT_KINDS.items()} | {pb.SEAT_KIND_UNSPECIFIED: "human"}
_SEAT_OPENS: Final = {"invite": pb.SEAT_OPEN_INVITE, "anyone": pb.SEAT_OPEN_ANYONE}
"""Seat shorthands of :meth:`Client.create_game` for a human seat someone else fills."""
_OPEN_NAMES: Final = {pb.SEAT_OPEN_UNSPECIFIED: "", pb.SEAT_OPEN_INVITE: "invite"} | {
    pb.SEAT_OPEN_ANYONE: "anyone"
}


# --------------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True)
class Value:
    """A command, event or view: ``kind`` and canonical JSON (``data`` parses it)."""

    kind: str
    json: str

    @property
    def data(self) -> Any:
        return json.loads(self.json)


@dataclass(frozen=True, slots=True)
class Entry:
    """One accepted action as this client may see it."""

    seq: int
    at_ms: int
    seat: int | None
    action: Value
    events: tuple[Value, ...]
    hash: str = ""
    """The entry's hash in the log: the final log must hold this very entry (a receipt)."""
    prev: str = ""
    race: str = ""
    """How the action was credited, in a game under ``race_policy: "compensated"``: its race
    record's JSON text (``received_ms``, ``delay_ms``, ``clamped``); empty otherwise."""

    def receipt_line(self) -> str:
        """The entry as a line of a receipts file (``cardcore verify --receipts MINE FINAL``):
        the log entry exactly as this viewer was shown it, the server's JSON texts verbatim."""
        seat = "null" if self.seat is None else str(self.seat)
        events = ",".join(e.json for e in self.events)
        race = f',"race":{self.race}' if self.race else ""
        return (
            f'{{"type":"entry","seq":{self.seq},"at_ms":{self.at_ms},"seat":{seat},'
            f'"action":{self.action.json},"events":[{events}],'
            f'"prev":{json.dumps(self.prev)},"hash":{json.dumps(self.hash)}{race}}}'
        )


@dataclass(frozen=True, slots=True)
class Outcome:
    termination: str
    winners: tuple[int, ...]
    losers: tuple[int, ...]
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SubmitResult:
    entry: Entry
    outcome: Outcome | None
    replayed: bool


@dataclass(frozen=True, slots=True)
class View:
    seq: int
    view: Value
    legal_commands: tuple[Value, ...]
    outcome: Outcome | None
    seat: int | None
    present_seats: tuple[int, ...] = ()
    """Seats with an event stream open now (who is at the table)."""
    head_hash: str = ""
    """The hash of the last entry the view reflects (a receipt of the state shown)."""
    rtt_ms: int | None = None
    """This seat's round trip as the server measures it on its play channels (the smallest of
    its last 16 pings); ``None`` for a spectator, or while the seat has no :meth:`GameClient.play`
    session open."""
    race_delays_ms: dict[int, int] = field(default_factory=dict)
    """In a game under ``race_policy: "compensated"``: each seat's delay (by seat) that its next
    action would be credited with now; empty otherwise (docs/games/common.md#race-policy)."""


@dataclass(frozen=True, slots=True)
class Ack:
    """A play session's answer to an act that is durable (:meth:`PlaySession.act`): what
    :class:`SubmitResult` says but the entry, which comes in its place among the session's
    entries."""

    action_id: str
    seq: int
    """The entry the act made."""
    replayed: bool
    """An earlier act (or submit) with this ``action_id`` made it."""
    outcome: Outcome | None
    """Set when this act ended the game."""


@dataclass(frozen=True, slots=True)
class CreatedGame:
    game_id: str
    seat_tokens: dict[int, str]
    spectator_token: str
    seed_commitment: str
    header_json: str
    creator_token: str = ""
    """Starts and aborts the table; sees what a spectator sees."""
    invites: dict[int, str] = field(default_factory=dict)
    """Seat → single-use invite code, for each ``"invite"`` seat."""
    status: str = "playing"
    """``"playing"``, ``"waiting"`` for a table with open seats, or ``"revealing"`` (a seat's
    reveal still missing: :meth:`GameClient.reveal`)."""


@dataclass(frozen=True, slots=True)
class TableSeat:
    seat: int
    kind: str
    open: str
    taken: bool
    present: bool
    entropy_commitment: str = ""
    """The commitment to its entropy the seat joined with (hex; empty: none)."""
    revealed: bool = False


@dataclass(frozen=True, slots=True)
class Table:
    """A table or game as the lifecycle calls describe it."""

    game_id: str
    game: str
    status: str
    """``waiting``, ``revealing``, ``playing``, ``finished`` or ``cancelled``."""
    seats: tuple[TableSeat, ...]
    created_ms: int
    deadline_ms: int
    public: bool
    seed_commitment: str
    rules: Any
    outcome: Outcome | None
    seq: int


@dataclass(frozen=True, slots=True)
class Joined:
    """A seat taken with :meth:`Client.join`."""

    game_id: str
    seat: int
    token: str
    status: str
    """``"waiting"`` for more players, ``"revealing"`` (the seats are final; another seat's
    reveal is missing), or ``"playing"`` (the game is dealt)."""


class CallError(Exception):
    """A call the server refused (or that could not reach it)."""

    def __init__(
        self,
        status: str,
        reason: str,
        message: str,
        fields: Mapping[str, str] | None = None,
        metadata: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(f"{status}/{reason}: {message}")
        self.status = status
        self.reason = reason
        self.message = message
        self.fields = dict(fields or {})
        self.metadata = dict(metadata or {})


class Rejection(CallError):
    """The game rejected the action (``FAILED_PRECONDITION``); ``code`` is the ``RejectCode``."""

    @property
    def code(self) -> str:
        return self.reason


def _error(exc: grpc.aio.AioRpcError) -> CallError:
    code = exc.code()
    reason, fields, meta = "", {}, {}
    for key, value in exc.trailing_metadata() or ():
        if key == "grpc-status-details-bin" and isinstance(value, bytes):
            status = status_pb2.Status.FromString(value)
            for detail in status.details:
                if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                    info = error_details_pb2.ErrorInfo()
                    detail.Unpack(info)
                    reason, meta = info.reason, dict(info.metadata)
                elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                    bad = error_details_pb2.BadRequest()
                    detail.Unpack(bad)
                    fields = {v.field: v.description for v in bad.field_violations}
    cls = Rejection if code == grpc.StatusCode.FAILED_PRECONDITION and reason else CallError
    return cls(code.name, reason, exc.details() or "", fields, meta)


def _value(v: pb.GameValue) -> Value:
    return Value(v.kind, v.json)


def _entry(e: pb.Entry) -> Entry:
    return Entry(
        seq=e.seq,
        at_ms=e.at_ms,
        seat=e.seat if e.HasField("seat") else None,
        action=_value(e.action),
        events=tuple(_value(x) for x in e.events),
        hash=e.hash,
        prev=e.prev,
        race=e.race_json,
    )


def _view(r: pb.GetViewResponse) -> View:
    return View(
        seq=r.seq,
        view=_value(r.view),
        legal_commands=tuple(_value(v) for v in r.legal_commands),
        outcome=_outcome(r),
        seat=r.seat if r.HasField("seat") else None,
        present_seats=tuple(r.present_seats),
        head_hash=r.head_hash,
        rtt_ms=r.rtt_ms if r.HasField("rtt_ms") else None,
        race_delays_ms=dict(r.race_delays_ms),
    )


def _problem(problem: pb.PlayProblem) -> CallError:
    """A play session's ``rejected``, as the same error would end a unary call (:func:`_error`):
    :class:`Rejection` for the game's, :class:`CallError` for the service's."""
    cls = Rejection if problem.status == "FAILED_PRECONDITION" and problem.code else CallError
    fields = {v.field: v.description for v in problem.errors}
    return cls(problem.status, problem.code, problem.detail, fields, dict(problem.metadata))


def _outcome(msg: Any) -> Outcome | None:
    if not msg.HasField("outcome"):
        return None
    o = msg.outcome
    return Outcome(o.termination, tuple(o.winners), tuple(o.losers), tuple(o.scores))


def _table(t: pb.TableInfo) -> Table:
    return Table(
        game_id=t.game_id,
        game=t.game,
        status=t.status,
        seats=tuple(
            TableSeat(
                s.seat,
                _KIND_NAMES.get(s.kind, "human"),
                _OPEN_NAMES.get(s.open, ""),
                s.taken,
                s.present,
                s.entropy_commitment,
                s.revealed,
            )
            for s in t.seats
        ),
        created_ms=t.created_ms,
        deadline_ms=t.deadline_ms,
        public=t.public,
        seed_commitment=t.seed_commitment,
        rules=json.loads(t.rules_json or "{}"),
        outcome=_outcome(t),
        seq=t.seq,
    )


def _command(command: Mapping[str, Any] | Value | str) -> pb.GameValue:
    if isinstance(command, Value):
        return pb.GameValue(kind=command.kind, json=command.json)
    if isinstance(command, str):
        data = json.loads(command)
        return pb.GameValue(kind=str(data.get("kind", "")), json=command)
    text = json.dumps(dict(command), sort_keys=True, separators=(",", ":"))
    return pb.GameValue(kind=str(command.get("kind", "")), json=text)


def _check_commitments(header: Mapping[str, Any], seen: Mapping[int, str]) -> None:
    """The header's commitments are ``seen``, those the table showed when this client revealed."""
    listed = header.get("contributions")
    recorded = {
        c.get("seat"): c["commitment"]
        for c in (listed if isinstance(listed, list) else ())
        if isinstance(c, dict) and "commitment" in c
    }
    if recorded != dict(seen):
        raise CallError(
            "DATA_LOSS",
            "CommitmentChanged",
            f"the log's header lists the commitments {recorded}, not those the table showed "
            f"when this client revealed its entropy: {dict(seen)}",
        )


def _append(path: Path, line: str) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write(line + "\n")


def _holds_header(path: Path) -> bool:
    """Whether a receipts file already holds its game's header line."""
    with open(path, encoding="utf-8") as f:
        return any('"type":"header"' in line for line in f)


# --------------------------------------------------------------------------- clients


@dataclass
class _Retry:
    attempts: int = 8
    first_backoff_s: float = 0.05
    max_backoff_s: float = 2.0
    attempt_timeout_s: float = 10.0


class Client:
    """A channel to one server. ``async with Client(target) as c: ...``."""

    def __init__(
        self,
        target: str,
        *,
        admin_key: str | None = None,
        attempts: int = 8,
        attempt_timeout_s: float = 10.0,
        tls: bool = False,
        root_certificates: bytes | None = None,
    ) -> None:
        """``tls``: talk to a server started with ``--tls-cert`` (``root_certificates``: the
        PEM of the CA that signed its certificate, when the system's do not)."""
        self.target = target
        self.admin_key = admin_key
        self.retry = _Retry(attempts=attempts, attempt_timeout_s=attempt_timeout_s)
        self._own_credential = secrets.token_urlsafe(32)
        """Sent with CreateGame (``authorization``): the server scopes this client's
        idempotency keys to it, so a key seen by anyone else makes them no game of ours."""
        if tls or root_certificates is not None:
            credentials = grpc.ssl_channel_credentials(root_certificates=root_certificates)
            self.channel = grpc.aio.secure_channel(target, credentials)
        else:
            self.channel = grpc.aio.insecure_channel(target)
        self.stub = pb_grpc.GameServiceStub(self.channel)
        self._unrevealed: dict[str, tuple[str, bytes]] = {}
        """token → (game, entropy) of each seat this client joined with a commitment and has
        not revealed yet (:meth:`GameClient.reveal`)."""
        self._commitments_seen: dict[str, dict[int, str]] = {}
        """game → {seat: commitment} as the table showed them when this client revealed (the
        seats final): the log's header must list exactly these
        (:meth:`GameClient.check_commitments`)."""

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self.channel.close()

    async def _call(self, method: Any, request: Any, metadata: Sequence[tuple[str, str]]) -> Any:
        """One unary call with retries of transient failures (the request is resent as is)."""
        backoff = self.retry.first_backoff_s
        for attempt in range(self.retry.attempts):
            try:
                return await method(
                    request,
                    metadata=tuple(metadata),
                    timeout=self.retry.attempt_timeout_s,
                    wait_for_ready=True,
                )
            except grpc.aio.AioRpcError as exc:
                if exc.code() not in RETRYABLE or attempt == self.retry.attempts - 1:
                    raise _error(exc) from None
            # full jitter: many clients retrying after one outage do not come back in step
            await asyncio.sleep(random.uniform(0, backoff))
            backoff = min(backoff * 2, self.retry.max_backoff_s)
        raise AssertionError("unreachable")

    async def list_games(self) -> list[pb.GameInfo]:
        response = await self._call(self.stub.ListGames, pb.ListGamesRequest(), ())
        return list(response.games)

    async def create_game(
        self,
        game: str,
        seats: Sequence[str | pb.SeatAssignment],
        *,
        rules: Mapping[str, Any] | None = None,
        seed: int | None = None,
        event_limit: int = 0,
        timeouts_ms: Mapping[str, int] | None = None,
        bot_delay_ms: tuple[int, int] | None = None,
        public: bool = False,
        start_deadline_ms: int = 0,
        turn_timeout_ms: int = 0,
        idle_timeout_ms: int = 0,
        abandon_timeout_ms: int = 0,
        contribute: bool = True,
    ) -> CreatedGame:
        """Create a game. ``seats`` per seat: ``"human"`` (yours: its token comes back),
        ``"invite"`` (a human seat filled by its single-use invite code, in ``invites``),
        ``"anyone"`` (a human seat whoever joins first takes), ``"random"`` or ``"reaction"``
        (server bots). Any ``"invite"`` or ``"anyone"`` seat makes a table that deals when it
        is full (or when its creator starts it; ``creator_token``).

        ``contribute``: add 128 random bits (from :mod:`secrets`) to the deal for each
        ``"human"`` seat, so the server alone does not choose the deal: committed to now and
        revealed once the seats are final (docs/rng.md, "Committed entropy"), by this client
        itself, as :meth:`join` does (at once when no seat is open). A ``seed`` deals alone."""
        assignments = []
        held: dict[int, bytes] = {}
        for i, s in enumerate(seats):
            if isinstance(s, str):
                lo, hi = bot_delay_ms or (0, 0)
                if s in _SEAT_OPENS:
                    a = pb.SeatAssignment(kind=pb.SEAT_KIND_HUMAN, open=_SEAT_OPENS[s])
                else:
                    a = pb.SeatAssignment(kind=_SEAT_KINDS[s])
                if s == "human" and contribute and seed is None:
                    held[i] = secrets.token_bytes(ENTROPY_BYTES)
                    a.entropy_commitment = entropy_commitment(held[i])
                if s in ("random", "reaction"):
                    a.bot_min_delay_ms, a.bot_max_delay_ms = lo, hi
                assignments.append(a)
            else:
                assignments.append(s)
        request = pb.CreateGameRequest(
            game=game,
            seats=assignments,
            rules_json=json.dumps(dict(rules)) if rules else "",
            event_limit=event_limit,
            timeouts_ms=dict(timeouts_ms or {}),
            public=public,
            start_deadline_ms=start_deadline_ms,
            turn_timeout_ms=turn_timeout_ms,
            idle_timeout_ms=idle_timeout_ms,
            abandon_timeout_ms=abandon_timeout_ms,
            # The same key on every retry of this call: a lost answer never makes two games.
            # A secret (it gets the game's tokens back): 192 random bits, never logged.
            idempotency_key=secrets.token_urlsafe(24),
        )
        if seed is not None:
            request.seed = seed
        metadata = [("authorization", f"Bearer {self._own_credential}")]
        if self.admin_key:
            metadata.append(("x-cardcore-admin-key", self.admin_key))
        r = await self._call(self.stub.CreateGame, request, metadata)
        for t in r.seat_tokens:
            if t.seat in held:
                self._unrevealed[t.token] = (r.game_id, held[t.seat])
        status = await self._reveal_if_final(r.game_id, r.status)  # no seat open: deals
        return CreatedGame(
            game_id=r.game_id,
            seat_tokens={t.seat: t.token for t in r.seat_tokens},
            spectator_token=r.spectator_token,
            seed_commitment=r.seed_commitment,
            header_json=r.header_json,
            creator_token=r.creator_token,
            invites={i.seat: i.code for i in r.invites},
            status=status,
        )

    # ------------------------------------------------------------------ the lobby

    async def join(
        self,
        invite: str | None = None,
        *,
        game_id: str = "",
        seat: int | None = None,
        contribute: bool = True,
    ) -> Joined:
        """Take a seat of a waiting table: the seat of ``invite``, or a seat of ``game_id``
        open to anyone (``seat``, or the first free). Raises :class:`Rejection` with reason
        ``InviteUsed``, ``TableFull``, ``GameStarted``, ``TableCancelled``, ``SeatNotOpen``.

        ``contribute`` adds 128 random bits to the deal, committed to now and revealed once
        the start is final (docs/rng.md, "Committed entropy"): this client reveals them by
        itself when it sees the table ``revealing``: at once if this join filled it, else
        while a stream or play channel of the seat waits for the deal, or when
        :meth:`GameClient.table` shows it."""
        entropy = secrets.token_bytes(ENTROPY_BYTES) if contribute else b""
        request = pb.JoinTableRequest(
            invite=invite or "",
            game_id=game_id,
            entropy_commitment=entropy_commitment(entropy) if entropy else b"",
        )
        if seat is not None:
            request.seat = seat
        r = await self._call(self.stub.JoinTable, request, ())
        if entropy:
            self._unrevealed[r.token] = (r.game_id, entropy)
        status = await self._reveal_if_final(r.game_id, r.status)  # this join made them final
        return Joined(r.game_id, r.seat, r.token, status)

    async def _reveal_if_final(self, game_id: str, status: str) -> str:
        """Once the seats of ``game_id`` are final (``status`` ``revealing``), reveal every seat
        of it this client holds entropy for; the table's status after the last. A reveal that
        fails is left for later: :meth:`GameClient.table`, ``stream()`` or ``play()``."""
        if status != "revealing":
            return status
        with contextlib.suppress(CallError):
            for token in [t for t, (g, _) in self._unrevealed.items() if g == game_id]:
                status = (await self.game(game_id, token).reveal()).status
        return status

    async def list_tables(
        self, game: str = "", *, page_size: int = 0, page_token: str = ""
    ) -> tuple[list[Table], str]:
        """One page of public tables waiting for players, newest first, and the token of the
        next page (``""``: none)."""
        request = pb.ListTablesRequest(game=game, page_size=page_size, page_token=page_token)
        r = await self._call(self.stub.ListTables, request, ())
        return [_table(t) for t in r.tables], r.next_page_token

    async def table(self, game_id: str) -> Table:
        """A public table (no token needed); :meth:`GameClient.table` for any other."""
        r = await self._call(self.stub.GetTable, pb.GetTableRequest(game_id=game_id), ())
        return _table(r.table)

    async def watch(self, game_id: str) -> GameClient:
        """A new spectator of a public table."""
        r = await self._call(self.stub.WatchTable, pb.WatchTableRequest(game_id=game_id), ())
        return self.game(game_id, r.spectator_token)

    async def my_games(self, tokens: Sequence[str]) -> list[tuple[str, Table]]:
        """``(viewer, table)`` of each token's game: the viewer is a seat number, ``spectator``
        or ``creator``."""
        r = await self._call(self.stub.ListMyGames, pb.ListMyGamesRequest(tokens=list(tokens)), ())
        return [(g.viewer, _table(g.table)) for g in r.games]

    async def abort(self, game_id: str) -> Table:
        """Abort any game as the administrator (the client's ``admin_key``)."""
        if not self.admin_key:
            raise ValueError("an administrator's abort needs the client's admin_key")
        r = await self._call(
            self.stub.AbortGame,
            pb.AbortGameRequest(game_id=game_id),
            [("x-cardcore-admin-key", self.admin_key)],
        )
        return _table(r.table)

    def game(self, game_id: str, token: str) -> GameClient:
        """The calls of one token (a seat or a spectator) in one game."""
        return GameClient(self, game_id, token)

    seat = game


@dataclass
class GameClient:
    """One token's view of one game."""

    client: Client
    game_id: str
    token: str
    _metadata: tuple[tuple[str, str], ...] = field(init=False)
    end_json: str = field(init=False, default="")
    """Once a stream has seen the game end: the log's end line (it reveals seed and salt)."""

    def __post_init__(self) -> None:
        self._metadata = (("authorization", f"Bearer {self.token}"),)

    async def reveal(self) -> Table:
        """Reveal the entropy this seat committed to when it joined (the table must be
        ``revealing``: :meth:`Client.join` says when). Done by itself by :meth:`table`,
        :meth:`stream` and :meth:`play` once the start is final."""
        held = self.client._unrevealed.get(self.token)
        if held is None:
            return await self.table()
        request = pb.RevealEntropyRequest(game_id=self.game_id, entropy=held[1])
        r = await self.client._call(self.client.stub.RevealEntropy, request, self._metadata)
        self.client._unrevealed.pop(self.token, None)
        table = _table(r.table)
        seen = {s.seat: s.entropy_commitment for s in table.seats if s.entropy_commitment}
        self.client._commitments_seen[self.game_id] = seen
        return table

    async def check_commitments(self) -> None:
        """Hold the dealt game's header to the commitments the table showed when this client
        revealed (docs/rng.md, "Committed entropy"): a server that swapped a seat's commitment
        after the reveals, to deal what it chose, is caught here. Raises :class:`CallError`
        (``DATA_LOSS``, ``CommitmentChanged``); nothing to check if this client revealed
        nothing. :meth:`stream` does it by itself once the game is dealt."""
        seen = self.client._commitments_seen.get(self.game_id)
        if seen is None:
            return
        data, _ = await self.log()
        _check_commitments(json.loads(data.split(b"\n", 1)[0]), seen)
        self.client._commitments_seen.pop(self.game_id, None)

    async def _reveal_at_start(self) -> None:
        """While this seat holds entropy to reveal: wait for the table's start to be final,
        then reveal it (a table cancelled meanwhile needs nothing)."""
        while self.token in self.client._unrevealed:
            t = await self.table()
            if t.status != "waiting":
                return
            await asyncio.sleep(REVEAL_POLL_S)

    def _revealing_in_background(self) -> asyncio.Task[None] | None:
        if self.token not in self.client._unrevealed:
            return None
        return asyncio.get_running_loop().create_task(self._reveal_at_start())

    async def submit(
        self,
        command: Mapping[str, Any] | Value | str,
        *,
        action_id: str | None = None,
        as_seat: int | None = None,
    ) -> SubmitResult:
        """Submit a command; retried with the same ``action_id`` until the server answers.
        Raises :class:`Rejection` when the game rejects it."""
        request = pb.SubmitActionRequest(
            game_id=self.game_id,
            action_id=action_id or uuid.uuid4().hex,
            command=_command(command),
        )
        if as_seat is not None:
            request.as_seat = as_seat
        r = await self.client._call(self.client.stub.SubmitAction, request, self._metadata)
        return SubmitResult(_entry(r.entry), _outcome(r), r.replayed)

    async def view(self) -> View:
        r = await self.client._call(
            self.client.stub.GetView, pb.GetViewRequest(game_id=self.game_id), self._metadata
        )
        return _view(r)

    def play(self, from_seq: int = 0, *, max_reconnects: int = 100) -> PlaySession:
        """The seat's play channel (gRPC ``Play``, docs/reference/play-channel.md): its acts,
        views and entries over one call, authenticated once, with its round trip measured.
        ``async with me.play() as session:`` opens it (and raises :class:`CallError` when the
        server refuses: a bad token, no such game), ``async for entry in session`` reads the
        entries from ``from_seq``, ``await session.act(command)`` and ``await session.view()``
        play. A dropped call is resumed, up to ``max_reconnects`` times in a row. Opened on a
        table not dealt yet, it waits for the deal (revealing this seat's entropy meanwhile)."""
        return PlaySession(self, from_seq, max_reconnects)

    async def resign(self, *, action_id: str | None = None) -> SubmitResult:
        """Leave the game (docs/games/common.md#leaving-a-game): an ordinary action, ``{"kind":
        "Resign"}``."""
        return await self.submit({"kind": "Resign"}, action_id=action_id)

    async def table(self) -> Table:
        """The table; one whose start is final gets this seat's reveal first, if it owes one."""
        r = await self.client._call(
            self.client.stub.GetTable, pb.GetTableRequest(game_id=self.game_id), self._metadata
        )
        table = _table(r.table)
        if table.status == "revealing" and self.token in self.client._unrevealed:
            return await self.reveal()
        return table

    async def start(self, fill_with: str = "reaction") -> Table:
        """Start the table now, its empty seats filled by bots (a creator token); the seats
        this client holds that committed to entropy reveal it at once."""
        request = pb.StartTableRequest(game_id=self.game_id, fill_with=_SEAT_KINDS[fill_with])
        r = await self.client._call(self.client.stub.StartTable, request, self._metadata)
        table = _table(r.table)
        if await self.client._reveal_if_final(self.game_id, table.status) != table.status:
            table = await self.table()  # the seats were final: ours are revealed
        return table

    async def abort(self) -> Table:
        """End the game at once, or cancel the waiting table (a creator token)."""
        r = await self.client._call(
            self.client.stub.AbortGame, pb.AbortGameRequest(game_id=self.game_id), self._metadata
        )
        return _table(r.table)

    async def log(self) -> tuple[bytes, bool]:
        """The log as JSON Lines, and whether it is complete (game over, seed revealed)."""
        r = await self.client._call(
            self.client.stub.GetLog, pb.GetLogRequest(game_id=self.game_id), self._metadata
        )
        return bytes(r.log_jsonl), bool(r.complete)

    async def stream(
        self,
        from_seq: int = 0,
        *,
        max_reconnects: int = 100,
        receipts: str | os.PathLike[str] | None = None,
    ) -> AsyncGenerator[Entry, None]:
        """Every entry from ``from_seq`` until the game ends, resuming after failures from the
        entry after the last one yielded: no gap, no duplicate.

        ``receipts``: a file that every entry received is appended to, as JSON Lines (after a
        first line naming the game and the viewer), to check later that the final log holds
        exactly what this client was shown: ``cardcore verify --receipts FILE FINAL``."""
        path = Path(receipts) if receipts is not None else None
        if path is not None:
            await self._start_receipts(path)
        headed = path is not None and _holds_header(path)
        async for entry in self._stream(from_seq, max_reconnects):
            await self.check_commitments()  # once, at the first entry after this seat revealed
            if path is not None:
                if not headed:  # the game is dealt now: keep its header too
                    data, _ = await self.log()
                    _append(path, data.split(b"\n", 1)[0].decode())
                    headed = True
                _append(path, entry.receipt_line())
            yield entry
        if path is not None and self.end_json:
            _append(path, self.end_json)  # seed and salt: the receipts now settle the game

    async def _start_receipts(self, path: Path) -> None:
        if path.exists() and path.stat().st_size:
            return  # resuming a file begun earlier
        [(viewer, _)] = await self.client.my_games([self.token])
        head = {
            "type": "receipts",
            "game_id": self.game_id,
            "viewer": "spectator" if viewer == "creator" else viewer,
        }
        path.write_text(json.dumps(head, sort_keys=True) + "\n", encoding="utf-8")

    async def _stream(self, from_seq: int, max_reconnects: int) -> AsyncIterator[Entry]:
        revealing = self._revealing_in_background()  # a table not dealt yet
        try:
            async for entry in self._entries(from_seq, max_reconnects):
                yield entry
        finally:
            if revealing is not None:
                revealing.cancel()

    async def _entries(self, from_seq: int, max_reconnects: int) -> AsyncIterator[Entry]:
        next_seq = from_seq
        failures = 0
        backoff = self.client.retry.first_backoff_s
        while True:
            call = self.client.stub.StreamEvents(
                pb.StreamEventsRequest(game_id=self.game_id, from_seq=next_seq),
                metadata=self._metadata,
                wait_for_ready=True,
            )
            try:
                async for batch in call:
                    for e in batch.entries:
                        if e.seq < next_seq:
                            continue  # already yielded before a reconnect
                        if e.seq != next_seq:
                            raise CallError("DATA_LOSS", "Gap", f"expected {next_seq}, got {e.seq}")
                        next_seq += 1
                        yield _entry(e)
                    failures = 0
                    backoff = self.client.retry.first_backoff_s
                    if batch.HasField("outcome"):
                        self.end_json = batch.end_json
                        return
                failures += 1  # ended without the outcome (server stopping): resume
                if failures > max_reconnects:
                    raise CallError("UNAVAILABLE", "StreamEnded", "the stream kept ending early")
            except grpc.aio.AioRpcError as exc:
                if exc.code() not in _STREAM_RETRYABLE or failures >= max_reconnects:
                    raise _error(exc) from None
                failures += 1
            finally:
                call.cancel()
            await asyncio.sleep(random.uniform(0, backoff))
            backoff = min(backoff * 2, self.client.retry.max_backoff_s)


class PlaySession:
    """One seat's play channel (:meth:`GameClient.play`): a ``Play`` call, reopened after a
    drop.

    A call that drops (``UNAVAILABLE``: a server stopping, a network cut; or ``FellBehind``) is
    opened again from the entry after the last one received, and every act without an answer
    is sent again with its ``action_id``: the server applies an act once, so the caller gets
    each entry once, in order, and each act one answer. Pings are answered as they come, so
    the server measures this seat's round trip (``rtt_ms`` in :meth:`view`).

    Entries wait here until read (``async for``): a session nobody reads keeps its game's
    entries in memory, never the server's."""

    def __init__(self, game: GameClient, from_seq: int, max_reconnects: int) -> None:
        self._game = game
        self._next_seq = from_seq
        """The seq of the next entry wanted: where a reopened call starts."""
        self._max_reconnects = max_reconnects
        self._entries: asyncio.Queue[Entry | CallError | None] = asyncio.Queue()
        """What ``async for`` reads: entries, then ``None`` at the end or the error."""
        self._acts: dict[str, tuple[pb.PlayAct, asyncio.Future[Ack]]] = {}
        """The acts sent and not answered yet, in the order sent: sent again on a new call."""
        self._views: deque[asyncio.Future[View]] = deque()
        """Views asked for, answered in order."""
        self._outbox: asyncio.Queue[pb.PlayRequest | None] | None = None
        """The current call's requests (``None`` while no call is open)."""
        self._opened: asyncio.Future[None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._revealing: asyncio.Task[None] | None = None
        """Reveals this seat's entropy once the start is final (a table not dealt yet)."""
        self._over = False
        self._failure: CallError | None = None
        self.seat: int | None = None
        """The token's seat (``None``: a spectator), once open."""
        self.ping_interval_ms = 0
        self.outcome: Outcome | None = None
        """Once the game is over: how it ended."""
        self.reconnects = 0
        """How many times a dropped call was opened again."""
        self._failures = 0
        """Calls that failed since the last ``ready``."""
        self._backoff = game.client.retry.first_backoff_s
        self._ended = False
        """The entries' end (``None`` or the error) is queued."""

    # ------------------------------------------------------------------ opening and closing

    async def __aenter__(self) -> PlaySession:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def open(self) -> None:
        """Open the call; returns once the server said ``ready`` (or raises its refusal)."""
        if self._task is not None:
            return
        self._opened = asyncio.get_running_loop().create_future()
        self._revealing = self._game._revealing_in_background()  # a table not dealt yet
        self._task = asyncio.create_task(self._run())
        await asyncio.wait({self._opened, self._task}, return_when=asyncio.FIRST_COMPLETED)
        if self._failure is not None:
            raise self._failure

    async def close(self) -> None:
        """End the call; acts still unanswered raise ``CANCELLED``."""
        if self._revealing is not None:
            self._revealing.cancel()
        if self._task is not None and not self._task.done():
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
        if self._failure is None:
            self._fail(CallError("CANCELLED", "SessionClosed", "the play session was closed"))

    @property
    def end_json(self) -> str:
        """Once the game is over: the log's end line (it reveals seed and salt)."""
        return self._game.end_json

    # ------------------------------------------------------------------ the caller's calls

    def __aiter__(self) -> PlaySession:
        return self

    async def __anext__(self) -> Entry:
        """The next entry, in seq order, with no gap and no duplicate across reconnects."""
        item = await self._entries.get()
        if item is None or isinstance(item, CallError):
            self._entries.put_nowait(item)  # the end stays the end for the next reader
            if item is None:
                raise StopAsyncIteration
            raise item
        return item

    async def act(
        self, command: Mapping[str, Any] | Value | str, *, action_id: str | None = None
    ) -> Ack:
        """One command for the seat: its :class:`Ack` once durable, or the :class:`Rejection`
        (:class:`CallError`) ``submit`` would raise. Once the game is over the act goes as a
        ``submit`` (the call has ended): its answer is the same."""
        if self._failure is not None:
            raise self._failure
        action_id = action_id or uuid.uuid4().hex
        if self._over:
            return await self._submit(command, action_id)
        if action_id in self._acts:  # the same act twice at once: one answer for both
            return await asyncio.shield(self._acts[action_id][1])
        request = pb.PlayAct(action_id=action_id, command=_command(command))
        answer: asyncio.Future[Ack] = asyncio.get_running_loop().create_future()
        self._acts[action_id] = (request, answer)
        if self._outbox is not None:  # else the next call sends it
            self._outbox.put_nowait(pb.PlayRequest(act=request))
        return await answer

    async def view(self) -> View:
        """The seat's view now, with ``rtt_ms``."""
        if self._failure is not None:
            raise self._failure
        if self._over:
            return await self._game.view()
        answer: asyncio.Future[View] = asyncio.get_running_loop().create_future()
        self._views.append(answer)
        if self._outbox is not None:
            self._outbox.put_nowait(pb.PlayRequest(view=pb.PlayViewRequest()))
        return await answer

    async def _submit(self, command: Mapping[str, Any] | Value | str, action_id: str) -> Ack:
        result = await self._game.submit(command, action_id=action_id)
        return Ack(action_id, result.entry.seq, result.replayed, result.outcome)

    # ------------------------------------------------------------------ the calls

    async def _run(self) -> None:
        """Calls until the game's end, as :meth:`GameClient.stream` resumes its streams (and
        with its client's :class:`_Retry` pauses): ``max_reconnects`` drops in a row at most,
        the count starting again at each ``ready``."""
        retry = self._game.client.retry
        try:
            while True:
                try:
                    if await self._one_call():
                        break  # the game is over
                    self._failures += 1  # ended without the end (a server stopping): resume
                    if self._failures > self._max_reconnects:
                        raise CallError("UNAVAILABLE", "PlayEnded", "the call kept ending early")
                except grpc.aio.AioRpcError as exc:
                    if _error(exc).reason == "GameNotStarted":  # not dealt yet: ask again
                        await asyncio.sleep(NOT_DEALT_RETRY_S)
                        continue
                    if exc.code() not in _PLAY_RETRYABLE or self._failures >= self._max_reconnects:
                        raise _error(exc) from None
                    self._failures += 1
                self.reconnects += 1
                await asyncio.sleep(random.uniform(0, self._backoff))  # full jitter, as _call's
                self._backoff = min(self._backoff * 2, retry.max_backoff_s)
        except CallError as err:
            self._fail(err)
            return
        self._ended = True
        self._entries.put_nowait(None)
        self._game_over()

    async def _one_call(self) -> bool:
        """One ``Play`` call, until it ends; whether it ended with the game's end."""
        outbox: asyncio.Queue[pb.PlayRequest | None] = asyncio.Queue()
        outbox.put_nowait(
            pb.PlayRequest(open=pb.PlayOpen(game_id=self._game.game_id, from_seq=self._next_seq))
        )
        for request, _ in self._acts.values():  # unanswered: again, with the same action_id
            outbox.put_nowait(pb.PlayRequest(act=request))
        for _ in self._views:
            outbox.put_nowait(pb.PlayRequest(view=pb.PlayViewRequest()))
        self._outbox = outbox
        call = self._game.client.stub.Play(
            _drain(outbox), metadata=self._game._metadata, wait_for_ready=True
        )
        try:
            async for response in call:
                if self._received(response, outbox):
                    return True
            return False
        finally:
            self._outbox = None
            outbox.put_nowait(None)
            call.cancel()

    def _received(self, r: pb.PlayResponse, outbox: asyncio.Queue[pb.PlayRequest | None]) -> bool:
        """Handle one message; whether it was the game's end."""
        kind = r.WhichOneof("frame")
        if kind == "ping":
            outbox.put_nowait(pb.PlayRequest(pong=pb.PlayPong(nonce=r.ping.nonce)))
        elif kind == "entry":
            if r.entry.seq >= self._next_seq:  # below: received before a reconnect
                if r.entry.seq != self._next_seq:
                    got = r.entry.seq
                    raise CallError("DATA_LOSS", "Gap", f"expected {self._next_seq}, got {got}")
                self._next_seq += 1
                self._entries.put_nowait(_entry(r.entry))
        elif kind == "ack":
            found = self._acts.pop(r.ack.action_id, None)
            if found is not None and not found[1].done():
                ack = Ack(r.ack.action_id, r.ack.seq, r.ack.replayed, _outcome(r.ack))
                found[1].set_result(ack)
        elif kind == "rejected":
            found = self._acts.pop(r.rejected.action_id, None)
            if found is not None and not found[1].done():
                found[1].set_exception(_problem(r.rejected.problem))
        elif kind == "view":
            if self._views:
                answer = self._views.popleft()
                if not answer.done():
                    answer.set_result(_view(r.view))
        elif kind == "ready":
            self.seat = r.ready.seat if r.ready.HasField("seat") else None
            self.ping_interval_ms = r.ready.ping_interval_ms
            self._failures = 0
            self._backoff = self._game.client.retry.first_backoff_s
            if self._opened is not None and not self._opened.done():
                self._opened.set_result(None)
        elif kind == "end":
            self.outcome = _outcome(r.end)
            self._game.end_json = r.end.end_json
            self._over = True
            return True
        return False

    def _game_over(self) -> None:
        """The call ended with the game: acts it left unanswered (sent as it ended) get their
        answer from ``submit``, views from ``view``."""
        for action_id, (request, answer) in list(self._acts.items()):
            self._acts.pop(action_id)
            task = asyncio.ensure_future(self._submit(_value(request.command), action_id))
            _chain(task, answer)
        while self._views:
            _chain(asyncio.ensure_future(self._game.view()), self._views.popleft())

    def _fail(self, err: CallError) -> None:
        """The session cannot go on: every waiter gets ``err``."""
        if self._failure is None:
            self._failure = err
        for _, answer in self._acts.values():
            if not answer.done():
                answer.set_exception(err)
        self._acts.clear()
        while self._views:
            answer_view = self._views.popleft()
            if not answer_view.done():
                answer_view.set_exception(err)
        if self._opened is not None and not self._opened.done():
            self._opened.set_result(None)
        if not self._ended:
            self._ended = True
            self._entries.put_nowait(err)


async def _drain(outbox: asyncio.Queue[pb.PlayRequest | None]) -> AsyncIterator[pb.PlayRequest]:
    """A call's requests: what is put in ``outbox``, until ``None``."""
    while (request := await outbox.get()) is not None:
        yield request


def _chain(source: asyncio.Future[Any], target: asyncio.Future[Any]) -> None:
    """``target`` gets ``source``'s outcome when it has one."""

    def copy(done: asyncio.Future[Any]) -> None:
        if target.done():
            return
        if done.cancelled():
            target.cancel()
        elif (exc := done.exception()) is not None:
            target.set_exception(exc)
        else:
            target.set_result(done.result())

    source.add_done_callback(copy)
