"""The application: one object the transports call, over its parts (each a module of this
package). It builds them from the store and the configuration, starts and stops them, and hands
each call to the part that answers it; it has no logic of its own.

* :mod:`.tokens` — who is calling (tokens, the admin key): authentication, once;
* :mod:`.games` — the games served here (loaded, rebuilt, adopted, leases on a shared store);
* :mod:`.create` — CreateGame (checked by :mod:`.plan`, made idempotent by :mod:`.idempotency`);
* :mod:`.play` — SubmitAction, StreamEvents, GetView, GetLog;
* :mod:`.lobby` — tables: join, start, abort, look, list, watch;
* :mod:`.waiting` — tables' start deadlines and streams waiting for a deal;
* :mod:`.presence` — who is at the table; :mod:`.retention` — what leaves the store;
* :mod:`.catalogue` — the games and their schemas, made once.

Values in and out are :mod:`.values`; every error is a
:class:`~cardcore_server.errors.ServiceError`.
"""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator

from ..config import ServiceConfig
from ..limits import RateLimits, TrustedProxies
from ..metrics import Metrics
from ..sealing import Sealer
from ..signing import ServerKey, load_key
from ..store import EventStore, StoreError
from .catalogue import catalogue
from .channel import PlayChannel
from .create import Creation
from .games import Games
from .lobby import Lobby
from .play import Play
from .presence import Presence
from .requests import Gate
from .retention import Retention
from .roundtrips import RoundTrips
from .tokens import TokenBook
from .values import (
    CatalogueEntry,
    CreatedGame,
    GameSpec,
    JsonObject,
    LogResult,
    StreamBatch,
    SubmitResult,
    Unreadable,
    ViewResult,
)
from .waiting import WaitingTables


def _freeze_startup_objects() -> None:
    """Keep what start-up made (modules, classes, functions, the games rebuilt: the most of the
    heap, and all of it long-lived) out of every later garbage collection, so a collection
    walks only what was made since. Measured in-process: collections cost ~10 µs of CPU per
    action, and this saves ~8 of them. Once per process (nothing frozen yet): several servers
    in one process (the tests) freeze the first one's start only."""
    if gc.get_freeze_count() == 0:
        gc.collect()  # no garbage of start-up's kept for ever
        gc.freeze()


class Application:
    """The service's application layer over one :class:`~cardcore_server.store.EventStore`."""

    def __init__(self, store: EventStore, config: ServiceConfig | None = None) -> None:
        self.store = store
        self.config = config = config or ServiceConfig()
        self.key: ServerKey | None = None
        """The key every log is signed with (:mod:`cardcore_server.signing`), loaded by
        :meth:`start`."""
        self.gate = Gate()
        self.tokens = TokenBook(store, self.gate, config.admin_key, lambda: self.key)
        self.games = Games(store, self.tokens, lambda: self.key, self._timer_fired)
        self.metrics = Metrics(self.games.running)
        """What ``GET /metrics`` serves (:mod:`cardcore_server.metrics`)."""
        store.on_commit = self.metrics.committed
        store.sealer = Sealer(config.secrets_key)
        self.presence = Presence(self.games.shared)
        self.waiting = WaitingTables(store, self.gate)
        self.retention = Retention(config, store, self.games)
        gate, tokens, games, waiting = self.gate, self.tokens, self.games, self.waiting
        self.creation = Creation(
            config, store, gate=gate, tokens=tokens, games=games, waiting=waiting
        )
        self.play = Play(
            config.stream_batch,
            gate=gate,
            tokens=tokens,
            games=games,
            waiting=waiting,
            presence=self.presence,
            metrics=self.metrics,
            roundtrips=RoundTrips(self.metrics.play_rtt.observe),
        )
        self.games.delay_ms = self.play.roundtrips.delay_ms
        self.lobby = Lobby(
            store,
            gate=gate,
            tokens=tokens,
            games=games,
            waiting=waiting,
            presence=self.presence,
            reveal_deadline_ms=config.reveal_deadline_ms,
        )
        """Tables: join, start, abort, look, list, watch (:mod:`.lobby`)."""
        self.limits = RateLimits(config.rate_per_token, config.rate_per_address)
        """Checked by each transport before any work (:mod:`cardcore_server.limits`)."""
        self.proxies = TrustedProxies(config.trusted_proxies)
        """Whose ``X-Forwarded-For`` names the client (the rate limit's address)."""

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> int:
        """Open the store and rebuild the unfinished games this server runs (all of them on a
        store of its own; on a shared store, those it takes over: the others load on first
        use); returns how many were rebuilt."""
        self.games.watch_store()
        await self.store.open()
        self.key = await load_key(self.store, self.config.server_key_path)
        await self.tokens.load()
        await self.waiting.open()
        await self.retention.open()
        rebuilt = await self.games.start()
        _freeze_startup_objects()
        return rebuilt

    def begin_shutdown(self) -> None:
        """Refuse new calls and end open streams (``UNAVAILABLE``/``ShuttingDown``: clients
        resume from their last ``seq`` on the next server); in-flight actions still finish."""
        self.gate.close()
        self.games.begin_shutdown()
        self.waiting.wake_all()  # streams waiting for a table's deal

    def drain_all(self) -> None:
        """The grace period is ending: answer every action still in flight ``UNAVAILABLE``
        (retry with the same ``action_id``), before the transports cancel their calls."""
        self.games.drain_all()

    async def close(self) -> None:
        """Stop timers, let pending writes land, hand this server's games over, close the
        store."""
        self.gate.close()
        await self.waiting.close()
        await self.retention.close()
        await self.games.close()
        await self.store.close()

    async def readiness(self) -> str | None:
        """Why this server should not get new traffic now (None: ready): it is stopping, or
        its store does not answer."""
        if self.gate.closing:
            return "the server is stopping"
        try:
            await self.store.ping()
        except (StoreError, TimeoutError):
            return "the store does not answer"
        return None

    def _timer_fired(self, kind: str) -> None:
        self.metrics.timers.labels(kind).inc()

    # ------------------------------------------------------------------ the calls

    @property
    def server_key(self) -> str:
        """The public key logs are signed with (base64url), once started."""
        return self.key.public if self.key is not None else ""

    def list_games(self) -> tuple[CatalogueEntry, ...]:
        """Every registered game, its flags and the JSON Schemas of its values."""
        return catalogue()

    async def create_game(
        self, spec: GameSpec, admin_key: str | None = None, credential: str | None = None
    ) -> CreatedGame:
        """Deal a new game (:meth:`.create.Creation.create_game`)."""
        return await self.creation.create_game(spec, admin_key, credential)

    async def submit(
        self,
        token: str | None,
        game_id: str,
        command: JsonObject | Unreadable,
        *,
        action_id: str = "",
        as_seat: int | None = None,
    ) -> SubmitResult:
        """Sequence one command for the token's seat (:meth:`.play.Play.submit`)."""
        return await self.play.submit(token, game_id, command, action_id=action_id, as_seat=as_seat)

    async def stream(
        self, token: str | None, game_id: str, from_seq: int = 0
    ) -> AsyncIterator[StreamBatch]:
        """The caller's entries from ``from_seq`` on (:meth:`.play.Play.stream`)."""
        return await self.play.stream(token, game_id, from_seq)

    async def view(self, token: str | None, game_id: str) -> ViewResult:
        """The caller's view and legal commands (:meth:`.play.Play.view`)."""
        return await self.play.view(token, game_id)

    async def open_channel(self, token: str | None, game_id: str) -> PlayChannel:
        """A play channel: authenticated once, for every action and view it carries
        (:meth:`.play.Play.open_channel`); each act counts against the token's rate limit."""
        return await self.play.open_channel(token, game_id, self.limits)

    async def log(self, token: str | None, game_id: str) -> LogResult:
        """The log as the caller may see it (:meth:`.play.Play.log`)."""
        return await self.play.log(token, game_id)
