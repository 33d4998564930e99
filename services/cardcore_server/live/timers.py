"""Timers and server bots: the actions the host takes by itself, on the server that owns the game
(``owned``; on a single server, all of them).

They arm an ``asyncio`` timer and, when it fires while the game is still at the ``seq`` they
planned for, submit an ordinary action through the same sequencer, so it is logged and replays
like any other. Their times count from the ``at_ms`` of the entry they react to, and a bot's
decision at ``seq`` is drawn from ``stream_key(bot_seed(seed, seat), seq)``, so bots and timers
behave the same whichever server owns the game and however often it re-plans.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import structlog

from cardcore import codec
from cardcore.bots import BOT_KINDS, Bot, ask, bot_seed
from cardcore.errors import Rejected
from cardcore.kit import RESIGN_BY_TIMER, Resign
from cardcore.log import abort_action
from cardcore.rng import stream_key

from ..store import GameRecord, SeatSpec
from .actions import HOST_SEAT, AnyGame, HostAbort, Superseded, Unavailable
from .fanout import Fanout
from .sequencer import Sequencer

log = structlog.get_logger("cardcore_server")


def make_bot(kind: str, seat: int, seed: int, min_ms: int, max_ms: int) -> Bot:
    """A server bot of ``kind`` (a key of :data:`cardcore.bots.BOT_KINDS`); delays of 0 keep the
    bot's own defaults."""
    factory: Any = BOT_KINDS[kind]
    if min_ms or max_ms:
        return factory(seat, seed, min_ms=min_ms, max_ms=max(max_ms, min_ms))  # type: ignore[no-any-return]
    return factory(seat, seed)  # type: ignore[no-any-return]


class Timers:
    """The host's clocks and bots of one game, armed for its durable state."""

    def __init__(
        self,
        game: AnyGame,
        record: GameRecord,
        sequencer: Sequencer,
        fanout: Fanout,
        clock: Callable[[], int],
        *,
        owned: bool,
    ) -> None:
        self.game = game
        self.record = record
        self.game_id = record.game_id
        self.sequencer = sequencer
        self.match = sequencer.match
        self.fanout = fanout
        self.clock = clock
        self.owned = owned
        """Whether this server arms the game's timers and bots."""
        self.bot_seats: dict[int, SeatSpec] = {
            seat: spec for seat, spec in enumerate(record.seats) if spec.kind != "human"
        }
        self.human_seats = tuple(s for s, spec in enumerate(record.seats) if spec.kind == "human")
        self.timeouts = {k: v for k, v in record.timeouts_ms.items() if v > 0}
        self.on_auto: Callable[[str], None] | None = None
        """Told the kind of every action the host took by itself (a timer's, a bot's)."""
        self._timers: list[asyncio.TimerHandle] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._legal_since: dict[tuple[int, str], int] = {}
        self._last_human_at: dict[int, int] = {}
        """Per human seat, the ``at_ms`` of its last action of its own (see
        :meth:`_human_activity`), scanned up to line :attr:`_human_scan`."""
        self._human_scan = 2

    def _idle(self) -> bool:
        """Nothing to arm: the game is over, stopping, broken, or another server's."""
        seq = self.sequencer
        return self.fanout.over or seq.closed or seq.broken or not self.owned

    def set_owned(self, owned: bool) -> None:
        """This server now owns the game's timers and bots (or no longer does)."""
        if owned == self.owned:
            return
        self.owned = owned
        self.plan()

    def caught_up(self, owned: bool | None, owner: str | None) -> None:
        """The sequencer caught up with the store, which says whether this server owns the game
        now (``owner``: the one that does; ``owned`` None: a store of our own): re-plan."""
        if owned is not None and owned != self.owned:
            log.info("game_ownership", game_id=self.game_id, owned=owned, owner=owner or "")
            self.owned = owned
        self.plan()

    def plan(self) -> None:
        """Re-arm the bots' and timed actions' timers for the durable state (owner only)."""
        self.cancel()
        if self._idle():
            return
        if not self.bot_seats and not self.record.timers:
            return
        loop = asyncio.get_running_loop()
        seq = self.match.seq
        # Times count from the entry being reacted to, in the game's own clock.
        base = self.record.created_ms + self.match.last_at_ms - self.clock()
        for due, seat, command in [*self._bots(), *self._timeouts(), *self._forfeits()]:
            self._timers.append(
                loop.call_later(max(base + due, 0) / 1000, self._fire, seq, seat, command)
            )

    def _bots(self) -> list[tuple[int, int, Any]]:
        """Each server bot's proposal for the durable state, as ``(due in ms from the last
        entry, seat, command)``."""
        match, seed = self.match, self.record.seed
        out = []
        for seat, spec in self.bot_seats.items():
            bot = make_bot(
                spec.kind,
                seat,
                stream_key(bot_seed(seed, seat), match.seq),
                spec.min_delay_ms,
                spec.max_delay_ms,
            )
            # The bot sees only its seat's view and legal commands, as a player would.
            proposal = ask(bot, self.game, match.state)
            if proposal is not None:
                delay, command = proposal
                out.append((delay, seat, command))
        return out

    def _timeouts(self) -> list[tuple[int, int, Any]]:
        """The game's timed actions (``timeouts_ms`` by command kind: an ERS collect window, a
        stalemate flip) for each human seat that may take one, due that long after it became
        legal, as ``(due in ms from the last entry, seat, command)``."""
        if not self.timeouts:
            return []
        match, state = self.match, self.match.state
        out = []
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
                since = self._legal_since.get((seat, kind), match.last_at_ms)
                still[(seat, kind)] = since
                out.append((since - match.last_at_ms + self.timeouts[kind], seat, command))
        self._legal_since = still
        return out

    def _forfeits(self) -> list[tuple[int, int, Any]]:
        """The host's clocks of docs/games/common.md#leaving-a-game for the durable state, as ``(due
        in ms from the last entry, seat, command)``: a turn timer (the seats a turn-based game waits
        for, counted from the game's last entry), an idle timer (a human seat still in the game with
        no action of its own for that long) — both forfeit the seat by ``Resign(by="timer")`` — and
        the abandonment timer (no human action at all: the host aborts). Every time counts from an
        entry's ``at_ms``, so a clock that ran out while no server was up fires on start-up."""
        rec, match = self.record, self.match
        if not (rec.turn_timeout_ms or rec.idle_timeout_ms or rec.abandon_timeout_ms):
            return []
        if not self.human_seats:
            return []
        last = match.last_at_ms
        out: list[tuple[int, int, Any]] = []
        forfeit = Resign(RESIGN_BY_TIMER)
        if rec.turn_timeout_ms and self.game.to_act is not None:
            for seat in sorted(set(self.game.to_act(match.state)) & set(self.human_seats)):
                if self._in_game(seat):
                    out.append((rec.turn_timeout_ms, seat, forfeit))
        activity = self._human_activity()
        if rec.idle_timeout_ms:
            for seat in self.human_seats:
                if self._in_game(seat):
                    out.append((activity[seat] - last + rec.idle_timeout_ms, seat, forfeit))
        if rec.abandon_timeout_ms:
            due = max(activity.values()) - last + rec.abandon_timeout_ms
            out.append((due, HOST_SEAT, HostAbort(RESIGN_BY_TIMER)))
        return out

    def _in_game(self, seat: int) -> bool:
        """Whether ``seat`` may still resign (not eliminated, not finished)."""
        try:
            self.match.check(seat, Resign())
        except Rejected:
            return False
        return True

    def _human_activity(self) -> dict[int, int]:
        """Per human seat, the ``at_ms`` of its last durable action of its own, or of the deal
        for a seat that has not acted (the host's forfeits do not count; a timed action the
        host took for an idle seat, such as an ERS collect, does, as the log cannot tell it)."""
        lines = self.fanout.lines
        if not self._last_human_at:
            deal_at = int(lines[1]["at_ms"])
            self._last_human_at = dict.fromkeys(self.human_seats, deal_at)
        last = self._last_human_at
        end = self.fanout.durable_lines
        for line in lines[self._human_scan : end]:
            seat = line.get("seat")
            if line.get("type") != "entry" or seat not in last:
                continue
            action = line.get("action")
            if isinstance(action, dict) and action.get("by") == RESIGN_BY_TIMER:
                continue
            last[seat] = int(line["at_ms"])
        self._human_scan = max(self._human_scan, end)
        return last

    def _fire(self, seq: int, seat: int, command: Any) -> None:
        if self.match.seq != seq or self._idle():
            return
        task = asyncio.get_running_loop().create_task(self._auto(seq, seat, command))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _auto(self, seq: int, seat: int, command: Any) -> None:
        if isinstance(command, HostAbort):
            text = codec.canonical_text(abort_action(command.by))
        else:
            text = codec.canonical_text(codec.encode(command))
        try:
            acc = await self.sequencer.submit(seat, command, text, None, planned_seq=seq)
        except Superseded:
            return  # the game moved on (or another server owns it now): plan() re-armed
        except Rejected as exc:
            # Not re-planned: the same seq would propose the same command again.
            log.warning("auto_rejected", game_id=self.game_id, seat=seat, reason=exc.code.value)
        except Unavailable:
            # Stopping, or the game is being rebuilt: the next owner plans this action again.
            log.debug("auto_deferred", game_id=self.game_id, seat=seat)
        except Exception as exc:
            log.warning("auto_failed", game_id=self.game_id, seat=seat, error=type(exc).__name__)
        else:
            if self.on_auto is not None:
                self.on_auto(type(command).__name__)
            # Debug, not info: a bot game writes one line per card otherwise; the log holds it.
            log.debug(
                "auto_action",
                game_id=self.game_id,
                seat=seat,
                seq=acc.seq,
                kind=type(command).__name__,
            )

    def cancel(self) -> None:
        """Disarm every timer (until the next :meth:`plan`)."""
        for h in self._timers:
            h.cancel()
        self._timers.clear()

    def stop(self) -> None:
        """Disarm every timer and stop the actions being submitted (the game is closing)."""
        self.cancel()
        for t in list(self._tasks):
            t.cancel()
