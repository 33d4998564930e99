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

from ..engine import Game, Outcome, Role, Setup, Termination, Viewer
from ..kit import trusted, viewed
from ..match import Match
from ..observe import Catalogue, Layout, catalogue, encoder, layout
from ..registry import get_game
from ..rng import MAX_SEED

AnyGame = Game[Any, Any, Any, Any, Any]

MASKED: Final = "Masked"
"""``infos[agent]["rejected"]`` for an action its mask did not allow: refused by the
environment itself, before the rules (a :class:`~cardcore.errors.RejectCode` is the rules')."""

STALLED: Final = "stalled"
"""``infos[agent]["stalled"]``: the episode was truncated because no seat had anything to do
while the game was not over (the rules never leave a game so; a guard, not a rule)."""


VIEW_MASKED: Final = frozenset({"speed"})
"""The games whose catalogue offers an action that is not a legal command: Speed's stalemate
flip, masked from what the seat sees (docs/rl.md#speed-actions). Every other catalogue's mask
marks legal commands only, so a seat without one has an empty mask without its view being
computed (tests/rl/test_envs.py holds the catalogues to it)."""

_new: Final = tuple.__new__
_ONE: Final = b"\x01"
_ZERO: Final = b"\x00"
# Arrays from bytes (np.frombuffer) with a dtype object, not a type: a fifth less per array.
_UINT8: Final = np.dtype(np.uint8)
_INT8: Final = np.dtype(np.int8)


def _viewer_checked(state: Any, viewer: Viewer, /) -> None:
    """A stand-in rule, whose :func:`~cardcore.kit.viewed` wrapper's code identifies that
    wrapper (:func:`_trusting`)."""


_VIEWED_CODE: Final = getattr(viewed(_viewer_checked), "__code__", None)


def _trusting(view: Any) -> Any:
    """The game's ``view`` past :func:`~cardcore.kit.viewed`'s check of the viewer (the rule it
    wraps, which trusts its viewer): a tenth of a view's cost, and the environment's seats are
    its own, ``0..seats-1``. The view itself where it is not exactly that wrapper."""
    inner = getattr(view, "__wrapped__", None)
    code = getattr(view, "__code__", None)
    if inner is not None and code is not None and code is _VIEWED_CODE:
        return inner
    return view


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


_Shown = list[Any]
"""One seat's observation in one state (:meth:`Table.observation`), a list for speed:
``[now, encoded, observation, mask with wait, mask without]``: the seat's SeatNow (held, so
that an ``is`` test cannot match another object) and its encoding (made once per seat and
state), then for each array None until handed out, then False until asked again, then the array
kept, never handed out: an agent asked again (waiting, a Parallel tick that changed nothing)
gets copies of it (a copy costs half a build)."""


def _again(shown: _Shown, kind: int, dtype: np.dtype[Any]) -> Any:
    """Array ``kind`` of ``shown`` (2 the observation, 3 the mask with wait, 4 without), asked
    once more in the same state: a copy of the one kept (built and kept the second time)."""
    kept = shown[kind]
    if kept is None or kept is False:
        if kind == 2:
            data: Any = shown[1]
        else:
            data = (*shown[0].mask, 1 if kind == 3 else 0)
        # From bytes where the values fit (a C copy, where np.array converts element by
        # element: 5 to 30 us a step on Palace's 404 actions).
        built = (
            np.frombuffer(bytearray(data), dtype) if dtype.itemsize == 1 else np.array(data, dtype)
        )
        if kept is None:  # not handed out yet in this state: this one is
            shown[kind] = False
            return built
        kept = shown[kind] = built
    return kept.copy()


def _int_dtype(lows: tuple[int, ...], highs: tuple[int, ...]) -> type[np.integer[Any]]:
    """The narrowest of uint8, int16, int32 and int64 that holds every value of the layout
    (uint8 where it can: an observation is then made from its bytes, the cheapest way)."""
    lo, hi = min(lows, default=0), max(highs, default=0)
    for dtype in (np.uint8, np.int16, np.int32):
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
        self.view_masked = self.game.name in VIEW_MASKED
        self._idle_mask = np.frombuffer(bytes(self.none) + _ONE, _INT8)
        """The mask of a seat that is not asked, the wait bit alone (read-only: copied)."""
        lows, highs = _bounds(self.layout)
        self.dtype = _int_dtype(lows, highs)
        self._obs_dtype = np.dtype(self.dtype)
        self._uint8 = self.dtype is np.uint8
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
        self.match: Match[Any, Any, Any, Any, Any] = Match(self.game, self.setup0, record=False)
        self._played: list[tuple[int, Any, int]] = []
        """Every accepted action of the episode: ``(seat, command, at_ms)``, for :meth:`log`."""
        # Each seat's legal commands, and its view and mask, with the match.seq they are of.
        self._legal: list[tuple[Any, ...]] = [()] * seats
        self._legal_at: list[int] = [-1] * seats
        self._now: list[SeatNow | None] = [None] * seats
        self._at: list[int] = [-1] * seats
        self._shown: list[_Shown | None] = [None] * seats
        """Each seat's observation as handed out, for the state of its SeatNow."""
        self._legal_of = trusted(self.game.legal_commands)  # the seats are ours: checked
        self._view = _trusting(self.game.view)  # the seats are ours
        self._mask = self.catalogue.mask
        self._encode = encoder(self.game.name)
        self._np_random: np.random.Generator | None = None
        self._np_seed: int | None = None
        """A reset's seed whose generator is not made yet (made when asked for: a third of a
        reset's cost, and an agent that resets with seeds never needs it)."""

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
            self._np_seed = int(seed)
            return int(seed)
        generator = self.np_random
        if generator is None:
            generator, _ = seeding.np_random(None)
            self._np_random = generator
        return int(generator.integers(0, 2**63, dtype=np.int64))

    @property
    def np_random(self) -> np.random.Generator | None:
        """The generator of the episodes reset without a seed: seeded by the last
        ``reset(seed=…)`` (gymnasium's ``seeding.np_random``), from the OS on a first reset
        without one; None before any reset."""
        if self._np_seed is not None:
            self._np_random, _ = seeding.np_random(self._np_seed)
            self._np_seed = None
        return self._np_random

    def start(self, seed: int) -> None:
        """A new match of the same setup, dealt from ``seed``."""
        s = self.setup0
        self.match = Match(self.game, Setup(s.seats, seed, s.rules, s.event_limit), record=False)
        self._played = []
        self._at = [-1] * self.seats
        self._legal_at = [-1] * self.seats

    # ---------------------------------------------------------------- what a seat sees

    def legal(self, seat: int) -> tuple[Any, ...]:
        """``seat``'s legal commands now, once per state (``match.seq`` moves with every
        accepted action): all a sweep needs to pass over a seat with nothing to do."""
        match = self.match
        if self._legal_at[seat] == match.seq:
            return self._legal[seat]
        legal = () if match.outcome is not None else tuple(self._legal_of(match.state, seat))
        self._legal[seat] = legal
        self._legal_at[seat] = match.seq
        return legal

    def may_act(self, seat: int) -> bool:
        """Whether ``seat``'s mask offers an action now: what decides whether it is asked. The
        mask's, computed from the view, never the legal commands' alone (in Speed those would
        tell a seat whether the other hand can play); skipped where it cannot hold anything
        (no legal command, and a catalogue that masks legal commands only)."""
        return (self.view_masked or bool(self.legal(seat))) and self.seat(seat).can_act

    def seat(self, seat: int) -> SeatNow:
        """``seat``'s view, legal commands and mask now, once per state and only for a seat
        that is asked."""
        seq = self.match.seq
        now = self._now[seat]
        if self._at[seat] == seq and now is not None:
            return now
        view = self._view(self.match.state, seat)
        legal = self.legal(seat)
        mask = self._mask(view, legal) if legal or self.view_masked else self.none
        now = _new(SeatNow, (view, legal, mask, True in mask))  # no NamedTuple __new__ frame
        self._now[seat] = now
        self._at[seat] = seq
        return now

    def observation(self, seat: int, wait: bool, asked: bool = True) -> dict[str, Any]:
        """The observation of ``seat``: its encoded view, and its mask with the wait bit
        ``wait`` when it is ``asked`` (else the wait bit alone: nothing else to do now). Each
        array is new, the agent's to keep or change (:data:`_Shown`)."""
        now = self.seat(seat)
        shown = self._shown[seat]
        kind = 3 if wait else 4
        if shown is None or shown[0] is not now:  # the first time in this state: built here
            encoded = self._encode(now.view, seat)
            shown = self._shown[seat] = [now, encoded, False, None, None]
            if self._uint8:  # from bytes: a C copy, where np.array goes element by element
                observation = np.frombuffer(bytearray(encoded), _UINT8)
            else:
                observation = np.array(encoded, dtype=self._obs_dtype)
            if not asked:
                return {"observation": observation, "action_mask": self._idle_mask.copy()}
            shown[kind] = False
            mask = bytearray(now.mask)
            mask.append(1 if wait else 0)
            return {"observation": observation, "action_mask": np.frombuffer(mask, _INT8)}
        return {
            "observation": _again(shown, 2, self._obs_dtype),
            "action_mask": _again(shown, kind, _INT8) if asked else self._idle_mask.copy(),
        }

    def render(self) -> str:
        """The referee's one-line notation of the whole table (for a person watching, never for
        an agent: it shows every card)."""
        fmt = self.game.format_position
        if fmt is None:
            return repr(self.match.state)
        return fmt(self.match.state, Role.REFEREE)

    def submit(self, seat: int, command: Any, at_ms: int) -> None:
        """Sequence ``seat``'s command at ``at_ms`` (:meth:`cardcore.match.Match.submit`:
        raises :class:`~cardcore.errors.Rejected`, changing nothing), and keep it for the log."""
        self.match.submit(seat, command, at_ms)
        self._played.append((seat, command, at_ms))

    def log(self) -> bytes:
        """The episode's log so far (:meth:`cardcore.match.Match.dumps`): ``cardcore verify``
        checks it and ``cardcore replay`` plays it back.

        Written when asked for: the match the agents play records nothing (the hash chain
        would be a fifth of a step's cost), and this plays the episode's accepted actions again
        through a recording match of the same setup — the same decisions, so the same bytes as
        a log recorded as the game went."""
        match = self.match
        again = Match(self.game, match.setup, record=True)
        for seat, command, at_ms in self._played:
            again.submit(seat, command, at_ms)
        assert again.state == match.state and again.outcome == match.outcome, "replay differs"
        return again.dumps()


def action_index(action: Any, wait: int) -> int:
    """``action`` (an int, a NumPy integer) as an index of ``Discrete(wait + 1)``; raises
    ``ValueError`` for anything else (a caller's bug, not a move: never a lost decision)."""
    if type(action) is int and 0 <= action <= wait:
        return action  # the common case, first
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


class TableEnv:
    """What both environments (AEC and Parallel) answer alike from their :class:`Table`: the
    agents, the spaces, the generator of unseeded resets, the render, the outcome and the log.
    A mixin, first among an environment's bases so that these answer, not PettingZoo's."""

    table: Table
    render_mode: str | None

    def _set_table(
        self,
        game: str,
        seats: int,
        rules: Mapping[str, Any] | None,
        event_limit: int,
        render_mode: str | None,
    ) -> None:
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.table = Table(game, seats, rules, event_limit)
        self.render_mode = render_mode
        self.possible_agents = [agent_name(s) for s in range(seats)]
        self._spaces = dict.fromkeys(self.possible_agents, self.table.observation_space)
        self._actions = dict.fromkeys(self.possible_agents, self.table.action_space)

    @property
    def np_random(self) -> Any:
        """The generator that deals the episodes reset without a seed (``np.random.Generator``;
        None before the first reset)."""
        return self.table.np_random

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._actions[agent]

    def render(self) -> str | None:
        """``render_mode="ansi"``: the referee's one-line notation of the table (every card
        shown: for a person watching, never for an agent)."""
        return self.table.render() if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Nothing to release (no window, no process)."""

    @property
    def outcome(self) -> Outcome | None:
        """The game's outcome once it is over (:class:`cardcore.engine.Outcome`), else None."""
        return self.table.match.outcome

    def log(self) -> bytes:
        """The episode's log so far (``cardcore verify`` checks it, ``cardcore replay`` plays it;
        :meth:`cardcore.match.Match.dumps`): an AEC episode's actions all at ``at_ms`` 0, a
        Parallel one's each at its arrival time."""
        return self.table.log()
