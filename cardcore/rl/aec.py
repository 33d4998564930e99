"""The AEC environment of every game (docs/rl.md#environments): one agent acts or waits per step.

**Who is asked.** Agents are asked in *sweeps*. A sweep asks, one after the other, every seat that
has an action in its mask now (the mask is computed from what the seat sees, so whether a seat
is asked tells it nothing more); the seat it starts from rotates by one with each sweep (sweep
``k`` starts at seat ``k mod seats``). An accepted action changes the table and starts a
new sweep; a wait (or a refused action) passes to the next seat of the sweep.

* **Palace** (turn-based): a sweep asks first the seats that have an out-of-turn command (a four
  of a kind to complete, drawn cards to add), then the seats the game waits for
  (``game.to_act``: the player to move; in the setup phase every seat not yet ready). Those
  must act: their mask has no wait. So an out-of-turn option is always offered before the
  player to move can close it.
* **The real-time games** (ratscrew, slapjack, spit, speed) are a turn-taking approximation:
  AEC has no time, so a race goes to whichever racer is asked first, and the rotating start of
  the sweeps shares that out. Anyone may wait; but a real table does not stand still, so after
  a sweep in which every seat waited, the next sweep masks the wait of each seat that has a
  sensible action (the bots' hint ``Game.is_sensible`` of the action's command, which reads
  only what the seat sees), or of every seat with an action when none has one: someone acts.

A seat that is not being asked, or has nothing to do, may only wait (its mask is the wait
bit alone). The log of an AEC episode has no time either: every action is at ``at_ms`` 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pettingzoo import AECEnv  # type: ignore[import-untyped]

from ..errors import Rejected
from .table import MASKED, STALLED, TableEnv, action_index, rewards_of, truncated

_NOBODY: frozenset[int] = frozenset()


class CardcoreAEC(TableEnv, AECEnv):  # type: ignore[misc]  # pettingzoo ships no type information
    """A PettingZoo AEC environment of one cardcore game (made by :func:`cardcore.rl.env`)."""

    metadata: dict[str, Any]
    """PettingZoo's: the environment's name (``cardcore_<game>``), ``render_modes``."""

    def __init__(
        self,
        game: str,
        *,
        seats: int = 2,
        rules: Mapping[str, Any] | None = None,
        event_limit: int,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self._set_table(game, seats, rules, event_limit, render_mode)
        self.metadata = {
            "name": f"cardcore_{self.table.game.name}",
            "render_modes": ["ansi"],
            "is_parallelizable": False,
        }
        self._seat_of = {a: s for s, a in enumerate(self.possible_agents)}
        self._to_act = self.table.game.to_act
        # Each sweep's order, from its end (the start seat last), per start seat.
        self._orders = [
            tuple(reversed([(start + i) % seats for i in range(seats)])) for start in range(seats)
        ]
        self._waited_orders: dict[
            tuple[int, tuple[int, ...]], tuple[tuple[int, ...], frozenset[int]]
        ]
        self._waited_orders = {}
        """A turn-based sweep's order and the seats that must act, by start seat and the seats
        the game waits for (``to_act``)."""
        self._queue: list[int] = []
        self._must: frozenset[int] = frozenset()
        self._sweeps = 0
        self._any_option = False
        self._selected = -1
        self._over = True
        self.agents: list[str] = []

    # ---------------------------------------------------------------- PettingZoo's API

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game: dealt from ``seed`` (the same seed, the same game), else from the next
        draw of the environment's generator (docs/rl.md#seeding)."""
        table = self.table
        table.start(table.deal_seed(seed))
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._sweeps = 0
        self._over = False
        self.agent_selection = self.agents[0]
        self._new_sweep(idle=False)

    def observe(self, agent: str) -> dict[str, Any]:
        """``agent``'s observation: its seat's encoded view and its action mask (its catalogue
        actions and wait, as the module docstring says; wait alone unless it is being asked)."""
        seat = self._seat_of[agent]
        asked = not self._over and seat == self._selected
        return self.table.observation(seat, seat not in self._must, asked)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last``: the selected agent's observation (None with ``observe``
        False), cumulative reward, termination, truncation and info (its own frame less)."""
        agent = self.agent_selection
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def step(self, action: Any) -> None:
        """The selected agent's action: a catalogue index or ``wait`` (the last index). An index
        its mask does not allow, or one the rules refuse, loses the decision: reported in
        ``infos[agent]["rejected"]`` (:data:`~cardcore.rl.table.MASKED` or the rules' code),
        nothing else changes."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        table = self.table
        index = action_index(action, table.wait)
        seat = self._selected
        self._cumulative_rewards[agent] = 0.0
        if self.infos[agent]:
            self.infos[agent] = {}
        if index == table.wait:
            if seat in self._must:
                self._lose(agent, MASKED)
            else:
                self._next_agent()
            return
        now = table.seat(seat)
        command = table.catalogue.command_at(index, now.view) if now.mask[index] else None
        if command is None:
            self._lose(agent, MASKED)
            return
        try:
            table.submit(seat, command, 0)
        except Rejected as exc:
            self._lose(agent, exc.code.value)
            return
        if table.match.outcome is not None:
            self._finish()
            return
        self._new_sweep(idle=False)

    # ---------------------------------------------------------------- sweeps

    def _lose(self, agent: str, code: str) -> None:
        """``agent``'s action was refused (``code``): it loses the decision, the sweep goes on."""
        self.infos[agent] = {"rejected": code}
        self._next_agent()

    def _new_sweep(self, *, idle: bool) -> None:
        """Start the next sweep (the module docstring); ``idle``: the last one ended with
        nobody acting."""
        start = self._sweeps % self.table.seats
        order = self._orders[start]
        self._sweeps += 1
        if self._to_act is not None:
            waited = tuple(self._to_act(self.table.match.state))
            key = (start, waited)
            kept = self._waited_orders.get(key)
            if kept is None:  # a few per game (seats x who is waited for): worked out once
                must = frozenset(waited)
                kept = self._waited_orders[key] = (
                    (*(s for s in order if s in must), *(s for s in order if s not in must)),
                    must,
                )
            order, self._must = kept
        elif idle:
            self._must = self._forced()
        else:
            self._must = _NOBODY
        self._queue = list(order)  # asked from its end: pop() is the cheapest step
        self._any_option = False
        self._next_agent()

    def _forced(self) -> frozenset[int]:
        """The seats that must act in a real-time game after a sweep in which all waited: those
        with a sensible action in their mask, else every seat with an action."""
        able = [s for s in range(self.table.seats) if self.table.may_act(s)]
        keen = [s for s in able if self._has_sensible_action(s)]
        return frozenset(keen or able)

    def _has_sensible_action(self, seat: int) -> bool:
        """Whether an action ``seat``'s mask offers is sensible (the bots' hint of its command,
        which reads only what the seat sees)."""
        table = self.table
        now = table.seat(seat)
        state, sensible = table.match.state, table.game.is_sensible
        commands = (table.catalogue.command_at(i, now.view) for i, on in enumerate(now.mask) if on)
        return any(c is not None and sensible(state, seat, c) for c in commands)

    def _next_agent(self) -> None:
        """Select the next seat of the sweep with something to do; a new sweep when it is
        over, and a stall (the episode truncated) when no seat had anything to do."""
        table = self.table
        queue, view_masked = self._queue, table.view_masked
        while queue:
            seat = queue.pop()
            if (view_masked or table.legal(seat)) and table.seat(seat).can_act:  # may_act
                self._any_option = True
                self._selected = seat
                self.agent_selection = self.possible_agents[seat]
                return
        if not self._any_option:
            self._stall()
            return
        self._new_sweep(idle=True)

    def _finish(self) -> None:
        """The game is over: every agent terminated (truncated at the event limit) with its
        reward; each then steps ``None`` once to leave."""
        outcome = self.table.match.outcome
        assert outcome is not None
        self._over = True
        cut = truncated(outcome)
        for agent, reward in zip(self.agents, rewards_of(outcome, self.table.seats), strict=True):
            self.rewards[agent] = reward
            self.terminations[agent] = not cut
            self.truncations[agent] = cut
        self._accumulate_rewards()

    def _stall(self) -> None:
        """Nobody can do anything and the game is not over: truncate, reward 0, say so."""
        self._over = True
        for agent in self.agents:
            self.truncations[agent] = True
            self.infos[agent] = {**self.infos[agent], STALLED: True}
