"""Both builds of the engine and RLCard uno, in one process: issue 24's figures.

    make compiled
    PY=/tmp/cardcore-bench-peers-venv/bin/python   # any Python of the same version with rlcard
    $PY benchmarks/builds.py [--compiled build/compiled] [--reps 7] [--target-s 0.6] [--json OUT]

The compiled build is imported as ``cardcore`` from ``--compiled`` (a folder holding the
``cardcore`` package of a compiled wheel, as ``make compiled`` makes it); its ``.py`` files are
copied into a temporary folder and imported as ``cardcore_pure`` (the package's imports are
relative, so it runs as it is, without the extensions beside it). RLCard's uno is played as
``../shared/bench/engine/bench_side_by_side.py`` plays it, and each game of both builds with that
harness's random chooser, without and with the hash-chained log (``record=True``).

Every rep runs each variant for ``--target-s`` seconds in turn (A B C … A B C …), so ratios taken
within a rep cancel the machine's drift. Printed: steps/s per variant (median), and the medians
(min–max) of the within-rep ratios: each build to RLCard uno, compiled to pure, with the log to
without; and each build's **loop floor**: the harness's own loop over a stand-in game that answers
from a record of the real one's answers (:func:`floor`), the most a game with this many options a
step could reach. Then, per game and build, the game's own work per step (a step less its floor)
against what it may be at 2× and at 0.75× uno: how far a target is, in µs of rule code.
"""

from __future__ import annotations

import argparse
import importlib
import json
import operator
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ab_wheel  # beside this script (run as one: its folder is first on the path)

ROOT = Path(__file__).resolve().parents[1]
PURE = "cardcore_pure"
Variant = Callable[[], int]


def load_builds(compiled: Path) -> None:
    """Imports ``cardcore`` (compiled, from ``compiled``) and its ``.py`` files as
    ``cardcore_pure``; exits where either is not the build it should be."""
    stamp = compiled / ".stamp"
    level = stamp.read_text().strip() if stamp.is_file() else "3"
    if level != "3":
        raise SystemExit(
            f"{compiled} was built at -O{level} (make test does): measure the -O3 "
            f"build, `rm -rf {compiled} && make compiled`"
        )
    sys.path.insert(0, str(compiled))
    cardcore = importlib.import_module("cardcore")
    if not cardcore.compiled:
        raise SystemExit(f"{compiled}: no compiled build loads from here (make compiled)")
    copy = Path(tempfile.mkdtemp(prefix="cardcore-pure-"))
    shutil.copytree(
        compiled / "cardcore", copy / PURE, ignore=shutil.ignore_patterns("*.so", "*.pyd")
    )
    sys.path.insert(0, str(copy))
    if importlib.import_module(PURE).compiled:
        raise SystemExit("the pure copy loads compiled modules")


def chooser(package: str, name: str, record: bool) -> Variant:
    """The harness's random chooser over ``name`` of ``package`` (:func:`ab_wheel.chooser`),
    one game per call, the next seed each time."""
    play = ab_wheel.chooser(package, name, record)
    seed = [0]

    def one() -> int:
        seed[0] += 1
        return play(range(seed[0], seed[0] + 1))

    return one


class _Taping:
    """A game that answers as ``game`` does and keeps every seat's legal commands, step by step
    (the first seat's question opens a step): what :func:`floor` replays."""

    def __init__(self, game: Any, tape: list[list[list[Any]]]) -> None:
        self.game, self.tape = game, tape

    def legal_commands(self, state: Any, seat: int) -> list[Any]:
        found = list(self.game.legal_commands(state, seat))
        if seat == 0:
            self.tape.append([])
        self.tape[-1].append(found)
        return found

    def is_sensible(self, state: Any, seat: int, command: Any) -> bool:
        return bool(self.game.is_sensible(state, seat, command))


class _Replay:
    """A match that moves to the next recorded step at each ``submit``; over after the last."""

    def __init__(self, tape: list[list[list[Any]]]) -> None:
        self.tape, self.i, self.state, self.outcome = tape, 0, tape[0], None

    def submit(self, seat: int, command: Any, now: int) -> None:
        self.i = i = self.i + 1
        if i == len(self.tape):
            self.outcome = True
        else:
            self.state = self.tape[i]


class _StandIn:
    """The cheapest game there is: its answers read from the step's record by C callables (every
    option sensible: that changes only the bound the chooser draws below)."""

    legal_commands = staticmethod(operator.getitem)
    is_sensible = slice


def floor(package: str, name: str, games: int = 20) -> Variant:
    """The harness's own cost for ``name``: its loop (:func:`ab_wheel.steps`, the same code)
    over :class:`_StandIn` and a :class:`_Replay` of ``games`` games of ``package``, drawing with
    that build's ``Rng`` as the harness does. The game's own work per step is then the step's
    time less this one's: the part of a step a faster engine can cut."""
    registry, match, rng = ab_wheel.engine(package)
    game = registry.get_game(name)
    seats = 3 if game.info.max_seats >= 3 else 2
    tapes: list[list[list[list[Any]]]] = []
    for seed in range(1, games + 1):
        tapes.append([])
        m = match.Match(game, game.make_setup(seats, seed), record=False)
        ab_wheel.steps(_Taping(game, tapes[-1]), m, rng.Rng(seed, 1), seats)

    def one() -> int:
        return sum(
            ab_wheel.steps(_StandIn, _Replay(tape), rng.Rng(seed, 1), seats)
            for seed, tape in enumerate(tapes, 1)
        )

    return one


def uno() -> Variant:
    import rlcard  # the peers' Python only

    game = rlcard.make("uno", config={"seed": 0}).game
    choose = random.Random(0).choice

    def play() -> int:
        game.init_game()
        n = 0
        while not game.is_over():
            game.step(choose(game.get_legal_actions()))
            n += 1
        return n

    return play


def rate(fn: Variant, seconds: float) -> float:
    steps = 0
    t0 = time.perf_counter()
    while True:
        steps += fn()
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            return steps / elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--compiled", type=Path, default=ROOT / "build" / "compiled")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--target-s", type=float, default=0.6)
    ap.add_argument("--games", default="", help="comma list (default: every game)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    load_builds(args.compiled.resolve())
    registry = importlib.import_module("cardcore.registry")
    names = args.games.split(",") if args.games else [g.name for g in registry.GAMES]
    variants: dict[str, Variant] = {"uno": uno()}
    for name in names:
        for build in ("compiled", "pure"):
            package = "cardcore" if build == "compiled" else PURE
            variants[f"{name} {build}"] = chooser(package, name, False)
            variants[f"{name} {build} +log"] = chooser(package, name, True)
            variants[f"{name} {build} floor"] = floor(package, name)
    for fn in variants.values():
        rate(fn, 0.15)  # warm: imports, tables, the first games
    rates: dict[str, list[float]] = {k: [] for k in variants}
    for _ in range(args.reps):
        for k, fn in variants.items():
            rates[k].append(rate(fn, args.target_s))

    def ratio(a: str, b: str) -> list[float]:
        return [x / y for x, y in zip(rates[a], rates[b], strict=True)]

    def shown(xs: list[float]) -> str:
        return f"{statistics.median(xs):5.2f} ({min(xs):.2f}–{max(xs):.2f})"

    out: dict[str, Any] = {"steps_per_s": {k: statistics.median(v) for k, v in rates.items()}}
    print(f"RLCard uno: {statistics.median(rates['uno']):,.0f} steps/s")
    head = "| game | build | steps/s | ×uno | compiled/pure | +log/no log | loop floor ×uno |"
    print(head + "\n|" + "---|" * 7)
    for name in names:
        for build in ("compiled", "pure"):
            k = f"{name} {build}"
            figures = {
                "x_uno": ratio(k, "uno"),
                "x_pure": ratio(k, f"{name} pure"),
                "log_ratio": ratio(f"{k} +log", k),
                "floor_x_uno": ratio(f"{k} floor", "uno"),
            }
            out[k] = {f: statistics.median(v) for f, v in figures.items()}
            versus = shown(figures["x_pure"]) if build == "compiled" else ""
            print(
                f"| {name} | {build} | {statistics.median(rates[k]):,.0f} | "
                f"{shown(figures['x_uno'])} | {versus} | {shown(figures['log_ratio'])} | "
                f"{shown(figures['floor_x_uno'])} |"
            )
    budgets(names, rates, out)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")


def budgets(names: list[str], rates: dict[str, list[float]], out: dict[str, Any]) -> None:
    """Per game and build, the game's own work per step (a step's time less its loop floor's)
    now, and what it may be for the step to run at 2× and at 0.75× RLCard uno: µs, the medians
    over the reps of figures taken within each rep (the machine's drift cancels within it)."""
    print("\n| game | build | game's work, µs/step | at 2× uno | at 0.75× uno |")
    print("|" + "---|" * 5)
    for name in names:
        for build in ("compiled", "pure"):
            k = f"{name} {build}"
            rows = list(zip(rates["uno"], rates[k], rates[f"{k} floor"], strict=True))
            figures = {
                "work_us": [1e6 / step - 1e6 / fl for _, step, fl in rows],
                "budget_2x_us": [1e6 / (2 * u) - 1e6 / fl for u, _, fl in rows],
                "budget_075x_us": [1e6 / (0.75 * u) - 1e6 / fl for u, _, fl in rows],
            }
            out[k].update({f: statistics.median(v) for f, v in figures.items()})
            print(f"| {name} | {build} | " + " | ".join(f"{out[k][f]:.1f}" for f in figures) + " |")


if __name__ == "__main__":
    main()
