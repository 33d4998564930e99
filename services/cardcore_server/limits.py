"""Rate limits: a token bucket per bearer token and one per client address (``--rate-limit``,
``--rate-limit-address``; off by default). A request over either gets ``RESOURCE_EXHAUSTED``
(gRPC) or 429 (REST) with the seconds to wait (``Retry-After``), before any work is done.

Buckets refill continuously at ``rate`` per second up to ``burst``; idle buckets are dropped so
the table stays bounded by the clients active in the last minute. The clock is the event
loop's monotonic time: this is the service, not the pure core.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Final

from .errors import Reason, ServiceError, Status

IDLE_S: Final = 60.0
"""A bucket untouched this long is full again: it is forgotten."""
MAX_BUCKETS: Final = 100_000
"""Past this many live buckets the oldest are forgotten first (a flood of new addresses)."""


@dataclass(slots=True)
class _Bucket:
    tokens: float
    at: float


class Limiter:
    """One kind of bucket (per token, or per address)."""

    def __init__(self, rate: float, burst: float | None = None) -> None:
        self.rate = rate
        self.burst = burst if burst is not None else max(rate * 2, 1.0)
        self._buckets: dict[str, _Bucket] = {}

    def take(self, key: str, now: float | None = None) -> float:
        """Take one request's token for ``key``: 0 when allowed, else the seconds to wait."""
        now = time.monotonic() if now is None else now
        b = self._buckets.get(key)
        if b is None:
            if len(self._buckets) >= MAX_BUCKETS:
                self._forget(now)
            b = self._buckets[key] = _Bucket(self.burst, now)
        else:
            b.tokens = min(self.burst, b.tokens + (now - b.at) * self.rate)
            b.at = now
        if b.tokens >= 1:
            b.tokens -= 1
            return 0.0
        return (1 - b.tokens) / self.rate

    def _forget(self, now: float) -> None:
        idle = [k for k, b in self._buckets.items() if now - b.at > IDLE_S]
        for k in idle or sorted(self._buckets, key=lambda k: self._buckets[k].at)[:1000]:
            del self._buckets[k]


class RateLimits:
    """The per-token and per-address limits of one server (either may be off: rate 0)."""

    def __init__(self, per_token: float = 0.0, per_address: float = 0.0) -> None:
        self.token = Limiter(per_token) if per_token > 0 else None
        self.address = Limiter(per_address) if per_address > 0 else None

    def admit(self, token: str | None, address: str | None) -> None:
        """Raise ``RESOURCE_EXHAUSTED``/``RateLimited`` (with ``retry_after_s``) when over."""
        wait = 0.0
        if self.address is not None and address:
            wait = self.address.take(address)
        if not wait and self.token is not None and token:
            wait = self.token.take(token[:256])
        if wait:
            seconds = max(1, math.ceil(wait))
            raise ServiceError(
                Status.RESOURCE_EXHAUSTED,
                Reason.RATE_LIMITED,
                f"too many requests: retry in {seconds} s",
                metadata={"retry_after_s": str(seconds)},
            )
