"""What a viewer may download, and holding it to the truth afterwards: :func:`redact_log` makes a
viewer's copy; once the game is over, :func:`check_copy` holds a copy, or the receipts a client
kept, against the final log (docs/log-format.md, "A copy against the final log")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .. import codec
from ..engine import Game, Outcome, Role, Viewer, union_of
from ..errors import CardcoreError, CorruptLog, InvalidSeat
from .format import COPY_KEY, RECEIPTS_TYPE, LogLine, json_eq
from .header import checked_header, game_of, setup_of, start_of
from .verify_log import verify
from .viewers import check_chain, copy_of, receipts, viewer_of, viewer_text, whose


def redact_log(
    lines: Sequence[LogLine],
    viewer: Viewer,
    *,
    game: Game[Any, Any, Any, Any, Any] | None = None,
) -> list[LogLine]:
    """The log as ``viewer`` may download it. Before the end: a *copy* — every event redacted
    for the viewer (hashes kept), no seed, no salt, and the header marked with
    ``"copy": {"viewer": "0"}`` (``"spectator"``; the referee's is the log itself, unmarked).
    After the end: the seed is public, so the whole log.

    A game started from a position has the viewer's notation of it in the copy's header (the
    referee's names hidden cards), so that header's hash no longer checks (:func:`verify` says
    so)."""
    if lines and lines[-1].get("type") == "end":
        return [dict(line) for line in lines]
    header = checked_header(lines)
    game = game_of(header, game)
    text = viewer_text(viewer)
    setup = header.get("setup")
    seats = setup.get("seats") if isinstance(setup, dict) else None
    if text.isdigit() and isinstance(seats, int) and int(text) >= seats:
        raise InvalidSeat(f"no seat {text} in a {seats}-seat game")
    mark = header.get(COPY_KEY)
    if mark is not None:  # a copy already: it is its viewer's, and no one else's
        if json_eq(mark, {"viewer": text}):
            return [dict(line) for line in lines]
        raise ValueError(f"this is {whose(copy_of(lines))} copy: it cannot be {whose(text)}")
    out: list[LogLine] = [dict(header)]
    if text != Role.REFEREE.value:
        out[0][COPY_KEY] = {"viewer": text}
    if "position" in header and game.format_position is not None:
        # The referee's notation names hidden cards: the viewer gets its own (hidden cards as
        # ``??``). The header's hash then no longer matches: such a copy is for display.
        start = start_of(game, header, setup_of(game, header, 0))
        out[0]["position"] = game.format_position(start, viewer)
    for line in lines[1:]:
        red = dict(line)
        red["events"] = [
            codec.encode(game.redact(game.decode_event(e), viewer)) for e in line.get("events", [])
        ]
        out.append(red)
    return out


# --------------------------------------------------------------------------- copies and the truth


@dataclass(frozen=True, slots=True)
class CopyReport:
    """What :func:`check_copy` established: every entry of a viewer's copy or receipts is in the
    final log, unchanged, and the final log is valid."""

    game: str
    viewer: str
    """Whose entries they are: ``"0"``, …, ``"spectator"`` (``"referee"``: a log)."""
    source: str
    """``"copy"`` (a downloaded copy), ``"receipts"`` (a receipts file) or ``"log"``."""
    entries: int
    """How many entries of ``mine`` were found unchanged (duplicates counted once)."""
    first_seq: int | None
    last_seq: int | None
    final_entries: int
    outcome: Outcome | None


@dataclass(frozen=True, slots=True)
class _Mine:
    source: str
    viewer: Viewer
    header: LogLine | None
    game_id: Any
    entries: list[LogLine]
    end: LogLine | None = None
    """The end line a receipts file kept (what the stream ended with), if any."""


def check_copy(
    mine: Sequence[LogLine],
    final: Sequence[LogLine],
    *,
    viewer: Viewer | None = None,
    game: Game[Any, Any, Any, Any, Any] | None = None,
) -> CopyReport:
    """Hold what a viewer was shown against the final log.

    ``mine``: a viewer's copy (:func:`redact_log` before the end: a header with ``copy``), or a
    receipts file — a first line ``{"type": "receipts", "game_id": ..., "viewer": "0"}``, then
    the entries as the service sent them (``seq``, ``at_ms``, ``seat``, ``action``, ``events``
    as the viewer was shown them, ``prev``, ``hash``), in any order, repeats allowed. A copy
    that does not say whose it is (downloaded before copies were marked) needs ``viewer``; a
    log (a referee's) is compared as the referee's.

    ``final``: the complete log (with its end line: seed and salt revealed), which must verify.

    Checked: ``mine`` is one chain by itself (each entry's ``prev`` is the hash of the entry
    before it, where mine has both); mine's header, ``copy`` aside, is the final header as its
    viewer is shown it; and for every entry of mine the final log has that ``seq`` with the same
    ``at_ms``, ``seat``, ``action``, ``hash`` and ``prev``, and events that, redacted for the
    viewer, are exactly the ones mine shows. Then ``verify(final)``. The first difference raises
    :class:`CorruptLog` naming the entry's ``seq`` (None: a header) and what differs; ``final``
    without its end line, or ``viewer`` not the copy's, raise ``ValueError``."""
    if not final or not isinstance(final[-1], dict) or final[-1].get("type") != "end":
        raise ValueError(
            "the final log has no end line: the game is not over (or this is not its full "
            "log), so nothing can be held against it yet"
        )
    try:
        fheader = checked_header(final)
        game = game_of(fheader, game)
        seats = setup_of(game, fheader, 0).seats
    except CorruptLog as exc:
        raise CorruptLog(exc.seq, f"the final log is invalid: {exc.reason}") from None
    own = _mine_of(mine, game, seats, viewer)
    if own.header is not None:
        _same_header(own.header, final, own.viewer, game)
    elif own.game_id is not None and own.game_id != fheader.get("game_id"):
        raise CorruptLog(
            None,
            f"your receipts are of game {own.game_id!r}, "
            f"the final log of {fheader.get('game_id')!r}",
        )
    for entry in own.entries:
        _same_entry(entry, final[1:-1], own.viewer, game)
    # the end line last: a line changed anywhere changes every hash after it, so the first entry
    # that differs from yours is where the final log was altered, not its end
    if own.end is not None and not json_eq(own.end, final[-1]):
        keys = sorted(
            k
            for k in set(own.end) | set(final[-1])
            if not json_eq(own.end.get(k), final[-1].get(k))
        )
        raise CorruptLog(
            final[-1].get("seq"),
            "the final log's end line is not the one the stream sent you "
            f"({', '.join(map(str, keys))[:80]} differ)",
        )
    try:
        report = verify(final, game=game)
    except CorruptLog as exc:
        raise CorruptLog(exc.seq, f"the final log is invalid: {exc.reason}") from None
    seqs = [e["seq"] for e in own.entries]
    return CopyReport(
        game.name,
        viewer_text(own.viewer),
        own.source,
        len(seqs),
        seqs[0] if seqs else None,
        seqs[-1] if seqs else None,
        report.entries,
        report.outcome,
    )


def _same_header(
    mine: LogLine,
    final: Sequence[LogLine],
    viewer: Viewer,
    game: Game[Any, Any, Any, Any, Any],
) -> None:
    """The viewer's header, ``copy`` aside, is the final header as that viewer is shown it."""
    try:
        shown = redact_log(final[:1], viewer, game=game)[0]
    except (CardcoreError, ValueError) as exc:
        raise CorruptLog(None, f"the final log's header: {exc}") from None
    mine_h = {k: v for k, v in mine.items() if k != COPY_KEY}
    final_h = {k: v for k, v in shown.items() if k != COPY_KEY}
    if not json_eq(mine_h, final_h):
        keys = sorted(
            k
            for k in set(mine_h) | set(final_h)
            if k not in mine_h or k not in final_h or not json_eq(mine_h[k], final_h[k])
        )
        raise CorruptLog(
            None, f"your header differs from the final log's ({', '.join(map(str, keys))})"
        )


def _same_entry(
    entry: LogLine,
    fbody: Sequence[LogLine],
    viewer: Viewer,
    game: Game[Any, Any, Any, Any, Any],
) -> None:
    """The final log (its entries ``fbody``) has the viewer's ``entry`` as the viewer was
    shown it."""
    seq: int = entry["seq"]
    if seq >= len(fbody):
        raise CorruptLog(seq, f"the final log has no such entry (its last is seq {len(fbody) - 1})")
    f = fbody[seq]
    if not isinstance(f, dict) or f.get("type") != "entry" or not json_eq(f.get("seq"), seq):
        found = f.get("seq") if isinstance(f, dict) else None
        raise CorruptLog(seq, f"the final log has seq {found!r} in this entry's place")
    decode_event = codec.decoder(union_of(game.event_types))
    try:
        expected = [
            codec.encode(game.redact(decode_event(e, "events"), viewer))
            for e in f.get("events") or ()
        ]
    except Exception as exc:  # the final log's own events: verify(final) would refuse them
        raise CorruptLog(
            seq, f"the final log is invalid: its events do not decode ({exc})"
        ) from None
    if not isinstance(f.get("events"), list):
        expected = []
    differs = _differences(f, entry, expected)
    if differs:
        raise CorruptLog(
            seq, f"the final log's entry is not the one you were shown: {'; '.join(differs)}"
        )


def _differences(final: LogLine, mine: LogLine, shown: list[Any]) -> list[str]:
    """What differs between the final log's entry and the one a viewer holds, in words, values
    quoted where the viewer saw them (bounded); ``shown``: the final entry's events as that
    viewer would have been shown them."""
    out = [
        f"{key} {_short(final.get(key))} (yours {_short(mine.get(key))})"
        for key in ("seat", "action", "at_ms")
        if not json_eq(final.get(key), mine.get(key))
    ]
    if not json_eq(shown, mine.get("events")):
        out.append("other events than the ones you were shown")
    if not json_eq(final.get("hash"), mine.get("hash")):
        out.append(
            "another hash than you were sent (so not the entry you received, hidden cards too)"
        )
    if not json_eq(final.get("prev"), mine.get("prev")):
        out.append("another link (prev) to the entry before")
    return out


def _short(value: Any) -> str:
    try:
        text = codec.canonical_text(value)
    except (TypeError, ValueError):
        text = "?"
    return text if len(text) <= 48 else text[:45] + "..."


def _mine_of(
    mine: Sequence[LogLine],
    game: Game[Any, Any, Any, Any, Any],
    seats: int,
    viewer: Viewer | None,
) -> _Mine:
    """``mine`` of :func:`check_copy`: what it is, whose, and its entries in ``seq`` order,
    checked to be one consistent chain by themselves."""
    if not mine or not isinstance(mine[0], dict):
        raise CorruptLog(None, "your copy is empty")
    first = mine[0]
    asked = None if viewer is None else viewer_text(viewer)
    if first.get("type") == RECEIPTS_TYPE:
        return _receipts_of(mine, seats, asked)
    if first.get("type") != "header":
        raise CorruptLog(None, "your copy starts with neither a header nor a receipts line")
    whose_copy = copy_of(mine)
    if whose_copy:  # a marked copy: it must verify as one
        try:
            verify(mine, game=game)
        except CorruptLog as exc:
            raise CorruptLog(exc.seq, f"your copy is not consistent: {exc.reason}") from None
        named = viewer_of(whose_copy, seats)
        assert named is not None  # verify checked it
        if asked is not None and asked != whose_copy:
            raise ValueError(f"this is {whose(whose_copy)} copy; it cannot be {whose(asked)}")
        source = "copy"
    elif whose_copy == "":  # redacted, but unmarked: whose, the caller says
        if viewer is None:
            raise ValueError("this copy does not say whose it is: name its viewer (--as)")
        named = viewer
        source = "copy"
    else:  # a log: the referee's own, in progress or complete
        named = Role.REFEREE if viewer is None else viewer
        source = "log"
    return _Mine(source, named, first, first.get("game_id"), _entries_of_copy(mine))


def _receipts_of(mine: Sequence[LogLine], seats: int, asked: str | None) -> _Mine:
    """A receipts file as :func:`_mine_of` gives it; ``asked``: whose the caller says."""
    first = mine[0]
    named = viewer_of(first.get("viewer"), seats)
    if named is None:
        raise CorruptLog(
            None, f"your receipts name no viewer of this game ({first.get('viewer')!r:.40})"
        )
    if asked is not None and asked != viewer_text(named):
        raise ValueError(
            f"these are {whose(viewer_text(named))} receipts; they cannot be {whose(asked)}"
        )
    # A client keeps the game's header and the end line with its receipts (the header is
    # checked against the final one like a copy's; the end line is the final log's own).
    kept = [ln for ln in mine[1:] if isinstance(ln, dict) and ln.get("type") == "header"]
    body = [
        ln for ln in mine[1:] if not (isinstance(ln, dict) and ln.get("type") in ("header", "end"))
    ]
    entries = receipts(body)
    check_chain(entries, "your receipts")
    header = kept[0] if len(kept) == 1 else None
    ends = [ln for ln in mine[1:] if isinstance(ln, dict) and ln.get("type") == "end"]
    end = ends[0] if len(ends) == 1 else None
    return _Mine("receipts", named, header, first.get("game_id"), entries, end)


def _entries_of_copy(mine: Sequence[LogLine]) -> list[LogLine]:
    """The entries of a copy (or a log), checked to follow its header as one chain."""
    body = [line for line in mine[1:] if not (isinstance(line, dict) and line.get("type") == "end")]
    for line in body:
        if not isinstance(line, dict) or line.get("type") != "entry":
            found = line.get("type") if isinstance(line, dict) else line
            raise CorruptLog(None, f"your copy has a {found!r:.40} line among its entries")
    entries = receipts(body)
    for i, entry in enumerate(entries):
        if entry["seq"] != i:
            raise CorruptLog(i, "your copy is not consistent: entry missing or out of order")
    if entries and not json_eq(entries[0].get("prev"), mine[0].get("hash")):
        raise CorruptLog(0, "your copy is not consistent: prev is not the header's hash")
    check_chain(entries, "your copy")
    return entries
