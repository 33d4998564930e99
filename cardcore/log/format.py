"""The log's lines as bytes: the one place that writes a header, an entry or an end line and
hashes it (docs/log-format.md).

A line is one JSON object written canonically (:func:`cardcore.codec.canonical_bytes`: sorted keys,
compact, UTF-8, integers only). The header and the end line are built here as objects and written
by the codec; an entry, written on every accepted action, is assembled from the canonical texts of
its parts by :func:`entry_text`, which gives exactly the codec's bytes of the same object
(tests/unit/test_log_fast.py holds the two equal) without encoding the action and events twice.
Whoever needs an entry's bytes (the writer, the service's transports) asks :func:`entry_text`.

The hashes: a header's and an end line's are plain sha256 of the line without ``hash`` (and
without the marks that are not part of the line's content: ``copy``, ``signature``); an entry's
is HMAC-SHA256 keyed with the game's secret salt, so a viewer who sees an entry's hash but not its
hidden cards cannot test guesses against it.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Collection, Iterable, Sequence
from typing import Any, Final

from .. import codec, rng
from ..engine import Outcome
from ..errors import CorruptLog, DecodeError
from ..signatures import SIGNATURE_KEY
from ..version import __version__

LogLine = dict[str, Any]

FORMAT: Final = 1
"""A log whose game deals from the seed the header commits to."""
FORMAT_2: Final = 2
"""A log whose game deals from a seed derived from the committed server seed and the players'
entropy, which the header records (``contributions``; docs/rng.md, "The deal seed")."""
FORMAT_3: Final = 3
"""A log of a game under ``race_policy: "compensated"`` (docs/games/common.md#race-policy): every
entry after the deal records its race (``received_ms``, ``delay_ms``, ``clamped``) and its
``at_ms`` is the credited time. The header is format 1's or format 2's otherwise (with or without
``contributions``). A cardcore that predates it refuses it rather than verify it unchecked."""
FORMATS: Final = (FORMAT, FORMAT_2, FORMAT_3)
SALT_BYTES: Final = 16
DEAL_ACTION: Final = {"kind": "Deal"}
ABORT_KIND: Final = "Abort"
"""The kind of the host's action that ends a game at once (:meth:`Match.abort`): an entry
with no seat, action ``{"kind": "Abort", "by": ...}`` and no events."""
COPY_KEY: Final = "copy"
"""The header key that marks a viewer's copy (:func:`redact_log`): ``{"viewer": "0"}`` for a
seat, ``{"viewer": "spectator"}``. :func:`header_hash` leaves it out, so the copy's header still
proves the log's header."""
RECEIPTS_TYPE: Final = "receipts"
"""``type`` of the first line of a receipts file (:func:`check_copy`)."""
ENTRY_FIELDS: Final = ("seq", "at_ms", "seat", "action", "events", "prev", "hash")
"""What a receipt of an entry carries: the entry as the viewer was shown it, ``type`` aside."""

_SHA256_BLOCK: Final = 64
_HASH_KEY: Final = '"hash":'
_TYPED_END: Final = ',"type":"entry"}'


# --------------------------------------------------------------------------- the host's abort


def abort_action(by: str) -> dict[str, Any]:
    """The logged action of a host's abort."""
    return {"kind": ABORT_KIND, "by": by}


def abort_by(line: LogLine) -> str | None:
    """Who aborted, when ``line`` is a host's abort entry (seat null, after the deal)."""
    action = line.get("action")
    if line.get("seat") is not None or line.get("seq") == 0 or not isinstance(action, dict):
        return None
    if action.get("kind") != ABORT_KIND or set(action) != {"kind", "by"}:
        return None
    by = action.get("by")
    return by if isinstance(by, str) else None


# --------------------------------------------------------------------------- hashes


def commitment(seed: int, salt: bytes) -> str:
    """``sha256(seed ‖ salt)`` in hex, the seed as 8 bytes big-endian: published before the deal."""
    return hashlib.sha256(seed.to_bytes(8, "big") + salt).hexdigest()


def header_hash(header: LogLine) -> str:
    """The hash a header must carry: the plain sha256 of the canonical header without ``hash``,
    without :data:`COPY_KEY` (the mark of a viewer's copy) and without the server's
    ``signature`` (which signs this hash: :mod:`cardcore.signatures`)."""
    body = {k: v for k, v in header.items() if k not in ("hash", COPY_KEY, SIGNATURE_KEY)}
    return _plain_digest(codec.canonical_text(body))


def plain_hash(line: LogLine) -> str:
    """The hash an end line carries: without ``hash`` and the server's ``signature`` (which
    signs it)."""
    body = {k: v for k, v in line.items() if k != "hash" and k != SIGNATURE_KEY}
    return _plain_digest(codec.canonical_text(body))


def _plain_digest(body: str) -> str:
    """The hash of a header or an end line, from its canonical text without what its hash
    leaves out (:func:`header_hash`, :func:`plain_hash`): sha256, in hex."""
    return hashlib.sha256(body.encode()).hexdigest()


def keyed_hash(salt: bytes, line: LogLine) -> str:
    """The hash an entry carries: HMAC-SHA256 under the salt of the entry without ``hash``."""
    body = {k: v for k, v in line.items() if k != "hash"}
    return hmac.digest(salt, codec.canonical_bytes(body), "sha256").hex()


def hmac_pads(key: bytes) -> tuple[Any, Any]:
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


# --------------------------------------------------------------------------- the three lines


def header_line(
    game: str,
    rules_version: str,
    setup: dict[str, Any],
    *,
    commits_to: str,
    game_id: str | None,
    contributions: Sequence[tuple[int, bytes]] | None = None,
    committed: Collection[int] = (),
    position: str | None = None,
    raced: bool = False,
) -> tuple[LogLine, bytes]:
    """A header, hashed (:func:`header_hash`), and its canonical bytes: ``setup`` is the public
    setup (:meth:`Setup.public_json`), ``commits_to`` the :func:`commitment`; ``contributions``
    make it a format-2 header, ``committed`` names the seats among them that committed to their
    entropy before revealing it (each such entry carries its ``commitment``); ``position``, the
    referee's notation of a start position; ``raced`` (a game under ``race_policy:
    "compensated"``), format 3. The host's signature, if any, is added to it afterwards."""
    # The setup is written once, for setup_hash and for the header: each value's text is made
    # once and joined twice, without the hash (what is hashed) and with it (the line's bytes).
    setup_text = codec.canonical_text(setup)
    header: LogLine = {
        "type": "header",
        "format": FORMAT_3 if raced else FORMAT if contributions is None else FORMAT_2,
        "game": game,
        "rules_version": rules_version,
        "cardcore": __version__,
        "rng": rng.ALGORITHM,
        "setup": setup,
        "setup_hash": hashlib.sha256(setup_text.encode()).hexdigest(),
        "commitment": commits_to,
        "game_id": game_id,
    }
    if contributions is not None:
        header["seed_derivation"] = rng.DERIVATION
        header["contributions"] = [
            _contribution(seat, entropy, seat in committed)
            for seat, entropy in sorted(contributions)
        ]
    if position is not None:
        header["position"] = position
    texts = {k: setup_text if k == "setup" else codec.value_text(v) for k, v in header.items()}
    header["hash"] = digest = _plain_digest(codec.object_text(texts))  # header_hash's
    texts["hash"] = f'"{digest}"'
    return header, codec.object_text(texts).encode()


def _contribution(seat: int, entropy: bytes, committed: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"seat": seat, "entropy": entropy.hex()}
    if committed:
        out["commitment"] = rng.entropy_commitment(entropy)
    return out


def entry_text(
    seq: int,
    at_ms: int,
    seat: int | None,
    action: str,
    events: Sequence[str],
    *,
    prev: str,
    digest: str | None = None,
    typed: bool = True,
) -> str:
    """An entry's canonical JSON text assembled from the canonical JSON texts of its parts
    (:func:`cardcore.codec.canonical_text`): ``action``, each of ``events``, ``prev`` (the
    previous line's hash, ``'"9f2c…"'``) and ``digest`` (the entry's own). ``seq``, ``at_ms``
    and ``seat`` are given as values (ints, or None for no seat). Exactly ``codec.canonical_text``
    of the entry object, without encoding its parts again.

    Without ``digest``: the text the entry's hash is computed over (:func:`keyed_hash`). With
    it: the entry as a line of the log. ``typed=False`` leaves ``"type"`` out: the entry as the
    service sends it to a viewer (the action and events given then being the viewer's)."""
    # The keys in sorted order: action, at_ms, events, hash, prev, seat, seq, type. An int (the
    # rule; :meth:`LogWriter.record` accepts any JSON value) is written as str() writes it. One
    # expression, no helper called: the writer makes every entry with it.
    return (
        f'{{"action":{action},'
        f'"at_ms":{at_ms if type(at_ms) is int else codec.canonical_text(at_ms)},'
        f'"events":[{",".join(events)}],'
        f"{'' if digest is None else _HASH_KEY + digest + ','}"
        f'"prev":{prev},'
        f'"seat":{seat if type(seat) is int else codec.canonical_text(seat)},'
        f'"seq":{seq if type(seq) is int else codec.canonical_text(seq)}'
        f"{_TYPED_END if typed else '}'}"
    )


def with_hash(body: bytes, line_hash: str) -> bytes:
    """The entry line from the bytes its hash was computed over (:func:`entry_text` without
    ``digest``) and that hash (the value, not its text): ``entry_text`` with ``digest``, without
    assembling it again. The hash goes just before the entry's top-level ``"prev"``, the last
    ``,"prev":`` in it (a quote inside a JSON string is escaped, and the events come before
    prev)."""
    at = body.rfind(b',"prev":')
    return b"".join((body[:at], b',"hash":', codec.canonical_bytes(line_hash), body[at:]))


def end_line(
    seq: int, outcome: Outcome, seed: int, salt: bytes, prev: str
) -> tuple[LogLine, bytes]:
    """The end line, hashed (:func:`plain_hash`): the outcome, and the seed and salt revealed;
    and its canonical bytes."""
    line: LogLine = {
        "type": "end",
        "seq": seq,
        "outcome": encode_outcome(outcome),
        "seed": seed,
        "salt": salt.hex(),
        "prev": prev,
    }
    body = codec.canonical_text(line)
    line["hash"] = digest = _plain_digest(body)  # plain_hash's
    # Written once: "hash" sorts before every other key of the line, so it goes first.
    return line, f'{{"hash":"{digest}",{body[1:]}'.encode()


def encode_outcome(outcome: Outcome) -> dict[str, Any]:
    out = codec.encode(outcome)
    del out[codec.KIND]
    return out  # type: ignore[no-any-return]


def decode_outcome(data: Any, path: str = "outcome") -> Outcome:
    data = dict(data, kind="Outcome") if isinstance(data, dict) else data
    return codec.decode(Outcome, data, path)  # type: ignore[no-any-return]


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
        except (ValueError, RecursionError) as unreadable:  # an integer too long, too deep
            what = type(unreadable).__name__
            raise CorruptLog(None, f"line {n} is not valid JSON: {what}") from None
        if not isinstance(obj, dict):
            raise CorruptLog(None, f"line {n} is not a JSON object")
        out.append(obj)
    return out


def json_eq(a: Any, b: Any) -> bool:
    """Equal as JSON (``True`` is not ``1``, as ``==`` would have it)."""
    try:
        return codec.canonical_text(a) == codec.canonical_text(b)
    except (TypeError, ValueError, RecursionError):
        return False


def is_digest(value: object) -> bool:
    """A sha256 digest as the log writes one: 64 lowercase hex digits."""
    return (
        isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)
    )
