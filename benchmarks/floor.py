"""The engine harness's own cost: how fast its random chooser could run if every game cost nothing.

    PY=/tmp/cardcore-bench-peers-venv/bin/python   # any Python of the same version with rlcard
    $PY benchmarks/floor.py [--seeds 40] [--reps 7] [--target-s 0.6] [--json OUT]

``../shared/bench/engine/bench_side_by_side.py`` (and :mod:`benchmarks.builds`, which plays it the
same way) times a loop that is itself interpreted Python: at every step it asks every seat's
``legal_commands``, builds the list of ``(seat, command)`` options, asks ``is_sensible`` of each,
draws one and submits it. Whatever a build of the engine does, that loop runs in the interpreter.

This script records what each game answered over ``--seeds`` seeded playouts (this checkout's
engine, as the harness plays it: 3 seats where a game takes them), then replays the *same loop*
with every call into the engine answered by a C builtin from the recording:

* ``legal_commands(state, seat)`` is ``operator.getitem`` on the step's recorded per-seat tuples;
* ``is_sensible(state, seat, command)`` is a set membership test (``operator.contains``) on the
  step's recorded sensible options;
* the draw ``Rng.below(len(pool))`` is the recorded index, read with an iterator's ``__next__``;
* ``submit(seat, command, now)`` is ``slice`` (a C constructor that takes three arguments);

so each costs one call of a C function: less than any call into a compiled module can cost, and
nothing of the game's own work. That is the fastest any build of the engine could make the
harness run on these games: its "floor". Printed per game, with RLCard uno timed in the same
reps (A B C … A B C …, medians of the within-rep ratios):

* the floor's steps/s and its ratio to uno (the ceiling of "×uno" for any build);
* per step: the options the loop builds, the calls it makes, the floor's µs;
* the µs a step left for all of the game's work at 2× uno (issue 24's compiled target), and at
  2.5× this checkout's pure engine (its other one), measured in the same reps.
"""

from __future__ import annotations

import argparse
import json
import operator
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ab_wheel  # beside this script
import builds

Variant = Callable[[], int]


@dataclass(frozen=True, slots=True)
class Step:
    """What the engine answered at one step of the harness's loop."""

    legal: tuple[tuple[object, ...], ...]  # per seat
    sensible: frozenset[tuple[int, object]]  # the options is_sensible said yes to
    pick: int  # the index drawn in the pool


def record(name: str, seeds: range) -> tuple[int, list[Step]]:
    """The harness's loop over ``name`` (this checkout), every answer kept: (seats, steps)."""
    registry, match, rng = ab_wheel.engine("cardcore")
    game = registry.get_game(name)
    seats = 3 if game.info.max_seats >= 3 else 2
    steps: list[Step] = []
    for seed in seeds:
        m = match.Match(game, game.make_setup(seats, seed), record=False)
        r = rng.Rng(seed, 1)
        now = 0
        while m.outcome is None and now < 20000:
            legal = tuple(tuple(game.legal_commands(m.state, s)) for s in range(seats))
            opts = [(s, c) for s in range(seats) for c in legal[s]]
            sens = [o for o in opts if game.is_sensible(m.state, o[0], o[1])]
            pool = sens or opts
            pick = r.below(len(pool))
            steps.append(Step(legal, frozenset(sens), pick))
            now += 1
            m.submit(*pool[pick], now)
    return seats, steps


def floor(seats: int, steps: list[Step]) -> Variant:
    """The harness's loop as it is written, every engine call a C builtin (module docstring)."""
    legal_commands = operator.getitem
    is_sensible = operator.contains
    submit = slice

    def play() -> int:
        picks = iter([s.pick for s in steps]).__next__
        for now, step in enumerate(steps, 1):
            state, sensible = step.legal, step.sensible
            opts = [(s, c) for s in range(seats) for c in legal_commands(state, s)]
            sens = [o for o in opts if is_sensible(sensible, o)]
            pool = sens or opts
            s, c = pool[picks()]
            submit(s, c, now)
        return len(steps)

    return play


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=40)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--target-s", type=float, default=0.6)
    ap.add_argument("--games", default="ratscrew,slapjack,palace,spit,speed")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    names = args.games.split(",")
    variants: dict[str, Variant] = {"uno": builds.uno()}
    shape: dict[str, tuple[float, float]] = {}
    for name in names:
        seats, steps = record(name, range(1, args.seeds + 1))
        options = sum(len(c) for s in steps for c in s.legal) / len(steps)
        # calls a step: legal_commands per seat, is_sensible per option, the draw, submit
        shape[name] = (options, seats + options + 2)
        variants[f"{name} floor"] = floor(seats, steps)
        variants[f"{name} pure"] = builds.chooser("cardcore", name, False)
    for fn in variants.values():
        builds.rate(fn, 0.15)
    rates: dict[str, list[float]] = {k: [] for k in variants}
    for _ in range(args.reps):
        for k, fn in variants.items():
            rates[k].append(builds.rate(fn, args.target_s))
    uno_us = 1e6 / statistics.median(rates["uno"])
    print(f"RLCard uno: {statistics.median(rates['uno']):,.0f} steps/s ({uno_us:.2f} µs a step)")
    print(
        "| game | options a step | engine calls a step | floor steps/s | floor ×uno | floor µs "
        "a step | pure µs a step | µs left for the game at 2× uno | at 2.5× pure |"
    )
    print("|" + "---|" * 9)
    out: dict[str, dict[str, float]] = {}
    for name in names:
        floor_x = statistics.median(
            [f / u for f, u in zip(rates[f"{name} floor"], rates["uno"], strict=True)]
        )
        floor_us = 1e6 / statistics.median(rates[f"{name} floor"])
        pure_us = 1e6 / statistics.median(rates[f"{name} pure"])
        left_2x = uno_us / 2 - floor_us
        left_pure = pure_us / 2.5 - floor_us
        options, calls = shape[name]
        out[name] = {
            "options": options,
            "calls": calls,
            "floor_x_uno": floor_x,
            "floor_us": floor_us,
            "pure_us": pure_us,
            "left_us_2x_uno": left_2x,
            "left_us_2_5x_pure": left_pure,
        }
        print(
            f"| {name} | {options:.1f} | {calls:.1f} | "
            f"{statistics.median(rates[f'{name} floor']):,.0f} | {floor_x:.2f} | {floor_us:.2f} | "
            f"{pure_us:.2f} | {left_2x:.2f} | {left_pure:.2f} |"
        )
    if args.json:
        args.json.write_text(json.dumps({"uno_us": uno_us, "games": out}, indent=1) + "\n")


if __name__ == "__main__":
    main()
