"""Steps a second of the pure and the compiled build, side by side (issue 24).

The loop is the engine harness's "random chooser" (/work/shared/bench/engine/
bench_side_by_side.py): every seat's legal commands, the sensible ones among them, one chosen at
random, submitted; per game, without and with the hash-chained log (``record=True``). Each build
runs in a subprocess of its own: the compiled one with the ``.so`` files of
tools/compile_engine.py in place, the pure one from a copy of the tree without them. The builds
alternate, ``--rounds`` times (default 5), and the median of each is reported::

    python tools/compile_engine.py          # the compiled build, in place
    python tools/engine_speed.py [--rounds 5] [--seconds 1.0] [--games spit,speed]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def measure(games: list[str], seconds: float) -> dict[str, float]:
    """In this process: steps/s of each game's random chooser, with and without the log."""
    # Imported here: the subprocess puts the build measured first on sys.path, then calls this.
    import cardcore.cards  # noqa: PLC0415
    from cardcore.match import Match  # noqa: PLC0415
    from cardcore.registry import GAMES  # noqa: PLC0415
    from cardcore.rng import Rng  # noqa: PLC0415

    rates: dict[str, float] = {"compiled": float(cardcore.cards.__file__.endswith(".so"))}
    for gm in GAMES:
        if games and gm.name not in games:
            continue
        seats = 3 if gm.info.max_seats >= 3 else 2
        for record in (False, True):
            seed, steps, t0 = 0, 0, time.perf_counter()
            while True:
                seed += 1
                m: Any = Match(gm, gm.make_setup(seats, seed), record=record)
                r = Rng(seed, 1)
                n = now = 0
                while m.outcome is None and n < 20000:
                    opts = [(s, c) for s in range(seats) for c in gm.legal_commands(m.state, s)]
                    sens = [o for o in opts if gm.is_sensible(m.state, o[0], o[1])]
                    pool = sens or opts
                    s, c = pool[r.below(len(pool))]
                    now += 1
                    m.submit(s, c, now)
                    n += 1
                steps += n
                elapsed = time.perf_counter() - t0
                if elapsed >= seconds:
                    break
            rates[f"{gm.name}{' +log' if record else ''}"] = steps / elapsed
    return rates


def pure_tree() -> Path:
    """A copy of the package without its compiled files."""
    where = Path(tempfile.mkdtemp(prefix="cardcore-pure-"))
    shutil.copytree(
        ROOT / "cardcore", where / "cardcore", ignore=shutil.ignore_patterns("*.so", "__pycache__")
    )
    return where


def run(tree: Path, games: list[str], seconds: float) -> dict[str, float]:
    code = (
        f"import sys, json; sys.path.insert(0, {str(tree)!r}); sys.path.insert(1, {str(ROOT)!r})\n"
        "from tools.engine_speed import measure\n"
        f"print(json.dumps(measure({games!r}, {seconds!r})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    rates: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0, help="per game and mode")
    parser.add_argument("--games", default="", help="comma-separated names (default: all)")
    parser.add_argument("--json", help="write the raw rates here")
    args = parser.parse_args()
    games = [g for g in args.games.split(",") if g]
    pure = pure_tree()
    runs: dict[str, list[dict[str, float]]] = {"pure": [], "compiled": []}
    try:
        for i in range(args.rounds):
            for build, tree in (("pure", pure), ("compiled", ROOT)):
                rates = run(tree, games, args.seconds)
                if rates.pop("compiled") != (build == "compiled"):
                    sys.exit(f"the {build} run did not load the {build} build")
                runs[build].append(rates)
            print(f"round {i + 1}/{args.rounds} done", file=sys.stderr)
    finally:
        shutil.rmtree(pure)
    print(f"{'game':<18}{'pure steps/s':>14}{'compiled':>14}{'ratio':>8}")
    for key in runs["pure"][0]:
        p = statistics.median(r[key] for r in runs["pure"])
        c = statistics.median(r[key] for r in runs["compiled"])
        print(f"{key:<18}{p:>14,.0f}{c:>14,.0f}{c / p:>8.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps(runs, indent=1))


if __name__ == "__main__":
    main()
