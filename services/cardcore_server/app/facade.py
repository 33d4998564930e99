"""The application layer: what every transport calls (gRPC now, REST next). No transport here.

Each public method takes plain Python values (the transport has already parsed its wire format)
and returns plain dataclasses or raises :class:`~.errors.ServiceError`. The flow of an action is
the one of design.md §4: authenticate (the seat comes from the token, never from the payload) →
decode the command → the game's sequencer (stamp ``at_ms``, decide, apply, enqueue to the store)
→ wait until durable → redact for the caller (:mod:`.redaction`) → answer.

Request-scoped facts for the one log line per request (``game_id``, ``seat``, ``seq``) are put in
:data:`request_fields`; the transport writes the line.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import contextvars
import hashlib
import hmac
import itertools
import math
import re
import secrets
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, TypeVar

import structlog

from cardcore import codec, registry
from cardcore.engine import (
    DEFAULT_EVENT_LIMIT,
    Outcome,
    Role,
    Viewer,
    rule_flags,
    seats_phrase,
)
from cardcore.errors import DecodeError, InvalidSetup, Rejected, UnknownGame
from cardcore.kit import Resign
from cardcore.log import SALT_BYTES, commitment, dumps
from cardcore.rng import ENTROPY_BYTES, MAX_SEED

from .. import redaction
from ..errors import FieldViolation, Reason, ServiceError, Status, invalid
from ..limits import RateLimits, TrustedProxies
from ..live import (
    CLIENT_WAIT_S,
    ActionIdReused,
    AnyGame,
    LiveGame,
    RebuildError,
    Unavailable,
    wall_ms,
)
from ..metrics import Metrics
from ..redaction import RedactedEntry, Value
from ..sealing import Sealer
from ..signing import ServerKey, load_key
from ..store import EventStore, GameRecord, SeatSpec, SharedStore, StoreError
from ..tables import SeatOpen, TableStatus
from .lobby import CREATOR, INVITE_PREFIX, Lobby, invite_hash, new_table

log = structlog.get_logger("cardcore_server")

T = TypeVar("T")

request_fields: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "cardcore_request_fields", default=None
)

SEAT_KINDS: Final = ("human", "random", "reaction")
MAX_JSON: Final = 64 * 1024
MAX_SEATS: Final = 8
"""The most seats any game takes (tests/service/test_api.py checks it against the registry):
a request with more is refused before any per-seat work, so it cannot stall the server."""
MAX_TIMEOUTS: Final = 16
"""The most ``timeouts_ms`` entries a request may carry (a game has a handful of timed kinds)."""
MAX_DELAY_MS: Final = 600_000
MAX_TIMER_MS: Final = 7 * 86_400_000
"""The longest turn, idle, abandonment or start-deadline clock a table may set (a week)."""
MAX_EVENT_LIMIT: Final = 10_000_000
_GAME_ID_RE: Final = re.compile(r"^[0-9a-f]{32}$")
_ACTION_ID_RE: Final = re.compile(r"^[\x21-\x7e]{1,128}$")
_KEY_RE: Final = re.compile(r"^[A-Za-z0-9_-]{1,128}$")
_HEX_RE: Final = re.compile(r"^[0-9a-fA-F]+$")
KEY_BITS: Final = 128
"""The least randomness an idempotency key must show (:func:`check_idempotency_key`)."""
KEY_RULE: Final = (
    "a random secret of 32 to 128 hex digits, or 22 to 128 characters of A-Z a-z 0-9 - _ "
    "(e.g. a random UUID)"
)
TOKEN_PREFIX: Final = "cct_"
LEASE_RENEW_S: Final = 1.0
"""How often a server on a shared store renews its lease and looks for orphaned games (the
lease lasts :data:`.store_postgres.LEASE_TTL_S`)."""
CLAIM_BATCH: Final = 16
"""Orphaned games one server takes over per look (spreads a dead server's games)."""
COMMAND_CACHE: Final = 4096
"""Decoded commands kept, by game, kind and JSON text."""
COMMAND_CACHE_TEXT: Final = 256
"""Only commands sent as at most this many characters are kept (so the cache stays small)."""
REBUILD_RETRY_S: Final = 5.0
"""How long a game whose stored log did not rebuild is answered ``UNAVAILABLE`` before the
rebuild is tried again (a store that could not be read is retried at once)."""


def _note(**fields: Any) -> None:
    current = request_fields.get()
    if current is not None:
        current.update(fields)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class ServiceConfig:
    """Server policy. The defaults are the safe ones."""

    allow_client_seed: bool = False
    """Accept a client-chosen seed (tests, tournaments); otherwise the seed comes from
    :mod:`secrets` and is revealed only in the final log."""
    admin_key: str | None = None
    """When set, creating a game needs this key (required when bound beyond loopback)."""
    default_timeouts_ms: Mapping[str, int] = field(default_factory=lambda: {"Collect": 2000})
    """Timed actions for idle human seats by command kind, applied to games that have the kind
    (the ERS collect window by default); a game's request may override or turn them off."""
    stream_batch: int = 1000
    """Entries per stream message at most."""
    start_deadline_ms: int = 15 * 60_000
    """How long a table waits for its seats by default before it is cancelled."""
    retain_days: float | None = None
    """``--retain-days``: finished games older than this are archived and removed."""
    archive_dir: str | None = None
    """``--archive``: where retention writes each removed game's final log."""
    server_key_path: str | None = None
    """``--server-key``: a PEM Ed25519 private key to sign logs with (else the store's own)."""
    secrets_key: bytes | None = None
    """``--secrets-key``: 32 bytes that seal games' seeds and salts at rest (:mod:`.sealing`)."""
    rate_per_token: float = 0.0
    """``--rate-limit``: requests per second per bearer token (burst twice that; 0: off)."""
    rate_per_address: float = 0.0
    """``--rate-limit-address``: requests per second per client address (0: off)."""
    trusted_proxies: tuple[str, ...] = ()
    """``--trusted-proxy``: networks (CIDR) of proxies whose ``X-Forwarded-For`` names the
    client's address; from any other peer the header is ignored (:mod:`.limits`)."""
    cors_origins: tuple[str, ...] = ()  # --cors-origin: browser origins allowed to call REST


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class FlagEntry:
    name: str
    default_json: str
    schema_json: str
    help: str


@dataclass(frozen=True, slots=True)
class CatalogueEntry:
    name: str
    title: str
    rules_version: str
    min_seats: int
    max_seats: int
    realtime: bool
    aliases: tuple[str, ...]
    flags: tuple[FlagEntry, ...]
    command_schema_json: str
    event_schema_json: str
    view_schema_json: str


@dataclass(frozen=True, slots=True)
class GameSpec:
    """What a client asks for when it creates a game."""

    game: str
    seats: Sequence[SeatSpec]
    rules_json: str = ""
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
    idempotency_key: str = ""
    """A client's random key for this creation: a retry with the same key and request, from
    the same caller, gets the same game and the same tokens, never a second game (a lost
    answer is safe to retry). It is a secret (:func:`check_idempotency_key`)."""


@dataclass(frozen=True, slots=True)
class CreatedGame:
    game_id: str
    seat_tokens: tuple[tuple[int, str], ...]
    spectator_token: str
    seed_commitment: str
    header_json: str
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
    end_json: str = ""
    """With the outcome: the log's end line (canonical JSON; it reveals seed and salt, so the
    viewer's own copy settles the game: ``cardcore verify``)."""


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


@dataclass(frozen=True, slots=True)
class LogResult:
    log_jsonl: bytes
    complete: bool


def _catalogue_entry(game: AnyGame) -> CatalogueEntry:
    info = game.info
    return CatalogueEntry(
        name=info.name,
        title=info.title,
        rules_version=info.rules_version,
        min_seats=info.min_seats,
        max_seats=info.max_seats,
        realtime=info.realtime,
        aliases=tuple(info.aliases),
        flags=tuple(
            FlagEntry(
                f.name, codec.canonical_text(f.default), codec.canonical_text(f.schema), f.help
            )
            for f in rule_flags(game.rules_type)
        ),
        command_schema_json=codec.canonical_text(codec.union_schema(game.command_types)),
        event_schema_json=codec.canonical_text(codec.union_schema(game.event_types)),
        view_schema_json=codec.canonical_text(codec.json_schema(game.view_type)),
    )


def _viewer_text(viewer: Viewer) -> str:
    return str(viewer.value) if isinstance(viewer, Role) else str(viewer)


def _parse_viewer(text: str) -> Viewer:
    if text == CREATOR:
        return Role.SPECTATOR  # the creator sees what a spectator sees
    return Role(text) if not text.isdigit() else int(text)


# --------------------------------------------------------------------------- the application


class Application:
    """The service's application layer over one :class:`~.store.EventStore`."""

    def __init__(self, store: EventStore, config: ServiceConfig | None = None) -> None:
        self.store = store
        self.config = config or ServiceConfig()
        self.games: dict[str, LiveGame] = {}
        self._tokens: dict[str, tuple[str, str]] = {}
        self._known: set[str] = set()
        self._failed_until: dict[str, float] = {}
        """Games whose stored log did not rebuild → when to try again (monotonic seconds)."""
        self._loading: dict[str, asyncio.Lock] = {}
        self._catalogue: tuple[CatalogueEntry, ...] | None = None
        self._commands: dict[tuple[str, str, str], tuple[Any, str]] = {}
        self._creations = _Creations()
        self.closing = False
        self.shared: SharedStore | None = store if isinstance(store, SharedStore) else None
        """Set when other server processes serve the same games (PostgreSQL)."""
        self._lease_task: asyncio.Task[None] | None = None
        self.lobby = Lobby(self)
        """Tables, joins, abort, listing, presence, retention (:mod:`.lobby`)."""
        self.key: ServerKey | None = None
        """The key every log is signed with (:mod:`.signing`), loaded by :meth:`start`."""
        self.metrics = Metrics(lambda: sum(1 for g in self.games.values() if not g.over))
        """What ``GET /metrics`` serves (:mod:`.metrics`)."""
        store.on_commit = self.metrics.committed
        store.sealer = Sealer(self.config.secrets_key)
        self.limits = RateLimits(self.config.rate_per_token, self.config.rate_per_address)
        """Checked by each transport before any work (:mod:`.limits`)."""
        self.proxies = TrustedProxies(self.config.trusted_proxies)
        """Whose ``X-Forwarded-For`` names the client (the rate limit's address)."""

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> int:
        """Open the store and rebuild the unfinished games this server runs (all of them on a
        store of its own; on a shared store, those it takes over: the others load on first
        use); returns how many were rebuilt."""
        if self.shared is not None:
            self.shared.watch(self._on_store_change)
        await self.store.open()
        self.key = await load_key(self.store, self.config.server_key_path)
        self._tokens = await self.store.tokens()
        self._known = {g for g, _ in self._tokens.values()}
        await self.lobby.open()
        if self.shared is not None:
            with contextlib.suppress(StoreError):
                await self._lease_tick()
            self._lease_task = asyncio.get_running_loop().create_task(self._lease_loop())
            return len(self.games)
        rebuilt = 0
        for game_id in await self.store.unfinished():
            self._known.add(game_id)
            try:
                await self._load(game_id)
                rebuilt += 1
            except ServiceError:
                pass
        return rebuilt

    def begin_shutdown(self) -> None:
        """Refuse new calls and end open streams (``UNAVAILABLE``/``ShuttingDown``: clients
        resume from their last ``seq`` on the next server); in-flight actions still finish."""
        self.closing = True
        for game in self.games.values():
            game.drain()  # queued actions: UNAVAILABLE now, a retryable answer
            game.wake()
        self.lobby.wake_streams()  # streams waiting for a table's deal

    def drain_all(self) -> None:
        """The grace period is ending: answer every action still in flight ``UNAVAILABLE``
        (retry with the same ``action_id``), before the transports cancel their calls."""
        for game in self.games.values():
            game.drain(in_round=True)

    async def close(self) -> None:
        """Stop timers, let pending writes land, hand this server's games over, close the
        store."""
        self.closing = True
        await self.lobby.close()
        if self._lease_task is not None:
            self._lease_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._lease_task
        for game in list(self.games.values()):
            await game.close()
        if self.shared is not None:
            try:
                await self.shared.release()
            except StoreError as exc:
                log.warning("lease_release_failed", error=str(exc))
        await self.store.close()

    # ------------------------------------------------------------------ other processes

    def _on_store_change(self, game_id: str | None, version: int | None) -> None:
        """A hint that another process wrote to ``game_id`` (``None``: to any game): catch up
        the games loaded here, so their streams and timers see the new entries."""
        if self.closing:
            return
        for gid in list(self.games) if game_id is None else [game_id]:
            live = self.games.get(gid)
            if live is None:
                continue  # not served here: loaded from the store on first use
            if version is not None and version <= live.version:
                continue  # already seen (our own catch-up got there first)
            live.request_sync()

    async def _lease_loop(self) -> None:
        while not self.closing:
            await asyncio.sleep(LEASE_RENEW_S)
            try:
                await self._lease_tick()
            except StoreError as exc:
                log.warning("lease_renew_failed", error=str(exc))

    async def _lease_tick(self) -> None:
        """Renew this server's lease, line up which games it owns, take over orphans."""
        assert self.shared is not None
        loaded = list(self.games.items())  # not games created while we ask (they are ours)
        owned = await self.shared.renew_lease()
        for game_id, live in loaded:
            live.set_owned(game_id in owned)
        claimed = await self.shared.claim_orphans(CLAIM_BATCH)
        for game_id, previous in claimed:
            log.info("game_taken_over", game_id=game_id, previous_owner=previous or "")
            owned.add(game_id)
        for game_id in owned:
            mine = self.games.get(game_id)
            if mine is None or mine.broken:
                self._known.add(game_id)
                try:
                    mine = await self._load(game_id)
                except ServiceError:
                    continue
            mine.set_owned(True)

    async def _load(self, game_id: str) -> LiveGame:
        lock = self._loading.setdefault(game_id, asyncio.Lock())
        async with lock:
            live = self.games.get(game_id)
            if live is not None and not live.broken:
                return live
            if live is not None:  # its stored rows did not apply: rebuild from the store
                await live.close()
                del self.games[game_id]
            retry_at = self._failed_until.get(game_id)
            if retry_at is not None and time.monotonic() < retry_at:
                raise _unavailable("the game could not be rebuilt")
            try:
                stored = await self.store.load(game_id)
            except StoreError as exc:
                log.warning("load_failed", game_id=game_id, error=str(exc))
                raise _unavailable("the game could not be loaded") from None
            if stored is None:
                raise await self._not_dealt(game_id)
            try:
                game = registry.get_game(stored.record.game)
                live = LiveGame.restore(game, stored, self.store, sign=self.sign)
            except (RebuildError, UnknownGame, InvalidSetup) as exc:
                self._failed_until[game_id] = time.monotonic() + REBUILD_RETRY_S
                log.error("rebuild_failed", game_id=game_id, error=str(exc))
                raise _unavailable("the game could not be rebuilt") from None
            self._failed_until.pop(game_id, None)
            live.on_auto = self._timer_fired
            self.games[game_id] = live
            if not live.over:
                live.plan()
                log.info("game_rebuilt", game_id=game_id, seq=live.match.seq, owned=live.owned)
            return live

    async def _not_dealt(self, game_id: str) -> ServiceError:
        """Why a game has no log: a table still waiting, a cancelled one, or none at all."""
        try:
            table = await self.store.load_table(game_id)
        except StoreError:
            return _unavailable("the game could not be loaded")
        if table is not None and table.status is TableStatus.WAITING:
            return ServiceError(
                Status.FAILED_PRECONDITION,
                Reason.GAME_NOT_STARTED,
                "the table is waiting for players (GetTable shows its seats)",
            )
        if table is not None and table.status is TableStatus.CANCELLED:
            return ServiceError(
                Status.FAILED_PRECONDITION,
                Reason.TABLE_CANCELLED,
                "the table was cancelled before it started",
            )
        return ServiceError(Status.NOT_FOUND, Reason.GAME_NOT_FOUND, "no such game")

    # ------------------------------------------------------------------ for the lobby

    def check_open(self) -> None:
        if self.closing:
            raise ServiceError(Status.UNAVAILABLE, Reason.SHUTTING_DOWN, "the server is stopping")

    @staticmethod
    def check_game_id(game_id: str) -> None:
        if not _GAME_ID_RE.match(game_id or ""):
            raise invalid("game_id", "must be 32 lowercase hex digits")

    @staticmethod
    def new_token() -> str:
        return TOKEN_PREFIX + secrets.token_urlsafe(32)

    def remember_token(self, token: str, game_id: str, viewer: str) -> None:
        self._tokens[token_hash(token)] = (game_id, viewer)
        self._known.add(game_id)

    async def find_token(self, token: str) -> tuple[str, str] | None:
        """``(game_id, viewer text)`` of a token, or None."""
        if not token.startswith(TOKEN_PREFIX) or len(token) > 128:
            return None
        found = self._tokens.get(token_hash(token))
        if found is None and self.shared is not None:
            found = await self._shared_token(token_hash(token))
        return found

    async def token_game(self, token: str | None, game_id: str) -> str:
        """The viewer text of ``token``, which must be a token of ``game_id``."""
        self.check_open()
        if not token:
            raise ServiceError(
                Status.UNAUTHENTICATED, Reason.MISSING_TOKEN, "send `authorization: Bearer <token>`"
            )
        found = await self.find_token(token)
        if found is None:
            raise ServiceError(Status.UNAUTHENTICATED, Reason.INVALID_TOKEN, "unknown token")
        self.check_game_id(game_id)
        if found[0] != game_id:
            raise ServiceError(
                Status.PERMISSION_DENIED, Reason.WRONG_GAME, "the token is for another game"
            )
        _note(game_id=game_id, seat=found[1])
        return found[1]

    async def live(self, game_id: str) -> LiveGame:
        """The game served here (loaded from the store if need be, caught up with others)."""
        live = self.games.get(game_id)
        if live is None or live.broken:
            self._known.add(game_id)
            live = await self._load(game_id)
        if self.shared is not None:
            try:
                await live.sync()
            except Unavailable:
                live = await self._load(game_id)
        return live

    def adopt(self, live: LiveGame) -> None:
        """Serve a game this server just dealt (a table that started here)."""
        live.on_auto = self._timer_fired
        self._known.add(live.game_id)
        self.games[live.game_id] = live
        live.plan()

    async def forget(self, game_id: str) -> None:
        """A game left the store (retention): drop it and its tokens from memory."""
        live = self.games.pop(game_id, None)
        if live is not None:
            await live.close()
        self._known.discard(game_id)
        for h in [h for h, (g, _) in self._tokens.items() if g == game_id]:
            del self._tokens[h]

    # ------------------------------------------------------------------ authentication

    async def _auth(
        self, token: str | None, game_id: str, *, sync: bool = True
    ) -> tuple[LiveGame, Viewer]:
        if self.closing:
            raise ServiceError(Status.UNAVAILABLE, Reason.SHUTTING_DOWN, "the server is stopping")
        if not token:
            raise ServiceError(
                Status.UNAUTHENTICATED, Reason.MISSING_TOKEN, "send `authorization: Bearer <token>`"
            )
        found = self._tokens.get(token_hash(token)) if token.startswith(TOKEN_PREFIX) else None
        if found is None and self.shared is not None and token.startswith(TOKEN_PREFIX):
            found = await _bounded(self._shared_token(token_hash(token)))
        if found is None:
            raise ServiceError(Status.UNAUTHENTICATED, Reason.INVALID_TOKEN, "unknown token")
        if not _GAME_ID_RE.match(game_id or ""):
            raise invalid("game_id", "must be 32 lowercase hex digits")
        if game_id not in self._known:
            raise ServiceError(Status.NOT_FOUND, Reason.GAME_NOT_FOUND, "no such game")
        token_game, viewer_text = found
        if token_game != game_id:
            raise ServiceError(
                Status.PERMISSION_DENIED, Reason.WRONG_GAME, "the token is for another game"
            )
        viewer = _parse_viewer(viewer_text)
        _note(game_id=game_id, seat=viewer_text)
        live = self.games.get(game_id)
        if live is None or live.broken:
            live = await _bounded(self._load(game_id))
        if sync and self.shared is not None:
            # Show what other processes wrote too (a submit needs no look first: its commit
            # is refused if the game moved on, and the sequencer then catches up).
            try:
                await _bounded(live.sync())
            except Unavailable:
                live = await _bounded(self._load(game_id))
            except _Slow:
                pass  # the store does not answer: what this server holds is the answer
        return live, viewer

    async def _shared_token(self, digest: str) -> tuple[str, str] | None:
        """A token of a game another process created (cached once found)."""
        assert self.shared is not None
        try:
            found = await self.shared.find_token(digest)
        except StoreError:
            raise _unavailable("the store could not be read") from None
        if found is not None:
            self._tokens[digest] = found
            self._known.add(found[0])
        return found

    # ------------------------------------------------------------------ catalogue and create

    def _timer_fired(self, kind: str) -> None:
        self.metrics.timers.labels(kind).inc()

    async def readiness(self) -> str | None:
        """Why this server should not get new traffic now (None: ready): it is stopping, or
        its store does not answer."""
        if self.closing:
            return "the server is stopping"
        try:
            await self.store.ping()
        except (StoreError, TimeoutError):
            return "the store does not answer"
        return None

    @property
    def sign(self) -> Callable[[str], dict[str, str]] | None:
        """How this server signs a log line's hash (None before :meth:`start`)."""
        return self.key.sign if self.key is not None else None

    @property
    def server_key(self) -> str:
        """The public key logs are signed with (base64url), once started."""
        return self.key.public if self.key is not None else ""

    def list_games(self) -> tuple[CatalogueEntry, ...]:
        """Every registered game, its flags and the JSON Schemas of its values."""
        if self._catalogue is None:
            self._catalogue = tuple(_catalogue_entry(g) for g in registry.GAMES)
        return self._catalogue

    async def create_game(
        self, spec: GameSpec, admin_key: str | None = None, credential: str | None = None
    ) -> CreatedGame:
        """Deal a new game; returns its id, tokens and seed commitment once it is durable.
        ``credential``: the caller's own (its ``authorization`` header), which scopes its
        idempotency keys, as the admin key does (:meth:`_key_scope`)."""
        self.check_open()
        self._check_admin_key(admin_key)
        plan = self._plan(spec)
        key = spec.idempotency_key
        if not key:
            return await self._deal(spec, plan, self._minter(""), secrets.token_hex(16), None)
        check_idempotency_key(key)
        request = _request_hash(spec, plan.game.info.name)
        mint = self._minter(key, self._key_scope(admin_key, credential))
        game_id = mint("game")[-32:]
        # Retries of one creation, at once: one deals, the others wait for it and answer as a
        # retry after it would (each dealing too would fail all but one on the game's key).
        async with self._creations.one_at_a_time(game_id) as waited:
            again = await self._created_before(game_id, request, mint)
            if again is not None:
                _note(joined=waited)  # the request line: a retry, and whether it waited
                return again
            try:
                return await self._deal(spec, plan, mint, game_id, request)
            except ServiceError as exc:
                if exc.reason != Reason.STORE_UNAVAILABLE:
                    raise
                # Another server may have dealt it meanwhile: then ours failed on its key.
                again = await self._created_before(game_id, request, mint)
                if again is None:
                    raise
                log.info("create_retry_raced", game_id=game_id)
                return again

    def _key_scope(self, admin_key: str | None, credential: str | None) -> str:
        """Whose idempotency key it is: a digest of the caller's credentials (the admin key,
        on a server that has one, and the caller's own), or "" for a caller with none. Keys of
        different scopes never meet: the same key sent by another caller makes another game,
        and tells nothing of this one."""
        parts = []
        if self.config.admin_key is not None and admin_key:
            parts.append("admin:" + admin_key)
        if credential:
            parts.append("own:" + credential)
        if not parts:
            return ""
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()

    def _check_admin_key(self, admin_key: str | None) -> None:
        required = self.config.admin_key
        if required is None:
            return
        if not admin_key:
            raise ServiceError(
                Status.UNAUTHENTICATED,
                Reason.ADMIN_KEY_REQUIRED,
                "creating games needs the admin key",
            )
        if not hmac.compare_digest(admin_key.encode(), required.encode()):
            raise ServiceError(
                Status.PERMISSION_DENIED, Reason.ADMIN_KEY_REQUIRED, "wrong admin key"
            )

    def _plan(self, spec: GameSpec) -> _Plan:
        """The request checked, field by field, before anything is made of it."""
        try:
            game = registry.get_game(spec.game)
        except UnknownGame:
            known = ", ".join(g.info.name for g in registry.GAMES)
            raise invalid("game", f"unknown game; known: {known}") from None
        lo, hi = game.info.min_seats, game.info.max_seats
        if not lo <= len(spec.seats) <= hi:  # first: the count bounds every later loop
            raise invalid(
                "seats", f"{game.name} takes {seats_phrase(lo, hi)}, got {len(spec.seats)}"
            )
        if len(spec.timeouts_ms) > MAX_TIMEOUTS:
            raise invalid("timeouts_ms", f"at most {MAX_TIMEOUTS} entries")
        rules = _parse_json_object(spec.rules_json, "rules_json")
        seats = _checked_seats(spec.seats)
        seed = self._seed(spec)
        if not 0 <= spec.event_limit <= MAX_EVENT_LIMIT:
            raise invalid("event_limit", f"must be 0..{MAX_EVENT_LIMIT}")
        timeouts = self._timeouts(game, spec)
        opens = _seat_opens(spec, seats)
        timers = _clocks(game, spec)
        try:
            setup = game.make_setup(
                len(seats), seed, rules, spec.event_limit or DEFAULT_EVENT_LIMIT
            )
        except InvalidSetup as exc:
            raise _setup_error(exc) from None
        except (TypeError, ValueError) as exc:
            raise invalid("rules_json", type(exc).__name__) from None
        return _Plan(game, rules, seats, seed, setup.event_limit, timeouts, opens, timers)

    def _seed(self, spec: GameSpec) -> int:
        if spec.seed is None:
            return secrets.randbits(64)
        if not self.config.allow_client_seed:
            raise ServiceError(
                Status.PERMISSION_DENIED,
                Reason.SEED_NOT_ALLOWED,
                "this server chooses seeds (start it with --allow-client-seed to allow them)",
            )
        if not 0 <= spec.seed <= MAX_SEED:
            raise invalid("seed", "must be in [0, 2**64)")
        return spec.seed

    def _timeouts(self, game: AnyGame, spec: GameSpec) -> dict[str, int]:
        """The timed actions: the server's defaults for the game's kinds, then the request's."""
        kinds = {t.__name__ for t in game.command_types}
        timeouts = {k: v for k, v in self.config.default_timeouts_ms.items() if k in kinds}
        for kind, ms in spec.timeouts_ms.items():
            if kind not in kinds:
                raise invalid(f"timeouts_ms.{kind}", f"not a command of {game.name}")
            if not 0 <= ms <= MAX_DELAY_MS:
                raise invalid(f"timeouts_ms.{kind}", f"must be 0..{MAX_DELAY_MS} ms")
            timeouts[kind] = ms
        return timeouts

    async def _deal(
        self,
        spec: GameSpec,
        plan: _Plan,
        mint: Callable[[str], str],
        game_id: str,
        request: str | None,
    ) -> CreatedGame:
        """Make the game (or the table, when a seat is open) and store it."""
        record = GameRecord(
            game_id=game_id,
            game=plan.game.info.name,
            rules=plan.rules,
            event_limit=plan.event_limit,
            seed=plan.seed,
            salt=secrets.token_bytes(SALT_BYTES),
            created_ms=wall_ms(),
            seats=plan.seats,
            timeouts_ms=plan.timeouts,
            turn_timeout_ms=plan.timers["turn_timeout_ms"],
            idle_timeout_ms=plan.timers["idle_timeout_ms"],
            abandon_timeout_ms=plan.timers["abandon_timeout_ms"],
            # A seed the client chose (tests, tournaments) is the deal's seed itself: log format
            # 1, reproducible from it alone; the seats' entropy is for seeds the server draws.
            contributions=(
                _contributions(spec, plan.seats, plan.opens) if spec.seed is None else None
            ),
            request=request,
        )
        seat_tokens = _creator_seats(record, plan.opens, mint)
        spectator = mint("spectator")
        creator = mint("creator")
        rows = [(token_hash(t), str(seat)) for seat, t in seat_tokens]
        rows.append((token_hash(spectator), Role.SPECTATOR.value))
        rows.append((token_hash(creator), CREATOR))
        made = CreatedGame(game_id, seat_tokens, spectator, "", "{}", creator)
        if any(plan.opens):
            return await self._open_table(spec, plan, record, mint, rows=rows, made=made)
        live = LiveGame.create(plan.game, record, self.store, sign=self.sign)
        write = self.store.create(record, live.lines[0], live.lines[1], rows)
        try:
            await write
        except StoreError:
            raise _unavailable("the store could not record the game") from None
        live.created()
        for h, v in rows:
            self._tokens[h] = (game_id, v)
        self.adopt(live)
        _note(game_id=game_id, seq=0)
        header = live.lines[0]
        return replace(
            made,
            seed_commitment=str(header["commitment"]),
            header_json=codec.canonical_text(header),
        )

    async def _open_table(
        self,
        spec: GameSpec,
        plan: _Plan,
        record: GameRecord,
        mint: Callable[[str], str],
        *,
        rows: list[tuple[str, str]],
        made: CreatedGame,
    ) -> CreatedGame:
        """A game with open seats: a table that deals when its seats are filled."""
        gid = record.game_id
        invites = _invites(plan.opens, mint)
        watch = mint("watch") if spec.public else ""
        if watch:
            rows.append((token_hash(watch), Role.SPECTATOR.value))
        deadline = spec.start_deadline_ms or self.config.start_deadline_ms
        table = new_table(record, plan.opens, deadline, watch)
        try:
            await self.store.create_table(
                table, [(invite_hash(code), seat) for seat, code in invites], rows
            )
        except StoreError:
            raise _unavailable("the store could not record the table") from None
        for h, v in rows:
            self._tokens[h] = (gid, v)
        self._known.add(gid)
        self.lobby.arm_deadline(table)
        _note(game_id=gid, seq=0)
        return replace(
            made,
            seed_commitment=commitment(record.seed, record.salt),
            header_json="{}",  # written at the deal, with the seats' contributions
            invites=invites,
            status="waiting",
        )

    def _minter(self, key: str, scope: str = "") -> Callable[[str], str]:
        """Tokens, invites and the game id of a creation: random, or — with an idempotency
        key — derived from it and its caller's ``scope`` under a secret of this server's
        (:meth:`.signing.ServerKey.derive`), so a retry mints exactly the same ones (and
        nothing new is stored)."""
        if not key or self.key is None:
            return lambda label: (
                INVITE_PREFIX + secrets.token_urlsafe(24)
                if label.startswith("invite")
                else self.new_token()
            )
        # A key has no "|" (check_idempotency_key), so no key of one scope spells another's.
        base = f"create|{scope}|{key}" if scope else f"create|{key}"

        def derived(label: str) -> str:
            raw = self.key.derive(f"{base}|{label}") if self.key else b""
            text = base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
            if label == "game":
                return raw.hex()
            return (
                (INVITE_PREFIX + text[:32]) if label.startswith("invite") else TOKEN_PREFIX + text
            )

        return derived

    async def _created_before(
        self, game_id: str, request: str | None, mint: Callable[[str], str]
    ) -> CreatedGame | None:
        """The answer a creation with this idempotency key got, if it landed before."""
        try:
            stored = await self.store.load(game_id)
            table = await self.store.load_table(game_id) if stored is None else None
        except StoreError:
            raise _unavailable("the store could not be read") from None
        record = stored.record if stored is not None else table.record if table else None
        if record is None:
            return None
        over = stored is not None and stored.lines[-1].get("type") == "end"
        if over or (table is not None and table.status is TableStatus.CANCELLED):
            # The key expires with its game: its tokens are not handed out any more.
            raise ServiceError(
                Status.FAILED_PRECONDITION,
                Reason.IDEMPOTENCY_KEY_EXPIRED,
                "idempotency_key: the game made with this key is over; a new game needs a new key",
                (FieldViolation("idempotency_key", "expired with its game"),),
            )
        if record.request != request:
            raise invalid("idempotency_key", "already used for a different CreateGame request")
        opens = table.seats if table is not None else ()
        seat_open = tuple(s.open for s in opens) or tuple(SeatOpen.CREATOR for _ in record.seats)
        header = stored.lines[0] if stored is not None else None
        waiting = table is not None and table.status is TableStatus.WAITING
        _note(game_id=game_id, replayed=True)
        return CreatedGame(
            game_id=game_id,
            seat_tokens=_creator_seats(record, seat_open, mint),
            spectator_token=mint("spectator"),
            seed_commitment=commitment(record.seed, record.salt),
            header_json=codec.canonical_text(header) if header is not None else "{}",
            creator_token=mint("creator"),
            invites=_invites(seat_open, mint),
            status="waiting" if waiting else "playing",
        )

    # ------------------------------------------------------------------ play

    async def submit(
        self,
        token: str | None,
        game_id: str,
        kind: str,
        command_json: str,
        *,
        action_id: str = "",
        as_seat: int | None = None,
    ) -> SubmitResult:
        """Sequence one command for the token's seat; answer once it is durable."""
        live, viewer = await self._auth(token, game_id, sync=False)
        if not isinstance(viewer, int):
            raise ServiceError(Status.PERMISSION_DENIED, Reason.SPECTATOR, "a spectator cannot act")
        if as_seat is not None and as_seat != viewer:
            raise ServiceError(
                Status.PERMISSION_DENIED, Reason.SEAT_MISMATCH, "the token is for another seat"
            )
        if action_id and not _ACTION_ID_RE.match(action_id):
            raise invalid("action_id", "1 to 128 printable ASCII characters")
        command, text = self._command(live.game, kind, command_json)
        if isinstance(command, Resign) and command.by is not None:
            raise ServiceError(
                Status.INVALID_ARGUMENT,
                Reason.HOST_ONLY,
                "command.json.by: only the host marks a resign as its own (a forfeit on a "
                'time-out); send {"kind":"Resign"}',
                (FieldViolation("command.json.by", "set only by the host"),),
            )
        try:
            accepted = await live.submit(viewer, command, text, action_id or None)
        except Rejected as exc:
            durable = live.durable
            self.metrics.rejections.labels(exc.code.value).inc()
            _note(reason=exc.code.value, seq=durable.seq)
            detail = redaction.rejection_detail(exc.detail, durable, viewer, text)
            raise ServiceError(
                Status.FAILED_PRECONDITION,
                exc.code.value,
                detail or exc.code.value,
                metadata={"game_id": game_id, "next_seq": str(durable.seq)},
            ) from None
        except ActionIdReused:
            raise invalid("action_id", "already used for a different command") from None
        except (StoreError, Unavailable):
            raise _unavailable(
                "the store did not confirm the action; retry with the same action_id"
            ) from None
        _note(seq=accepted.seq, replayed=accepted.replayed)
        return SubmitResult(
            live.redacted(accepted.seq, viewer), accepted.outcome, accepted.replayed
        )

    def _command(self, game: AnyGame, kind: str, command_json: str) -> tuple[Any, str]:
        """The command and its canonical JSON. Clients send the same few commands over and over
        (``{"kind":"Play"}``), so decoded ones are kept (they are immutable values)."""
        key = (game.info.name, kind, command_json)
        known = self._commands.get(key)
        if known is not None:
            return known
        data = _parse_json(command_json, "command.json")
        if not isinstance(data, dict):
            raise invalid("command.json", "must be a JSON object")
        if kind and data.get(codec.KIND, kind) != kind:
            raise invalid("command.kind", "differs from the kind in command.json")
        if kind and codec.KIND not in data:
            data = {**data, codec.KIND: kind}
        try:
            command = game.decode_command(data, "command.json")
        except DecodeError as exc:
            raise invalid(exc.field or "command.json", exc.message) from None
        known = (command, codec.canonical_text(codec.encode(command)))
        if len(command_json) <= COMMAND_CACHE_TEXT:
            if len(self._commands) >= COMMAND_CACHE:
                self._commands.clear()  # bounded; refilled by what clients send next
            self._commands[key] = known
        return known

    async def stream(
        self, token: str | None, game_id: str, from_seq: int = 0
    ) -> AsyncIterator[StreamBatch]:
        """Durable entries from ``from_seq`` on, redacted for the caller, in batches; ends after
        the game's last entry (the last batch carries the outcome). On a table still waiting
        for players, the stream waits for the deal."""
        if from_seq < 0:
            raise invalid("from_seq", "must not be negative")
        try:
            live, viewer = await self._auth(token, game_id)
        except ServiceError as exc:
            if exc.reason != Reason.GAME_NOT_STARTED:
                raise
            return self._stream_when_dealt(token, game_id, from_seq)
        return self._stream(live, viewer, from_seq)

    async def _stream_when_dealt(
        self, token: str | None, game_id: str, from_seq: int
    ) -> AsyncIterator[StreamBatch]:
        viewer = _parse_viewer(await self.token_game(token, game_id))
        self.lobby.stream_opened(game_id, viewer)
        try:
            await self.lobby.wait_started(game_id)
        finally:
            self.lobby.stream_closed(game_id, viewer)
        live, viewer = await self._auth(token, game_id)
        async for batch in self._stream(live, viewer, from_seq):
            yield batch

    async def _stream(
        self, live: LiveGame, viewer: Viewer, next_seq: int
    ) -> AsyncIterator[StreamBatch]:
        self.lobby.stream_opened(live.game_id, viewer)
        self.metrics.streams.inc()
        try:
            async for batch in self._entries(live, viewer, next_seq):
                yield batch
        finally:
            self.metrics.streams.dec()
            self.lobby.stream_closed(live.game_id, viewer)

    async def _entries(
        self, live: LiveGame, viewer: Viewer, next_seq: int
    ) -> AsyncIterator[StreamBatch]:
        batch = self.config.stream_batch
        while True:
            if live.broken or live.closed:
                raise _unavailable("the game is being rebuilt; resume from your last seq")
            seen = live.durable_lines
            durable = live.durable_seq
            over = live.over
            if next_seq < durable:
                upto = min(durable, next_seq + batch)
                entries = tuple(live.redacted(s, viewer) for s in range(next_seq, upto))
                next_seq = upto
                last = over and next_seq >= durable
                yield StreamBatch(
                    entries,
                    live.durable.outcome if last else None,
                    _end_json(live) if last else "",
                )
                if last:
                    return
                continue
            if over:
                yield StreamBatch((), live.durable.outcome, _end_json(live))
                return
            # Looked at before each wait, not only after one: begin_shutdown() wakes the
            # streams waiting then, and a stream still sending its last batch (an action just
            # acknowledged) must not wait past the stop for a change that never comes.
            if self.closing:
                raise ServiceError(
                    Status.UNAVAILABLE, Reason.SHUTTING_DOWN, "the server is stopping; resume"
                )
            await live.wait_change(seen)

    async def view(self, token: str | None, game_id: str) -> ViewResult:
        """The caller's view of the durable state and its legal commands."""
        live, viewer = await self._auth(token, game_id)
        durable = live.durable
        _note(seq=durable.seq)
        return ViewResult(
            seq=durable.seq,
            view=redaction.view(durable, viewer),
            legal_commands=redaction.legal_commands(durable, viewer),
            outcome=durable.outcome,
            seat=viewer if isinstance(viewer, int) else None,
            present=tuple(sorted((await self.lobby.present_seats(game_id))[game_id])),
            head_hash=str(live.entry_line(durable.seq - 1)["hash"]) if durable.seq else "",
        )

    async def log(self, token: str | None, game_id: str) -> LogResult:
        """The durable log as the caller may see it: complete, with the seed, once over."""
        live, viewer = await self._auth(token, game_id)
        lines = live.lines[: live.durable_lines]
        complete = bool(lines) and lines[-1].get("type") == "end"
        return LogResult(dumps(redaction.log(lines, viewer)), complete)


def _seat_opens(spec: GameSpec, seats: Sequence[SeatSpec]) -> tuple[SeatOpen, ...]:
    """How each seat is filled (``GameSpec.seat_open``), checked: only a human seat opens."""
    raw = tuple(spec.seat_open)
    if len(raw) > len(seats):
        raise invalid("seat_open", f"{len(raw)} entries for {len(seats)} seats")
    out = []
    for i, seat in enumerate(seats):
        text = raw[i] if i < len(raw) else ""
        try:
            mode = SeatOpen(text)
        except ValueError:
            raise invalid(f"seats[{i}].open", 'one of "", invite, anyone') from None
        if mode and seat.kind != "human":
            raise invalid(f"seats[{i}].open", "only a human seat is open (a bot's seat is filled)")
        out.append(mode)
    return tuple(out)


def _checked_seats(given: Sequence[SeatSpec]) -> tuple[SeatSpec, ...]:
    seats = tuple(given)
    for i, s in enumerate(seats):
        if s.kind not in SEAT_KINDS:
            raise invalid(f"seats[{i}].kind", f"one of {', '.join(SEAT_KINDS)}")
        if not 0 <= s.min_delay_ms <= MAX_DELAY_MS or not 0 <= s.max_delay_ms <= MAX_DELAY_MS:
            raise invalid(f"seats[{i}]", f"bot delays must be 0..{MAX_DELAY_MS} ms")
        if s.max_delay_ms and s.min_delay_ms > s.max_delay_ms:
            raise invalid(f"seats[{i}]", "bot_min_delay_ms exceeds bot_max_delay_ms")
    return seats


def _clocks(game: AnyGame, spec: GameSpec) -> dict[str, int]:
    """The request's turn, idle and abandonment clocks (and its start deadline), checked."""
    timers = {
        name: int(getattr(spec, name))
        for name in ("turn_timeout_ms", "idle_timeout_ms", "abandon_timeout_ms")
    }
    for name, ms in (*timers.items(), ("start_deadline_ms", spec.start_deadline_ms)):
        if not 0 <= ms <= MAX_TIMER_MS:
            raise invalid(name, f"must be 0..{MAX_TIMER_MS} ms (a week)")
    if spec.turn_timeout_ms and game.to_act is None:
        raise invalid(
            "turn_timeout_ms",
            f"{game.name} has no turns to time (its seats play in real time: use idle_timeout_ms)",
        )
    return timers


@dataclass(frozen=True, slots=True)
class _Plan:
    """A CreateGame request, checked: what the game is made of."""

    game: AnyGame
    rules: dict[str, Any]
    seats: tuple[SeatSpec, ...]
    seed: int
    event_limit: int
    timeouts: dict[str, int]
    opens: tuple[SeatOpen, ...]
    timers: dict[str, int]


class _Creations:
    """Creations under way, by the game id an idempotency key makes: one at a time each."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, list[int]]] = {}

    @contextlib.asynccontextmanager
    async def one_at_a_time(self, game_id: str) -> AsyncIterator[bool]:
        """Hold ``game_id``'s turn; yields whether another creation held it first."""
        lock, users = self._locks.setdefault(game_id, (asyncio.Lock(), [0]))
        users[0] += 1
        waited = lock.locked()
        try:
            async with lock:
                yield waited
        finally:
            users[0] -= 1
            if not users[0]:
                del self._locks[game_id]


def _creator_seats(
    record: GameRecord, opens: Sequence[SeatOpen], mint: Callable[[str], str]
) -> tuple[tuple[int, str], ...]:
    """The tokens of the human seats the creator holds."""
    return tuple(
        (seat, mint(f"seat:{seat}"))
        for seat, s in enumerate(record.seats)
        if s.kind == "human" and not opens[seat]
    )


def _invites(opens: Sequence[SeatOpen], mint: Callable[[str], str]) -> tuple[tuple[int, str], ...]:
    return tuple(
        (seat, mint(f"invite:{seat}")) for seat, o in enumerate(opens) if o is SeatOpen.INVITE
    )


def _request_hash(spec: GameSpec, game: str) -> str:
    """What a retry with the same idempotency key must ask for again, as a hash."""
    data = {
        "game": game,
        "seats": [s.to_json() for s in spec.seats],
        "seat_open": list(spec.seat_open),
        "rules_json": spec.rules_json,
        "seed": spec.seed,
        "event_limit": spec.event_limit,
        "timeouts_ms": dict(spec.timeouts_ms),
        "public": spec.public,
        "start_deadline_ms": spec.start_deadline_ms,
        "clocks": [spec.turn_timeout_ms, spec.idle_timeout_ms, spec.abandon_timeout_ms],
        "entropy": [e.hex() for e in spec.entropy],
    }
    return hashlib.sha256(codec.canonical_bytes(data)).hexdigest()


def check_idempotency_key(key: str) -> None:
    """An idempotency key is a secret: whoever sends it (with the same credentials) gets the
    game's every token. So it must be one nobody guesses: at least :data:`KEY_BITS` random
    bits, as far as its length and alphabet tell (32 hex digits, or 22 characters of
    base64url; a random UUID in either form is one), and not made of repeats or runs (an
    error names the field, never quotes the key)."""
    if not _KEY_RE.match(key):
        raise invalid("idempotency_key", f"{KEY_RULE}; this one has another character")
    bits_per_char = 4 if _HEX_RE.match(key) else 6
    if len(key) * bits_per_char < KEY_BITS:
        raise invalid("idempotency_key", f"{KEY_RULE}; this one is too short")
    if _guessable(key):
        raise invalid("idempotency_key", f"{KEY_RULE}; this one is too easy to guess")


def _guessable(key: str) -> bool:
    """Repeats (few distinct characters, by its empirical entropy: under 48 bits in all) or
    runs (over 3/4 of neighbours a step apart: ``0123…``, ``aaaa…``). Random keys pass with a
    wide margin: of 10^6 each of 22 base64url characters, 32 hex digits and UUIDs, none was
    refused; the lowest entropy was 69 bits, the most stepped 55 % of neighbours."""
    counts = Counter(key)
    entropy = -sum(n * math.log2(n / len(key)) for n in counts.values())
    steps = sum(abs(ord(a) - ord(b)) <= 1 for a, b in itertools.pairwise(key))
    return entropy < 48 or steps > 0.75 * (len(key) - 1)


def check_entropy(data: bytes, path: str) -> str:
    """A seat's contribution to the deal: empty (none) or exactly 16 bytes; as hex."""
    if data and len(data) != ENTROPY_BYTES:
        raise invalid(path, f"{ENTROPY_BYTES} random bytes, or none (got {len(data)})")
    return data.hex()


def _contributions(
    spec: GameSpec, seats: Sequence[SeatSpec], opens: Sequence[SeatOpen]
) -> tuple[tuple[int, str], ...]:
    """The creator's contributions for the human seats it holds (``GameSpec.entropy``)."""
    given = tuple(spec.entropy)
    if len(given) > len(seats):
        raise invalid("entropy", f"{len(given)} entries for {len(seats)} seats")
    out = []
    for i, data in enumerate(given):
        if not data:
            continue
        if seats[i].kind != "human" or opens[i]:
            raise invalid(f"seats[{i}].entropy", "only a seat the creator holds: bots add none")
        out.append((i, check_entropy(data, f"seats[{i}].entropy")))
    return tuple(out)


def _end_json(live: LiveGame) -> str:
    """The durable end line of a game that is over, as streams end with it."""
    return redaction.end_line(live.lines[: live.durable_lines])


class _Slow(ServiceError):
    """The store did not answer within :data:`~.live.CLIENT_WAIT_S` (:func:`_bounded`)."""


async def _bounded(aw: Awaitable[T]) -> T:
    """``aw``'s result, or ``UNAVAILABLE`` (:class:`_Slow`) once the store has taken
    :data:`~.live.CLIENT_WAIT_S`: a caller is never held to its own deadline by an outage.
    ``aw`` runs on to its end meanwhile (cancelling a query to an unreachable database would
    wait for that database too), and its outcome is kept for the next caller (a game loaded,
    a token cached)."""
    task = asyncio.ensure_future(aw)
    try:
        done, _ = await asyncio.wait({task}, timeout=CLIENT_WAIT_S)
    finally:
        if not task.done():
            task.add_done_callback(_read_outcome)
    if not done:
        raise _Slow(
            Status.UNAVAILABLE,
            Reason.STORE_UNAVAILABLE,
            f"the store did not answer within {CLIENT_WAIT_S:g} s; retry",
        )
    return task.result()


def _read_outcome(task: asyncio.Future[Any]) -> None:
    """Nobody waits for ``task`` any more: read its outcome (or asyncio logs it as lost)."""
    if not task.cancelled():
        task.exception()


def _unavailable(message: str) -> ServiceError:
    return ServiceError(Status.UNAVAILABLE, Reason.STORE_UNAVAILABLE, message)


def _setup_error(exc: InvalidSetup) -> ServiceError:
    path = exc.field
    if path == "rules" or path.startswith("rules."):
        path = "rules_json" + path[len("rules") :]
    return ServiceError(
        Status.INVALID_ARGUMENT,
        Reason.MALFORMED,
        f"{path}: {exc.message}",
        (FieldViolation(path, exc.message),),
    )


def _parse_json(text: str, path: str) -> Any:
    if len(text) > MAX_JSON:
        raise invalid(path, f"longer than {MAX_JSON} characters")
    try:
        return codec.parse_json(text)
    except DecodeError as exc:
        raise invalid(path, exc.message) from None
    except (RecursionError, ValueError):
        raise invalid(path, "not valid JSON") from None


def _parse_json_object(text: str, path: str) -> dict[str, Any]:
    if not text.strip():
        return {}
    data = _parse_json(text, path)
    if not isinstance(data, dict):
        raise invalid(path, "must be a JSON object")
    return data
