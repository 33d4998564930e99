"""The server's policy (:class:`ServiceConfig`): what ``cardcore serve``'s flags and
``CARDCORE_*`` variables set, handed to the application. The defaults are the safe ones."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class ServiceConfig:
    """Server policy. The defaults are the safe ones."""

    allow_client_seed: bool = False
    """Accept a client-chosen seed (tests, tournaments); otherwise the seed comes from
    :mod:`secrets` and is revealed only in the final log."""
    admin_key: str | None = None
    """When set, creating a game needs this key (required when bound beyond loopback)."""
    default_timeouts_ms: Mapping[str, int] = field(default_factory=lambda: {"Collect": 2000})
    """Timed actions for idle human seats by command kind, applied to games that have the kind
    (the ERS collect window by default); a game's request may override or turn them off."""
    stream_batch: int = 1000
    """Entries per stream message at most."""
    start_deadline_ms: int = 15 * 60_000
    """How long a table waits for its seats by default before it is cancelled."""
    reveal_deadline_ms: int = 30_000
    """How long the seats that committed to entropy have to reveal it once a table's start is
    final (their clients do so at once); a table still missing a reveal is then cancelled."""
    retain_days: float | None = None
    """``--retain-days``: finished games older than this are archived and removed."""
    archive_dir: str | None = None
    """``--archive``: where retention writes each removed game's final log."""
    server_key_path: str | None = None
    """``--server-key``: a PEM Ed25519 private key to sign logs with (else the store's own)."""
    secrets_key: bytes | None = None
    """``--secrets-key``: 32 bytes that seal games' seeds and salts at rest (:mod:`.sealing`)."""
    rate_per_token: float = 0.0
    """``--rate-limit``: requests per second per bearer token (burst twice that; 0: off)."""
    rate_per_address: float = 0.0
    """``--rate-limit-address``: requests per second per client address (0: off)."""
    trusted_proxies: tuple[str, ...] = ()
    """``--trusted-proxy``: networks (CIDR) of proxies whose ``X-Forwarded-For`` names the
    client's address; from any other peer the header is ignored (:mod:`.limits`)."""
    cors_origins: tuple[str, ...] = ()  # --cors-origin: browser origins allowed to call REST
