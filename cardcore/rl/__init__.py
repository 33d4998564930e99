"""PettingZoo environments of the five games: the optional extra ``cardcore[rl]`` (gymnasium,
pettingzoo, numpy; docs/rl.md#environments).

* :func:`env` — an AEC environment for every game: one agent acts or waits per step
  (:mod:`cardcore.rl.aec` says who is asked; in the real-time games it is a turn-taking
  approximation with no time).
* :func:`parallel_env` — a Parallel environment for the four real-time games: time advances
  ``tick_ms`` per step and each action reaches the referee after a reaction time
  (:mod:`cardcore.rl.parallel`).

Agents are ``"player_0"``, ``"player_1"``, …; an observation is ``{"observation": the seat's view
encoded (cardcore.observe), "action_mask": int8}``; the action space is
``Discrete(catalogue.size + 1)``, its last index being "wait" (do nothing now). An agent sees
its seat's view and legal commands only, never the state. ``env.unwrapped.log()`` is the
episode's log, which ``cardcore verify`` checks and ``cardcore replay`` plays back.

The rest of cardcore never imports this package: the engine stays dependency-free.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..engine import DEFAULT_EVENT_LIMIT
from ..referee import REACTION_STREAM
from .aec import CardcoreAEC
from .parallel import CardcoreParallel
from .table import MASKED, STALLED, rewards_of

__all__ = [
    "MASKED",
    "REACTION_STREAM",
    "STALLED",
    "CardcoreAEC",
    "CardcoreParallel",
    "env",
    "parallel_env",
    "rewards_of",
]


def env(
    game: str,
    *,
    seats: int = 2,
    rules: Mapping[str, Any] | None = None,
    event_limit: int = DEFAULT_EVENT_LIMIT,
    render_mode: str | None = None,
) -> CardcoreAEC:
    """The AEC environment of ``game`` (a name or alias of :mod:`cardcore.registry`) for
    ``seats`` seats under ``rules`` (the game's flags, as ``make_setup`` takes them; a variant
    the observation layout or the action catalogue cannot represent raises
    :class:`~cardcore.errors.InvalidSetup`). ``event_limit``: the game ends there (the episode
    is truncated). ``render_mode``: None or ``"ansi"``."""
    return CardcoreAEC(
        game, seats=seats, rules=rules, event_limit=event_limit, render_mode=render_mode
    )


def parallel_env(
    game: str,
    *,
    seats: int = 2,
    rules: Mapping[str, Any] | None = None,
    tick_ms: int = 50,
    reaction: str = "human",
    event_limit: int = DEFAULT_EVENT_LIMIT,
    render_mode: str | None = None,
) -> CardcoreParallel:
    """The Parallel environment of a real-time ``game`` (ratscrew, slapjack, spit, speed; Palace
    is turn-based: ``ValueError``). Each step is ``tick_ms`` of game time; each action reaches
    the referee after a reaction time of the ``reaction`` model (``"human"``: 180–260 ms, the
    default; ``"instant"``; ``"uniform:LO-HI"``). The rest as :func:`env`."""
    return CardcoreParallel(
        game,
        seats=seats,
        rules=rules,
        tick_ms=tick_ms,
        reaction=reaction,
        event_limit=event_limit,
        render_mode=render_mode,
    )
