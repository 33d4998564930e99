"""Viewers' copies and receipts: whose a copy is, how it names its viewer, and a receipts file
read as the copy it stands for (docs/log-format.md, "Viewers' copies").

A *copy* is a log as its viewer may download it before the end (:func:`~cardcore.log.redact_log`:
hidden cards ``??``, hashes kept, the header marked ``copy``); *receipts* are the entries a client
kept as it was sent them, after a first line ``{"type": "receipts", "game_id", "viewer"}``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any, Final

from ..engine import Role, Viewer
from ..errors import CorruptLog, InvalidSeat
from .format import COPY_KEY, ENTRY_FIELDS, LogLine, json_eq

POSITION_HIDDEN: Final = "header not checked: the start position is hidden from this viewer"
"""What :func:`verify` notes for a copy of a game started from a position: the copy's header has
the viewer's notation of it (hidden cards ``??``), so the header's hash cannot be checked."""
HIDDEN_JSON: Final = "??"
"""A card hidden from the viewer (``cards.HIDDEN``), as a redacted event writes it."""


def viewer_text(viewer: Viewer) -> str:
    """A viewer as a copy names it: ``"0"``, ``"1"``, …, ``"spectator"`` or ``"referee"``.
    Raises :class:`InvalidSeat` for anything else (a bool, a negative number)."""
    if isinstance(viewer, str):
        return Role(viewer).value
    if type(viewer) is not int or viewer < 0:
        raise InvalidSeat(f"not a viewer: {viewer!r:.40}")
    return str(viewer)


def viewer_of(text: object, seats: int) -> Viewer | None:
    """The viewer a copy or a receipts file names, if it is a seat of the game or a role."""
    if not isinstance(text, str):
        return None
    if text in (Role.SPECTATOR.value, Role.REFEREE.value):
        return Role(text)
    if 0 < len(text) <= 3 and text.isascii() and text.isdigit() and text == str(int(text)):
        return int(text) if int(text) < seats else None
    return None


def whose(viewer: str | None) -> str:
    """``"seat 0's"``, ``"the spectator's"``: whose copy (``viewer`` as :attr:`Report.copy`)."""
    if viewer is None or viewer == Role.REFEREE.value:
        return "the referee's"
    if viewer == "":
        return "an unmarked viewer's"
    if viewer == Role.SPECTATOR.value:
        return "the spectator's"
    return f"seat {viewer}'s"


def copy_of(lines: Sequence[LogLine]) -> str | None:
    """Whose copy ``lines`` are: the header's ``copy.viewer`` (``"0"``, …, ``"spectator"``);
    ``""`` for a redacted log without the key (a log in progress with a hidden card ``"??"`` in
    an event: a copy downloaded before copies were marked); None for a log (the referee's,
    complete or in progress). It only looks: :func:`verify` checks the key."""
    if not lines or not isinstance(lines[0], dict) or lines[0].get("type") != "header":
        return None
    mark = lines[0].get(COPY_KEY)
    if mark is not None:
        viewer = mark.get("viewer") if isinstance(mark, dict) else None
        return viewer if isinstance(viewer, str) else ""
    if not isinstance(lines[-1], dict) or lines[-1].get("type") == "end":
        return None
    redacted = any(isinstance(line, dict) and shows_hidden(line.get("events")) for line in lines)
    return "" if redacted else None


def shows_hidden(value: Any) -> bool:
    """Whether a JSON value holds a hidden card, ``"??"``, anywhere."""
    stack = [value]
    while stack:
        v = stack.pop()
        if type(v) is str:
            if v == HIDDEN_JSON:
                return True
        elif type(v) is list:
            stack.extend(v)
        elif type(v) is dict:
            stack.extend(v.values())
    return False


# --------------------------------------------------------------------------- receipts


def as_copy(lines: Sequence[LogLine]) -> list[LogLine]:
    """A receipts file that holds its game's header (what a client writes once the game is
    dealt) as the viewer's copy: the header marked with the receipts' viewer, the entries in
    ``seq`` order (a repeat kept once), the end line last when it was received."""
    head = lines[0]
    headers = [ln for ln in lines[1:] if isinstance(ln, dict) and ln.get("type") == "header"]
    if len(headers) != 1:
        raise CorruptLog(None, "these receipts hold no header of their game (or several)")
    ends = [ln for ln in lines[1:] if isinstance(ln, dict) and ln.get("type") == "end"]
    if len(ends) > 1 or (ends and lines[-1] is not ends[0]):
        raise CorruptLog(None, "these receipts hold more than one end line, or one before entries")
    header = dict(headers[0])
    viewer = head.get("viewer")
    mark = header.get(COPY_KEY)
    if mark is not None and (not isinstance(mark, dict) or mark.get("viewer") != viewer):
        raise CorruptLog(None, f"the receipts are {whose(str(viewer))}, their header another's")
    header[COPY_KEY] = {"viewer": viewer}
    body = [
        ln for ln in lines[1:] if isinstance(ln, dict) and ln.get("type") not in ("header", "end")
    ]
    return [header, *receipts(body), *ends]


def receipts(lines: Sequence[LogLine]) -> list[LogLine]:
    """Entries in ``seq`` order, a repeat of an entry (the same JSON) kept once."""
    by_seq: dict[int, LogLine] = {}
    for n, line in enumerate(lines, start=2):
        if not isinstance(line, dict) or line.get("type", "entry") != "entry":
            raise CorruptLog(None, f"line {n} of your receipts is not an entry")
        seq = line.get("seq")
        if type(seq) is not int or seq < 0:
            raise CorruptLog(None, f"line {n} of your receipts has no seq")
        missing = [k for k in ENTRY_FIELDS if k not in line]
        if missing:
            raise CorruptLog(seq, f"your receipt of this entry has no {', '.join(missing)}")
        body = {k: v for k, v in line.items() if k != "type"}
        seen = by_seq.get(seq)
        if seen is None:
            by_seq[seq] = line
        elif not json_eq(body, {k: v for k, v in seen.items() if k != "type"}):
            raise CorruptLog(seq, "you were shown two different versions of this entry")
    return [by_seq[s] for s in sorted(by_seq)]


def check_chain(entries: Sequence[LogLine], what: str) -> None:
    """Where ``entries`` (in ``seq`` order) has two consecutive entries, the second's ``prev``
    must be the first's ``hash``."""
    for a, b in itertools.pairwise(entries):
        if b["seq"] == a["seq"] + 1 and not json_eq(b.get("prev"), a.get("hash")):
            raise CorruptLog(
                b["seq"], f"{what} is not one chain: prev is not entry {a['seq']}'s hash"
            )
