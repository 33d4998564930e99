"""The game lifecycle through a real server over gRPC with the Python client: tables with open
seats joined by separate clients, the join race and its codes, deadlines, start with bots,
resign, abort (creator, admin, never a seat), listing, spectators, presence, clocks that
forfeit or abort (also across a SIGKILL), retention, and SIGKILL during joins.

Clients play with random legal commands from their own views (``legal_commands``), each seat
through its own client and token, as separate people would."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from cardcore import log as clog
from cardcore import registry
from cardcore_client import CallError, Client, GameClient, Rejection

from .helpers import ServerProcess

MAX_ACTIONS = 800
"""Random actions a test game gets before a seat resigns to end it (most end sooner)."""


@asynccontextmanager
async def client(target: str, **kw: object) -> AsyncIterator[Client]:
    c = Client(target, **kw)  # type: ignore[arg-type]
    try:
        yield c
    finally:
        await c.close()


async def play_random(
    seats: dict[int, GameClient], rng: random.Random, limit: int = MAX_ACTIONS
) -> int:
    """Each seat plays a random legal command of its own view until the game ends or
    ``limit`` actions were taken; returns the actions taken."""
    taken = 0
    while taken < limit:
        views = {s: await g.view() for s, g in seats.items()}
        if any(v.outcome is not None for v in views.values()):
            return taken
        movers = [s for s, v in views.items() if v.legal_commands]
        if not movers:
            await asyncio.sleep(0.01)  # a bot's or timer's turn
            continue
        seat = rng.choice(movers)
        command = rng.choice(views[seat].legal_commands)
        try:
            await seats[seat].submit(command)
        except Rejection:
            continue  # the state moved (a bot acted first)
        taken += 1
    return taken


async def finish(seats: dict[int, GameClient]) -> dict[str, object]:
    """Resign seats until the game is over; returns the final log's end line."""
    for g in seats.values():
        if (await g.view()).outcome is not None:
            break
        try:
            await g.resign()
        except Rejection as exc:
            assert exc.code in ("PlayerEliminated", "PlayerFinished", "GameOver")
    any_seat = next(iter(seats.values()))
    data, complete = await any_seat.log()
    assert complete
    lines = clog.loads(data)
    report = clog.verify(lines)
    assert report.revealed and report.outcome is not None
    assert sum(1 for _ in clog.replay(lines)) == report.entries
    return lines[-1]


# --------------------------------------------------------------------------- every game


@pytest.mark.parametrize("name", [g.info.name for g in registry.GAMES])
def test_a_table_fills_from_invites_and_plays_to_the_end(server: ServerProcess, name: str) -> None:
    """Seat 0 is the creator's; the others are invites, each redeemed by a client of its own.
    The table deals when the last seat is taken; then the seats play, and the log verifies."""
    game = registry.get_game(name)
    n = min(game.info.max_seats, 3)

    async def main() -> None:
        async with client(server.target) as host:
            created = await host.create_game(
                name, ["human"] + ["invite"] * (n - 1), seed=11, timeouts_ms={}
            )
            assert created.status == "waiting" and set(created.invites) == set(range(1, n))
            me = host.game(created.game_id, created.seat_tokens[0])
            with pytest.raises(Rejection) as info:
                await me.view()
            assert info.value.code == "GameNotStarted"
            seats = {0: me}
            others = [Client(server.target) for _ in range(n - 1)]
            try:
                for i, (seat, code) in enumerate(sorted(created.invites.items())):
                    joined = await others[i].join(code)
                    assert joined.seat == seat and joined.game_id == created.game_id
                    assert joined.status == ("playing" if seat == n - 1 else "waiting")
                    seats[seat] = others[i].game(created.game_id, joined.token)
                table = await me.table()
                assert table.status == "playing" and all(s.taken for s in table.seats)
                assert table.seed_commitment == created.seed_commitment
                await play_random(seats, random.Random(name))
                end = await finish(seats)
                assert end["outcome"]
            finally:
                for c in others:
                    await c.close()

    asyncio.run(main())


# --------------------------------------------------------------------------- joins


def test_twenty_clients_race_for_the_last_seat(server: ServerProcess) -> None:
    async def main() -> None:
        async with client(server.target) as host:
            created = await host.create_game("ratscrew", ["human", "anyone"], seed=3, public=True)
            racers = [Client(server.target) for _ in range(20)]
            try:
                results = await asyncio.gather(
                    *(c.join(game_id=created.game_id) for c in racers), return_exceptions=True
                )
            finally:
                for c in racers:
                    await c.close()
            won = [r for r in results if not isinstance(r, BaseException)]
            lost = [r for r in results if isinstance(r, BaseException)]
            assert len(won) == 1 and won[0].seat == 1 and won[0].status == "playing"
            assert all(isinstance(r, Rejection) for r in lost)
            # Lost the compare-and-set to the winner (TableFull), or read after it dealt.
            assert {r.code for r in lost if isinstance(r, Rejection)} <= {
                "TableFull",
                "GameStarted",
            }
            seat = host.game(created.game_id, won[0].token)
            assert (await seat.view()).seat == 1

    asyncio.run(main())


def test_join_codes(server: ServerProcess) -> None:
    """Used invite, full table, a seat not open to anyone, a started game, an unknown invite."""

    async def main() -> None:
        async with client(server.target) as c:
            t = await c.create_game("ratscrew", ["human", "invite", "anyone", "human"], seed=4)
            code = t.invites[1]
            assert (await c.join(code)).seat == 1
            with pytest.raises(Rejection) as used:
                await c.join(code)
            assert used.value.code == "InviteUsed"
            with pytest.raises(Rejection) as not_open:
                await c.join(game_id=t.game_id, seat=3)
            assert not_open.value.code == "SeatNotOpen"
            assert (await c.join(game_id=t.game_id)).seat == 2  # the last open seat: deals
            with pytest.raises(Rejection) as started:
                await c.join(game_id=t.game_id)
            assert started.value.code == "GameStarted"
            with pytest.raises(CallError) as bad:
                await c.join("cci_nonsense")
            assert bad.value.reason == "InvalidInvite" and bad.value.status == "NOT_FOUND"
            # A table whose anyone-seats are taken but an invite seat is still open: full.
            t2 = await c.create_game("ratscrew", ["human", "anyone", "invite"], seed=5)
            await c.join(game_id=t2.game_id)
            with pytest.raises(Rejection) as full:
                await c.join(game_id=t2.game_id)
            assert full.value.code == "TableFull"

    asyncio.run(main())


def test_a_table_past_its_deadline_is_cancelled(server: ServerProcess) -> None:
    async def main() -> None:
        async with client(server.target) as c:
            t = await c.create_game("speed", ["human", "invite"], start_deadline_ms=300)
            await asyncio.sleep(0.8)
            with pytest.raises(Rejection) as late:
                await c.join(t.invites[1])
            assert late.value.code == "TableCancelled"
            me = c.game(t.game_id, t.seat_tokens[0])
            assert (await me.table()).status == "cancelled"
            with pytest.raises(Rejection) as gone:
                await me.view()
            assert gone.value.code == "TableCancelled"

    asyncio.run(main())


def test_the_creator_starts_with_bots_and_a_stream_waits_for_the_deal(
    server: ServerProcess,
) -> None:
    async def main() -> None:
        async with client(server.target) as c:
            t = await c.create_game("speed", ["human", "invite"], seed=6)
            me = c.game(t.game_id, t.seat_tokens[0])
            first: asyncio.Future[int] = asyncio.get_running_loop().create_future()

            async def watch() -> None:
                async for entry in me.stream():
                    if not first.done():
                        first.set_result(entry.seq)
                    return

            watcher = asyncio.create_task(watch())
            await asyncio.sleep(0.3)
            assert not first.done()  # nothing is dealt yet
            seat = c.game(t.game_id, t.seat_tokens[0])
            with pytest.raises(CallError) as not_creator:
                await seat.start()
            assert not_creator.value.reason == "NotCreator"
            assert not_creator.value.status == "PERMISSION_DENIED"
            table = await c.game(t.game_id, t.creator_token).start()
            assert table.status == "playing"
            assert [s.kind for s in table.seats] == ["human", "reaction"]
            assert await asyncio.wait_for(first, 5) == 0
            await watcher
            with pytest.raises(Rejection) as again:
                await c.join(t.invites[1])
            assert again.value.code == "GameStarted"  # unused, but its seat went to a bot

    asyncio.run(main())


# --------------------------------------------------------------------------- leaving


@pytest.mark.parametrize("name", ["ratscrew", "slapjack", "palace"])
def test_resign_at_a_table_of_four_goes_on_then_ends(server: ServerProcess, name: str) -> None:
    """One seat resigns mid-play: the game goes on with three (docs/games/common.md#leaving-a-game);
    then the others resign until two are left and the last resign ends it; the log verifies."""

    async def main() -> None:
        async with client(server.target) as c:
            t = await c.create_game(name, ["human"] * 4, seed=21, timeouts_ms={})
            seats = {s: c.game(t.game_id, tok) for s, tok in t.seat_tokens.items()}
            await play_random(seats, random.Random(1), limit=12)
            result = await seats[1].resign()
            assert result.outcome is None, "three are left: the game goes on"
            with pytest.raises(Rejection) as out:
                await seats[1].resign()
            assert out.value.code in ("PlayerEliminated", "PlayerFinished")
            await play_random({s: g for s, g in seats.items() if s != 1}, random.Random(2), 12)
            end = await finish(seats)
            outcome = end["outcome"]
            assert isinstance(outcome, dict)
            assert 1 not in outcome["winners"]

    asyncio.run(main())


def test_resign_in_a_two_seat_game_ends_it(server: ServerProcess) -> None:
    async def main() -> None:
        async with client(server.target) as c:
            t = await c.create_game("spit", ["human", "human"], seed=8)
            seats = {s: c.game(t.game_id, tok) for s, tok in t.seat_tokens.items()}
            await play_random(seats, random.Random(3), limit=10)
            result = await seats[0].resign()
            assert result.outcome is not None
            assert result.outcome.termination == "resigned" and result.outcome.winners == (1,)
            with pytest.raises(CallError) as forged:
                await seats[1].submit({"kind": "Resign", "by": "timer"})
            assert forged.value.reason == "HostOnly"

    asyncio.run(main())


# --------------------------------------------------------------------------- abort


def test_abort_by_the_creator_and_the_admin_never_a_seat(tmp_path: Path) -> None:
    proc = ServerProcess(tmp_path, "--admin-key", "k" * 24, "--collect-window-ms", "0").start()
    try:

        async def main() -> None:
            async with client(proc.target, admin_key="k" * 24) as admin:
                t = await admin.create_game("palace", ["human", "human", "reaction"])
                seat = admin.game(t.game_id, t.seat_tokens[0])
                with pytest.raises(CallError) as denied:
                    await seat.abort()
                assert denied.value.reason == "NotCreator"
                assert denied.value.status == "PERMISSION_DENIED"
                table = await admin.game(t.game_id, t.creator_token).abort()
                assert table.status == "finished"
                assert table.outcome is not None and table.outcome.termination == "aborted"
                data, complete = await seat.log()
                lines = clog.loads(data)
                assert complete and lines[-2]["action"] == {"kind": "Abort", "by": "creator"}
                assert clog.verify(lines).outcome is not None
                with pytest.raises(Rejection) as over:
                    await admin.game(t.game_id, t.creator_token).abort()
                assert over.value.code == "GameOver"

                t2 = await admin.create_game("slapjack", ["human", "random"])
                table = await admin.abort(t2.game_id)
                assert table.outcome is not None and table.outcome.termination == "aborted"
                data, _ = await admin.game(t2.game_id, t2.seat_tokens[0]).log()
                assert clog.loads(data)[-2]["action"]["by"] == "admin"
                async with client(proc.target, admin_key="wrong" * 5) as intruder:
                    with pytest.raises(CallError) as wrong:
                        await intruder.abort(t.game_id)
                    assert wrong.value.status == "PERMISSION_DENIED"

                t3 = await admin.create_game("speed", ["human", "invite"])
                table = await admin.game(t3.game_id, t3.creator_token).abort()
                assert table.status == "cancelled"

        asyncio.run(main())
    finally:
        proc.stop()


# --------------------------------------------------------------------------- looking


def test_listing_is_newest_first_and_stable_while_tables_are_created(
    server: ServerProcess,
) -> None:
    async def main() -> None:
        async with client(server.target) as c:
            made = []
            for i in range(5):
                t = await c.create_game("palace", ["human", "anyone"], public=True, seed=i)
                made.append(t.game_id)
            await c.create_game("palace", ["human", "anyone"], seed=9)  # private: not listed
            page, token = await c.list_tables("palace", page_size=2)
            seen = [p.game_id for p in page]
            creating = asyncio.gather(
                *(c.create_game("palace", ["human", "anyone"], public=True) for _ in range(4))
            )
            while token:
                page, token = await c.list_tables("palace", page_size=2, page_token=token)
                seen += [p.game_id for p in page]
            newer = await creating
            assert len(seen) == len(set(seen)), "no table twice"
            mine = [g for g in seen if g in made]
            assert mine == made[::-1], "the first five, newest first, none missing"
            assert not {n.game_id for n in newer} & set(seen[:2])
            with pytest.raises(CallError) as bad:
                await c.list_tables(page_token="not-a-token")
            assert bad.value.reason == "Malformed" and "page_token" in bad.value.fields

    asyncio.run(main())


def test_spectators_presence_and_my_games(server: ServerProcess) -> None:
    async def main() -> None:
        async with client(server.target) as c:
            t = await c.create_game("spit", ["human", "anyone"], public=True, seed=12)
            listed = await c.table(t.game_id)
            assert listed.public and listed.status == "waiting"
            watcher = await c.watch(t.game_id)
            joined = await c.join(game_id=t.game_id)
            me = c.game(t.game_id, t.seat_tokens[0])

            async def hold() -> None:
                async for _ in me.stream():
                    pass

            holding = asyncio.create_task(hold())
            for _ in range(50):
                if (await watcher.view()).present_seats == (0,):
                    break
                await asyncio.sleep(0.05)
            assert (await watcher.view()).present_seats == (0,)
            table = await watcher.table()
            assert [s.present for s in table.seats] == [True, False]
            holding.cancel()
            mine = await c.my_games([t.seat_tokens[0], joined.token, t.creator_token])
            assert [v for v, _ in mine] == ["0", "1", "creator"]
            assert {tb.game_id for _, tb in mine} == {t.game_id}
            private = await c.create_game("spit", ["human", "anyone"])
            with pytest.raises(CallError) as no:
                await c.watch(private.game_id)
            assert no.value.reason == "TableNotPublic"

    asyncio.run(main())


# --------------------------------------------------------------------------- clocks


def forfeits(lines: list[dict[str, object]]) -> list[dict[str, object]]:
    return [
        line
        for line in lines
        if line.get("type") == "entry"
        and isinstance(line.get("action"), dict)
        and line["action"].get("by") == "timer"  # type: ignore[union-attr]
    ]


def test_a_speed_idle_seat_forfeits(server: ServerProcess) -> None:
    async def main() -> None:
        async with client(server.target) as c:
            t = await c.create_game("speed", ["human", "human"], seed=14, idle_timeout_ms=400)
            seats = {s: c.game(t.game_id, tok) for s, tok in t.seat_tokens.items()}
            # Seat 1 keeps acting; seat 0 never does: seat 0 forfeits.
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                v = await seats[1].view()
                if v.outcome is not None:
                    break
                if v.legal_commands:
                    try:
                        await seats[1].submit(v.legal_commands[0])
                    except Rejection:
                        pass  # the state moved under it: look again
                await asyncio.sleep(0.1)
            data, complete = await seats[1].log()
            lines = clog.loads(data)
            assert complete
            timed = forfeits(lines)
            assert len(timed) == 1 and timed[0]["seat"] == 0
            assert lines[-1]["outcome"]["winners"] == [1]  # type: ignore[index]
            assert clog.verify(lines).outcome is not None

    asyncio.run(main())


def test_a_palace_turn_timer_forfeits_the_seat_to_move(server: ServerProcess) -> None:
    """Three seats ready up and play a little; then nobody moves: the seat to move forfeits
    (the host's ``Resign`` with ``by: timer``, a logged entry), the game goes on with two, and
    the next seat to move forfeits in turn, which ends it. The log verifies and replays."""

    async def main() -> None:
        async with client(server.target) as c:
            t = await c.create_game("palace", ["human"] * 3, seed=22, turn_timeout_ms=400)
            seats = {s: c.game(t.game_id, tok) for s, tok in t.seat_tokens.items()}
            await play_random(seats, random.Random(5), limit=8)
            me = seats[0]
            for _ in range(100):
                if (await me.view()).outcome is not None:
                    break
                await asyncio.sleep(0.05)
            data, complete = await me.log()
            lines = clog.loads(data)
            assert complete
            timed = forfeits(lines)
            assert len(timed) == 2 and len({ln["seat"] for ln in timed}) == 2
            assert lines[-1]["outcome"]["termination"] == "resigned"  # type: ignore[index]
            assert clog.verify(lines).outcome is not None
            assert sum(1 for _ in clog.replay(lines)) == len(lines) - 2
            with pytest.raises(CallError) as no_turns:
                await c.create_game("ratscrew", ["human"] * 2, turn_timeout_ms=400)
            assert "turn_timeout_ms" in no_turns.value.fields

    asyncio.run(main())


def test_an_abandoned_game_is_aborted(server: ServerProcess) -> None:
    async def main() -> None:
        async with client(server.target) as c:
            t = await c.create_game("ratscrew", ["human", "human"], abandon_timeout_ms=300)
            me = c.game(t.game_id, t.seat_tokens[0])
            for _ in range(50):
                if (await me.view()).outcome is not None:
                    break
                await asyncio.sleep(0.05)
            v = await me.view()
            assert v.outcome is not None and v.outcome.termination == "aborted"
            data, _ = await me.log()
            assert clog.loads(data)[-2]["action"] == {"kind": "Abort", "by": "timer"}

    asyncio.run(main())


def test_a_clock_due_during_an_outage_fires_once_after_restart(fresh_server: ServerProcess) -> None:
    fresh_server.start()

    async def setup() -> tuple[str, str]:
        async with client(fresh_server.target) as c:
            t = await c.create_game("speed", ["human", "human"], seed=15, idle_timeout_ms=1500)
            return t.game_id, t.seat_tokens[1]

    game_id, token = asyncio.run(setup())
    fresh_server.kill()
    time.sleep(2.0)  # both seats' clocks run out while no server is up
    fresh_server.start()

    async def after() -> None:
        async with client(fresh_server.target) as c:
            me = c.game(game_id, token)
            for _ in range(100):
                if (await me.view()).outcome is not None:
                    break
                await asyncio.sleep(0.05)
            data, complete = await me.log()
            lines = clog.loads(data)
            assert complete
            assert len(forfeits(lines)) == 1, "one forfeit ends a two-seat game: exactly once"
            assert clog.verify(lines).outcome is not None

    asyncio.run(after())


# --------------------------------------------------------------------------- retention


def test_retention_archives_finished_games_and_forgets_them(tmp_path: Path) -> None:
    """A finished game and an unfinished one, both older than the limit: the unfinished one is
    aborted first; both final logs are archived (and verify), both leave the store, and a
    restart rebuilds neither."""
    archive = tmp_path / "archive"
    proc = ServerProcess(tmp_path, "--collect-window-ms", "0").start()

    async def play() -> tuple[str, str]:
        async with client(proc.target) as c:
            done = await c.create_game("spit", ["human", "human"])
            await c.game(done.game_id, done.seat_tokens[0]).resign()
            live = await c.create_game("spit", ["human", "human"])
            return done.game_id, live.game_id

    done_id, live_id = asyncio.run(play())
    proc.stop()
    time.sleep(1.0)
    # 0.5 s in days: both games above are older than that when the server starts again.
    proc.args = [
        "--collect-window-ms",
        "0",
        "--retain-days",
        str(0.5 / 86400),
        "--archive",
        str(archive),
    ]
    proc.start()
    try:
        paths = [archive / f"{gid}.jsonl" for gid in (done_id, live_id)]
        for _ in range(200):
            if all(p.exists() for p in paths) and "game_archived" in proc.log_text():
                break
            time.sleep(0.05)
        for path in paths:
            assert path.exists(), proc.log_text()[-2000:]
            assert clog.verify(clog.loads(path.read_bytes())).revealed
        aborted = clog.loads(paths[1].read_bytes())[-2]
        assert aborted["action"] == {"kind": "Abort", "by": "retention"}
        proc.stop()
        before = len(proc.log_text())
        proc.args = ["--collect-window-ms", "0"]
        proc.start()
        rebuilt = [ln for ln in proc.log_text()[before:].splitlines() if "game_rebuilt" in ln]
        assert not [ln for ln in rebuilt if done_id in ln or live_id in ln]

        async def gone() -> None:
            async with client(proc.target) as c:
                for gid in (done_id, live_id):
                    with pytest.raises(CallError) as info:
                        await c.table(gid)  # no token of it is known any more either
                    assert info.value.status == "UNAUTHENTICATED"

        asyncio.run(gone())
    finally:
        proc.stop()


# --------------------------------------------------------------------------- crashes


def test_sigkill_during_joins_gives_no_seat_twice_and_loses_no_token(
    fresh_server: ServerProcess,
) -> None:
    fresh_server.start()
    seats = 8

    async def create() -> tuple[str, list[str]]:
        async with client(fresh_server.target) as c:
            t = await c.create_game("ratscrew", ["human"] + ["invite"] * (seats - 1), seed=19)
            return t.game_id, [t.invites[s] for s in range(1, seats)]

    game_id, codes = asyncio.run(create())
    returned: dict[int, str] = {}

    async def join_all() -> None:
        async with client(fresh_server.target, attempts=1, attempt_timeout_s=2.0) as c:

            async def one(code: str) -> None:
                try:
                    j = await c.join(code)
                except CallError:
                    return
                returned[j.seat] = j.token

            tasks = [asyncio.create_task(one(code)) for code in codes]
            for _ in range(400):  # kill once some joins were answered and others are in flight
                if returned:
                    break
                await asyncio.sleep(0.005)
            fresh_server.kill()
            await asyncio.gather(*tasks)
            assert returned, "no join was answered before the kill: the test saw nothing"

    asyncio.run(join_all())
    fresh_server.start()

    async def check() -> None:
        async with client(fresh_server.target) as c:
            for seat, token in returned.items():  # every token returned still works
                table = await c.game(game_id, token).table()
                assert table.seats[seat].taken
            retried: dict[int, str] = {}
            for code in codes:  # join again: a seat whose join landed says InviteUsed
                try:
                    j = await c.join(code)
                    retried[j.seat] = j.token
                except Rejection as exc:
                    assert exc.code == "InviteUsed"
            assert not set(retried) & set(returned), "no seat given twice"
            table = await c.game(game_id, next(iter({**returned, **retried}.values()))).table()
            assert table.status == "playing", "every seat is taken exactly once: it dealt"

    asyncio.run(check())
