"""The game log: canonical JSON Lines with a seed commitment and a keyed hash chain.

A log is a list of JSON objects, one per line (see ``docs/log-format.md``):

``header``
    ``format``, ``game``, ``rules_version``, ``cardcore``, ``rng``, ``setup`` (seats, rules, event
    limit — no seed), ``setup_hash``, ``commitment = sha256(seed as 8 bytes big-endian ‖ salt)``
    and ``game_id`` (or null); a game started from a position (:meth:`Match.from_position`)
    also has ``position``, the referee's notation of it (docs/notation.md); a viewer's copy also
    has ``copy`` (whose it is). Its ``hash`` is the plain sha256 of its other fields, ``copy``
    left out (:func:`header_hash`).
``entry`` (one per accepted action; ``seq`` 0 is the deal, with seat null; from a position its
    events are empty)
    ``seq``, ``at_ms``, ``seat``, ``action``, ``events``, ``prev`` (the previous line's hash) and
    ``hash = HMAC-SHA256(salt, canonical(entry without hash))``. The key is the secret salt, so a
    player who sees an entry's hash but not its hidden cards cannot test guesses against it.
``end`` (once the game is over)
    ``seq``, ``outcome``, the revealed ``seed`` and ``salt``, ``prev`` and a plain sha256 ``hash``.

:func:`verify` re-decides every action and checks every hash and the commitment, naming the first
bad entry; :func:`replay` yields the state after each entry; :func:`redact_log` is what a viewer may
download: before the end, a *copy* — hidden cards removed, hashes kept, the header marked with
``copy`` — which :func:`verify` checks as far as it can; after the end the seed is public, so the
whole log is, and :func:`check_copy` holds a copy (or the receipts a client kept) against it.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .. import codec, rng, signatures
from ..engine import Game, Outcome, Role, Setup, Termination, Viewer, union_of, with_setup
from ..errors import CardcoreError, CorruptLog, DecodeError, InvalidSeat, Rejected
from . import format
from .format import (
    ABORT_KIND,
    COPY_KEY,
    DEAL_ACTION,
    FORMAT,
    FORMAT_2,
    FORMATS,
    MAX_ABORT_BY,
    RECEIPTS_TYPE,
    SALT_BYTES,
    LogLine,
    abort_action,
    abort_by,
    check_abort_by,
    commitment,
    decode_outcome,
    dumps,
    encode_outcome,
    header_hash,
    loads,
)
from .format import ENTRY_FIELDS as _ENTRY_FIELDS
from .format import is_digest as _is_digest
from .format import json_eq as _json_eq
from .format import keyed_hash as _keyed_hash
from .format import plain_hash as _plain_hash
from .writer import LogWriter

_hmac_pads = format.hmac_pads  # tests/unit/test_log_fast.py checks the writer's HMAC with it


# --------------------------------------------------------------------------- viewers' copies


POSITION_HIDDEN: Final = "header not checked: the start position is hidden from this viewer"
"""What :func:`verify` notes for a copy of a game started from a position: the copy's header has
the viewer's notation of it (hidden cards ``??``), so the header's hash cannot be checked."""
_HIDDEN_JSON: Final = "??"
"""A card hidden from the viewer (``cards.HIDDEN``), as a redacted event writes it."""


def viewer_text(viewer: Viewer) -> str:
    """A viewer as a copy names it: ``"0"``, ``"1"``, …, ``"spectator"`` or ``"referee"``.
    Raises :class:`InvalidSeat` for anything else (a bool, a negative number)."""
    if isinstance(viewer, str):
        return Role(viewer).value
    if type(viewer) is not int or viewer < 0:
        raise InvalidSeat(f"not a viewer: {viewer!r:.40}")
    return str(viewer)


def _viewer_of(text: object, seats: int) -> Viewer | None:
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
    redacted = any(isinstance(line, dict) and _shows_hidden(line.get("events")) for line in lines)
    return "" if redacted else None


def _shows_hidden(value: Any) -> bool:
    """Whether a JSON value holds a hidden card, ``"??"``, anywhere."""
    stack = [value]
    while stack:
        v = stack.pop()
        if type(v) is str:
            if v == _HIDDEN_JSON:
                return True
        elif type(v) is list:
            stack.extend(v)
        elif type(v) is dict:
            stack.extend(v.values())
    return False


def _count(n: int, one: str, many: str | None = None) -> str:
    """``"1 decision"``, ``"12 decisions"``."""
    return f"{n} {one if n == 1 else many or one + 's'}"


# --------------------------------------------------------------------------- replay and verify


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """The state after one entry, with the decoded command and events that led to it."""

    entry: LogLine
    command: Any
    events: tuple[Any, ...]
    state: Any


@dataclass(frozen=True, slots=True)
class Report:
    """What :func:`verify` established."""

    game: str
    entries: int
    revealed: bool
    outcome: Outcome | None
    unchecked: int = 0
    """Entries whose action could not be re-decided by the rules: in a log in progress, those
    that shuffle (the seed is still secret); in a viewer's copy, every one (the cards hidden
    from the viewer are not in it)."""
    copy: str | None = None
    """For a viewer's copy, whose (:func:`copy_of`): ``"0"``, ``"1"``, …, ``"spectator"``, or
    ``""`` for a redacted log that does not say. None for a log."""
    checked: tuple[str, ...] = ()
    """For a log in progress or a copy: what was checked, in short phrases."""
    not_checked: tuple[str, ...] = ()
    """For a log in progress or a copy: what could not be checked yet, each with its count and
    why, e.g. ``"12 entry hashes (salt secret)"``; the end line reveals what they need."""
    notes: tuple[str, ...] = ()
    """Anything else not checked, as a sentence (e.g. :data:`POSITION_HIDDEN`)."""
    signed_by: str | None = None
    """The public key (base64url) the header says signed the log, if any."""
    signatures_checked: int = 0
    """Signatures checked against the ``server_key`` given to :func:`verify` (header, end)."""


def _game_of(
    header: LogLine, game: Game[Any, Any, Any, Any, Any] | None = None
) -> Game[Any, Any, Any, Any, Any]:
    """The header's game: from the registry, or ``game`` (one that is not registered, e.g. a
    game of your own) when its name is the header's."""
    from ..registry import get_game

    if game is not None:
        if header.get("game") != game.info.name:
            raise CorruptLog(None, f"a log of {header.get('game')!r}, not of {game.name!r}")
    else:
        try:
            game = get_game(str(header.get("game")))
        except CardcoreError as exc:
            raise CorruptLog(None, str(exc)) from None
    version = header.get("rules_version")
    if version != game.info.rules_version and version not in game.info.replays_versions:
        raise CorruptLog(
            None,
            f"recorded under {game.name} rules_version {header.get('rules_version')!r}; "
            f"this cardcore plays {game.info.rules_version!r}",
        )
    return game


def _header(lines: Sequence[LogLine]) -> LogLine:
    if not lines or not isinstance(lines[0], dict) or lines[0].get("type") != "header":
        raise CorruptLog(None, "the first line is not a header")
    header = lines[0]
    if header.get("format") not in FORMATS or isinstance(header.get("format"), bool):
        raise CorruptLog(None, f"unsupported log format {header.get('format')!r}")
    contributions(header)  # format 2's fields are well-formed (format 1 has none)
    return header


def contributions(header: LogLine) -> tuple[tuple[int, bytes], ...] | None:
    """The seats' entropy a format-2 header records, in seat order (None for format 1);
    raises :class:`CorruptLog` when they are malformed."""
    if header.get("format") == FORMAT:
        if "contributions" in header or "seed_derivation" in header:
            raise CorruptLog(None, "a format-1 header has no contributions")
        return None
    if header.get("seed_derivation") != rng.DERIVATION:
        raise CorruptLog(None, f"unknown seed_derivation {header.get('seed_derivation')!r}")
    raw = header.get("contributions")
    if not isinstance(raw, list):
        raise CorruptLog(None, "a format-2 header lists its contributions")
    out: list[tuple[int, bytes]] = []
    for i, c in enumerate(raw):
        seat = c.get("seat") if isinstance(c, dict) else None
        entropy = c.get("entropy") if isinstance(c, dict) else None
        if (
            not isinstance(c, dict)
            or set(c) != {"seat", "entropy"}
            or not isinstance(seat, int)
            or isinstance(seat, bool)
            or not 0 <= seat < 2**32
            or (out and seat <= out[-1][0])
            or not isinstance(entropy, str)
            or len(entropy) != 2 * rng.ENTROPY_BYTES
            or entropy.strip("0123456789abcdef")
        ):
            raise CorruptLog(
                None,
                f"contributions[{i}] is not a seat (in increasing order) with 32 hex digits",
            )
        out.append((seat, bytes.fromhex(entropy)))
    return tuple(out)


def revealed(header: LogLine, end: LogLine) -> tuple[int, bytes]:
    """The seed and salt an end line reveals, checked against the header's commitment; raises
    :class:`CorruptLog` at the end line's ``seq``."""
    end_seq = end.get("seq")
    at = end_seq if isinstance(end_seq, int) else None
    try:
        salt = bytes.fromhex(str(end["salt"]))
    except (KeyError, ValueError):
        salt = b""
    seed = end.get("seed")
    if (
        not isinstance(seed, int)
        or isinstance(seed, bool)
        or not 0 <= seed <= rng.MAX_SEED
        or len(salt) != SALT_BYTES
    ):
        raise CorruptLog(at, "end line lacks a valid seed and salt")
    if commitment(seed, salt) != header.get("commitment"):
        raise CorruptLog(at, "revealed seed and salt do not match the header's commitment")
    return seed, salt


def deal_seed(header: LogLine, seed: int) -> int:
    """The seed a game dealt with, from the ``seed`` its end line reveals: that seed itself in
    format 1, the seed derived from it and the header's contributions in format 2."""
    given = contributions(header)
    return seed if given is None else rng.derive_deal_seed(seed, given)


def _setup_of(game: Game[Any, Any, Any, Any, Any], header: LogLine, seed: int) -> Setup[Any]:
    raw = header.get("setup")
    if not isinstance(raw, dict):
        raise CorruptLog(None, "header has no setup")
    try:
        setup = game.make_setup(raw.get("seats"), seed, raw.get("rules"), raw.get("event_limit"))  # type: ignore[arg-type]
    except CardcoreError as exc:
        raise CorruptLog(None, f"invalid setup: {exc}") from None
    if setup.setup_hash() != header.get("setup_hash"):
        raise CorruptLog(None, "setup_hash does not match the setup")
    return setup


def _start_of(game: Game[Any, Any, Any, Any, Any], header: LogLine, setup: Setup[Any]) -> Any:
    """The state before entry 0: the table before the deal, or the header's position."""
    text = header.get("position")
    if text is None:
        return game.initial_state(setup)
    if game.parse_position is None:
        raise CorruptLog(None, f"{game.name} has no position notation")
    if not isinstance(text, str):
        raise CorruptLog(None, "the header's position is not a string")
    try:
        state = game.parse_position(text, setup.rules)
    except CardcoreError as exc:
        raise CorruptLog(None, f"the header's position does not parse: {exc}") from None
    if state.setup.seats != setup.seats:
        raise CorruptLog(
            None, f"the position has {state.setup.seats} seats, the setup {setup.seats}"
        )
    return with_setup(state, setup)


def replay(
    lines: Sequence[LogLine],
    seed: int | None = None,
    *,
    game: Game[Any, Any, Any, Any, Any] | None = None,
) -> Iterator[ReplayStep]:
    """The state after each entry, applying the logged events (no rules, no RNG).

    Works on any log whose events are complete (the full log or the referee's); raises
    :class:`CorruptLog` where an event does not decode. The states carry the revealed seed (or
    ``seed``, or 0 while it is secret): only later shuffles would need it. A viewer's copy
    (:func:`copy_of`) lacks the cards hidden from its viewer, so it has no states: it raises
    ``ValueError`` (``cardcore replay --as`` narrates a copy instead)."""
    header = _header(lines)
    game = _game_of(header, game)
    if COPY_KEY in header:
        raise ValueError(
            f"this is {whose(copy_of(lines))} copy: the cards hidden from its viewer are not in "
            "it, so it replays into no states (the full log does, after the end)"
        )
    if seed is None:
        end = lines[-1] if lines[-1].get("type") == "end" else {}
        seed = end.get("seed", 0) if isinstance(end.get("seed", 0), int) else 0
        if end:
            seed = deal_seed(header, seed)
    setup = _setup_of(game, header, seed)
    state = _start_of(game, header, setup)
    decode_event = codec.decoder(union_of(game.event_types))
    evolve = game.evolve
    for line in lines[1:]:
        if line.get("type") != "entry":
            continue
        seq = line.get("seq")
        seq_i = seq if isinstance(seq, int) else None
        raw_events = line.get("events")
        if not isinstance(raw_events, list):
            raise CorruptLog(seq_i, "entry has no list of events")
        try:
            events = tuple([decode_event(e, "events") for e in raw_events])
            # No seat: the deal, or the host's abort (it changes no card).
            command = None if line.get("seat") is None else game.decode_command(line.get("action"))
        except DecodeError as exc:
            raise CorruptLog(seq_i, str(exc)) from None
        try:
            for event in events:
                state = evolve(state, event)
        except Exception as exc:
            # a tampered log: evolve trusts its events (docs/games/common.md#the-sequencer)
            raise CorruptLog(seq_i, f"an event does not apply: {type(exc).__name__}") from None
        yield ReplayStep(line, command, events, state)


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
        report = dataclasses.replace(report, signed_by=signatures.signer_of([header or {}]))
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
    from ..match import Match

    if lines and isinstance(lines[0], dict) and lines[0].get("type") == RECEIPTS_TYPE:
        lines = _as_copy(lines)  # receipts kept with their header: checked as that copy
    header = _header(lines)
    game = _game_of(header, game)
    end = lines[-1] if lines[-1].get("type") == "end" else None
    if COPY_KEY in header:
        if end is not None:  # the copy and the end the viewer was sent: it settles the game
            return _settle(lines, header, game, at)
        return _verify_copy(lines, header, game, at, marked=True)
    if end is None and copy_of(lines) is not None:
        return _verify_copy(lines, header, game, at, marked=False)
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
    setup = _setup_of(game, header, seed)

    match: Match[Any, Any, Any, Any, Any] | None = None
    prev = header["hash"]
    last_at = 0
    unchecked = 0
    for expected_seq, line in enumerate(body):
        at[0] = expected_seq
        seq = line.get("seq")
        if line.get("type") != "entry":
            raise CorruptLog(expected_seq, f"expected an entry, found a {line.get('type')!r} line")
        if seq != expected_seq:
            raise CorruptLog(
                expected_seq, f"entry missing or out of order (found seq {seq!r} in its place)"
            )
        if line.get("prev") != prev:
            raise CorruptLog(seq, "hash chain broken: prev does not match the previous line")
        if salt is not None and line.get("hash") != _keyed_hash(salt, line):
            raise CorruptLog(seq, "hash mismatch: the entry was altered")
        prev = line.get("hash")
        at_ms = line.get("at_ms")
        if not isinstance(at_ms, int) or isinstance(at_ms, bool) or at_ms < last_at:
            raise CorruptLog(seq, f"at_ms {at_ms!r} is not a time at or after {last_at}")
        last_at = at_ms
        logged_events = line.get("events")
        if not isinstance(logged_events, list):
            raise CorruptLog(seq, "entry has no list of events")
        if seq == 0:
            if line.get("seat") is not None or line.get("action") != DEAL_ACTION:
                raise CorruptLog(0, "entry 0 must be the deal")
            if "position" in header:
                if logged_events:
                    raise CorruptLog(0, "a game started from a position deals no cards")
                match = Match(game, setup, at_ms=at_ms, deal=())
                match.start_from(_start_of(game, header, setup), at_ms)
                continue
            if salt is not None:
                dealt = game.deal(setup)
                if [codec.encode(e) for e in dealt] != logged_events:
                    raise CorruptLog(0, "the deal differs from the one the revealed seed gives")
                # No log is re-recorded: the hashes were checked above, line by line.
                match = Match(game, setup, at_ms=at_ms, deal=dealt)
            else:
                unrevealed = Setup(setup.seats, rng.UNREVEALED, setup.rules, setup.event_limit)
                try:
                    match = Match.from_deal(game, unrevealed, logged_events, at_ms=at_ms)
                except Exception as exc:  # a tampered deal: it does not decode or apply
                    raise CorruptLog(0, f"the deal does not replay: {exc}") from None
            continue
        if match is None:
            raise CorruptLog(seq, "the log has no deal entry")
        seat = line.get("seat")
        if seat is None:
            by = abort_by(line)
            if by is None or logged_events:
                raise CorruptLog(seq, "an entry without a seat must be the host's abort")
            try:
                match.abort(at_ms, by)
            except Rejected as exc:
                raise CorruptLog(seq, f"the game cannot be aborted here: {exc}") from None
            except ValueError as exc:
                raise CorruptLog(seq, str(exc)) from None
            continue
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < setup.seats:
            raise CorruptLog(seq, f"seat {seat!r} is not a seat of this game")
        try:
            command = game.decode_command(line.get("action"), "action")
        except DecodeError as exc:
            raise CorruptLog(seq, f"action does not decode: {exc}") from None
        try:
            events = match.check(seat, command)
        except Rejected as exc:
            raise CorruptLog(seq, f"the rules reject this action: {exc}") from None
        except rng.SeedUnrevealed:
            # Before the reveal an action that shuffles cannot be re-decided: the logged events
            # are taken as they are (they must still decode and apply), and counted.
            try:
                events = [game.decode_event(e, "events") for e in logged_events or ()]
            except DecodeError as exc:
                raise CorruptLog(seq, f"event does not decode: {exc}") from None
            unchecked += 1
        except Exception as exc:  # the rules meet a state the logged events made impossible
            raise CorruptLog(
                seq, f"the rules cannot decide this action here ({type(exc).__name__})"
            ) from None
        else:
            if [codec.encode(e) for e in events] != logged_events:
                raise CorruptLog(
                    seq, "logged events differ from what the rules give for this action"
                )
        try:
            match.apply(seat, command, events, at_ms)
        except Exception as exc:  # logged events taken on trust (seed secret) that do not apply
            raise CorruptLog(seq, f"the logged events do not apply: {type(exc).__name__}") from None
    if end is not None:
        end_seq = end.get("seq")
        at[0] = end_seq if isinstance(end_seq, int) else len(body)
        if end_seq != len(body):
            raise CorruptLog(len(body), f"end line has seq {end_seq!r}, expected {len(body)}")
        if end.get("prev") != prev:
            raise CorruptLog(end_seq, "hash chain broken: prev does not match the previous line")
        if end.get("hash") != _plain_hash(end):
            raise CorruptLog(end_seq, "hash mismatch: the end line was altered")
        _check_outcome(end, match.outcome if match is not None else None)
    elif match is not None and match.outcome is not None:
        raise CorruptLog(len(body), "the game is over but the log has no end line")
    if match is None:
        raise CorruptLog(0, "the log has no deal entry")
    if end is not None:
        return Report(game.name, len(body), True, match.outcome, unchecked)
    n = len(body)
    return Report(
        game.name,
        n,
        False,
        None,
        unchecked,
        checked=(
            "header",
            "seq",
            "prev links",
            "at_ms order",
            _count(n - 1 - unchecked, "decision"),
        ),
        not_checked=(
            *(() if "position" in header else ("the deal (seed secret)",)),
            _count(n, "entry hash", "entry hashes") + " (salt secret)",
            _count(unchecked, "shuffling decision") + " (seed secret)",
        ),
    )


def _verify_copy(
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
    setup = _setup_of(game, header, 0)
    viewer: Viewer | None = None
    whose_copy = ""
    if marked:
        mark = header[COPY_KEY]
        text = mark.get("viewer") if isinstance(mark, dict) and set(mark) == {"viewer"} else None
        viewer = _viewer_of(text, setup.seats)
        if viewer is None or viewer == Role.REFEREE:
            raise CorruptLog(
                None,
                'the header\'s "copy" must be {"viewer": V}, V a seat of this game or '
                f'"spectator" (found {codec.canonical_text(mark)[:60]})',
            )
        whose_copy = viewer_text(viewer)
    prev = header.get("hash")
    if not _is_digest(prev):
        raise CorruptLog(None, "the header's hash is not a sha256 digest")
    kinds = {t.__name__ for t in game.event_types}
    decode_event = codec.decoder(union_of(game.event_types))
    last_at = 0
    aborted: int | None = None
    undecoded = 0
    body = lines[1:]
    for expected_seq, line in enumerate(body):
        at[0] = expected_seq
        if line.get("type") != "entry":
            raise CorruptLog(expected_seq, f"expected an entry, found a {line.get('type')!r} line")
        seq = line.get("seq")
        if seq != expected_seq or isinstance(seq, bool):
            raise CorruptLog(
                expected_seq, f"entry missing or out of order (found seq {seq!r} in its place)"
            )
        if aborted is not None:
            raise CorruptLog(seq, f"an entry after the host's abort at seq {aborted}")
        if line.get("prev") != prev:
            raise CorruptLog(seq, "hash chain broken: prev does not match the previous line")
        prev = line.get("hash")
        if not _is_digest(prev):
            raise CorruptLog(seq, "the entry's hash is not a sha256 digest")
        at_ms = line.get("at_ms")
        if not isinstance(at_ms, int) or isinstance(at_ms, bool) or at_ms < last_at:
            raise CorruptLog(seq, f"at_ms {at_ms!r} is not a time at or after {last_at}")
        last_at = at_ms
        events = line.get("events")
        if not isinstance(events, list):
            raise CorruptLog(seq, "entry has no list of events")
        seat = line.get("seat")
        if seq == 0:
            if seat is not None or not _json_eq(line.get("action"), DEAL_ACTION):
                raise CorruptLog(0, "entry 0 must be the deal")
            if "position" in header and events:
                raise CorruptLog(0, "a game started from a position deals no cards")
        elif seat is None:
            by = abort_by(line)
            if by is None or events:
                raise CorruptLog(seq, "an entry without a seat must be the host's abort")
            try:
                check_abort_by(by)
            except ValueError as exc:
                raise CorruptLog(seq, str(exc)) from None
            aborted = seq
        else:
            if type(seat) is not int or not 0 <= seat < setup.seats:
                raise CorruptLog(seq, f"seat {seat!r} is not a seat of this game")
            try:
                game.decode_command(line.get("action"), "action")
            except DecodeError as exc:
                raise CorruptLog(seq, f"action does not decode: {exc}") from None
        for i, raw in enumerate(events):
            kind = raw.get(codec.KIND) if isinstance(raw, dict) else None
            if not isinstance(kind, str) or kind not in kinds:
                raise CorruptLog(seq, f"events[{i}] is not an event of {game.name}")
            try:
                event = decode_event(raw, f"events[{i}]")
            except DecodeError as exc:
                if not _shows_hidden(raw):  # nothing hidden in it: it is simply not an event
                    raise CorruptLog(seq, f"event does not decode: {exc}") from None
                undecoded += 1  # a hidden value where the event's type has none: unchecked
                continue
            if viewer is None:
                continue
            try:
                shown = codec.encode(game.redact(event, viewer))
                same = _json_eq(shown, codec.encode(event))
            except Exception:  # a redacted value the game cannot redact again: unchecked
                undecoded += 1
                continue
            if not same:
                raise CorruptLog(
                    seq,
                    f"events[{i}] shows a card hidden from {whose(whose_copy)[:-2]}: "
                    "this is not that viewer's copy",
                )
    n = len(body)
    if n == 0:
        raise CorruptLog(0, "the log has no deal entry")
    checked = (
        "header" if not notes else "setup",
        "seq",
        "prev links",
        "at_ms order",
        "seats",
        "actions",
        "events",
    )
    not_checked = [
        _count(n, "decision") + " (hidden cards)",
        _count(n, "entry hash", "entry hashes") + " (salt secret)",
    ]
    if undecoded:
        not_checked.append(_count(undecoded, "event") + " (hidden values that do not decode)")
    return Report(
        game.name,
        n,
        False,
        None,
        n,
        copy=whose_copy,
        checked=checked,
        not_checked=tuple(not_checked),
        notes=tuple(notes),
    )


def _as_copy(lines: Sequence[LogLine]) -> list[LogLine]:
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
    return [header, *_receipts(body), *ends]


def _settle(
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
    from ..match import Match

    viewer = _viewer_of(copy_of(lines), _seats_of(header))
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
    if end.get("hash") != _plain_hash(end):
        raise CorruptLog(end_seq, "hash mismatch: the end line was altered")
    setup = _setup_of(game, header, deal_seed(header, raw_seed))
    match: Match[Any, Any, Any, Any, Any] | None = None
    prev = header["hash"]
    for expected, line in enumerate(body):
        at[0] = expected
        if line.get("type", "entry") != "entry" or line.get("seq") != expected:
            raise CorruptLog(
                expected,
                "your copy lacks this entry: to settle the game from your copy it must hold "
                "every entry (else hold it against the final log: --receipts)",
            )
        if line.get("prev") != prev:
            raise CorruptLog(expected, "hash chain broken: prev does not match the previous line")
        at_ms = line.get("at_ms")
        if not isinstance(at_ms, int) or isinstance(at_ms, bool):
            raise CorruptLog(expected, f"at_ms {at_ms!r} is not a time")
        seat = line.get("seat")
        if expected == 0:
            if seat is not None or line.get("action") != DEAL_ACTION:
                raise CorruptLog(0, "entry 0 must be the deal")
            events: Sequence[Any] = game.deal(setup)
            match = Match(game, setup, at_ms=at_ms, deal=events)
        else:
            assert match is not None
            by = abort_by(line) if seat is None else None
            try:
                if seat is None:
                    if by is None:
                        raise CorruptLog(
                            expected, "an entry without a seat must be the host's abort"
                        )
                    match.abort(at_ms, by)
                    events = ()
                else:
                    if not isinstance(seat, int) or isinstance(seat, bool):
                        raise CorruptLog(expected, f"seat {seat!r} is not a seat of this game")
                    command = game.decode_command(line.get("action"), "action")
                    events = match.check(seat, command)
                    match.apply(seat, command, events, at_ms)
            except Rejected as exc:
                raise CorruptLog(
                    expected, f"the rules reject this action on the game the seed gives: {exc}"
                ) from None
            except (DecodeError, InvalidSeat, ValueError) as exc:
                raise CorruptLog(expected, f"this entry does not replay: {exc}") from None
        full: LogLine = {
            k: line[k] for k in ("seq", "at_ms", "seat", "action", "prev") if k in line
        }
        full["type"] = "entry"
        full["events"] = [codec.encode(e) for e in events]
        if line.get("hash") != _keyed_hash(salt, full):
            raise CorruptLog(
                expected,
                "this entry's hash is not the hash of the entry the seed and actions give: the "
                "server showed you an entry the game did not have",
            )
        shown = [codec.encode(game.redact(e, viewer)) for e in events]
        if not _json_eq(shown, line.get("events")):
            raise CorruptLog(
                expected,
                "you were shown different events from the ones "
                f"{whose(viewer_text(viewer))} view of the game gives",
            )
        prev = line.get("hash")
    at[0] = end_seq if isinstance(end_seq, int) else None
    if match is None:
        raise CorruptLog(0, "the copy has no deal entry")
    if end_seq != len(body) or end.get("prev") != prev:
        raise CorruptLog(end_seq, "the end line does not follow your copy's last entry")
    _check_outcome(end, match.outcome)
    return Report(
        game.name,
        len(body),
        True,
        match.outcome,
        0,
        copy=viewer_text(viewer),
        checked=("header", "commitment", "every entry rebuilt from the seed", "hashes", "end"),
    )


def _check_outcome(end: LogLine, outcome: Outcome | None) -> None:
    """The end line's outcome must be the game's, written exactly as the writer writes it (a
    field dropped or added that decodes to the same outcome is still a changed line)."""
    end_seq = end.get("seq")
    at = end_seq if isinstance(end_seq, int) and not isinstance(end_seq, bool) else None
    if outcome is None:
        raise CorruptLog(at, "the log ends but the game is not over")
    try:
        logged = decode_outcome(end.get("outcome"))
    except DecodeError as exc:
        raise CorruptLog(at, f"outcome does not decode: {exc}") from None
    if logged != outcome:
        raise CorruptLog(at, f"logged outcome {logged} differs from the game's {outcome}")
    if not _json_eq(end.get("outcome"), encode_outcome(outcome)):
        raise CorruptLog(at, "the end line's outcome is not written as the game's outcome is")


def _seats_of(header: LogLine) -> int:
    setup = header.get("setup")
    seats = setup.get("seats") if isinstance(setup, dict) else None
    return seats if isinstance(seats, int) and not isinstance(seats, bool) else 0


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
    header = _header(lines)
    game = _game_of(header, game)
    text = viewer_text(viewer)
    setup = header.get("setup")
    seats = setup.get("seats") if isinstance(setup, dict) else None
    if text.isdigit() and isinstance(seats, int) and int(text) >= seats:
        raise InvalidSeat(f"no seat {text} in a {seats}-seat game")
    mark = header.get(COPY_KEY)
    if mark is not None:  # a copy already: it is its viewer's, and no one else's
        if _json_eq(mark, {"viewer": text}):
            return [dict(line) for line in lines]
        raise ValueError(f"this is {whose(copy_of(lines))} copy: it cannot be {whose(text)}")
    out: list[LogLine] = [dict(header)]
    if text != Role.REFEREE.value:
        out[0][COPY_KEY] = {"viewer": text}
    if "position" in header and game.format_position is not None:
        # The referee's notation names hidden cards: the viewer gets its own (hidden cards as
        # ``??``). The header's hash then no longer matches: such a copy is for display.
        start = _start_of(game, header, _setup_of(game, header, 0))
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
        fheader = _header(final)
        game = _game_of(fheader, game)
        seats = _setup_of(game, fheader, 0).seats
    except CorruptLog as exc:
        raise CorruptLog(exc.seq, f"the final log is invalid: {exc.reason}") from None
    own = _mine_of(mine, game, seats, viewer)
    fbody = final[1:-1]
    red_viewer = own.viewer
    if own.header is not None:
        try:
            shown = redact_log(final[:1], red_viewer, game=game)[0]
        except (CardcoreError, ValueError) as exc:
            raise CorruptLog(None, f"the final log's header: {exc}") from None
        mine_h = {k: v for k, v in own.header.items() if k != COPY_KEY}
        final_h = {k: v for k, v in shown.items() if k != COPY_KEY}
        if not _json_eq(mine_h, final_h):
            keys = sorted(
                k
                for k in set(mine_h) | set(final_h)
                if k not in mine_h or k not in final_h or not _json_eq(mine_h[k], final_h[k])
            )
            raise CorruptLog(
                None, f"your header differs from the final log's ({', '.join(map(str, keys))})"
            )
    elif own.game_id is not None and own.game_id != fheader.get("game_id"):
        raise CorruptLog(
            None,
            f"your receipts are of game {own.game_id!r}, "
            f"the final log of {fheader.get('game_id')!r}",
        )
    decode_event = codec.decoder(union_of(game.event_types))
    for entry in own.entries:
        seq: int = entry["seq"]
        if seq >= len(fbody):
            raise CorruptLog(
                seq, f"the final log has no such entry (its last is seq {len(fbody) - 1})"
            )
        f = fbody[seq]
        if not isinstance(f, dict) or f.get("type") != "entry" or not _json_eq(f.get("seq"), seq):
            found = f.get("seq") if isinstance(f, dict) else None
            raise CorruptLog(seq, f"the final log has seq {found!r} in this entry's place")
        try:
            expected = [
                codec.encode(game.redact(decode_event(e, "events"), red_viewer))
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
    # the end line last: a line changed anywhere changes every hash after it, so the first entry
    # that differs from yours is where the final log was altered, not its end
    if own.end is not None and not _json_eq(own.end, final[-1]):
        keys = sorted(
            k
            for k in set(own.end) | set(final[-1])
            if not _json_eq(own.end.get(k), final[-1].get(k))
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


def _differences(final: LogLine, mine: LogLine, shown: list[Any]) -> list[str]:
    """What differs between the final log's entry and the one a viewer holds, in words, values
    quoted where the viewer saw them (bounded); ``shown``: the final entry's events as that
    viewer would have been shown them."""
    out = [
        f"{key} {_short(final.get(key))} (yours {_short(mine.get(key))})"
        for key in ("seat", "action", "at_ms")
        if not _json_eq(final.get(key), mine.get(key))
    ]
    if not _json_eq(shown, mine.get("events")):
        out.append("other events than the ones you were shown")
    if not _json_eq(final.get("hash"), mine.get("hash")):
        out.append(
            "another hash than you were sent (so not the entry you received, hidden cards too)"
        )
    if not _json_eq(final.get("prev"), mine.get("prev")):
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
        named = _viewer_of(first.get("viewer"), seats)
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
            ln
            for ln in mine[1:]
            if not (isinstance(ln, dict) and ln.get("type") in ("header", "end"))
        ]
        entries = _receipts(body)
        _check_chain(entries, "your receipts")
        header = kept[0] if len(kept) == 1 else None
        ends = [ln for ln in mine[1:] if isinstance(ln, dict) and ln.get("type") == "end"]
        end = ends[0] if len(ends) == 1 else None
        return _Mine("receipts", named, header, first.get("game_id"), entries, end)
    if first.get("type") != "header":
        raise CorruptLog(None, "your copy starts with neither a header nor a receipts line")
    whose_copy = copy_of(mine)
    if whose_copy:  # a marked copy: it must verify as one
        try:
            verify(mine, game=game)
        except CorruptLog as exc:
            raise CorruptLog(exc.seq, f"your copy is not consistent: {exc.reason}") from None
        named = _viewer_of(whose_copy, seats)
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
    body = [line for line in mine[1:] if not (isinstance(line, dict) and line.get("type") == "end")]
    for line in body:
        if not isinstance(line, dict) or line.get("type") != "entry":
            found = line.get("type") if isinstance(line, dict) else line
            raise CorruptLog(None, f"your copy has a {found!r:.40} line among its entries")
    entries = _receipts(body)
    for i, entry in enumerate(entries):
        if entry["seq"] != i:
            raise CorruptLog(i, "your copy is not consistent: entry missing or out of order")
    if entries and not _json_eq(entries[0].get("prev"), first.get("hash")):
        raise CorruptLog(0, "your copy is not consistent: prev is not the header's hash")
    _check_chain(entries, "your copy")
    return _Mine(source, named, first, first.get("game_id"), entries)


def _receipts(lines: Sequence[LogLine]) -> list[LogLine]:
    """Entries in ``seq`` order, a repeat of an entry (the same JSON) kept once."""
    by_seq: dict[int, LogLine] = {}
    for n, line in enumerate(lines, start=2):
        if not isinstance(line, dict) or line.get("type", "entry") != "entry":
            raise CorruptLog(None, f"line {n} of your receipts is not an entry")
        seq = line.get("seq")
        if type(seq) is not int or seq < 0:
            raise CorruptLog(None, f"line {n} of your receipts has no seq")
        missing = [k for k in _ENTRY_FIELDS if k not in line]
        if missing:
            raise CorruptLog(seq, f"your receipt of this entry has no {', '.join(missing)}")
        body = {k: v for k, v in line.items() if k != "type"}
        seen = by_seq.get(seq)
        if seen is None:
            by_seq[seq] = line
        elif not _json_eq(body, {k: v for k, v in seen.items() if k != "type"}):
            raise CorruptLog(seq, "you were shown two different versions of this entry")
    return [by_seq[s] for s in sorted(by_seq)]


def _check_chain(entries: Sequence[LogLine], what: str) -> None:
    """Where ``entries`` (in ``seq`` order) has two consecutive entries, the second's ``prev``
    must be the first's ``hash``."""
    for a, b in itertools.pairwise(entries):
        if b["seq"] == a["seq"] + 1 and not _json_eq(b.get("prev"), a.get("hash")):
            raise CorruptLog(
                b["seq"], f"{what} is not one chain: prev is not entry {a['seq']}'s hash"
            )


def terminated(outcome: Outcome | None) -> bool:
    """True for a game that ended by its own rules (not by the event limit)."""
    return outcome is not None and outcome.termination is not Termination.EVENT_LIMIT


__all__ = [
    "ABORT_KIND",
    "COPY_KEY",
    "DEAL_ACTION",
    "FORMAT",
    "FORMATS",
    "FORMAT_2",
    "MAX_ABORT_BY",
    "POSITION_HIDDEN",
    "RECEIPTS_TYPE",
    "SALT_BYTES",
    "CopyReport",
    "LogLine",
    "LogWriter",
    "ReplayStep",
    "Report",
    "abort_action",
    "abort_by",
    "check_abort_by",
    "check_copy",
    "commitment",
    "contributions",
    "copy_of",
    "deal_seed",
    "decode_outcome",
    "dumps",
    "encode_outcome",
    "header_hash",
    "loads",
    "redact_log",
    "replay",
    "revealed",
    "terminated",
    "verify",
    "viewer_text",
    "whose",
]
