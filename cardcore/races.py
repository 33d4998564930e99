"""How a real-time game decides a race between seats at different distances from the host
(docs/games/common.md#race-policy).

Under ``arrival`` (the default, and the policy of every log written before there was a choice),
"first" is first to reach the host: an action's ``at_ms`` is when the host received it. Under
``compensated`` with a cap, each action a seat sends is **credited** at
``received_ms - min(delay_ms, cap_ms)``, ``delay_ms`` being the host's measured one-way delay of
that seat's connection (half its smallest recent round trip); the host's own timed actions and
its bots have delay 0. Actions are ordered by credited time (ties: by arrival), and one that
comes too late for its credited place is credited at the last entry's time instead, marked
``clamped``: time never goes back.

This module is the rule, once: :func:`credit` is what the host does with each action, what the
log records (:class:`Race`) and what ``verify`` checks; :class:`Hold` is the order in which a
host that waits for stragglers hands actions to the sequencer. Pure: times come in as arguments.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Any, Final, Generic, Literal, TypeVar

from .engine import flag
from .errors import InvalidSetup

ARRIVAL: Final = "arrival"
COMPENSATED: Final = "compensated"
MAX_CAP_MS: Final = 250
"""The largest ``cap_ms`` a game may set: a compensation is a credit a seat can claim by
answering pings late, so it stays bounded."""
DEFAULT_CAP_MS: Final = 80

RACE_KEY: Final = "race"
"""The entry field holding :class:`Race` (``received_ms``, ``delay_ms``, ``clamped``)."""


@dataclass(frozen=True, slots=True)
class RacePolicy:
    """A game's race policy: ``arrival``, or ``compensated`` with ``cap_ms``."""

    kind: Literal["arrival", "compensated"] = ARRIVAL
    cap_ms: int = 0
    """The most a seat's delay is credited (0 under ``arrival``)."""

    def __post_init__(self) -> None:
        if self.kind not in (ARRIVAL, COMPENSATED):
            raise ValueError(f"race policy is arrival or compensated, got {self.kind!r}")
        if self.kind == ARRIVAL and self.cap_ms:
            raise ValueError("arrival credits no delay: its cap is 0")
        if isinstance(self.cap_ms, bool) or not 0 <= self.cap_ms <= MAX_CAP_MS:
            raise ValueError(f"cap_ms must be in [0, {MAX_CAP_MS}], got {self.cap_ms!r}")

    @property
    def compensated(self) -> bool:
        return self.kind == COMPENSATED

    def credited_ms(self, received_ms: int, delay_ms: int) -> int:
        """The rule's credit, before any clamp: ``received_ms - min(delay_ms, cap_ms)``."""
        return received_ms - min(delay_ms, self.cap_ms)

    @classmethod
    def parse(cls, text: str) -> RacePolicy:
        """``"arrival"``, ``"compensated"`` (cap :data:`DEFAULT_CAP_MS`) or
        ``"compensated:CAP"``, as the command line and the docs write it."""
        kind, _, cap = text.partition(":")
        if kind == ARRIVAL and not cap:
            return ARRIVAL_POLICY
        if kind != COMPENSATED:
            raise ValueError(f"race policy is arrival or compensated[:CAP_MS], got {text!r}")
        if not cap:
            return cls(COMPENSATED, DEFAULT_CAP_MS)
        if not cap.isdigit():
            raise ValueError(f"the cap is a whole number of milliseconds, got {cap!r}")
        return cls(COMPENSATED, int(cap))

    @classmethod
    def of_rules(cls, rules: Any) -> RacePolicy:
        """The policy a game's rules set (``race_policy``, ``race_cap_ms``); ``arrival`` for a
        game without the flags (a turn-based game)."""
        kind = getattr(rules, "race_policy", ARRIVAL)
        if kind == ARRIVAL:
            return ARRIVAL_POLICY
        return cls(COMPENSATED, int(getattr(rules, "race_cap_ms", DEFAULT_CAP_MS)))

    def __str__(self) -> str:
        return self.kind if self.kind == ARRIVAL else f"{self.kind}:{self.cap_ms}"


ARRIVAL_POLICY: Final = RacePolicy()


@dataclass(frozen=True, slots=True)
class Race:
    """What the log records of one action under ``compensated``: when the host received it,
    the seat's delay it used (0 for the host's own actions and its bots), and whether the
    credit was clamped to the last entry's time. The entry's ``at_ms`` is the credited time."""

    received_ms: int
    delay_ms: int
    clamped: bool = False

    def json(self) -> dict[str, Any]:
        return {"clamped": self.clamped, "delay_ms": self.delay_ms, "received_ms": self.received_ms}


def credit(
    policy: RacePolicy, received_ms: int, delay_ms: int, last_at_ms: int
) -> tuple[int, Race]:
    """``(at_ms, race)`` of an action received at ``received_ms`` from a seat ``delay_ms``
    away, the last entry being at ``last_at_ms``: credited at ``received_ms - min(delay_ms,
    cap_ms)``, or at ``last_at_ms`` (clamped) when that is earlier. Raises ``ValueError`` for a
    negative delay."""
    if delay_ms < 0:
        raise ValueError(f"delay_ms must not be negative, got {delay_ms}")
    credited = policy.credited_ms(received_ms, delay_ms)
    if credited < last_at_ms:
        return last_at_ms, Race(received_ms, delay_ms, True)
    return credited, Race(received_ms, delay_ms, False)


def check_race(policy: RacePolicy, race: Any, at_ms: Any, last_at_ms: int) -> str | None:
    """Why a logged entry's race record does not follow the rule, or None: the record is
    well-formed, and its credit is what :func:`credit` gives, ``at_ms`` included. (What
    ``verify`` asks of every entry of a seat under ``compensated``.)"""
    if not isinstance(race, dict) or set(race) != {"received_ms", "delay_ms", "clamped"}:
        return "the race record must hold received_ms, delay_ms and clamped"
    received, delay, clamped = race["received_ms"], race["delay_ms"], race["clamped"]
    if not _whole(received) or not _whole(delay) or not isinstance(clamped, bool):
        return "received_ms and delay_ms must be whole numbers of ms, clamped a boolean"
    due, expected = credit(policy, received, delay, last_at_ms)
    if clamped != expected.clamped:
        credited = policy.credited_ms(received, delay)
        return (
            f"clamped is {str(clamped).lower()}, but the credit {received} - min({delay}, "
            f"{policy.cap_ms}) = {credited} is {'before' if expected.clamped else 'not before'}"
            f" the last entry's at_ms {last_at_ms}"
        )
    if at_ms != due:
        return f"at_ms {at_ms} is not the credited time {due}"
    return None


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


# --------------------------------------------------------------------------- the rules flags


def policy_flag() -> Any:
    """The ``race_policy`` flag of a real-time game's rules (left out of a log's header while
    it is ``arrival``, so the logs written before it read as they did)."""
    return flag(
        ARRIVAL,
        "who wins a race: the first action to reach the host (arrival), or the first once each "
        "seat's measured delay is credited, up to race_cap_ms (compensated)",
        omit_default=True,
    )


def cap_flag() -> Any:
    """The ``race_cap_ms`` flag: the most of a seat's delay ``compensated`` credits."""
    return flag(
        DEFAULT_CAP_MS,
        "compensated only: the most of a seat's one-way delay credited, in ms",
        min=0,
        max=MAX_CAP_MS,
        omit_default=True,
    )


def check_race_flags(rules: Any) -> None:
    """A cap set under ``arrival`` is refused: it would credit nothing (each real-time game's
    ``Rules.__post_init__`` asks)."""
    if rules.race_policy == ARRIVAL and rules.race_cap_ms != DEFAULT_CAP_MS:
        raise InvalidSetup("rules.race_cap_ms", 'applies only with race_policy "compensated"')


T = TypeVar("T")


@dataclass(order=True, slots=True)
class _Held(Generic[T]):
    credited_ms: int
    received_ms: int
    arrival: int
    item: T = field(compare=False)


class Hold(Generic[T]):
    """Actions waiting for their turn under ``compensated``: an action credited at ``c`` may be
    overtaken by one still on its way until ``c + cap_ms`` (nothing credited earlier can arrive
    after that), so it is released then, in credited order (ties: by arrival). Under
    ``arrival`` nothing waits. The host calls :meth:`add` as actions arrive and :meth:`due` with
    its clock; :meth:`next_release_ms` says when to look again; :meth:`take_all` empties it."""

    def __init__(self, policy: RacePolicy) -> None:
        self.policy = policy
        self._heap: list[_Held[T]] = []
        self._arrivals = 0

    def __len__(self) -> int:
        return len(self._heap)

    def add(self, item: T, received_ms: int, delay_ms: int) -> None:
        """Hold ``item``, received at ``received_ms`` from ``delay_ms`` away."""
        self._arrivals += 1
        credited = self.policy.credited_ms(received_ms, delay_ms)
        heapq.heappush(self._heap, _Held(credited, received_ms, self._arrivals, item))

    def next_release_ms(self) -> int | None:
        """When the first action held may go (None: nothing held)."""
        return self._heap[0].credited_ms + self.policy.cap_ms if self._heap else None

    def due(self, now_ms: int) -> list[T]:
        """The actions that may go at ``now_ms``, in the order the sequencer takes them."""
        out: list[T] = []
        cap = self.policy.cap_ms
        while self._heap and self._heap[0].credited_ms + cap <= now_ms:
            out.append(heapq.heappop(self._heap).item)
        return out

    def take_all(self) -> list[T]:
        """Every action still held, in the order they would have gone (nothing is left)."""
        held, self._heap = sorted(self._heap), []
        return [h.item for h in held]
