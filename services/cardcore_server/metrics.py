"""What an operator watches: Prometheus metrics, served as text at ``GET /metrics``.

One :class:`Metrics` per :class:`~.app.Application` (its own registry, so several servers in one
process — the tests — do not mix their counts). Everything is counted where it already passes
through one place: each request's log line (both transports), the sequencer's rejections and
timed actions, the store's commits, and the streams the application opens.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Final

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

CONTENT_TYPE: Final = "text/plain; version=0.0.4; charset=utf-8"
_LATENCY_BUCKETS: Final = (
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0
)  # fmt: skip


class _Live(Collector):
    """Games served here that are not over, read when scraped (no bookkeeping on the hot path)."""

    def __init__(self, live_games: Callable[[], int]) -> None:
        self._live_games = live_games

    def collect(self) -> Iterable[GaugeMetricFamily]:
        yield GaugeMetricFamily(
            "cardcore_live_games", "Unfinished games loaded on this server", self._live_games()
        )


class Metrics:
    def __init__(self, live_games: Callable[[], int]) -> None:
        r = self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "cardcore_requests",
            "Requests by transport, RPC and code",
            ["transport", "rpc", "code"],
            registry=r,
        )
        self.latency = Histogram(
            "cardcore_request_seconds",
            "Request latency by transport and RPC",
            ["transport", "rpc"],
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.rejections = Counter(
            "cardcore_rejections", "Actions the rules rejected, by code", ["code"], registry=r
        )
        self.streams = Gauge("cardcore_open_streams", "Event streams open now", registry=r)
        self.commit_seconds = Histogram(
            "cardcore_store_commit_seconds",
            "Store commit latency (one transaction)",
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.commit_batch = Histogram(
            "cardcore_store_commit_batch",
            "Writes committed together in one transaction",
            buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024),
            registry=r,
        )
        self.timers = Counter(
            "cardcore_timer_firings",
            "Actions the host took on a clock or for a bot, by kind",
            ["kind"],
            registry=r,
        )
        self.connections = Counter(
            "cardcore_connections_closed",
            "Connections the server refused or closed to stay within its bounds, by why "
            "(refused, evicted, header_timeout, body_timeout, ambiguous_framing)",
            ["transport", "why"],
            registry=r,
        )
        self.open_connections = Gauge(
            "cardcore_open_connections", "Client connections open now", ["transport"], registry=r
        )
        self.play_rtt = Histogram(
            "cardcore_play_rtt_seconds",
            "Round trips the server measured on play channels (every ping answered)",
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
            registry=r,
        )
        self.play_channels = Gauge(
            "cardcore_play_channels", "Play channels open now", ["transport"], registry=r
        )
        self.race_credit = Histogram(
            "cardcore_race_credit_seconds",
            "How much earlier than it arrived each action of a seat was credited, under "
            'race_policy "compensated" (docs/games/common.md#race-policy)',
            buckets=(0.0, 0.005, 0.01, 0.025, 0.05, 0.08, 0.1, 0.15, 0.25),
            registry=r,
        )
        self.race_clamped = Counter(
            "cardcore_race_clamped",
            "Actions that arrived too late for their credited place (credited at the entry before)",
            registry=r,
        )
        self.play_closed = Counter(
            "cardcore_play_channels_closed",
            "Play channels closed, by transport and closing code (docs/reference/play-channel.md)",
            ["transport", "code"],
            registry=r,
        )
        r.register(_Live(live_games))
        self._series: dict[tuple[str, str, str], tuple[Counter, Histogram]] = {}
        """A request's two series, by their labels: finding a series by its labels costs more
        than counting in it (a request's metrics took 3.8 µs, 1.5 µs with the series kept)."""

    def committed(self, writes: int, seconds: float) -> None:
        """A store transaction of ``writes`` writes took ``seconds`` (the store calls it)."""
        self.commit_batch.observe(writes)
        self.commit_seconds.observe(seconds)

    def request(self, transport: str, rpc: str, code: str, seconds: float) -> None:
        """One request ended (each transport calls it once per request)."""
        key = (transport, rpc, code)
        series = self._series.get(key)
        if series is None:
            series = self._series[key] = (
                self.requests.labels(transport, rpc, code),
                self.latency.labels(transport, rpc),
            )
        series[0].inc()
        series[1].observe(seconds)

    def text(self) -> bytes:
        return generate_latest(self.registry)
