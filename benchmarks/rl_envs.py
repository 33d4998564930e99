"""cardcore's PettingZoo environments against RLCard's uno and PettingZoo's texas_holdem, in one
process: issue 27's throughput figures (docs/rl.md#environments).

    PY=/tmp/cardcore-bench-peers-venv/bin/python  # rlcard, pettingzoo[classic], gymnasium
    PYTHONPATH=. $PY benchmarks/rl_envs.py [--reps 7] [--target-s 0.6] [--games …] [--json OUT]
    make compiled && PYTHONPATH=. $PY benchmarks/rl_envs.py --compiled build/compiled

``--compiled DIR``: the engine's compiled build (issue 24; ``make compiled`` puts it in
``build/compiled``) with this tree's ``cardcore/rl`` and ``cardcore/observe`` (pure Python, not
compiled) laid over it in a temporary folder; refused where a compiled module's source is not
this tree's (a stale build).

What one step is, for each (random legal actions, a new episode at the end of each):

* **RLCard uno**: ``env.step(action)``, which extracts the next player's state (its encoded
  observation and legal actions), the action drawn from ``state["legal_actions"]`` as RLCard's
  ``RandomAgent`` draws it;
* **PettingZoo texas_holdem_v4** and **cardcore** ``cardcore.rl.env(game)`` (AEC): ``env.last()``
  (the observation and its action mask, for the agent to act) then ``env.step(action)``, the
  action drawn from the mask (``None`` for an agent that has left), as PettingZoo's own loops do;
* **cardcore** ``parallel_env(game)`` (the real-time games): ``env.step(actions)``, every agent's
  observation and mask for the next tick included, each agent's action drawn from its mask.

cardcore's environments record the episode's log (as they always do). Every rep runs each
variant for ``--target-s`` seconds in turn (A B C … A B C …), so ratios taken within a rep
cancel the machine's drift. Printed: steps/s per variant (median), and the medians (min–max)
of the within-rep ratios to RLCard uno and to texas_holdem.
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
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from builds import rate  # beside this script: the same timing loop as the engine's figures

Variant = Callable[[], int]
"""Plays one episode; returns its steps."""

GAMES = ("ratscrew", "slapjack", "palace", "spit", "speed")
REALTIME = ("ratscrew", "slapjack", "spit", "speed")


def use_compiled(compiled: Path) -> None:
    """Import ``cardcore`` from ``compiled`` with the tree's environments and observations laid
    over it; exits where the build is not this tree's or not compiled."""
    tree = Path(__file__).resolve().parents[1] / "cardcore"
    stale = [
        str(so.relative_to(compiled))
        for so in (compiled / "cardcore").rglob("*.so")
        if (py := so.with_name(so.name.split(".")[0] + ".py")).is_file()
        and py.read_bytes() != (tree / py.relative_to(compiled / "cardcore")).read_bytes()
    ]
    if stale:
        raise SystemExit(f"{compiled} is not this tree's build ({stale[0]}…): make compiled")
    overlay = Path(tempfile.mkdtemp(prefix="cardcore-rl-"))
    shutil.copytree(compiled / "cardcore", overlay / "cardcore")
    for package in ("rl", "observe"):
        shutil.copytree(tree / package, overlay / "cardcore" / package, dirs_exist_ok=True)
    sys.path.insert(0, str(overlay))
    if not importlib.import_module("cardcore").compiled:
        raise SystemExit(f"{compiled}: no compiled build loads from here (make compiled)")


def uno() -> Variant:
    import rlcard

    env = rlcard.make("uno", config={"seed": 0})
    choose = random.Random(0).choice

    def play() -> int:
        state, _ = env.reset()
        n = 0
        while not env.is_over():
            state, _ = env.step(choose(list(state["legal_actions"])))
            n += 1
        return n

    return play


def aec(make: Callable[[], Any]) -> Variant:
    """An AEC environment's random masked episodes (PettingZoo's own loop)."""
    env = make()
    choose = random.Random(0).choice
    seed = [0]

    def play() -> int:
        seed[0] += 1
        env.reset(seed=seed[0])
        n = 0
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(choose(np.flatnonzero(obs["action_mask"]))))
            n += 1
        return n

    return play


def parallel(game: str) -> Variant:
    from cardcore.rl import parallel_env

    env = parallel_env(game)
    choose = random.Random(0).choice
    seed = [0]

    def play() -> int:
        seed[0] += 1
        obs, _ = env.reset(seed=seed[0])
        n = 0
        while env.agents:
            actions = {a: int(choose(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
            obs, *_ = env.step(actions)
            n += 1
        return n

    return play


def variants(games: list[str], with_parallel: bool) -> dict[str, Variant]:
    from pettingzoo.classic import texas_holdem_v4

    from cardcore.rl import env

    out: dict[str, Variant] = {"RLCard uno": uno(), "texas_holdem_v4": aec(texas_holdem_v4.env)}
    for game in games:
        out[f"{game} AEC"] = aec(lambda game=game: env(game))  # type: ignore[misc]
    if with_parallel:
        for game in (g for g in games if g in REALTIME):
            out[f"{game} Parallel"] = parallel(game)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--target-s", type=float, default=0.6)
    ap.add_argument("--games", default=",".join(GAMES), help="comma list (default: every game)")
    ap.add_argument("--no-parallel", action="store_true", help="the AEC environments only")
    ap.add_argument("--compiled", type=Path, help="the compiled build's folder (make compiled)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if args.compiled:
        use_compiled(args.compiled.resolve())
    warnings.filterwarnings("ignore")  # the peers' deprecation notices
    found = variants(args.games.split(","), not args.no_parallel)
    for fn in found.values():
        rate(fn, 0.15)  # warm: imports, tables, the first episodes
    rates: dict[str, list[float]] = {k: [] for k in found}
    for _ in range(args.reps):
        for k, fn in found.items():
            rates[k].append(rate(fn, args.target_s))

    def ratio(a: str, b: str) -> list[float]:
        return [x / y for x, y in zip(rates[a], rates[b], strict=True)]

    def shown(xs: list[float]) -> str:
        return f"{statistics.median(xs):.2f} ({min(xs):.2f}–{max(xs):.2f})"

    out: dict[str, Any] = {"steps_per_s": {k: statistics.median(v) for k, v in rates.items()}}
    build = "compiled" if importlib.import_module("cardcore").compiled else "pure"
    print(f"cardcore {build}; {args.reps} reps × {args.target_s} s per variant, interleaved\n")
    print("| environment | steps/s | × RLCard uno | × texas_holdem_v4 |\n|---|---|---|---|")
    for k in found:
        x_uno, x_holdem = ratio(k, "RLCard uno"), ratio(k, "texas_holdem_v4")
        out[k] = {"x_uno": statistics.median(x_uno), "x_holdem": statistics.median(x_holdem)}
        print(f"| {k} | {statistics.median(rates[k]):,.0f} | {shown(x_uno)} | {shown(x_holdem)} |")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
