"""Verifying a log: :func:`verify`, which picks the policy of the one chain walk
(:mod:`cardcore.log.chain`) for what it is given — a log (here), a viewer's copy, a copy with
the end line that settles it, or receipts (:mod:`cardcore.log.verify_copy`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from .. import codec, rng, signatures
from ..engine import Game, Setup
from ..errors import CorruptLog, DecodeError, Rejected
from .chain import (
    BROKEN,
    RaceCheck,
    Report,
    check_outcome,
    count,
    in_place,
    listed_events,
    ordered_time,
    walk,
)
from .format import (
    COPY_KEY,
    DEAL_ACTION,
    RECEIPTS_TYPE,
    LogLine,
    abort_by,
    header_hash,
    keyed_hash,
    plain_hash,
)
from .header import (
    checked_header,
    committed_seats,
    deal_seed,
    game_of,
    revealed,
    setup_of,
    start_of,
)
from .redecide import Redecider
from .verify_copy import settle, verify_copy
from .viewers import as_copy, copy_of


def verify(
    lines: Sequence[LogLine],
    *,
    game: Game[Any, Any, Any, Any, Any] | None = None,
    server_key: bytes | None = None,
) -> Report:
    """Check a whole log: header, commitment, hash chain, sequence, and that every action, re-
    decided by the rules from the revealed seed, gives exactly the logged events.

    Raises :class:`CorruptLog` naming the first bad entry's ``seq`` — for any input whatever:
    nothing else escapes. A log without its ``end`` line (a game in progress) is checked for
    sequence and links, and every action that does not shuffle is re-decided (a shuffle cannot
    be re-drawn without the seed: those are counted in ``unchecked``); hashes and the deal are
    not checked, and the report says ``revealed=False``.

    A viewer's copy (:func:`redact_log` before the end; :func:`copy_of`) is checked as far as it
    can be: the header (its hash, format, game, rules version and setup), ``seq`` continuity,
    the ``prev`` links, ``at_ms`` order, seats, that every action is a command of the game (or
    the deal, or the host's abort) and every event an event of the game, shown as its viewer may
    see it. It cannot be re-decided (the hidden cards are not in it) nor its keyed hashes
    checked (the salt is secret): the report (``copy`` set, ``revealed=False``) counts them in
    ``not_checked``. After the end, :func:`check_copy` holds a copy against the full log.

    ``game`` (also for :func:`replay` and :func:`redact_log`): a game that is not in the
    registry, e.g. one of your own; otherwise the header's game is looked up by name.

    ``server_key`` (32 bytes): the key the server publishes; the header's and the end line's
    signatures must be by it (:func:`cardcore.signatures.check_line`) — the header's checked
    first, the end line's last, so that the first bad line is the one named. For a receipts file
    they are its kept header's and end line's.

    :func:`cardcore.verdicts.judge` turns this report into the dispute tool's verdict."""
    at: list[int | None] = [None]  # the seq being checked, for a fault that escapes the checks
    try:
        header = next((ln for ln in lines if ln.get("type") == "header"), None)
        if server_key is not None and header is not None:
            signatures.check_line(header, server_key, None)
        report = _verify(lines, game, at)
        report = dataclasses.replace(
            report,
            signed_by=signatures.signer_of([header or {}]),
            committed=tuple(sorted(committed_seats(header or {}))),
        )
        if server_key is not None:
            end = lines[-1] if lines[-1].get("type") == "end" else None
            if end is not None:
                signatures.check_line(end, server_key, end.get("seq"))
            report = dataclasses.replace(report, signatures_checked=1 + (end is not None))
        return report
    except CorruptLog:
        raise
    except Exception as exc:  # any input gets a verdict, never a crash
        raise CorruptLog(
            at[0], f"malformed: this line cannot be checked ({type(exc).__name__})"
        ) from None


def _verify(
    lines: Sequence[LogLine], game: Game[Any, Any, Any, Any, Any] | None, at: list[int | None]
) -> Report:
    """:func:`verify` of whatever ``lines`` are, every fault a :class:`CorruptLog`."""
    if lines and isinstance(lines[0], dict) and lines[0].get("type") == RECEIPTS_TYPE:
        lines = as_copy(lines)  # receipts kept with their header: checked as that copy
    header = checked_header(lines)
    game = game_of(header, game)
    end = lines[-1] if lines[-1].get("type") == "end" else None
    if COPY_KEY in header:
        if end is not None:  # the copy and the end the viewer was sent: it settles the game
            return settle(lines, header, game, at)
        return verify_copy(lines, header, game, at, marked=True)
    if end is None and copy_of(lines) is not None:
        return verify_copy(lines, header, game, at, marked=False)
    if header.get("hash") != header_hash(header):
        raise CorruptLog(None, "header hash mismatch: the header was altered")
    body = lines[1:-1] if end is not None else lines[1:]
    salt: bytes | None = None
    seed = 0
    if end is not None:
        end_seq = end.get("seq")
        at[0] = end_seq if isinstance(end_seq, int) else None
        raw_seed, salt = revealed(header, end)
        seed = deal_seed(header, raw_seed)
        at[0] = None
    log = _Log(game, header, setup_of(game, header, seed), salt)
    prev = walk(body, header["hash"], log, at)
    return log.finish(end, prev, len(body), at)


class _Log:
    """The policy for a log (the referee's, complete or in progress): every action re-decided
    by the rules, and once the end line reveals the salt and seed, every hash and the deal."""

    def __init__(
        self,
        game: Game[Any, Any, Any, Any, Any],
        header: LogLine,
        setup: Setup[Any],
        salt: bytes | None,
    ) -> None:
        self.game = game
        self.header = header
        self.setup = setup
        self.salt = salt
        """The revealed salt; None while it is secret (no hash, no deal can be checked)."""
        self.table: Redecider | None = None
        self.last_at_ms = 0
        self.unchecked = 0
        self.races = RaceCheck(setup)

    def place(self, expected: int, line: LogLine) -> Any:
        return in_place(expected, line)

    def stamp(self, seq: Any, line: LogLine) -> int:
        if self.salt is not None and line.get("hash") != keyed_hash(self.salt, line):
            raise CorruptLog(seq, "hash mismatch: the entry was altered")
        self.races.check(seq, line, self.last_at_ms)
        self.last_at_ms = ordered_time(seq, line, self.last_at_ms)
        listed_events(seq, line)
        return self.last_at_ms

    def deal(self, line: LogLine, at_ms: int) -> None:
        game, header, setup, logged = self.game, self.header, self.setup, line["events"]
        if line.get("seat") is not None or line.get("action") != DEAL_ACTION:
            raise CorruptLog(0, "entry 0 must be the deal")
        if "position" in header:
            if logged:
                raise CorruptLog(0, "a game started from a position deals no cards")
            self.table = Redecider(game, setup, start_of(game, header, setup), (), at_ms)
        elif self.salt is not None:
            dealt = game.deal(setup)
            if [codec.encode(e) for e in dealt] != logged:
                raise CorruptLog(0, "the deal differs from the one the revealed seed gives")
            self.table = Redecider(game, setup, game.initial_state(setup), dealt, at_ms)
        else:
            unrevealed = Setup(setup.seats, rng.UNREVEALED, setup.rules, setup.event_limit)
            try:
                self.table = Redecider.from_logged_deal(game, unrevealed, logged, at_ms)
            except Exception as exc:  # a tampered deal: it does not decode or apply
                raise CorruptLog(0, f"the deal does not replay: {exc}") from None

    def abort(self, seq: Any, line: LogLine, at_ms: int) -> None:
        assert self.table is not None  # entry 0 made it
        by = abort_by(line)
        if by is None or line["events"]:
            raise CorruptLog(seq, "an entry without a seat must be the host's abort")
        try:
            self.table.abort(at_ms, by)
        except Rejected as refused:
            raise CorruptLog(seq, f"the game cannot be aborted here: {refused}") from None
        except ValueError as invalid:
            raise CorruptLog(seq, str(invalid)) from None

    def action(self, seq: Any, line: LogLine, seat: Any, at_ms: int) -> None:
        assert self.table is not None  # entry 0 made it
        game, logged = self.game, line["events"]
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.setup.seats:
            raise CorruptLog(seq, f"seat {seat!r} is not a seat of this game")
        try:
            command = game.decode_command(line.get("action"), "action")
        except DecodeError as undecodable:
            raise CorruptLog(seq, f"action does not decode: {undecodable}") from None
        try:
            events = self.table.check(seat, command)
        except Rejected as refused:
            raise CorruptLog(seq, f"the rules reject this action: {refused}") from None
        except rng.SeedUnrevealed:
            # Before the reveal an action that shuffles cannot be re-decided: the logged events
            # are taken as they are (they must still decode and apply), and counted.
            try:
                events = [game.decode_event(e, "events") for e in logged or ()]
            except DecodeError as undecodable:
                raise CorruptLog(seq, f"event does not decode: {undecodable}") from None
            self.unchecked += 1
        except Exception as broken:  # the rules meet a state the logged events made impossible
            raise CorruptLog(
                seq, f"the rules cannot decide this action here ({type(broken).__name__})"
            ) from None
        else:
            if [codec.encode(e) for e in events] != logged:
                raise CorruptLog(
                    seq, "logged events differ from what the rules give for this action"
                )
        try:
            self.table.apply(events, at_ms)
        except Exception as broken:  # logged events taken on trust (seed secret) that don't apply
            what = type(broken).__name__
            raise CorruptLog(seq, f"the logged events do not apply: {what}") from None

    def finish(self, end: LogLine | None, prev: Any, n: int, at: list[int | None]) -> Report:
        """After the walk of ``n`` entries: the end line (``prev`` the last entry's hash), or a
        game still in progress."""
        table = self.table
        if end is not None:
            end_seq = end.get("seq")
            at[0] = end_seq if isinstance(end_seq, int) else n
            if end_seq != n:
                raise CorruptLog(n, f"end line has seq {end_seq!r}, expected {n}")
            if end.get("prev") != prev:
                raise CorruptLog(end_seq, BROKEN)
            if end.get("hash") != plain_hash(end):
                raise CorruptLog(end_seq, "hash mismatch: the end line was altered")
            check_outcome(end, table.outcome if table is not None else None)
        elif table is not None and table.outcome is not None:
            raise CorruptLog(n, "the game is over but the log has no end line")
        if table is None:
            raise CorruptLog(0, "the log has no deal entry")
        if end is not None:
            return Report(
                self.game.name,
                n,
                True,
                table.outcome,
                self.unchecked,
                race_policy=str(self.races.policy),
            )
        return Report(
            self.game.name,
            n,
            False,
            None,
            self.unchecked,
            checked=(
                "header",
                "seq",
                "prev links",
                "at_ms order",
                *(("credits",) if self.races.policy.compensated else ()),
                count(n - 1 - self.unchecked, "decision"),
            ),
            not_checked=(
                *(() if "position" in self.header else ("the deal (seed secret)",)),
                count(n, "entry hash", "entry hashes") + " (salt secret)",
                count(self.unchecked, "shuffling decision") + " (seed secret)",
            ),
        )
