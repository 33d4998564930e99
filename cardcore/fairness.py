"""Who wins the races when the seats sit at different distances from the host: equal bots with
a human reaction time, a delay per seat, and a race policy, each deal played once per rotation
of the seats so that only the delays differ between the players (duplicate play). What
``cardcore fairness`` prints, and what docs/games/common.md#fairness shows.

The model (docs/games/common.md#fairness says it in words):

* **Reaction.** Every seat is a :class:`~cardcore.bots.ReactionBot` (sensible play, a rare
  blunder) whose reaction time is drawn uniformly from the :class:`ReactionModel`'s range each
  time it decides. ``human`` is 180-260 ms.
* **Latency.** Seat ``s`` is ``d_s`` ms from the host, each way. After each entry every bot
  decides again: it sees the entry ``d_s`` after the host applied it (at once with
  ``views_delayed=False``, the model where only actions travel), acts after its reaction time,
  and its action reaches the host ``d_s`` later. The host measures ``d_s`` exactly (half the
  round trip of a link without jitter).
* **The host** applies the action it would apply first: under ``arrival`` the first to arrive;
  under ``compensated`` the first by credited time (:func:`cardcore.races.credit`), released
  ``cap_ms`` after its credited time (the hold). The racers that lost had acted on a table
  that changed: each sends the expectation it saw, so it is refused as stale, and decides again
  once it sees the new entry (:func:`cardcore.bots.play_out` does the same with no latency).

Pure and seeded: the same arguments give the same report, game for game.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from .bots import Bot, PlayResult, ReactionBot, ask, bot_seed
from .engine import DEFAULT_EVENT_LIMIT, Game, Outcome, Setup
from .match import Match
from .races import ARRIVAL_POLICY, RacePolicy
from .rng import stream_key

AnyGame = Game[Any, Any, Any, Any, Any]


@dataclass(frozen=True, slots=True)
class ReactionModel:
    """How long a bot takes to act once it sees a change: uniform over ``[min_ms, max_ms]``."""

    name: str
    min_ms: int
    max_ms: int

    @classmethod
    def parse(cls, text: str) -> ReactionModel:
        """``human``, ``instant`` or ``uniform:LO-HI`` (ms)."""
        known = REACTION_MODELS.get(text)
        if known is not None:
            return known
        kind, _, span = text.partition(":")
        lo, _, hi = span.partition("-")
        if kind != "uniform" or not lo.isdigit() or not hi.isdigit() or int(lo) > int(hi):
            raise ValueError(
                f"a reaction model is {', '.join(REACTION_MODELS)} or uniform:LO-HI, got {text!r}"
            )
        return cls(text, int(lo), int(hi))


HUMAN: Final = ReactionModel("human", 180, 260)
"""Simple visual reaction times of young adults are commonly measured at about 190-250 ms
(Welford, "Choice reaction time: basic concepts", 1980; Kosinski, "A literature review on
reaction time", Clemson University, 2013): a slap or a card at a table, where the player watches
for exactly that change, is a simple reaction."""
REACTION_MODELS: Final = {"human": HUMAN, "instant": ReactionModel("instant", 0, 0)}


def play_raced(
    match: Match[Any, Any, Any, Any, Any],
    bots: Sequence[Bot],
    delays_ms: Sequence[int],
    *,
    views_delayed: bool = True,
    measured_ms: Sequence[int] | None = None,
) -> PlayResult:
    """Play ``match`` to its end with ``bots``, seat ``s`` being ``delays_ms[s]`` from the host
    (the module docstring's model), under the match's race policy. ``measured_ms``: the delay
    the host measures for each seat, when it is not the true one (a seat that answers pings
    late looks further away than it is)."""
    policy = match.race_policy
    measured = delays_ms if measured_ms is None else measured_ms
    game = match.game
    published = match.last_at_ms
    actions = 0
    while match.outcome is None:
        best: tuple[int, int, int, Any] | None = None
        for bot in bots:
            proposal = ask(bot, game, match.state)
            if proposal is None:
                continue
            seat, delay = bot.seat, delays_ms[bot.seat]
            arrives = published + (delay if views_delayed else 0) + proposal[0] + delay
            credited = policy.credited_ms(arrives, measured[seat])
            candidate = (credited, arrives, seat, proposal[1])
            if best is None or candidate[:3] < best[:3]:
                best = candidate
        if best is None:
            return PlayResult(actions, published, True)
        _, arrives, seat, command = best
        if policy.compensated:
            match.submit_received(seat, command, arrives, measured[seat])
            published = match.last_at_ms + policy.cap_ms  # held until nothing can overtake it
        else:
            match.submit(seat, command, arrives)
            published = arrives
        actions += 1
    return PlayResult(actions, published, False)


@dataclass(frozen=True, slots=True)
class FairnessReport:
    """Each player's share of the wins (a player is a delay: ``delays_ms[p]``), with its 95 %
    confidence interval over the deals (each deal's share being the mean of its rotations)."""

    game: str
    seats: int
    race_policy: RacePolicy
    delays_ms: tuple[int, ...]
    reaction: ReactionModel
    views_delayed: bool
    measured_ms: tuple[int, ...]
    deals: int
    win_rate: tuple[float, ...]
    ci95: tuple[tuple[float, float], ...]
    unfinished: int
    """Games that ended at the event limit or stalled (each player scored 1/seats)."""

    def json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "seats": self.seats,
            "race_policy": str(self.race_policy),
            "delay_ms": {str(p): d for p, d in enumerate(self.delays_ms)},
            "reaction": self.reaction.name,
            "views": "delayed" if self.views_delayed else "at_once",
            "measured_ms": {str(p): d for p, d in enumerate(self.measured_ms)},
            "deals": self.deals,
            "games": self.deals * self.seats,
            "win_rate": {str(p): round(w, 4) for p, w in enumerate(self.win_rate)},
            "ci95": {str(p): [round(lo, 4), round(hi, 4)] for p, (lo, hi) in enumerate(self.ci95)},
            "unfinished": self.unfinished,
        }


def fairness(
    game: AnyGame,
    delays_ms: Sequence[int],
    *,
    policy: RacePolicy = ARRIVAL_POLICY,
    reaction: ReactionModel = HUMAN,
    deals: int = 400,
    seed: int = 0,
    rules: dict[str, Any] | None = None,
    event_limit: int = DEFAULT_EVENT_LIMIT,
    views_delayed: bool = True,
    measured_ms: Sequence[int] | None = None,
) -> FairnessReport:
    """Play ``deals`` deals of ``game`` among ``len(delays_ms)`` equal bots, each deal once per
    rotation of the players round the seats, and report each player's share of the wins.
    ``rules``: the game's other flags (the race policy is ``policy``'s); ``measured_ms``: the
    delay the host measures for each player, where it is not the true one."""
    seats = len(delays_ms)
    setup0 = game.make_setup(seats, seed, {**(rules or {}), **_policy_rules(policy)}, event_limit)
    claimed = list(delays_ms if measured_ms is None else measured_ms)
    if len(claimed) != seats:
        raise ValueError("measured_ms needs one delay per seat")
    per_deal: list[list[float]] = [[] for _ in range(seats)]
    unfinished = 0
    for deal in range(deals):
        deal_seed = stream_key(seed, deal)
        setup = Setup(seats, deal_seed, setup0.rules, event_limit)
        shares = [0.0] * seats
        for turn in range(seats):  # player p sits at seat (p + turn) % seats
            delays = [delays_ms[(s - turn) % seats] for s in range(seats)]
            measured = [claimed[(s - turn) % seats] for s in range(seats)]
            match = Match(game, setup, game_id=None, record=False)
            bots = [
                ReactionBot(
                    s, bot_seed(deal_seed, s), min_ms=reaction.min_ms, max_ms=reaction.max_ms
                )
                for s in range(seats)
            ]
            result = play_raced(
                match, bots, delays, views_delayed=views_delayed, measured_ms=measured
            )
            scores = _scores(match.outcome, seats, result.stalled)
            unfinished += scores is None
            for p in range(seats):
                shares[p] += (1 / seats if scores is None else scores[(p + turn) % seats]) / seats
        for p in range(seats):
            per_deal[p].append(shares[p])
    rates = tuple(sum(xs) / deals for xs in per_deal)
    return FairnessReport(
        game.name,
        seats,
        policy,
        tuple(delays_ms),
        reaction,
        views_delayed,
        tuple(claimed),
        deals,
        rates,
        tuple(_ci95(xs, m) for xs, m in zip(per_deal, rates, strict=True)),
        unfinished,
    )


def _policy_rules(policy: RacePolicy) -> dict[str, Any]:
    if not policy.compensated:
        return {}
    return {"race_policy": policy.kind, "race_cap_ms": policy.cap_ms}


def _scores(outcome: Outcome | None, seats: int, stalled: bool) -> list[float] | None:
    """Each seat's share of a game's win (None: nobody won it, it ended unfinished). Where the
    game names a loser (Palace) the winners are a finishing order: the first of them won."""
    if stalled or outcome is None or not outcome.winners:
        return None
    winners = outcome.winners[:1] if outcome.losers else outcome.winners
    return [1 / len(winners) if s in winners else 0.0 for s in range(seats)]


def _ci95(xs: Sequence[float], mean: float) -> tuple[float, float]:
    """The normal 95 % interval of the mean of ``xs`` (the per-deal shares)."""
    n = len(xs)
    if n < 2:
        return (0.0, 1.0)
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    half = 1.96 * sd / math.sqrt(n)
    return (max(0.0, mean - half), min(1.0, mean + half))
