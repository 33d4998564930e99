"""The web table over the play channel (docs/reference/play-channel.md): one WebSocket per seat
carries its actions, entries, views and pings; where no WebSocket can open the table plays over
SSE + POST as before; a dropped channel resumes with no entry twice and none skipped; a refused
token is shown and not retried. Slap keydown → acknowledgement over both, in one run."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

import pytest

from cardcore import log

from .conftest import Scenario

# with the machine to itself: the two transports' keydown-to-ack samples are compared, and a
# busy machine's scheduling would weigh on the two unequally
pytestmark = pytest.mark.solo

_runs: dict[str, dict[str, Any]] = {}


def latency(scenario: Scenario) -> dict[str, Any]:
    """Two tables of Slapjack, one over the WebSocket and one forced onto SSE + POST, slapped
    in turn (30 rounds), then played to their end (once per session)."""
    if "latency" not in _runs:
        _runs["latency"] = scenario("channelLatency", rounds=30)
    return _runs["latency"]


def entry_seqs(receipts: str) -> list[int]:
    return [ln["seq"] for ln in log.loads(receipts.encode()) if ln.get("type") == "entry"]


def test_the_table_plays_over_one_websocket(scenario: Scenario) -> None:
    r = latency(scenario)
    assert r["errors"] == []
    assert r["transports"]["websocket"] == "websocket"
    # one channel for the whole game, the token in its first frame (never the URL), and not
    # one POST …/actions: the actions went over it
    (socket,) = r["sockets"]["websocket"]
    assert socket["url"].endswith("/play") and "cct_" not in socket["url"]
    assert socket["auth"] == [{"type": "auth", "from_seq": 0, "token": True}]
    assert r["posts"]["websocket"] == 0
    # the server counted it open while the game went on
    assert r["channelsOpen"] is not None and r["channelsOpen"] >= 1
    # the round trip the server measured, shown on the table
    assert r["rtt"]["ms"] is not None and f"RTT {r['rtt']['ms']} ms" in r["rtt"]["shown"]
    end = r["ends"]["websocket"]
    assert end["verdicts"] == ["valid", "valid", "valid"]
    # every entry once, in order, and the page's acks are the log's
    final = log.loads(end["final"].encode())
    assert entry_seqs(end["receipts"]) == [ln["seq"] for ln in final if ln.get("type") == "entry"]
    by_seq = {ln["seq"]: ln for ln in final if ln.get("type") == "entry"}
    acked = [a for a in end["acks"] if "seq" in a]
    assert acked and all(a["transport"] == "websocket" for a in acked)
    for a in acked:
        assert by_seq[a["seq"]]["action"]["kind"] == a["kind"]
        assert [e["kind"] for e in by_seq[a["seq"]]["events"]] == a["events"]
    assert end["termination"] == final[-1]["outcome"]["termination"]


def test_without_a_websocket_the_table_plays_over_sse_and_post(scenario: Scenario) -> None:
    r = latency(scenario)
    assert r["transports"]["sse"] == "sse"
    assert r["sockets"]["sse"] == 0
    end = r["ends"]["sse"]
    acked = [a for a in end["acks"] if "seq" in a]
    assert acked and all(a["transport"] == "sse" for a in acked)
    assert r["posts"]["sse"] >= len(acked)
    assert end["verdicts"] == ["valid", "valid", "valid"]
    final = log.loads(end["final"].encode())
    assert entry_seqs(end["receipts"]) == [ln["seq"] for ln in final if ln.get("type") == "entry"]


def test_slap_keydown_to_ack_over_the_websocket_is_at_most_half_sse_and_post(
    scenario: Scenario, record_metric: Callable[[str, Any], None]
) -> None:
    """Keydown (Space, ``performance.now()`` in the page's handler) to the page learning the
    slap was logged: the ``ack`` frame, or the POST's answer. The two tables are slapped in
    turn, on a quiet table (a false slap costs nothing, the bot is slow), so that both samples
    see the same machine at the same moments."""
    r = latency(scenario)
    p50 = {}
    for transport in ("websocket", "sse"):
        ms = [a["ms"] for a in r["slaps"][transport] if "seq" in a]
        assert len(ms) >= 20, f"{transport}: too few acknowledged slaps: {len(ms)}"
        p50[transport] = statistics.median(ms)
        record_metric(
            f"slap_keydown_to_ack_ms_{transport}",
            {"p50": round(p50[transport], 1), "p90": round(statistics.quantiles(ms, n=10)[-1], 1),
             "slaps": len(ms)},
        )  # fmt: skip
    print(
        f"\nslap keydown → ack, p50: WebSocket {p50['websocket']:.1f} ms, "
        f"SSE + POST {p50['sse']:.1f} ms (ratio {p50['websocket'] / p50['sse']:.2f})"
    )
    assert p50["websocket"] <= p50["sse"] / 2


def test_a_dropped_channel_resumes_without_a_gap_or_a_duplicate(scenario: Scenario) -> None:
    r = scenario("channelResume")
    assert r["errors"] == []
    first, second, third = r["connections"]
    # dropped with an act's answer lost (1001): reopened from the entry after the last seen,
    # the act sent again with its action_id, answered as a replay of the first
    (lost,) = first["swallowed"]
    assert r["unanswered"], "the page had its answer before the drop"
    assert second["auth"] == {"from_seq": r["drops"][0]["lastSeen"] + 1}
    assert second["acts"][0] == lost["action_id"]
    assert {"action_id": lost["action_id"], "seq": lost["seq"], "replayed": True} in second[
        "answers"
    ]
    assert r["resent"]["seq"] == lost["seq"]
    # fell behind (4409): reopened from the entry after the last seen
    assert third["auth"] == {"from_seq": r["drops"][1]["lastSeen"] + 1}
    # the receipts hold each entry once, and settle the game
    final = log.loads(r["final"].encode())
    assert entry_seqs(r["receipts"]) == [ln["seq"] for ln in final if ln.get("type") == "entry"]
    assert r["verdicts"] == ["valid", "valid", "valid"]
    # a token refused (4401): shown, not tried again, no fallback
    refused = r["refused"]
    assert refused["code"] == "InvalidToken" and "InvalidToken" in refused["text"]
    assert refused["status"] == "Cannot follow this game."
    assert refused["sockets"] == 1 and refused["transport"] == "websocket"
