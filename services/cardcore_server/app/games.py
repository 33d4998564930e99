"""The games this server serves: loaded from the store on first use, rebuilt when their stored
log did not apply, adopted when dealt here, forgotten when retention removes them.

On a shared store (PostgreSQL) several servers serve the same games: each renews a lease, owns
some games (it runs their timers and bots) and takes over the games of a server whose lease
ran out; a hint from the store (``LISTEN``) that another server wrote to a game makes the game
catch up, so its streams and timers see the new entries.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Final

import structlog

from cardcore import registry
from cardcore.errors import InvalidSetup, UnknownGame

from ..errors import Reason, ServiceError, Status
from ..live import AnyGame, LiveGame, RebuildError, Unavailable
from ..signing import ServerKey
from ..store import EventStore, GameRecord, SharedStore, StoreError
from ..tables import TableStatus
from .outage import Slow, bounded, unavailable
from .tokens import TokenBook

log = structlog.get_logger("cardcore_server")

LEASE_RENEW_S: Final = 1.0
"""How often a server on a shared store renews its lease and looks for orphaned games (the
lease lasts :data:`..store.postgres.LEASE_TTL_S`)."""
CLAIM_BATCH: Final = 16
"""Orphaned games one server takes over per look (spreads a dead server's games)."""
REBUILD_RETRY_S: Final = 5.0
"""How long a game whose stored log did not rebuild is answered ``UNAVAILABLE`` before the
rebuild is tried again (a store that could not be read is retried at once)."""

Sign = Callable[[str], dict[str, str]]


class Games:
    """The games served here, by id."""

    def __init__(
        self,
        store: EventStore,
        tokens: TokenBook,
        server_key: Callable[[], ServerKey | None],
        on_timer: Callable[[str], None],
    ) -> None:
        self._store = store
        self.shared: SharedStore | None = store if isinstance(store, SharedStore) else None
        """Set when other server processes serve the same games (PostgreSQL)."""
        self._tokens = tokens
        self._server_key = server_key
        self._on_timer = on_timer
        self.games: dict[str, LiveGame] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self._failed_until: dict[str, float] = {}
        """Games whose stored log did not rebuild → when to try again (monotonic seconds)."""
        self._lease_task: asyncio.Task[None] | None = None
        self._stopping = False
        self.delay_ms: Callable[[str, int], int] = lambda _game_id, _seat: 0
        """A seat's measured one-way delay, in ms (set to the play channels' round trips):
        what a game under ``race_policy: "compensated"`` credits its actions with."""

    @property
    def sign(self) -> Sign | None:
        """How this server signs a log line's hash (None before the key is loaded)."""
        key = self._server_key()
        return key.sign if key is not None else None

    def running(self) -> int:
        """Games served here that are not over (``GET /metrics``)."""
        return sum(1 for g in self.games.values() if not g.over)

    # ------------------------------------------------------------------ lifecycle

    def watch_store(self) -> None:
        """Listen for the store's hints (before it opens: no write is missed)."""
        if self.shared is not None:
            self.shared.watch(self._on_store_change)

    async def start(self) -> int:
        """Rebuild the unfinished games this server runs (all of them on a store of its own;
        on a shared store, those it takes over: the others load on first use); returns how
        many were rebuilt."""
        if self.shared is not None:
            with contextlib.suppress(StoreError):
                await self._lease_tick()
            self._lease_task = asyncio.get_running_loop().create_task(self._lease_loop())
            return len(self.games)
        rebuilt = 0
        for game_id in await self._store.unfinished():
            self._tokens.know(game_id)
            try:
                await self._load(game_id)
                rebuilt += 1
            except ServiceError:
                pass
        return rebuilt

    def begin_shutdown(self) -> None:
        """Queued actions are answered ``UNAVAILABLE`` now (retryable); streams wake to end."""
        self._stopping = True
        for game in self.games.values():
            game.drain()
            game.wake()

    def drain_all(self) -> None:
        """Answer every action still in flight ``UNAVAILABLE`` (retry with the same
        ``action_id``)."""
        for game in self.games.values():
            game.drain(in_round=True)

    async def close(self) -> None:
        """Stop the lease, then every game (timers stop, pending writes land), then hand this
        server's games over."""
        self._stopping = True
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

    # ------------------------------------------------------------------ serving a game

    def make(self, game: AnyGame, record: GameRecord) -> LiveGame:
        """A new game dealt here (not yet durable: :meth:`adopt` it once it is)."""
        return LiveGame.create(game, record, self._store, sign=self.sign)

    def _serve(self, live: LiveGame) -> None:
        """What every game served here is told: who hears of its timers, how far its seats are."""
        live.on_auto = self._on_timer
        game_id = live.game_id
        live.sequencer.delay_of = lambda seat: self.delay_ms(game_id, seat)

    def adopt(self, live: LiveGame) -> None:
        """Serve a game this server just dealt, now durable."""
        live.created()
        self._serve(live)
        self._tokens.know(live.game_id)
        self.games[live.game_id] = live
        live.plan()

    async def live(self, game_id: str, *, sync: bool = True) -> LiveGame:
        """The game served here: loaded from the store if need be and, on a shared store,
        caught up with what other processes wrote (``sync``; a submit needs no look first:
        its commit is refused if the game moved on, and the sequencer then catches up). Waits
        for the store are bounded: a store that does not answer is ``UNAVAILABLE``, or for
        the catch-up, the answer is what this server holds."""
        live = self.games.get(game_id)
        if live is None or live.broken:
            self._tokens.know(game_id)
            live = await bounded(self._load(game_id))
        if sync and self.shared is not None:
            try:
                await bounded(live.sync())
            except Unavailable:
                live = await bounded(self._load(game_id))
            except Slow:
                pass
        return live

    async def forget(self, game_id: str) -> None:
        """A game left the store (retention): drop it and its tokens from memory."""
        live = self.games.pop(game_id, None)
        if live is not None:
            await live.close()
        self._tokens.forget_game(game_id)

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
                raise unavailable("the game could not be rebuilt")
            try:
                stored = await self._store.load(game_id)
            except StoreError as exc:
                log.warning("load_failed", game_id=game_id, error=str(exc))
                raise unavailable("the game could not be loaded") from None
            if stored is None:
                raise await self._not_dealt(game_id)
            try:
                game = registry.get_game(stored.record.game)
                live = LiveGame.restore(game, stored, self._store, sign=self.sign)
            except (RebuildError, UnknownGame, InvalidSetup) as exc:
                self._failed_until[game_id] = time.monotonic() + REBUILD_RETRY_S
                log.error("rebuild_failed", game_id=game_id, error=str(exc))
                raise unavailable("the game could not be rebuilt") from None
            self._failed_until.pop(game_id, None)
            self._serve(live)
            self.games[game_id] = live
            if not live.over:
                live.plan()
                log.info("game_rebuilt", game_id=game_id, seq=live.match.seq, owned=live.owned)
            return live

    async def _not_dealt(self, game_id: str) -> ServiceError:
        """Why a game has no log: a table still waiting, a cancelled one, or none at all."""
        try:
            table = await self._store.load_table(game_id)
        except StoreError:
            return unavailable("the game could not be loaded")
        if table is not None and table.status is TableStatus.WAITING:
            return ServiceError(
                Status.FAILED_PRECONDITION,
                Reason.GAME_NOT_STARTED,
                "the table is waiting for players (GetTable shows its seats)",
            )
        if table is not None and table.status is TableStatus.REVEALING:
            return ServiceError(
                Status.FAILED_PRECONDITION,
                Reason.GAME_NOT_STARTED,
                "the table's seats are revealing their entropy: it deals at the last reveal",
            )
        if table is not None and table.status is TableStatus.CANCELLED:
            return ServiceError(
                Status.FAILED_PRECONDITION,
                Reason.TABLE_CANCELLED,
                "the table was cancelled before it started",
            )
        return ServiceError(Status.NOT_FOUND, Reason.GAME_NOT_FOUND, "no such game")

    # ------------------------------------------------------------------ other processes

    def _on_store_change(self, game_id: str | None, version: int | None) -> None:
        """A hint that another process wrote to ``game_id`` (``None``: to any game): catch up
        the games loaded here, so their streams and timers see the new entries."""
        if self._stopping:
            return
        for gid in list(self.games) if game_id is None else [game_id]:
            live = self.games.get(gid)
            if live is None:
                continue  # not served here: loaded from the store on first use
            if version is not None and version <= live.version:
                continue  # already seen (our own catch-up got there first)
            live.request_sync()

    async def _lease_loop(self) -> None:
        while not self._stopping:
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
                self._tokens.know(game_id)
                try:
                    mine = await self._load(game_id)
                except ServiceError:
                    continue
            mine.set_owned(True)
