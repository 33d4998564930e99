"""``cardcore ladder run`` and ``cardcore ladder verify``: bots play a rated schedule of
duplicate deals, every game signed; anyone recomputes the table from the logs
(:mod:`cardcore.arena.ladder`, docs/ladder.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TextIO

from ..arena.ladder import run_ladder
from ..arena.ladder_verify import LadderRefused, verify_ladder
from ..arena.schedule import LadderConfig, default_rounds
from ..errors import CardcoreError
from ..fairness import ReactionModel
from ..registry import get_game
from .common import EXIT_INVALID, EXIT_OK


def bot_specs(pairs: list[str]) -> tuple[tuple[str, str], ...]:
    """``NAME=SPEC`` pairs, in the order given."""
    out = []
    for pair in pairs:
        name, sep, spec = pair.partition("=")
        if not sep or not name or not spec:
            raise CardcoreError(f"--bot takes NAME=SPEC (module:Class or cmd:...), got {pair!r}")
        out.append((name, spec))
    return tuple(out)


def cmd_ladder(args: argparse.Namespace, out: TextIO) -> int:
    if args.ladder_command == "run":
        return _run(args, out)
    return _verify(args, out)


def _run(args: argparse.Namespace, out: TextIO) -> int:
    bots = bot_specs(args.bot)
    games = tuple(get_game(g).name for g in args.game)
    try:
        ReactionModel.parse(args.reaction)
        config = LadderConfig(
            games,
            bots,
            args.deals,
            args.schedule,
            args.rounds or default_rounds(args.schedule, len(bots)),
            args.reaction,
            args.seed,
            args.deadline_ms,
            args.bank_ms,
        )
    except ValueError as exc:
        raise CardcoreError(str(exc)) from None
    root = Path(args.out)
    summary = run_ladder(config, root, jobs=args.jobs, progress=None if args.quiet else sys.stderr)
    print((root / "results.md").read_text(), file=out)
    print(
        f"{summary.games} games ({summary.faults} referee faults) signed with key "
        f"{summary.key}, in {root}: results.json, results.md, ratings.png, manifest.json, "
        f"games/*.log. Check it: cardcore ladder verify {root}",
        file=out,
    )
    return EXIT_OK


def _verify(args: argparse.Namespace, out: TextIO) -> int:
    try:
        check = verify_ladder(Path(args.dir), args.key)
    except LadderRefused as exc:
        if args.json:
            print(json.dumps({"status": "refused", "text": str(exc)}), file=out)
        else:
            print(f"REFUSED: {exc}", file=out)
        return EXIT_INVALID
    if args.json:
        print(
            json.dumps(
                {"status": "verified", "games": check.games, "key": check.key, "text": check.text()}
            ),
            file=out,
        )
    else:
        print(f"verified: {check.text()}", file=out)
    return EXIT_OK
