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
without.
"""

from __future__ import annotations

import argparse
import importlib
import json
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
    head = "| game | build | steps/s | ×uno | compiled/pure | +log/no log |"
    print(head + "\n|" + "---|" * 6)
    for name in names:
        for build in ("compiled", "pure"):
            k = f"{name} {build}"
            figures = {
                "x_uno": ratio(k, "uno"),
                "x_pure": ratio(k, f"{name} pure"),
                "log_ratio": ratio(f"{k} +log", k),
            }
            out[k] = {f: statistics.median(v) for f, v in figures.items()}
            versus = shown(figures["x_pure"]) if build == "compiled" else ""
            print(
                f"| {name} | {build} | {statistics.median(rates[k]):,.0f} | "
                f"{shown(figures['x_uno'])} | {versus} | {shown(figures['log_ratio'])} |"
            )
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
