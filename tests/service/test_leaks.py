"""No leaks: what each seat receives is exactly the core's redaction for that seat, no message
before the end carries the seed or salt, rejections name no card hidden from the caller, and the
server's own logs contain no token, seed, salt or card.

Every registered game is played by human seats (random legal commands, false slaps and lost races
included) through a real server with a server-chosen seed.
"""

from __future__ import annotations

import random
import re
from typing import Any

import grpc
import pytest

from cardcore import codec, registry
from cardcore import log as clog
from cardcore_proto import game_service_pb2 as pb

from .helpers import ServerProcess, auth, create, stub

CARD_RE = re.compile(r"(?<![0-9A-Za-z])(?:10|[2-9AJQK])[SHDC♠♥♦♣](?![0-9A-Za-z])|JK")
MAX_ACTIONS = 400


def _entry_json(e: Any) -> tuple[int, int | None, str, list[str]]:
    return (
        e.seq,
        e.seat if e.HasField("seat") else None,
        e.action.json,
        [x.json for x in e.events],
    )


def play_and_record(s: Any, name: str, seats: int, rng: random.Random) -> dict[str, Any]:
    c = create(s, name, seats, event_limit=600)
    tokens = {t.seat: t.token for t in c.seat_tokens}
    got: dict[int, dict[str, Any]] = {
        seat: {"entries": [], "views": [], "errors": [], "early_logs": []} for seat in tokens
    }
    actions = 0
    over = False
    while not over and actions < MAX_ACTIONS:
        seat = rng.choice(list(tokens))
        md = auth(tokens[seat])
        v = s.GetView(pb.GetViewRequest(game_id=c.game_id), metadata=md)
        got[seat]["views"].append((v.seq, v.view.json))
        if v.HasField("outcome"):
            over = True
            break
        if rng.random() < 0.02:
            log = s.GetLog(pb.GetLogRequest(game_id=c.game_id), metadata=md)
            assert not log.complete
            got[seat]["early_logs"].append(log.log_jsonl)
        if not v.legal_commands:
            continue
        cmd = rng.choice(list(v.legal_commands))
        try:
            r = s.SubmitAction(pb.SubmitActionRequest(game_id=c.game_id, command=cmd), metadata=md)
            got[seat]["entries"].append(_entry_json(r.entry))
            actions += 1
            over = r.HasField("outcome")
        except grpc.RpcError as exc:
            assert exc.code() == grpc.StatusCode.FAILED_PRECONDITION
            got[seat]["errors"].append((v.view.json, cmd.json, exc.details() or ""))
    # every seat's stream, up to now
    for seat, token in tokens.items():
        stream = s.StreamEvents(
            pb.StreamEventsRequest(game_id=c.game_id), metadata=auth(token), timeout=0.5
        )
        try:
            for batch in stream:
                got[seat]["entries"].extend(_entry_json(e) for e in batch.entries)
        except grpc.RpcError as exc:
            assert exc.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    return {"created": c, "tokens": tokens, "got": got}


@pytest.mark.parametrize("name", [g.info.name for g in registry.GAMES])
def test_seats_receive_exactly_their_redaction(server: ServerProcess, name: str) -> None:
    game = registry.get_game(name)
    channel, s = stub(server.target)
    rng = random.Random(name)
    rec = play_and_record(s, name, max(2, game.info.min_seats), rng)
    c, tokens, got = rec["created"], rec["tokens"], rec["got"]
    # finish the game, so the referee's log (with the seed) is public
    while True:
        v = s.GetView(pb.GetViewRequest(game_id=c.game_id), metadata=auth(tokens[0]))
        if v.HasField("outcome"):
            break
        for seat, token in tokens.items():
            vv = s.GetView(pb.GetViewRequest(game_id=c.game_id), metadata=auth(token))
            if vv.legal_commands:
                try:
                    s.SubmitAction(
                        pb.SubmitActionRequest(game_id=c.game_id, command=vv.legal_commands[0]),
                        metadata=auth(token),
                    )
                except grpc.RpcError:
                    pass
            del seat
    full = s.GetLog(pb.GetLogRequest(game_id=c.game_id), metadata=auth(c.spectator_token))
    assert full.complete
    lines = clog.loads(full.log_jsonl)
    clog.verify(lines)
    end = lines[-1]
    seed, salt = str(end["seed"]), str(end["salt"])
    states = [step.state for step in clog.replay(lines)]
    entries = {line["seq"]: line for line in lines if line["type"] == "entry"}
    for seat, rec_seat in got.items():
        for seq, seat_of, action, events in rec_seat["entries"]:
            line = entries[seq]
            assert seat_of == line["seat"] and action == codec.canonical_text(line["action"])
            expected = [
                codec.canonical_text(codec.encode(game.redact(game.decode_event(e), seat)))
                for e in line["events"]
            ]
            assert events == expected, f"seat {seat} entry {seq} is not its redaction"
        for seq, view_json in rec_seat["views"]:
            expected_view = codec.canonical_text(codec.encode(game.view(states[seq - 1], seat)))
            assert view_json == expected_view, f"seat {seat} view at {seq}"
        for view_json, cmd_json, message in rec_seat["errors"]:
            visible = set(CARD_RE.findall(view_json)) | set(CARD_RE.findall(cmd_json))
            assert set(CARD_RE.findall(message)) <= visible, message
        received = " ".join(
            [str(x) for x in rec_seat["entries"]]
            + [v for _, v in rec_seat["views"]]
            + [m for *_, m in rec_seat["errors"]]
            + [b.decode() for b in rec_seat["early_logs"]]
        )
        assert seed not in received and salt not in received
        for early in rec_seat["early_logs"]:
            for line in clog.loads(early):
                assert "seed" not in line and "salt" not in line
    channel.close()
    # the server's own log: no token, seed, salt or card, ever
    text = server.log_text()
    for token in [*tokens.values(), c.spectator_token]:
        assert token not in text
    assert seed not in text and salt not in text
    assert not CARD_RE.findall(text), CARD_RE.findall(text)[:5]
