"""A deal no one can time (docs/rng.md, "Committed entropy"): seats join with a commitment to
their entropy, reveal it once nobody can join or leave, and the last reveal deals; the log's
header records each commitment and ``verify`` holds every reveal to it; a seat that never
reveals cancels the table rather than letting anyone choose between two deals."""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

import pytest

from cardcore import log as clog
from cardcore import rng
from cardcore.errors import CorruptLog
from cardcore.verdicts import judge
from cardcore_client import CallError, Client, entropy_commitment
from cardcore_client.client import _check_commitments
from cardcore_proto import game_service_pb2 as pb

from .helpers import ServerProcess

REVEAL_DEADLINE_MS = 1500


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    tmp = tmp_path_factory.mktemp("reveals")
    proc = ServerProcess(
        tmp, "--collect-window-ms", "0", "--reveal-deadline-ms", str(REVEAL_DEADLINE_MS)
    ).start()
    yield proc
    assert proc.stop() == 0


@asynccontextmanager
async def clients(target: str, n: int) -> AsyncIterator[list[Client]]:
    """``n`` clients of the server, each a player's own (one holds its seats' entropy)."""
    async with AsyncExitStack() as stack:
        yield [await stack.enter_async_context(Client(target)) for _ in range(n)]


async def _table_of_three(host: Client) -> tuple[str, str]:
    """A Slapjack table: the creator's seat (adding nothing: the joiners' are what these tests
    are about) and two open to anyone; (game id, creator token)."""
    created = await host.create_game(
        "slapjack", ["human", "anyone", "anyone"], public=True, contribute=False
    )
    assert created.status == "waiting"
    return created.game_id, created.creator_token


async def _join_raw(
    c: Client, game_id: str, *, entropy: bytes = b"", entropy_commitment: bytes = b""
) -> pb.JoinTableResponse:
    """A join as any client may send it (the library's own commits and reveals by itself)."""
    request = pb.JoinTableRequest(
        game_id=game_id, entropy=entropy, entropy_commitment=entropy_commitment
    )
    joined: pb.JoinTableResponse = await c._call(c.stub.JoinTable, request, ())
    return joined


async def _reveal_raw(c: Client, game_id: str, token: str, entropy: bytes) -> pb.TableInfo:
    request = pb.RevealEntropyRequest(game_id=game_id, entropy=entropy)
    metadata = [("authorization", f"Bearer {token}")]
    answer: pb.RevealEntropyResponse = await c._call(c.stub.RevealEntropy, request, metadata)
    return answer.table


def test_seats_commit_when_they_join_and_the_last_reveal_deals(server: ServerProcess) -> None:
    """Seat 1 joins and waits on its event stream; seat 2's join makes the seats final and
    reveals its own entropy at once; seat 1's client sees the table revealing and reveals too;
    the deal follows, and the log's header records both commitments, which verify checks."""

    async def main() -> None:
        async with clients(server.target, 3) as (host, a, b):
            game_id, creator = await _table_of_three(host)
            ja = await a.join(game_id=game_id)
            assert ja.status == "waiting"
            secret_a = a._unrevealed[ja.token][1]
            seen = await host.game(game_id, creator).table()
            assert seen.seats[1].entropy_commitment == entropy_commitment(secret_a).hex()
            assert not seen.seats[1].revealed and seen.seats[2].entropy_commitment == ""

            stream = a.game(game_id, ja.token).stream()
            first = asyncio.ensure_future(anext(stream))  # waits for the deal, revealing
            await asyncio.sleep(0.05)
            jb = await b.join(game_id=game_id)
            assert jb.status in ("revealing", "playing")  # "playing" if seat 1 was quicker
            deal = await asyncio.wait_for(first, 10)
            assert deal.seq == 0
            await stream.aclose()
            # the stream held the header to the commitments the table showed at the reveal
            assert game_id not in a._commitments_seen

            table = await host.game(game_id, creator).table()
            assert table.status == "playing"
            assert [s.revealed for s in table.seats] == [False, True, True]
            await host.game(game_id, creator).abort()  # the end line reveals the server seed
            data, complete = await a.game(game_id, ja.token).log()
            assert complete
            lines = clog.loads(data)
            header = lines[0]
            assert [c.get("commitment") for c in header["contributions"]] == [
                entropy_commitment(secret_a).hex(),
                table.seats[2].entropy_commitment,
            ]
            assert header["contributions"][0] == {
                "seat": 1,
                "entropy": secret_a.hex(),
                "commitment": rng.entropy_commitment(secret_a),
            }
            report = clog.verify(lines)
            assert report.revealed and report.committed == (1, 2)
            verdict = judge(lines).text
            assert "seats 1, 2: each one's entropy matches the commitment" in verdict, verdict

            # A header whose commitments are not those the table showed when a seat revealed
            # (a server that swapped one afterwards) is refused by that seat's client.
            seen = {s.seat: s.entropy_commitment for s in table.seats if s.entropy_commitment}
            _check_commitments(header, seen)
            swapped = {**seen, 2: rng.entropy_commitment(bytes(16))}
            with pytest.raises(CallError) as changed:
                _check_commitments(header, swapped)
            assert (changed.value.status, changed.value.reason) == (
                "DATA_LOSS",
                "CommitmentChanged",
            )

            # A reveal changed afterwards is caught, even with the header's hash recomputed.
            forged = json.loads(json.dumps(header))
            forged["contributions"][0]["entropy"] = secrets.token_bytes(16).hex()
            forged["hash"] = clog.header_hash(forged)
            with pytest.raises(CorruptLog, match="seat 1's revealed entropy does not match"):
                clog.verify([forged, *lines[1:]])

    asyncio.run(main())


def test_a_play_channel_opened_before_the_deal_reveals_and_waits_for_it(
    server: ServerProcess,
) -> None:
    async def main() -> None:
        async with clients(server.target, 3) as (host, a, b):
            game_id, _ = await _table_of_three(host)
            ja = await a.join(game_id=game_id)
            session = a.game(game_id, ja.token).play()
            opening = asyncio.ensure_future(session.open())  # waits for the deal
            await asyncio.sleep(0.3)
            assert not opening.done()
            await b.join(game_id=game_id)
            await asyncio.wait_for(opening, 10)
            deal = await asyncio.wait_for(anext(session), 10)
            assert deal.seq == 0 and ja.token not in a._unrevealed
            await session.close()

    asyncio.run(main())


def test_reveals_are_refused_before_the_start_and_unless_they_match(
    server: ServerProcess,
) -> None:
    async def main() -> None:
        async with clients(server.target, 2) as (host, c):
            game_id, creator = await _table_of_three(host)
            secret = secrets.token_bytes(16)
            with pytest.raises(CallError) as both:
                await _join_raw(
                    c, game_id, entropy=secret, entropy_commitment=entropy_commitment(secret)
                )
            assert both.value.status == "INVALID_ARGUMENT"
            assert "entropy_commitment" in both.value.fields
            with pytest.raises(CallError) as short:
                await _join_raw(c, game_id, entropy_commitment=b"\x01" * 31)
            assert "entropy_commitment" in short.value.fields

            j1 = await _join_raw(c, game_id, entropy_commitment=entropy_commitment(secret))
            with pytest.raises(CallError) as early:  # the seats are not final yet
                await _reveal_raw(c, game_id, j1.token, secret)
            assert (early.value.status, early.value.reason) == (
                "FAILED_PRECONDITION",
                "NotRevealing",
            )
            plain = secrets.token_bytes(16)
            j2 = await _join_raw(c, game_id, entropy=plain)  # given at once: nothing to reveal
            assert j2.status == "revealing"
            with pytest.raises(CallError) as nothing:
                await _reveal_raw(c, game_id, j2.token, plain)
            assert nothing.value.reason == "NotRevealing"
            with pytest.raises(CallError) as wrong:
                await _reveal_raw(c, game_id, j1.token, secrets.token_bytes(16))
            assert wrong.value.status == "INVALID_ARGUMENT" and "entropy" in wrong.value.fields
            assert (await host.game(game_id, creator).table()).status == "revealing"
            with pytest.raises(CallError) as not_dealt:  # nothing to view until the deal
                await c.game(game_id, j1.token).view()
            assert not_dealt.value.reason == "GameNotStarted"

            table = await _reveal_raw(c, game_id, j1.token, secret)
            assert table.status == "playing"
            again = await _reveal_raw(c, game_id, j1.token, secret)  # a retry: same answer
            assert again.status == "playing"

    asyncio.run(main())


def test_a_seat_that_never_reveals_cancels_the_table(server: ServerProcess) -> None:
    """Any deal made without the missing reveal would let that seat (with the server) choose
    between two deals; so there is none: the table is cancelled, and shows whose reveal is
    missing."""

    async def main() -> None:
        async with clients(server.target, 2) as (host, c):
            game_id, creator = await _table_of_three(host)
            secret = secrets.token_bytes(16)
            j1 = await _join_raw(c, game_id, entropy_commitment=entropy_commitment(secret))
            j2 = await c.join(game_id=game_id)
            assert j2.status == "revealing"
            revealing = await host.game(game_id, creator).table()
            assert revealing.deadline_ms > time.time() * 1000
            deadline = time.monotonic() + REVEAL_DEADLINE_MS / 1000 + 5
            while (table := await host.game(game_id, creator).table()).status == "revealing":
                assert time.monotonic() < deadline, "the reveal deadline never fired"
                await asyncio.sleep(0.1)
            assert table.status == "cancelled"
            assert [(s.entropy_commitment != "", s.revealed) for s in table.seats[1:]] == [
                (True, False),
                (True, True),
            ]
            with pytest.raises(CallError) as late:
                await _reveal_raw(c, game_id, j1.token, secret)
            assert late.value.reason == "TableCancelled"

    asyncio.run(main())


def test_a_client_seeded_table_takes_no_commitment(tmp_path: Path) -> None:
    """A seed the creator chose deals by itself (log format 1): a join's commitment is not
    asked to be revealed, and the join that fills the table deals at once."""
    proc = ServerProcess(tmp_path, "--allow-client-seed", "--collect-window-ms", "0").start()
    try:

        async def main() -> None:
            async with Client(proc.target) as host, Client(proc.target) as c:
                created = await host.create_game("slapjack", ["human", "anyone"], seed=5)
                joined = await c.join(game_id=created.game_id)
                assert joined.status == "playing"
                table = await c.game(created.game_id, joined.token).table()
                assert table.seats[1].entropy_commitment == ""

        asyncio.run(main())
    finally:
        assert proc.stop() == 0


def test_the_creators_own_seats_commit_too(server: ServerProcess) -> None:
    """A creator playing alone against the server's bots: its seat commits with the creation,
    before the server has drawn anything the creator could see, and reveals once the server's
    seed is committed (the answer's ``seed_commitment``); the client does it by itself."""

    async def main() -> None:
        async with Client(server.target) as c:
            created = await c.create_game("slapjack", ["human", "reaction"])
            assert created.status == "playing" and not c._unrevealed
            me = c.game(created.game_id, created.seat_tokens[0])
            table = await me.table()
            assert table.seats[0].revealed and len(table.seats[0].entropy_commitment) == 64
            assert table.seed_commitment == created.seed_commitment
            await me.resign()
            data, complete = await me.log()
            header = clog.loads(data)[0]
            assert complete and header["contributions"][0]["commitment"] == (
                table.seats[0].entropy_commitment
            )
            assert clog.verify(clog.loads(data)).committed == (0,)

            # as any client may send it: the game waits, revealing, until the seat reveals
            secret = secrets.token_bytes(16)
            seats = [
                pb.SeatAssignment(
                    kind=pb.SEAT_KIND_HUMAN, entropy_commitment=entropy_commitment(secret)
                ),
                pb.SeatAssignment(kind=pb.SEAT_KIND_RANDOM_BOT),
            ]
            raw = await c._call(
                c.stub.CreateGame, pb.CreateGameRequest(game="slapjack", seats=seats), ()
            )
            assert raw.status == "revealing" and raw.header_json == "{}"  # not dealt yet
            token = raw.seat_tokens[0].token
            with pytest.raises(CallError) as not_dealt:
                await c.game(raw.game_id, token).view()
            assert not_dealt.value.reason == "GameNotStarted"
            dealt = await _reveal_raw(c, raw.game_id, token, secret)
            assert dealt.status == "playing"
            assert [s.kind for s in (await c.game(raw.game_id, token).table()).seats] == [
                "human",
                "random",
            ]

            # what a creation may not ask
            both = pb.SeatAssignment(
                kind=pb.SEAT_KIND_HUMAN, entropy=secret, entropy_commitment=b"\x02" * 32
            )
            bot = pb.SeatAssignment(kind=pb.SEAT_KIND_RANDOM_BOT, entropy_commitment=b"\x02" * 32)
            cases = (
                ([both, seats[1]], "seats[0].entropy_commitment"),
                ([seats[0], bot], "seats[1].entropy_commitment"),
            )
            for assignments, field in cases:
                request = pb.CreateGameRequest(game="slapjack", seats=assignments)
                with pytest.raises(CallError) as refused:
                    await c._call(c.stub.CreateGame, request, ())
                assert refused.value.status == "INVALID_ARGUMENT"
                assert field in refused.value.fields, refused.value.fields

    asyncio.run(main())


def test_the_creators_start_reveals_its_own_seat(server: ServerProcess) -> None:
    async def main() -> None:
        async with Client(server.target) as c:
            created = await c.create_game("slapjack", ["human", "anyone"])
            assert created.status == "waiting"
            table = await c.game(created.game_id, created.creator_token).start()
            assert table.status == "playing" and table.seats[0].revealed

    asyncio.run(main())
