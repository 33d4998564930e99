"""The game lifecycle around the sequencer: tables people join, starting, deadlines, abort,
listing, spectators, presence and retention (issue: tables, invites, resign, time-outs, abort,
retention). Part of the application layer: both transports call :class:`Lobby` through
:attr:`.app.Application.lobby`; nothing here knows a wire format.

Tables are described in :mod:`.tables` (compare-and-set rows, so joins race correctly on one
server or several). Leaving is the game's own ``Resign`` command, sent like any action; the
host's forfeits and aborts go through the game's sequencer (:mod:`.live`), so they are logged
and replay. Retention archives a finished game's final log, then removes it from the store.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import hmac
import os
import secrets
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import structlog

from cardcore import codec, registry
from cardcore.engine import Outcome
from cardcore.errors import Rejected
from cardcore.log import abort_action, dumps

from ..errors import Reason, ServiceError, Status, invalid
from ..live import HOST_SEAT, HostAbort, LiveGame, Unavailable, wall_ms
from ..store import Conflict, GameRecord, SeatSpec, StoreError
from ..tables import PAGE_MAX, SeatOpen, TablePage, TableRow, TableStatus

if TYPE_CHECKING:
    from .facade import Application

log = structlog.get_logger("cardcore_server")

CREATOR: Final = "creator"
"""The viewer of a creator token: may start and abort its table, sees what a spectator sees."""
INVITE_PREFIX: Final = "cci_"
JOIN_ATTEMPTS: Final = 64
"""Compare-and-set rounds a join tries before it answers ``UNAVAILABLE`` (each lost round
means another client's join landed; 64 covers a crowd racing for a table of eight)."""
SWEEP_S: Final = 2.0
"""How often waiting tables' deadlines are checked (tables other servers created included)."""
RETENTION_EVERY_S: Final = 3600.0
MAX_MY_GAMES: Final = 50
STREAM_POLL_S: Final = 0.5
"""How often a stream opened on a waiting table looks whether another server started it."""
PRESENCE_READ_S: Final = 0.5
"""How long an answer waits for the other servers' presence (a shared store) before it gives
this server's own: GetView never otherwise waits on the store, and must not during an outage."""
PRESENCE_CACHED_MAX: Final = 4096
"""Games kept in that memory before the expired ones are dropped."""
PRESENCE_FRESH_S: Final = 0.25
"""How long the other servers' presence, once read, answers for a game: the web table asks
for its view after every entry, and every viewer of a game would otherwise cost the store a
read per entry (a read that failed or timed out stands as "none" as long). This server's own
streams are always current."""


def invite_hash(code: str) -> str:
    from .facade import token_hash

    return token_hash(code)


@dataclass(frozen=True, slots=True)
class SeatInfo:
    seat: int
    kind: str
    open: str
    taken: bool
    present: bool


@dataclass(frozen=True, slots=True)
class TableInfo:
    """What anyone allowed to see a table is told of it."""

    game_id: str
    game: str
    status: str
    """``waiting``, ``playing``, ``finished`` or ``cancelled``."""
    seats: tuple[SeatInfo, ...]
    created_ms: int
    deadline_ms: int
    public: bool
    seed_commitment: str
    rules_json: str
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


class Lobby:
    """Tables, joins, start, abort, listing, spectators, presence and retention."""

    def __init__(self, app: Application) -> None:
        self.app = app
        self.present: dict[str, Counter[int]] = {}
        """Open streams per game and seat on this server."""
        self._started: dict[str, asyncio.Event] = {}
        self._deadlines: dict[str, asyncio.TimerHandle] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._elsewhere: dict[str, tuple[float, set[int]]] = {}
        """Per game, the presence the store last gave, and until when (monotonic) it stands."""

    # ------------------------------------------------------------------ lifecycle

    async def open(self) -> None:
        """Arm the deadlines of waiting tables (a deadline passed while down fires now), and
        start the sweeps."""
        loop = asyncio.get_running_loop()
        self._tasks.append(loop.create_task(self._sweep_loop()))
        retain = self.app.config.retain_days
        if retain is not None:
            self._tasks.append(loop.create_task(self._retention_loop()))

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

    # ------------------------------------------------------------------ create

    def arm_deadline(self, table: TableRow) -> None:
        loop = asyncio.get_running_loop()
        delay = max(table.deadline_ms - wall_ms(), 0) / 1000
        old = self._deadlines.pop(table.game_id, None)
        if old is not None:
            old.cancel()
        self._deadlines[table.game_id] = loop.call_later(
            delay, lambda: self._spawn(self._expire(table.game_id))
        )

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.append(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        if task in self._tasks:
            self._tasks.remove(task)

    async def _expire(self, game_id: str) -> None:
        """The deadline passed: cancel the table if it is still waiting (once, whichever server
        gets there first: the others' writes conflict and find it no longer waiting)."""
        self._deadlines.pop(game_id, None)
        for _ in range(JOIN_ATTEMPTS):
            try:
                table = await self.app.store.load_table(game_id)
                if table is None or table.status is not TableStatus.WAITING:
                    return
                if table.deadline_ms > wall_ms():
                    self.arm_deadline(table)
                    return
                await self.app.store.update_table(table.moved(TableStatus.CANCELLED))
            except Conflict:
                continue
            except StoreError as exc:
                log.warning("table_expire_failed", game_id=game_id, error=str(exc))
                return
            log.info("table_cancelled", game_id=game_id, reason="deadline")
            self._wake(game_id)
            return

    async def _sweep_loop(self) -> None:
        while True:
            try:
                for table in await self.app.store.waiting_tables():
                    if table.game_id not in self._deadlines:
                        self.arm_deadline(table)
            except StoreError as exc:
                log.warning("table_sweep_failed", error=str(exc))
            await asyncio.sleep(SWEEP_S)

    # ------------------------------------------------------------------ joining

    async def join(
        self, invite: str, game_id: str, seat: int | None, entropy: bytes = b""
    ) -> Joined:
        """Take a seat: with an invite code (its seat), or an open-to-anyone seat of
        ``game_id`` (``seat``, or the first one free), adding ``entropy`` (16 bytes, or none)
        to the deal. Returns the seat's token, durable."""
        from .facade import check_entropy

        app = self.app
        app.check_open()
        added = check_entropy(entropy, "entropy")
        invited: int | None
        if invite:
            game_id, invited = await self._invited(invite)
        else:
            app.check_game_id(game_id)
            invited = None
        token = app.new_token()
        for _ in range(JOIN_ATTEMPTS):
            table = await self._table(game_id)
            if invited is None or not table.seats[invited].taken:
                _check_waiting(table)  # a used invite says so, started or not
            if invited is not None:
                if table.seats[invited].taken:
                    raise ServiceError(
                        Status.FAILED_PRECONDITION,
                        Reason.INVITE_USED,
                        "this invite was used: its seat is taken",
                    )
                take = invited
            else:
                free = [
                    i
                    for i, s in enumerate(table.seats)
                    if s.open is SeatOpen.ANYONE and not s.taken
                ]
                if seat is not None:
                    if not 0 <= seat < len(table.seats) or table.seats[seat].open is not (
                        SeatOpen.ANYONE
                    ):
                        raise ServiceError(
                            Status.FAILED_PRECONDITION,
                            Reason.SEAT_NOT_OPEN,
                            f"seat {seat} is not open to anyone (an invite fills it)",
                        )
                    if seat not in free:
                        raise _full(f"seat {seat} is taken")
                    take = seat
                elif free:
                    take = free[0]
                else:
                    raise _full("every open seat is taken")
            new = table.taking(take, added)
            rows = [(_hash(token), str(take))]
            full = not new.open_seats
            try:
                if full:
                    await self._start(new, rows)
                else:
                    await app.store.update_table(new, rows)
            except Conflict:
                continue  # another join (or the start, or the deadline) landed first
            except StoreError:
                raise _unavailable() from None
            app.remember_token(token, game_id, str(take))
            log.info("seat_joined", game_id=game_id, seat=take, started=full)
            return Joined(game_id, take, token, "playing" if full else "waiting")
        raise _unavailable()

    async def start_table(
        self, token: str | None, game_id: str, bot_kind: str = "reaction"
    ) -> TableInfo:
        """The creator starts its table now: the empty seats are filled by bots."""
        await self._creator(token, game_id)
        if bot_kind not in ("random", "reaction"):
            raise invalid("fill_with", "random or reaction")
        for _ in range(JOIN_ATTEMPTS):
            table = await self._table(game_id)
            _check_waiting(table)
            try:
                await self._start(table.moved(TableStatus.WAITING), [], bot_kind)
            except Conflict:
                continue
            except StoreError:
                raise _unavailable() from None
            return await self.table(token, game_id)
        raise _unavailable()

    async def _start(
        self, table: TableRow, tokens: list[tuple[str, str]], bot_kind: str = "reaction"
    ) -> None:
        """Deal the game of ``table`` (its open seats still empty are bots), in the same
        transaction as the table's last change; then serve it here."""
        app = self.app
        rec = table.record
        seats = tuple(
            SeatSpec(bot_kind) if s.open and not s.taken else spec
            for spec, s in zip(rec.seats, table.seats, strict=True)
        )
        joined = tuple((i, s.entropy) for i, s in enumerate(table.seats) if s.entropy)
        contributions = (  # None: a client-chosen seed deals itself (log format 1)
            None if rec.contributions is None else tuple(sorted((*rec.contributions, *joined)))
        )
        record = replace(rec, seats=seats, created_ms=wall_ms(), contributions=contributions)
        game = registry.get_game(record.game)
        live = LiveGame.create(game, record, app.store, sign=app.sign)
        started = replace(table, status=TableStatus.STARTED, record=record)
        await app.store.update_table(started, tokens, start=(live.lines[0], live.lines[1]))
        live.created()
        app.adopt(live)
        handle = self._deadlines.pop(table.game_id, None)
        if handle is not None:
            handle.cancel()
        log.info("table_started", game_id=table.game_id, bots=sum(s.kind != "human" for s in seats))
        self._wake(table.game_id)

    # ------------------------------------------------------------------ abort

    async def abort(self, token: str | None, game_id: str, admin_key: str | None) -> TableInfo:
        """End a game at once (termination ``ABORTED``; the log is final and reveals the seed),
        or cancel a table still waiting: by its creator's token, or with the admin key."""
        app = self.app
        app.check_open()
        by = "admin" if admin_key else CREATOR
        if admin_key:
            required = app.config.admin_key
            if required is None or not hmac.compare_digest(admin_key.encode(), required.encode()):
                raise ServiceError(
                    Status.PERMISSION_DENIED, Reason.ADMIN_KEY_REQUIRED, "wrong admin key"
                )
            app.check_game_id(game_id)
        else:
            await self._creator(token, game_id)
        table = await self._table_or_none(game_id)
        if table is not None and table.status is not TableStatus.STARTED:
            for _ in range(JOIN_ATTEMPTS):
                if table is None or table.status is TableStatus.CANCELLED:
                    raise _cancelled()
                if table.status is TableStatus.STARTED:
                    break
                try:
                    await app.store.update_table(table.moved(TableStatus.CANCELLED))
                except Conflict:
                    table = await self._table_or_none(game_id)
                    continue
                except StoreError:
                    raise _unavailable() from None
                log.info("table_cancelled", game_id=game_id, reason=by)
                handle = self._deadlines.pop(game_id, None)
                if handle is not None:
                    handle.cancel()
                self._wake(game_id)
                return await self._info(game_id, None)
        live = await app.live(game_id)
        text = codec.canonical_text(abort_action(by))
        try:
            await live.submit(HOST_SEAT, HostAbort(by), text, None)
        except Rejected as exc:
            raise ServiceError(
                Status.FAILED_PRECONDITION, exc.code.value, "the game is over"
            ) from None
        except (StoreError, Unavailable):
            raise _unavailable() from None
        log.info("game_aborted", game_id=game_id, by=by)
        return await self._info(game_id, None)

    # ------------------------------------------------------------------ looking

    async def table(self, token: str | None, game_id: str) -> TableInfo:
        """A table's seats and status: to any token of the game, or to anyone if public."""
        app = self.app
        app.check_open()
        app.check_game_id(game_id)
        if token:
            await app.token_game(token, game_id)
        else:
            table = await self._table_or_none(game_id)
            if table is None or not table.public:
                raise ServiceError(
                    Status.UNAUTHENTICATED,
                    Reason.MISSING_TOKEN,
                    "a table that is not public needs one of its tokens",
                )
        return await self._info(game_id, None)

    async def invite(self, code: str) -> tuple[int, TableInfo]:
        """What an invite is for, without redeeming it (what a link shows before one joins):
        its seat and the table. The code is the credential; nothing changes."""
        self.app.check_open()
        game_id, seat = await self._invited(code)
        return seat, await self._info(game_id, None)

    async def _invited(self, code: str) -> tuple[str, int]:
        if not code.startswith(INVITE_PREFIX) or len(code) > 64:
            raise ServiceError(Status.NOT_FOUND, Reason.INVALID_INVITE, "no such invite")
        try:
            found = await self.app.store.find_invite(invite_hash(code))
        except StoreError:
            raise _unavailable() from None
        if found is None:
            raise ServiceError(Status.NOT_FOUND, Reason.INVALID_INVITE, "no such invite")
        return found

    async def list_tables(self, game: str, page_size: int, page_token: str) -> TableListing:
        """Public tables waiting for players, newest first; ``page_token`` continues a listing
        (stable while tables are created: newer ones come before its first page)."""
        self.app.check_open()
        name: str | None = None
        if game:
            try:
                name = registry.get_game(game).info.name
            except Exception:
                raise invalid("game", "unknown game") from None
        if not 0 <= page_size <= PAGE_MAX:
            raise invalid("page_size", f"0 to {PAGE_MAX} (0 = 20)")
        before = _parse_cursor(page_token) if page_token else None
        limit = page_size or 20
        try:
            rows = await self.app.store.list_tables(name, before, limit + 1)
        except StoreError:
            raise _unavailable() from None
        page = TablePage(rows[:limit], None)
        more = len(rows) > limit
        present = await self.present_seats(*(t.game_id for t in page.tables))
        infos = tuple([self._table_info(t, None, present[t.game_id]) for t in page.tables])
        cursor = _cursor(page.tables[-1]) if more and page.tables else ""
        return TableListing(infos, cursor)

    async def watch(self, game_id: str) -> str:
        """The spectator token of a public table (the same for every watcher: see
        :attr:`.tables.TableRow.watch_token`)."""
        app = self.app
        app.check_open()
        app.check_game_id(game_id)
        table = await self._table_or_none(game_id)
        if table is None or not table.public or not table.watch_token:
            raise ServiceError(
                Status.PERMISSION_DENIED, Reason.NOT_PUBLIC, "only a public table can be watched"
            )
        return table.watch_token

    async def my_games(self, tokens: Sequence[str]) -> tuple[tuple[str, TableInfo], ...]:
        """The games of the tokens a client holds: ``(viewer, table)`` each, in order."""
        app = self.app
        app.check_open()
        if len(tokens) > MAX_MY_GAMES:
            raise invalid("tokens", f"at most {MAX_MY_GAMES}")
        out = []
        for i, token in enumerate(tokens):
            found = await app.find_token(token)
            if found is None:
                raise ServiceError(
                    Status.UNAUTHENTICATED, Reason.INVALID_TOKEN, f"tokens[{i}]: unknown token"
                )
            game_id, viewer = found
            out.append((viewer, await self._info(game_id, None)))
        return tuple(out)

    # ------------------------------------------------------------------ presence

    def stream_opened(self, game_id: str, viewer: object) -> None:
        if isinstance(viewer, int):
            self.present.setdefault(game_id, Counter())[viewer] += 1
            self._publish(game_id)

    def stream_closed(self, game_id: str, viewer: object) -> None:
        if isinstance(viewer, int):
            seen = self.present.get(game_id)
            if seen is not None:
                seen[viewer] -= 1
                if seen[viewer] <= 0:
                    del seen[viewer]
                if not seen:
                    del self.present[game_id]
                self._publish(game_id)

    def _publish(self, game_id: str) -> None:
        """Tell the other servers on the store (none on SQLite) which seats stream from here."""
        if self.app.shared is not None:
            self.app.shared.set_presence(game_id, frozenset(self.present.get(game_id, ())))

    async def present_seats(self, *game_ids: str) -> dict[str, set[int]]:
        """The seats of each game with an event stream open now, on this server or any other on
        the store. Advisory: with the store away, this server's own."""
        found = {g: set(self.present.get(g, ())) for g in game_ids}
        if self.app.shared is None:
            return found
        now = time.monotonic()
        cached = self._elsewhere
        stale = [g for g in found if cached.get(g, (0.0, set()))[0] <= now]
        if stale:
            # shielded: a read cut short by the time-out runs to its end and gives its
            # connection back in order (cancelling a query mid-flight would not)
            read = asyncio.ensure_future(self.app.shared.present_seats(stale))
            try:
                elsewhere = await asyncio.wait_for(asyncio.shield(read), PRESENCE_READ_S)
            except (StoreError, TimeoutError):
                read.add_done_callback(_ignore_outcome)
                elsewhere = {}
            if len(cached) > PRESENCE_CACHED_MAX:
                self._elsewhere = cached = {g: c for g, c in cached.items() if c[0] > now}
            until = time.monotonic() + PRESENCE_FRESH_S
            for g in stale:
                cached[g] = (until, elsewhere.get(g, set()))
        for g in found:
            found[g] |= cached[g][1]
        return found

    # ------------------------------------------------------------------ waiting for the deal

    async def wait_started(self, game_id: str) -> None:
        """Return once the table of ``game_id`` has started (here or on another server);
        raises ``TableCancelled`` if it never will."""
        while True:
            table = await self._table(game_id)
            if table.status is TableStatus.STARTED:
                return
            if table.status is TableStatus.CANCELLED:
                raise _cancelled()
            event = self._started.setdefault(game_id, asyncio.Event())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), STREAM_POLL_S)
            if self.app.closing:
                raise ServiceError(
                    Status.UNAVAILABLE, Reason.SHUTTING_DOWN, "the server is stopping; resume"
                )

    def wake_streams(self) -> None:
        """The server is stopping: the streams waiting for a deal look again now (and end)."""
        for event in self._started.values():
            event.set()

    def _wake(self, game_id: str) -> None:
        event = self._started.pop(game_id, None)
        if event is not None:
            event.set()

    # ------------------------------------------------------------------ retention

    async def _retention_loop(self) -> None:
        while True:
            try:
                await self.retain()
            except StoreError as exc:
                log.warning("retention_failed", error=str(exc))
            await asyncio.sleep(RETENTION_EVERY_S)

    async def retain(self, now_ms: int | None = None) -> list[str]:
        """Archive and remove what is older than ``--retain-days``: unfinished games idle that
        long are aborted first; each finished game's final log is written to ``--archive``
        (``<game_id>.jsonl``, fsynced, then renamed into place) before it leaves the store.
        Returns the ids removed."""
        app = self.app
        days = app.config.retain_days
        if days is None:
            return []
        cutoff = (wall_ms() if now_ms is None else now_ms) - int(days * 86_400_000)
        aborted = []
        for game_id in await app.store.games_idle_since(cutoff, finished=False):
            text = codec.canonical_text(abort_action("retention"))
            try:
                live = await app.live(game_id)
                await live.submit(HOST_SEAT, HostAbort("retention"), text, None)
            except (ServiceError, Rejected, StoreError, Unavailable) as exc:
                log.warning("retention_abort_failed", game_id=game_id, error=str(exc))
                continue
            aborted.append(game_id)  # final now (its last entry is new: not "idle since")
        archive = Path(app.config.archive_dir) if app.config.archive_dir else None
        removed = []
        for game_id in [*aborted, *await app.store.games_idle_since(cutoff, finished=True)]:
            stored = await app.store.load(game_id)
            if stored is not None:
                if stored.lines[-1].get("type") != "end":
                    continue  # not final after all (an abort that did not land): next time
                if archive is not None:
                    _write_archive(archive / f"{game_id}.jsonl", dumps(stored.lines))
            await app.store.delete_game(game_id)
            await app.forget(game_id)
            removed.append(game_id)
            log.info("game_archived", game_id=game_id, archived=archive is not None)
        return removed

    # ------------------------------------------------------------------ helpers

    async def _creator(self, token: str | None, game_id: str) -> None:
        viewer = await self.app.token_game(token, game_id)
        if viewer != CREATOR:
            raise ServiceError(
                Status.PERMISSION_DENIED,
                Reason.NOT_CREATOR,
                "only the table's creator token (or the admin key) may do this",
            )

    async def _table_or_none(self, game_id: str) -> TableRow | None:
        try:
            return await self.app.store.load_table(game_id)
        except StoreError:
            raise _unavailable() from None

    async def _table(self, game_id: str) -> TableRow:
        table = await self._table_or_none(game_id)
        if table is None:
            raise ServiceError(Status.NOT_FOUND, Reason.GAME_NOT_FOUND, "no such table")
        return table

    async def _info(self, game_id: str, table: TableRow | None) -> TableInfo:
        table = table or await self._table_or_none(game_id)
        live = None
        if table is None or table.status is TableStatus.STARTED:
            live = await self.app.live(game_id)
        return self._table_info(table, live, (await self.present_seats(game_id))[game_id])

    def _table_info(
        self, table: TableRow | None, live: LiveGame | None, present: set[int]
    ) -> TableInfo:
        if live is not None:
            record = live.record
            durable = live.durable
            status = "finished" if durable.outcome is not None else "playing"
            seats = tuple(
                SeatInfo(
                    i,
                    spec.kind,
                    table.seats[i].open.value if table else "",
                    True,
                    i in present,
                )
                for i, spec in enumerate(record.seats)
            )
            return TableInfo(
                game_id=record.game_id,
                game=record.game,
                status=status,
                seats=seats,
                created_ms=table.created_ms if table else record.created_ms,
                deadline_ms=0,  # only a waiting table has one
                public=table.public if table else False,
                seed_commitment=str(live.lines[0]["commitment"]),
                rules_json=codec.canonical_text(record.rules),
                outcome=durable.outcome,
                seq=durable.seq,
            )
        assert table is not None
        from cardcore.log import commitment

        record = table.record
        return TableInfo(
            game_id=record.game_id,
            game=record.game,
            status=table.status.value,
            seats=tuple(
                SeatInfo(i, spec.kind, s.open.value, s.taken or not s.open, i in present)
                for i, (spec, s) in enumerate(zip(record.seats, table.seats, strict=True))
            ),
            created_ms=table.created_ms,
            deadline_ms=table.deadline_ms if table.status is TableStatus.WAITING else 0,
            public=table.public,
            seed_commitment=commitment(record.seed, record.salt),
            rules_json=codec.canonical_text(record.rules),
        )


def _hash(token: str) -> str:
    from .facade import token_hash

    return token_hash(token)


def _check_waiting(table: TableRow) -> None:
    if table.status is TableStatus.STARTED:
        raise ServiceError(Status.FAILED_PRECONDITION, Reason.GAME_STARTED, "the game has started")
    if table.status is TableStatus.CANCELLED:
        raise _cancelled()


def _cancelled() -> ServiceError:
    return ServiceError(
        Status.FAILED_PRECONDITION,
        Reason.TABLE_CANCELLED,
        "the table was cancelled before it started (deadline passed, or aborted)",
    )


def _full(message: str) -> ServiceError:
    return ServiceError(Status.FAILED_PRECONDITION, Reason.TABLE_FULL, message)


def _unavailable() -> ServiceError:
    return ServiceError(Status.UNAVAILABLE, Reason.STORE_UNAVAILABLE, "the store did not answer")


def _cursor(table: TableRow) -> str:
    raw = f"{table.created_ms}:{table.game_id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _parse_cursor(text: str) -> tuple[int, str]:
    try:
        if len(text) > 80:
            raise ValueError
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode()
        ms, _, game_id = raw.partition(":")
        if not ms.isdigit() or len(game_id) != 32:
            raise ValueError
        return int(ms), game_id
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise invalid("page_token", "not a page token this server gave") from None


def _write_archive(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{secrets.token_hex(4)}")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    with contextlib.suppress(OSError):  # the rename itself durable
        fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def new_table(
    record: GameRecord,
    opens: Sequence[SeatOpen],
    deadline_ms: int,
    watch_token: str = "",
) -> TableRow:
    """A table waiting for its seats; public (listed, watchable) when it has a watch token."""
    from ..tables import TableSeat

    now = wall_ms()
    return TableRow(
        record=record,
        status=TableStatus.WAITING,
        version=0,
        created_ms=now,
        deadline_ms=now + deadline_ms,
        public=bool(watch_token),
        seats=tuple(TableSeat(o, False) for o in opens),
        watch_token=watch_token,
    )


def _ignore_outcome(task: asyncio.Future[Any]) -> None:
    """Retrieve the outcome of a read nobody waits for any more (no "never retrieved" line)."""
    if not task.cancelled():
        task.exception()
