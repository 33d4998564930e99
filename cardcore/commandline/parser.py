"""The argument parser of ``cardcore`` and of each of its commands."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any, Final

from .. import compiled
from ..bots import BOT_KINDS
from ..engine import DEFAULT_EVENT_LIMIT
from ..rng import MAX_SEED
from ..version import __version__

BUILD: Final = "compiled" if compiled else "pure Python"
"""Which build runs (:data:`cardcore.compiled`), as ``cardcore --version`` says it. Asked at
import: what this module imports (``rng``, ...) loads the compiled library anyway when there is
one, so knowing costs nothing more."""

SERVICE_COMMANDS = ("serve", "demo", "backup")
"""Subcommands of the service, present when its distribution (``cardcore-server``) is."""


def whole_number(low: int, high: int | None = None, span: str = "") -> Callable[[str], int]:
    """An argparse ``type``: a whole number from ``low`` (to ``high``); a value out of range is
    a usage error naming the option (exit 2), never a run that quietly does nothing."""
    span = span or (f"{low} or more" if high is None else f"{low} to {high}")

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r:.40}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be {span}, got {value}")
        return value

    return parse


SEED: Final = whole_number(0, MAX_SEED, "in [0, 2**64)")


def _add_games(sub: Any) -> None:
    g = sub.add_parser(
        "games",
        help="list the games, their rules versions and flags",
        description="List the games: names, aliases, rules versions, seats, and each rule "
        "flag with its default (what simulate --rule sets).",
    )
    g.add_argument("--json", action="store_true", help="the same catalogue as JSON, for programs")
    g.add_argument("--names", action="store_true", help="names only, one per line")


def _add_simulate(sub: Any) -> None:
    s = sub.add_parser(
        "simulate",
        help="play seeded bot games and report how they ended",
        description="Play seeded games between bots and report how they ended. The same "
        "command always plays the same games. Exit 0 when every game finished, 1 when some "
        "ended at the event limit or stalled, 2 on a usage error.",
    )
    s.add_argument("game", help="the game, by name or alias (cardcore games lists them)")
    s.add_argument(
        "--seats", type=int, metavar="N", help="players at the table (default: the game's fewest)"
    )
    s.add_argument(
        "--seed",
        type=SEED,
        default=0,
        metavar="N",
        help="the run's seed; each game's seed derives from it, so a run replays exactly "
        "(default %(default)s)",
    )
    s.add_argument(
        "--games",
        type=whole_number(1),
        default=100,
        metavar="N",
        help="how many games to play (default %(default)s)",
    )
    s.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set a rule flag for every game; repeatable; the value is JSON or a bare word, a "
        "list flag takes a,b,c (default: each flag's default, as cardcore games lists them)",
    )
    s.add_argument(
        "--bots",
        choices=sorted(BOT_KINDS),
        default="reaction",
        help="who plays: random (any legal command, false slaps included) or reaction "
        "(sensible play at a human-like pace, an occasional blunder) (default %(default)s)",
    )
    s.add_argument(
        "--event-limit",
        type=whole_number(1),
        default=DEFAULT_EVENT_LIMIT,
        metavar="N",
        help="events after which a game ends unfinished (default %(default)s)",
    )
    s.add_argument(
        "--log-dir",
        metavar="DIR",
        help="write each game's log into DIR (made if missing), one .jsonl file per game "
        "(default: no logs)",
    )
    s.add_argument("--json", action="store_true", help="print the report as one JSON object")


def _add_verify(sub: Any) -> None:
    v = sub.add_parser(
        "verify",
        help="settle a game from its log, a viewer's copy or your receipts",
        description="Judge a log, a viewer's copy or a receipts file, or (--receipts MINE "
        "FINAL) what a viewer was shown against the final log. The verdict's first words say "
        "how far it goes: 'valid' (authenticated by the server's signatures or your "
        "receipts), 'self-consistent' (a complete log with nothing to show who wrote it), "
        "'consistent so far' (a game not over yet), 'INVALID at seq N' (the first line that "
        "differs from what the evidence shows) or 'unsupported'. Exit codes: 0 valid or "
        "self-consistent, 1 invalid, 2 unsupported input or usage, 3 consistent so far.",
    )
    v.add_argument("log", nargs="?", help="a .jsonl log or copy, or - for standard input")
    v.add_argument(
        "--receipts",
        nargs=2,
        metavar=("MINE", "FINAL"),
        help="hold MINE (a copy or a receipts file) against FINAL, the complete log",
    )
    v.add_argument("--final", metavar="FINAL", help="the same check: LOG is MINE")
    v.add_argument(
        "--server-key",
        metavar="KEY",
        help="the server's Ed25519 public key (base64url, as ListGames and /v1/server publish "
        "it; or a file holding it): the log's header and end line must be signed by it",
    )
    v.add_argument(
        "--as",
        dest="as_",
        default=None,
        metavar="SEAT|spectator",
        help="whose MINE is, for a copy that does not say (downloaded before copies were marked)",
    )
    v.add_argument(
        "--json",
        action="store_true",
        help='the verdict as one JSON object: {"status", "at" (the first bad seq, "header" or '
        'null), "exit", "text"}',
    )


def _add_replay(sub: Any) -> None:
    r = sub.add_parser(
        "replay",
        help="narrate a log and show the state from one viewer",
        description="Narrate a log entry by entry, then show the state and the position as one "
        "viewer sees it. A viewer's copy is narrated as its viewer was shown it.",
    )
    r.add_argument("log", help="a .jsonl log or a viewer's copy, or - for standard input")
    r.add_argument(
        "--as",
        dest="as_",
        default=None,
        metavar="SEAT|spectator|referee",
        help="whose view (default: the referee's; a copy's own viewer for a copy)",
    )
    r.add_argument(
        "--at",
        type=whole_number(0),
        default=None,
        metavar="SEQ",
        help="stop after entry SEQ and show the state there (default: the whole log)",
    )


SERVICE_HELP: Final = {
    "serve": "run the gRPC and REST server and its web table",
    "demo": "play one game of every game against a local server, and verify each log",
    "backup": "copy the server's SQLite store while it serves",
}


def _add_fairness(sub: Any) -> None:
    s = sub.add_parser(
        "fairness",
        help="who wins the races when the seats sit at different distances from the host",
        description="Play seeded deals of a real-time game between equal bots with a human "
        "reaction time, one seat further from the host than the other, each deal once per "
        "seating (duplicate), and print each seat's share of the wins with its 95 % confidence "
        "interval. A seat here is a player: its delay goes with it round the table. The model: "
        "docs/games/common.md#fairness. Exit 0, or 2 on a usage error.",
    )
    s.add_argument("game", help="a real-time game: ratscrew, slapjack, spit or speed")
    s.add_argument("--seats", type=whole_number(2), metavar="N", help="players (default 2)")
    s.add_argument(
        "--delay",
        action="append",
        default=[],
        metavar="SEAT=MS",
        help="a seat's one-way delay to the host; repeatable (default: 0 for every seat)",
    )
    s.add_argument(
        "--measured",
        action="append",
        default=[],
        metavar="SEAT=MS",
        help="the one-way delay the host measures for a seat, where it is not the true one (a "
        "seat that answers pings late looks further away); repeatable",
    )
    s.add_argument(
        "--race-policy",
        default="arrival",
        metavar="POLICY",
        help="arrival, or compensated:CAP_MS (default %(default)s)",
    )
    s.add_argument(
        "--reaction",
        default="human",
        metavar="MODEL",
        help="the bots' reaction time: human (180-260 ms), instant, or uniform:LO-HI "
        "(default %(default)s)",
    )
    s.add_argument(
        "--views",
        choices=("delayed", "at-once"),
        default="delayed",
        help="delayed: a seat sees each change its delay after the host (a real link); "
        "at-once: only actions travel (default %(default)s)",
    )
    s.add_argument(
        "--deals", type=whole_number(2), default=400, metavar="N", help="deals (default 400)"
    )
    s.add_argument("--seed", type=SEED, default=0, metavar="N", help="the run's seed (default 0)")
    s.add_argument(
        "--rule", action="append", default=[], metavar="NAME=VALUE", help="a rule flag; repeatable"
    )
    s.add_argument("--json", action="store_true", help="print the report as one JSON object")


def _add_ladder(sub: Any) -> None:
    lad = sub.add_parser(
        "ladder",
        help="rate bots on a schedule of duplicate deals, every game signed; verify a ladder",
        description="Bots given as module:Class or cmd:PROGRAM play a round robin or Swiss "
        "schedule of duplicate deals under the referee's reaction model, rated with openskill "
        "(Plackett-Luce, ordinal mu - 3 sigma); every game's log is signed by the ladder's key, "
        "and 'ladder verify' recomputes the table from the logs alone (docs/ladder.md). Needs "
        "the extra cardcore[ladder].",
    )
    ladder_sub = lad.add_subparsers(dest="ladder_command", required=True)
    _add_ladder_run(ladder_sub)
    v = ladder_sub.add_parser(
        "verify",
        help="recompute a ladder's table from its signed logs",
        description="Verify every log of DIR (hash chain, rules, the ladder key's signatures), "
        "recompute the schedule and the ratings, and compare with results.json byte for byte. "
        "Exit 0 verified, 1 refused (the first difference is named), 2 on a usage error.",
    )
    v.add_argument("dir", metavar="DIR", help="the ladder's directory")
    v.add_argument(
        "--key",
        metavar="KEY",
        help="the ladder's public key (base64url, or a file holding it), from where you trust; "
        "without it, DIR/ladder.pub is taken (which proves only that the ladder is whole)",
    )
    v.add_argument("--json", action="store_true", help="the verdict as one JSON object")


def _add_ladder_run(ladder_sub: Any) -> None:
    r = ladder_sub.add_parser(
        "run",
        help="play a ladder into a directory",
        description="Play the schedule in parallel processes and write DIR: the signed logs "
        "(games/), manifest.json, results.json and .md, ratings.png and the key. Exit 0, or 2 "
        "on a usage error.",
    )
    r.add_argument(
        "--game", action="append", required=True, metavar="GAME", help="a game; repeatable"
    )
    r.add_argument(
        "--bot",
        action="append",
        required=True,
        metavar="NAME=SPEC",
        help="a bot: NAME (letters, digits, _) and module:Class or cmd:PROGRAM ARGS; repeatable",
    )
    r.add_argument(
        "--deals",
        type=whole_number(1),
        default=10,
        metavar="N",
        help="deals per pairing, game and round, each played once per seating (default 10)",
    )
    r.add_argument(
        "--schedule",
        choices=("round-robin", "swiss"),
        default="round-robin",
        help="who meets whom (default %(default)s)",
    )
    r.add_argument(
        "--rounds",
        type=whole_number(1),
        metavar="R",
        help="rounds (default: 1 for a round robin, ceil(log2(bots)) for Swiss)",
    )
    r.add_argument(
        "--reaction",
        default="human",
        metavar="MODEL",
        help="the referee's reaction model: human (180-260 ms), instant, or uniform:LO-HI "
        "(default %(default)s)",
    )
    r.add_argument(
        "--seed", type=SEED, default=0, metavar="N", help="the ladder's seed (default 0)"
    )
    r.add_argument(
        "--jobs", type=whole_number(1), default=1, metavar="J", help="worker processes (default 1)"
    )
    r.add_argument(
        "--deadline-ms",
        type=whole_number(1),
        default=200,
        metavar="MS",
        help="a cmd: bot's time per decision, past which its bank pays (default %(default)s)",
    )
    r.add_argument(
        "--bank-ms",
        type=whole_number(0),
        default=5000,
        metavar="MS",
        help="a cmd: bot's time bank per game (default %(default)s)",
    )
    r.add_argument("--out", required=True, metavar="DIR", help="the ladder's directory (new)")
    r.add_argument("--quiet", action="store_true", help="no progress bar on standard error")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cardcore",
        description="Deterministic, replayable card game engines. cardcore COMMAND --help "
        "says more about each command.",
    )
    p.add_argument("--version", action="version", version=f"cardcore {__version__} ({BUILD})")
    sub = p.add_subparsers(dest="command", required=True)

    _add_games(sub)
    _add_simulate(sub)
    _add_fairness(sub)
    _add_verify(sub)
    _add_replay(sub)
    _add_ladder(sub)
    for name in SERVICE_COMMANDS:
        sp = sub.add_parser(name, help=SERVICE_HELP[name], add_help=False)
        sp.add_argument("rest", nargs=argparse.REMAINDER)
    return p


DASHED_VALUES: Final = frozenset({"--server-key", "--key"})
"""Options whose value may begin with ``-``: a base64url key does one time in 64, and argparse
takes ``--server-key -Abc…`` (or ``ladder verify --key -Abc…``) for a missing value followed by
an unknown option."""


def attach_values(argv: Sequence[str], options: frozenset[str]) -> list[str]:
    """``--server-key -Abc…`` → ``--server-key=-Abc…`` for each of ``options`` (what argparse
    then reads as meant); the service's command line uses it for its own keys."""
    out: list[str] = []
    it = iter(argv)
    for arg in it:
        value = next(it, None) if arg in options else None
        out.append(arg if value is None else f"{arg}={value}")
    return out
