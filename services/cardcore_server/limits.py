"""Rate limits: a token bucket per bearer token and one per client address (``--rate-limit``,
``--rate-limit-address``; off by default). A request over either gets ``RESOURCE_EXHAUSTED``
(gRPC) or 429 (REST) with the seconds to wait (``Retry-After``), before any work is done.

**The client's address** is the connection's peer, except behind a proxy named by
``--trusted-proxy`` (:class:`TrustedProxies`): only a peer in one of those networks is believed
about who it forwards for (``X-Forwarded-For``). Anyone can write that header, so believing it
from any peer (uvicorn's default believes loopback peers) let one client take a fresh address,
and a fresh bucket, per request.

Buckets refill continuously at ``rate`` per second up to ``burst``; idle buckets are dropped so
the table stays bounded by the clients active in the last minute. The clock is the event
loop's monotonic time: this is the service, not the pure core.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections.abc import Iterable, Sequence
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

    @property
    def on(self) -> bool:
        """Either limit is set (when neither is, a transport need not find who is calling)."""
        return self.token is not None or self.address is not None

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


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_network(text: str) -> str:
    """A ``--trusted-proxy`` value: an address (``10.0.0.7``) or a network (``10.0.0.0/8``,
    ``fd00::/8``), as its network in CIDR form; ``ValueError`` naming the text otherwise."""
    try:
        return str(ipaddress.ip_network(text.strip(), strict=False))
    except ValueError:
        raise ValueError(f"not an address or a network in CIDR form: {text[:60]!r}") from None


class TrustedProxies:
    """The proxies whose ``X-Forwarded-For`` is believed (none by default)."""

    def __init__(self, networks: Iterable[str] = ()) -> None:
        self.networks: tuple[Network, ...] = tuple(
            ipaddress.ip_network(n, strict=False) for n in networks
        )

    def trusts(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in net for net in self.networks)

    def client(self, peer: str, forwarded_for: Sequence[str]) -> str:
        """The client's address: ``peer`` itself, unless it is a trusted proxy; then the last
        address of ``X-Forwarded-For`` (each proxy appends the address it was reached from)
        that is not a trusted proxy too, or the first if all are. Addresses before that one
        were written by someone nobody trusts, so they are never read. The same rule as
        uvicorn's, which reads the header for REST (:func:`.rest.start_rest`)."""
        if not self.networks or not self.trusts(peer):
            return peer
        hops = [host_of(h) for value in forwarded_for for h in value.split(",")]
        if not hops:
            return peer
        for hop in reversed(hops):
            if not self.trusts(hop):
                return hop or peer  # an empty entry names nobody: the proxy it came from
        return hops[0]


def host_of(hop: str) -> str:
    """An address of ``X-Forwarded-For`` without its port, if it carries one
    (``1.2.3.4:5678``, ``[::1]:5678``)."""
    hop = hop.strip()
    if hop.startswith("["):
        return hop[1:].partition("]")[0]
    if hop.count(":") == 1:
        return hop.partition(":")[0]
    return hop
