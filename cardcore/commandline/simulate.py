"""``cardcore simulate``: seeded bot games, and how they ended."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .. import log
from ..bots import play_out, seat_bots
from ..engine import Setup, Termination, rule_flags
from ..errors import CardcoreError
from ..match import Match
from ..registry import get_game
from ..rng import stream_key
from .common import EXIT_INVALID, EXIT_OK

if TYPE_CHECKING:
    from ..registry import AnyGame


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a simulation run with ``--seed seed``."""
    return stream_key(seed, index)


def parse_rule_args(game: AnyGame, pairs: Sequence[str]) -> dict[str, Any]:
    """``name=value`` pairs: JSON values, or bare strings; comma lists for array flags."""
    schemas = {f.name: f.schema for f in rule_flags(game.rules_type)}
    rules: dict[str, Any] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        if not sep:
            raise CardcoreError(f"--rule takes name=value, got {pair!r}")
        try:
            value: Any = json.loads(raw)
        except ValueError:
            value = raw
        if schemas.get(name, {}).get("type") == "array" and isinstance(value, str):
            value = [v for v in value.split(",") if v]
        rules[name] = value
    return rules


class Progress:
    """A one-line progress bar on a terminal; silent otherwise."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total = total
        self.stream = stream
        self.enabled = stream.isatty() and total >= 20
        self.last = -1

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        pct = done * 100 // self.total
        if pct != self.last:
            self.last = pct
            bar = "#" * (pct // 4)
            self.stream.write(f"\r[{bar:<25}] {done}/{self.total}")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r" + " " * 40 + "\r")
            self.stream.flush()


def cmd_simulate(args: argparse.Namespace, out: TextIO) -> int:
    game = get_game(args.game)
    seats = args.seats if args.seats is not None else game.info.min_seats
    rules = parse_rule_args(game, args.rule)
    setup0 = game.make_setup(seats, args.seed, rules, args.event_limit)
    log_dir: Path | None = Path(args.log_dir) if args.log_dir else None
    if log_dir is not None:
        log_dir.mkdir(parents=True, exist_ok=True)
    finished = limited = stalled = 0
    lengths: list[int] = []
    wins: Counter[int] = Counter()
    losses: Counter[int] = Counter()
    steps = 0
    progress = Progress(args.games, sys.stderr)
    started = time.perf_counter()
    for i in range(args.games):
        seed = game_seed(args.seed, i)
        setup = Setup(seats, seed, setup0.rules, setup0.event_limit)  # validated once, above
        match = Match(game, setup, game_id=None, record=log_dir is not None)
        result = play_out(match, seat_bots(args.bots, seats, seed))
        steps += result.actions
        lengths.append(result.actions)
        outcome = match.outcome
        if result.stalled:
            stalled += 1
        elif outcome is not None and outcome.termination is Termination.EVENT_LIMIT:
            limited += 1
        else:
            finished += 1
            assert outcome is not None
            # Where the game names a loser (Palace) the winners are a finishing order: the
            # first of them is the one who won.
            wins.update(outcome.winners[:1] if outcome.losers else outcome.winners)
            losses.update(outcome.losers)
        if log_dir is not None and match.writer is not None:
            name = f"{game.name}-{seats}p-seed{args.seed}-{i:05d}.jsonl"
            (log_dir / name).write_bytes(log.dumps(match.writer.lines))
        progress.update(i + 1)
    progress.close()
    elapsed = time.perf_counter() - started
    report = {
        "game": game.name,
        "seats": seats,
        "seed": args.seed,
        "games": args.games,
        "bots": args.bots,
        "finished": finished,
        "unfinished": limited + stalled,
        "event_limit_endings": limited,
        "stalled": stalled,
        "mean_length": round(sum(lengths) / len(lengths), 1) if lengths else 0,
        "max_length": max(lengths, default=0),
        "wins_by_seat": {str(s): wins[s] for s in range(seats)},
        "steps_per_second": int(steps / elapsed) if elapsed > 0 else 0,
    }
    if losses:
        report["losses_by_seat"] = {str(s): losses[s] for s in range(seats)}
    if args.json:
        print(json.dumps(report), file=out)
    else:
        print(
            f"{game.name}: {args.games} games, {seats} seats, seed {args.seed}: "
            f"{finished} finished, {limited + stalled} unfinished "
            f"({limited} at the event limit, {stalled} stalled); "
            f"mean length {report['mean_length']} actions; "
            f"wins by seat {report['wins_by_seat']}; "
            + (f"losses by seat {report['losses_by_seat']}; " if losses else "")
            + f"{report['steps_per_second']} steps/s",
            file=out,
        )
    return EXIT_OK if limited + stalled == 0 else EXIT_INVALID
