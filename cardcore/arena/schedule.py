"""A ladder's schedule: which bots meet, on which deals, in which order (docs/ladder.md).

The schedule is a pure function of the ladder's configuration (:class:`LadderConfig`) and, for a
Swiss ladder, of the ratings after each round; ``cardcore ladder verify`` recomputes it from the
signed manifest and holds the games played to it.

* **Duplicate deals.** In a round, every pairing of a game plays the same deals (``--deals``
  of them, seeded by the ladder's seed, the game and the round), and each deal once per rotation
  of the seats: two bots play deal 3 with A at seat 0, then with B at seat 0. The deal, the
  seed of each seat's bot (:func:`cardcore.bots.bot_seed` of the deal's seed) and the
  referee's seed (the deal's: each seat's reaction times) are the same in both games, so the
  bots are the only thing that differs.
* **Order.** Rounds in turn; in a round, deal by deal, and for each deal the games in the
  order given, the pairings and the rotations. Ratings are updated in this order, never in the
  order parallel workers finish, so a run gives the same table with any ``--jobs``. Online
  ratings weigh recent games a little more (openskill's ``tau`` lets σ grow a little at each
  game), so the order interleaves: every pairing and every game comes back at each deal, and
  no bot's rating is decided by one block of games played last.
* **Round robin** plays every pairing each round. **Swiss** pairs, each round, the bots by
  their ordinal so far (ties: the order they were given), each with the best-placed bot it has
  not met yet (a rematch only when no other is left); with an odd count the lowest-placed bot
  that has sat out least sits the round out (a bye: no games).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Final

from ..rng import MAX_SEED, stream_key
from .protocol import DEFAULT_BANK_MS, DEFAULT_DEADLINE_MS

SCHEDULES: Final = ("round-robin", "swiss")
BOT_NAME: Final = re.compile(r"[A-Za-z0-9_]{1,32}")
"""A bot's name: letters, digits and ``_`` (a game's id joins the names with ``-``)."""


@dataclass(frozen=True, slots=True)
class LadderConfig:
    """What a ladder plays: everything its schedule and its ratings follow from."""

    games: tuple[str, ...]
    bots: tuple[tuple[str, str], ...]
    """``(name, spec)`` in the order given: ``module:Class`` or ``cmd:<argv>``."""
    deals: int
    schedule: str
    rounds: int
    reaction: str
    seed: int
    deadline_ms: int = DEFAULT_DEADLINE_MS
    """A ``cmd:`` bot's time per decision; past it, the time comes from its bank."""
    bank_ms: int = DEFAULT_BANK_MS
    """A ``cmd:`` bot's time bank for a whole game (docs/bots.md)."""

    def __post_init__(self) -> None:
        _check_config(self)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.bots)

    def json(self) -> dict[str, Any]:
        return {
            "games": list(self.games),
            "bots": [{"name": n, "spec": s} for n, s in self.bots],
            "deals": self.deals,
            "schedule": self.schedule,
            "rounds": self.rounds,
            "reaction": self.reaction,
            "seed": self.seed,
            "deadline_ms": self.deadline_ms,
            "bank_ms": self.bank_ms,
        }

    @classmethod
    def from_json(cls, data: Any, where: str = "ladder") -> LadderConfig:
        """The configuration :meth:`json` wrote; ``ValueError`` naming the field at fault."""
        if not isinstance(data, dict):
            raise ValueError(f"{where}: not an object")
        bots = data.get("bots")
        if not isinstance(bots, list) or not all(
            isinstance(b, dict)
            and isinstance(b.get("name"), str)
            and isinstance(b.get("spec"), str)
            for b in bots
        ):
            raise ValueError(f"{where}.bots: a list of {{name, spec}} was expected")
        games = data.get("games")
        if not isinstance(games, list) or not all(isinstance(g, str) for g in games):
            raise ValueError(f"{where}.games: a list of game names was expected")
        fields = {k: data.get(k) for k in ("deals", "rounds", "seed", "deadline_ms", "bank_ms")}
        for key, value in fields.items():
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(f"{where}.{key}: a whole number was expected")
        for key in ("schedule", "reaction"):
            if not isinstance(data.get(key), str):
                raise ValueError(f"{where}.{key}: a string was expected")
        return cls(
            tuple(games),
            tuple((b["name"], b["spec"]) for b in bots),
            data["deals"],
            data["schedule"],
            data["rounds"],
            data["reaction"],
            data["seed"],
            data["deadline_ms"],
            data["bank_ms"],
        )


def _check_config(c: LadderConfig) -> None:
    if not c.games or len(set(c.games)) != len(c.games):
        raise ValueError("games: give at least one game, each once")
    names = [n for n, _ in c.bots]
    if len(names) < 2 or len(set(names)) != len(names):
        raise ValueError("bots: give at least two bots, each name once")
    for name in names:
        if not BOT_NAME.fullmatch(name):
            raise ValueError(f"bot name {name!r}: use 1 to 32 letters, digits or _")
    if c.schedule not in SCHEDULES:
        raise ValueError(f"schedule {c.schedule!r}: one of {', '.join(SCHEDULES)}")
    if c.deals < 1 or c.rounds < 1:
        raise ValueError("deals and rounds: 1 or more")
    if c.deadline_ms < 1 or c.bank_ms < 0:
        raise ValueError("deadline_ms: 1 or more; bank_ms: 0 or more")
    if not 0 <= c.seed <= MAX_SEED:
        raise ValueError("seed: in [0, 2**64)")


def default_rounds(schedule: str, bots: int) -> int:
    """Round robin: one round (every pairing once). Swiss: ceil(log2(bots)), at least one."""
    return 1 if schedule == "round-robin" else max(1, math.ceil(math.log2(bots)))


@dataclass(frozen=True, slots=True)
class Fixture:
    """One game of the schedule."""

    index: int
    """Its place in the schedule's order (0 first): the order ratings are updated in."""
    round: int
    game: str
    deal: int
    """1 to ``deals``: the same number is the same deal for every pairing of the round."""
    seats: tuple[str, ...]
    """The bots' names, seat 0 first."""
    deal_seed: int

    @property
    def id(self) -> str:
        """The game's id, in its log's signed header: ``palace-r1-d3-random-slow`` is round 1's
        deal 3 of Palace, ``random`` at seat 0 and ``slow`` at seat 1."""
        return f"{self.game}-r{self.round}-d{self.deal}-{'-'.join(self.seats)}"


def _game_stream(game: str) -> int:
    """A game's stream of the ladder's seed: from its name, so a game's deals do not depend
    on the other games listed."""
    return int.from_bytes(hashlib.sha256(b"cardcore-ladder/" + game.encode()).digest()[:4], "big")


def deal_seed(seed: int, game: str, round_: int, deal: int) -> int:
    """The seed of deal ``deal`` of ``game`` in round ``round_`` (both from 1)."""
    return stream_key(stream_key(stream_key(seed, _game_stream(game)), round_), deal)


Pairing = tuple[str, str]


def round_robin(names: Sequence[str]) -> list[Pairing]:
    """Every pairing, in the order the bots were given."""
    return list(combinations(names, 2))


def swiss(
    names: Sequence[str],
    ordinals: Mapping[str, float],
    met: Mapping[frozenset[str], int],
    byes: Mapping[str, int],
) -> tuple[list[Pairing], str | None]:
    """One Swiss round: the pairings (better-placed bot first) and the bye (None: none).
    ``met``: how often each pair has met; ``byes``: how often each bot has sat out."""
    order = sorted(names, key=lambda n: (-ordinals[n], names.index(n)))
    bye = None
    if len(order) % 2:
        bye = min(reversed(order), key=lambda n: byes.get(n, 0))
        order.remove(bye)
    pairs: list[Pairing] = []
    while order:
        first = order.pop(0)
        fresh = [n for n in order if not met.get(frozenset((first, n)))]
        other = fresh[0] if fresh else min(order, key=lambda n: met[frozenset((first, n))])
        order.remove(other)
        pairs.append((first, other))
    return pairs, bye


def fixtures(
    config: LadderConfig, round_: int, pairings: Sequence[Pairing], start: int
) -> list[Fixture]:
    """The games of round ``round_`` for ``pairings``, in the schedule's order, numbered from
    ``start``."""
    out: list[Fixture] = []
    for deal in range(1, config.deals + 1):
        for game in config.games:
            seed = deal_seed(config.seed, game, round_, deal)
            for pair in pairings:
                for turn in range(len(pair)):
                    seats = tuple(pair[(s + turn) % len(pair)] for s in range(len(pair)))
                    out.append(Fixture(start + len(out), round_, game, deal, seats, seed))
    return out


class Planner:
    """Deals out the schedule round by round: the run and ``verify`` both follow it, so the
    games a ladder played are the games its configuration (and, for Swiss, its ratings)
    call for."""

    def __init__(self, config: LadderConfig) -> None:
        self.config = config
        self.met: dict[frozenset[str], int] = {}
        self.byes: dict[str, int] = {}
        self.next_index = 0

    def round(
        self, round_: int, ordinals: Mapping[str, float]
    ) -> tuple[list[Pairing], str | None, list[Fixture]]:
        """Round ``round_``'s pairings, bye and games; ``ordinals``: the ratings so far (a
        Swiss round pairs by them)."""
        names = self.config.names
        if self.config.schedule == "round-robin":
            pairings, bye = round_robin(names), None
        else:
            pairings, bye = swiss(names, ordinals, self.met, self.byes)
        for a, b in pairings:
            key = frozenset((a, b))
            self.met[key] = self.met.get(key, 0) + 1
        if bye is not None:
            self.byes[bye] = self.byes.get(bye, 0) + 1
        games = fixtures(self.config, round_, pairings, self.next_index)
        self.next_index += len(games)
        return pairings, bye, games

    def total_games(self) -> int:
        """How many games the whole schedule has (for a progress bar)."""
        n = len(self.config.names)
        pairs = n * (n - 1) // 2 if self.config.schedule == "round-robin" else n // 2
        return self.config.rounds * len(self.config.games) * pairs * self.config.deals * 2
