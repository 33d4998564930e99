"""Crash safety: a multi-client game whose server is SIGKILLed at 5 random points.

Three clients play an ERS game (each plays or collects when the rules let it) while a spectator and
every seat stream it. The server is killed with SIGKILL at 5 seeded random moments and restarted
on the same database each time. Afterwards: every acknowledged action is in the log at its
``seq``, there is no gap, every stream saw each entry exactly once in order, the game finished,
and the log verifies.
"""

from __future__ import annotations

import asyncio
import random
import time

from cardcore import codec, registry
from cardcore import log as clog
from cardcore.match import Match
from cardcore_client import CallError, Client, Rejection

from .helpers import ServerProcess

SEATS = 3
KILLS = 5


def long_game_seed(min_entries: int = 400) -> int:
    """A seed whose ERS game, played without slaps (then every state has one seat with one
    non-slap command), lasts long enough for all the kills."""
    game = registry.get_game("ratscrew")
    for seed in range(1000):
        m = Match(game, game.make_setup(SEATS, seed))
        while m.outcome is None and m.seq < min_entries:
            for s in range(SEATS):
                cmds = [c for c in m.legal_commands(s) if type(c).__name__ != "Slap"]
                if cmds:
                    m.submit(s, cmds[0], 0)
                    break
        if m.outcome is None:
            return seed
    raise AssertionError("no long game")


async def crash_run(srv: ServerProcess, seed: int) -> None:
    rng = random.Random(seed)
    srv.start()
    target = srv.target
    admin = Client(target, attempts=40, attempt_timeout_s=5.0)
    created = await admin.create_game(
        "ratscrew",
        ["human"] * SEATS,
        seed=long_game_seed(),
        event_limit=4000,
        timeouts_ms={"Collect": 0},
    )
    clients = [Client(target, attempts=40, attempt_timeout_s=5.0) for _ in range(SEATS + 1)]
    seats = [clients[i].game(created.game_id, created.seat_tokens[i]) for i in range(SEATS)]
    spectator = clients[SEATS].game(created.game_id, created.spectator_token)
    acked: list[tuple[int, int, str, str]] = []  # (seq, seat, action_id, command json)
    progress = {"acked": 0}
    over = asyncio.Event()

    async def player(i: int) -> None:
        prng = random.Random(seed * 100 + i)
        n = 0
        while not over.is_set():
            try:
                view = await seats[i].view()
            except CallError:
                continue
            if view.outcome is not None:
                over.set()
                return
            commands = view.legal_commands
            if not commands:
                await asyncio.sleep(0.002)
                continue
            non_slaps = [c for c in commands if c.kind != "Slap"]
            if not non_slaps:
                await asyncio.sleep(0.002)
                continue
            pick = prng.choice(non_slaps)
            action_id = f"s{i}-{n}"
            n += 1
            try:
                r = await seats[i].submit(pick, action_id=action_id)
            except Rejection:
                continue
            acked.append((r.entry.seq, i, action_id, pick.json))
            progress["acked"] += 1
            if r.outcome is not None:
                over.set()

    streamed: dict[str, list[int]] = {}

    async def follow(name: str, game_client: object) -> None:
        seqs = streamed.setdefault(name, [])
        async for e in game_client.stream(0):  # type: ignore[attr-defined]
            seqs.append(e.seq)

    followers = [asyncio.create_task(follow("spectator", spectator))]
    followers += [asyncio.create_task(follow(f"seat{i}", seats[i])) for i in range(SEATS)]
    players = [asyncio.create_task(player(i)) for i in range(SEATS)]

    # kill at 5 random points: after a random number of further acknowledged actions
    for _ in range(KILLS):
        goal = progress["acked"] + rng.randint(3, 25)
        deadline = time.monotonic() + 30
        while progress["acked"] < goal and not over.is_set() and time.monotonic() < deadline:
            await asyncio.sleep(0.001)
        assert not over.is_set(), "the game ended before all kills; lower the kill spacing"
        await asyncio.sleep(rng.random() * 0.01)  # land anywhere, mid-commit included
        srv.kill()
        await asyncio.sleep(rng.random() * 0.2)
        srv.start()
    await asyncio.wait_for(asyncio.gather(*players), 120)
    await asyncio.wait_for(asyncio.gather(*followers), 60)

    log_bytes, complete = await seats[0].log()
    assert complete
    lines = clog.loads(log_bytes)
    report = clog.verify(lines)  # hash chain, sequence, commitment, every decision
    assert report.outcome is not None
    entries = {line["seq"]: line for line in lines if line["type"] == "entry"}
    assert sorted(entries) == list(range(len(entries)))
    for seq, seat, _action_id, command_json in acked:
        line = entries[seq]
        assert line["seat"] == seat
        assert codec.canonical_text(line["action"]) == command_json
    assert len({a[0] for a in acked}) == len(acked), "an acknowledged seq was reused"
    for name, seqs in streamed.items():
        assert seqs == list(range(len(entries))), f"{name} saw a gap or a duplicate"
    assert srv.starts == KILLS + 1
    assert srv.log_text().count('"rebuilt_games": 1') == KILLS, "each restart rebuilt the game"
    for c in [admin, *clients]:
        await c.close()


def test_sigkill_at_five_points_loses_nothing_acknowledged(fresh_server: ServerProcess) -> None:
    asyncio.run(crash_run(fresh_server, seed=20261129))
