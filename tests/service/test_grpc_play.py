"""gRPC's ``Play`` (docs/reference/play-channel.md, "gRPC"): one bidirectional call per player
on an in-process server — opened once, then entries, acts, views and pings on it, with the same
answers as the unary calls (codes, idempotent ``action_id``), errors at open as rich as theirs,
the end, a stop and a client that does not read; and seat 0 is never sent a card of seat 1's
hidden hand.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from cardcore import codec, registry
from cardcore import log as clog
from cardcore_proto import game_service_pb2 as pb
from cardcore_proto import game_service_pb2_grpc as pb_grpc
from cardcore_server.config import ServiceConfig
from cardcore_server.transports.server import Running, ServerOptions, start

from .helpers import auth, command, hang_store_commits

CARD_RE = re.compile(r"(?<![0-9A-Za-z])(?:10|[2-9AJQK])[SHDC♠♥♦♣](?![0-9A-Za-z])|JK")
"""A card in a message (as tests/service/test_leaks.py finds them)."""
HUMAN = pb.SeatAssignment(kind=pb.SEAT_KIND_HUMAN)
WAIT_S = 10.0

Call = Any
"""A ``grpc.aio`` stream-stream call of ``Play``."""


@asynccontextmanager
async def serving(
    tmp_path: Path, config: ServiceConfig | None = None
) -> AsyncIterator[tuple[Running, Any]]:
    """An in-process server (gRPC only) and a stub of it."""
    options = ServerOptions(port=0, db=str(tmp_path / "play.db"))
    running = await start(replace(options, config=config) if config is not None else options)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{running.port}")
    try:
        yield running, pb_grpc.GameServiceStub(channel)
    finally:
        await channel.close()
        if not running.app.gate.closing:
            await running.stop(grace_s=1.0)


async def ratscrew(s: Any, seats: int = 2) -> Any:
    """A game of human seats, the collect window off: seat 0 plays first."""
    return await s.CreateGame(
        pb.CreateGameRequest(game="ratscrew", seats=[HUMAN] * seats, timeouts_ms={"Collect": 0})
    )


async def next_move(s: Any, created: Any) -> tuple[int, pb.GameValue]:
    """A seat that may move now and its move, a card or a collect (after a face card the next
    seat is not always the one to play)."""
    for seat, token in tokens_of(created).items():
        view = await s.GetView(pb.GetViewRequest(game_id=created.game_id), metadata=auth(token))
        for legal in view.legal_commands:
            if legal.kind in ("Play", "Collect"):
                return seat, legal
    raise AssertionError("nobody may move")


def tokens_of(created: Any) -> dict[int, str]:
    return {t.seat: t.token for t in created.seat_tokens}


async def open_play(s: Any, token: str, game_id: str, from_seq: int = 0) -> Call:
    call = s.Play(metadata=auth(token))
    await call.write(pb.PlayRequest(open=pb.PlayOpen(game_id=game_id, from_seq=from_seq)))
    return call


def act(action_id: str, kind: str, **fields: Any) -> pb.PlayRequest:
    return pb.PlayRequest(act=pb.PlayAct(action_id=action_id, command=command(kind, **fields)))


async def read_until(
    call: Call, done: Callable[[pb.PlayResponse], bool], *, pong: bool = True
) -> list[pb.PlayResponse]:
    """Messages up to the first ``done`` one, included; pings answered and left out (unless
    ``pong`` is false: then they are messages like the others)."""
    got: list[pb.PlayResponse] = []
    async with asyncio.timeout(WAIT_S):  # in all: pings come every second
        while True:
            message = await call.read()
            assert message is not grpc.aio.EOF, f"the call ended after {got}"
            if pong and message.WhichOneof("frame") == "ping":
                await answer(call, message.ping.nonce)
                continue
            got.append(message)
            if done(message):
                return got


async def answer(call: Call, nonce: int) -> None:
    """A pong (the call may have ended meanwhile: a write then fails, and that is all)."""
    try:
        await call.write(pb.PlayRequest(pong=pb.PlayPong(nonce=nonce)))
    except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
        pass


def kind_is(kind: str) -> Callable[[pb.PlayResponse], bool]:
    return lambda m: m.WhichOneof("frame") == kind


def entry_seq(seq: int) -> Callable[[pb.PlayResponse], bool]:
    return lambda m: m.WhichOneof("frame") == "entry" and m.entry.seq == seq


def of_kind(messages: list[pb.PlayResponse], kind: str) -> list[Any]:
    return [getattr(m, kind) for m in messages if m.WhichOneof("frame") == kind]


async def ended(call: Call) -> tuple[grpc.StatusCode, str, dict[str, str]]:
    """How the call ended: its code, ``ErrorInfo`` reason and ``BadRequest`` fields (messages
    still coming are read and dropped)."""
    try:
        while await asyncio.wait_for(call.read(), WAIT_S) is not grpc.aio.EOF:
            pass
    except grpc.aio.AioRpcError:
        pass
    code = await call.code()
    details = dict(await call.trailing_metadata() or ()).get("grpc-status-details-bin")
    reason, fields = "", {}
    if isinstance(details, bytes):
        for any_ in status_pb2.Status.FromString(details).details:
            info, bad = error_details_pb2.ErrorInfo(), error_details_pb2.BadRequest()
            if any_.Unpack(info):
                reason = info.reason
            elif any_.Unpack(bad):
                fields = {v.field: v.description for v in bad.field_violations}
    return code, reason, fields


def unary_error(exc: grpc.aio.AioRpcError) -> tuple[str, str]:
    details = dict(exc.trailing_metadata() or ()).get("grpc-status-details-bin")
    assert isinstance(details, bytes)
    info = error_details_pb2.ErrorInfo()
    for any_ in status_pb2.Status.FromString(details).details:
        any_.Unpack(info)
    return exc.code().name, info.reason


def play_channels(running: Running) -> float:
    value: float = running.app.metrics.play_channels.labels("grpc")._value.get()
    return value


# --------------------------------------------------------------------------- open, entries


def test_ready_then_entries_from_zero_and_from_a_seq(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(tmp_path) as (running, s):
            created = await ratscrew(s)
            tokens = tokens_of(created)
            for _ in range(3):
                seat, move = await next_move(s, created)
                await s.SubmitAction(
                    pb.SubmitActionRequest(game_id=created.game_id, command=move),
                    metadata=auth(tokens[seat]),
                )
            # from 0: ready, then entries 0..3, in order
            call = await open_play(s, tokens[0], created.game_id)
            first = await read_until(call, kind_is("ready"))
            ready = first[0].ready
            assert (ready.game_id, ready.seat, ready.next_seq) == (created.game_id, 0, 4)
            assert ready.ping_interval_ms == 1000
            entries = of_kind(await read_until(call, entry_seq(3)), "entry")
            assert [e.seq for e in entries] == [0, 1, 2, 3]
            assert play_channels(running) == 1
            # from 2, then a new entry made on this call: 2, 3, 4, no gap and no duplicate
            seat, move = await next_move(s, created)
            again = await open_play(s, tokens[seat], created.game_id, from_seq=2)
            got = await read_until(again, entry_seq(3))
            await again.write(pb.PlayRequest(act=pb.PlayAct(action_id="b1", command=move)))
            got += await read_until(again, entry_seq(4))
            assert [e.seq for e in of_kind(got, "entry")] == [2, 3, 4]
            assert play_channels(running) == 2
            # ... and the first call has it too, once
            assert [e.seq for e in of_kind(await read_until(call, kind_is("entry")), "entry")] == [
                4
            ]
            call.cancel()
            again.cancel()
            await asyncio.sleep(0.2)
            assert play_channels(running) == 0

    asyncio.run(main())


# --------------------------------------------------------------------------- acts


def test_act_ack_rejection_and_idempotent_action_id(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(tmp_path) as (_, s):
            created = await ratscrew(s)
            tokens = tokens_of(created)
            call = await open_play(s, tokens[0], created.game_id)
            await read_until(call, entry_seq(0))
            # an act: its ack and its entry
            await call.write(act("a1", "Play"))
            got = await read_until(call, kind_is("ack"))
            if not of_kind(got, "entry"):
                got += await read_until(call, kind_is("entry"))
            [ack] = of_kind(got, "ack")
            assert (ack.action_id, ack.seq, ack.replayed, ack.HasField("outcome")) == (
                "a1",
                1,
                False,
                False,
            )
            assert [e.seq for e in of_kind(got, "entry")] == [1]
            # the same act again: replayed, no new entry; and the same action_id via unary
            await call.write(act("a1", "Play"))
            [again] = of_kind(await read_until(call, kind_is("ack")), "ack")
            assert (again.action_id, again.seq, again.replayed) == ("a1", 1, True)
            unary = await s.SubmitAction(
                pb.SubmitActionRequest(
                    game_id=created.game_id, action_id="a1", command=command("Play")
                ),
                metadata=auth(tokens[0]),
            )
            assert (unary.entry.seq, unary.replayed) == (1, True)
            # a rule's rejection: the unary call's code; nothing changed
            await call.write(act("a2", "Play"))
            [rejected] = of_kind(await read_until(call, kind_is("rejected")), "rejected")
            problem = rejected.problem
            assert rejected.action_id == "a2"
            assert (problem.status, problem.code) == ("FAILED_PRECONDITION", "NotYourTurn")
            assert problem.metadata["next_seq"] == "2"
            with pytest.raises(grpc.aio.AioRpcError) as exc:
                await s.SubmitAction(
                    pb.SubmitActionRequest(game_id=created.game_id, command=command("Play")),
                    metadata=auth(tokens[0]),
                )
            assert unary_error(exc.value) == (problem.status, problem.code)
            await call.write(pb.PlayRequest(view=pb.PlayViewRequest()))
            [view] = of_kind(await read_until(call, kind_is("view")), "view")
            assert view.seq == 2
            # a malformed act: the fields named, as a unary call's BadRequest
            await call.write(act("", "Nonsense"))
            [bad] = of_kind(await read_until(call, kind_is("rejected")), "rejected")
            assert (bad.action_id, bad.problem.status, bad.problem.code) == (
                "",
                "INVALID_ARGUMENT",
                "Malformed",
            )
            assert bad.problem.errors and bad.problem.errors[0].field.startswith("command")
            call.cancel()

    asyncio.run(main())


def test_spectator_act_is_rejected(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(tmp_path) as (_, s):
            created = await ratscrew(s)
            call = await open_play(s, created.spectator_token, created.game_id)
            [ready] = of_kind(await read_until(call, kind_is("ready")), "ready")
            assert not ready.HasField("seat")
            await call.write(act("s1", "Play"))
            [rejected] = of_kind(await read_until(call, kind_is("rejected")), "rejected")
            assert (rejected.problem.status, rejected.problem.code) == (
                "PERMISSION_DENIED",
                "SpectatorCannotAct",
            )
            call.cancel()

    asyncio.run(main())


# --------------------------------------------------------------------------- errors at open


def test_first_message_must_be_open_and_only_the_first(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(tmp_path) as (_, s):
            created = await ratscrew(s)
            token = tokens_of(created)[0]
            call = s.Play(metadata=auth(token))
            await call.write(pb.PlayRequest(view=pb.PlayViewRequest()))
            code, reason, fields = await ended(call)
            assert (code, reason, list(fields)) == (
                grpc.StatusCode.INVALID_ARGUMENT,
                "Malformed",
                ["open"],
            )
            call = await open_play(s, token, created.game_id)
            await read_until(call, kind_is("ready"))
            await call.write(pb.PlayRequest(open=pb.PlayOpen(game_id=created.game_id)))
            code, reason, fields = await ended(call)
            assert (code, reason, list(fields)) == (
                grpc.StatusCode.INVALID_ARGUMENT,
                "Malformed",
                ["open"],
            )

    asyncio.run(main())


def test_errors_at_open_are_the_unary_calls(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(tmp_path) as (_, s):
            created = await ratscrew(s)
            other = await ratscrew(s)
            token = tokens_of(created)[0]
            cases = [
                ("not-a-token", created.game_id),
                (token, other.game_id),
                (token, "0" * 32),
            ]
            for bearer, game_id in cases:
                call = await open_play(s, bearer, game_id)
                got = await ended(call)
                with pytest.raises(grpc.aio.AioRpcError) as exc:
                    await s.GetView(pb.GetViewRequest(game_id=game_id), metadata=auth(bearer))
                assert (got[0].name, got[1]) == unary_error(exc.value), (bearer[:4], game_id)
            call = await open_play(s, "not-a-token", created.game_id)
            assert (await ended(call))[:2] == (grpc.StatusCode.UNAUTHENTICATED, "InvalidToken")

    asyncio.run(main())


# --------------------------------------------------------------------------- round trips


def test_pongs_make_rtt_ms_in_views(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(tmp_path) as (_, s):
            created = await ratscrew(s)
            token = tokens_of(created)[0]
            before = await s.GetView(
                pb.GetViewRequest(game_id=created.game_id), metadata=auth(token)
            )
            assert not before.HasField("rtt_ms")
            call = await open_play(s, token, created.game_id)
            # the first ping comes at once: answered here
            [ping] = of_kind(await read_until(call, kind_is("ping"), pong=False), "ping")
            await answer(call, ping.nonce)
            await asyncio.sleep(0.05)
            await call.write(pb.PlayRequest(view=pb.PlayViewRequest()))
            [view] = of_kind(await read_until(call, kind_is("view")), "view")
            assert view.HasField("rtt_ms") and view.rtt_ms < 1000
            unary = await s.GetView(
                pb.GetViewRequest(game_id=created.game_id), metadata=auth(token)
            )
            assert unary.HasField("rtt_ms") and unary.rtt_ms == view.rtt_ms
            # a pong for a ping never sent is ignored
            await call.write(pb.PlayRequest(pong=pb.PlayPong(nonce=1)))
            call.cancel()
            await asyncio.sleep(0.2)
            after = await s.GetView(
                pb.GetViewRequest(game_id=created.game_id), metadata=auth(token)
            )
            assert not after.HasField("rtt_ms")  # no channel open: no round trip

    asyncio.run(main())


# --------------------------------------------------------------------------- the end, a stop


def test_the_games_end_then_ok(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(tmp_path) as (running, s):
            created = await ratscrew(s)
            tokens = tokens_of(created)
            call = await open_play(s, tokens[0], created.game_id)
            await call.write(act("r", "Resign"))
            # no pong from here: a write to a call that has ended fails it on the client's side
            got = await read_until(call, kind_is("end"), pong=False)
            got = [m for m in got if m.WhichOneof("frame") != "ping"]
            [ack] = of_kind(got, "ack")
            assert ack.outcome.termination == "resigned" and list(ack.outcome.winners) == [1]
            [end] = of_kind(got, "end")
            assert end.outcome == ack.outcome
            assert json.loads(end.end_json)["type"] == "end"
            assert [e.seq for e in of_kind(got, "entry")] == [0, 1]
            assert await asyncio.wait_for(call.read(), WAIT_S) is grpc.aio.EOF
            assert await call.code() == grpc.StatusCode.OK
            # a channel opened on a finished game: its entries, the end, OK
            late = await open_play(s, tokens[1], created.game_id, from_seq=1)
            got = await read_until(late, kind_is("end"), pong=False)
            assert [e.seq for e in of_kind(got, "entry")] == [1]
            assert (await ended(late))[0] == grpc.StatusCode.OK
            await asyncio.sleep(0.1)
            assert play_channels(running) == 0

    asyncio.run(main())


def test_stop_answers_acts_in_flight_then_shutting_down(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(tmp_path) as (running, s):
            created = await ratscrew(s)
            call = await open_play(s, tokens_of(created)[0], created.game_id)
            await read_until(call, entry_seq(0))
            hang_store_commits(running.app)
            await call.write(act("a1", "Play"))
            await asyncio.sleep(0.3)  # in the round being committed
            stopping = asyncio.create_task(running.stop(grace_s=1.5))
            [rejected] = of_kind(await read_until(call, kind_is("rejected")), "rejected")
            assert rejected.action_id == "a1"
            assert (rejected.problem.status, rejected.problem.code) == (
                "UNAVAILABLE",
                "StoreUnavailable",
            )
            assert (await ended(call))[:2] == (grpc.StatusCode.UNAVAILABLE, "ShuttingDown")
            await stopping

    asyncio.run(main())


def test_a_client_that_does_not_read_falls_behind(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(tmp_path) as (running, s):
            created = await ratscrew(s, seats=8)  # large views: flow control fills sooner
            call = await open_play(s, tokens_of(created)[0], created.game_id)
            view = pb.PlayRequest(view=pb.PlayViewRequest())
            try:
                for _ in range(20_000):  # never read: the server's queue fills
                    await asyncio.wait_for(call.write(view), WAIT_S)
            except grpc.aio.AioRpcError:
                pass  # ended while still writing
            code, reason, _ = await ended(call)
            assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "FellBehind")
            await asyncio.sleep(0.1)
            assert play_channels(running) == 0

    asyncio.run(main())


# --------------------------------------------------------------------------- hidden cards


def _cards(text: str) -> set[str]:
    return set(CARD_RE.findall(text))


def test_seat_0_is_never_sent_seat_1s_hidden_hand(tmp_path: Path) -> None:
    """Speed: a hand is its owner's alone. Everything seat 0 gets on its call (entries, views,
    rejections, one of them for a card of seat 1's hand) is exactly the core's redaction for
    seat 0, and no rejection names a card seat 0 could not see."""
    game = registry.get_game("speed")
    rng = random.Random(7)

    async def main() -> None:
        async with serving(tmp_path) as (_, s):
            created = await s.CreateGame(pb.CreateGameRequest(game="speed", seats=[HUMAN] * 2))
            tokens = tokens_of(created)
            gid = created.game_id
            theirs = await s.GetView(pb.GetViewRequest(game_id=gid), metadata=auth(tokens[1]))
            hand1 = list(json.loads(theirs.view.json)["hands"][1])
            assert hand1 and "??" not in hand1
            call = await open_play(s, tokens[0], gid)
            got: list[pb.PlayResponse] = []
            sent: dict[str, str] = {}
            n = 0

            def over() -> bool:
                return any(m.WhichOneof("frame") == "end" for m in got)

            # Pings are not answered here: the game may end on its own (out of cards) and a
            # pong written to a call that has ended fails the call on the client's side.
            async def my_view() -> Any:
                nonlocal got
                await call.write(pb.PlayRequest(view=pb.PlayViewRequest()))
                more = await read_until(
                    call, lambda m: kind_is("view")(m) or kind_is("end")(m), pong=False
                )
                got += more
                return more[-1].view

            async def my_act(cmd: pb.GameValue) -> None:
                nonlocal got, n
                n += 1
                sent[f"x{n}"] = cmd.json
                await call.write(pb.PlayRequest(act=pb.PlayAct(action_id=f"x{n}", command=cmd)))
                got += await read_until(
                    call,
                    lambda m: m.WhichOneof("frame") in ("ack", "rejected", "end"),
                    pong=False,
                )

            async def game_over() -> bool:
                """Whether the game has ended (the store says so): then its end frame is
                read off the call, which closes after it, so nothing more is written to it
                (a write to a call the server has closed fails the call on the client's
                side, INTERNAL). The game may end on seat 1's action or on its own."""
                nonlocal got
                v = await s.GetView(pb.GetViewRequest(game_id=gid), metadata=auth(tokens[0]))
                if v.HasField("outcome") and not over():
                    got += await read_until(call, kind_is("end"), pong=False)
                return v.HasField("outcome")

            first = await my_view()
            assert not _cards(first.view.json) & set(hand1)  # seat 1's hand, unseen
            # a card of seat 1's hand, as seat 0's: rejected, naming nothing of seat 1's
            await my_act(command("Play", card=hand1[0], to=0))
            await my_act(command("Flip"))
            await s.SubmitAction(
                pb.SubmitActionRequest(game_id=gid, command=command("Flip")),
                metadata=auth(tokens[1]),
            )
            for _ in range(30):
                mine = await my_view()
                if over():
                    break
                if mine.legal_commands:
                    await my_act(rng.choice(list(mine.legal_commands)))
                if over() or await game_over():
                    break
                await my_act(command("Play", card=rng.choice(hand1), to=rng.randrange(2)))
                other = await s.GetView(pb.GetViewRequest(game_id=gid), metadata=auth(tokens[1]))
                if over() or other.HasField("outcome"):
                    break
                if other.legal_commands:
                    try:
                        await s.SubmitAction(
                            pb.SubmitActionRequest(
                                game_id=gid, command=rng.choice(list(other.legal_commands))
                            ),
                            metadata=auth(tokens[1]),
                        )
                    except grpc.aio.AioRpcError:
                        pass
                    if await game_over():
                        break
            if not over() and not await game_over():
                await call.write(act("bye", "Resign"))
                got += await read_until(call, kind_is("end"), pong=False)
            assert (await ended(call))[0] == grpc.StatusCode.OK
            full = await s.GetLog(pb.GetLogRequest(game_id=gid), metadata=auth(tokens[1]))
            assert full.complete
            lines = clog.loads(full.log_jsonl)
            clog.verify(lines)
            states = [step.state for step in clog.replay(lines)]
            log_entries = {line["seq"]: line for line in lines if line["type"] == "entry"}
            entries = of_kind(got, "entry")
            assert [e.seq for e in entries] == list(range(len(log_entries)))
            for e in entries:
                expected = [
                    codec.canonical_text(codec.encode(game.redact(game.decode_event(x), 0)))
                    for x in log_entries[e.seq]["events"]
                ]
                assert [x.json for x in e.events] == expected, f"entry {e.seq}"
            views = of_kind(got, "view")
            for v in views:
                expected_view = codec.canonical_text(codec.encode(game.view(states[v.seq - 1], 0)))
                assert v.view.json == expected_view, f"view at {v.seq}"
            rejections = of_kind(got, "rejected")
            assert rejections[0].action_id == "x1"  # seat 1's card, before any was played
            assert not _cards(str(rejections[0].problem)) & (set(hand1) - {hand1[0]})
            for r in rejections:
                seen = _cards(sent[r.action_id]) | set().union(
                    *(_cards(v.view.json) for v in views)
                )
                assert _cards(str(r.problem)) <= seen, r.problem
            end_seed = str(lines[-1]["seed"])
            assert all(end_seed not in str(m) for m in got if m.WhichOneof("frame") != "end")

    asyncio.run(main())


def test_each_act_counts_against_the_tokens_rate_limit(tmp_path: Path) -> None:
    """One call is no way round the per-token limit a request meets: the open takes one of the
    token's two, the first act the other, the next is RateLimited (and changes nothing)."""

    async def main() -> None:
        async with serving(tmp_path, ServiceConfig(rate_per_token=1.0)) as (_, s):
            created = await ratscrew(s)
            call = await open_play(s, tokens_of(created)[0], created.game_id)
            await call.write(act("a1", "Play"))
            (ack,) = [
                m for m in await read_until(call, lambda m: m.HasField("ack")) if m.HasField("ack")
            ]
            assert ack.ack.seq == 1
            await call.write(act("a2", "Play"))
            got = await read_until(call, lambda m: m.HasField("rejected"))
            problem = got[-1].rejected.problem
            assert (problem.code, problem.status) == ("RateLimited", "RESOURCE_EXHAUSTED")
            assert int(problem.metadata["retry_after_s"]) >= 1
            call.cancel()

    asyncio.run(main())
