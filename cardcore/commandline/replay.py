"""``cardcore replay``: a log narrated entry by entry, and the state as one viewer sees it."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any, TextIO

from .. import codec, log
from ..engine import Role, Viewer, check_seat, parse_viewer
from ..errors import CardcoreError, CorruptLog
from ..races import RACE_KEY
from ..registry import get_game
from ..views import render_view, viewer_name
from .common import EXIT_OK, EXIT_USAGE, read_log

if TYPE_CHECKING:
    from ..registry import AnyGame


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
    lines = read_log(args.log)
    asked = _check_replay_args(lines, args)
    game = get_game(str(lines[0].get("game")))
    if log.copy_of(lines) is not None:
        return _replay_copy(game, lines, args, out)
    viewer = Role.REFEREE if asked is None else asked
    start_ms: int | None = None  # the first entry's, once the replay has checked it
    last_state = None
    previous: log.LogLine | None = None
    for step in log.replay(lines):
        if args.at is not None and step.entry["seq"] > args.at:
            break
        start_ms = step.entry["at_ms"] if start_ms is None else start_ms
        _narrate(game, step.entry, start_ms, viewer, out)
        if previous is not None and (note := race_note(previous, step.entry)) is not None:
            print(f"    {note}", file=out)
        previous = step.entry
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


def _narrate(
    game: AnyGame, entry: log.LogLine, start_ms: int, viewer: Viewer | None, out: TextIO
) -> None:
    """One entry: its seq, its time since the first entry's, who did what, then each event as
    ``viewer`` sees it (None: as the copy holds it)."""
    print(f"seq {entry['seq']} +{entry['at_ms'] - start_ms} ms {_who(game, entry)}", file=out)
    for raw in entry["events"]:
        print("    " + _shown(game, raw, viewer), file=out)
    race = entry.get(RACE_KEY)
    if isinstance(race, dict) and race.get("clamped"):
        print(
            f"    (arrived at +{race['received_ms'] - start_ms} ms, too late for its credited "
            "place: credited at the entry before it)",
            file=out,
        )
    elif isinstance(race, dict) and race.get("delay_ms"):
        print(
            f"    (arrived at +{race['received_ms'] - start_ms} ms from {race['delay_ms']} ms "
            f"away: credited {race['received_ms'] - entry['at_ms']} ms earlier)",
            file=out,
        )


def race_note(first: log.LogLine, second: log.LogLine) -> str | None:
    """Why ``first`` went before ``second`` though it arrived after it (a race the credits
    decided: docs/games/common.md#race-policy), in words; None when they went in arrival order."""
    a, b = first.get(RACE_KEY), second.get(RACE_KEY)
    if not isinstance(a, dict) or not isinstance(b, dict) or a["received_ms"] <= b["received_ms"]:
        return None
    sa, sb = first["seat"], second["seat"]
    kind_a, kind_b = first["action"].get("kind"), second["action"].get("kind")
    further = a["delay_ms"] - b["delay_ms"]
    return (
        f"seat {sa}'s {kind_a} arrived {a['received_ms'] - b['received_ms']} ms after seat "
        f"{sb}'s {kind_b}, but seat {sa} is {further} ms further away: seat {sa} acted first"
    )


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
    for entry in lines[1:]:
        if args.at is not None and entry["seq"] > args.at:
            break
        _narrate(game, entry, lines[1]["at_ms"], None, out)
    print(
        f"\n{whose} copy of a game in progress ({report.entries} entries), as its viewer was "
        "shown it: the state is not rebuilt (the cards hidden from the viewer are not in the "
        "copy); after the end, replay the full log",
        file=out,
    )
    for note in report.notes:
        print(note, file=out)
    return EXIT_OK
