"""What both environments share: the game's setup and match, the spaces, each seat's
observation and mask, the seeds and the rewards (docs/rl.md#environments).

The environment is the host: it holds the match (the referee's state) and shows each agent only
what its seat may see — ``encode(game.view(state, seat))`` and ``Catalogue.mask(view, legal)``
(:mod:`cardcore.observe`) — never the state. A seat's view, legal commands and mask are computed
once per state and only for a seat that is asked (:meth:`Table.seat`), which is most of an
environment step's cost.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, NamedTuple

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

from ..engine import Game, Outcome, Role, Setup, Termination
from ..match import Match
from ..observe import Catalogue, Layout, catalogue, encode, layout
from ..registry import get_game
from ..rng import MAX_SEED

AnyGame = Game[Any, Any, Any, Any, Any]

MASKED: Final = "Masked"
"""``infos[agent]["rejected"]`` for an action its mask did not allow: refused by the
environment itself, before the rules (a :class:`~cardcore.errors.RejectCode` is the rules')."""

STALLED: Final = "stalled"
"""``infos[agent]["stalled"]``: the episode was truncated because no seat had anything to do
while the game was not over (the rules never leave a game so; a guard, not a rule)."""


def agent_name(seat: int) -> str:
    """Seat ``seat``'s agent: ``"player_0"``, ``"player_1"``, …"""
    return f"player_{seat}"


class SeatNow(NamedTuple):
    """What one seat sees in one state, computed once (:meth:`Table.seat`)."""

    view: Any
    legal: tuple[Any, ...]
    mask: tuple[bool, ...]
    """The catalogue's mask (without the wait action)."""
    can_act: bool
    """Any catalogue action allowed."""


def _int_dtype(lows: tuple[int, ...], highs: tuple[int, ...]) -> type[np.signedinteger[Any]]:
    """The narrowest of int16, int32 and int64 that holds every value of the layout."""
    lo, hi = min(lows, default=0), max(highs, default=0)
    for dtype in (np.int16, np.int32):
        info = np.iinfo(dtype)
        if info.min <= lo and hi <= info.max:
            return dtype
    return np.int64


def _bounds(lay: Layout) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The layout's lows and highs, one per observation entry."""
    return tuple(lay.lows()), tuple(lay.highs())


class Table:
    """One game's match for an environment: setup, match, spaces, seats, seeds and rewards."""

    def __init__(
        self,
        game: str,
        seats: int,
        rules: Mapping[str, Any] | None,
        event_limit: int,
    ) -> None:
        self.game: AnyGame = get_game(game)
        # A setup with seed 0 checks seats, rules and limit now (InvalidSetup names the field),
        # and fixes the layout and the catalogue, which depend on the setup, not on its seed.
        self.setup0: Setup[Any] = self.game.make_setup(seats, 0, dict(rules or {}), event_limit)
        self.seats = seats
        self.catalogue: Catalogue = catalogue(self.game.name, self.setup0)
        self.layout: Layout = layout(self.game.name, self.setup0)
        self.wait = self.catalogue.size
        """The index of the wait action, the last one."""
        self.none: tuple[bool, ...] = (False,) * self.wait
        """The mask of a seat with no catalogue action."""
        lows, highs = _bounds(self.layout)
        self.dtype = _int_dtype(lows, highs)
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    np.array(lows, dtype=self.dtype),
                    np.array(highs, dtype=self.dtype),
                    (len(lows),),
                    self.dtype,
                ),
                "action_mask": spaces.Box(0, 1, (self.wait + 1,), np.int8),
            }
        )
        self.action_space = spaces.Discrete(self.wait + 1)
        self.match: Match[Any, Any, Any, Any, Any] = Match(self.game, self.setup0)
        self._now: list[SeatNow | None] = [None] * seats
        self._at: list[int] = [-1] * seats
        self.np_random: np.random.Generator | None = None

    # ---------------------------------------------------------------- seeds and the episode

    def deal_seed(self, seed: int | None) -> int:
        """The Setup's seed of the next episode: ``seed`` itself when given (the same seed, the
        same game), else the next draw of the environment's own generator (``np_random``,
        seeded by the last ``reset(seed=…)``, or from the OS on a first reset without one)."""
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
                raise TypeError(f"seed must be an int or None, got {type(seed).__name__}")
            if not 0 <= int(seed) <= MAX_SEED:
                raise ValueError(f"seed must be in [0, 2**64), got {seed}")
            self.np_random, _ = seeding.np_random(int(seed))
            return int(seed)
        if self.np_random is None:
            self.np_random, _ = seeding.np_random(None)
        return int(self.np_random.integers(0, 2**63, dtype=np.int64))

    def start(self, seed: int) -> None:
        """A new match of the same setup, dealt from ``seed``, that records its log."""
        s = self.setup0
        self.match = Match(self.game, Setup(s.seats, seed, s.rules, s.event_limit), record=True)
        self._at = [-1] * self.seats

    # ---------------------------------------------------------------- what a seat sees

    def seat(self, seat: int) -> SeatNow:
        """``seat``'s view, legal commands and mask now (once per state: ``match.seq`` moves
        with every accepted action)."""
        seq = self.match.seq
        now = self._now[seat]
        if self._at[seat] == seq and now is not None:
            return now
        match = self.match
        view = self.game.view(match.state, seat)
        legal = tuple(match.legal_commands(seat)) if match.outcome is None else ()
        mask = tuple(self.catalogue.mask(view, legal)) if legal else self.none
        now = SeatNow(view, legal, mask, True in mask)
        self._now[seat] = now
        self._at[seat] = seq
        return now

    def observation(self, seat: int, mask: tuple[bool, ...], wait: bool) -> dict[str, Any]:
        """The observation of ``seat``: its encoded view and ``mask`` with the wait bit."""
        view = self.seat(seat).view
        return {
            "observation": np.array(encode(view, seat), dtype=self.dtype),
            "action_mask": np.array((*mask, wait), dtype=np.int8),
        }

    def wait_only(self, seat: int) -> dict[str, Any]:
        """``seat``'s observation when waiting is all it may do now."""
        return self.observation(seat, self.none, True)

    def render(self) -> str:
        """The referee's one-line notation of the whole table (for a person watching, never for
        an agent: it shows every card)."""
        fmt = self.game.format_position
        if fmt is None:
            return repr(self.match.state)
        return fmt(self.match.state, Role.REFEREE)

    def log(self) -> bytes:
        """The episode's log (:meth:`cardcore.match.Match.dumps`): ``cardcore verify`` checks
        it and ``cardcore replay`` plays it back."""
        return self.match.dumps()


def action_index(action: Any, wait: int) -> int:
    """``action`` (an int, a NumPy integer) as an index of ``Discrete(wait + 1)``; raises
    ``ValueError`` for anything else (a caller's bug, not a move: never a lost decision)."""
    if isinstance(action, bool | float | np.floating):
        raise ValueError(f"an action is an integer index of Discrete({wait + 1}), got {action!r}")
    try:
        index = int(action)
    except (TypeError, ValueError):
        raise ValueError(
            f"an action is an integer index of Discrete({wait + 1}), got {action!r:.40}"
        ) from None
    if not 0 <= index <= wait:
        raise ValueError(f"action {index} is not in Discrete({wait + 1})")
    return index


def rewards_of(outcome: Outcome | None, seats: int) -> tuple[float, ...]:
    """Each seat's reward at the end: +1 a winner, -1 a loser (the game's losers where it names
    them, as Palace does, else every seat that did not win), 0 for everyone when nobody won
    (the event limit, an abort, a stall)."""
    if outcome is None or not outcome.winners:
        return (0.0,) * seats
    winners = set(outcome.winners)
    losers = set(outcome.losers) if outcome.losers else set(range(seats)) - winners
    return tuple(1.0 if s in winners else -1.0 if s in losers else 0.0 for s in range(seats))


def truncated(outcome: Outcome) -> bool:
    """An episode that ended at the event limit is truncated, not terminated."""
    return outcome.termination is Termination.EVENT_LIMIT
