"""The game log: canonical JSON Lines with a seed commitment and a keyed hash chain.

A log is a list of JSON objects, one per line (see ``docs/log-format.md``):

``header``
    ``format``, ``game``, ``rules_version``, ``cardcore``, ``rng``, ``setup`` (seats, rules, event
    limit — no seed), ``setup_hash``, ``commitment = sha256(seed as 8 bytes big-endian ‖ salt)``
    and ``game_id`` (or null); a game started from a position (:meth:`Match.from_position`)
    also has ``position``, the referee's notation of it (docs/notation.md). Its ``hash`` is the
    plain sha256 of its other fields.
``entry`` (one per accepted action; ``seq`` 0 is the deal, with seat null; from a position its
    events are empty)
    ``seq``, ``at_ms``, ``seat``, ``action``, ``events``, ``prev`` (the previous line's hash) and
    ``hash = HMAC-SHA256(salt, canonical(entry without hash))``. The key is the secret salt, so a
    player who sees an entry's hash but not its hidden cards cannot test guesses against it.
``end`` (once the game is over)
    ``seq``, ``outcome``, the revealed ``seed`` and ``salt``, ``prev`` and a plain sha256 ``hash``.

:func:`verify` re-decides every action and checks every hash and the commitment, naming the first
bad entry; :func:`replay` yields the state after each entry; :func:`redact_log` is what a viewer may
download: before the end, hidden cards are removed (hashes stay, so the player can later prove what
they were shown); after it the seed is public, so the whole log is.
"""

from __future__ import annotations

import hashlib
import hmac
import json.encoder
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

from . import codec, rng
from .engine import Game, Outcome, Setup, Termination, Viewer, union_of, with_setup
from .errors import CardcoreError, CorruptLog, DecodeError, Rejected
from .version import __version__

FORMAT: Final = 1
SALT_BYTES: Final = 16
DEAL_ACTION: Final = {"kind": "Deal"}
ABORT_KIND: Final = "Abort"
"""The kind of the host's action that ends a game at once (:meth:`Match.abort`): an entry
with no seat, action ``{"kind": "Abort", "by": ...}`` and no events."""
MAX_ABORT_BY: Final = 32


def abort_action(by: str) -> dict[str, Any]:
    """The logged action of a host's abort."""
    return {"kind": ABORT_KIND, "by": by}


def check_abort_by(by: object) -> str:
    """``by`` of an abort: a short printable name of who aborted; raises ``ValueError``."""
    if not isinstance(by, str) or not 0 < len(by) <= MAX_ABORT_BY or not by.isprintable():
        raise ValueError(f"an abort's by must be 1 to {MAX_ABORT_BY} printable characters")
    return by


def abort_by(line: LogLine) -> str | None:
    """Who aborted, when ``line`` is a host's abort entry (seat null, after the deal)."""
    action = line.get("action")
    if line.get("seat") is not None or line.get("seq") == 0 or not isinstance(action, dict):
        return None
    if action.get("kind") != ABORT_KIND or set(action) != {"kind", "by"}:
        return None
    by = action.get("by")
    return by if isinstance(by, str) else None


LogLine = dict[str, Any]


def commitment(seed: int, salt: bytes) -> str:
    """``sha256(seed ‖ salt)`` in hex, the seed as 8 bytes big-endian: published before the deal."""
    return hashlib.sha256(seed.to_bytes(8, "big") + salt).hexdigest()


def _plain_hash(line: LogLine) -> str:
    body = {k: v for k, v in line.items() if k != "hash"}
    return hashlib.sha256(codec.canonical_bytes(body)).hexdigest()


def _keyed_hash(salt: bytes, line: LogLine) -> str:
    body = {k: v for k, v in line.items() if k != "hash"}
    return hmac.digest(salt, codec.canonical_bytes(body), "sha256").hex()


def _hmac_pads(key: bytes) -> tuple[Any, Any]:
    """HMAC-SHA256 under ``key`` (RFC 2104) with its two padded key blocks hashed once: for a
    message, ``outer.copy()`` updated with the digest of ``inner.copy()`` updated with the
    message gives ``hmac.new(key, msg, hashlib.sha256)`` (tests/unit/test_log_fast.py) for two
    sha256 copies instead of a new HMAC's key set-up."""
    if len(key) > _SHA256_BLOCK:
        key = hashlib.sha256(key).digest()
    key = key.ljust(_SHA256_BLOCK, b"\0")
    return hashlib.sha256(key.translate(hmac.trans_36)), hashlib.sha256(
        key.translate(hmac.trans_5C)
    )


_SHA256_BLOCK: Final = 64


def encode_outcome(outcome: Outcome) -> dict[str, Any]:
    out = codec.encode(outcome)
    del out[codec.KIND]
    return out  # type: ignore[no-any-return]


def decode_outcome(data: Any, path: str = "outcome") -> Outcome:
    data = dict(data, kind="Outcome") if isinstance(data, dict) else data
    return codec.decode(Outcome, data, path)  # type: ignore[no-any-return]


class LogWriter:
    """Builds the lines of one game's log as its actions are accepted.

    :attr:`lines` holds each line as a JSON object. :meth:`line_bytes` gives the same line's
    canonical bytes in O(1), from the text the line was hashed with, so a host that persists the
    log need not serialise a line again. Lines are append-only: do not edit them in place (copy
    them, as :func:`redact_log` does); :meth:`truncate` drops trailing lines."""

    def __init__(
        self,
        game: Game[Any, Any, Any, Any, Any],
        setup: Setup[Any],
        salt: bytes,
        game_id: str | None,
        *,
        position: str | None = None,
        rules_version: str | None = None,
    ) -> None:
        """``position``: the referee's notation of the position the game starts from, recorded
        in the header (a header without it is a game dealt from the seed). ``rules_version``:
        an earlier version the game still replays (:attr:`GameInfo.replays_versions`), to
        re-record a game that was started under it; the game's own by default."""
        version = game.info.rules_version if rules_version is None else rules_version
        if version != game.info.rules_version and version not in game.info.replays_versions:
            raise ValueError(f"{game.name} does not replay rules_version {version!r}")
        if len(salt) != SALT_BYTES:
            raise ValueError(f"salt must be {SALT_BYTES} bytes")
        self._salt = salt
        self._inner, self._outer = _hmac_pads(salt)
        self._seed = setup.seed
        public = setup.public_json()
        public_text = codec.canonical_text(public)
        setup_hash = hashlib.sha256(public_text.encode()).hexdigest()  # Setup.setup_hash()
        header: LogLine = {
            "type": "header",
            "format": FORMAT,
            "game": game.info.name,
            "rules_version": version,
            "cardcore": __version__,
            "rng": rng.ALGORITHM,
            "setup": public,
            "setup_hash": setup_hash,
            "commitment": commitment(setup.seed, salt),
            "game_id": game_id,
        }
        if position is not None:
            header["position"] = position
        # Its canonical text, keys in sorted order, written around where "hash" goes.
        before = (
            f'{{"cardcore":{_text(__version__)},"commitment":"{header["commitment"]}",'
            f'"format":{FORMAT},"game":{_text(game.info.name)},"game_id":{_text(game_id)}'
        )
        after = (
            ("" if position is None else f'"position":{_text(position)},')
            + f'"rng":{_text(rng.ALGORITHM)},"rules_version":{_text(version)},'
            f'"setup":{public_text},"setup_hash":"{setup_hash}","type":"header"}}'
        )
        digest = hashlib.sha256(f"{before},{after}".encode()).hexdigest()
        header["hash"] = digest
        full = f'{before},"hash":"{digest}",{after}'.encode()
        self.lines: list[LogLine] = [header]
        self._bytes: list[bytes | tuple[bytes]] = [(full,)]
        """Per line: for an entry it wrote, the bytes it hashed (the canonical entry without
        ``hash``, which :meth:`line_bytes` puts in); for any other line, a 1-tuple of its
        canonical bytes."""
        self._tip = digest
        """The last hash this writer made: a hex string, so its JSON needs no escaping."""

    @property
    def last_hash(self) -> str:
        return str(self.lines[-1]["hash"])

    def line_bytes(self, i: int) -> bytes:
        """The canonical bytes of ``lines[i]``, hash included, without a newline: exactly
        ``codec.canonical_bytes(lines[i])``, the ``i``-th line of :func:`dumps`. O(1), from the
        bytes the line was hashed with (nothing is serialised again). ``i`` may be negative."""
        if len(self._bytes) != len(self.lines):
            self._sync()
        kept = self._bytes[i]
        if isinstance(kept, tuple):
            return kept[0]
        # The hash goes just before the entry's top-level "prev", the last ',"prev":' in it (a
        # quote inside a JSON string is escaped, and events come before prev).
        at = kept.rfind(b',"prev":')
        digest = codec.canonical_bytes(self.lines[i]["hash"])
        return b"".join((kept[:at], b',"hash":', digest, kept[at:]))

    def line_text(self, i: int) -> str:
        """:meth:`line_bytes` as text: ``codec.canonical_text(lines[i])``."""
        return self.line_bytes(i).decode()

    def truncate(self, n: int) -> None:
        """Keep only the first ``n`` lines (line 0 is the header): how a match rewinds."""
        del self.lines[n:]
        del self._bytes[n:]

    def _sync(self) -> None:
        # :attr:`lines` is a public list: should it have been cut or extended directly, bring
        # the bytes in step (a line added from outside is serialised here).
        lines, kept, n = self.lines, self._bytes, len(self.lines)
        if len(kept) > n:
            del kept[n:]
        else:
            kept.extend((codec.canonical_bytes(line),) for line in lines[len(kept) :])

    def entry(
        self, seq: int, at_ms: int, seat: int | None, action: Any, events: list[Any]
    ) -> LogLine:
        """Append an entry from JSON values: the action and the list of events, encoded."""
        encoded = [_Encoded(e, codec.canonical_text(e)) for e in events]
        return self.record(
            seq, at_ms, seat, _Encoded(action, codec.canonical_text(action)), encoded
        )

    def record(
        self, seq: int, at_ms: int, seat: int | None, command: Any, events: Sequence[Any]
    ) -> LogLine:
        """Append an entry from typed values: ``command`` (None for the deal, logged as
        :data:`DEAL_ACTION`) and the events, each encoded once into its JSON value and its
        canonical text (:func:`codec.encode_with_text`). The line is the one :meth:`entry` of
        their encodings gives, faster. Nothing is appended if a value does not encode."""
        # The playouts' hot path: one Python call per value encoded, everything else inline.
        if command is None:
            action, action_text = dict(DEAL_ACTION), _DEAL_TEXT
        else:
            action, action_text = (_ENCODERS.get(type(command)) or _encoder(type(command)))(command)
        if len(events) == 1:
            event = events[0]
            value, text = (_ENCODERS.get(type(event)) or _encoder(type(event)))(event)
            values = [value]
            events_text = f"[{text}]"
        else:
            values = []
            texts = []
            for event in events:
                value, text = (_ENCODERS.get(type(event)) or _encoder(type(event)))(event)
                values.append(value)
                texts.append(text)
            events_text = "[" + ",".join(texts) + "]"
        lines = self.lines
        if len(self._bytes) != len(lines):
            self._sync()
        prev = lines[-1]["hash"]
        if prev is self._tip:  # the hash made last: hex, so its JSON needs no escaping
            prev_text = f'"{prev}"'
        else:
            prev = str(prev)
            prev_text = codec.canonical_text(prev)
        # The canonical entry assembled from its parts, keys in sorted order: action, at_ms,
        # events, prev, seat, seq, type (and "hash" between events and prev; see line_bytes).
        body = (
            f'{{"action":{action_text},'
            f'"at_ms":{at_ms if type(at_ms) is int else codec.canonical_text(at_ms)},'
            f'"events":{events_text},'
            f'"prev":{prev_text},'
            f'"seat":{seat if type(seat) is int else codec.canonical_text(seat)},'
            f'"seq":{seq if type(seq) is int else codec.canonical_text(seq)},'
            '"type":"entry"}'
        ).encode()
        inner, outer = self._inner.copy(), self._outer.copy()  # HMAC-SHA256, see _hmac_pads
        inner.update(body)
        outer.update(inner.digest())
        self._tip = digest = outer.hexdigest()
        line: LogLine = {
            "type": "entry",
            "seq": seq,
            "at_ms": at_ms,
            "seat": seat,
            "action": action,
            "events": values,
            "prev": prev,
            "hash": digest,
        }
        lines.append(line)
        self._bytes.append(body)
        return line

    def end(self, seq: int, outcome: Outcome) -> LogLine:
        if len(self._bytes) != len(self.lines):
            self._sync()
        prev = self.last_hash
        line: LogLine = {
            "type": "end",
            "seq": seq,
            "outcome": encode_outcome(outcome),
            "seed": self._seed,
            "salt": self._salt.hex(),
            "prev": prev,
        }
        # Every key sorts after "hash": the canonical line is "hash" then the hashed body.
        body = (
            f'{{"outcome":{codec.canonical_text(line["outcome"])},"prev":{_text(prev)},'
            f'"salt":"{line["salt"]}","seed":{_text(self._seed)},"seq":{_text(seq)},"type":"end"}}'
        )
        digest = hashlib.sha256(body.encode()).hexdigest()
        line["hash"] = digest
        self.lines.append(line)
        self._bytes.append((f'{{"hash":"{digest}",{body[1:]}'.encode(),))
        self._tip = digest
        return line


def _text(value: Any) -> str:
    """``codec.canonical_text(value)``, quicker for a string or an int."""
    if type(value) is str:
        return _json_string(value)
    if type(value) is int:
        return str(value)
    return codec.canonical_text(value)


_DEAL_TEXT: Final = codec.canonical_text(DEAL_ACTION)


@dataclass(frozen=True, slots=True)
class _Encoded:
    """A JSON value with its canonical text: what :meth:`LogWriter.entry` records."""

    value: Any
    text: str


def _encoded_pair(e: _Encoded) -> tuple[Any, str]:
    return e.value, e.text


_ENCODERS: Final[dict[type, Callable[[Any], tuple[Any, str]]]] = {_Encoded: _encoded_pair}
"""codec.encoder_with_text per type, looked up without a Python call on the hot path."""


def _encoder(cls: type) -> Callable[[Any], tuple[Any, str]]:
    fn = _ENCODERS[cls] = codec.encoder_with_text(cls)
    return fn


_json_string: Final = json.encoder.encode_basestring
"""The JSON of a string as canonical JSON writes it (json.dumps with ensure_ascii=False)."""


# --------------------------------------------------------------------------- reading and writing


def dumps(lines: Iterable[LogLine]) -> bytes:
    """The log as canonical JSON Lines (one line per object, ``\\n`` after each)."""
    return b"".join(codec.canonical_bytes(line) + b"\n" for line in lines)


def loads(data: bytes | str) -> list[LogLine]:
    """Parse JSON Lines into log lines; raises :class:`CorruptLog` naming the line."""
    text = data.decode() if isinstance(data, bytes) else data
    out: list[LogLine] = []
    for n, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = codec.parse_json(raw)
        except DecodeError as exc:
            raise CorruptLog(None, f"line {n} is not valid JSON: {exc.message}") from None
        if not isinstance(obj, dict):
            raise CorruptLog(None, f"line {n} is not a JSON object")
        out.append(obj)
    return out


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
    """Entries that could not be re-decided because they shuffle and the seed is still secret."""


def _game_of(
    header: LogLine, game: Game[Any, Any, Any, Any, Any] | None = None
) -> Game[Any, Any, Any, Any, Any]:
    """The header's game: from the registry, or ``game`` (one that is not registered, e.g. a
    game of your own) when its name is the header's."""
    from .registry import get_game

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
    if not lines or lines[0].get("type") != "header":
        raise CorruptLog(None, "the first line is not a header")
    header = lines[0]
    if header.get("format") != FORMAT:
        raise CorruptLog(None, f"unsupported log format {header.get('format')!r}")
    return header


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
    ``seed``, or 0 while it is secret): only later shuffles would need it."""
    header = _header(lines)
    game = _game_of(header, game)
    if seed is None:
        end = lines[-1] if lines[-1].get("type") == "end" else {}
        seed = end.get("seed", 0) if isinstance(end.get("seed", 0), int) else 0
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
        except Exception as exc:  # a tampered log: evolve trusts its events (rules.md §0.4)
            raise CorruptLog(seq_i, f"an event does not apply: {type(exc).__name__}") from None
        yield ReplayStep(line, command, events, state)


def verify(
    lines: Sequence[LogLine], *, game: Game[Any, Any, Any, Any, Any] | None = None
) -> Report:
    """Check a whole log: header, commitment, hash chain, sequence, and that every action, re-
    decided by the rules from the revealed seed, gives exactly the logged events.

    Raises :class:`CorruptLog` naming the first bad entry's ``seq``. A log without its ``end``
    line (a game in progress) is checked for sequence and links, and every action that does not
    shuffle is re-decided (a shuffle cannot be re-drawn without the seed: those are counted in
    ``unchecked``); hashes and the deal are not checked, and the report says ``revealed=False``.

    ``game`` (also for :func:`replay` and :func:`redact_log`): a game that is not in the
    registry, e.g. one of your own; otherwise the header's game is looked up by name."""
    from .match import Match

    header = _header(lines)
    game = _game_of(header, game)
    if header.get("hash") != _plain_hash(header):
        raise CorruptLog(None, "header hash mismatch: the header was altered")
    end = lines[-1] if lines[-1].get("type") == "end" else None
    body = lines[1:-1] if end is not None else lines[1:]
    salt: bytes | None = None
    seed = 0
    if end is not None:
        end_seq = end.get("seq")
        raw_seed = end.get("seed")
        try:
            salt = bytes.fromhex(str(end["salt"]))
        except (KeyError, ValueError):
            salt = b""
        if (
            not isinstance(raw_seed, int)
            or isinstance(raw_seed, bool)
            or not 0 <= raw_seed <= rng.MAX_SEED
            or len(salt) != SALT_BYTES
        ):
            raise CorruptLog(end_seq, "end line lacks a valid seed and salt")
        seed = raw_seed
        if commitment(seed, salt) != header.get("commitment"):
            raise CorruptLog(end_seq, "revealed seed and salt do not match the header's commitment")
    setup = _setup_of(game, header, seed)

    match: Match[Any, Any, Any, Any, Any] | None = None
    prev = header["hash"]
    last_at = 0
    unchecked = 0
    for expected_seq, line in enumerate(body):
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
        assert match is not None
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
        if end_seq != len(body):
            raise CorruptLog(len(body), f"end line has seq {end_seq!r}, expected {len(body)}")
        if end.get("prev") != prev:
            raise CorruptLog(end_seq, "hash chain broken: prev does not match the previous line")
        if end.get("hash") != _plain_hash(end):
            raise CorruptLog(end_seq, "hash mismatch: the end line was altered")
        outcome = match.outcome if match is not None else None
        if outcome is None:
            raise CorruptLog(end_seq, "the log ends but the game is not over")
        try:
            logged = decode_outcome(end.get("outcome"))
        except DecodeError as exc:
            raise CorruptLog(end_seq, f"outcome does not decode: {exc}") from None
        if logged != outcome:
            raise CorruptLog(end_seq, f"logged outcome {logged} differs from the game's {outcome}")
    elif match is not None and match.outcome is not None:
        raise CorruptLog(len(body), "the game is over but the log has no end line")
    if match is None:
        raise CorruptLog(0, "the log has no deal entry")
    return Report(game.name, len(body), end is not None, match.outcome, unchecked)


def redact_log(
    lines: Sequence[LogLine],
    viewer: Viewer,
    *,
    game: Game[Any, Any, Any, Any, Any] | None = None,
) -> list[LogLine]:
    """The log as ``viewer`` may download it. Before the end: every event redacted for the
    viewer (hashes kept), no seed, no salt. After the end: the seed is public, so the whole log."""
    if lines and lines[-1].get("type") == "end":
        return [dict(line) for line in lines]
    header = _header(lines)
    game = _game_of(header, game)
    out: list[LogLine] = [dict(header)]
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


def terminated(outcome: Outcome | None) -> bool:
    """True for a game that ended by its own rules (not by the event limit)."""
    return outcome is not None and outcome.termination is not Termination.EVENT_LIMIT
