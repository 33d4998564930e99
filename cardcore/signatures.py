"""Signed logs: what a server's Ed25519 signature on a log's header and end line proves, and
how to check it (docs/log-format.md, "Signatures").

A signing server adds ``"signature": {"alg": "ed25519", "key": K, "sig": S}`` to the header and
to the end line. ``S`` signs :func:`message` of the line's ``hash`` (which is computed without
the ``signature`` key, so adding it changes no hash); ``K`` is the server's public key (32 bytes,
base64url without padding). The header's signature proves which server committed to the seed;
the end line's, by the hash chain, every line of the log.

Checking uses cardcore's own Ed25519 verifier (:mod:`cardcore.ed25519`, standard library only),
so the ``cardcore`` command, the web page and the Node verifier (both running cardcore under
Pyodide) check signatures alike, with no ``cryptography`` package. Signing stays the server's
(``cardcore_server.signing``).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from typing import Any, Final

from . import ed25519
from .errors import CorruptLog

ALG: Final = "ed25519"
DOMAIN: Final = b"cardcore-log-signature/1\n"
"""Prefixed to the hash signed, so a signature on a log line is never one on anything else."""
SIGNATURE_KEY: Final = "signature"


def message(line_hash: str) -> bytes:
    """The bytes a server signs for a line whose ``hash`` is ``line_hash`` (hex)."""
    return DOMAIN + line_hash.encode("ascii")


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64(text: str) -> bytes:
    """base64url without padding, strictly: only the one spelling :func:`b64` writes (so a
    signature or key has exactly one text, and a changed character never still checks)."""
    if not isinstance(text, str) or text.strip(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    ):
        raise ValueError("not base64url")
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if b64(raw) != text:
        raise ValueError("not the canonical base64url of its bytes")
    return raw


def parse_key(text: str) -> bytes:
    """A public key as given on a command line: base64url (as ``/v1/server`` publishes it), or
    64 hex digits. Raises ``ValueError``."""
    text = text.strip()
    try:
        raw = bytes.fromhex(text) if len(text) == 64 else unb64(text)
    except (ValueError, binascii.Error, TypeError):
        raise ValueError("not an Ed25519 public key (base64url or hex of 32 bytes)") from None
    if len(raw) != 32:
        raise ValueError("an Ed25519 public key is 32 bytes")
    return raw


def signer_of(lines: Sequence[dict[str, Any]]) -> str | None:
    """The public key a log's header says signed it (None: an unsigned log)."""
    sig = lines[0].get(SIGNATURE_KEY) if lines else None
    return str(sig.get("key")) if isinstance(sig, dict) else None


def check(lines: Sequence[dict[str, Any]], key: bytes) -> int:
    """Check the signatures of a log's header and (if present) end line against ``key``;
    returns how many were checked. Raises :class:`~cardcore.errors.CorruptLog` naming the line
    (an unsigned line, another key, a bad signature)."""
    check_line(lines[0], key, None)
    if lines and lines[-1].get("type") == "end":
        check_line(lines[-1], key, lines[-1].get("seq"))
        return 2
    return 1


def check_line(line: dict[str, Any], key: bytes, seq: Any) -> None:
    """Check one signed line — the header (``seq`` None) or the end line — against ``key``;
    raises :class:`~cardcore.errors.CorruptLog` at ``seq`` saying what the failure means."""
    where = "the header" if seq is None else "the end line"
    at = seq if isinstance(seq, int) and not isinstance(seq, bool) else None
    sig = line.get(SIGNATURE_KEY)
    if not isinstance(sig, dict) or set(sig) != {"alg", "key", "sig"} or sig["alg"] != ALG:
        raise CorruptLog(at, f"{where} is not signed (an Ed25519 signature was expected)")
    if sig.get("key") != b64(key):
        raise CorruptLog(at, f"{where} is signed by another key: {str(sig.get('key'))[:60]!r}")
    try:
        raw = unb64(str(sig.get("sig")))
    except (ValueError, binascii.Error):
        raw = b""
    if ed25519.verify(key, raw, message(str(line.get("hash")))):
        return
    if seq is None:
        raise CorruptLog(
            None,
            "the header is not the one the server signed: it was changed after signing (and "
            "with it, maybe, the seed it commits to)",
        )
    raise CorruptLog(
        at,
        "the end line is not the one the server signed: a line of this log was changed after "
        "signing (through the hash chain, the end line's signature covers every line; which "
        "one, the receipts of a player can show: --receipts MINE FINAL)",
    )
