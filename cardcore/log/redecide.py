"""A logged game decided again by its rules, as :func:`~cardcore.log.verify` rebuilds it: the
game's own ``decide`` and ``evolve`` under the sequencer's rules
(:class:`~cardcore.sequencer.Sequencer`: nothing is accepted once the game is over, the event
limit ends it, a host's abort ends it at once), with no log written.

:class:`~cardcore.match.Match` builds on the same :class:`~cardcore.sequencer.Sequencer` for a
game being played (it also numbers, records and rewinds); the log cannot build on ``Match``,
which writes logs, so the rules they share live below both."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..engine import Game, Setup
from ..sequencer import Sequencer


class Redecider(Sequencer[Any, Any, Any]):
    """One game re-decided action by action: :meth:`check` asks the rules, :meth:`apply` applies
    what was decided (or, while the seed is secret, what was logged)."""

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
        super().__init__(game, setup, start, at_ms)
        self._advance(None, None, deal, at_ms)

    @classmethod
    def from_logged_deal(
        cls, game: Game[Any, Any, Any, Any, Any], setup: Setup[Any], deal_json: Any, at_ms: int
    ) -> Redecider:
        """The game after a logged deal, taken as logged (its seed is still secret)."""
        events = [game.decode_event(e, f"events[{i}]") for i, e in enumerate(deal_json or [])]
        return cls(game, setup, game.initial_state(setup), events, at_ms)

    def apply(self, events: Sequence[Any], at_ms: int) -> None:
        """Apply an action's events at ``at_ms``; ``ValueError`` if time went backwards."""
        self._check_time(at_ms)
        self._advance(None, None, events, at_ms)
