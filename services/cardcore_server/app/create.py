"""Creating a game: the request checked (:mod:`.plan`), the game dealt, or — when a seat is
open — a table made that deals once its seats are taken; made idempotent by a client's key
(:mod:`.idempotency`). The answer is given once what was made is durable.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import replace

import structlog

from cardcore.engine import Role
from cardcore.log import SALT_BYTES, commitment

from ..config import ServiceConfig
from ..errors import FieldViolation, Reason, ServiceError, Status, invalid
from ..live import wall_ms
from ..store import EventStore, GameRecord, StoreError
from ..tables import SeatOpen, TableStatus
from .games import Games
from .idempotency import Creations, check_idempotency_key, request_hash
from .outage import unavailable
from .plan import Plan, commitments, contributions, plan
from .requests import Gate, note
from .tokens import CREATOR, Minter, TokenBook, token_hash
from .values import CreatedGame, GameSpec
from .waiting import WaitingTables, new_table

log = structlog.get_logger("cardcore_server")


class Creation:
    """``CreateGame``."""

    def __init__(
        self,
        config: ServiceConfig,
        store: EventStore,
        *,
        gate: Gate,
        tokens: TokenBook,
        games: Games,
        waiting: WaitingTables,
    ) -> None:
        self._config = config
        self._store = store
        self._gate = gate
        self._tokens = tokens
        self._games = games
        self._waiting = waiting
        self._creations = Creations()

    async def create_game(
        self, spec: GameSpec, admin_key: str | None = None, credential: str | None = None
    ) -> CreatedGame:
        """Deal a new game; returns its id, tokens and seed commitment once it is durable.
        ``credential``: the caller's own (its ``authorization`` header), which scopes its
        idempotency keys, as the admin key does (:meth:`.tokens.TokenBook.scope`)."""
        self._gate.check_open()
        self._tokens.check_may_create(admin_key)
        checked = plan(spec, self._config)
        key = spec.idempotency_key
        if not key:
            return await self._deal(spec, checked, self._tokens.minter(), secrets.token_hex(16))
        check_idempotency_key(key)
        request = request_hash(spec, checked)
        mint = self._tokens.minter(key, self._tokens.scope(admin_key, credential))
        game_id = mint("game")[-32:]
        # Retries of one creation, at once: one deals, the others wait for it and answer as a
        # retry after it would (each dealing too would fail all but one on the game's key).
        async with self._creations.one_at_a_time(game_id) as waited:
            again = await self._created_before(game_id, request, mint)
            if again is not None:
                note(joined=waited)  # the request line: a retry, and whether it waited
                return again
            try:
                return await self._deal(spec, checked, mint, game_id, request)
            except ServiceError as exc:
                if exc.reason != Reason.STORE_UNAVAILABLE:
                    raise
                # Another server may have dealt it meanwhile: then ours failed on its key.
                again = await self._created_before(game_id, request, mint)
                if again is None:
                    raise
                log.info("create_retry_raced", game_id=game_id)
                return again

    async def _deal(
        self,
        spec: GameSpec,
        checked: Plan,
        mint: Minter,
        game_id: str,
        request: str | None = None,
    ) -> CreatedGame:
        """Make the game (or the table, when a seat is open) and store it."""
        record = GameRecord(
            game_id=game_id,
            game=checked.game.info.name,
            rules=checked.rules,
            event_limit=checked.event_limit,
            seed=checked.seed,
            salt=secrets.token_bytes(SALT_BYTES),
            created_ms=wall_ms(),
            seats=checked.seats,
            timeouts_ms=checked.timeouts,
            turn_timeout_ms=checked.timers["turn_timeout_ms"],
            idle_timeout_ms=checked.timers["idle_timeout_ms"],
            abandon_timeout_ms=checked.timers["abandon_timeout_ms"],
            # A seed the client chose (tests, tournaments) is the deal's seed itself: log format
            # 1, reproducible from it alone; the seats' entropy is for seeds the server draws.
            contributions=(
                contributions(spec, checked.seats, checked.opens) if spec.seed is None else None
            ),
            request=request,
        )
        seat_tokens = _creator_seats(record, checked.opens, mint)
        spectator = mint("spectator")
        creator = mint("creator")
        rows = [(token_hash(t), str(seat)) for seat, t in seat_tokens]
        rows.append((token_hash(spectator), Role.SPECTATOR.value))
        rows.append((token_hash(creator), CREATOR))
        made = CreatedGame(game_id, seat_tokens, spectator, "", {}, creator)
        committed = (  # a chosen seed deals alone: nothing to commit to
            commitments(spec, checked.seats, checked.opens) if spec.seed is None else {}
        )
        if any(checked.opens) or committed:
            return await self._open_table(
                spec, checked, record, mint, rows=rows, made=made, committed=committed
            )
        live = self._games.make(checked.game, record)
        try:
            await self._store.create(record, live.lines[0], live.lines[1], rows)
        except StoreError:
            raise unavailable("the store could not record the game") from None
        self._tokens.remember(game_id, rows)
        self._games.adopt(live)
        note(game_id=game_id, seq=0)
        header = live.lines[0]
        return replace(made, seed_commitment=str(header["commitment"]), header=header)

    async def _open_table(
        self,
        spec: GameSpec,
        checked: Plan,
        record: GameRecord,
        mint: Minter,
        *,
        rows: list[tuple[str, str]],
        made: CreatedGame,
        committed: dict[int, str],
    ) -> CreatedGame:
        """A game with open seats: a table that deals when its seats are filled. Or one whose
        seats are all final but some committed to entropy (``committed``, by seat): a table
        revealing from the start, dealt by the last reveal."""
        gid = record.game_id
        invites = _invites(checked.opens, mint)
        watch = mint("watch") if spec.public else ""
        if watch:
            rows.append((token_hash(watch), Role.SPECTATOR.value))
        deadline = spec.start_deadline_ms or self._config.start_deadline_ms
        table = new_table(record, checked.opens, deadline, watch, committed)
        if not any(checked.opens):
            reveal_by = wall_ms() + self._config.reveal_deadline_ms
            table = replace(table, status=TableStatus.REVEALING, deadline_ms=reveal_by)
        try:
            await self._store.create_table(
                table, [(token_hash(code), seat) for seat, code in invites], rows
            )
        except StoreError:
            raise unavailable("the store could not record the table") from None
        self._tokens.remember(gid, rows)
        self._waiting.arm(table)
        note(game_id=gid, seq=0)
        return replace(
            made,
            seed_commitment=commitment(record.seed, record.salt),
            header={},  # written at the deal, with the seats' contributions
            invites=invites,
            status=table.status.value,
        )

    async def _created_before(
        self, game_id: str, request: str | None, mint: Minter
    ) -> CreatedGame | None:
        """The answer a creation with this idempotency key got, if it landed before."""
        try:
            stored = await self._store.load(game_id)
            table = await self._store.load_table(game_id) if stored is None else None
        except StoreError:
            raise unavailable("the store could not be read") from None
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
        status = table.status.value if table is not None and table.status.before_deal else "playing"
        note(game_id=game_id, replayed=True)
        return CreatedGame(
            game_id=game_id,
            seat_tokens=_creator_seats(record, seat_open, mint),
            spectator_token=mint("spectator"),
            seed_commitment=commitment(record.seed, record.salt),
            header=stored.lines[0] if stored is not None else {},
            creator_token=mint("creator"),
            invites=_invites(seat_open, mint),
            status=status,
        )


def _creator_seats(
    record: GameRecord, opens: Sequence[SeatOpen], mint: Minter
) -> tuple[tuple[int, str], ...]:
    """The tokens of the human seats the creator holds."""
    return tuple(
        (seat, mint(f"seat:{seat}"))
        for seat, s in enumerate(record.seats)
        if s.kind == "human" and not opens[seat]
    )


def _invites(opens: Sequence[SeatOpen], mint: Minter) -> tuple[tuple[int, str], ...]:
    return tuple(
        (seat, mint(f"invite:{seat}")) for seat, o in enumerate(opens) if o is SeatOpen.INVITE
    )
