"""The engine harness's random chooser, a built wheel against this checkout, in one process.

    .venv/bin/python benchmarks/ab_wheel.py WHEEL [GAMES] [--pairs 12] [--seeds 20] [--log]

WHEEL is an engine wheel (``cardcore-*.whl``) or a folder holding its ``cardcore`` package, e.g.
the engine before a restructuring; GAMES a comma list (default: every game). The wheel's package
is unzipped into a temporary folder and imported as ``cardcore_before`` (its imports are relative,
so it runs as it was), beside this checkout's ``cardcore``: both in one interpreter, so the
machine's drift and the interpreter are the same for both.

Each game is played as ``../shared/bench/engine/bench_side_by_side.py`` plays it: a
``Match(game, game.make_setup(seats, seed), record=...)``, then, at every step, every seat's
``game.legal_commands``, every option's ``game.is_sensible``, and one of the sensible options (else
of all) drawn with the engine's own ``Rng(seed, 1)``; 3 seats where the game takes them, else 2.
Both engines play the same seeds, and must play the same number of steps (else the run stops).
A pair times both on the same seeds in CPU time (``time.process_time``), in alternating order;
printed per game: each side's steps per second (medians) and the median, min and max of the pairs'
speed ratios, after/before (above 1: this checkout is faster).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import shutil
import statistics
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BEFORE = "cardcore_before"


def unpack(wheel: Path, into: Path) -> None:
    """The wheel's (or folder's) ``cardcore`` package as ``into/cardcore_before``."""
    if wheel.is_dir():
        shutil.copytree(wheel / "cardcore", into / BEFORE)
        return
    with zipfile.ZipFile(wheel) as zf:
        for name in zf.namelist():
            if name.startswith("cardcore/") and not name.endswith("/"):
                target = into / BEFORE / name.removeprefix("cardcore/")
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(zf.read(name))


def engine(package: str) -> tuple[ModuleType, ModuleType, ModuleType]:
    """The registry, match and rng modules of ``package``."""
    modules = (importlib.import_module(f"{package}.{m}") for m in ("registry", "match", "rng"))
    registry, match, rng = modules
    return registry, match, rng


def chooser(package: str, name: str, record: bool) -> Callable[[range], int]:
    """The harness's random chooser over ``name`` of ``package``: plays the seeds given, returns
    the number of steps."""
    registry, match, rng = engine(package)
    game: Any = registry.get_game(name)
    seats = 3 if game.info.max_seats >= 3 else 2

    def play(seeds: range) -> int:
        total = 0
        for seed in seeds:
            m = match.Match(game, game.make_setup(seats, seed), record=record)
            r = rng.Rng(seed, 1)
            n = now = 0
            while m.outcome is None and n < 20000:
                opts = [(s, c) for s in range(seats) for c in game.legal_commands(m.state, s)]
                sens = [o for o in opts if game.is_sensible(m.state, o[0], o[1])]
                pool = sens or opts
                s, c = pool[r.below(len(pool))]
                now += 1
                m.submit(s, c, now)
                n += 1
            total += n
        return total

    return play


def timed(play: Callable[[range], int], seeds: range) -> float:
    gc.collect()
    start = time.process_time()
    play(seeds)
    return time.process_time() - start


def compare(name: str, pairs: int, seeds: range, record: bool) -> str:
    before, after = chooser(BEFORE, name, record), chooser("cardcore", name, record)
    steps = before(seeds)
    if after(seeds) != steps:
        raise SystemExit(f"{name}: the two engines played different games")
    times_before: list[float] = []
    times_after: list[float] = []
    for i in range(pairs):
        if i % 2:
            times_after.append(timed(after, seeds))
            times_before.append(timed(before, seeds))
        else:
            times_before.append(timed(before, seeds))
            times_after.append(timed(after, seeds))
    ratios = [b / a for b, a in zip(times_before, times_after, strict=True)]
    return (
        f"{name:9} {steps:6d} steps  before {steps / statistics.median(times_before):8.0f}/s  "
        f"after {steps / statistics.median(times_after):8.0f}/s  after/before "
        f"{statistics.median(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f}, "
        f"n={pairs})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wheel", type=Path)
    parser.add_argument("games", nargs="?", default="ratscrew,slapjack,palace,spit,speed")
    parser.add_argument("--pairs", type=int, default=12)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--log", action="store_true", help="record the hash-chained log too")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        unpack(args.wheel, Path(folder))
        sys.path[:0] = [folder, str(ROOT)]
        for name in args.games.split(","):
            print(compare(name, args.pairs, range(1, args.seeds + 1), args.log), flush=True)


if __name__ == "__main__":
    main()
