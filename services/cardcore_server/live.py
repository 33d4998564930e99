"""One running game: its sequencer, its durable log, its streams, its timers and server bots.

The sequencer is an ``asyncio.Lock`` (FIFO-fair) around :class:`cardcore.match.Match`: the order
in which it admits actions is the game's order, each stamped with ``at_ms`` (milliseconds since
the game was created, never going backwards). Under the lock an action is decided, applied and
*enqueued* to the store; the lock is released and the caller awaits durability before it is
acknowledged, so the next action is decided while this one is being committed. The store commits
in order, so "N+1 is durable" implies "N is durable"; streams only ever see durable entries.

Timers and bots never touch the state: they arm an ``asyncio`` timer and, when it fires while the
game is still at the sequence number they planned for, submit an ordinary action through the same
sequencer, so it is logged and replays like any other.

On a store other server processes write to as well (:class:`~.store.SharedStore`), the sequencer
first catches up with the entries they appended (re-read by ``seq``, re-applied and checked line
for line, as a rebuild does), so it decides on the latest durable state; two processes deciding
the same ``seq`` at once still collide on the store's primary key, and the loser is rebuilt.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import structlog

from cardcore import codec
from cardcore.bots import BOT_KINDS, Bot, bot_seed
from cardcore.engine import Game, Outcome, Viewer
from cardcore.errors import DecodeError, RejectCode, Rejected
from cardcore.log import LogLine, commitment
from cardcore.match import Match

from . import redaction
from .redaction import RedactedEntry
from .store import EventStore, GameRecord, SharedStore, StoredGame, StoredRejection

AnyGame = Game[Any, Any, Any, Any, Any]
AnyMatch = Match[Any, Any, Any, Any, Any]

log = structlog.get_logger("cardcore_server")


class RebuildError(Exception):
    """A stored game does not replay to its stored log (rules changed, or the store is corrupt)."""


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True, slots=True)
class Accepted:
    """An accepted action: its full entry line and decoded events (redact before sending)."""

    seq: int
    line: LogLine
    events: tuple[Any, ...]
    outcome: Outcome | None
    replayed: bool


def make_bot(kind: str, seat: int, seed: int, min_ms: int, max_ms: int) -> Bot:
    """A server bot of ``kind`` (a key of :data:`cardcore.bots.BOT_KINDS`); delays of 0 keep the
    bot's own defaults."""
    factory: Any = BOT_KINDS[kind]
    if min_ms or max_ms:
        return factory(seat, seed, min_ms=min_ms, max_ms=max(max_ms, min_ms))  # type: ignore[no-any-return]
    return factory(seat, seed)  # type: ignore[no-any-return]


class LiveGame:
    """A game in memory, built from the store or created fresh."""

    def __init__(
        self,
        game: AnyGame,
        record: GameRecord,
        match: AnyMatch,
        store: EventStore,
        clock: Callable[[], int] = wall_ms,
    ) -> None:
        self.game = game
        self.record = record
        self.game_id = record.game_id
        self.match = match
        assert match.writer is not None
        self.lines: list[LogLine] = match.writer.lines
        self.store = store
        self.shared: SharedStore | None = store if isinstance(store, SharedStore) else None
        """Set when other processes append to this game too (then :meth:`sync` before deciding)."""
        self.clock = clock
        self.lock = asyncio.Lock()
        self.events: list[tuple[Any, ...]] = []
        """Decoded events per ``seq`` (for per-viewer redaction without re-decoding)."""
        self.action_ids: dict[tuple[int, str], int] = {}
        self.rejections: dict[tuple[int, str], StoredRejection] = {}
        self.durable_lines = 0
        """How many of :attr:`lines` are durable (header included)."""
        self.broken = False
        self.closed = False
        self._changed = asyncio.Event()
        self._last_write: Awaitable[None] | None = None
        self._cache: dict[Viewer, list[RedactedEntry]] = {}
        self._timers: list[asyncio.TimerHandle] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._legal_since: dict[tuple[int, str], int] = {}
        self.bots: dict[int, Bot] = {}
        for seat, spec in enumerate(record.seats):
            if spec.kind != "human":
                self.bots[seat] = make_bot(
                    spec.kind,
                    seat,
                    bot_seed(record.seed, seat),
                    spec.min_delay_ms,
                    spec.max_delay_ms,
                )
        self.human_seats = tuple(s for s, spec in enumerate(record.seats) if spec.kind == "human")
        self.timeouts = {k: v for k, v in record.timeouts_ms.items() if v > 0}

    # ------------------------------------------------------------------ construction

    @classmethod
    def create(
        cls,
        game: AnyGame,
        record: GameRecord,
        store: EventStore,
        clock: Callable[[], int] = wall_ms,
    ) -> LiveGame:
        setup = game.make_setup(len(record.seats), record.seed, record.rules, record.event_limit)
        match = Match(game, setup, salt=record.salt, at_ms=0, game_id=record.game_id)
        self = cls(game, record, match, store, clock)
        self.events.append(self._deal_events())
        return self

    def _deal_events(self) -> tuple[Any, ...]:
        deal = self.lines[1]["events"]
        return tuple(self.game.decode_event(e, f"events[{i}]") for i, e in enumerate(deal))

    @classmethod
    def restore(
        cls,
        game: AnyGame,
        stored: StoredGame,
        store: EventStore,
        clock: Callable[[], int] = wall_ms,
    ) -> LiveGame:
        """Re-create the match from the stored setup, seed and salt, re-submit every stored
        action, and check that the rebuilt log equals the stored one line for line."""
        record = stored.record
        lines = stored.lines
        if len(lines) < 2:
            raise RebuildError("no deal entry")
        setup = game.make_setup(len(record.seats), record.seed, record.rules, record.event_limit)
        match = Match(
            game, setup, salt=record.salt, at_ms=int(lines[1]["at_ms"]), game_id=record.game_id
        )
        self = cls(game, record, match, store, clock)
        if self.lines[:2] != lines[:2]:
            raise RebuildError("header or deal differs from the stored one")
        if lines[0].get("commitment") != commitment(record.seed, record.salt):
            raise RebuildError("the commitment does not match the stored seed")
        self.events.append(self._deal_events())
        for line in lines[2:]:
            if line.get("type") != "entry":
                break
            try:
                command = game.decode_command(line["action"], "action")
                events = match.submit(int(line["seat"]), command, int(line["at_ms"]))
            except (DecodeError, Rejected, ValueError, KeyError) as exc:
                raise RebuildError(f"entry {line.get('seq')} does not replay: {exc}") from None
            self.events.append(tuple(events))
        if self.lines != lines:
            raise RebuildError("the rebuilt log differs from the stored log")
        self.action_ids = dict(stored.action_ids)
        self.rejections = dict(stored.rejections)
        self.durable_lines = len(self.lines)
        return self

    # ------------------------------------------------------------------ state

    @property
    def over(self) -> bool:
        return self.match.outcome is not None

    @property
    def durable_seq(self) -> int:
        """The number of durable entries (the next ``seq`` a stream will see)."""
        n = self.durable_lines - 1
        if n > 0 and self.lines[self.durable_lines - 1].get("type") == "end":
            n -= 1
        return max(n, 0)

    @property
    def durably_over(self) -> bool:
        return self.durable_lines == len(self.lines) and self.over

    def entry_line(self, seq: int) -> LogLine:
        return self.lines[1 + seq]

    def now_ms(self) -> int:
        return max(self.match.last_at_ms, self.clock() - self.record.created_ms)

    def mark_durable(self, upto: int) -> None:
        if upto > self.durable_lines:
            self.durable_lines = upto
            self._changed.set()
            self._changed = asyncio.Event()

    async def barrier(self) -> None:
        """Wait until everything applied so far is durable."""
        w = self._last_write
        if w is not None:
            await asyncio.shield(w)

    # ------------------------------------------------------------------ the sequencer

    async def submit(
        self,
        seat: int,
        command: Any,
        command_text: str,
        action_id: str | None,
        planned_seq: int | None = None,
    ) -> Accepted:
        """Sequence one action for ``seat``; returns once it is durable. ``planned_seq``: the
        ``seq`` a timer chose the command for (:class:`Superseded` when the game moved on).

        Raises :class:`Rejected` (after the rejection is durable, when it carried an
        ``action_id``), or :class:`~.store.StoreError` when the store failed."""
        async with self.lock:
            if self.broken or self.closed:
                raise _Unavailable()
            key = (seat, action_id) if action_id else None
            if self.shared is not None:
                await self._catch_up()
                if key is not None and key not in self.action_ids and key not in self.rejections:
                    rej = await self.shared.rejection(self.game_id, seat, key[1])
                    if rej is not None:  # another process rejected this action_id
                        self.rejections[key] = rej
            if planned_seq is not None and self.match.seq != planned_seq:
                raise Superseded()
            if key is not None:
                prior = self._prior(key, command_text)
                if prior is not None:
                    write = self._last_write
                    result_or_rej = prior
                else:
                    write, result_or_rej = self._apply(seat, command, command_text, key)
            else:
                write, result_or_rej = self._apply(seat, command, command_text, None)
        if write is not None:
            try:
                await asyncio.shield(write)
            except Exception:
                self.broken = True
                raise
        if isinstance(result_or_rej, Rejected):
            raise result_or_rej
        return result_or_rej

    def _prior(self, key: tuple[int, str], command_text: str) -> Accepted | Rejected | None:
        seq = self.action_ids.get(key)
        if seq is not None:
            line = self.entry_line(seq)
            if codec.canonical_text(line["action"]) != command_text:
                raise ActionIdReused()
            outcome = self.match.outcome if self._ended_at(seq) else None
            return Accepted(seq, line, self.events[seq], outcome, True)
        rej = self.rejections.get(key)
        if rej is not None:
            if rej.command != command_text:
                raise ActionIdReused()
            return Rejected(RejectCode(rej.code), rej.detail)
        return None

    def _ended_at(self, seq: int) -> bool:
        return self.over and seq == self.match.seq - 1

    def _apply(
        self, seat: int, command: Any, command_text: str, key: tuple[int, str] | None
    ) -> tuple[Awaitable[None] | None, Accepted | Rejected]:
        match = self.match
        try:
            events = match.submit(seat, command, self.now_ms())
        except Rejected as exc:
            if key is None:
                return None, exc
            rej = StoredRejection(seat, key[1], command_text, exc.code.value, exc.detail)
            self.rejections[key] = rej
            write = self.store.append(self.game_id, None, None, None, rej)
            self._last_write = write
            return write, exc
        seq = match.seq - 1
        self.events.append(tuple(events))
        over = match.outcome is not None
        line = self.lines[-2] if over else self.lines[-1]
        end = self.lines[-1] if over else None
        if key is not None:
            self.action_ids[key] = seq
        write = self.store.append(self.game_id, line, key[1] if key else None, end, None)
        self._last_write = write
        upto = len(self.lines)
        self._track(write, upto)
        self.plan()
        return write, Accepted(seq, line, tuple(events), match.outcome, False)

    def _track(self, write: Awaitable[None], upto: int) -> None:
        fut = asyncio.ensure_future(write)

        def done(f: asyncio.Future[None]) -> None:
            if f.cancelled() or f.exception() is not None:
                self.broken = True
                self._changed.set()
                return
            self.mark_durable(upto)

        fut.add_done_callback(done)

    # ------------------------------------------------------------------ other processes

    async def sync(self) -> None:
        """Catch up with entries other processes appended (a shared store only). Raises
        :class:`Unavailable` (and the game is broken: rebuild it) when they do not apply."""
        if self.shared is None:
            return
        async with self.lock:
            if self.broken or self.closed:
                return
            await self._catch_up()

    async def _catch_up(self) -> None:
        """Under the lock: re-read from the next ``seq`` and apply what others appended."""
        assert self.shared is not None
        tail = await self.shared.tail(self.game_id, self.match.seq)
        if not tail.entries:
            return
        # Entries past ours were decided on top of everything we wrote, or they collide with a
        # write of ours still in flight (which then fails): let ours settle, then look again.
        try:
            await self.barrier()
        except Exception:
            self.broken = True
        if self.broken:
            self.wake()
            raise _Unavailable()
        tail = await self.shared.tail(self.game_id, self.match.seq)
        match = self.match
        try:
            for seq, line, action_id in tail.entries:
                if seq != match.seq:
                    raise RebuildError(f"entry {match.seq} is missing")
                command = self.game.decode_command(line["action"], "action")
                seat = int(line["seat"])
                events = match.submit(seat, command, int(line["at_ms"]))
                self.events.append(tuple(events))
                over = match.outcome is not None
                if (self.lines[-2] if over else self.lines[-1]) != line:
                    raise RebuildError(f"entry {seq} differs from the stored one")
                if over and self.lines[-1] != tail.end:
                    raise RebuildError("the end line differs from the stored one")
                if action_id is not None:
                    self.action_ids[(seat, str(action_id))] = seq
        except (RebuildError, DecodeError, Rejected, ValueError, KeyError) as exc:
            log.error("catch_up_failed", game_id=self.game_id, error=str(exc))
            self.broken = True
            self.wake()
            raise _Unavailable() from None
        self.mark_durable(len(self.lines))
        self.plan()

    # ------------------------------------------------------------------ streams

    def redacted(self, seq: int, viewer: Viewer) -> RedactedEntry:
        cache = self._cache.setdefault(viewer, [])
        while len(cache) <= seq:
            n = len(cache)
            cache.append(redaction.entry(self.game, self.entry_line(n), self.events[n], viewer))
        return cache[seq]

    async def wait_change(self, seen_lines: int) -> None:
        """Return once more lines are durable than ``seen_lines``, or on :meth:`wake` (the
        caller looks again either way)."""
        if self.durable_lines <= seen_lines and not self.broken and not self.closed:
            await self._changed.wait()

    def wake(self) -> None:
        """Wake every stream waiting on this game (the server is stopping)."""
        self._changed.set()
        self._changed = asyncio.Event()

    # ------------------------------------------------------------------ timers and bots

    def plan(self) -> None:
        """Re-arm the bots' and timed actions' timers for the current state."""
        for h in self._timers:
            h.cancel()
        self._timers.clear()
        if self.over or self.closed or self.broken:
            return
        if not self.bots and not self.timeouts:
            return
        loop = asyncio.get_running_loop()
        match = self.match
        seq = match.seq
        state = match.state
        for seat, bot in self.bots.items():
            proposal = bot.propose(self.game, state)
            if proposal is not None:
                delay, command = proposal
                self._timers.append(
                    loop.call_later(max(delay, 0) / 1000, self._fire, seq, seat, command)
                )
        if self.timeouts:
            now = self.clock()
            still: dict[tuple[int, str], int] = {}
            for seat in self.human_seats:
                chosen: dict[str, Any] = {}
                for command in match.legal_commands(seat):
                    kind = type(command).__name__
                    if kind not in self.timeouts or kind in chosen:
                        continue
                    if self.game.is_sensible(state, seat, command):
                        chosen[kind] = command
                for kind, command in chosen.items():
                    since = self._legal_since.get((seat, kind), now)
                    still[(seat, kind)] = since
                    due = since + self.timeouts[kind] - now
                    self._timers.append(
                        loop.call_later(max(due, 0) / 1000, self._fire, seq, seat, command)
                    )
            self._legal_since = still

    def _fire(self, seq: int, seat: int, command: Any) -> None:
        if self.match.seq != seq or self.over or self.closed or self.broken:
            return
        task = asyncio.get_running_loop().create_task(self._auto(seq, seat, command))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _auto(self, seq: int, seat: int, command: Any) -> None:
        text = codec.canonical_text(codec.encode(command))
        try:
            acc = await self.submit(seat, command, text, None, planned_seq=seq)
        except Superseded:
            return  # the game moved on (another process's entries): plan() re-armed
        except Rejected as exc:
            log.info("auto_rejected", game_id=self.game_id, seat=seat, reason=exc.code.value)
            self.plan()
        except Exception as exc:
            log.warning("auto_failed", game_id=self.game_id, seat=seat, error=type(exc).__name__)
        else:
            log.info(
                "auto_action",
                game_id=self.game_id,
                seat=seat,
                seq=acc.seq,
                kind=type(command).__name__,
            )

    async def close(self) -> None:
        self.closed = True
        for h in self._timers:
            h.cancel()
        self._timers.clear()
        for t in list(self._tasks):
            t.cancel()
        with contextlib.suppress(Exception):
            await self.barrier()
        self._changed.set()


class Superseded(Exception):
    """A timed action was planned for an earlier ``seq`` than the game is at now."""


class ActionIdReused(Exception):
    """The same ``action_id`` came back with a different command."""


class _Unavailable(Exception):
    """The game is being rebuilt or the server is stopping."""


Unavailable = _Unavailable
