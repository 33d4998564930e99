"""The game lifecycle around the sequencer: tables people join, starting, abort, listing and
spectators (issue: tables, invites, resign, time-outs, abort, retention). Nothing here knows a
wire format.

Tables are described in :mod:`cardcore_server.tables` (compare-and-set rows, so joins race
correctly on one server or several). Leaving is the game's own ``Resign`` command, sent like any
action; the host's forfeits and aborts go through the game's sequencer
(:mod:`cardcore_server.live`), so they are logged and replay.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import replace
from typing import Final

import structlog

from cardcore import codec, registry
from cardcore.errors import Rejected
from cardcore.log import abort_action, commitment
from cardcore.rng import ENTROPY_BYTES, entropy_commitment

from ..errors import Reason, ServiceError, Status, invalid
from ..live import HOST_SEAT, HostAbort, LiveGame, Unavailable, wall_ms
from ..store import Conflict, EventStore, SeatSpec, StoreError
from ..tables import PAGE_MAX, SeatOpen, TablePage, TableRow, TableSeat, TableStatus
from .games import Games
from .outage import unavailable
from .plan import check_commitment, check_entropy
from .presence import Presence
from .requests import Gate, check_game_id
from .tokens import CREATOR, INVITE_PREFIX, TokenBook, new_token, token_hash
from .values import Joined, SeatInfo, TableInfo, TableListing
from .waiting import JOIN_ATTEMPTS, WaitingTables, cancelled, table_of, table_or_none

log = structlog.get_logger("cardcore_server")

MAX_MY_GAMES: Final = 50


class Lobby:
    """Tables, joins, start, abort, listing and spectators."""

    def __init__(
        self,
        store: EventStore,
        *,
        gate: Gate,
        tokens: TokenBook,
        games: Games,
        waiting: WaitingTables,
        presence: Presence,
        reveal_deadline_ms: int = 30_000,
    ) -> None:
        self._store = store
        self._reveal_deadline_ms = reveal_deadline_ms
        self._gate = gate
        self._tokens = tokens
        self._games = games
        self._waiting = waiting
        self._presence = presence

    # ------------------------------------------------------------------ joining

    async def join(
        self,
        invite: str,
        game_id: str,
        seat: int | None,
        entropy: bytes = b"",
        commitment: bytes = b"",
    ) -> Joined:
        """Take a seat: with an invite code (its seat), or an open-to-anyone seat of
        ``game_id`` (``seat``, or the first one free), adding ``entropy`` (16 bytes, or none)
        to the deal, or committing to entropy it reveals once the start is final
        (``commitment``: :func:`cardcore.rng.entropy_commitment` as 32 bytes; :meth:`reveal`).
        Returns the seat's token, durable."""
        self._gate.check_open()
        added = check_entropy(entropy, "entropy")
        committed = check_commitment(commitment, "entropy_commitment")
        if added and committed:
            raise invalid("entropy_commitment", "give entropy or a commitment to it, not both")
        invited: int | None
        if invite:
            game_id, invited = await self._invited(invite)
        else:
            check_game_id(game_id)
            invited = None
        token = new_token()
        for _ in range(JOIN_ATTEMPTS):
            table = await table_of(self._store, game_id)
            take = _seat_to_take(table, invited, seat)
            if table.record.contributions is None:  # a chosen seed deals alone (format 1)
                new = table.taking(take)
            else:
                new = table.taking(take, added, committed)
            rows = [(token_hash(token), str(take))]
            full = not new.open_seats
            try:
                if full:
                    full_status = await self._begin(new, rows)
                else:
                    await self._store.update_table(new, rows)
            except Conflict:
                continue  # another join (or the start, or the deadline) landed first
            except StoreError:
                raise unavailable() from None
            self._tokens.remember(game_id, rows)
            log.info("seat_joined", game_id=game_id, seat=take, started=full)
            return Joined(game_id, take, token, full_status if full else "waiting")
        raise unavailable()

    async def reveal(self, token: str | None, game_id: str, entropy: bytes) -> TableInfo:
        """The entropy a seat committed to when it joined, revealed once the start is final
        (status ``revealing``); the last reveal deals the game. A repeated reveal of the same
        value is answered as the first was."""
        self._gate.check_open()
        viewer = await self._tokens.authenticate(token, game_id)  # the token first: 401
        if check_entropy(entropy, "entropy") == "":
            raise invalid("entropy", f"the {ENTROPY_BYTES} bytes the seat committed to")
        hashed = entropy_commitment(entropy)
        for _ in range(JOIN_ATTEMPTS):
            table = await table_of(self._store, game_id)
            seat = _committed_seat(table, viewer)
            if seat.commitment != hashed:
                raise invalid(
                    "entropy", f"does not hash to the commitment seat {viewer} joined with"
                )
            if seat.entropy:  # revealed already (a retry): the same value is the same answer
                return await self._info(game_id, None)
            if table.status is TableStatus.CANCELLED:
                raise cancelled()
            if table.status is not TableStatus.REVEALING:
                raise ServiceError(
                    Status.FAILED_PRECONDITION,
                    Reason.NOT_REVEALING,
                    "the table is still waiting for players: reveal once its status is "
                    "revealing (nobody can join or leave any more)",
                )
            new = table.revealing(int(viewer), entropy.hex())
            try:
                if new.reveals_pending:
                    await self._store.update_table(new)
                else:
                    await self._start(new, [])
            except Conflict:
                continue
            except StoreError:
                raise unavailable() from None
            log.info("seat_revealed", game_id=game_id, seat=viewer, dealt=not new.reveals_pending)
            return await self._info(game_id, None)
        raise unavailable()

    async def start_table(
        self, token: str | None, game_id: str, bot_kind: str = "reaction"
    ) -> TableInfo:
        """The creator starts its table now: the empty seats are filled by bots."""
        await self._creator(token, game_id)
        if bot_kind not in ("random", "reaction"):
            raise invalid("fill_with", "random or reaction")
        for _ in range(JOIN_ATTEMPTS):
            table = await table_of(self._store, game_id)
            _check_waiting(table)
            try:
                await self._begin(table.moved(TableStatus.WAITING), [], bot_kind)
            except Conflict:
                continue
            except StoreError:
                raise unavailable() from None
            return await self.table(token, game_id)
        raise unavailable()

    async def _begin(
        self, table: TableRow, tokens: list[tuple[str, str]], bot_kind: str = "reaction"
    ) -> str:
        """The start of ``table`` is final (its last seat taken, or its creator started it;
        the open seats still empty are bots now), in the same transaction as that change:
        deal it, or, while seats have entropy to reveal, wait for it (status ``revealing``, a
        new deadline). Returns the status a join answers: ``playing`` or ``revealing``."""
        rec = table.record
        seats = tuple(
            SeatSpec(bot_kind) if s.open and not s.taken else spec
            for spec, s in zip(rec.seats, table.seats, strict=True)
        )
        final = replace(table, record=replace(rec, seats=seats))
        if not final.reveals_pending:
            await self._start(final, tokens)
            return "playing"
        revealing = replace(
            final, status=TableStatus.REVEALING, deadline_ms=wall_ms() + self._reveal_deadline_ms
        )
        await self._store.update_table(revealing, tokens)
        self._waiting.arm(revealing)
        log.info("table_revealing", game_id=table.game_id, seats=revealing.reveals_pending)
        return "revealing"

    async def _start(self, table: TableRow, tokens: list[tuple[str, str]]) -> None:
        """Deal the game of ``table`` (its seats final, every commitment revealed), in the
        same transaction as the table's last change; then serve it here."""
        rec = table.record
        joined = tuple((i, s.entropy) for i, s in enumerate(table.seats) if s.entropy)
        contributions = (  # None: a client-chosen seed deals itself (log format 1)
            None if rec.contributions is None else tuple(sorted((*rec.contributions, *joined)))
        )
        record = replace(
            rec,
            created_ms=wall_ms(),
            contributions=contributions,
            committed=tuple(i for i, s in enumerate(table.seats) if s.commitment),
        )
        live = self._games.make(registry.get_game(record.game), record)
        started = replace(table, status=TableStatus.STARTED, record=record)
        await self._store.update_table(started, tokens, start=(live.lines[0], live.lines[1]))
        self._games.adopt(live)
        self._waiting.disarm(table.game_id)
        bots = sum(s.kind != "human" for s in record.seats)
        log.info("table_started", game_id=table.game_id, bots=bots)
        self._waiting.wake(table.game_id)

    # ------------------------------------------------------------------ abort

    async def abort(self, token: str | None, game_id: str, admin_key: str | None) -> TableInfo:
        """End a game at once (termination ``ABORTED``; the log is final and reveals the seed),
        or cancel a table still waiting: by its creator's token, or with the admin key."""
        self._gate.check_open()
        by = "admin" if admin_key else CREATOR
        if admin_key:
            if not self._tokens.admin_key_matches(admin_key):
                raise ServiceError(
                    Status.PERMISSION_DENIED, Reason.ADMIN_KEY_REQUIRED, "wrong admin key"
                )
            check_game_id(game_id)
        else:
            await self._creator(token, game_id)
        table = await table_or_none(self._store, game_id)
        if table is not None and table.status is not TableStatus.STARTED:
            if await self._cancel(table, by):
                return await self._info(game_id, None)
        live = await self._games.live(game_id)
        text = codec.canonical_text(abort_action(by))
        try:
            await live.submit(HOST_SEAT, HostAbort(by), text, None)
        except Rejected as exc:
            raise ServiceError(
                Status.FAILED_PRECONDITION, exc.code.value, "the game is over"
            ) from None
        except (StoreError, Unavailable):
            raise unavailable() from None
        log.info("game_aborted", game_id=game_id, by=by)
        return await self._info(game_id, None)

    async def _cancel(self, table: TableRow | None, by: str) -> bool:
        """Cancel a table not started; False if it started meanwhile (abort its game then)."""
        for _ in range(JOIN_ATTEMPTS):
            if table is None or table.status is TableStatus.CANCELLED:
                raise cancelled()
            if table.status is TableStatus.STARTED:
                return False
            game_id = table.game_id
            try:
                await self._store.update_table(table.moved(TableStatus.CANCELLED))
            except Conflict:
                table = await table_or_none(self._store, game_id)
                continue
            except StoreError:
                raise unavailable() from None
            log.info("table_cancelled", game_id=game_id, reason=by)
            self._waiting.disarm(game_id)
            self._waiting.wake(game_id)
            return True
        return False

    # ------------------------------------------------------------------ looking

    async def table(self, token: str | None, game_id: str) -> TableInfo:
        """A table's seats and status: to any token of the game, or to anyone if public."""
        self._gate.check_open()
        check_game_id(game_id)
        if token:
            await self._tokens.authenticate(token, game_id)
        else:
            table = await table_or_none(self._store, game_id)
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
        self._gate.check_open()
        game_id, seat = await self._invited(code)
        return seat, await self._info(game_id, None)

    async def _invited(self, code: str) -> tuple[str, int]:
        if not code.startswith(INVITE_PREFIX) or len(code) > 64:
            raise ServiceError(Status.NOT_FOUND, Reason.INVALID_INVITE, "no such invite")
        try:
            found = await self._store.find_invite(token_hash(code))
        except StoreError:
            raise unavailable() from None
        if found is None:
            raise ServiceError(Status.NOT_FOUND, Reason.INVALID_INVITE, "no such invite")
        return found

    async def list_tables(self, game: str, page_size: int, page_token: str) -> TableListing:
        """Public tables waiting for players, newest first; ``page_token`` continues a listing
        (stable while tables are created: newer ones come before its first page)."""
        self._gate.check_open()
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
            rows = await self._store.list_tables(name, before, limit + 1)
        except StoreError:
            raise unavailable() from None
        page = TablePage(rows[:limit], None)
        more = len(rows) > limit
        present = await self._presence.present_seats(*(t.game_id for t in page.tables))
        infos = tuple([_table_info(t, present[t.game_id]) for t in page.tables])
        cursor = _cursor(page.tables[-1]) if more and page.tables else ""
        return TableListing(infos, cursor)

    async def watch(self, game_id: str) -> str:
        """The spectator token of a public table (the same for every watcher: see
        :attr:`cardcore_server.tables.TableRow.watch_token`)."""
        self._gate.check_open()
        check_game_id(game_id)
        table = await table_or_none(self._store, game_id)
        if table is None or not table.public or not table.watch_token:
            raise ServiceError(
                Status.PERMISSION_DENIED, Reason.NOT_PUBLIC, "only a public table can be watched"
            )
        return table.watch_token

    async def my_games(self, tokens: Sequence[str]) -> tuple[tuple[str, TableInfo], ...]:
        """The games of the tokens a client holds: ``(viewer, table)`` each, in order."""
        self._gate.check_open()
        if len(tokens) > MAX_MY_GAMES:
            raise invalid("tokens", f"at most {MAX_MY_GAMES}")
        out = []
        for i, token in enumerate(tokens):
            found = await self._tokens.find(token)
            if found is None:
                raise ServiceError(
                    Status.UNAUTHENTICATED, Reason.INVALID_TOKEN, f"tokens[{i}]: unknown token"
                )
            game_id, viewer = found
            out.append((viewer, await self._info(game_id, None)))
        return tuple(out)

    # ------------------------------------------------------------------ helpers

    async def _creator(self, token: str | None, game_id: str) -> None:
        viewer = await self._tokens.authenticate(token, game_id)
        if viewer != CREATOR:
            raise ServiceError(
                Status.PERMISSION_DENIED,
                Reason.NOT_CREATOR,
                "only the table's creator token (or the admin key) may do this",
            )

    async def _info(self, game_id: str, table: TableRow | None) -> TableInfo:
        table = table or await table_or_none(self._store, game_id)
        live = None
        if table is None or table.status is TableStatus.STARTED:
            live = await self._games.live(game_id)
        present = (await self._presence.present_seats(game_id))[game_id]
        if live is not None:
            return _game_info(table, live, present)
        assert table is not None
        return _table_info(table, present)


def _seat_to_take(table: TableRow, invited: int | None, seat: int | None) -> int:
    """The seat a join takes: the invite's, the one asked for, or the first open to anyone."""
    if invited is None or not table.seats[invited].taken:
        _check_waiting(table)  # a used invite says so, started or not
    if invited is not None:
        if table.seats[invited].taken:
            raise ServiceError(
                Status.FAILED_PRECONDITION,
                Reason.INVITE_USED,
                "this invite was used: its seat is taken",
            )
        return invited
    free = [i for i, s in enumerate(table.seats) if s.open is SeatOpen.ANYONE and not s.taken]
    if seat is None:
        if not free:
            raise _full("every open seat is taken")
        return free[0]
    if not 0 <= seat < len(table.seats) or table.seats[seat].open is not SeatOpen.ANYONE:
        raise ServiceError(
            Status.FAILED_PRECONDITION,
            Reason.SEAT_NOT_OPEN,
            f"seat {seat} is not open to anyone (an invite fills it)",
        )
    if seat not in free:
        raise _full(f"seat {seat} is taken")
    return seat


def _game_info(table: TableRow | None, live: LiveGame, present: set[int]) -> TableInfo:
    """A dealt game (its table, if it had one: a game made with no open seat has none)."""
    record = live.record
    durable = live.durable
    return TableInfo(
        game_id=record.game_id,
        game=record.game,
        status="finished" if durable.outcome is not None else "playing",
        seats=tuple(
            _seat_info(i, spec.kind, table.seats[i] if table else None, True, i in present)
            for i, spec in enumerate(record.seats)
        ),
        created_ms=table.created_ms if table else record.created_ms,
        deadline_ms=0,  # only a waiting table has one
        public=table.public if table else False,
        seed_commitment=str(live.lines[0]["commitment"]),
        rules=record.rules,
        outcome=durable.outcome,
        seq=durable.seq,
    )


def _table_info(table: TableRow, present: set[int]) -> TableInfo:
    """A table not dealt yet: waiting for players, or cancelled."""
    record = table.record
    return TableInfo(
        game_id=record.game_id,
        game=record.game,
        status=table.status.value,
        seats=tuple(
            _seat_info(i, spec.kind, s, s.taken or not s.open, i in present)
            for i, (spec, s) in enumerate(zip(record.seats, table.seats, strict=True))
        ),
        created_ms=table.created_ms,
        deadline_ms=table.deadline_ms if table.status.before_deal else 0,
        public=table.public,
        seed_commitment=commitment(record.seed, record.salt),
        rules=record.rules,
    )


def _seat_info(i: int, kind: str, seat: TableSeat | None, taken: bool, present: bool) -> SeatInfo:
    if seat is None:  # a game made with no open seat has no table
        return SeatInfo(i, kind, "", taken, present)
    revealed = bool(seat.commitment and seat.entropy)
    return SeatInfo(i, kind, seat.open.value, taken, present, seat.commitment, revealed)


def _check_waiting(table: TableRow) -> None:
    if table.status is TableStatus.STARTED:
        raise ServiceError(Status.FAILED_PRECONDITION, Reason.GAME_STARTED, "the game has started")
    if table.status is TableStatus.REVEALING:
        raise ServiceError(
            Status.FAILED_PRECONDITION,
            Reason.GAME_STARTED,
            "the table's start is final: its seats are revealing their entropy",
        )
    if table.status is TableStatus.CANCELLED:
        raise cancelled()


def _committed_seat(table: TableRow, viewer: str) -> TableSeat:
    """The seat of a reveal: the caller's, which must have joined with a commitment."""
    if not viewer.isdigit() or not table.seats[int(viewer)].commitment:
        raise ServiceError(
            Status.FAILED_PRECONDITION,
            Reason.NOT_REVEALING,
            "only a seat that joined with an entropy_commitment reveals (this token's "
            "seat committed to nothing)",
        )
    return table.seats[int(viewer)]


def _full(message: str) -> ServiceError:
    return ServiceError(Status.FAILED_PRECONDITION, Reason.TABLE_FULL, message)


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
