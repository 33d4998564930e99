"""The hold of a game under ``race_policy: "compensated"`` (docs/games/common.md#race-policy):
each action is credited at ``received_ms - min(delay_ms, cap)`` and waits until nothing still on
its way could be credited earlier (``credited + cap``), then goes to the sequencer in credited
order. The rule and its order are :class:`cardcore.races.Hold`'s; this arms one timer on the
event loop for the next release."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Generic, TypeVar

from cardcore.races import Hold, RacePolicy

T = TypeVar("T")


class RaceHold(Generic[T]):
    """Actions held for their credited turn; ``release`` gets each batch that may go, in
    order. ``now_ms``: the game's clock (ms since it was created)."""

    def __init__(
        self, policy: RacePolicy, release: Callable[[list[T]], None], now_ms: Callable[[], int]
    ) -> None:
        self._hold: Hold[T] = Hold(policy)
        self._release = release
        self._now_ms = now_ms
        self._timer: asyncio.TimerHandle | None = None
        self._due_ms: int | None = None

    def __len__(self) -> int:
        return len(self._hold)

    def add(self, item: T, received_ms: int, delay_ms: int) -> None:
        self._hold.add(item, received_ms, delay_ms)
        self._arm()

    def _arm(self) -> None:
        due = self._hold.next_release_ms()
        if due is None or (self._due_ms is not None and self._due_ms <= due):
            return
        if self._timer is not None:
            self._timer.cancel()
        self._due_ms = due
        delay_s = max(0, due - self._now_ms() + 1) / 1000  # a ms late, never early
        self._timer = asyncio.get_running_loop().call_later(delay_s, self._release_due)

    def _release_due(self) -> None:
        self._timer = self._due_ms = None
        due = self._hold.due(self._now_ms())
        if due:
            self._release(due)
        self._arm()

    def take_all(self) -> list[T]:
        """Every action still held (the game is stopping: they are answered, not decided)."""
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self._due_ms = None
        return self._hold.take_all()
