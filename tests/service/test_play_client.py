"""The Python client's play session (``GameClient.play``) against an in-process server, end to
end: entries, acts (acks and rejections as ``submit`` raises them), views with ``rtt_ms``, the
game's end; and a dropped connection (a TCP proxy in between resets it) resumed with no entry
lost or repeated and each act answered once.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from cardcore_client import Client, Entry, GameClient, PlaySession, Rejection
from cardcore_server.transports.server import Running, ServerOptions, start

from .tcpproxy import TcpProxy

WAIT_S = 10.0


@asynccontextmanager
async def serving(tmp_path: Path) -> AsyncIterator[Running]:
    running = await start(ServerOptions(port=0, db=str(tmp_path / "client.db")))
    try:
        yield running
    finally:
        await running.stop(grace_s=1.0)


async def entries_until(session: PlaySession, seq: int) -> list[Entry]:
    """The session's entries up to ``seq``, included."""
    got: list[Entry] = []
    async with asyncio.timeout(WAIT_S):
        async for entry in session:
            got.append(entry)
            if entry.seq >= seq:
                return got
    return got


async def two_seats(client: Client) -> tuple[GameClient, GameClient]:
    created = await client.create_game("ratscrew", ["human", "human"], timeouts_ms={"Collect": 0})
    return (
        client.game(created.game_id, created.seat_tokens[0]),
        client.game(created.game_id, created.seat_tokens[1]),
    )


def test_play_session_end_to_end(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(tmp_path) as running, Client(f"127.0.0.1:{running.port}") as client:
            me, _ = await two_seats(client)
            async with me.play() as session:
                assert session.seat == 0 and session.ping_interval_ms == 1000
                ack = await session.act({"kind": "Play"}, action_id="a1")
                assert (ack.action_id, ack.seq, ack.replayed, ack.outcome) == ("a1", 1, False, None)
                assert [e.seq for e in await entries_until(session, 1)] == [0, 1]
                again = await session.act({"kind": "Play"}, action_id="a1")
                assert (again.seq, again.replayed) == (1, True)
                # a rule's rejection: what submit raises
                with pytest.raises(Rejection) as played:
                    await session.act({"kind": "Play"})
                with pytest.raises(Rejection) as submitted:
                    await me.submit({"kind": "Play"})
                assert played.value.code == submitted.value.code == "NotYourTurn"
                assert played.value.metadata["next_seq"] == submitted.value.metadata["next_seq"]
                # the round trip, once a ping was answered
                async with asyncio.timeout(WAIT_S):
                    while (view := await session.view()).rtt_ms is None:
                        await asyncio.sleep(0.05)
                assert view.seq == 2 and 0 <= view.rtt_ms < 1000
                assert (await me.view()).rtt_ms is not None
                # the end
                resigned = await session.act({"kind": "Resign"})
                assert resigned.outcome is not None and resigned.outcome.winners == (1,)
                rest = [e async for e in session]
                assert [e.seq for e in rest] == [2]
                assert session.outcome == resigned.outcome
                assert '"type":"end"' in session.end_json
                # after the end, an act is answered as submit answers it
                with pytest.raises(Rejection) as late:
                    await session.act({"kind": "Play"})
                assert late.value.code == "GameOver"
            assert (await me.view()).rtt_ms is None  # closed: no round trip any more

    asyncio.run(main())


def test_play_session_resumes_after_a_drop(tmp_path: Path) -> None:
    async def main() -> None:
        async with serving(tmp_path) as running:
            with TcpProxy("127.0.0.1", running.port) as proxy:
                async with (
                    Client(f"127.0.0.1:{proxy.port}") as through,
                    Client(f"127.0.0.1:{running.port}") as direct,
                ):
                    created = await direct.create_game(
                        "ratscrew", ["human", "human"], timeouts_ms={"Collect": 0}
                    )
                    me = through.game(created.game_id, created.seat_tokens[0])
                    them = direct.game(created.game_id, created.seat_tokens[1])
                    async with me.play() as session:
                        seen = await entries_until(session, 0)
                        # cut off: the act is sent into a connection that no longer relays
                        proxy.set("silent")
                        acting = asyncio.create_task(session.act({"kind": "Play"}, action_id="p"))
                        await asyncio.sleep(0.3)
                        assert not acting.done()
                        proxy.set("relay")  # the held connection is reset: the session resumes
                        ack = await asyncio.wait_for(acting, WAIT_S)
                        assert ack.seq == 1
                        seen += await entries_until(session, 1)
                        # entries made while the call is down come once the session is back
                        proxy.set("down")
                        await asyncio.sleep(0.2)
                        views = [await them.view()]
                        moves = [c for c in views[0].legal_commands if c.kind == "Play"]
                        if moves:
                            await them.submit(moves[0])
                        else:
                            await me.submit({"kind": "Play"})
                        proxy.set("relay")
                        seen += await entries_until(session, 2)
                        assert [e.seq for e in seen] == [0, 1, 2]
                        assert session.reconnects >= 2
                        again = await session.act({"kind": "Play"}, action_id="p")
                        assert (again.seq, again.replayed) == (1, True)

    asyncio.run(main())
