"""A ladder's directory: its Ed25519 key, its signed manifest and where each file lives.

``DIR/ladder.key`` holds the secret key (base64url of 32 random bytes, mode 0600) and
``DIR/ladder.pub`` its public half; every game's log (``DIR/games/<id>.log``) is signed with it
(:mod:`cardcore.signatures`: the header and the end line, which covers every line by the hash
chain), and so is ``DIR/manifest.json``: the ladder's configuration, each round's pairings, and
for each game in the schedule's order its id, its seats, the SHA-256 of its log and the faults
the referee reported. The manifest's signature is over its ``body`` in canonical JSON
(:func:`cardcore.codec.canonical_bytes`), prefixed by :data:`MANIFEST_DOMAIN` so that it is never
a signature on anything else.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from .. import codec, ed25519
from ..signatures import ALG, b64, message, parse_key, unb64

KEY_FILE: Final = "ladder.key"
PUBLIC_FILE: Final = "ladder.pub"
MANIFEST_FILE: Final = "manifest.json"
RESULTS_FILE: Final = "results.json"
TABLE_FILE: Final = "results.md"
CHART_FILE: Final = "ratings.png"
GAMES_DIR: Final = "games"
MANIFEST_TYPE: Final = "cardcore-ladder-manifest/1"
MANIFEST_DOMAIN: Final = b"cardcore-ladder-manifest/1\n"


def log_path(root: Path, game_id: str) -> Path:
    return root / GAMES_DIR / f"{game_id}.log"


def load_or_make_key(root: Path) -> bytes:
    """The secret key in ``root/ladder.key``; made from ``os.urandom`` (mode 0600, with
    ``ladder.pub``) when there is none."""
    path = root / KEY_FILE
    if path.exists():
        try:
            secret = unb64(path.read_text().strip())
        except ValueError:
            raise ValueError(f"{path}: not a ladder key (base64url of 32 bytes)") from None
        if len(secret) != 32:
            raise ValueError(f"{path}: a ladder key is 32 bytes, this one {len(secret)}")
    else:
        secret = os.urandom(32)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(b64(secret) + "\n")
    (root / PUBLIC_FILE).write_text(b64(ed25519.public_key(secret)) + "\n")
    return secret


def read_public_key(root: Path, given: str | None) -> bytes:
    """The key to verify with: ``given`` (base64url or hex, or a file holding it), else the
    directory's ``ladder.pub``."""
    if given is not None:
        text = Path(given).read_text() if Path(given).is_file() else given
    else:
        text = (root / PUBLIC_FILE).read_text()
    return parse_key(text)


def log_signer(secret: bytes) -> Callable[[str], dict[str, str]]:
    """The ``sign=`` of a :class:`~cardcore.match.Match`: the signature object of a log line
    with this hash (:mod:`cardcore.signatures`)."""
    key = ed25519.SigningKey(secret)  # its public key worked out once, not per signature
    public = b64(key.public)

    def sign(line_hash: str) -> dict[str, str]:
        return {"alg": ALG, "key": public, "sig": b64(key.sign(message(line_hash)))}

    return sign


def _manifest_message(body: dict[str, Any]) -> bytes:
    return MANIFEST_DOMAIN + hashlib.sha256(codec.canonical_bytes(body)).hexdigest().encode()


def signed_manifest(body: dict[str, Any], secret: bytes) -> bytes:
    """``manifest.json``'s bytes: ``{"body": …, "signature": {alg, key, sig}}``."""
    signature = {
        "alg": ALG,
        "key": b64(ed25519.public_key(secret)),
        "sig": b64(ed25519.sign(secret, _manifest_message(body))),
    }
    return (
        json.dumps({"body": body, "signature": signature}, indent=1, sort_keys=True) + "\n"
    ).encode()


def checked_manifest(data: bytes, key: bytes) -> dict[str, Any]:
    """The body of a manifest whose signature is ``key``'s; ``ValueError`` saying what fails."""
    try:
        doc = json.loads(data)
    except ValueError as exc:
        raise ValueError(f"manifest.json is not JSON: {exc}") from None
    if not isinstance(doc, dict) or set(doc) != {"body", "signature"}:
        raise ValueError("manifest.json: an object with body and signature was expected")
    body, sig = doc["body"], doc["signature"]
    if not isinstance(body, dict) or body.get("type") != MANIFEST_TYPE:
        raise ValueError(f"manifest.json: body.type is not {MANIFEST_TYPE!r}")
    if not isinstance(sig, dict) or sig.get("alg") != ALG or sig.get("key") != b64(key):
        raise ValueError(f"manifest.json is not signed by the key {b64(key)}")
    try:
        raw = unb64(str(sig.get("sig")))
        good = ed25519.verify(key, raw, _manifest_message(body))
    except (ValueError, TypeError):
        good = False
    if not good:
        raise ValueError(
            "manifest.json: the signature does not match its body (changed after signing)"
        )
    return body


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
