"""The sequencer's rules for one game (docs/games/common.md#the-sequencer), written once.

Nothing is accepted once the game is over (``GameOver`` first:
docs/games/common.md#order-of-checks), the seat is checked once here (the game's own rule is
asked through :func:`cardcore.kit.trusted`), time never goes backwards, the setup's event limit
ends a game that would not end, and the host's abort ends it at once.

Two classes build on it: :class:`~cardcore.match.Match`, which also records and rewinds a game
being played, and the log's :class:`~cardcore.log.redecide.Redecider`, which decides a logged
game again to verify it. They differ only in what they record: a match's log writer is the
sequencer's :attr:`Sequencer.recorder` (None: nothing is recorded), and the hooks
:meth:`Sequencer._record_abort` and :meth:`Sequencer._end` tell it the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, Protocol

from ._mypyc import mypyc_attr
from .engine import (
    C,
    E,
    Game,
    Outcome,
    S,
    Setup,
    Termination,
    check_abort_by,
    check_command,
    check_seat,
    needs_no_check,
)
from .errors import RejectCode, Rejected
from .kit import trusted


class Recorder(Protocol):
    """What records each action a sequencer applies (a :class:`~cardcore.log.LogWriter`)."""

    def record(
        self, seq: int, at_ms: int, seat: int | None, command: Any, events: Sequence[Any]
    ) -> object:
        """Action ``seq`` is about to be applied; raising refuses it (nothing changes). What it
        returns is not read."""


# Match builds on it, and a host may subclass Match in interpreted code (the compiled build too).
@mypyc_attr(allow_interpreted_subclasses=True)
class Sequencer(Generic[S, C, E]):
    """One game's state under the sequencer's rules; no log."""

    def __init__(self, game: Game[S, C, E, Any, Any], setup: Setup[Any], state: S, at_ms: int):
        self.game = game
        self.setup = setup
        # The game's functions and the limits, bound once: deciding is every playout's inner loop.
        self._seats = setup.seats
        self._event_limit = setup.event_limit
        self._decide = trusted(game.decide)  # the seat is checked here, once
        self._evolve = game.evolve
        self._outcome = game.outcome
        # check_command (is there a bool where an int belongs?) is a call an action: skipped
        # where it has nothing to find (a kit.command checked its fields when it was built).
        self._typed = needs_no_check(game.command_types)
        self.state: S = state
        self.seq = 0
        """The number of actions sequenced: the next one's entry number (0, the deal)."""
        self.recorder: Recorder | None = None
        """Records each action before it is applied (an attribute, not a hook: deciding is every
        playout's inner loop, and a match without a log calls nothing)."""
        self.events_applied = 0
        self.last_at_ms = at_ms
        self.outcome: Outcome | None = None

    def check(self, seat: object, command: C) -> Sequence[E]:
        """The events ``command`` by ``seat`` would give now, without applying them:
        :class:`Rejected` (``GameOver`` first), :class:`~cardcore.errors.InvalidSeat`, or what the
        rules raise. ``seat`` is declared ``object``: a seat that is not an int is
        ``InvalidSeat`` in both builds (the compiled one checks a declared ``int`` on entry)."""
        if self.outcome is not None:
            raise Rejected(RejectCode.GAME_OVER, "the game is over")
        if type(command) not in self._typed:
            check_command(command)
        return self._decide(self.state, check_seat(self._seats, seat), command)

    def abort(self, at_ms: int, by: str) -> None:
        """End the game at once by the host (docs/games/common.md#leaving-a-game): termination
        ``ABORTED``, no winners, no losers. ``by`` says who (``"creator"``, ``"admin"``,
        ``"timer"``, …). Raises ``Rejected(GameOver)`` on a game that is over."""
        if self.outcome is not None:
            raise Rejected(RejectCode.GAME_OVER, "the game is over")
        self._check_time(at_ms)
        check_abort_by(by)
        self._record_abort(at_ms, by)
        self.last_at_ms = at_ms
        self._end(Outcome(Termination.ABORTED))

    def _check_time(self, at_ms: int) -> None:
        if at_ms < self.last_at_ms:
            raise ValueError(f"at_ms went backwards: {at_ms} < {self.last_at_ms}")

    def _advance(
        self, seat: int | None, command: C | None, events: Sequence[E], at_ms: int
    ) -> None:
        """Apply one action's events (``command`` None: the deal). Nothing changes if an event
        does not apply or the :attr:`recorder` refuses it: both happen before the state moves."""
        state = self.state
        evolve = self._evolve
        for event in events:
            state = evolve(state, event)
        if self.recorder is not None:
            self.recorder.record(self.seq, at_ms, seat, command, events)
        self.state = state
        self.seq += 1
        self.events_applied += len(events)
        self.last_at_ms = at_ms
        outcome = self._outcome(state)
        if outcome is None:
            if self.events_applied < self._event_limit:
                return
            outcome = Outcome(Termination.EVENT_LIMIT)
        self._end(outcome)

    def _record_abort(self, at_ms: int, by: str) -> None:
        """The host's abort about to end the game (its entry number is :attr:`seq`)."""
        self.seq += 1

    def _end(self, outcome: Outcome) -> None:
        """The game ended with ``outcome``."""
        self.outcome = outcome
