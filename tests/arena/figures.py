"""The figures of docs/bots.md#measured: an instant bot against the human-like bot, refereed
under each reaction model and unrefereed, in the three racing games of the issue. Seeded and
pure, so the same arguments print the same table on any machine:

    .venv/bin/python -m tests.arena.figures --deals 400 --seed 0

(``tests/arena/test_referee.py`` holds a smaller run of it to the issue's bar.)"""

from __future__ import annotations

import argparse
import time

from cardcore.bots import BotFactory, ReactionBot
from cardcore.fairness import REACTION_MODELS, ReactionModel
from cardcore.referee import duel, human_bot, instant_bot
from cardcore.registry import get_game

GAMES = ("ratscrew", "slapjack", "speed")
ROWS: tuple[tuple[str, BotFactory, ReactionModel | None], ...] = (
    ("human", human_bot, REACTION_MODELS["human"]),
    ("instant", human_bot, REACTION_MODELS["instant"]),
    ("none (play_out)", human_bot, None),
    ("human, vs ReactionBot's own 150-900 ms", ReactionBot, REACTION_MODELS["human"]),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"instant bot's share of the wins, {args.deals} deals x 2 seatings, seed {args.seed}")
    print("| model | " + " | ".join(GAMES) + " |")
    print("|---|" + "---|" * len(GAMES))
    for label, opponent, model in ROWS:
        cells = []
        for name in GAMES:
            start = time.perf_counter()
            r = duel(get_game(name), instant_bot, opponent, model, deals=args.deals, seed=args.seed)
            took = time.perf_counter() - start
            cells.append(f"{r.win_rate:.3f} ({r.ci95[0]:.3f}-{r.ci95[1]:.3f})")
            print(f"  {label} {name}: {took:.1f} s, unfinished {r.unfinished}", flush=True)
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
