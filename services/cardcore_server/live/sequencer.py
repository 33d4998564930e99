"""The sequencer of one served game: one order for every action, decided on the durable state and
committed by compare-and-set.

It is one task per game (:meth:`Sequencer._run`) that takes the actions waiting for the game in
arrival order, in *rounds*: it decides every action of a round on the state it holds (stamping
``at_ms``, milliseconds since the game was created, never going backwards), then hands the
round to the store as one :class:`~..store.Commit` at the game's version. The store writes it
only if the game is still at that version and the first new entry links to the stored head
(compare-and-set, :mod:`..store.interface`); then the round is durable and every action in it is
answered. If another server wrote first (:class:`~..store.Conflict`), the match is rewound to
the last durable state (:meth:`cardcore.match.Match.rewind`), the sequencer catches up with what
the store holds (:mod:`.catchup`) and decides the same actions again, in the same order, on the
new state. So whichever server takes an action, it is decided on exactly the entries before it,
and nothing shown to anyone (views, streams, answers) is ever a state the store did not accept.

While a round is being committed, new actions wait and form the next round (a group commit per
game; the store groups rounds of different games). A store that cannot be reached makes the
sequencer retry with backoff: actions that carry an ``action_id``, and timed actions, wait for
it, since a failed commit may have landed and only a catch-up can tell. A client waits
:data:`CLIENT_WAIT_S` at most, whatever the store does (fails, or hangs): then it is answered
``UNAVAILABLE``, and its action, if not yet in a round, is dropped. A rejection is answered
only on a state the store confirmed as current (stored with the round when it carried an
``action_id``), so an ``action_id`` has one answer (:mod:`.answers`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Final

import structlog

from cardcore import codec
from cardcore.errors import DecodeError, RejectCode, Rejected

from ..store import (
    Commit,
    Conflict,
    EventStore,
    GameRecord,
    SharedStore,
    StoreError,
)
from .actions import (
    Accepted,
    ActionIdReused,
    AnyGame,
    AnyMatch,
    Broken,
    HostAbort,
    RebuildError,
    Superseded,
    Unavailable,
)
from .answers import Answers, Key, stored_rejection
from .catchup import apply_tail
from .fanout import Fanout
from .holding import RaceHold
from .intents import Answer, Intent, Round, answer

log = structlog.get_logger("cardcore_server")

MAX_ROUND: Final = 256
"""Actions decided and committed together at most."""
CLIENT_WAIT_S: Final = 2.0
"""How long a client's action waits for the store at most, from its arrival: past that it is
answered ``UNAVAILABLE`` (retry with the same ``action_id``), whether the store fails fast (the
sequencer retries with backoff meanwhile) or hangs (a database cut off: a commit may wait for
TCP to give up). A commit takes milliseconds; this is for outages."""
RETRY_MIN_S: Final = 0.05
RETRY_MAX_S: Final = 2.0


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


class Sequencer:
    """Orders, decides and commits the actions of one game (see the module docstring)."""

    def __init__(
        self,
        game: AnyGame,
        record: GameRecord,
        match: AnyMatch,
        *,
        fanout: Fanout,
        answers: Answers,
        store: EventStore,
        clock: Callable[[], int],
        version: int,
        on_durable: Callable[[], None],
        on_caught_up: Callable[[bool | None, str | None], None],
    ) -> None:
        self.game = game
        self.game_id = record.game_id
        self._created_ms = record.created_ms
        self.match = match
        self.fanout = fanout
        self.lines = fanout.lines
        self.events = fanout.events
        self.answers = answers
        self.store = store
        self.shared: SharedStore | None = store if isinstance(store, SharedStore) else None
        """Set when other processes write to this game too."""
        self.server_id = self.shared.server_id if self.shared is not None else None
        self.clock = clock
        self.version = version
        """The store's version of the game that the durable state is at."""
        self._on_durable = on_durable
        """Told when entries became durable (after their actions are answered)."""
        self._on_caught_up = on_caught_up
        """Told after a catch-up whether this server owns the game now (None: not shared) and
        which one does."""
        self.broken = False
        self.closed = False
        self._queue: deque[Intent] = deque()
        self._in_round: list[Intent] = []
        """The round being decided and committed now (their futures not yet answered)."""
        self._draining = False
        self._sequencer: asyncio.Task[None] | None = None
        """The game's own sequencer task, when it runs (else a caller's task runs rounds)."""
        self._stale = False
        self._sync_waiters: list[asyncio.Future[None]] = []
        self._runner: asyncio.Task[None] | None = None
        self._fenced_at: int | None = None
        self._committing = False
        self._watchdog: asyncio.TimerHandle | None = None
        """Due at the earliest deadline of a client waiting (:meth:`_watch`), if any."""
        policy = match.race_policy
        self._hold = (
            RaceHold(policy, self._released, self._clock_ms) if policy.compensated else None
        )
        """Under ``race_policy: "compensated"``: actions wait here for their credited turn."""
        self.delay_of: Callable[[int], int] = lambda _seat: 0
        """A seat's measured one-way delay now, in ms (the play channel's round trips)."""

    def now_ms(self) -> int:
        return max(self.match.last_at_ms, self._clock_ms())

    def _clock_ms(self) -> int:
        return self.clock() - self._created_ms

    def mark_durable(self) -> None:
        """Everything the match holds is in the store."""
        self.fanout.publish(self.match.checkpoint())

    def _rewind(self) -> None:
        """Back to what the store holds (a round it refused, or whose fate is unknown)."""
        cp = self.fanout.checkpoint
        self.match.rewind(cp)
        del self.events[cp.seq :]

    # ------------------------------------------------------------------ callers

    async def submit(
        self,
        seat: int,
        command: Any,
        command_text: str,
        action_id: str | None,
        planned_seq: int | None = None,
    ) -> Accepted:
        """:meth:`.game.LiveGame.submit`."""
        if self.broken or self.closed:
            raise Unavailable()
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Accepted | Rejected] = loop.create_future()
        timed = planned_seq is not None
        deadline = float("inf") if timed else loop.time() + CLIENT_WAIT_S
        intent = Intent(seat, command, command_text, action_id, planned_seq, fut, deadline)
        if self._hold is None:
            self._queue.append(intent)
        else:
            self._hold_back(intent)
        # A client waits CLIENT_WAIT_S at most, whatever the store does (hangs, in an outage).
        if not timed and self._watchdog is None:
            self._watchdog = loop.call_at(deadline, self._watch)
        try:
            # A round of PostgreSQL's runs on the sequencer's task, never the caller's: a
            # caller leaves at its deadline, and cancelling a query in flight would itself
            # wait for the unreachable server (psycopg asks it to cancel).
            inline = self._runner is None and len(self._queue) == 1 and not self._stale
            if self._hold is not None:
                pass  # released to the queue in credited order (_released)
            elif inline and self.shared is None:
                await self._round_inline(fut)
            else:
                self._kick()
            result = await asyncio.shield(fut)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if intent.stopped_at is None or task is None or task.uncancel() > intent.stopped_at:
                intent.left = True  # the caller's own cancellation (too)
                raise
            result = self._give_up(intent)  # _watch stopped its round, hung on the store
        if isinstance(result, Rejected):
            raise result
        return result

    def _hold_back(self, intent: Intent) -> None:
        """Credit an action (docs/games/common.md#race-policy) and hold it for its turn: a
        seat's by its measured delay, the host's own (a timer's, a bot's) with delay 0."""
        assert self._hold is not None
        if intent.planned_seq is None:
            intent.received_ms, intent.delay_ms = self._clock_ms(), self.delay_of(intent.seat)
        else:
            intent.received_ms = self.now_ms()
        self._hold.add(intent, intent.received_ms, intent.delay_ms)

    def _released(self, intents: list[Intent]) -> None:
        self._queue.extend(intents)
        self._kick()

    def _watch(self) -> None:
        """One timer per game, not one per action: each client past :data:`CLIENT_WAIT_S` is
        answered ``UNAVAILABLE`` (:meth:`_give_up`); one running its own round, hung on the
        store, is stopped, and its :meth:`submit` answers it."""
        self._watchdog = None
        loop = asyncio.get_running_loop()
        now = loop.time()
        runner = self._runner
        due = float("inf")
        for intent in [*self._queue, *self._in_round]:
            if intent.future.done() or intent.left or intent.stopped_at is not None:
                continue
            if intent.deadline > now:
                due = min(due, intent.deadline)
            elif runner is not None and runner is not self._sequencer and intent in self._in_round:
                intent.stopped_at = runner.cancelling()
                runner.cancel()
            else:
                with contextlib.suppress(StoreError):
                    self._give_up(intent)
        if due != float("inf"):
            self._watchdog = loop.call_at(due, self._watch)

    def _give_up(self, intent: Intent) -> Accepted | Rejected:
        """A client's wait for the store is over: answer it ``UNAVAILABLE`` (retry with the
        same ``action_id``). Still queued, its action is never decided; in the round being
        committed, its fate is the round's, which a resend learns."""
        if intent.future.done():
            return intent.future.result()
        with contextlib.suppress(ValueError):
            self._queue.remove(intent)
        failure = StoreError(f"the store did not answer within {CLIENT_WAIT_S:g} s")
        answer(intent, failure)
        raise failure

    async def sync(self) -> None:
        """:meth:`.game.LiveGame.sync`."""
        if self.shared is None or self.closed:
            return
        if self.broken:
            raise Unavailable()
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._sync_waiters.append(fut)
        self._kick()
        await asyncio.shield(fut)
        if self.broken:
            raise Unavailable()

    def request_sync(self) -> None:
        """A hint that the store may hold more than we do: catch up soon (no waiting)."""
        if self.closed or self.broken:
            return
        self._stale = True
        self._kick()

    # ------------------------------------------------------------------ the task

    async def _round_inline(self, fut: asyncio.Future[Accepted | Rejected]) -> None:
        """The sequencer is idle: the caller runs the round of its action ``fut`` itself (a
        task of its own would cost two more event-loop turns per action). Whatever else
        arrived meanwhile, or a store failure, goes to the sequencer task."""
        task = asyncio.current_task()
        assert task is not None
        self._runner = task
        try:
            await self._round()
        except StoreError:
            self._stale = True  # the sequencer catches up (with backoff) and retries
        except asyncio.CancelledError:
            self._stale = True  # a commit given up on may land still: catch up first
            # drain() stopped a round that hangs (the server is stopping): this call is
            # answered from its future (UNAVAILABLE), not cancelled with it.
            if not (self._draining and fut.done()):
                raise
            task.uncancel()
        finally:
            if self._runner is task:
                self._runner = None
            if self._queue or self._stale or self._sync_waiters:
                self._kick()

    def _kick(self) -> None:
        if self._runner is None and not self.closed:
            self._runner = self._sequencer = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        """The game's sequencer task: catch up when asked or told to, else decide and commit
        the next round; while the store fails, retry with backoff (actions wait meanwhile)."""
        backoff = RETRY_MIN_S
        failing = False
        try:
            while not self.closed and not self.broken:
                try:
                    if self._stale or self._sync_waiters:
                        waiters, self._sync_waiters = self._sync_waiters, []
                        try:
                            await self._catch_up()
                        finally:
                            _release(waiters)
                    elif self._queue:
                        await self._round()
                    else:
                        return
                except StoreError as exc:
                    # Unreachable, or a write whose fate is unknown: catch up before deciding.
                    self._stale = True
                    if not failing:
                        log.warning("store_retry", game_id=self.game_id, error=str(exc))
                    failing = True
                    self._expire(StoreError(str(exc)))
                    await asyncio.sleep(backoff)
                    backoff = min(backoff * 2, RETRY_MAX_S)
                    continue
                if failing:
                    log.info("store_recovered", game_id=self.game_id, seq=self.match.seq)
                    failing = False
                backoff = RETRY_MIN_S
        except Broken:
            pass
        finally:
            self._runner = None
            if self.broken or self.closed:
                self._fail_all(Unavailable())

    def _expire(self, exc: BaseException) -> None:
        """Answer the actions that cannot wait any longer for the store; wake sync waiters
        (they see the durable state as it is)."""
        now = asyncio.get_running_loop().time()
        keep: deque[Intent] = deque()
        for intent in self._queue:
            if intent.deadline <= now:
                answer(intent, exc)
            else:
                keep.append(intent)
        self._queue = keep
        waiters, self._sync_waiters = self._sync_waiters, []
        _release(waiters)

    def _fail_all(self, exc: BaseException) -> None:
        for intent in self._hold.take_all() if self._hold is not None else ():
            answer(intent, exc)
        while self._queue:
            answer(self._queue.popleft(), exc)
        waiters, self._sync_waiters = self._sync_waiters, []
        _release(waiters)

    # ------------------------------------------------------------------ rounds

    def _take_round(self) -> list[Intent]:
        """The next round: either one timed action (it carries the owner's fence) or the
        clients' actions up to the next timed one."""
        q = self._queue
        if q[0].planned_seq is not None:
            return [q.popleft()]
        batch: list[Intent] = []
        while q and q[0].planned_seq is None and len(batch) < MAX_ROUND:
            batch.append(q.popleft())
        return batch

    async def _round(self) -> None:
        """Decide one round on the durable state and commit it (see the module docstring)."""
        self._committing = True  # close() lets it land rather than cancel it
        self._in_round = self._take_round()
        try:
            await self._decide_and_commit(self._in_round)
        finally:
            self._committing = False
            self._in_round = []

    async def _decide_and_commit(self, batch: list[Intent]) -> None:
        match = self.match
        timed = batch[0].planned_seq is not None
        was_over = match.outcome is not None
        decided = Round()
        for intent in batch:
            decided.answers.append((intent, self._decide(intent, decided, was_over)))
        end = self.lines[-1] if match.outcome is not None and not was_over else None
        rejections = decided.rejections
        if decided.entries or rejections or (decided.confirm and self.shared is not None):
            commit = Commit(
                self.game_id,
                self.version,
                tuple(decided.entries),
                end,
                tuple(rejections),
                owner=self.server_id if timed else None,  # None on a store of our own
                texts=tuple(decided.texts),
                forget=tuple(self.answers.past_the_cap(rejections)),
            )
            try:
                version = await self.store.commit(commit)
            except Conflict:
                self._refused(batch, timed)
                return
            except BaseException:
                self._failed(batch)
                raise
            self.version = version
        self.answers.accepted.update(decided.accepted)
        self.answers.keep(rejections)
        if decided.entries:
            self.mark_durable()
        for intent, decision in decided.answers:
            answer(intent, decision)
        if decided.entries:
            self._on_durable()

    def _decide(self, intent: Intent, decided: Round, was_over: bool) -> Answer:
        """Decide one action of the round on the match (the entry it makes, or the rejection,
        goes into ``decided``); returns its answer, once the round is durable."""
        match = self.match
        key = (intent.seat, intent.action_id) if intent.action_id else None
        if intent.planned_seq is not None and match.seq != intent.planned_seq:
            return Superseded()
        if key is not None:
            try:
                prior = self._prior(key, intent.text, decided)
            except ActionIdReused as exc:
                return exc
            if prior is not None:
                return prior
        try:
            if isinstance(intent.command, HostAbort):
                match.abort(self.now_ms(), intent.command.by)
                events: Any = ()
            elif self._hold is not None:
                events = match.submit_received(
                    intent.seat, intent.command, intent.received_ms, intent.delay_ms
                )
            else:
                events = match.submit(intent.seat, intent.command, self.now_ms())
        except Rejected as exc:
            if exc.code is not RejectCode.GAME_OVER or not was_over:
                decided.confirm = True  # decided on a state the store must confirm as current
            if key is None:
                return exc
            # stored: one answer, whenever the id is sent again
            rej = stored_rejection(intent.seat, key[1], intent.text, exc)
            decided.rejections.append(rej)
            decided.rejected[key] = rej
            return Rejected(exc.code, rej.detail)  # the answer a resend gets, now too
        seq = match.seq - 1
        self.events.append(tuple(events))
        over = match.outcome is not None
        at = -2 if over else -1
        line = self.lines[at]
        decided.entries.append((line, intent.action_id))
        assert match.writer is not None  # a live match records its log
        decided.texts.append(match.writer.line_text(at))
        if key is not None:
            decided.accepted[key] = seq
        return Accepted(seq, line, tuple(events), match.outcome if over else None, False)

    def _prior(self, key: Key, command_text: str, decided: Round) -> Accepted | Rejected | None:
        """The answer ``key`` got already (stored, or earlier in this round), if any; raises
        :class:`~.actions.ActionIdReused` when it came with another command."""
        seq = self.answers.accepted.get(key)
        if seq is None:
            seq = decided.accepted.get(key)
        if seq is not None:
            line = self.fanout.entry_line(seq)
            if codec.canonical_text(line["action"]) != command_text:
                raise ActionIdReused()
            ended = self.match.outcome is not None and seq == self.match.seq - 1
            outcome = self.match.outcome if ended else None
            return Accepted(seq, line, self.events[seq], outcome, True)
        rej = self.answers.rejected.get(key) or decided.rejected.get(key)
        if rej is not None:
            if not rej.is_for(command_text):
                raise ActionIdReused()
            return Rejected(RejectCode(rej.code), rej.detail)
        return None

    def _refused(self, batch: list[Intent], timed: bool) -> None:
        """The store refused the round (another server wrote first): rewind, catch up, and
        decide the round again."""
        self._rewind()
        self._stale = True
        if timed:  # re-planned after the catch-up if it still applies
            self._fenced_at = self.version
            answer(batch[0], Superseded())
        else:
            self._queue.extendleft(reversed(batch))

    def _failed(self, batch: list[Intent]) -> None:
        """The round's commit failed: its fate is unknown. Keep what a catch-up can settle (an
        action_id, a planned seq) and someone still waits for; an action without either cannot
        be told apart from a new one."""
        self._rewind()
        retry = [
            i for i in batch if (i.action_id or i.planned_seq is not None) and not i.future.done()
        ]
        for i in batch:
            if i not in retry:
                answer(i, StoreError("the store failed; the action may not be recorded"))
        self._queue.extendleft(reversed(retry))

    # ------------------------------------------------------------------ catching up

    async def _catch_up(self) -> None:
        """Apply what the store holds beyond our durable state (the match is at it: no round
        is in flight). Raises :class:`~..store.StoreError`, or :class:`~.actions.Broken` when
        the stored rows do not replay (the game must be rebuilt)."""
        self._stale = False
        try:
            tail = await self.store.tail(self.game_id, self.match.seq, self.version)
        except StoreError:
            self._stale = True
            raise
        if tail.version < self.version:
            return  # an older snapshot than what we committed: nothing new in it
        try:
            grew = apply_tail(self.game, self.match, self.events, self.answers, tail)
        except (RebuildError, DecodeError, Rejected, ValueError, KeyError) as exc:
            log.error("catch_up_failed", game_id=self.game_id, error=str(exc))
            self._rewind()
            self.broken = True
            self.fanout.wake()
            raise Broken() from None
        self.version = tail.version
        if grew:
            self.mark_durable()
        fenced, self._fenced_at = self._fenced_at, None
        owned = None
        if self.shared is not None:
            owned = tail.owner == self.server_id and fenced != tail.version
        # Always: a timer that came due while a round was in flight was skipped, and a refused
        # round re-plans nowhere else.
        self._on_caught_up(owned, tail.owner)

    # ------------------------------------------------------------------ stopping

    def drain(self, *, in_round: bool = False) -> None:
        """:meth:`.game.LiveGame.drain`."""
        held = self._hold.take_all() if self._hold is not None else []
        for intent in [*held, *self._queue, *(self._in_round if in_round else ())]:
            answer(intent, Unavailable())
        self._queue.clear()
        runner = self._runner
        if (
            in_round
            and runner is not None
            and self._in_round
            and runner is not asyncio.current_task()
        ):
            # A round run inline by a caller's own task still hangs on the store: stop it, so
            # that caller answers from its future (submit() turns the cancel into that).
            self._draining = True
            if runner is not self._sequencer:
                runner.cancel()

    async def close(self) -> None:
        """Let the round being committed land; answer the rest ``UNAVAILABLE``."""
        self.closed = True
        runner = self._runner
        if runner is not None:
            if not self._committing:
                runner.cancel()  # between rounds (or waiting out a store outage)
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(runner), 10)
        self._fail_all(Unavailable())


def _release(waiters: list[asyncio.Future[None]]) -> None:
    """Wake the callers of :meth:`Sequencer.sync` (they then read the durable state)."""
    for w in waiters:
        if not w.done():
            w.set_result(None)
