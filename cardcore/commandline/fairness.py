"""``cardcore fairness``: who wins the races when the seats sit at different distances from the
host (:mod:`cardcore.fairness`)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import TextIO

from ..engine import rule_flags
from ..errors import CardcoreError
from ..fairness import ReactionModel, fairness
from ..races import RacePolicy
from ..registry import get_game
from .common import EXIT_OK
from .simulate import parse_rule_args


def seat_values(pairs: Sequence[str], seats: int, what: str) -> list[int] | None:
    """``SEAT=MS`` pairs as one value per seat (0 where not given); None when none is given."""
    if not pairs:
        return None
    out = [0] * seats
    for pair in pairs:
        seat, sep, ms = pair.partition("=")
        if not sep or not seat.isdigit() or not ms.isdigit():
            raise CardcoreError(f"{what} takes SEAT=MS (whole numbers), got {pair!r}")
        if int(seat) >= seats:
            raise CardcoreError(f"{what} {pair!r}: there are seats 0 to {seats - 1}")
        out[int(seat)] = int(ms)
    return out


def cmd_fairness(args: argparse.Namespace, out: TextIO) -> int:
    game = get_game(args.game)
    if "race_policy" not in {f.name for f in rule_flags(game.rules_type)}:
        raise CardcoreError(f"{game.name} has no races (no race_policy flag)")
    seats = args.seats if args.seats is not None else game.info.min_seats
    delays = seat_values(args.delay, seats, "--delay") or [0] * seats
    measured = seat_values(args.measured, seats, "--measured")
    if measured is not None:  # a seat not named is measured at its true delay
        measured = [m or d for m, d in zip(measured, delays, strict=True)]
    try:
        policy = RacePolicy.parse(args.race_policy)
        reaction = ReactionModel.parse(args.reaction)
    except ValueError as exc:
        raise CardcoreError(str(exc)) from None
    report = fairness(
        game,
        delays,
        policy=policy,
        reaction=reaction,
        deals=args.deals,
        seed=args.seed,
        rules=parse_rule_args(game, args.rule),
        views_delayed=args.views == "delayed",
        measured_ms=measured,
    )
    if args.json:
        print(json.dumps(report.json()), file=out)
        return EXIT_OK
    print(
        f"{game.name}, {seats} seats, {args.deals} deals x {seats} seatings, "
        f"race policy {policy}, reaction {reaction.name} ({reaction.min_ms}-{reaction.max_ms} "
        f"ms), views {'delayed' if report.views_delayed else 'at once'}:",
        file=out,
    )
    for p in range(seats):
        lo, hi = report.ci95[p]
        claim = (
            "" if report.measured_ms[p] == delays[p] else f", measured {report.measured_ms[p]} ms"
        )
        print(
            f"  seat {p} (+{delays[p]} ms{claim}): wins {report.win_rate[p]:.3f} "
            f"(95% CI {lo:.3f}-{hi:.3f})",
            file=out,
        )
    if report.unfinished:
        print(f"  {report.unfinished} games unfinished (scored evenly)", file=out)
    return EXIT_OK
