"""Several ``cardcore serve`` processes on one PostgreSQL database, under contention and faults.

Three servers serve the same games. Every human seat has one client on *every* server, all
playing at once (random legal commands, ~20 % slaps: races and false slaps), now and then
resending an answered action through another server; every server streams every game to a
spectator. The checks read the store's rows directly (harness: :mod:`.scaleout`):

(a) each game's stored log (``games.header``, ``entries`` by ``seq``, ``games.end_line``) has an
    unbroken hash chain, continuous ``seq``, ordered ``at_ms``, passes :func:`cardcore.log.verify`
    and equals, line for line, the replay of its actions from the stored seed and salt;
(b) each ``(game, seat, action_id)`` has one answer in the store (not an entry twice, not both
    an entry and a rejection) and every client that asked got that answer;
(c) every accepted action is the entry at its answered ``seq`` (same seat and command), no
    rejected one is an entry;
(d) every stream saw ``seq`` 0, 1, … once each, in order, as stored;
(e) under 1 % of submits get ``UNAVAILABLE``/``DEADLINE_EXCEEDED`` from a server after the
    client's own retries (the client then fails over to the next server, same ``action_id``),
    and under 1 % fail on every server — in the fault test, outside the fault windows.

1. :func:`test_contention_three_servers` — the above, no faults.
2. :func:`test_contention_with_faults` — the same plus a bots-only game and a game whose owed
   piles only the 300 ms Collect timer takes, while a random server is SIGKILLed and restarted
   every 3–5 s and PostgreSQL is restarted twice (``-m fast``, ``-m immediate``): the bots-only
   game never goes :data:`BOT_GAP_BOUND_S` without an entry and keeps going after the last
   fault; owed piles are taken in time. Needs root (or the cluster's owner) and
   ``pg_ctlcluster``: skips saying why, fails instead under ``CI``.
3. :func:`test_bot_timing_one_vs_three_servers` — a bots-only game's pace (``at_ms`` steps) is
   the same with one server as with three that all have the game loaded (median within 15 %,
   two-sample KS statistic under its critical value).

A game that ends is replaced by a fresh one of the same kind while the clock runs.
``CARDCORE_SCALEOUT_S`` sets how long the clients play (default 15 s; the fault test takes at
least 30 s); ``CARDCORE_SCALEOUT_SERVERS=1`` runs tests 1–2 on one server, to check the harness
(every property of test 1 holds there). ``-s`` shows a summary and a PASS/FAIL line per property;
``run.json`` and the servers' logs stay in the test's ``tmp_path``.

Tests 1–3 are marked ``solo``: ``make pytest`` runs them after the rest of the suite, with the
machine to themselves (test 3 failed when it shared the CPU with a second pytest worker and
other work: its three servers got less of it than the one server had, and the median bot step
grew by a quarter).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

import pytest

from cardcore import log as clog
from cardcore import registry
from cardcore.bots import ReactionBot, bot_seed, play_out
from cardcore.engine import Termination
from cardcore.match import Match
from cardcore_client import Client, CreatedGame

from .scaleout import (
    DURATION_S,
    SERVERS,
    Answer,
    Cluster,
    FaultPlan,
    GameRun,
    GameSpec,
    RunResult,
    StoredEntry,
    StoredGameRows,
    StreamRecord,
    canonical_command,
    check_answers,
    check_log,
    check_owed_piles,
    check_streams,
    common_properties,
    failures_message,
    ks_critical,
    ks_statistic,
    long_bot_seeds,
    max_at_gap,
    median,
    play,
    property_table,
    require_pg_control,
    summary,
    timer_collects,
    unavailable_numbers,
)

ERS_EVENT_LIMIT: Final = 1200
BOT_DELAY_MS: Final = (5, 40)
MAX_UNAVAILABLE: Final = 0.01
"""(e): submits that got UNAVAILABLE (or DEADLINE_EXCEEDED) after the client's own retries, as a
fraction of all submits (outside the fault windows in the fault test) — counted both per server
(a live server on a live database has no reason to refuse; the client then failed over) and for
every server (the action could not be made at all)."""
TIMER_BOUND_MS: Final = 12_000
"""An owed ERS pile is taken within the Collect timer's delay plus this."""
BOT_GAP_BOUND_S: Final = 12.0
"""The longest a bots-only game may go without a new entry, faults included (a dead owner's
games are taken over within a few seconds)."""
MIN_PROGRESS_AFTER_LAST_FAULT: Final = 30
"""Entries a bots-only game must make after the last fault (it makes ~40 per second)."""
FAULT_DURATION_S: Final = max(DURATION_S, 30.0)
"""The fault run needs room for two PostgreSQL restarts (at 30 % and 60 % of it, ~3 s each) and
a few kills between them (one at a time, none in the last 5 s): at 15 s the restarts took the
room of every kill, and the run had none."""


def contention_specs() -> list[GameSpec]:
    return [
        # the server's default ERS collect window (2 s) stays on here
        GameSpec("ers-timer", "ratscrew", ("human",) * 3, ERS_EVENT_LIMIT),
        GameSpec(
            "ers-bot",
            "ratscrew",
            ("human",) * 3 + ("reaction",),
            ERS_EVENT_LIMIT,
            bot_delay_ms=BOT_DELAY_MS,
        ),
        GameSpec(
            "ers-plain", "ratscrew", ("human",) * 3, ERS_EVENT_LIMIT, timeouts_ms={"Collect": 0}
        ),
        GameSpec("speed", "speed", ("human",) * 2, ERS_EVENT_LIMIT),
    ]


def fault_specs() -> list[GameSpec]:
    bot_seeds = long_bot_seeds("ratscrew", 3, BOT_DELAY_MS, 1500, 4)
    return contention_specs() + [
        GameSpec(
            "ers-bots-only",
            "ratscrew",
            ("reaction",) * 3,
            10_000_000,
            bot_delay_ms=BOT_DELAY_MS,
            seeds=bot_seeds,
        ),
        # the clients never collect here: every owed pile is the 300 ms timer's
        GameSpec(
            "ers-collect300",
            "ratscrew",
            ("human",) * 3,
            ERS_EVENT_LIMIT,
            timeouts_ms={"Collect": 300},
            client_skips=frozenset({"Collect"}),
        ),
    ]


def unavailable_properties(nums: dict[str, int], *, outside_faults: bool) -> dict[str, list[str]]:
    """(e) from :func:`unavailable_numbers`."""
    sfx = "_outside_faults" if outside_faults else ""
    where = " outside the fault windows" if outside_faults else ""
    total = nums["submits" + sfx]
    out: dict[str, list[str]] = {}
    for key, what in (
        ("failed_somewhere", "got UNAVAILABLE/DEADLINE_EXCEEDED from a server after its retries"),
        ("unavailable", "failed on every server"),
    ):
        n = nums[key + sfx]
        name = f"(e) under {MAX_UNAVAILABLE:.0%} of submits{where} {what}"
        bad = n > MAX_UNAVAILABLE * max(total, 1)
        out[name] = [f"{n} of {total} submits{where} ({n / max(total, 1):.1%})"] if bad else []
    return out


def timer_properties(result: RunResult) -> tuple[list[str], dict[str, int]]:
    """Every ERS game with a Collect timer: owed piles are taken in time (all its games)."""
    problems: list[str] = []
    longest: dict[str, int] = {}
    for run in result.traffic.runs:
        rows = result.stored.get(run.game_id)
        chk = result.checks.get(run.game_id)
        if rows is None or chk is None or not run.spec.human_seats:
            continue
        probs, ms = check_owed_piles(rows, chk, run.spec, TIMER_BOUND_MS)
        problems += [f"{run.label}: {p}" for p in probs]
        longest[run.spec.name] = max(longest.get(run.spec.name, 0), ms)
    return problems, longest


def bot_progress(
    result: RunResult, slot_name: str, last_fault: float
) -> tuple[list[str], dict[str, Any]]:
    """A bots-only slot keeps producing entries through the faults: no step between consecutive
    entries (by ``at_ms``, and by first arrival on any stream) over :data:`BOT_GAP_BOUND_S`, no
    such silence at the end of the run either, and :data:`MIN_PROGRESS_AFTER_LAST_FAULT`
    entries made after the last fault was over (or the game played on to its end)."""
    traffic = result.traffic
    slot = next(s for s in traffic.slots if s.spec.name == slot_name)
    problems: list[str] = []
    numbers: dict[str, Any] = {}
    after_last = 0
    ended_after_last = False
    for run in slot.runs:
        rows = result.stored.get(run.game_id)
        if rows is None:
            continue
        gap_ms, at_seq = max_at_gap(rows)
        arrivals = traffic.first_arrivals(run.game_id)
        times = [arrivals[s] for s in sorted(arrivals)]
        stream_gap = max((b - a for a, b in itertools.pairwise(times)), default=0.0)
        made = [run.entry_time(int(e.line["at_ms"])) for e in rows.entries[1:]]
        after = sum(t > last_fault for t in made)
        after_last += after
        ended_after_last |= rows.end is not None and after > 0
        numbers[run.label] = (
            f"{len(rows.entries)} entries ({after} after the last fault), largest at_ms step "
            f"{gap_ms} ms (before seq {at_seq}), largest gap between stream arrivals "
            f"{stream_gap:.1f}s"
        )
        if gap_ms > BOT_GAP_BOUND_S * 1000:
            problems.append(f"{run.label}: no entry for {gap_ms} ms before seq {at_seq}")
        if stream_gap > BOT_GAP_BOUND_S:
            problems.append(f"{run.label}: no new entry on any stream for {stream_gap:.1f}s")
        before_end = [t for t in made if t <= result.snapshot_at]
        ended_before = rows.end is not None and len(before_end) == len(made)
        if run is slot.runs[-1] and not ended_before:
            since = result.snapshot_at - (before_end[-1] if before_end else run.created_at)
            if since > BOT_GAP_BOUND_S:
                problems.append(f"{run.label}: no entry in the last {since:.1f}s of the run")
    numbers["entries after the last fault"] = after_last
    if after_last < MIN_PROGRESS_AFTER_LAST_FAULT and not ended_after_last:
        problems.append(
            f"{slot_name} made {after_last} entries after the last fault "
            f"(at least {MIN_PROGRESS_AFTER_LAST_FAULT} expected)"
        )
    return problems, numbers


# --------------------------------------------------------------------------- 1. contention


@pytest.mark.solo  # its bounds (timers, UNAVAILABLE share, bot pace) assume a quiet machine
def test_contention_three_servers(pg_url: str, tmp_path: Path) -> None:
    with Cluster(tmp_path, SERVERS, pg_url) as cluster:
        cluster.start()
        result = asyncio.run(
            play(
                cluster,
                pg_url,
                contention_specs(),
                seed=20240601,
                duration_s=DURATION_S,
                dump_to=tmp_path / "run.json",
            )
        )
    failures = common_properties(result)
    nums = unavailable_numbers(result.traffic.answers)
    failures.update(unavailable_properties(nums, outside_faults=False))
    timers, longest = timer_properties(result)
    failures["Collect timers take owed piles"] = timers
    chains = {g[:8]: c.chain_breaks for g, c in result.checks.items() if c.chain_breaks}
    print(
        "\n"
        + summary(
            f"contention, {SERVERS} servers",
            result.traffic,
            result.stored,
            {
                "settled": f"{result.settled} in {result.settle_s:.1f}s",
                "longest owed pile (ms)": longest,
                "hash-chain breaks per game": chains or "none",
                "elapsed": f"{result.elapsed_s:.1f}s",
                "answers, streams, server logs": str(tmp_path),
            },
        )
    )
    print(property_table(failures))
    assert nums["submits"] > 0, "no client submitted anything"
    failed = [name for name, problems in failures.items() if problems]
    assert not failed, failures_message(failures)


# --------------------------------------------------------------------------- 2. faults


@pytest.mark.solo  # its bounds (timers, UNAVAILABLE share, bot pace) assume a quiet machine
def test_contention_with_faults(pg_url: str, tmp_path: Path) -> None:
    pg = require_pg_control(pg_url)
    with Cluster(tmp_path, SERVERS, pg_url, log_level="info") as cluster:
        cluster.start()
        plan = FaultPlan(cluster, pg, seed=77)
        result = asyncio.run(
            play(
                cluster,
                pg_url,
                fault_specs(),
                seed=20240602,
                duration_s=FAULT_DURATION_S,
                faults=plan,
                dump_to=tmp_path / "run.json",
            )
        )
        takeovers = cluster.count_events("taken_over", "takeover", "took_over")
    traffic = result.traffic
    failures = common_properties(result)
    nums = unavailable_numbers(traffic.answers, plan.windows())
    failures.update(unavailable_properties(nums, outside_faults=True))
    timers, longest = timer_properties(result)
    failures["Collect timers take owed piles"] = timers

    # the bots-only game keeps going through every fault
    kills = [f for f in plan.faults if f.kind.startswith("SIGKILL")]
    pg_restarts = [f for f in plan.faults if f.kind.startswith("postgres")]
    last_fault = max((f.ended for f in plan.faults), default=traffic.t0)
    bots, bot_numbers = bot_progress(result, "ers-bots-only", last_fault)
    failures["bots-only game keeps producing entries through the faults"] = bots

    # the 300 ms Collect timer fires, also after the faults
    timer_slot = next(s for s in traffic.slots if s.spec.name == "ers-collect300")
    collects = 0
    collects_after = 0
    for run in timer_slot.runs:
        rows = result.stored.get(run.game_id)
        if rows is None:
            continue
        mine = timer_collects(rows)
        collects += len(mine)
        collects_after += sum(run.entry_time(int(e.line["at_ms"])) > last_fault for e in mine)
    failures["the 300 ms Collect timer fires"] = (
        [] if collects else ["no Collect by the timer in the ers-collect300 games"]
    )
    extra = {
        "faults": [f"{f.kind} +{f.started - traffic.t0:.1f}s ({f.detail})" for f in plan.faults],
        "kills / postgres restarts": f"{len(kills)} / {len(pg_restarts)}",
        "submits in / outside fault windows": f"{nums['submits'] - nums['submits_outside_faults']}"
        f" / {nums['submits_outside_faults']}",
        "UNAVAILABLE after retries on some server, total / outside windows": (
            f"{nums['failed_somewhere']} / {nums['failed_somewhere_outside_faults']}"
        ),
        "failed on every server, total / outside windows": (
            f"{nums['unavailable']} / {nums['unavailable_outside_faults']}"
        ),
        "bots-only games": bot_numbers,
        "timer collects (after the last fault)": f"{collects} ({collects_after})",
        "longest owed pile (ms)": longest,
        "takeover log lines": dict(takeovers) or "none",
        "settled": f"{result.settled} in {result.settle_s:.1f}s",
        "elapsed": f"{result.elapsed_s:.1f}s",
        "answers, streams, server logs": str(tmp_path),
    }
    print(
        "\n" + summary(f"contention with faults, {SERVERS} servers", traffic, result.stored, extra)
    )
    print(property_table(failures))
    assert kills and len(pg_restarts) == 2, f"the faults did not happen: {plan.faults}"
    failed = [name for name, problems in failures.items() if problems]
    assert not failed, failures_message(failures)


# --------------------------------------------------------------------------- 3. bot timing

TIMING_DELAY_MS: Final = (20, 120)
TIMING_EVENT_LIMIT: Final = 120
"""About 100 entries, ~7 s of play at these delays."""
MEDIAN_TOLERANCE: Final = 0.15
KS_ALPHA: Final = 0.01
"""The KS threshold is the two-sample critical value at this level for the samples' sizes
(about 0.23 for ~100 deltas each): a run whose bots act on their own delays, as one server's
do, stays below it 99 % of the time even if the two games' deals diverge and the samples are
independent (with the same seed they mostly replay the same draws and are far closer). Bots
acting on every server (the earliest of three timers wins each decision: ~1.5x faster) give
D ≈ 0.3–0.4 against it."""
MIN_DELTAS: Final = 50


def timing_seed() -> int:
    """A seed whose bots-only game ends by the event limit, after 5–8 s of simulated play."""
    game = registry.get_game("ratscrew")
    lo, hi = TIMING_DELAY_MS
    for seed in range(200):
        m = Match(game, game.make_setup(3, seed, None, TIMING_EVENT_LIMIT), record=False)
        r = play_out(m, [ReactionBot(s, bot_seed(seed, s), min_ms=lo, max_ms=hi) for s in range(3)])
        assert m.outcome is not None
        if m.outcome.termination is Termination.EVENT_LIMIT and 5000 <= r.at_ms <= 8000:
            return seed
    raise AssertionError("no seed gives a 5-8 s bots-only game")


async def bot_game(targets: list[str], seed: int) -> tuple[list[dict[str, Any]], list[int]]:
    """Create the bots-only game through the first server, stream it from every server until
    it ends, and return its log (GetLog) and the stream lengths."""
    clients = [Client(t, attempts=10, attempt_timeout_s=5.0) for t in targets]
    try:
        created = await clients[0].create_game(
            "ratscrew",
            ["reaction"] * 3,
            seed=seed,
            event_limit=TIMING_EVENT_LIMIT,
            bot_delay_ms=TIMING_DELAY_MS,
        )
        seen = [0] * len(clients)

        async def follow(i: int) -> None:
            async for _ in clients[i].game(created.game_id, created.spectator_token).stream(0):
                seen[i] += 1

        await asyncio.wait_for(asyncio.gather(*(follow(i) for i in range(len(clients)))), 60)
        raw, complete = await clients[0].game(created.game_id, created.spectator_token).log()
        assert complete, "the game ended but its log is not complete"
        return clog.loads(raw), seen
    finally:
        for c in clients:
            await c.close()


def deltas(lines: list[dict[str, Any]]) -> list[int]:
    """``at_ms`` steps between consecutive bot actions (the deal → first action excluded)."""
    at = [int(line["at_ms"]) for line in lines if line["type"] == "entry" and line["seq"] > 0]
    return [b - a for a, b in itertools.pairwise(at)]


@pytest.mark.solo  # its bounds (timers, UNAVAILABLE share, bot pace) assume a quiet machine
def test_bot_timing_one_vs_three_servers(pg_url: str, tmp_path: Path) -> None:
    seed = timing_seed()
    t0 = time.monotonic()
    with Cluster(tmp_path, 3, pg_url) as cluster:
        cluster.start([0])
        one, seen_one = asyncio.run(bot_game(cluster.targets[:1], seed))
        cluster.start([1, 2])
        three, seen_three = asyncio.run(bot_game(cluster.targets, seed))
    problems: list[str] = []
    for name, lines in (("1 server", one), ("3 servers", three)):
        try:
            report = clog.verify(lines)
            if report.outcome is None:
                problems.append(f"{name}: the log verifies but has no outcome")
        except Exception as exc:
            problems.append(f"{name}: the log does not verify: {exc}")
    d1, d3 = deltas(one), deltas(three)
    m1, m3 = median(d1), median(d3)
    ks = ks_statistic(d1, d3)
    crit = ks_critical(len(d1), len(d3), KS_ALPHA) if d1 and d3 else 0.0
    print(
        f"\n==== bot timing, seed {seed}, delays {TIMING_DELAY_MS} ms ====\n"
        f"1 server : {len(d1)} deltas, median {m1:.1f} ms, mean {sum(d1) / max(len(d1), 1):.1f}"
        f" ms, streams saw {seen_one}\n"
        f"3 servers: {len(d3)} deltas, median {m3:.1f} ms, mean {sum(d3) / max(len(d3), 1):.1f}"
        f" ms, streams saw {seen_three}\n"
        f"median ratio 1/3 servers {m1 / m3 if m3 else float('nan'):.2f}; KS D = {ks:.3f} "
        f"(threshold {crit:.3f} at alpha {KS_ALPHA}); elapsed {time.monotonic() - t0:.1f}s"
    )
    if len(d1) < MIN_DELTAS or len(d3) < MIN_DELTAS:
        problems.append(f"too few bot actions to compare: {len(d1)} and {len(d3)}")
    if not abs(m3 - m1) <= MEDIAN_TOLERANCE * m1:
        problems.append(
            f"median step {m3:.1f} ms with 3 servers vs {m1:.1f} ms with 1 "
            f"(more than {MEDIAN_TOLERANCE:.0%} apart)"
        )
    if not ks < crit:
        problems.append(f"KS D = {ks:.3f} >= {crit:.3f}: the step distributions differ")
    assert not problems, "bot timing differs with 3 servers:\n  " + "\n  ".join(problems)


# --------------------------------------------------------------------------- the checks


def _rows_of(match: Match[Any, Any, Any, Any, Any], seed: int, salt: bytes) -> StoredGameRows:
    assert match.writer is not None
    lines = match.writer.lines
    end = lines[-1] if lines[-1]["type"] == "end" else None
    body = lines[1:-1] if end is not None else lines[1:]
    entries = [
        StoredEntry(int(x["seq"]), x["seat"], None if x["seq"] == 0 else f"a{x['seq']}", x)
        for x in body
    ]
    return StoredGameRows("0" * 32, lines[0], seed, salt, end, entries, [])


def test_checks_catch_corruption() -> None:
    """The checks themselves (no server): a forked log, an action both accepted and rejected, an
    acknowledged action missing from its seq, a stream with a gap are all reported."""
    game = registry.get_game("ratscrew")
    seed, salt = 7, bytes(range(16))

    def played(upto: int, fork_at: int | None = None) -> Match[Any, Any, Any, Any, Any]:
        m = Match(game, game.make_setup(3, seed), salt=salt, game_id="0" * 32)
        while m.seq < upto:
            seat, cmd = next(
                (s, c)
                for s in range(3)
                for c in m.legal_commands(s)
                if (type(c).__name__ == "Slap") == (m.seq == fork_at)
            )
            m.submit(seat, cmd, m.seq * 10)
        return m

    clean = _rows_of(played(40), seed, salt)
    assert check_log(clean).problems == []
    # a fork: entries 0..19 of one history, 20.. of another that false-slapped at seq 20
    other = _rows_of(played(40, fork_at=20), seed, salt)
    forked = replace(clean, entries=clean.entries[:21] + other.entries[21:])
    problems = check_log(forked).problems
    assert any("hash chain" in p for p in problems), problems
    assert any(p.startswith("replay: entry 21") for p in problems), problems

    spec = GameSpec("t", "ratscrew", ("human",) * 3, 1000)
    created = CreatedGame("0" * 32, {0: "t0", 1: "t1", 2: "t2"}, "ts", "", "")
    run = GameRun(spec, 0, 0, seed, created, 0.0)
    answers = []
    for e in clean.entries[1:]:
        cmd = canonical_command("ratscrew", json.dumps(e.line["action"]))
        assert e.seat is not None and e.action_id is not None
        a = Answer(created.game_id, e.seat, e.action_id, cmd, "accepted", 0, 0, 0, seq=e.seq)
        answers.append(replace(a, entry_seat=e.seat, entry_action=cmd))
    ok, others = answers[4], answers[:4] + answers[5:]
    assert ok.action_id == "a5"
    b, c = check_answers(answers, {created.game_id: clean}, [run])
    assert (b, c) == ([], []), (b, c)
    both = replace(clean, rejections=[(ok.seat, "a5", "EmptyPile")])
    b, c = check_answers(answers, {created.game_id: both}, [run])
    assert any("both an entry" in p for p in b), b
    b, c = check_answers([*others, replace(ok, seq=6)], {created.game_id: clean}, [run])
    assert any("stored at 5" in p for p in c), c
    rejected = replace(ok, kind="rejected", code="EmptyPile")
    b, c = check_answers([*answers, rejected], {created.game_id: clean}, [run])
    assert any("different answers" in p for p in b), b
    assert any("rejected (EmptyPile) but in entries" in p for p in c), c

    rec = StreamRecord(created.game_id, 0)
    rec.seen = [(e.seq, e.seat, json.dumps(e.line["action"]), 0.0) for e in clean.entries]
    assert check_streams([rec], {created.game_id: clean}, {created.game_id: 40}) == []
    del rec.seen[7]
    problems = check_streams([rec], {created.game_id: clean}, {created.game_id: 40})
    assert any("position 7 has seq 8" in p for p in problems), problems
