"""A logged game decided again by its rules, as :func:`~cardcore.log.verify` rebuilds it: the
game's own ``decide`` and ``evolve`` under the sequencer's rules
(docs/games/common.md#the-sequencer: nothing is accepted once the game is over, the event limit
ends it, a host's abort ends it at once), with no log written.

:class:`~cardcore.match.Match` is the same sequencer for a game being played: it also numbers,
records and rewinds. The log does not build on it (``Match`` writes logs, so that would be a
circle); the two are held to one behaviour by the golden logs and the contract suite, which verify
every game a ``Match`` recorded."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..engine import Game, Outcome, Setup, Termination, check_command, check_seat
from ..errors import RejectCode, Rejected
from .format import check_abort_by


class Redecider:
    """One game re-decided action by action: :meth:`check` asks the rules, :meth:`apply` applies
    what was decided (or, while the seed is secret, what was logged)."""

    __slots__ = ("_applied", "_last_at_ms", "_limit", "_seats", "game", "outcome", "state")

    def __init__(
        self,
        game: Game[Any, Any, Any, Any, Any],
        setup: Setup[Any],
        start: Any,
        deal: Sequence[Any],
        at_ms: int,
    ) -> None:
        """The game from ``start`` (the table before the deal, or a position) once ``deal`` (the
        opening events; none from a position) is applied at ``at_ms``."""
        self.game = game
        self.state = start
        self.outcome: Outcome | None = None
        self._seats = setup.seats
        self._limit = setup.event_limit
        self._applied = 0
        self._last_at_ms = at_ms
        self._apply(deal, at_ms)

    @classmethod
    def from_logged_deal(
        cls, game: Game[Any, Any, Any, Any, Any], setup: Setup[Any], deal_json: Any, at_ms: int
    ) -> Redecider:
        """The game after a logged deal, taken as logged (its seed is still secret)."""
        events = [game.decode_event(e, f"events[{i}]") for i, e in enumerate(deal_json or [])]
        return cls(game, setup, game.initial_state(setup), events, at_ms)

    def check(self, seat: Any, command: Any) -> Sequence[Any]:
        """The events ``command`` by ``seat`` gives now; :class:`Rejected` (``GameOver`` first,
        docs/games/common.md#order-of-checks), :class:`InvalidSeat`, or what the rules raise."""
        if self.outcome is not None:
            raise Rejected(RejectCode.GAME_OVER, "the game is over")
        check_command(command)
        check_seat(self._seats, seat)
        return self.game.decide(self.state, seat, command)

    def apply(self, events: Sequence[Any], at_ms: int) -> None:
        """Apply an action's events at ``at_ms``; ``ValueError`` if time went backwards."""
        self._check_time(at_ms)
        self._apply(events, at_ms)

    def abort(self, at_ms: int, by: str) -> None:
        """The host's abort: the game ends at once (docs/games/common.md#leaving-a-game)."""
        if self.outcome is not None:
            raise Rejected(RejectCode.GAME_OVER, "the game is over")
        self._check_time(at_ms)
        check_abort_by(by)
        self._last_at_ms = at_ms
        self.outcome = Outcome(Termination.ABORTED)

    def _check_time(self, at_ms: int) -> None:
        if at_ms < self._last_at_ms:
            raise ValueError(f"at_ms went backwards: {at_ms} < {self._last_at_ms}")

    def _apply(self, events: Sequence[Any], at_ms: int) -> None:
        state = self.state
        evolve = self.game.evolve
        for event in events:
            state = evolve(state, event)
        self.state = state
        self._applied += len(events)
        self._last_at_ms = at_ms
        outcome = self.game.outcome(state)
        if outcome is None and self._applied >= self._limit:
            outcome = Outcome(Termination.EVENT_LIMIT)
        if outcome is not None:
            self.outcome = outcome
