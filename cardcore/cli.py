"""The ``cardcore`` command: games, simulate, verify, replay (stdlib only), serve and demo.

This is the one module of the package that touches files, the terminal and a clock (only to
report steps per second; no time ever reaches a game or a log). ``serve`` and ``demo`` hand over
to the service's distribution (``cardcore-server``, from ``services/``), found by its entry points.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TextIO

from . import codec, log, registry, signatures, verdicts
from .bots import BOT_KINDS, play_out, seat_bots
from .engine import (
    DEFAULT_EVENT_LIMIT,
    Role,
    Setup,
    Termination,
    Viewer,
    check_seat,
    parse_viewer,
    rule_flags,
    seats_phrase,
)
from .errors import CardcoreError, CorruptLog
from .match import Match
from .registry import get_game
from .rng import MAX_SEED, stream_key
from .version import __version__
from .views import render_view, viewer_name

if TYPE_CHECKING:
    from .registry import AnyGame

SERVICE_COMMANDS = ("serve", "demo", "backup")
"""Subcommands of the service, present when its distribution (``cardcore-server``) is."""
COMMANDS_GROUP: Final = "cardcore.commands"
EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2
EXIT_UNREVEALED = 3
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports `tool | head` for a C tool


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a simulation run with ``--seed seed``."""
    return stream_key(seed, index)


# --------------------------------------------------------------------------- games


def cmd_games(args: argparse.Namespace, out: TextIO) -> int:
    if args.names:
        for g in registry.GAMES:  # every game: imported here, not when the CLI starts
            print(g.info.name, file=out)
        return EXIT_OK
    catalogue: list[dict[str, Any]] = [
        {
            "name": g.info.name,
            "title": g.info.title,
            "aliases": list(g.info.aliases),
            "rules_version": g.info.rules_version,
            "seats": [g.info.min_seats, g.info.max_seats],
            "realtime": g.info.realtime,
            "flags": [
                {"name": f.name, "default": f.default, "help": f.help}
                for f in rule_flags(g.rules_type)
            ],
        }
        for g in registry.GAMES
    ]
    if args.json:
        print(json.dumps(catalogue, indent=2, ensure_ascii=False), file=out)
        return EXIT_OK
    for entry in catalogue:
        aliases = f" (alias {', '.join(entry['aliases'])})" if entry["aliases"] else ""
        print(
            f"{entry['name']}{aliases} — {entry['title']}, rules_version {entry['rules_version']}, "
            f"{seats_phrase(*entry['seats'])}{', real-time' if entry['realtime'] else ''}",
            file=out,
        )
        for f in entry["flags"]:
            default = codec.canonical_text(f["default"])
            print(f"    {f['name']} = {default}    {f['help']}", file=out)
    return EXIT_OK


# --------------------------------------------------------------------------- simulate


def parse_rule_args(game: AnyGame, pairs: Sequence[str]) -> dict[str, Any]:
    """``name=value`` pairs: JSON values, or bare strings; comma lists for array flags."""
    schemas = {f.name: f.schema for f in rule_flags(game.rules_type)}
    rules: dict[str, Any] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        if not sep:
            raise CardcoreError(f"--rule takes name=value, got {pair!r}")
        try:
            value: Any = json.loads(raw)
        except ValueError:
            value = raw
        if schemas.get(name, {}).get("type") == "array" and isinstance(value, str):
            value = [v for v in value.split(",") if v]
        rules[name] = value
    return rules


class Progress:
    """A one-line progress bar on a terminal; silent otherwise."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total = total
        self.stream = stream
        self.enabled = stream.isatty() and total >= 20
        self.last = -1

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        pct = done * 100 // self.total
        if pct != self.last:
            self.last = pct
            bar = "#" * (pct // 4)
            self.stream.write(f"\r[{bar:<25}] {done}/{self.total}")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\r" + " " * 40 + "\r")
            self.stream.flush()


def cmd_simulate(args: argparse.Namespace, out: TextIO) -> int:
    game = get_game(args.game)
    seats = args.seats if args.seats is not None else game.info.min_seats
    rules = parse_rule_args(game, args.rule)
    setup0 = game.make_setup(seats, args.seed, rules, args.event_limit)
    log_dir: Path | None = Path(args.log_dir) if args.log_dir else None
    if log_dir is not None:
        log_dir.mkdir(parents=True, exist_ok=True)
    finished = limited = stalled = 0
    lengths: list[int] = []
    wins: Counter[int] = Counter()
    losses: Counter[int] = Counter()
    steps = 0
    progress = Progress(args.games, sys.stderr)
    started = time.perf_counter()
    for i in range(args.games):
        seed = game_seed(args.seed, i)
        setup = Setup(seats, seed, setup0.rules, setup0.event_limit)  # validated once, above
        match = Match(game, setup, game_id=None, record=log_dir is not None)
        result = play_out(match, seat_bots(args.bots, seats, seed))
        steps += result.actions
        lengths.append(result.actions)
        outcome = match.outcome
        if result.stalled:
            stalled += 1
        elif outcome is not None and outcome.termination is Termination.EVENT_LIMIT:
            limited += 1
        else:
            finished += 1
            assert outcome is not None
            # Where the game names a loser (Palace) the winners are a finishing order: the
            # first of them is the one who won.
            wins.update(outcome.winners[:1] if outcome.losers else outcome.winners)
            losses.update(outcome.losers)
        if log_dir is not None and match.writer is not None:
            name = f"{game.name}-{seats}p-seed{args.seed}-{i:05d}.jsonl"
            (log_dir / name).write_bytes(log.dumps(match.writer.lines))
        progress.update(i + 1)
    progress.close()
    elapsed = time.perf_counter() - started
    report = {
        "game": game.name,
        "seats": seats,
        "seed": args.seed,
        "games": args.games,
        "bots": args.bots,
        "finished": finished,
        "unfinished": limited + stalled,
        "event_limit_endings": limited,
        "stalled": stalled,
        "mean_length": round(sum(lengths) / len(lengths), 1) if lengths else 0,
        "max_length": max(lengths, default=0),
        "wins_by_seat": {str(s): wins[s] for s in range(seats)},
        "steps_per_second": int(steps / elapsed) if elapsed > 0 else 0,
    }
    if losses:
        report["losses_by_seat"] = {str(s): losses[s] for s in range(seats)}
    if args.json:
        print(json.dumps(report), file=out)
    else:
        print(
            f"{game.name}: {args.games} games, {seats} seats, seed {args.seed}: "
            f"{finished} finished, {limited + stalled} unfinished "
            f"({limited} at the event limit, {stalled} stalled); "
            f"mean length {report['mean_length']} actions; "
            f"wins by seat {report['wins_by_seat']}; "
            + (f"losses by seat {report['losses_by_seat']}; " if losses else "")
            + f"{report['steps_per_second']} steps/s",
            file=out,
        )
    return EXIT_OK if limited + stalled == 0 else EXIT_INVALID


# --------------------------------------------------------------------------- verify


def _read_log(path: str) -> list[log.LogLine]:
    data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    return log.loads(data)


def cmd_verify(args: argparse.Namespace, out: TextIO) -> int:
    """``verify``: :func:`cardcore.verdicts.judge`'s verdict, printed as it words it (the web
    page and the Node verifier run this same command, so they say the same), with its exit
    code; ``--json`` prints it as an object."""
    key = None
    if args.server_key is not None:
        key = signatures.parse_key(_key_text(args.server_key))
    mine, final = args.log, args.final
    if args.receipts is not None:
        if args.log is not None or args.final is not None:
            raise ValueError("verify --receipts MINE FINAL takes no other log (nor --final)")
        mine, final = args.receipts
    if mine is None:
        raise ValueError("verify needs a LOG (or --receipts MINE FINAL)")
    if args.as_ is not None and final is None:
        raise ValueError("--as names whose copy MINE is: it goes with --receipts or --final")
    viewer = None if args.as_ is None else parse_viewer(args.as_)
    read: list[list[log.LogLine]] = []
    for path, what in ((mine, "this file" if final is None else "your copy"), (final, "")):
        if path is None:
            continue
        try:
            read.append(_read_log(path))
        except CorruptLog as exc:  # not JSON Lines: nothing a log could be judged on
            what = what or "the final log"
            verdict = verdicts.Verdict(
                verdicts.Status.UNSUPPORTED,
                f"unsupported: {what} ({path}) is not JSON Lines: {exc.reason}",
            )
            return _print_verdict(verdict, args, out)
    verdict = verdicts.judge(
        read[0], final=read[1] if final is not None else None, viewer=viewer, server_key=key
    )
    return _print_verdict(verdict, args, out)


def _print_verdict(verdict: verdicts.Verdict, args: argparse.Namespace, out: TextIO) -> int:
    if getattr(args, "json", False):
        print(json.dumps(verdict.as_json(), ensure_ascii=False), file=out)
    else:
        print(verdict.text, file=out)
    return verdict.exit_code


def _key_text(given: str) -> str:
    """``--server-key``: the key itself, or a file holding it (as ``/v1/server`` prints it)."""
    path = Path(given)
    if len(given) < 200 and path.is_file():
        return path.read_text(encoding="utf-8").strip()
    return given


# --------------------------------------------------------------------------- replay


def _whose_view(viewer: Viewer) -> str:
    return log.whose(log.viewer_text(viewer))


def _shown(game: AnyGame, raw: Any, viewer: Viewer | None) -> str:
    """An event's narration, redacted for ``viewer`` first (None: a copy's event, redacted
    already). Where the game cannot narrate it (a hidden value in a copy), its kind and JSON as
    the viewer may see it."""
    kind = raw.get("kind") if isinstance(raw, dict) else None
    kind = kind if isinstance(kind, str) else "?"
    try:
        event = game.decode_event(raw, "event")
    except CardcoreError:
        # a copy's event is what its viewer was shown; a log's is not shown unredacted
        return f"{kind} {codec.canonical_text(raw)}" if viewer is None else f"{kind} (?)"
    try:
        shown = event if viewer is None else game.redact(event, viewer)
    except Exception:  # a value no redaction expects
        return f"{kind} (?)"
    try:
        return game.narrate(shown)
    except Exception:  # a copy's hidden value where the narration needs a card
        return f"{kind} {codec.canonical_text(codec.encode(shown))}"


def _who(game: AnyGame, entry: log.LogLine) -> str:
    """Who acted and what, the command in the game's text syntax (docs/notation.md#commands):
    ``seat 0: play 4S 4H`` — what a player would type to do it again."""
    seat = entry.get("seat")
    if seat is not None:
        action = entry.get("action")
        try:
            return f"seat {seat}: {game.format_command(game.decode_command(action, 'action'))}"
        except CardcoreError:  # not a command of this game: its kind, as the log has it
            kind = action.get("kind") if isinstance(action, dict) else None
            return f"seat {seat}: {kind!r:.40}"
    by = log.abort_by(entry)
    return "deal" if by is None else f"aborted by the host ({by})"


def _check_replay_args(lines: list[log.LogLine], args: argparse.Namespace) -> Viewer | None:
    """``--as`` and ``--at`` held against the log, before anything is printed: a narration
    followed by a refusal reads as if the narration were the answer."""
    header = lines[0] if lines else {}
    if header.get("type") != "header":
        raise CorruptLog(None, "empty log" if not lines else "the first line is not a header")
    setup = header.get("setup")
    seats = setup.get("seats") if isinstance(setup, dict) else None
    if type(seats) is not int:
        raise CorruptLog(None, "the header's setup has no seat count")
    viewer = None if args.as_ is None else parse_viewer(args.as_)
    if isinstance(viewer, int):
        check_seat(seats, viewer)
    last = lines[-1].get("seq") if len(lines) > 1 else None
    if args.at is not None and isinstance(last, int) and args.at > last:
        raise ValueError(f"--at {args.at} is past the end of the log: its last seq is {last}")
    if args.at is not None and last is None:
        raise ValueError(f"--at {args.at}: the log has no entries yet")
    return viewer


def cmd_replay(args: argparse.Namespace, out: TextIO) -> int:
    lines = _read_log(args.log)
    asked = _check_replay_args(lines, args)
    game = get_game(str(lines[0].get("game")))
    if log.copy_of(lines) is not None:
        return _replay_copy(game, lines, args, out)
    viewer = Role.REFEREE if asked is None else asked
    start_ms: int | None = None
    last_state = None
    for step in log.replay(lines):
        entry = step.entry
        seq, at_ms = entry["seq"], entry["at_ms"]
        if args.at is not None and seq > args.at:
            break
        if start_ms is None:
            start_ms = at_ms
        print(f"seq {seq} +{at_ms - start_ms} ms {_who(game, entry)}", file=out)
        for raw in entry["events"]:
            print("    " + _shown(game, raw, viewer), file=out)
        last_state = step.state
    if last_state is not None:
        try:
            shown = render_view(game.view(last_state, viewer))
            # the notation as this viewer may see it (hidden cards ??); the referee's parses
            notation = None
            if game.format_position is not None:
                notation = game.format_position(last_state, viewer)
        except CardcoreError:
            raise
        except Exception as exc:  # a state no valid log reaches: the log is at fault
            raise CorruptLog(
                None, f"the replayed state cannot be shown ({type(exc).__name__})"
            ) from None
        print(f"\nstate as {viewer_name(viewer)} sees it:", file=out)
        print(shown, file=out)
        if notation is not None:
            print(f"position: {notation}", file=out)
    end = lines[-1] if lines and lines[-1].get("type") == "end" else None
    if end is not None and (args.at is None or args.at >= end["seq"]):
        print(f"\nend: {codec.canonical_text(end['outcome'])}", file=out)
    return EXIT_OK


def _replay_copy(
    game: AnyGame, lines: list[log.LogLine], args: argparse.Namespace, out: TextIO
) -> int:
    """A viewer's copy: each entry and its events as that viewer was shown them. The state is
    not rebuilt (the copy lacks the cards hidden from its viewer)."""
    report = log.verify(lines)  # a corrupt copy is refused (exit 1), as a corrupt log is
    assert report.copy is not None
    whose = log.whose(report.copy) if report.copy else "a redacted (unmarked)"
    if args.as_ is not None and report.copy:
        asked = parse_viewer(args.as_)
        if log.viewer_text(asked) != report.copy:
            print(
                f"cardcore: this is {whose} copy; it cannot show {_whose_view(asked)} view",
                file=sys.stderr,
            )
            return EXIT_USAGE
    start_ms: int | None = None
    for entry in lines[1:]:
        seq, at_ms = entry["seq"], entry["at_ms"]
        if args.at is not None and seq > args.at:
            break
        if start_ms is None:
            start_ms = at_ms
        print(f"seq {seq} +{at_ms - start_ms} ms {_who(game, entry)}", file=out)
        for raw in entry["events"]:
            print("    " + _shown(game, raw, None), file=out)
    print(
        f"\n{whose} copy of a game in progress ({report.entries} entries), as its viewer was "
        "shown it: the state is not rebuilt (the cards hidden from the viewer are not in the "
        "copy); after the end, replay the full log",
        file=out,
    )
    for note in report.notes:
        print(note, file=out)
    return EXIT_OK


# --------------------------------------------------------------------------- main


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


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cardcore",
        description="Deterministic, replayable card game engines. cardcore COMMAND --help "
        "says more about each command.",
    )
    p.add_argument("--version", action="version", version=f"cardcore {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    g = sub.add_parser(
        "games",
        help="list the games, their rules versions and flags",
        description="List the games: names, aliases, rules versions, seats, and each rule "
        "flag with its default (what simulate --rule sets).",
    )
    g.add_argument("--json", action="store_true", help="the same catalogue as JSON, for programs")
    g.add_argument("--names", action="store_true", help="names only, one per line")

    _add_simulate(sub)

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

    _add_replay(sub)
    for name in SERVICE_COMMANDS:
        sp = sub.add_parser(name, help=SERVICE_HELP[name], add_help=False)
        sp.add_argument("rest", nargs=argparse.REMAINDER)
    return p


DASHED_VALUES: Final = frozenset({"--server-key"})
"""Options whose value may begin with ``-``: a base64url key does one time in 64, and argparse
takes ``--server-key -Abc…`` for a missing value followed by an unknown option."""


def attach_values(argv: Sequence[str], options: frozenset[str]) -> list[str]:
    """``--server-key -Abc…`` → ``--server-key=-Abc…`` for each of ``options`` (what argparse
    then reads as meant); the service's command line uses it for its own keys."""
    out: list[str] = []
    it = iter(argv)
    for arg in it:
        value = next(it, None) if arg in options else None
        out.append(arg if value is None else f"{arg}={value}")
    return out


def _service_command(argv: list[str]) -> int:
    """``serve``, ``demo``, ``backup``: the service's own commands, found by the entry points
    its distribution (``cardcore-server``) declares in the ``cardcore.commands`` group — the
    engine never imports the service by name."""
    found = [ep for ep in entry_points(group=COMMANDS_GROUP) if ep.name == argv[0]]
    if not found:
        print(
            f"cardcore {argv[0]} is a command of the service, which is not installed: from a "
            "clone of cardcore, pip install . ./clients/python ./services",
            file=sys.stderr,
        )
        return EXIT_USAGE
    return int(found[0].load()(argv))


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in SERVICE_COMMANDS:
        return _service_command(argv)
    args = build_parser().parse_args(attach_values(argv, DASHED_VALUES))
    handlers = {
        "games": cmd_games,
        "simulate": cmd_simulate,
        "verify": cmd_verify,
        "replay": cmd_replay,
    }
    try:
        return handlers[args.command](args, out)
    except CorruptLog as exc:
        print(f"cardcore: invalid log: {exc}", file=sys.stderr)
        return EXIT_INVALID
    except BrokenPipeError:  # the reader left (| head): no message, as a tool killed by SIGPIPE
        if out is sys.stdout:
            _quiet_stdout()
        return EXIT_BROKEN_PIPE
    except OSError as exc:
        print(f"cardcore: {os_error_text(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except (CardcoreError, ValueError) as exc:
        print(f"cardcore: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("cardcore: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def os_error_text(exc: OSError) -> str:
    """``/x.jsonl: No such file or directory``, not ``[Errno 2] No such file or directory:
    '/x.jsonl'``: the file first, as other command-line tools say it."""
    if exc.strerror is None:
        return str(exc)
    if exc.filename is None:
        return exc.strerror
    return f"{exc.filename}: {exc.strerror}"


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's own flush at exit does not fail on
    the closed pipe a second time (and print "Exception ignored")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real stdout (a test's): nothing to flush
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
