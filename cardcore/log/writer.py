"""Writing a game's log as its actions are accepted: :class:`LogWriter`, what a
:class:`~cardcore.match.Match` records with. The lines themselves are made by
:mod:`cardcore.log.format`."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .. import codec, rng
from ..engine import Game, Outcome, Setup
from ..kit import codegen
from ..races import RACE_KEY, Race, RacePolicy
from ..signatures import SIGNATURE_KEY
from .format import (
    DEAL_ACTION,
    SALT_BYTES,
    LogLine,
    commitment,
    end_line,
    entry_text,
    header_line,
    hmac_pads,
    with_hash,
)


class LogWriter:
    """Builds the lines of one game's log as its actions are accepted.

    :attr:`lines` holds each line as a JSON object. :meth:`line_bytes` gives the same line's
    canonical bytes in O(1), from the text the line was hashed with, so a host that persists the
    log need not serialise a line again. Lines are append-only: do not edit them in place (copy
    them, as :func:`redact_log` does); :meth:`truncate` drops trailing lines.

    An entry's JSON object is built when :attr:`lines` is first read, not as it is recorded: a
    game whose log is only hashed and written out (:meth:`line_bytes`, :attr:`line_count`)
    never builds one. From that first read on, the list it gives is kept up to date as each
    entry is recorded (its holder may keep it)."""

    def __init__(
        self,
        game: Game[Any, Any, Any, Any, Any],
        setup: Setup[Any],
        salt: bytes,
        game_id: str | None,
        *,
        position: str | None = None,
        rules_version: str | None = None,
        server_seed: int | None = None,
        contributions: Sequence[tuple[int, bytes]] | None = None,
        committed: Collection[int] = (),
        sign: Callable[[str], dict[str, str]] | None = None,
    ) -> None:
        """``position``: the referee's notation of the position the game starts from, recorded
        in the header (a header without it is a game dealt from the seed). ``rules_version``:
        an earlier version the game still replays (:attr:`GameInfo.replays_versions`), to
        re-record a game that was started under it; the game's own by default.

        ``contributions`` (with ``server_seed``) writes log format 2: the header commits to
        ``server_seed`` and records the seats' entropy, ``setup.seed`` must be
        :func:`cardcore.rng.derive_deal_seed` of both, and the end line reveals the server seed;
        ``committed``, the seats whose entropy was committed before the start (docs/rng.md,
        "Committed entropy"): the header records each one's commitment.
        ``sign``: the host's signature of a line's hash (:mod:`cardcore.signatures`), added to
        the header and the end line as ``"signature"``."""
        version = game.info.rules_version if rules_version is None else rules_version
        if version != game.info.rules_version and version not in game.info.replays_versions:
            raise ValueError(f"{game.name} does not replay rules_version {version!r}")
        if len(salt) != SALT_BYTES:
            raise ValueError(f"salt must be {SALT_BYTES} bytes")
        self._salt = salt
        self._inner, self._outer = hmac_pads(salt)
        self._sign = sign
        self._seed = setup.seed
        """What the end line reveals: the seed the header commits to."""
        if contributions is not None:
            if server_seed is None:
                raise ValueError("contributions need the server seed they are mixed with")
            if rng.derive_deal_seed(server_seed, contributions) != setup.seed:
                raise ValueError("setup.seed is not the deal seed of server_seed and contributions")
            self._seed = server_seed
        self.race: Race | None = None
        """Set by the host (:class:`~cardcore.match.Match`) before an action of a game under
        ``race_policy: "compensated"`` is recorded: the entry records it (log format 3)."""
        header, header_bytes = header_line(
            game.info.name,
            version,
            setup.public_json(),
            commits_to=commitment(self._seed, salt),
            game_id=game_id,
            contributions=contributions,
            committed=committed,
            position=position,
            raced=RacePolicy.of_rules(setup.rules).compensated,
        )
        if sign is not None:
            header[SIGNATURE_KEY] = sign(header["hash"])
            header_bytes = codec.canonical_bytes(header)
        self._lines: list[LogLine] = [header]
        """The lines whose JSON objects are built; after them, the entries of :attr:`_pending`."""
        self._pending: list[_Pending | LogLine] = []
        """The lines recorded while :attr:`lines` has never been read: an entry's fields (see
        :data:`_Pending`), or a line built (a raced entry's, the end line)."""
        self._shown = False
        """Whether :attr:`lines` has been read: from then on each entry's object is built as
        it is recorded, into the list that was handed out."""
        self._bytes: list[bytes | tuple[bytes]] = [(header_bytes,)]
        """Per line: for an entry it wrote, the bytes it hashed (the canonical entry without
        ``hash``, which :meth:`line_bytes` puts in); for any other line, a 1-tuple of its
        canonical bytes."""
        self._tip: str = header["hash"]
        """The last hash this writer made: a hex string, so its JSON needs no escaping."""

    @property
    def lines(self) -> list[LogLine]:
        """Each line as a JSON object (a list the host may keep: it grows as entries are
        recorded)."""
        if self._pending:
            self._build()
        self._shown = True
        return self._lines

    @property
    def line_count(self) -> int:
        """``len(lines)``, without building the lines' objects."""
        return len(self._lines) + len(self._pending)

    @property
    def last_hash(self) -> str:
        return str(self._last())

    def _last(self) -> Any:
        """The last line's ``hash``, as the line holds it."""
        return _hash_of(self._pending[-1]) if self._pending else self._lines[-1]["hash"]

    def line_bytes(self, i: int) -> bytes:
        """The canonical bytes of ``lines[i]``, hash included, without a newline: exactly
        ``codec.canonical_bytes(lines[i])``, the ``i``-th line of :func:`dumps`. O(1), from the
        bytes the line was hashed with (nothing is serialised again). ``i`` may be negative."""
        if len(self._bytes) != self.line_count:
            self._sync()
        kept = self._bytes[i]
        if isinstance(kept, tuple):
            return kept[0]
        built = len(self._lines)
        at = i + len(self._bytes) if i < 0 else i
        if at < built:
            return with_hash(kept, self._lines[at]["hash"])
        return with_hash(kept, _hash_of(self._pending[at - built]))

    def line_text(self, i: int) -> str:
        """:meth:`line_bytes` as text: ``codec.canonical_text(lines[i])``."""
        return self.line_bytes(i).decode()

    def truncate(self, n: int) -> None:
        """Keep only the first ``n`` lines (line 0 is the header): how a match rewinds."""
        built = len(self._lines)
        if n < built:
            del self._lines[n:]
            self._pending.clear()
        else:
            del self._pending[n - built :]
        del self._bytes[n:]

    def _build(self) -> None:
        """Build the JSON objects of the entries recorded since :attr:`lines` was last read."""
        lines = self._lines
        for item in self._pending:
            if isinstance(item, dict):
                lines.append(item)
                continue
            seq, at_ms, seat, command, events, prev, digest = item
            # the values alone: their texts were written and hashed as they were recorded
            action = dict(DEAL_ACTION) if command is None else _value(command)
            values = [_value(event) for event in events]
            lines.append(_entry_line(seq, at_ms, seat, action, values, prev=prev, digest=digest))
        self._pending.clear()

    def _append(self, line: LogLine) -> None:
        """Append a line built (after any pending)."""
        if self._shown:
            self._lines.append(line)
        else:
            self._pending.append(line)

    def _sync(self) -> None:
        # :attr:`lines` is a public list: should it have been cut or extended directly (only
        # once it has been read, so with nothing pending), bring the bytes in step (a line added
        # from outside is serialised here).
        if self._pending:
            self._build()
        lines, kept, n = self._lines, self._bytes, len(self._lines)
        if len(kept) > n:
            del kept[n:]
        else:
            kept.extend((codec.canonical_bytes(line),) for line in lines[len(kept) :])

    def entry(self, seq: int, at_ms: int, seat: int | None, action: Any, events: list[Any]) -> None:
        """Append an entry from JSON values: the action and the list of events, encoded."""
        encoded = [_Encoded(e, codec.canonical_text(e)) for e in events]
        self.record(seq, at_ms, seat, _Encoded(action, codec.canonical_text(action)), encoded)

    def record(
        self, seq: int, at_ms: int, seat: int | None, command: Any, events: Sequence[Any]
    ) -> None:
        """Append an entry from typed values: ``command`` (None for the deal, logged as
        :data:`DEAL_ACTION`) and the events. The line is the one :meth:`entry` of their
        encodings (:func:`codec.encode_with_text`) gives, faster. Nothing is appended if a value
        does not encode. Nothing is returned: the entry's JSON object is built when
        :attr:`lines` is read, from the values (records are immutable), which are only written
        as text (:func:`codec.text_encoder`) until then."""
        # The playouts' hot path: one Python call per value encoded, one for the entry's text.
        if self.race is not None:
            self._raced(seq, at_ms, seat, command, events, race=self.race)
            return
        if self._shown:  # the line is built now: each value encoded once, with its text
            self._record_built(seq, at_ms, seat, command, events)
            return
        if command is None:
            action_text = _DEAL_TEXT
        else:
            action_text = (_TEXTS.get(type(command)) or _text_encoder(type(command)))(command)
        if len(events) == 1:  # the common case, without the loop
            event = events[0]
            texts = [(_TEXTS.get(type(event)) or _text_encoder(type(event)))(event)]
        else:
            texts = [(_TEXTS.get(type(e)) or _text_encoder(type(e)))(e) for e in events]
        prev, digest = self._link(seq, at_ms, seat, action_text, texts)
        self._pending.append((seq, at_ms, seat, command, tuple(events), prev, digest))

    def _record_built(
        self, seq: int, at_ms: int, seat: int | None, command: Any, events: Sequence[Any]
    ) -> None:
        """:meth:`record` once :attr:`lines` has been read: the line built as it is recorded."""
        if command is None:
            action, action_text = dict(DEAL_ACTION), _DEAL_TEXT
        else:
            action, action_text = _pair(command)
        values = []
        texts = []
        for event in events:
            value, text = _pair(event)
            values.append(value)
            texts.append(text)
        prev, digest = self._link(seq, at_ms, seat, action_text, texts)
        self._lines.append(_entry_line(seq, at_ms, seat, action, values, prev=prev, digest=digest))

    def _link(
        self, seq: int, at_ms: int, seat: int | None, action: str, events: list[str]
    ) -> tuple[str, str]:
        """Hash an entry from its parts' texts and keep the bytes hashed: its prev and hash."""
        # line_count, written out: this runs once an entry, on the playouts' hot path
        if len(self._bytes) != len(self._lines) + len(self._pending):
            self._sync()
        prev = self._last()
        if prev is self._tip:  # the hash made last: hex, so its JSON needs no escaping
            prev_text = f'"{prev}"'
        else:  # a line added from outside: its hash linked as text
            prev = str(prev)
            prev_text = codec.canonical_text(prev)
        body = entry_text(seq, at_ms, seat, action, events, prev=prev_text).encode()
        self._tip = digest = self._keyed(body)
        self._bytes.append(body)
        return prev, digest

    def _keyed(self, body: bytes) -> str:
        """An entry's hash: HMAC-SHA256 of ``body`` under the salt (the pads of hmac_pads)."""
        inner, outer = self._inner.copy(), self._outer.copy()
        inner.update(body)
        outer.update(inner.digest())
        return str(outer.hexdigest())

    def _raced(
        self,
        seq: int,
        at_ms: int,
        seat: int | None,
        command: Any,
        events: Sequence[Any],
        *,
        race: Race,
    ) -> LogLine:
        """:meth:`record` of an entry with its race record (log format 3): the line is built
        and hashed as any line is (:func:`keyed_hash`), not by the fast path's template."""
        if len(self._bytes) != self.line_count:
            self._sync()
        line: LogLine = {
            "type": "entry",
            "seq": seq,
            "at_ms": at_ms,
            "seat": seat,
            "action": dict(DEAL_ACTION) if command is None else _value(command),
            "events": [_value(e) for e in events],
            "prev": self._last(),
            RACE_KEY: race.json(),
        }
        body = codec.canonical_bytes(line)
        line["hash"] = self._tip = self._keyed(body)
        self._bytes.append(body)
        self._append(line)
        return line

    def end(self, seq: int, outcome: Outcome) -> LogLine:
        """Append the end line: the outcome, and the seed and salt revealed."""
        if len(self._bytes) != self.line_count:
            self._sync()
        line, line_bytes = end_line(seq, outcome, self._seed, self._salt, self.last_hash)
        if self._sign is not None:
            line[SIGNATURE_KEY] = self._sign(line["hash"])
            line_bytes = codec.canonical_bytes(line)
        self._bytes.append((line_bytes,))
        self._append(line)
        self._tip = line["hash"]
        return line


_DEAL_TEXT: Final = codec.canonical_text(DEAL_ACTION)

_Pending = tuple[int, int, "int | None", Any, tuple[Any, ...], str, str]
"""An entry recorded and not yet built: seq, at_ms, seat, the command (None: the deal), the
events, prev and hash."""
_HASH: Final = 6


def _entry_line(
    seq: int,
    at_ms: int,
    seat: int | None,
    action: Any,
    values: list[Any],
    *,
    prev: str,
    digest: str,
) -> LogLine:
    return {
        "type": "entry",
        "seq": seq,
        "at_ms": at_ms,
        "seat": seat,
        "action": action,
        "events": values,
        "prev": prev,
        "hash": digest,
    }


def _hash_of(line: _Pending | LogLine) -> Any:
    """A pending line's hash."""
    return line["hash"] if isinstance(line, dict) else line[_HASH]


@dataclass(frozen=True, slots=True)
class _Encoded:
    """A JSON value with its canonical text: what :meth:`LogWriter.entry` records."""

    value: Any
    text: str


def _value(value: Any) -> Any:
    """A typed value's JSON, or the JSON an :class:`_Encoded` holds."""
    return value.value if isinstance(value, _Encoded) else codec.encode(value)


def _encoded_pair(e: _Encoded) -> tuple[Any, str]:
    return e.value, e.text


_ENCODERS: Final[dict[type, Callable[[Any], tuple[Any, str]]]] = {_Encoded: _encoded_pair}
"""codec.encoder_with_text per type, looked up without a Python call on the hot path."""


def _encoded_text(e: _Encoded) -> str:
    return e.text


_TEXTS: Final[dict[type, Callable[[Any], str]]] = {_Encoded: _encoded_text}
"""codec.text_encoder per type, as :data:`_ENCODERS`."""


def _pair(value: Any) -> tuple[Any, str]:
    """A value's JSON and text, by its type's encoder."""
    return (_ENCODERS.get(type(value)) or _encoder(type(value)))(value)


def _text_encoder(cls: type) -> Callable[[Any], str]:
    """:func:`_encoder` of the text only (:func:`codec.text_encoder`), made the same way."""
    source = None if codegen.COMPILED else codec.pair_source(cls, text=True)
    if source is None:
        fn = codec.text_encoder(cls)
    else:
        body, names = source
        fn = codegen.function("text", ["v"], body, names)
    _TEXTS[cls] = fn
    return fn


def _encoder(cls: type) -> Callable[[Any], tuple[Any, str]]:
    """A record's encoder: in the interpreted build, compiled by the kit from the source the
    codec writes of it (:func:`codec.pair_source`, straight-line code: 0.77-0.82 of the
    closures' time a value over Ratscrew's, Palace's and Spit's playouts); else, and where the
    codec writes none, the codec's closure. In the compiled build the closures are native code,
    and the interpreted source was slower than them (7 %, before they were made faster)."""
    source = None if codegen.COMPILED else codec.pair_source(cls)
    if source is None:
        fn = codec.encoder_with_text(cls)
    else:
        body, names = source
        fn = codegen.function("pair", ["v"], body, names)
    _ENCODERS[cls] = fn
    return fn
