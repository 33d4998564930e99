"""The event-store contract, run against every backend (as eventsourcing's abstract recorder
tests): :class:`StoreContract` holds the tests, each backend's class only says how to open one.

The lines are opaque to a store except for the fields it checks the chain with (``seq``,
``seat``, ``at_ms``, ``prev``, ``hash``), so they are small hand-made dicts here; what is checked
is what the application relies on: round trips, idempotency records, the compare-and-set
commit (a commit decided on a stale version, or not linking to the stored head, writes nothing
and says so; a commit whose own lines do not chain is refused), tails, group commit, and that
:meth:`close` lets in-flight commits land. The PostgreSQL backend adds hints, leases, owners
and the owner's fence.
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
from cardcore_server.errors import bounded
from cardcore_server.store import (
    REJECTION_DETAIL,
    REJECTIONS_KEPT,
    Commit,
    Conflict,
    EventStore,
    GameRecord,
    SeatSpec,
    SharedStore,
    SqliteStore,
    StoredRejection,
    StoreError,
    command_digest,
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
    return {"type": "header", "game_id": game_id, "commitment": "c0ffee", "hash": "h"}


def entry(seq: int, seat: int | None = 0, note: str = "", *, prev: str | None = None) -> LogLine:
    """Entry ``seq``, chained to entry ``seq - 1`` without a note (unless ``prev`` says)."""
    return {
        "type": "entry",
        "seq": seq,
        "seat": seat,
        "at_ms": seq * 10,
        "action": {"kind": "Play"},
        "note": note,
        "prev": prev if prev is not None else (f"h{seq - 1}" if seq else "h"),
        "hash": f"h{seq}{note}",
    }


def end_line(seq: int) -> LogLine:
    return {"type": "end", "seq": seq + 1, "seed": "1", "prev": f"h{seq}", "hash": "end"}


def entries(*lines: LogLine, aid: str | None = None) -> tuple[tuple[LogLine, str | None], ...]:
    return tuple((line, aid) for line in lines)


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
                assert got.version == 0
                tokens = await store.tokens()
                assert {h: tokens[h] for h in hashes} == {
                    hashes[0]: (rec.game_id, "0"),
                    hashes[1]: (rec.game_id, "1"),
                }
                assert rec.game_id in await store.unfinished()

        run(body())

    def test_commits_with_end_idempotency_records_and_tails(self, factory: Factory) -> None:
        async def body() -> None:
            async with opened(factory) as store:
                rec, _ = await new_game(store)
                gid = rec.game_id
                one = ((entry(1, 1), "a1"), (entry(2, 0), "a2"))
                assert await store.commit(Commit(gid, 0, one)) == 1
                rej = StoredRejection(1, "r1", '{"kind":"Slap"}', "EmptyPile", "nothing to slap")
                assert await store.commit(Commit(gid, 1, rejections=(rej,))) == 2
                # a commit that writes nothing confirms the version, or says it moved on
                assert await store.commit(Commit(gid, 2)) == 2
                done = Commit(gid, 2, entries(entry(3, 1)), end=end_line(3))
                assert await store.commit(done) == 3
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
                assert got.version == 3
                assert gid not in await store.unfinished()
                tail = await store.tail(gid, 2, 1)
                assert tail.version == 3 and tail.end == end_line(3)
                assert tail.entries == [(2, entry(2, 0), "a2"), (3, entry(3, 1), None)]
                assert tail.rejections == [rej]
                assert (await store.tail(gid, 4, 3)).entries == []
                assert (await store.tail(gid, 4, 3)).rejections == []

        run(body())

    def test_a_commit_not_on_the_stored_state_writes_nothing(self, factory: Factory) -> None:
        async def body() -> None:
            async with opened(factory) as store:
                (rec, _), (other, _) = await new_game(store), await new_game(store)
                gid = rec.game_id
                # two rounds decided on version 0 at once: one lands, the other writes nothing
                results = await asyncio.gather(
                    store.commit(Commit(gid, 0, entries(entry(1, 0, "a"), aid="x"))),
                    store.commit(Commit(gid, 0, entries(entry(1, 1, "b"), aid="y"))),
                    store.commit(Commit(other.game_id, 0, entries(entry(1)))),
                    return_exceptions=True,
                )
                assert results[2] == 1, results
                assert sorted(map(type, results[:2]), key=str) == sorted([int, Conflict], key=str)
                winner = "a" if results[0] == 1 else "b"
                got = await store.load(gid)
                assert got is not None and [line["note"] for line in got.lines[2:]] == [winner]
                # on the current version but not linked to the stored head
                head = f"h1{winner}"
                for bad in (
                    entry(2, 0, prev="h1-somewhere-else"),  # another prev
                    {**entry(3, 0, prev=head)},  # a gap in seq
                    {**entry(2, 0, prev=head), "at_ms": 1},  # at_ms going backwards
                ):
                    with pytest.raises(Conflict):
                        await store.commit(Commit(gid, 1, entries(bad)))
                # a rejection decided on an old version is refused too (one answer per id)
                rej = StoredRejection(0, "x", "{}", "NotYourTurn", "wait")
                with pytest.raises(Conflict):
                    await store.commit(Commit(gid, 0, rejections=(rej,)))
                with pytest.raises(Conflict):
                    await store.commit(Commit(gid, 0))
                # a commit whose own lines do not chain never reaches the database
                with pytest.raises(StoreError):
                    await store.commit(
                        Commit(gid, 1, entries(entry(2, 0, prev=head), entry(3, 0, prev="zz")))
                    )
                ok = Commit(gid, 1, entries(entry(2, 0, prev=head)), end=end_line(2))
                assert await store.commit(ok) == 2
                # the game is over: nothing more is appended
                with pytest.raises(Conflict):
                    await store.commit(Commit(gid, 2, entries(entry(3, 0))))
                got = await store.load(gid)
                assert got is not None and got.version == 2 and len(got.lines) == 2 + 2 + 1

        run(body())

    def test_a_reused_action_id_is_refused(self, factory: Factory) -> None:
        async def body() -> None:
            async with opened(factory) as store:
                rec, _ = await new_game(store)
                gid = rec.game_id
                await store.commit(Commit(gid, 0, entries(entry(1, 0), aid="same")))
                with pytest.raises(StoreError):
                    await store.commit(Commit(gid, 1, entries(entry(2, 0), aid="same")))
                # the same id for another seat is another action
                await store.commit(Commit(gid, 1, entries(entry(2, 1), aid="same")))
                got = await store.load(gid)
                assert got is not None and got.action_ids == {(0, "same"): 1, (1, "same"): 2}

        run(body())

    def test_group_commit_and_close_lets_commits_land(self, factory: Factory) -> None:
        async def body() -> None:
            async with opened(factory) as store:
                games = [(await new_game(store))[0].game_id for _ in range(4)]

                async def play(g: str) -> None:
                    for seq in range(1, 51):
                        await store.commit(Commit(g, seq - 1, entries(entry(seq))))

                commits0 = getattr(store, "commits")  # noqa: B009
                await asyncio.gather(*(play(g) for g in games))
                commits = getattr(store, "commits") - commits0  # noqa: B009
                if isinstance(store, SqliteStore):  # one transaction for many games' rounds
                    assert commits < 200 * 3 / 4, f"{commits} transactions for 200 rounds"
            store = factory()
            await store.open()
            pending = [
                asyncio.ensure_future(store.commit(Commit(g, 50, entries(entry(51)))))
                for g in games
            ]
            await asyncio.sleep(0)
            await store.close()  # never awaited before: close must let them land
            assert await asyncio.gather(*pending) == [51] * 4
            async with opened(factory) as store:
                for g in games:
                    got = await store.load(g)
                    assert got is not None and len(got.lines) == 1 + 52

        run(body())

    def test_a_database_of_an_earlier_cardcore_is_upgraded(
        self, factory: Factory, downgrade: Callable[[], None]
    ) -> None:
        """Opening a database written before the compare-and-set commit adds its columns and
        fills each game's version and head from its last entry: the games carry on."""

        async def body() -> None:
            async with opened(factory) as store:
                rec, _ = await new_game(store)
                gid = rec.game_id
                await store.commit(Commit(gid, 0, entries(entry(1), aid="a")))
                await store.commit(Commit(gid, 1, entries(entry(2, 1))))
            downgrade()  # as an earlier cardcore left it
            async with opened(factory) as store:
                got = await store.load(gid)
                assert got is not None and got.lines[1:] == [entry(0, None), entry(1), entry(2, 1)]
                assert got.action_ids == {(0, "a"): 1}
                with pytest.raises(Conflict):  # the head was filled in: it is checked
                    await store.commit(Commit(gid, got.version, entries(entry(3, prev="zz"))))
                assert await store.commit(Commit(gid, got.version, entries(entry(3)))) > 0
                got = await store.load(gid)
                assert got is not None and len(got.lines) == 1 + 4

        run(body())

    def test_rejections_of_schema_4_are_compacted(
        self, factory: Factory, record_schema: Callable[[int], None]
    ) -> None:
        """Schema 5 (issue 22 fault 1): a store of schema 4 kept each rejected command whole
        and every rejection; opened now, its rows keep the command's digest (a resend of the
        same command is still told from another), a bounded detail, and a seat's last
        ``REJECTIONS_KEPT``."""
        raw = '{"cards":[' + ",".join(['"QS"'] * 3000) + '],"kind":"Play"}'
        long_detail = "not among your cards: " + "QS, " * 300

        async def body() -> None:
            async with opened(factory) as store:
                rec, _ = await new_game(store)
                gid = rec.game_id
                old = tuple(StoredRejection(0, f"old{i}", raw, "NotHeld", "x") for i in range(2))
                await store.commit(Commit(gid, 0, rejections=old))
                kept = tuple(
                    StoredRejection(0, f"r{i}", raw, "NotHeld", "x") for i in range(REJECTIONS_KEPT)
                )
                other = StoredRejection(1, "long", raw, "NotHeld", long_detail)
                await store.commit(Commit(gid, 1, rejections=(*kept, other)))
            record_schema(4)  # as a server of schema 4 left it
            async with opened(factory) as store:
                got = await store.load(gid)
                assert got is not None
                assert sorted(got.rejections) == sorted(
                    [(0, f"r{i}") for i in range(REJECTIONS_KEPT)] + [(1, "long")]
                ), "the seat's 2 oldest are gone"
                assert {r.command for r in got.rejections.values()} == {command_digest(raw)}
                assert got.rejections[(0, "r0")].is_for(raw)
                assert not got.rejections[(0, "r0")].is_for(raw.replace("QS", "KS", 1))
                assert got.rejections[(1, "long")].detail == bounded(long_detail, REJECTION_DETAIL)
                assert got.rejections[(0, "r5")].detail == "x"

        run(body())


class TestSqliteStore(StoreContract):
    @pytest.fixture
    def factory(self, tmp_path: Path) -> Factory:
        return lambda: SqliteStore(str(tmp_path / "store.db"))

    @pytest.fixture
    def downgrade(self, tmp_path: Path) -> Callable[[], None]:
        def drop() -> None:
            import sqlite3

            conn = sqlite3.connect(tmp_path / "store.db")
            for column in ("version", "head_seq", "head_hash", "head_at_ms"):
                conn.execute(f"ALTER TABLE games DROP COLUMN {column}")
            conn.execute("ALTER TABLE rejections DROP COLUMN version")
            conn.execute("PRAGMA user_version = 0")  # an earlier cardcore recorded no version
            conn.commit()
            conn.close()

        return drop

    @pytest.fixture
    def record_schema(self, tmp_path: Path) -> Callable[[int], None]:
        def write(version: int) -> None:
            import sqlite3

            with sqlite3.connect(tmp_path / "store.db") as conn:
                conn.execute(f"PRAGMA user_version = {version}")

        return write

    def test_the_wal_starts_again_under_a_steady_stream_of_commits(self, tmp_path: Path) -> None:
        """One game's rounds one after another, with no pause for a checkpoint to catch up:
        the WAL still starts again from its beginning every few rounds, so it stays a fraction
        of what the commits wrote (each commit writes two pages at least; without the writer
        finishing the checkpoint thread's passes, the WAL held every one of them)."""
        from cardcore_server.store.sqlite import CHECKPOINT_EVERY_S

        async def body() -> None:
            async with opened(lambda: SqliteStore(str(tmp_path / "store.db"))) as store:
                game = (await new_game(store))[0].game_id
                wal = tmp_path / "store.db-wal"
                seq, largest = 0, 0
                until = time.monotonic() + 8 * CHECKPOINT_EVERY_S
                while time.monotonic() < until or seq < 200:
                    seq += 1
                    await store.commit(Commit(game, seq - 1, entries(entry(seq))))
                    largest = max(largest, wal.stat().st_size)
                written = seq * 2 * 4096
                assert largest < written / 3, (largest, written, seq)

        run(body())

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
        from cardcore_server.store.postgres import PostgresStore

        return lambda: PostgresStore(pg_url)

    @pytest.fixture
    def downgrade(self, pg_url: str) -> Callable[[], None]:
        def drop() -> None:
            import psycopg

            with psycopg.connect(pg_url, autocommit=True) as conn:
                conn.execute(
                    "ALTER TABLE games DROP COLUMN version, DROP COLUMN head_seq,"
                    " DROP COLUMN head_hash, DROP COLUMN head_at_ms, DROP COLUMN owner,"
                    " DROP COLUMN auto"
                )
                conn.execute("ALTER TABLE rejections DROP COLUMN version")
                conn.execute("DROP TABLE servers")
                conn.execute("DROP TABLE schema_version")  # no version was recorded then

        return drop

    @pytest.fixture
    def record_schema(self, pg_url: str) -> Callable[[int], None]:
        def write(version: int) -> None:
            import psycopg

            with psycopg.connect(pg_url, autocommit=True) as conn:
                conn.execute("UPDATE schema_version SET version = %s", (version,))

        return write

    def test_open_store_picks_postgres(self, pg_url: str) -> None:
        from cardcore_server.store.postgres import PostgresStore

        for url in (pg_url, pg_url.replace("postgresql://", "postgres://", 1)):
            store = open_store(url)
            assert isinstance(store, PostgresStore) and isinstance(store, SharedStore)

    def test_two_stores_one_database(self, factory: Factory) -> None:
        """Process A and process B, as far as the store goes: B's commit wakes A (never A's
        own) with its version, A re-reads the tail, a round both decide on one version lands
        once, tokens made by one are found by the other."""

        async def body() -> None:
            async with opened(factory) as a, opened(factory) as b:
                assert isinstance(a, SharedStore) and isinstance(b, SharedStore)
                # NOTIFY is per database, not per schema: other tests' stores on this
                # PostgreSQL (another xdist worker) hint about their own games here too.
                hints: list[tuple[str | None, int | None]] = []
                woke = asyncio.Event()
                rec, hashes = await new_game(a)
                gid = rec.game_id

                def on_change(game_id: str | None, version: int | None) -> None:
                    if game_id in (gid, None):
                        hints.append((game_id, version))
                        woke.set()

                a.watch(on_change)
                await a.commit(Commit(gid, 0, entries(entry(1, 0), aid="a1")))
                assert await b.find_token(hashes[1]) == (gid, "1")
                assert await b.find_token("0" * 64) is None

                await b.commit(Commit(gid, 1, entries(entry(2, 1), aid="b2")))
                await asyncio.wait_for(woke.wait(), 5)
                assert hints == [(gid, 2)], "one hint, for B's commit only"
                tail = await a.tail(gid, 2, 1)
                assert tail.entries == [(2, entry(2, 1), "b2")] and tail.end is None
                assert tail.version == 2 and tail.owner == a.server_id

                # both decide seq 3 on version 2: the second writes nothing
                await a.commit(Commit(gid, 2, entries(entry(3, 0, "from a"), aid="x")))
                rej = StoredRejection(0, "x", "{}", "NotYourTurn", "wait")
                with pytest.raises(Conflict):
                    await b.commit(Commit(gid, 2, rejections=(rej,)))
                tail = await b.tail(gid, 3, 2)
                assert tail.entries == [(3, entry(3, 0, "from a"), "x")] and tail.version == 3
                assert tail.rejections == []

        run(body())

    def test_a_server_starts_beside_busy_ones(self, factory: Factory, pg_url: str) -> None:
        """A store opening on a current schema takes no table lock: it opens while another
        server's transaction holds the games table (before, its no-op ``ALTER TABLE`` queued an
        ACCESS EXCLUSIVE lock behind that transaction, which deadlocked when the transaction
        then asked for a second lock: CI saw ``cannot reach PostgreSQL: deadlock detected``
        from one of three servers started together). Five stores opening at once all open."""
        import psycopg

        async def body() -> None:
            async with opened(factory):
                pass  # the schema exists
            async with await psycopg.AsyncConnection.connect(pg_url) as busy:
                # as claim_orphans does: a row lock on games, then an UPDATE in the same
                # transaction, left open while the next server starts
                await busy.execute("SELECT game_id FROM games FOR UPDATE")
                await busy.execute("UPDATE games SET owner = owner")
                async with asyncio.timeout(10):
                    async with opened(factory):
                        pass
                await busy.rollback()
            stores = [factory() for _ in range(5)]
            await asyncio.wait_for(asyncio.gather(*(s.open() for s in stores)), 30)
            for store in stores:
                await store.close()

        run(body())

    def test_owners_leases_and_the_fence(self, factory: Factory, pg_url: str) -> None:
        """The creator owns a game with timers or bots; only its owner's fenced commits land;
        when the owner's lease lapses another server takes the game over (once), and the old
        owner's fenced commits are refused from then on; a released server's games are taken
        at once."""
        import psycopg

        async def body() -> None:
            async with opened(factory) as a, opened(factory) as b:
                assert isinstance(a, SharedStore) and isinstance(b, SharedStore)
                rec, _ = await new_game(a)
                gid = rec.game_id
                assert gid in await a.renew_lease()
                assert gid not in await b.renew_lease()
                assert await b.claim_orphans(10) == []  # a's lease is alive
                with pytest.raises(Conflict):  # b does not own it
                    await b.commit(Commit(gid, 0, entries(entry(1)), owner=b.server_id))
                assert await a.commit(Commit(gid, 0, entries(entry(1)), owner=a.server_id)) == 1
                # a client's action (no fence) lands from any server
                assert await b.commit(Commit(gid, 1, entries(entry(2)))) == 2

                async with await psycopg.AsyncConnection.connect(pg_url, autocommit=True) as c:
                    await c.execute(
                        "UPDATE servers SET expires_at = now() - interval '1 second'"
                        " WHERE server_id = %s",
                        (a.server_id,),
                    )
                with pytest.raises(Conflict):  # a's lease lapsed: its fence fails at once
                    await a.commit(Commit(gid, 2, entries(entry(3)), owner=a.server_id))
                assert await b.claim_orphans(10) == [(gid, a.server_id)]
                assert await b.claim_orphans(10) == []
                assert gid in await b.renew_lease()
                assert gid not in await a.renew_lease()  # a is back, but the game is b's
                with pytest.raises(Conflict):
                    await a.commit(Commit(gid, 2, entries(entry(3)), owner=a.server_id))
                assert await b.commit(Commit(gid, 2, entries(entry(3)), owner=b.server_id)) == 3
                assert (await a.tail(gid, 4, 3)).owner == b.server_id

                await b.release()  # a graceful stop
                assert await a.claim_orphans(10) == [(gid, None)]

        run(body())

    def test_presence_follows_leases(self, factory: Factory, pg_url: str) -> None:
        """Each server publishes its streaming seats; readers count only live leases; rows of a
        server gone a while are swept, and that server publishes them again when it is back;
        a graceful stop removes its rows."""
        import psycopg

        from cardcore_server.store.postgres import presence

        async def settled(store: SharedStore, gid: str, want: dict[str, set[int]]) -> None:
            for _ in range(100):
                if await store.present_seats([gid]) == want:
                    return
                await asyncio.sleep(0.02)
            assert await store.present_seats([gid]) == want

        async def body() -> None:
            async with opened(factory) as a, opened(factory) as b:
                assert isinstance(a, SharedStore) and isinstance(b, SharedStore)
                gid = "f" * 32
                a.set_presence(gid, frozenset({0, 2}))
                b.set_presence(gid, frozenset({2}))
                await settled(b, gid, {gid: {0, 2}})
                a.set_presence(gid, frozenset({2}))
                b.set_presence(gid, frozenset())
                await settled(b, gid, {gid: {2}})
                assert await a.present_seats(["0" * 32]) == {}
                async with await psycopg.AsyncConnection.connect(pg_url, autocommit=True) as c:
                    await c.execute(
                        "UPDATE servers SET expires_at = now() - interval '1 minute'"
                        " WHERE server_id = %s",
                        (a.server_id,),
                    )
                    assert await b.present_seats([gid]) == {}  # a's lease lapsed
                    await c.execute(presence.FORGET_ABSENT)
                    cur = await c.execute(
                        "SELECT count(*) FROM presence WHERE game_id = %s", (gid,)
                    )
                    assert (await cur.fetchone()) == (0,)  # swept
                await a.renew_lease()  # back: it finds its lease had lapsed and publishes again
                await settled(b, gid, {gid: {2}})
                await a.release()
                assert await b.present_seats([gid]) == {}

        run(body())

    def test_unreachable_database_is_a_clean_error(self, pg_url: str) -> None:
        from cardcore_server.store.postgres import PostgresStore

        async def body() -> None:
            store = PostgresStore("postgresql://nobody:secret@127.0.0.1:1/none")
            t0 = time.monotonic()
            with pytest.raises(ConnectionError) as info:
                await store.open()
            assert "secret" not in str(info.value)
            assert time.monotonic() - t0 < 15

        run(body())
