"""What the store holds of a live game, as everyone outside the sequencer sees it: views, legal
commands and rejection details are computed from the durable state only, and every stream reads
durable entries only (redacted once per entry and viewer, :class:`..redaction.EntryViews`), woken
whenever more become durable. The sequencer may be ahead, deciding a round: nothing of that
round is shown to anyone until the store has accepted it."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from cardcore.engine import Outcome, Viewer
from cardcore.log import LogLine
from cardcore.match import Checkpoint

from .. import redaction
from ..redaction import RedactedEntry
from .actions import AnyGame, AnyMatch


@dataclass(frozen=True, slots=True)
class DurableState:
    """What the store holds of a game: the only state views, legal commands and rejection
    details are computed from (the sequencer may be ahead of it, deciding a round)."""

    game: AnyGame
    state: Any
    seq: int
    outcome: Outcome | None

    def view(self, viewer: Viewer) -> Any:
        return self.game.view(self.state, viewer)

    def legal_commands(self, seat: int) -> Any:
        if self.outcome is not None:
            return ()
        return self.game.legal_commands(self.state, seat)


class Fanout:
    """The durable prefix of a game's log and events, and the streams waiting for more."""

    def __init__(self, game: AnyGame, match: AnyMatch, events: list[tuple[Any, ...]]) -> None:
        self.game = game
        assert match.writer is not None  # a live match records its log
        self.lines: list[LogLine] = match.writer.lines
        """The match's log (durable up to :attr:`durable_lines`)."""
        self.events = events
        """Decoded events per ``seq`` (for per-viewer redaction without re-decoding)."""
        self.durable_lines = len(self.lines)
        """How many of :attr:`lines` are durable (header included)."""
        self.checkpoint: Checkpoint = match.checkpoint()
        """The match at the durable state (what a refused round rewinds to)."""
        self._waiting: list[asyncio.Future[None]] = []
        """The streams waiting for a change (each wakes once, then looks again)."""
        self._views = redaction.EntryViews(game)

    @property
    def durable(self) -> DurableState:
        cp = self.checkpoint
        return DurableState(self.game, cp.state, cp.seq, cp.outcome)

    @property
    def over(self) -> bool:
        return self.checkpoint.outcome is not None

    @property
    def durable_seq(self) -> int:
        """The number of durable entries (the next ``seq`` a stream will see)."""
        n = self.durable_lines - 1
        if n > 0 and self.lines[self.durable_lines - 1].get("type") == "end":
            n -= 1
        return max(n, 0)

    def entry_line(self, seq: int) -> LogLine:
        return self.lines[1 + seq]

    def publish(self, checkpoint: Checkpoint) -> None:
        """Everything the match holds (at ``checkpoint``) is in the store: show it."""
        self.durable_lines = len(self.lines)
        self.checkpoint = checkpoint
        self.wake()

    def redacted(self, seq: int, viewer: Viewer) -> RedactedEntry:
        if seq >= self.durable_seq:
            raise IndexError(f"entry {seq} is not durable")
        return self._views.get(self.entry_line(seq), self.events[seq], viewer)

    async def wait_change(self, seen_lines: int) -> None:
        """Return once more lines are durable than ``seen_lines``, or on :meth:`wake`."""
        if self.durable_lines <= seen_lines:
            # A bare future, not an asyncio.Event: every action wakes every stream of the game,
            # and an Event (a new one per wake) costs several times as much per stream.
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiting.append(waiter)
            await waiter

    def wake(self) -> None:
        """Wake every stream waiting (they look again)."""
        waiting, self._waiting = self._waiting, []
        for waiter in waiting:
            if not waiter.done():  # else its stream was cancelled while it waited
                waiter.set_result(None)
