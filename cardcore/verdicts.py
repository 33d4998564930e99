"""The dispute tool's verdicts: what a log, a viewer's copy or a player's receipts prove.

One function, :func:`judge`, gives every verdict, and the ``cardcore verify`` command prints it;
the web page and the Node verifier run that same command under Pyodide, so a verdict reads the
same, word for word, wherever it is given. A verdict says what it checked and what it could not,
in its first words:

``valid``
    authenticated by the evidence given: the server's signatures (``--server-key``), or the
    receipts the player kept while playing (alone, or held against the final log);
``self-consistent``
    a complete log that is a possible game of its rules — and no more: once its end line reveals
    the seed and salt, anyone holding it can rewrite entries and recompute every hash, so only a
    signature or the player's receipts can show it is *the* game;
``consistent so far``
    a log in progress or a viewer's copy: what could be checked before the seed is revealed;
``INVALID at seq N`` / ``INVALID at header``
    the first line that differs from what the evidence shows — with receipts, the first entry
    that differs from what the player holds;
``unsupported``
    an input this check cannot judge (never called invalid for that).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from . import log, signatures
from .engine import Game, Outcome, Viewer
from .errors import CorruptLog

LogLines = Sequence[log.LogLine]


class Status(StrEnum):
    """What a verdict concludes; its value is the verdict's first words."""

    VALID = "valid"
    SELF_CONSISTENT = "self-consistent"
    CONSISTENT_SO_FAR = "consistent so far"
    INVALID = "INVALID"
    UNSUPPORTED = "unsupported"


EXIT_CODES: Final = {
    Status.VALID: 0,
    Status.SELF_CONSISTENT: 0,
    Status.CONSISTENT_SO_FAR: 3,
    Status.INVALID: 1,
    Status.UNSUPPORTED: 2,
}
"""``cardcore verify``'s exit code for each status: 0 — nothing wrong with what could be checked
(the words say how far that goes), 1 invalid, 2 unsupported input, 3 not over yet."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """A verdict: its status, the first bad ``seq`` (INVALID; None: the header), its text."""

    status: Status
    text: str
    seq: int | None = None

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.status]

    def __str__(self) -> str:
        return self.text

    def as_json(self) -> dict[str, Any]:
        """What ``cardcore verify --json`` prints."""
        where = None
        if self.status is Status.INVALID:
            where = "header" if self.seq is None else self.seq
        return {"status": self.status.value, "at": where, "exit": self.exit_code, "text": self.text}


class Unsupported(Exception):
    """An input :func:`judge` cannot judge as asked; the message says why and what would do."""


def judge(
    lines: LogLines,
    *,
    final: LogLines | None = None,
    viewer: Viewer | None = None,
    server_key: bytes | None = None,
    game: Game[Any, Any, Any, Any, Any] | None = None,
) -> Verdict:
    """The verdict on ``lines`` — a log, a viewer's copy or a receipts file — alone, or, with
    ``final``, as what a viewer holds against the server's final log. ``viewer`` names whose an
    unmarked copy is; ``server_key`` (32 bytes) the key whose signatures the log must carry.
    Never raises for any input."""
    try:
        if final is not None:
            return _against_final(lines, final, viewer, server_key, game)
        return _alone(lines, server_key, game)
    except CorruptLog as exc:
        where = "header" if exc.seq is None else f"seq {exc.seq}"
        return Verdict(Status.INVALID, f"INVALID at {where}: {exc.reason}", exc.seq)
    except Unsupported as exc:
        return Verdict(Status.UNSUPPORTED, f"unsupported: {exc}")


# --------------------------------------------------------------------------- one file


def _kind(lines: LogLines, what: str) -> str:
    """``"receipts"``, ``"copy"`` or ``"log"``; :class:`Unsupported` for anything else."""
    first = lines[0] if lines else None
    if first is None:
        raise Unsupported(f"{what} holds no lines")
    kind = first.get("type") if isinstance(first, dict) else None
    if kind == log.RECEIPTS_TYPE:
        return "receipts"
    if kind != "header":
        first_line = f"a {kind[:40]!r} line" if isinstance(kind, str) else 'a line with no "type"'
        raise Unsupported(
            f"{what} is not a cardcore log, copy or receipts file: its first line is "
            f"{first_line}, neither a header nor a receipts line"
        )
    return "log" if log.copy_of(lines) is None else "copy"


def _parts(lines: LogLines) -> tuple[log.LogLine | None, log.LogLine | None]:
    """The game's header and end line in a log, copy or receipts file (None where absent)."""
    headers = [ln for ln in lines if isinstance(ln, dict) and ln.get("type") == "header"]
    end = lines[-1] if lines and isinstance(lines[-1], dict) else None
    return (headers[0] if headers else None), (end if end and end.get("type") == "end" else None)


def _alone(lines: LogLines, key: bytes | None, game: Any) -> Verdict:
    kind = _kind(lines, "this file")
    if kind == "receipts" and _parts(lines)[0] is None:
        raise Unsupported(
            "these receipts hold no header of their game, so they cannot be rebuilt alone: "
            "hold them against the final log (--receipts MINE FINAL)"
        )
    report = log.verify(lines, game=game, server_key=key)
    signed = _signature_words(report, key)
    if not report.revealed:
        return Verdict(Status.CONSISTENT_SO_FAR, _so_far(report) + signed)
    ending = _ending(report.outcome)
    if report.copy is not None:
        text = (
            f"valid from {log.whose(report.copy)} own {kind}: {report.game}, {report.entries} "
            "entries rebuilt from the revealed seed and the actions; every hash held and every "
            f"event shown match the game the seed gives{_credits(report)}{_reveals(report)}"
            f"{ending}{signed}"
        )
        return Verdict(Status.VALID, text)
    rebuilt = f"{report.game}, {report.entries} entries; the seed matches its commitment, "
    rebuilt += f"every action re-decided by the rules{_credits(report)}{_reveals(report)}{ending}"
    if key is not None:
        return Verdict(Status.VALID, f"valid, signed by the server key: {rebuilt}{signed}")
    text = (
        f"self-consistent, not authenticated: {rebuilt}. Once the end reveals the seed and salt, "
        "anyone holding a log can rewrite it and recompute its hashes: this shows it is a "
        "possible game, not that it is the one played. Check who wrote it with --server-key "
        f"KEY, or what you were shown with --receipts MINE FINAL{signed}"
    )
    return Verdict(Status.SELF_CONSISTENT, text)


def _so_far(report: log.Report) -> str:
    if report.copy is not None:
        whose = log.whose(report.copy) if report.copy else "a redacted (unmarked)"
        text = (
            f"consistent so far: {report.game}, {whose} copy, {report.entries} entries; "
            f"not checked yet: {', '.join(report.not_checked)}"
        )
        return text + "".join(f"; {note}" for note in report.notes)
    return (
        f"consistent so far: {report.game}, {report.entries} entries; the seed is not yet "
        f"revealed, so the deal, the hashes and {report.unchecked} shuffling entries cannot be "
        "checked"
    )


def _signature_words(report: log.Report, key: bytes | None) -> str:
    """The signatures' part of a verdict."""
    if key is not None:
        lines = "header and end line" if report.signatures_checked == 2 else "header"
        return f"; {lines} signed by the server key"
    if report.signed_by:
        return f"; signed by {report.signed_by} (not checked: pass --server-key)"
    return "; unsigned"


def _reveals(report: log.Report) -> str:
    """What a verdict adds for seats that committed to their entropy before the start."""
    if not report.committed:
        return ""
    seats = ", ".join(str(s) for s in report.committed)
    if len(report.committed) == 1:
        return f"; seat {seats}'s entropy matches the commitment it made before the start"
    return f"; seats {seats}: each one's entropy matches the commitment it made before the start"


def _credits(report: log.Report) -> str:
    """What a verdict adds for a game whose races were credited (log format 3)."""
    if report.race_policy == "arrival":
        return ""
    return f" at its credited time (race policy {report.race_policy}: every credit checked)"


def _ending(outcome: Outcome | None) -> str:
    """``"; out of cards: seat 0 wins"`` (the outcome in words), or nothing."""
    return "" if outcome is None else f"; {outcome}"


# --------------------------------------------------------------------------- mine against final


def _against_final(
    mine: LogLines, final: LogLines, viewer: Viewer | None, key: bytes | None, game: Any
) -> Verdict:
    _kind(mine, "your copy")
    if _kind(final, "the final log") != "log" or _parts(final)[1] is None:
        raise Unsupported(
            "the final log must be the server's complete log, with its end line (the game "
            "over): a copy, receipts or a log in progress cannot be held against"
        )
    header, end = _parts(final)
    if key is not None and header is not None:
        signatures.check_line(header, key, None)
    try:
        report = log.check_copy(mine, final, viewer=viewer, game=game)
    except ValueError as exc:
        if isinstance(exc, CorruptLog):
            raise
        raise Unsupported(str(exc)) from None
    signed = ""
    if key is not None and end is not None:
        signatures.check_line(end, key, end.get("seq"))
        signed = "; header and end line signed by the server key"
    span = "" if report.first_seq is None else f" (seq {report.first_seq}–{report.last_seq})"
    text = (
        f"valid against your {report.source}: {log.whose(report.viewer)} {report.entries} "
        f"entries{span} are in the final log unchanged, and the final log is consistent "
        f"({report.game}, {report.final_entries} entries, the seed matches its commitment, "
        f"every action re-decided by the rules{_ending(report.outcome)}){signed}"
    )
    return Verdict(Status.VALID, text)
