"""Everything observable of a set of seeded playouts, written as text: what the differential test
(tests/builds/test_builds.py) compares between the pure and the compiled build.

    python -m tests.builds.transcript write OUT_DIR [--games N]   # playouts: transcript + logs
    python -m tests.builds.transcript verify LOG_DIR              # verify logs (another build's)
    python -m tests.builds.transcript build                       # which build is loaded

``write`` plays, per game, ``N`` seeded games (seat counts from the game's range, reaction and
random bots, rule variants drawn from the game's own flag schema) and writes to
``OUT_DIR/transcript.txt``, one line per item:

* every seat's and the spectator's view after each step (canonical JSON);
* each seat's legal commands, and what ``decide`` says to every candidate command by every seat
  (its events, or its rejection code and message), without applying it;
* the referee's position notation, and a parse of it, every few steps;
* the final log (canonical lines), each viewer's copy at mid-game, the check of each copy and
  of each seat's receipts against the final log, and the verify report.

and each final log to ``OUT_DIR/logs/``. ``verify`` verifies every log in a folder and prints a
line per log: the other half of "a log written by one build verifies under the other".

It runs under whichever build is loaded (``CARDCORE_PURE=1`` forces the pure one) and says which
in its first line, so two transcripts differ there and nowhere else.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cardcore
from cardcore import codec, log
from cardcore.bots import ask, seat_bots
from cardcore.engine import Role, Viewer, rule_flags
from cardcore.errors import InvalidPosition, InvalidSetup, Rejected
from cardcore.match import Match
from cardcore.registry import GAMES
from cardcore.rng import Rng

AnyGame = Any
POSITION_EVERY = 7
"""Steps between two notations of the position (each is formatted and parsed back)."""


def drawn_rules(game: AnyGame, rng: Rng) -> dict[str, Any]:
    """Rule flags drawn from the game's flag schema: each kept at its default half the time,
    else a value of its kind (a choice, a boolean, a small integer, a subset of choices)."""
    out: dict[str, Any] = {}
    for f in rule_flags(game.rules_type):
        schema = dict(f.schema)
        if rng.below(2) == 0:
            continue
        kind = schema.get("type")
        if "enum" in schema:
            out[f.name] = schema["enum"][rng.below(len(schema["enum"]))]
        elif kind == "boolean":
            out[f.name] = rng.below(2) == 1
        elif kind == "integer":
            lo = schema.get("minimum", 0)
            out[f.name] = lo + rng.below(min(schema.get("maximum", lo + 2), lo + 2) - lo + 1)
        elif kind == "array" and "enum" in schema.get("items", {}):
            out[f.name] = [c for c in schema["items"]["enum"] if rng.below(2)]
    return out


def text(value: Any) -> str:
    return codec.canonical_text(codec.encode(value))


def viewers(seats: int) -> list[Viewer]:
    return [*range(seats), Role.SPECTATOR]


def answers(match: Match[Any, Any, Any, Any, Any], seats: int) -> Iterator[str]:
    """Each seat's legal commands, and ``decide``'s answer to every candidate by every seat."""
    game, state = match.game, match.state
    candidates: list[Any] = []
    for s in range(seats):
        legal = match.legal_commands(s)
        yield f"legal {s} " + " ".join(text(c) for c in legal)
        candidates += legal[:2]
    for cls in game.command_types:
        try:
            candidates.append(cls())
        except TypeError:
            pass  # a command with fields: the legal ones stand for it
    for s in range(seats):
        for c in candidates:
            try:
                events = game.decide(state, s, c)
            except Rejected as r:
                yield f"reject {s} {text(c)} {r.code.value} {r}"
            else:
                yield f"accept {s} {text(c)} " + " ".join(text(e) for e in events)


def positions(game: AnyGame, state: Any) -> Iterator[str]:
    if game.format_position is None or game.parse_position is None:
        return
    notation = game.format_position(state, Role.REFEREE)
    try:
        back = game.format_position(game.parse_position(notation, state.setup.rules), Role.REFEREE)
    except InvalidPosition as e:
        back = f"InvalidPosition {e}"
    yield f"position {notation} | {back}"


def playout(game: AnyGame, index: int, logs: Path) -> Iterator[str]:
    rng = Rng(index, 77)
    span = game.info.max_seats - game.info.min_seats + 1
    seats = game.info.min_seats + index % span
    seed = rng.below(2**32)
    rules = drawn_rules(game, rng)
    kind = ("reaction", "random")[index % 2]
    try:
        setup = game.make_setup(seats, seed, rules)
    except InvalidSetup as e:
        yield f"setup {game.name} {seats} {seed} {codec.canonical_text(rules)} refused: {e}"
        return
    yield f"game {game.name} seats {seats} seed {seed} bots {kind} rules {text(setup.rules)}"
    match = Match(game, setup)
    bots = seat_bots(kind, seats, seed)
    now, step = 0, 0
    copies: dict[str, list[Any]] = {}
    while match.outcome is None:
        for v in viewers(seats):
            yield f"view {v} {text(match.view(v))}"
        yield from answers(match, seats)
        if step % POSITION_EVERY == 0:
            yield from positions(game, match.state)
        moves = [(p[0], b.seat, p[1]) for b in bots if (p := ask(b, game, match.state))]
        if not moves:
            yield "stalled"
            break
        delay, seat, command = min(moves, key=lambda m: (m[0], m[1]))
        now += delay
        events = match.submit(seat, command, now)
        yield f"step {step} {seat} {text(command)} " + " ".join(text(e) for e in events)
        step += 1
        if step == 40:  # a viewer's copy mid-game, checked against the final log below
            assert match.writer is not None
            partial = list(match.writer.lines)
            copies = {str(v): log.redact_log(partial, v, game=game) for v in viewers(seats)}
    assert match.writer is not None
    lines = match.writer.lines
    yield f"outcome {match.outcome}"
    for line in log.dumps(lines).decode().splitlines():
        yield f"log {line}"
    (logs / f"{game.name}-{index}.jsonl").write_bytes(log.dumps(lines))
    for who, mine in copies.items():
        yield f"copy {who} " + log.dumps(mine).decode().replace("\n", " ")
        yield f"check copy {who} {_fields(log.check_copy(mine, lines, game=game))}"
        kept = [receipts_head(lines, who), *(ln for ln in mine[1:] if "events" in ln)]
        yield f"check receipts {who} {_fields(log.check_copy(kept, lines, game=game))}"
    yield f"verify {_fields(log.verify(lines, game=game))}"


def receipts_head(lines: list[Any], viewer: str) -> dict[str, Any]:
    """The first line of a receipts file a client keeps (docs/log-format.md)."""
    return {"type": "receipts", "game_id": lines[0]["game_id"], "viewer": viewer}


def _fields(report: Any) -> str:
    return repr(dataclasses.astuple(report))


def build() -> str:
    """The line naming the build loaded (the one line two builds' transcripts differ in)."""
    return f"build compiled={cardcore.compiled}"


def write(out: Path, games: int) -> int:
    (out / "logs").mkdir(parents=True, exist_ok=True)
    n = 0
    with (out / "transcript.txt").open("w", encoding="utf-8") as f:
        f.write(build() + "\n")
        for game in GAMES:
            for i in range(games):
                for line in playout(game, i, out / "logs"):
                    f.write(line + "\n")
                    n += 1
    return n


def verify(folder: Path) -> None:
    by_name = {g.name: g for g in GAMES}
    print(build())
    for path in sorted(folder.glob("*.jsonl")):
        game = by_name[path.name.rsplit("-", 1)[0]]
        print(path.name, _fields(log.verify(log.loads(path.read_bytes()), game=game)))


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m tests.builds.transcript")
    sub = ap.add_subparsers(dest="what", required=True)
    w = sub.add_parser("write")
    w.add_argument("out", type=Path)
    w.add_argument("--games", type=int, default=6)
    v = sub.add_parser("verify")
    v.add_argument("logs", type=Path)
    sub.add_parser("build")
    args = ap.parse_args(argv)
    if args.what == "write":
        print(write(args.out, args.games))
    elif args.what == "verify":
        verify(args.logs)
    else:
        print(build())


if __name__ == "__main__":
    main(sys.argv[1:])
