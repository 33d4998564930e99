"""The gRPC transport's hand-framed bytes are exactly protobuf's: an entry serialized once as
field 1 is a ``SubmitActionResponse`` and a ``StreamEventsResponse`` of that entry (no server
needed: these are the converters the server calls)."""

from __future__ import annotations

import pytest

from cardcore.engine import Outcome, Termination
from cardcore_proto import game_service_pb2 as pb
from cardcore_server.app import StreamBatch, SubmitResult
from cardcore_server.redaction import RedactedEntry, Value
from cardcore_server.transports.grpc import convert


def _entry(seq: int, event_bytes: int, seat: int | None = 0) -> RedactedEntry:
    """An entry whose one event's JSON is about ``event_bytes`` long (varint lengths of one,
    two and three bytes come from 10, 200 and 20,000)."""
    return RedactedEntry(
        seq=seq,
        at_ms=1_700_000_000_000 + seq,
        seat=seat,
        action=Value.of({"kind": "Play"}),
        events=(Value.of({"kind": "Note", "text": "x" * event_bytes}),),
        hash=f"{seq:064x}",
        prev=f"{seq - 1:064x}",
    )


def _as_message(e: RedactedEntry) -> pb.Entry:
    return pb.Entry(
        seq=e.seq,
        at_ms=e.at_ms,
        seat=e.seat,
        action=pb.GameValue(kind=e.action.kind, json=e.action.json),
        events=[pb.GameValue(kind=v.kind, json=v.json) for v in e.events],
        hash=e.hash,
        prev=e.prev,
    )


@pytest.mark.parametrize("size", [10, 200, 20_000])
@pytest.mark.parametrize("seat", [0, None])
def test_an_entry_field_is_protobufs_own_bytes(size: int, seat: int | None) -> None:
    e = _entry(5, size, seat)
    made = convert.entry_field(e)
    assert made == pb.SubmitActionResponse(entry=_as_message(e)).SerializeToString()
    assert made == pb.StreamEventsResponse(entries=[_as_message(e)]).SerializeToString()
    assert convert.entry_field(e) is made, "made once per entry and view"


def test_a_submit_answer_with_an_outcome_parses_as_one_response() -> None:
    e = _entry(9, 300)
    done = Outcome(Termination.ALL_CARDS, winners=(1,), losers=(0,), scores=(0, 52))
    raw = convert.submitted(SubmitResult(entry=e, outcome=done, replayed=True))
    back = pb.SubmitActionResponse.FromString(raw)
    assert back.entry == _as_message(e)
    assert list(back.outcome.winners) == [1] and back.replayed


def test_a_stream_batch_parses_as_its_entries_in_order() -> None:
    batch = StreamBatch(entries=tuple(_entry(s, 150 * s) for s in (1, 2, 3)), outcome=None)
    back = pb.StreamEventsResponse.FromString(convert.stream_response(batch))
    assert list(back.entries) == [_as_message(e) for e in batch.entries]
    assert not back.HasField("outcome")
