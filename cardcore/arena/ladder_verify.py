"""``cardcore ladder verify DIR``: the whole results table again, from the signed logs alone.

What it checks, in this order, stopping at the first thing wrong (:class:`LadderRefused` names
it):

1. ``manifest.json`` is signed by the ladder's key (``DIR/ladder.pub``, or the key given, which
   is what a reader who got the key from elsewhere should pass);
2. its schedule is the one its configuration calls for: round by round the same pairings and
   byes (a Swiss round's from the ratings recomputed so far), the same games in the same order;
3. each game's log (``DIR/games/<id>.log``) verifies with :func:`cardcore.log.verify` against
   that key: the hash chain, every action re-decided by the rules, the header's and the end
   line's signatures; its signed header names this game (the id names the bots per seat), its
   end line reveals this deal's seed (so duplicate deals really were the same deal), and its
   SHA-256 is the one the manifest signed (a log from another run with the same key is refused);
4. the ratings, recomputed from the logs' outcomes in the schedule's order, give
   ``results.json`` byte for byte (floats included: the same operations in the same order), and
   ``results.md`` is that table's.

The referee's faults are in the signed manifest: their signature is checked, but what a bot did
in another process is not in any log, so they cannot be recomputed (they change no rating: a
fault's effect on the game, a pass or a forfeit, is in the log). ``ratings.png`` is not compared
(matplotlib's pixels are not a contract).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import log
from ..errors import CorruptLog
from ..signatures import b64
from .ladder_files import (
    MANIFEST_FILE,
    RESULTS_FILE,
    TABLE_FILE,
    checked_manifest,
    log_path,
    read_public_key,
    sha256_hex,
)
from .ratings import Ratings, markdown, results_bytes
from .schedule import Fixture, LadderConfig, Planner


class LadderRefused(Exception):
    """The first thing in a ladder's directory that does not hold, in words."""


@dataclass(frozen=True, slots=True)
class LadderCheck:
    """What :func:`verify_ladder` established."""

    games: int
    logs: int
    signatures: int
    faults: int
    key: str

    def text(self) -> str:
        return (
            f"{self.games} games, {self.logs} logs verified with key {self.key} "
            f"({self.signatures} log signatures and the manifest's), schedule recomputed, "
            f"ratings identical: results.json and results.md reproduced byte for byte "
            f"({self.faults} referee faults listed, signed, not recomputable)"
        )


def verify_ladder(root: Path, key_text: str | None = None) -> LadderCheck:
    """Check the ladder in ``root`` (the module docstring's steps); raises
    :class:`LadderRefused` naming the first failure."""
    try:
        key = read_public_key(root, key_text)
        body = checked_manifest((root / MANIFEST_FILE).read_bytes(), key)
        config = LadderConfig.from_json(body.get("ladder"), "manifest.json: ladder")
    except OSError as exc:  # "DIR/ladder.pub: No such file or directory"
        raise LadderRefused(
            f"{exc.filename}: {exc.strerror}" if exc.filename else str(exc)
        ) from None
    except ValueError as exc:
        raise LadderRefused(str(exc)) from None
    listed, rounds = body.get("games"), body.get("rounds")
    if not isinstance(listed, list) or not isinstance(rounds, list):
        raise LadderRefused("manifest.json: games and rounds must be lists")
    ratings = Ratings(config)
    planner = Planner(config)
    signatures = faults = 0
    for round_ in range(1, config.rounds + 1):
        pairings, bye, fixtures = planner.round(round_, ratings.ordinals())
        _same_round(rounds, round_, pairings, bye)
        for f in fixtures:
            entry = _entry(listed, f)
            signatures += _check_log(root, key, f, entry, ratings)
            faults += len(entry.get("faults") or [])
        ratings.end_round(round_, pairings, bye)
    if len(listed) != planner.next_index or len(rounds) != config.rounds:
        raise LadderRefused(
            f"manifest.json lists {len(listed)} games in {len(rounds)} rounds; the schedule "
            f"has {planner.next_index} in {config.rounds}"
        )
    _same_results(root, ratings.results())
    return LadderCheck(planner.next_index, planner.next_index, signatures, faults, b64(key))


def _same_round(rounds: list[Any], round_: int, pairings: list[tuple[str, str]], bye: Any) -> None:
    got = rounds[round_ - 1] if round_ <= len(rounds) else None
    want = {"round": round_, "pairings": [list(p) for p in pairings], "bye": bye}
    if got != want:
        raise LadderRefused(
            f"manifest.json: round {round_} is {json.dumps(got)}, the schedule says "
            f"{json.dumps(want)}"
        )


def _entry(listed: list[Any], f: Fixture) -> dict[str, Any]:
    """The manifest's line for ``f``, which must say what the schedule says."""
    entry = listed[f.index] if f.index < len(listed) else None
    if not isinstance(entry, dict):
        raise LadderRefused(f"manifest.json: games[{f.index}] is missing (the schedule's {f.id})")
    want = {"id": f.id, "round": f.round, "game": f.game, "deal": f.deal, "seats": list(f.seats)}
    for field, value in want.items():
        if entry.get(field) != value:
            raise LadderRefused(
                f"manifest.json: games[{f.index}].{field} is {entry.get(field)!r}, the "
                f"schedule's is {value!r}"
            )
    return entry


def _check_log(root: Path, key: bytes, f: Fixture, entry: dict[str, Any], ratings: Ratings) -> int:
    """Verify game ``f``'s log and rate its outcome; the number of signatures checked."""
    path = log_path(root, f.id)
    name = f"games/{path.name}"
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LadderRefused(f"{name}: {exc.strerror}") from None
    try:
        lines = log.loads(data)
        report = log.verify(lines, server_key=key)
    except CorruptLog as exc:
        raise LadderRefused(f"{name} (game {f.id}): invalid log: {exc}") from None
    header, end = lines[0], lines[-1]
    if header.get("game_id") != f.id:
        raise LadderRefused(
            f"{name}: its signed header is game {header.get('game_id')!r}, not {f.id!r} (a log "
            "put in another game's place)"
        )
    if header.get("game") != f.game or not report.revealed or end.get("seed") != f.deal_seed:
        raise LadderRefused(f"{name}: not the schedule's deal {f.deal} of {f.game} (game {f.id})")
    if sha256_hex(data) != entry.get("log_sha256"):
        raise LadderRefused(
            f"{name}: not the log the manifest signed for game {f.id} (its SHA-256 differs): "
            "a valid log, but of another run"
        )
    ratings.add(f, report.outcome)
    return report.signatures_checked


def _same_results(root: Path, results: dict[str, Any]) -> None:
    want = results_bytes(results)
    try:
        got = (root / RESULTS_FILE).read_bytes()
    except OSError as exc:
        raise LadderRefused(f"{RESULTS_FILE}: {exc.strerror}") from None
    if got != want:
        try:
            where = first_difference(json.loads(got), results)
        except ValueError:
            where = "the file is not JSON"
        raise LadderRefused(
            f"{RESULTS_FILE} differs from the table recomputed from the logs: {where}"
        )
    try:
        table = (root / TABLE_FILE).read_text()
    except OSError as exc:
        raise LadderRefused(f"{TABLE_FILE}: {exc.strerror}") from None
    if table != markdown(results):
        raise LadderRefused(f"{TABLE_FILE} is not the table of results.json")


def first_difference(got: Any, want: Any, path: str = "") -> str:
    """Where two JSON values first differ, in words: ``table[0].ordinal is 19.1 in the file,
    19.37 recomputed``."""
    here = path or "the whole file"
    if isinstance(got, dict) and isinstance(want, dict):
        for k in sorted(set(got) | set(want)):
            sub = f"{path}.{k}" if path else str(k)
            if k not in got or k not in want:
                return f"{sub} is only in the {'file' if k in got else 'recomputed table'}"
            if not _same(got[k], want[k]):
                return first_difference(got[k], want[k], sub)
    elif isinstance(got, list) and isinstance(want, list) and len(got) == len(want):
        for i, (a, b) in enumerate(zip(got, want, strict=True)):
            if not _same(a, b):
                return first_difference(a, b, f"{path}[{i}]")
    if _same(got, want):
        return f"{here}: only in its spelling (whitespace, key order or number format)"
    return f"{here} is {json.dumps(got)} in the file, {json.dumps(want)} recomputed"


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON, ``1`` and ``1.0`` (or ``true``) told apart."""
    return bool(a == b) and json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
