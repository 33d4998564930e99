"""The server's signing key: Ed25519 (``cryptography``), created on first start and kept with
the store (so every server on one PostgreSQL database signs with the same key), or given as a
PEM file (``--server-key PATH`` / ``CARDCORE_SERVER_KEY``). Its public half is published by
``ListGames`` (``server_key``) and ``GET /v1/server``; :mod:`cardcore.signatures` says what
is signed and how a client checks it."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cardcore.signatures import ALG, b64, message

from .store import EventStore


@dataclass(frozen=True)
class ServerKey:
    private: Ed25519PrivateKey

    @property
    def public(self) -> str:
        """The public key, base64url (what logs name and clients pass to ``--server-key``)."""
        raw = self.private.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )
        return b64(raw)

    def derive(self, label: str) -> bytes:
        """32 bytes only this server can make for ``label`` (HMAC-SHA256 under a key derived
        from the private key): what an idempotent creation mints its tokens from."""
        secret = hashlib.sha256(b"cardcore-derive/1" + _raw(self.private)).digest()
        return hmac.new(secret, label.encode(), hashlib.sha256).digest()

    def sign(self, line_hash: str) -> dict[str, str]:
        """The ``signature`` object of a log line with this ``hash`` (deterministic: Ed25519)."""
        return {"alg": ALG, "key": self.public, "sig": b64(self.private.sign(message(line_hash)))}


def _raw(key: Ed25519PrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.Raw,
        serialization.PrivateFormat.Raw,
        serialization.NoEncryption(),
    )


async def load_key(store: EventStore, path: str | None) -> ServerKey:
    """The key in the PEM file ``path``, or the store's (made on first start)."""
    if path:
        loaded = serialization.load_pem_private_key(Path(path).read_bytes(), password=None)
        if not isinstance(loaded, Ed25519PrivateKey):
            raise ValueError(f"{path}: not an Ed25519 private key")
        return ServerKey(loaded)
    raw = await store.server_key(_raw(Ed25519PrivateKey.generate()))
    return ServerKey(Ed25519PrivateKey.from_private_bytes(raw))
