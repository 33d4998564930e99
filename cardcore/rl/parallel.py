"""The Parallel environment of the four real-time games (docs/rl.md#environments): every agent
acts or waits at every tick, and what it does reaches the referee a reaction time later.

**Time.** Each step is a tick of ``tick_ms`` (50 ms by default): the agents see the table at
the tick's start ``t`` and each chooses an action or wait. A seat's action leaves at ``t`` and
reaches the referee at ``t + r``, ``r`` drawn for that seat from the reaction model
(:class:`cardcore.fairness.ReactionModel`: ``"human"``, 180–260 ms, is the default; ``"instant"``
is a choice, not the default; ``"uniform:LO-HI"``), from a :mod:`cardcore.rng` stream of the
episode's seed (stream ``REACTION_STREAM + seat``). During the step, every action that arrives
before ``t + tick_ms`` is handed to the referee in arrival order (equal arrivals: the order the
agents were read in, which rotates by one seat per tick) through
:meth:`cardcore.match.Match.submit` at its arrival time. An action made stale or illegal by an
earlier one is refused by the rules (:class:`~cardcore.errors.Rejected`) and changes nothing:
``infos[agent]["rejected"]`` is its code.

**One hand.** A seat has at most one action on its way: until it lands, the seat's mask is the
wait bit alone (``infos[agent]["in_flight"]`` is True). The command is built from the view the
agent chose it on (``Catalogue.command_at(i, view)``), so it carries that view's expectations
(the pile's epoch, a centre pile's top) and the rules refuse it as stale if the table changed.

An episode ends when the game does; a step that lands no action leaves the game as it was
(time passes), so agents that always wait never end it: bound such an episode yourself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pettingzoo import ParallelEnv  # type: ignore[import-untyped]

from ..errors import RejectCode, Rejected
from ..fairness import ReactionModel
from ..referee import REACTION_STREAM  # the referee's streams: one per seat, far from the game's
from ..rng import Rng
from .expect import expecting
from .table import MASKED, STALLED, TableEnv, action_index, rewards_of, truncated

Flight = tuple[int, int, int, Any]
"""An action on its way: ``(arrives_ms, order, seat, command)``."""


class CardcoreParallel(TableEnv, ParallelEnv):  # type: ignore[misc]  # pettingzoo ships no types
    """A PettingZoo Parallel environment of one real-time cardcore game (made by
    :func:`cardcore.rl.parallel_env`)."""

    metadata: dict[str, Any]
    """PettingZoo's: the environment's name (``cardcore_<game>``), ``render_modes``."""

    def __init__(
        self,
        game: str,
        *,
        seats: int = 2,
        rules: Mapping[str, Any] | None = None,
        tick_ms: int = 50,
        reaction: str = "human",
        event_limit: int,
        render_mode: str | None = None,
    ) -> None:
        if isinstance(tick_ms, bool) or not isinstance(tick_ms, int) or tick_ms < 1:
            raise ValueError(f"tick_ms must be a positive integer, got {tick_ms!r}")
        self._set_table(game, seats, rules, event_limit, render_mode)
        if self.table.game.to_act is not None:  # it waits for a player to move: turn-based
            raise ValueError(
                f"{self.table.game.name} is turn-based: it has no Parallel environment (its "
                "seats never act at once); use cardcore.rl.env (AEC)"
            )
        self.reaction = ReactionModel.parse(reaction)
        self.tick_ms = tick_ms
        self.metadata = {
            "name": f"cardcore_{self.table.game.name}_parallel",
            "render_modes": ["ansi"],
        }
        self._flights: list[Flight | None] = [None] * seats
        self._rngs: list[Rng] = []
        self._now = 0
        self._ticks = 0
        self.agents: list[str] = []

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """A new game at time 0: dealt from ``seed`` (the same seed, the same game and the same
        reaction draws), else from the next draw of the environment's generator."""
        table = self.table
        deal = table.deal_seed(seed)
        table.start(deal)
        self._rngs = [Rng(deal, REACTION_STREAM + s) for s in range(table.seats)]
        self._flights = [None] * table.seats
        self._now = 0
        self._ticks = 0
        self.agents = list(self.possible_agents)
        infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        return self._observations(), infos

    def step(
        self, actions: Mapping[str, Any]
    ) -> tuple[
        dict[str, Any],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """One tick: the agents' actions leave, those that arrive within the tick land in
        arrival order, and time moves on by ``tick_ms`` (the module docstring)."""
        live = list(self.agents)
        infos: dict[str, dict[str, Any]] = {a: {} for a in live}
        table, wait = self.table, self.table.wait
        # Most ticks every agent waits and nothing is on its way: no sending, no landing.
        if any(type(a) is not int or a != wait for a in actions.values()):
            self._send(actions, infos)
        self._now += self.tick_ms
        self._ticks += 1
        flights = self._flights
        if flights.count(None) != len(flights):
            self._land(infos)
        observations = self._observations()
        outcome = table.match.outcome
        rewards = dict.fromkeys(live, 0.0)
        ended = outcome is not None
        cut = ended and truncated(outcome)  # type: ignore[arg-type]
        if not ended and self._stalled():
            ended = cut = True
            for agent in live:
                infos[agent][STALLED] = True
        if ended:
            for agent, r in zip(live, rewards_of(outcome, table.seats), strict=True):
                rewards[agent] = r
            self.agents = []
        if flights.count(None) != len(flights):
            for s, agent in enumerate(live):
                if flights[s] is not None:
                    infos[agent]["in_flight"] = True
        terminations = dict.fromkeys(live, ended and not cut)
        truncations = dict.fromkeys(live, cut)
        return observations, rewards, terminations, truncations, infos

    # ---------------------------------------------------------------- the tick

    def _observations(self) -> dict[str, Any]:
        table = self.table
        over = table.match.outcome is not None
        out = {}
        for s, agent in enumerate(self.possible_agents):
            out[agent] = table.observation(s, True, not over and self._flights[s] is None)
        return out

    def _send(self, actions: Mapping[str, Any], infos: dict[str, dict[str, Any]]) -> None:
        """Each live agent's non-wait action leaves now, after checking it against the mask it
        was shown (agents read from a seat that rotates each tick: the order of equal
        arrivals)."""
        table = self.table
        n = table.seats
        for i in range(n):
            seat = (self._ticks + i) % n
            agent = self.possible_agents[seat]
            if agent not in infos or agent not in actions:
                continue
            index = action_index(actions[agent], table.wait)
            if index == table.wait:
                continue
            now = table.seat(seat)
            command = None
            if self._flights[seat] is None and now.mask[index]:
                command = table.catalogue.command_at(index, now.view)
                if command is not None:
                    command = expecting(table.game.name, command, now.view)
            if command is None:
                infos[agent]["rejected"] = MASKED
                continue
            rng = self._rngs[seat]
            model = self.reaction
            delay = model.min_ms + rng.below(model.max_ms - model.min_ms + 1)
            self._flights[seat] = (self._now + delay, i, seat, command)

    def _land(self, infos: dict[str, dict[str, Any]]) -> None:
        """Hand the referee, in arrival order, every action that has arrived by now."""
        match = self.table.match
        now = self._now
        due = [f for f in self._flights if f is not None and f[0] < now]
        due.sort()
        for arrives, _, seat, command in due:
            self._flights[seat] = None
            if match.outcome is not None:
                infos[self.possible_agents[seat]]["rejected"] = RejectCode.GAME_OVER.value
                continue
            try:
                self.table.submit(seat, command, arrives)
            except Rejected as exc:
                infos[self.possible_agents[seat]]["rejected"] = exc.code.value

    def _stalled(self) -> bool:
        """Nothing on its way and no seat with anything to do, the game not over."""
        if self._flights.count(None) != len(self._flights):
            return False
        return not any(map(self.table.may_act, range(self.table.seats)))
