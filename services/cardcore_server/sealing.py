"""Secrets at rest: the seeds and salts of games, sealed with AES-GCM under a key the operator
gives (``--secrets-key`` / ``CARDCORE_SECRETS_KEY_FILE``), so a copy of the database file alone
does not reveal the deal of a game still in play. A finished game needs no secrecy (its end
line reveals both), so only these two columns are sealed; everything else stays readable.

A sealed seed is stored as ``enc1:<base64url(nonce ‖ ciphertext)>`` and a sealed salt as
``b"enc1:" + nonce + ciphertext``; the game's id is the associated data, so a sealed value
copied onto another game does not open. A store holding sealed values refuses to serve without
the key (it says so), and a key may be added to a store of plaintext ones: new games are
sealed, earlier ones stay readable.
"""

from __future__ import annotations

import base64
import binascii
import os
from pathlib import Path
from typing import Final

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM


class SealError(RuntimeError):
    """A sealed value that cannot be opened (no key, or another key); the store reports it as
    a :class:`~.store.StoreError`."""


PREFIX: Final = "enc1:"
_NONCE: Final = 12


def read_key(text_or_path: str) -> bytes:
    """A 32-byte key: 64 hex digits, base64 of 32 bytes, or a file holding either."""
    raw = text_or_path.strip()
    path = Path(raw)
    if len(raw) < 200 and path.is_file():
        raw = path.read_text(encoding="utf-8").strip()
    try:
        key = bytes.fromhex(raw) if len(raw) == 64 else base64.b64decode(raw, validate=True)
    except (ValueError, binascii.Error):
        raise ValueError("--secrets-key: 32 bytes as 64 hex digits or base64") from None
    if len(key) != 32:
        raise ValueError("--secrets-key: the key must be 32 bytes (AES-256)")
    return key


class Sealer:
    """Seals and opens the seed and salt of a game (``key`` None: plaintext, and sealed values
    are refused with a clear error)."""

    def __init__(self, key: bytes | None = None) -> None:
        self._aead = AESGCM(key) if key is not None else None

    def seed(self, game_id: str, seed: int) -> str:
        if self._aead is None:
            return str(seed)
        nonce = os.urandom(_NONCE)
        sealed = self._aead.encrypt(nonce, str(seed).encode(), game_id.encode())
        return PREFIX + base64.urlsafe_b64encode(nonce + sealed).decode()

    def salt(self, game_id: str, salt: bytes) -> bytes:
        if self._aead is None:
            return salt
        nonce = os.urandom(_NONCE)
        return PREFIX.encode() + nonce + self._aead.encrypt(nonce, salt, game_id.encode())

    def open_seed(self, game_id: str, stored: object) -> int:
        text = str(stored)
        if not text.startswith(PREFIX):
            return int(text)
        raw = base64.urlsafe_b64decode(text[len(PREFIX) :])
        return int(self._open(game_id, raw).decode())

    def open_salt(self, game_id: str, stored: bytes | bytearray | memoryview) -> bytes:
        data = bytes(stored)
        if not data.startswith(PREFIX.encode()):
            return data
        return self._open(game_id, data[len(PREFIX) :])

    def _open(self, game_id: str, raw: bytes) -> bytes:
        if self._aead is None:
            raise SealError(
                "this store's seeds and salts are sealed: start the server with its "
                "--secrets-key (CARDCORE_SECRETS_KEY_FILE)"
            )
        try:
            return self._aead.decrypt(raw[:_NONCE], raw[_NONCE:], game_id.encode())
        except InvalidTag:
            raise SealError(
                f"game {game_id}: its seed and salt do not open with this key"
            ) from None


PLAINTEXT: Final = Sealer()
