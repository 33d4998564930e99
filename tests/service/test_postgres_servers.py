"""Two server processes on one PostgreSQL database serve one game (docs/scale-out.md).

The game is created through server B and played through both: seats 0 and 2 submit through A,
seat 1 through B. Spectators and seats stream it from both servers, each from the server that
did *not* take some of the entries it shows. Midway all three seats slap the same pile at once
(two through A, one through B): both servers may accept a slap for the same ``seq``, the second
commit fails on the primary key, that server rebuilds the game and the client's retry (same
``action_id``) gets the rejection the rules give. Afterwards: every stream saw every entry once,
in order, with the log's content; both servers return the same log; it verifies; every
acknowledged action is in it at its ``seq``.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from cardcore import codec, registry
from cardcore import log as clog
from cardcore.games import ratscrew
from cardcore.match import Match
from cardcore_client import Client, Rejection, SubmitResult

from .helpers import ServerProcess

SEATS = 3
EVENT_LIMIT = 400
"""Ends the game (by the event limit) after about 200 entries, whatever the deal."""


def slappable_prefix() -> tuple[int, list[tuple[int, Any]]]:
    """A seed and the non-slap actions (seat, command) after which the pile is slappable."""
    game = registry.get_game("ratscrew")
    for seed in range(2000):
        m = Match(game, game.make_setup(SEATS, seed))
        actions: list[tuple[int, Any]] = []
        for _ in range(30):
            if ratscrew.slap_match(m.state.played, m.state.setup.rules.slap_rules) is not None:
                if len(actions) >= 4:  # both servers have taken entries before the race
                    return seed, actions
                break
            for seat in range(SEATS):
                cmds = [c for c in m.legal_commands(seat) if not isinstance(c, ratscrew.Slap)]
                if cmds:
                    m.submit(seat, cmds[0], 0)
                    actions.append((seat, cmds[0]))
                    break
    raise AssertionError("no seed gives a slappable pile")


def compact(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


async def two_servers(a: ServerProcess, b: ServerProcess) -> None:
    seed, prefix = slappable_prefix()
    ca = Client(a.target, attempts=20, attempt_timeout_s=5.0)
    cb = Client(b.target, attempts=20, attempt_timeout_s=5.0)
    try:
        created = await cb.create_game(
            "ratscrew",
            ["human"] * SEATS,
            seed=seed,
            event_limit=EVENT_LIMIT,
            timeouts_ms={"Collect": 0},
        )
        gid = created.game_id
        via = [ca, cb, ca]
        # tokens made by B are used on A at once (A looks them up in the shared store)
        seats = [via[i].game(gid, created.seat_tokens[i]) for i in range(SEATS)]
        watchers = {
            "spectator@A": ca.game(gid, created.spectator_token),
            "spectator@B": cb.game(gid, created.spectator_token),
            "seat1@A": ca.game(gid, created.seat_tokens[1]),
            "seat0@B": cb.game(gid, created.seat_tokens[0]),
        }
        streamed: dict[str, list[tuple[int, int | None, str]]] = {k: [] for k in watchers}

        async def follow(name: str) -> None:
            async for e in watchers[name].stream(0):
                streamed[name].append((e.seq, e.seat, e.action.json))

        followers = [asyncio.create_task(follow(n)) for n in watchers]
        acked: list[tuple[int, int, str]] = []  # (seq, seat, command json)

        def ack(seat: int, r: SubmitResult) -> None:
            acked.append((r.entry.seq, seat, r.entry.action.json))

        for n, (seat, command) in enumerate(prefix):
            text = codec.canonical_text(codec.encode(command))
            ack(seat, await seats[seat].submit(text, action_id=f"prefix-{n}"))

        # the race: every seat slaps the same pile at once, through both servers
        results = await asyncio.gather(
            *(seats[i].submit({"kind": "Slap"}, action_id=f"slap-{i}") for i in range(SEATS)),
            return_exceptions=True,
        )
        winners = [i for i, r in enumerate(results) if isinstance(r, SubmitResult)]
        assert len(winners) == 1, results
        for i, r in enumerate(results):
            if isinstance(r, SubmitResult):
                ack(i, r)
                assert [e.kind for e in r.entry.events][:2] == ["Slapped", "PileTaken"]
            else:
                assert isinstance(r, Rejection) and r.code == "EmptyPile", r
        # a retry of a rejected slap through the other server gets the same answer
        loser = next(i for i in range(SEATS) if i not in winners)
        other = cb if via[loser] is ca else ca
        try:
            await other.game(gid, created.seat_tokens[loser]).submit(
                {"kind": "Slap"}, action_id=f"slap-{loser}"
            )
            raise AssertionError("a rejected action was accepted on retry")
        except Rejection as exc:
            assert exc.code == "EmptyPile"

        # play it out without slaps, each seat through its own server
        over = asyncio.Event()

        async def player(i: int) -> None:
            n = 0
            while not over.is_set():
                view = await seats[i].view()
                if view.outcome is not None:
                    over.set()
                    return
                moves = [c for c in view.legal_commands if c.kind != "Slap"]
                if not moves:
                    await asyncio.sleep(0.003)
                    continue
                n += 1
                try:
                    r = await seats[i].submit(moves[0], action_id=f"play-{i}-{n}")
                except Rejection:
                    continue
                ack(i, r)
                if r.outcome is not None:
                    over.set()

        await asyncio.wait_for(asyncio.gather(*(player(i) for i in range(SEATS))), 60)
        await asyncio.wait_for(asyncio.gather(*followers), 30)

        log_a, complete_a = await seats[0].log()
        log_b, complete_b = await seats[1].log()
        assert complete_a and complete_b
        assert clog.loads(log_a) == clog.loads(log_b), "the two servers disagree on the log"
        lines = clog.loads(log_a)
        report = clog.verify(lines)  # hash chain, sequence, commitment, every decision
        assert report.outcome is not None
        log_entries = [
            (line["seq"], line["seat"], compact(line["action"]))
            for line in lines
            if line["type"] == "entry"
        ]
        assert [e[0] for e in log_entries] == list(range(len(log_entries)))
        assert len(log_entries) > len(prefix) + 20
        by_seq = {e[0]: e for e in log_entries}
        assert len({a[0] for a in acked}) == len(acked), "an acknowledged seq was reused"
        for seq, seat, command_json in acked:
            assert by_seq[seq][1:] == (seat, compact(json.loads(command_json)))
        for name, seen in streamed.items():
            assert [s[0] for s in seen] == list(range(len(log_entries))), f"{name}: gap or dup"
            assert [(s[0], s[1]) for s in seen] == [e[:2] for e in log_entries], name
        for name in ("spectator@A", "spectator@B"):
            got = [(s, seat, compact(json.loads(j))) for s, seat, j in streamed[name]]
            assert got == log_entries, name
        # both servers took entries, and each one's streams showed the other's
        assert {s for _, s, _ in acked if s is not None} == {0, 1, 2}
    finally:
        await ca.close()
        await cb.close()


def test_two_servers_serve_one_game(pg_url: str, tmp_path: Any) -> None:
    args = ("--allow-client-seed", "--collect-window-ms", "0")
    a = ServerProcess(tmp_path, *args, name="a", db=pg_url).start()
    try:
        b = ServerProcess(tmp_path, *args, name="b", db=pg_url).start()
        try:
            asyncio.run(two_servers(a, b))
        finally:
            assert b.stop() == 0, b.log_text()[-3000:]
    finally:
        assert a.stop() == 0, a.log_text()[-3000:]
