"""The event-store contract, run against every backend (as eventsourcing's abstract recorder
tests): :class:`StoreContract` holds the tests, each backend's class only says how to open one.

The lines are opaque to a store, so they are small hand-made dicts here; what is checked is what
the application relies on: round trips, order, idempotency records, the ``(game_id, seq)``
conflict failing cleanly (and every later write of that game, until :meth:`forgive`), group
commit, and that :meth:`close` commits everything enqueued.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from cardcore.log import LogLine
from cardcore_server.store import (
    EventStore,
    GameRecord,
    SeatSpec,
    SharedStore,
    SqliteStore,
    StoredRejection,
    StoreError,
    open_store,
)

Factory = Callable[[], EventStore]


def run(coro: Coroutine[Any, Any, None]) -> None:
    asyncio.run(coro)


def record(game_id: str | None = None) -> GameRecord:
    return GameRecord(
        game_id=game_id or secrets.token_hex(16),
        game="ratscrew",
        rules={"slap_rules": ["pair"]},
        event_limit=1000,
        seed=2**64 - 1,  # beyond a signed 64-bit integer: stored as text
        salt=secrets.token_bytes(16),
        created_ms=1_700_000_000_000,
        seats=(SeatSpec("human"), SeatSpec("reaction", 5, 50)),
        timeouts_ms={"Collect": 2000},
    )


def header(game_id: str) -> LogLine:
    return {"type": "header", "game_id": game_id, "commitment": "c0ffee"}


def entry(seq: int, seat: int | None = 0, note: str = "") -> LogLine:
    return {"type": "entry", "seq": seq, "seat": seat, "action": {"kind": "Play"}, "note": note}


def end_line(seq: int) -> LogLine:
    return {"type": "end", "after_seq": seq, "seed": "1"}


@asynccontextmanager
async def opened(factory: Factory) -> AsyncIterator[EventStore]:
    store = factory()
    await store.open()
    try:
        yield store
    finally:
        await store.close()


async def new_game(store: EventStore, tokens: int = 2) -> tuple[GameRecord, list[str]]:
    rec = record()
    hashes = [secrets.token_hex(32) for _ in range(tokens)]
    rows = [(h, str(i)) for i, h in enumerate(hashes)]
    await store.create(rec, header(rec.game_id), entry(0, None), rows)
    return rec, hashes


class StoreContract:
    """The tests every backend passes; a subclass provides the ``factory`` fixture (a callable
    that makes a new, unopened store on the same database each time)."""

    def test_create_then_load(self, factory: Factory) -> None:
        async def body() -> None:
            async with opened(factory) as store:
                rec, hashes = await new_game(store)
                assert await store.load(secrets.token_hex(16)) is None
            async with opened(factory) as store:  # durable: a new store reads it back
                got = await store.load(rec.game_id)
                assert got is not None
                assert got.record == rec
                assert got.lines == [header(rec.game_id), entry(0, None)]
                assert got.action_ids == {} and got.rejections == {}
                tokens = await store.tokens()
                assert {h: tokens[h] for h in hashes} == {
                    hashes[0]: (rec.game_id, "0"),
                    hashes[1]: (rec.game_id, "1"),
                }
                assert rec.game_id in await store.unfinished()

        run(body())

    def test_appends_in_order_with_end_and_idempotency_records(self, factory: Factory) -> None:
        async def body() -> None:
            async with opened(factory) as store:
                rec, _ = await new_game(store)
                gid = rec.game_id
                writes = [store.append(gid, entry(s, s % 2), f"a{s}", None, None) for s in (1, 2)]
                rej = StoredRejection(1, "r1", '{"kind":"Slap"}', "EmptyPile", "nothing to slap")
                writes.append(store.append(gid, None, None, None, rej))
                writes.append(store.append(gid, None, None, None, rej))  # a retry: recorded once
                writes.append(store.append(gid, entry(3, 1), None, end_line(3), None))
                await asyncio.gather(*writes)
                got = await store.load(gid)
                assert got is not None
                assert got.lines == [
                    header(gid),
                    entry(0, None),
                    entry(1, 1),
                    entry(2, 0),
                    entry(3, 1),
                    end_line(3),
                ]
                assert got.action_ids == {(1, "a1"): 1, (0, "a2"): 2}
                assert got.rejections == {(1, "r1"): rej}
                assert gid not in await store.unfinished()

        run(body())

    def test_writes_complete_in_call_order(self, factory: Factory) -> None:
        async def body() -> None:
            async with opened(factory) as store:
                games = [(await new_game(store))[0].game_id for _ in range(3)]
                done: list[int] = []
                futures = []
                for i in range(60):
                    f = asyncio.ensure_future(
                        store.append(games[i % 3], entry(1 + i // 3), None, None, None)
                    )
                    f.add_done_callback(lambda _f, i=i: done.append(i))
                    futures.append(f)
                await asyncio.gather(*futures)
                assert done == list(range(60))

        run(body())

    def test_second_writer_of_a_seq_fails_cleanly_and_poisons_the_game(
        self, factory: Factory
    ) -> None:
        async def body() -> None:
            async with opened(factory) as store:
                (rec, _), (other, _) = await new_game(store), await new_game(store)
                gid = rec.game_id
                # enqueued together: one batch, in which the duplicate must be isolated
                first = store.append(gid, entry(1, 0, "first"), "x", None, None)
                dup = store.append(gid, entry(1, 1, "second"), "y", None, None)
                later = store.append(gid, entry(2, 1), None, None, None)
                elsewhere = store.append(other.game_id, entry(1), None, None, None)
                results = await asyncio.gather(first, dup, later, elsewhere, return_exceptions=True)
                assert results[0] is None and results[3] is None, results
                assert isinstance(results[1], StoreError), results
                # decided on top of the failed write: refused until the game is rebuilt
                assert isinstance(results[2], StoreError), results
                got = await store.load(gid)
                assert got is not None and got.lines[2:] == [entry(1, 0, "first")]
                forgive = getattr(store, "forgive", None)
                assert forgive is not None
                forgive(gid)
                await store.append(gid, entry(2, 1), None, None, None)
                got = await store.load(gid)
                assert got is not None and got.lines[2:] == [entry(1, 0, "first"), entry(2, 1)]

        run(body())

    def test_a_reused_action_id_is_refused(self, factory: Factory) -> None:
        async def body() -> None:
            async with opened(factory) as store:
                rec, _ = await new_game(store)
                await store.append(rec.game_id, entry(1, 0), "same", None, None)
                with pytest.raises(StoreError):
                    await store.append(rec.game_id, entry(2, 0), "same", None, None)
                # the same id for another seat is another action
                getattr(store, "forgive")(rec.game_id)  # noqa: B009
                await store.append(rec.game_id, entry(2, 1), "same", None, None)

        run(body())

    def test_group_commit_and_close_commits_what_was_enqueued(self, factory: Factory) -> None:
        async def body() -> None:
            async with opened(factory) as store:
                games = [(await new_game(store))[0].game_id for _ in range(4)]
                commits0 = getattr(store, "commits")  # noqa: B009
                writes = [
                    store.append(g, entry(seq), None, None, None)
                    for seq in range(1, 51)
                    for g in games
                ]
                await asyncio.gather(*writes)
                commits = getattr(store, "commits") - commits0  # noqa: B009
                assert commits < len(writes) / 4, f"{commits} commits for {len(writes)} writes"
            store = factory()
            await store.open()
            pending = [store.append(g, entry(51), None, None, None) for g in games]
            await store.close()  # never awaited before: close must commit them
            await asyncio.gather(*pending)
            async with opened(factory) as store:
                for g in games:
                    got = await store.load(g)
                    assert got is not None and len(got.lines) == 1 + 52

        run(body())


class TestSqliteStore(StoreContract):
    @pytest.fixture
    def factory(self, tmp_path: Path) -> Factory:
        return lambda: SqliteStore(str(tmp_path / "store.db"))

    def test_open_store_picks_the_backend(self, tmp_path: Path) -> None:
        plain = open_store(str(tmp_path / "a.db"))
        assert isinstance(plain, SqliteStore) and plain.path == str(tmp_path / "a.db")
        prefixed = open_store(f"sqlite:{tmp_path / 'b.db'}")
        assert isinstance(prefixed, SqliteStore) and prefixed.path == str(tmp_path / "b.db")
        assert not isinstance(plain, SharedStore)
        with pytest.raises(ValueError):
            open_store("sqlite:")


class TestPostgresStore(StoreContract):
    @pytest.fixture
    def factory(self, pg_url: str) -> Factory:
        from cardcore_server.store_postgres import PostgresStore

        return lambda: PostgresStore(pg_url)

    def test_open_store_picks_postgres(self, pg_url: str) -> None:
        from cardcore_server.store_postgres import PostgresStore

        for url in (pg_url, pg_url.replace("postgresql://", "postgres://", 1)):
            store = open_store(url)
            assert isinstance(store, PostgresStore) and isinstance(store, SharedStore)

    def test_two_stores_one_database(self, factory: Factory) -> None:
        """Process A and process B, as far as the store goes: B's commit wakes A (never A's
        own), A re-reads by seq, the same seq from both fails for the second, tokens and
        rejections made by one are found by the other."""

        async def body() -> None:
            async with opened(factory) as a, opened(factory) as b:
                assert isinstance(a, SharedStore) and isinstance(b, SharedStore)
                hints: list[str | None] = []
                woke = asyncio.Event()

                def on_change(game_id: str | None) -> None:
                    hints.append(game_id)
                    woke.set()

                a.watch(on_change)
                rec, hashes = await new_game(a)
                gid = rec.game_id
                await a.append(gid, entry(1, 0), "a1", None, None)
                assert await b.find_token(hashes[1]) == (gid, "1")
                assert await b.find_token("0" * 64) is None

                await b.append(gid, entry(2, 1), "b2", None, None)
                await asyncio.wait_for(woke.wait(), 5)
                assert hints == [gid], "one hint, for B's commit only"
                tail = await a.tail(gid, 2)
                assert tail.entries == [(2, entry(2, 1), "b2")] and tail.end is None
                assert (await a.tail(gid, 3)).entries == []

                # both decide seq 3: the second to commit fails, the first stays
                await a.append(gid, entry(3, 0, "from a"), None, None, None)
                with pytest.raises(StoreError):
                    await b.append(gid, entry(3, 1, "from b"), None, None, None)
                getattr(b, "forgive")(gid)  # noqa: B009
                rej = StoredRejection(0, "r", "{}", "NotYourTurn", "wait")
                await b.append(gid, None, None, end_line(3), rej)
                assert await a.rejection(gid, 0, "r") == rej
                assert await a.rejection(gid, 1, "r") is None
                tail = await a.tail(gid, 3)
                assert tail.entries == [(3, entry(3, 0, "from a"), None)]
                assert tail.end == end_line(3)

        run(body())

    def test_unreachable_database_is_a_clean_error(self, pg_url: str) -> None:
        from cardcore_server.store_postgres import PostgresStore

        async def body() -> None:
            store = PostgresStore("postgresql://nobody:secret@127.0.0.1:1/none")
            t0 = time.monotonic()
            with pytest.raises(ConnectionError) as info:
                await store.open()
            assert "secret" not in str(info.value)
            assert time.monotonic() - t0 < 15

        run(body())
