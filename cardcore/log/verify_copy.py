"""Verifying a viewer's copy, the two policies of the chain walk (:mod:`cardcore.log.chain`) for
what a viewer holds: :func:`verify_copy` proves what a copy can show without the hidden cards and
the salt; :func:`settle` rebuilds the whole game from the seed the end line reveals and holds
every entry of the copy to it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from .. import codec
from ..engine import Game, Role, Setup, Viewer, check_abort_by, union_of
from ..errors import CorruptLog, DecodeError, InvalidSeat, Rejected
from .chain import (
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
    LogLine,
    abort_by,
    header_hash,
    is_digest,
    json_eq,
    keyed_hash,
    plain_hash,
)
from .header import deal_seed, revealed, seats_of, setup_of
from .redecide import Redecider
from .viewers import POSITION_HIDDEN, copy_of, shows_hidden, viewer_of, viewer_text, whose

_REJECTED: Final = "the rules reject this action on the game the seed gives: "


def verify_copy(
    lines: Sequence[LogLine],
    header: LogLine,
    game: Game[Any, Any, Any, Any, Any],
    at: list[int | None],
    *,
    marked: bool,
) -> Report:
    """:func:`verify` of a viewer's copy: everything it can prove without the hidden cards and
    the salt. ``marked``: its header says whose it is (else: a redacted log of old)."""
    notes: list[str] = []
    if header.get("hash") != header_hash(header):
        if "position" not in header:
            raise CorruptLog(None, "header hash mismatch: the header was altered")
        notes.append(POSITION_HIDDEN)
    setup = setup_of(game, header, 0)
    viewer: Viewer | None = None
    whose_copy = ""
    if marked:
        mark = header[COPY_KEY]
        text = mark.get("viewer") if isinstance(mark, dict) and set(mark) == {"viewer"} else None
        viewer = viewer_of(text, setup.seats)
        if viewer is None or viewer == Role.REFEREE:
            raise CorruptLog(
                None,
                'the header\'s "copy" must be {"viewer": V}, V a seat of this game or '
                f'"spectator" (found {codec.canonical_text(mark)[:60]})',
            )
        whose_copy = viewer_text(viewer)
    if not is_digest(header.get("hash")):
        raise CorruptLog(None, "the header's hash is not a sha256 digest")
    copy = _Copy(game, header, setup, viewer, whose_copy)
    walk(lines[1:], header.get("hash"), copy, at)
    n = len(lines) - 1
    if n == 0:
        raise CorruptLog(0, "the log has no deal entry")
    not_checked = [
        count(n, "decision") + " (hidden cards)",
        count(n, "entry hash", "entry hashes") + " (salt secret)",
    ]
    if copy.undecoded:
        not_checked.append(count(copy.undecoded, "event") + " (hidden values that do not decode)")
    return Report(
        game.name,
        n,
        False,
        None,
        n,
        copy=whose_copy,
        checked=(
            "header" if not notes else "setup",
            "seq",
            "prev links",
            "at_ms order",
            *(("credits",) if copy.races.policy.compensated else ()),
            "seats",
            "actions",
            "events",
        ),
        not_checked=tuple(not_checked),
        notes=tuple(notes),
    )


class _Copy:
    """The policy for a copy: each entry's form, and each event shown as its viewer may see it."""

    def __init__(
        self,
        game: Game[Any, Any, Any, Any, Any],
        header: LogLine,
        setup: Setup[Any],
        viewer: Viewer | None,
        whose_copy: str,
    ) -> None:
        self.game = game
        self.header = header
        self.seats = setup.seats
        self.viewer = viewer
        """The viewer the copy names (None: an unmarked copy, whose events are not held to a
        viewer's redaction)."""
        self.whose_copy = whose_copy
        self.kinds = {t.__name__ for t in game.event_types}
        self.decode_event = codec.decoder(union_of(game.event_types))
        self.last_at_ms = 0
        self.aborted: int | None = None
        self.undecoded = 0
        self.races = RaceCheck(setup)

    def place(self, expected: int, line: LogLine) -> Any:
        seq = in_place(expected, line, bool_is_seq=False)
        if self.aborted is not None:
            raise CorruptLog(seq, f"an entry after the host's abort at seq {self.aborted}")
        return seq

    def stamp(self, seq: Any, line: LogLine) -> int:
        if not is_digest(line.get("hash")):
            raise CorruptLog(seq, "the entry's hash is not a sha256 digest")
        self.races.check(seq, line, self.last_at_ms)
        self.last_at_ms = ordered_time(seq, line, self.last_at_ms)
        listed_events(seq, line)
        return self.last_at_ms

    def deal(self, line: LogLine, at_ms: int) -> None:
        if line.get("seat") is not None or not json_eq(line.get("action"), DEAL_ACTION):
            raise CorruptLog(0, "entry 0 must be the deal")
        if "position" in self.header and line["events"]:
            raise CorruptLog(0, "a game started from a position deals no cards")
        self._events(0, line["events"])

    def abort(self, seq: Any, line: LogLine, at_ms: int) -> None:
        by = abort_by(line)
        if by is None or line["events"]:
            raise CorruptLog(seq, "an entry without a seat must be the host's abort")
        try:
            check_abort_by(by)
        except ValueError as exc:
            raise CorruptLog(seq, str(exc)) from None
        self.aborted = seq

    def action(self, seq: Any, line: LogLine, seat: Any, at_ms: int) -> None:
        if type(seat) is not int or not 0 <= seat < self.seats:
            raise CorruptLog(seq, f"seat {seat!r} is not a seat of this game")
        try:
            self.game.decode_command(line.get("action"), "action")
        except DecodeError as exc:
            raise CorruptLog(seq, f"action does not decode: {exc}") from None
        self._events(seq, line["events"])

    def _events(self, seq: Any, events: list[Any]) -> None:
        """Each is an event of the game, as the copy's viewer may see it; a hidden value where
        the event's type has none cannot be decoded, so it is counted unchecked."""
        for i, raw in enumerate(events):
            kind = raw.get(codec.KIND) if isinstance(raw, dict) else None
            if not isinstance(kind, str) or kind not in self.kinds:
                raise CorruptLog(seq, f"events[{i}] is not an event of {self.game.name}")
            try:
                event = self.decode_event(raw, f"events[{i}]")
            except DecodeError as exc:
                if not shows_hidden(raw):  # nothing hidden in it: it is simply not an event
                    raise CorruptLog(seq, f"event does not decode: {exc}") from None
                self.undecoded += 1
                continue
            if self.viewer is None:
                continue
            try:
                shown = codec.encode(self.game.redact(event, self.viewer))
                same = json_eq(shown, codec.encode(event))
            except Exception:  # a redacted value the game cannot redact again: unchecked
                self.undecoded += 1
                continue
            if not same:
                raise CorruptLog(
                    seq,
                    f"events[{i}] shows a card hidden from {whose(self.whose_copy)[:-2]}: "
                    "this is not that viewer's copy",
                )


# --------------------------------------------------------------------------- settling a copy


def settle(
    lines: Sequence[LogLine],
    header: LogLine,
    game: Game[Any, Any, Any, Any, Any],
    at: list[int | None],
) -> Report:
    """A viewer's own copy with the end line it was sent (seed and salt revealed): rebuild the
    whole game from the seed and the copy's actions, and check every entry the copy holds —
    its keyed hash (the full entry's, hidden cards included) and the events as that viewer was
    shown them — and the end. The first entry where the copy and the game the seed gives differ
    is named. Needs every entry (a copy downloaded mid-game plus the stream after it)."""
    viewer = viewer_of(copy_of(lines), seats_of(header))
    if viewer is None:
        raise CorruptLog(None, "the copy names no viewer of this game")
    if header.get("hash") != header_hash(header) and "position" not in header:
        raise CorruptLog(None, "header hash mismatch: the header was altered")
    if "position" in header:
        raise CorruptLog(None, POSITION_HIDDEN + ": hold this copy against the final log")
    end = lines[-1]
    body = lines[1:-1]
    end_seq = end.get("seq")
    at[0] = end_seq if isinstance(end_seq, int) else None
    raw_seed, salt = revealed(header, end)
    if end.get("hash") != plain_hash(end):
        raise CorruptLog(end_seq, "hash mismatch: the end line was altered")
    setup = setup_of(game, header, deal_seed(header, raw_seed))
    settled = _Settle(game, setup, salt, viewer)
    prev = walk(body, header["hash"], settled, at)
    at[0] = end_seq if isinstance(end_seq, int) else None
    if settled.table is None:
        raise CorruptLog(0, "the copy has no deal entry")
    if end_seq != len(body) or end.get("prev") != prev:
        raise CorruptLog(end_seq, "the end line does not follow your copy's last entry")
    check_outcome(end, settled.table.outcome)
    return Report(
        game.name,
        len(body),
        True,
        settled.table.outcome,
        0,
        copy=viewer_text(viewer),
        checked=("header", "commitment", "every entry rebuilt from the seed", "hashes", "end"),
        race_policy=str(settled.races.policy),
    )


class _Settle:
    """The policy for a copy with its end line: every entry re-decided on the game the seed
    gives, then held to the copy's hash and to the events its viewer was shown."""

    def __init__(
        self,
        game: Game[Any, Any, Any, Any, Any],
        setup: Setup[Any],
        salt: bytes,
        viewer: Viewer,
    ) -> None:
        self.game = game
        self.setup = setup
        self.salt = salt
        self.viewer = viewer
        self.table: Redecider | None = None
        self.races = RaceCheck(setup)
        self.last_at_ms = 0

    def place(self, expected: int, line: LogLine) -> Any:
        if line.get("type", "entry") != "entry" or line.get("seq") != expected:
            raise CorruptLog(
                expected,
                "your copy lacks this entry: to settle the game from your copy it must hold "
                "every entry (else hold it against the final log: --receipts)",
            )
        return expected

    def stamp(self, seq: Any, line: LogLine) -> int:
        # No order is asked of at_ms here: the rebuilt game refuses time going backwards.
        at_ms = line.get("at_ms")
        if not isinstance(at_ms, int) or isinstance(at_ms, bool):
            raise CorruptLog(seq, f"at_ms {at_ms!r} is not a time")
        self.races.check(seq, line, self.last_at_ms)
        self.last_at_ms = at_ms
        return at_ms

    def deal(self, line: LogLine, at_ms: int) -> None:
        if line.get("seat") is not None or line.get("action") != DEAL_ACTION:
            raise CorruptLog(0, "entry 0 must be the deal")
        game, setup = self.game, self.setup
        events = game.deal(setup)
        self.table = Redecider(game, setup, game.initial_state(setup), events, at_ms)
        self._held(0, line, events)

    def abort(self, seq: Any, line: LogLine, at_ms: int) -> None:
        assert self.table is not None  # entry 0 made it
        by = abort_by(line)
        try:
            if by is None:
                # Inside the try, so the verdict reads "this entry does not replay: seq N: ..."
                # (a CorruptLog is a ValueError), as it always has.
                raise CorruptLog(seq, "an entry without a seat must be the host's abort")
            self.table.abort(at_ms, by)
        except Rejected as exc:
            raise CorruptLog(seq, _REJECTED + str(exc)) from None
        except (DecodeError, InvalidSeat, ValueError) as invalid:
            raise CorruptLog(seq, f"this entry does not replay: {invalid}") from None
        self._held(seq, line, ())

    def action(self, seq: Any, line: LogLine, seat: Any, at_ms: int) -> None:
        assert self.table is not None  # entry 0 made it
        try:
            if not isinstance(seat, int) or isinstance(seat, bool):
                # inside the try as in abort, for the same words
                raise CorruptLog(seq, f"seat {seat!r} is not a seat of this game")
            command = self.game.decode_command(line.get("action"), "action")
            events = self.table.check(seat, command)
            self.table.apply(events, at_ms)
        except Rejected as exc:
            raise CorruptLog(seq, _REJECTED + str(exc)) from None
        except (DecodeError, InvalidSeat, ValueError) as invalid:
            raise CorruptLog(seq, f"this entry does not replay: {invalid}") from None
        self._held(seq, line, events)

    def _held(self, seq: Any, line: LogLine, events: Sequence[Any]) -> None:
        """The copy's entry against the entry the seed and actions give: its keyed hash is the
        full entry's, and its events are that entry's as the viewer is shown them."""
        full: LogLine = {
            k: line[k] for k in ("seq", "at_ms", "seat", "action", "prev") if k in line
        }
        full["type"] = "entry"
        full["events"] = [codec.encode(e) for e in events]
        if line.get("hash") != keyed_hash(self.salt, full):
            raise CorruptLog(
                seq,
                "this entry's hash is not the hash of the entry the seed and actions give: the "
                "server showed you an entry the game did not have",
            )
        shown = [codec.encode(self.game.redact(e, self.viewer)) for e in events]
        if not json_eq(shown, line.get("events")):
            raise CorruptLog(
                seq,
                "you were shown different events from the ones "
                f"{whose(viewer_text(self.viewer))} view of the game gives",
            )
