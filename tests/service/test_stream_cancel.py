"""A client that cancels its event stream mid-game leaves the server's log clean (issue 13,
fault 6): no "Task exception was never retrieved" (the stream's request context was reset from
the context gRPC closes the generator in), no "Future exception was never retrieved" (bots'
answers nobody read at stop), no traceback; the stream's own line says ``CANCELLED``; and bot
games do not write one info line per card."""

from __future__ import annotations

from cardcore_proto import game_service_pb2 as pb

from .helpers import ServerProcess, auth, create, stub

STREAMS = 12


def test_streams_cancelled_mid_game_leave_a_clean_log(fresh_server: ServerProcess) -> None:
    server = fresh_server.start()
    channel, s = stub(server.target)
    for _ in range(STREAMS):
        game = create(s, "ratscrew", 3, bots=3)  # bots play on while the stream is cancelled
        stream = s.StreamEvents(
            pb.StreamEventsRequest(game_id=game.game_id, from_seq=0),
            metadata=auth(game.spectator_token),
        )
        for n, _batch in enumerate(stream, 1):
            if n == 2:
                stream.cancel()
                break
    channel.close()
    assert server.stop() == 0  # the bots are mid-game: their last answers are never read
    records = server.log_records()
    streams = [r for r in records if r.get("rpc") == "StreamEvents"]
    assert [r["code"] for r in streams] == ["CANCELLED"] * STREAMS
    assert not [r for r in records if r["level"] in ("warning", "error")]
    # One line per request and a few for the server itself, not one per bot card.
    assert len(records) < 4 * STREAMS + 20, len(records)
