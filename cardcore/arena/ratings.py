"""A ladder's ratings: openskill's Plackett–Luce model, updated game by game in the schedule's
order, and the results table they give (``results.json``, ``results.md``).

The ordinal shown is openskill's ``ordinal()``, μ − 3σ: a rating the bot is very likely above,
so a bot that played few games is not ranked above one that proved more. Every float in the
table comes from the same operations in the same order, so ``cardcore ladder verify``, which
rates the logs again, must find ``results.json`` byte for byte.

openskill is the optional extra ``cardcore[ladder]``: it is imported when a table is first
made, so the ``cardcore`` command runs without it until a ladder is asked for.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Final

from ..engine import Outcome
from ..errors import CardcoreError
from .schedule import Fixture, LadderConfig

RESULTS_FORMAT: Final = "cardcore-ladder-results/1"
INSTALL_HINT: Final = "the ladder needs the extra cardcore[ladder]: pip install 'cardcore[ladder]'"


def ranks_of(outcome: Outcome | None, seats: int) -> list[int]:
    """Plackett–Luce ranks per seat (0 best): the winner 0, the others 1; all 0 (a draw) for
    a game nobody won or everybody did. Where the game names a loser (Palace) its winners are
    a finishing order, and the first of them won (as :mod:`cardcore.fairness` scores it)."""
    if outcome is None or not outcome.winners:
        return [0] * seats
    winners = outcome.winners[:1] if outcome.losers else outcome.winners
    if len(winners) == seats:
        return [0] * seats
    return [0 if s in winners else 1 for s in range(seats)]


def _model() -> Any:
    """openskill's Plackett–Luce model with its default parameters."""
    try:
        from openskill.models import PlackettLuce  # noqa: PLC0415 - the optional extra
    except ImportError:
        raise CardcoreError(INSTALL_HINT) from None
    return PlackettLuce()


def openskill_version() -> str:
    try:
        return version("openskill")
    except PackageNotFoundError:
        return "not installed"


@dataclass
class _Record:
    games: int = 0
    wins: int = 0
    draws: int = 0
    by_game: dict[str, list[int]] = field(default_factory=dict)
    """Per game: ``[games, wins, draws]``."""


class Ratings:
    """The table being built: :meth:`add` each game in the schedule's order."""

    def __init__(self, config: LadderConfig) -> None:
        self.config = config
        self._model = _model()
        self._rating = {n: self._model.rating(name=n) for n in config.names}
        self._record = {n: _Record() for n in config.names}
        self.rounds: list[dict[str, Any]] = []
        self.trajectory: list[dict[str, tuple[float, float]]] = [self.snapshot()]
        """``{bot: (μ, σ)}`` before any game and after each: what the chart draws."""
        self.played: list[str] = []
        """Per game rated: ``"round <n>"`` (the chart marks where each round starts)."""
        self._h2h: dict[tuple[str, str, str], list[int]] = {}
        """``(game, bot, opponent)`` → ``[games, wins]`` of ``bot`` against ``opponent``."""
        self.games = 0

    def snapshot(self) -> dict[str, tuple[float, float]]:
        return {n: (r.mu, r.sigma) for n, r in self._rating.items()}

    def ordinal(self, name: str) -> float:
        return float(self._rating[name].ordinal())

    def add(self, fixture: Fixture, outcome: Outcome | None) -> None:
        """Rate one game (the next in the schedule's order) that ended with ``outcome``."""
        ranks = ranks_of(outcome, len(fixture.seats))
        teams = [[self._rating[n]] for n in fixture.seats]
        rated = self._model.rate(teams, ranks=ranks)
        draw = len(set(ranks)) == 1
        for name, rank, (new,) in zip(fixture.seats, ranks, rated, strict=True):
            self._rating[name] = new
            record = self._record[name]
            per_game = record.by_game.setdefault(fixture.game, [0, 0, 0])
            won = not draw and rank == 0
            record.games += 1
            record.wins += won
            record.draws += draw
            per_game[0] += 1
            per_game[1] += won
            per_game[2] += draw
            for other in fixture.seats:
                if other != name:
                    h2h = self._h2h.setdefault((fixture.game, name, other), [0, 0])
                    h2h[0] += 1
                    h2h[1] += won
        self.games += 1
        self.trajectory.append(self.snapshot())
        self.played.append(f"round {fixture.round}")

    def end_round(self, round_: int, pairings: Sequence[tuple[str, str]], bye: str | None) -> None:
        """Close round ``round_``: its pairings, its bye and the ordinals after it."""
        self.rounds.append(
            {
                "round": round_,
                "pairings": [list(p) for p in pairings],
                "bye": bye,
                "ordinal": {n: self.ordinal(n) for n in self.config.names},
            }
        )

    def ordinals(self) -> dict[str, float]:
        return {n: self.ordinal(n) for n in self.config.names}

    def results(self) -> dict[str, Any]:
        """What ``results.json`` holds: the configuration, the model, the table (best first),
        each round's pairings and ordinals, and per game who beat whom how often
        (``head_to_head[game][bot][opponent]``: games and the bot's wins)."""
        names = self.config.names
        order = sorted(names, key=lambda n: (-self.ordinal(n), names.index(n)))
        return {
            "format": RESULTS_FORMAT,
            "ladder": self.config.json(),
            "model": {
                "name": "openskill PlackettLuce, default parameters",
                "openskill": openskill_version(),
                "ordinal": "mu - 3 sigma",
            },
            "games": self.games,
            "table": [self._row(rank, n) for rank, n in enumerate(order, start=1)],
            "rounds": self.rounds,
            "head_to_head": {game: self._head_to_head(game, order) for game in self.config.games},
        }

    def _head_to_head(self, game: str, order: Sequence[str]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in order:
            row = out[name] = {}
            for other in order:
                if other != name:
                    games, wins = self._h2h.get((game, name, other), [0, 0])
                    row[other] = {"games": games, "wins": wins}
        return out

    def _row(self, rank: int, name: str) -> dict[str, Any]:
        rating, record = self._rating[name], self._record[name]
        return {
            "rank": rank,
            "bot": name,
            "ordinal": self.ordinal(name),
            "mu": rating.mu,
            "sigma": rating.sigma,
            "games": record.games,
            "wins": record.wins,
            "draws": record.draws,
            "win_rate": record.wins / record.games if record.games else 0.0,
            "by_game": {
                game: {
                    "games": g,
                    "wins": w,
                    "draws": d,
                    "win_rate": w / g if g else 0.0,
                }
                for game in self.config.games
                for g, w, d in [record.by_game.get(game, [0, 0, 0])]
            },
        }


def results_bytes(results: dict[str, Any]) -> bytes:
    """``results.json``'s bytes: keys in a fixed order, floats as Python's shortest repr (which
    reads back to the same float), two-space indents, a final newline."""
    return (json.dumps(results, indent=2, sort_keys=True) + "\n").encode()


def markdown(results: dict[str, Any]) -> str:
    """``results.md``: the table, one row per bot, best first."""
    games = results["ladder"]["games"]
    head = ["rank", "bot", "ordinal (μ − 3σ)", "μ", "σ", "games", "wins", "draws", "win rate"]
    head += [f"{g} win rate" for g in games]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in results["table"]:
        cells = [
            str(row["rank"]),
            f"`{row['bot']}`",
            f"{row['ordinal']:.2f}",
            f"{row['mu']:.2f}",
            f"{row['sigma']:.2f}",
            str(row["games"]),
            str(row["wins"]),
            str(row["draws"]),
            f"{row['win_rate']:.3f}",
        ]
        cells += [f"{row['by_game'][g]['win_rate']:.3f}" for g in games]
        lines.append("| " + " | ".join(cells) + " |")
    lines += _head_to_head_md(results)
    ladder = results["ladder"]
    bots = ", ".join(f"`{b['name']}` = `{b['spec']}`" for b in ladder["bots"])
    return (
        f"{results['games']} games of {', '.join(games)}: {ladder['schedule']}, "
        f"{ladder['rounds']} round(s), {ladder['deals']} deal(s) per pairing and game, each "
        f"played once per seating; reaction model {ladder['reaction']}; seed {ladder['seed']}.\n"
        f"Bots: {bots}.\n\n" + "\n".join(lines) + "\n"
    )


def _head_to_head_md(results: dict[str, Any]) -> list[str]:
    """Per game, a matrix: the row bot's wins against the column bot, of the games they met."""
    order = [row["bot"] for row in results["table"]]
    out: list[str] = []
    for game, rows in results["head_to_head"].items():
        out += ["", f"{game}, head to head (the row's wins / games against the column):", ""]
        out += [
            "| | " + " | ".join(f"`{n}`" for n in order) + " |",
            "|---" * (len(order) + 1) + "|",
        ]
        for name in order:
            cells = [
                "" if other == name else f"{rows[name][other]['wins']}/{rows[name][other]['games']}"
                for other in order
            ]
            out.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return out
