"""The race policy of the real-time games (docs/games/common.md#race-policy): the credit rule,
the hold, the log's race records (format 3) and what ``verify`` makes of a changed one; and the
race simulator (docs/games/common.md#fairness)."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest

from cardcore import log
from cardcore.cli import main
from cardcore.errors import CorruptLog, InvalidSetup
from cardcore.fairness import HUMAN, ReactionModel, fairness
from cardcore.log.format import header_hash
from cardcore.match import Match
from cardcore.races import ARRIVAL_POLICY, Hold, RacePolicy, credit
from cardcore.registry import get_game

REALTIME = ("ratscrew", "slapjack", "spit", "speed")
COMPENSATED = {"race_policy": "compensated", "race_cap_ms": 80}


# --------------------------------------------------------------------------- the rule


def test_the_policy_reads_as_the_command_line_writes_it() -> None:
    assert RacePolicy.parse("arrival") is ARRIVAL_POLICY
    assert RacePolicy.parse("compensated") == RacePolicy("compensated", 80)
    assert RacePolicy.parse("compensated:0") == RacePolicy("compensated", 0)
    assert str(RacePolicy.parse("compensated:250")) == "compensated:250"
    for bad in ("arrival:10", "compensated:251", "compensated:-1", "compensated:x", "first"):
        with pytest.raises(ValueError):
            RacePolicy.parse(bad)


@pytest.mark.parametrize("name", REALTIME)
def test_the_flags_of_each_real_time_game(name: str) -> None:
    """docs/games/common.md#race-policy: arrival by default, and left out of the header then
    (every log written before the flags reads as it did); both written once compensated."""
    game = get_game(name)
    plain = game.make_setup(2, 1)
    assert RacePolicy.of_rules(plain.rules) is ARRIVAL_POLICY
    assert not {"race_policy", "race_cap_ms"} & set(plain.public_json()["rules"])
    raced = game.make_setup(2, 1, {"race_policy": "compensated", "race_cap_ms": 30})
    assert RacePolicy.of_rules(raced.rules) == RacePolicy("compensated", 30)
    rules = raced.public_json()["rules"]
    assert rules["race_policy"] == "compensated" and rules["race_cap_ms"] == 30
    defaulted = game.make_setup(2, 1, {"race_policy": "compensated"}).public_json()["rules"]
    assert defaulted["race_cap_ms"] == 80
    for rules_in, field in (
        ({"race_cap_ms": 30}, "rules.race_cap_ms"),  # a cap under arrival credits nothing
        ({"race_policy": "compensated", "race_cap_ms": 251}, "rules.race_cap_ms"),
        ({"race_policy": "fastest"}, "rules.race_policy"),
    ):
        with pytest.raises(InvalidSetup) as caught:
            game.make_setup(2, 1, rules_in)
        assert caught.value.field == field


def test_the_credit_takes_the_delay_up_to_the_cap_and_never_goes_back() -> None:
    policy = RacePolicy("compensated", 80)
    assert credit(policy, 1000, 30, 900) == (970, credit(policy, 1000, 30, 900)[1])
    at, race = credit(policy, 1000, 30, 900)
    assert (at, race.received_ms, race.delay_ms, race.clamped) == (970, 1000, 30, False)
    at, race = credit(policy, 1000, 200, 0)  # capped: a seat claiming 200 ms is credited 80
    assert (at, race.clamped) == (920, False)
    at, race = credit(policy, 1000, 30, 990)  # too late for its place: at the last entry's
    assert (at, race.clamped) == (990, True)
    assert credit(ARRIVAL_POLICY, 1000, 30, 0)[0] == 1000
    with pytest.raises(ValueError):
        credit(policy, 1000, -1, 0)


def test_the_hold_releases_in_credited_order_once_nothing_can_overtake() -> None:
    hold: Hold[str] = Hold(RacePolicy("compensated", 80))
    hold.add("far", received_ms=1000, delay_ms=60)  # credited at 940
    hold.add("near", received_ms=990, delay_ms=0)
    hold.add("tie", received_ms=1010, delay_ms=70)  # credited alike (940): arrival decides
    assert hold.next_release_ms() == 1020
    assert hold.due(1019) == []
    assert hold.due(1020) == ["far", "tie"]
    assert hold.due(1070) == ["near"] and len(hold) == 0 and hold.next_release_ms() is None
    instant: Hold[str] = Hold(ARRIVAL_POLICY)  # arrival: nothing waits
    instant.add("a", received_ms=5, delay_ms=0)
    assert instant.due(5) == ["a"]


# --------------------------------------------------------------------------- the log


def raced_match(name: str = "slapjack", steps: int = 40) -> Match[Any, Any, Any, Any, Any]:
    """A compensated game whose seats act in turn, each action received 100 ms after the last
    entry from a seat 10-60 ms away; one arrives so late that it is clamped."""
    game = get_game(name)
    match = Match(game, game.make_setup(2, 5, COMPENSATED))
    for i in range(steps):
        seat = i % 2
        legal = match.legal_commands(seat) or match.legal_commands(1 - seat)
        seat = seat if match.legal_commands(seat) else 1 - seat
        delay = 70 if i == 7 else 10 + 10 * (i % 6)
        received = match.last_at_ms + (20 if i == 7 else 100)
        match.submit_received(seat, legal[0], received, delay)
        if match.outcome is not None:
            break
    return match


def test_a_compensated_game_logs_each_credit_and_replays_byte_for_byte() -> None:
    """docs/games/common.md#race-policy: log format 3, a race record in every action of a seat,
    ``at_ms`` the credited time; loaded again, the match writes the same bytes."""
    match = raced_match()
    lines = log.loads(match.dumps())
    assert lines[0]["format"] == 3 and "race" not in lines[1]  # the deal: the host's
    races = [ln["race"] for ln in lines[2:] if ln.get("type") == "entry"]
    assert len(races) == len(lines) - 2 - (lines[-1]["type"] == "end")
    first = lines[2]
    assert first["at_ms"] == first["race"]["received_ms"] - first["race"]["delay_ms"]
    clamped = [ln for ln in lines if ln.get("race", {}).get("clamped")]
    assert [ln["seq"] for ln in clamped] == [8]
    assert clamped[0]["at_ms"] == lines[8]["at_ms"]  # credited at the entry before it
    assert Match.loads(match.dumps(), seed=5).dumps() == match.dumps()
    assert log.verify(lines).entries == len(races) + 1
    # a host's own action (a timer's, a bot's) is credited with delay 0
    match.submit(0, match.legal_commands(0)[0], match.last_at_ms + 5)
    assert match.writer is not None
    assert match.writer.lines[-1]["race"] == {
        "clamped": False,
        "delay_ms": 0,
        "received_ms": match.last_at_ms,
    }


def tampered(lines: list[dict[str, Any]], seq: int, **race: Any) -> list[dict[str, Any]]:
    out = copy.deepcopy(lines)
    out[1 + seq]["race"].update(race)
    return out


def caught(lines: list[dict[str, Any]]) -> tuple[int | None, str]:
    with pytest.raises(CorruptLog) as exc:
        log.verify(lines)
    return exc.value.seq, str(exc.value)


def test_verify_names_a_changed_credit_at_its_seq() -> None:
    """docs/games/common.md#race-policy: a changed ``delay_ms`` or ``received_ms``, a flipped
    clamp, two actions swapped, a missing record, one under ``arrival``: each at its seq. (The
    game is in progress, its salt secret: only the credit rule can catch them.)"""
    lines = log.loads(raced_match().dumps())
    assert lines[-1]["type"] != "end"
    d = lines[5]["race"]["delay_ms"]
    assert caught(tampered(lines, 4, delay_ms=d + 7))[0] == 4
    assert caught(tampered(lines, 4, received_ms=lines[5]["race"]["received_ms"] - 7))[0] == 4
    seq, why = caught(tampered(lines, 8, clamped=False))
    assert seq == 8 and "clamped" in why
    swapped = copy.deepcopy(lines)
    swapped[5], swapped[6] = swapped[6], swapped[5]
    swapped[5]["seq"], swapped[6]["seq"] = 4, 5
    assert caught(swapped)[0] == 4
    missing = copy.deepcopy(lines)
    del missing[5]["race"]
    assert caught(missing)[0] == 4
    arrival = log.loads(Match(get_game("slapjack"), get_game("slapjack").make_setup(2, 5)).dumps())
    arrival.append({**copy.deepcopy(lines[2]), "prev": arrival[-1]["hash"]})
    seq, why = caught(arrival)
    assert seq == 1 and "race record" in why


def test_actions_credited_alike_go_in_order_of_arrival() -> None:
    game = get_game("speed")
    match = Match(game, game.make_setup(2, 3, COMPENSATED))
    match.submit_received(0, match.legal_commands(0)[0], 500, 0)  # the start flip: both call
    match.submit_received(1, match.legal_commands(1)[0], 520, 20)  # credited at 500 too
    lines = log.loads(match.dumps())
    assert log.verify(lines).entries == 3
    late_first = copy.deepcopy(lines)
    late_first[3]["race"].update(received_ms=499, delay_ms=0)  # credited 499: before 500
    assert caught(late_first)[0] == 2
    reordered = copy.deepcopy(lines)
    reordered[2]["race"].update(received_ms=530, delay_ms=30)  # credited 500, received 530
    seq, why = caught(reordered)
    assert seq == 2 and "order of arrival" in why


def test_format_3_goes_with_the_compensated_rules() -> None:
    lines = log.loads(raced_match().dumps())
    claimed = copy.deepcopy(lines)
    claimed[0]["format"] = 1
    claimed[0]["hash"] = header_hash(claimed[0])
    assert "format 3" in caught(claimed)[1]


# --------------------------------------------------------------------------- the simulator


def test_the_simulator_is_seeded_and_duplicate() -> None:
    """docs/games/common.md#fairness: the same arguments, the same report; equal seats share
    the wins evenly over seat-swapped deals."""
    game = get_game("speed")
    a = fairness(game, [0, 50], deals=30, seed=4)
    assert a == fairness(game, [0, 50], deals=30, seed=4)
    assert a.win_rate[0] > 0.8 and abs(sum(a.win_rate) - 1) < 1e-9  # the nearer seat wins
    even = fairness(game, [0, 0], deals=30, seed=4)
    assert even.win_rate == (0.5, 0.5)  # each deal won once from each seat
    assert ReactionModel.parse("human") is HUMAN
    assert ReactionModel.parse("uniform:100-120") == ReactionModel("uniform:100-120", 100, 120)
    with pytest.raises(ValueError):
        ReactionModel.parse("uniform:120-100")


def test_the_credit_evens_a_race_where_only_actions_travel() -> None:
    """docs/games/common.md#fairness: when a seat's delay is only on its actions' way (views
    reach every seat at once), crediting that delay gives the race back to the quicker hand;
    a seat that answers pings late to look 250 ms away is credited the cap, no more."""
    game = get_game("speed")
    policy = RacePolicy("compensated", 80)
    fair = fairness(game, [0, 50], policy=policy, deals=60, seed=2, views_delayed=False)
    assert fair.ci95[0][0] <= 0.5 <= fair.ci95[0][1], fair
    unfair = fairness(game, [0, 50], deals=60, seed=2, views_delayed=False)
    assert unfair.win_rate[0] > 0.8
    claims_cap = fairness(game, [0, 0], policy=policy, deals=30, seed=2, measured_ms=[0, 80])
    claims_more = fairness(game, [0, 0], policy=policy, deals=30, seed=2, measured_ms=[0, 250])
    assert claims_more.win_rate == claims_cap.win_rate
    assert claims_cap.win_rate[1] > 0.8  # what the cap allows a liar: bounded, not nothing


def test_the_fairness_command_prints_each_seats_share() -> None:
    out = io.StringIO()
    argv = ["fairness", "speed", "--delay", "1=50", "--race-policy", "compensated:80"]
    assert main([*argv, "--deals", "10", "--json"], out) == 0
    report = json.loads(out.getvalue())
    assert set(report["win_rate"]) == {"0", "1"} and set(report["ci95"]) == {"0", "1"}
    assert report["race_policy"] == "compensated:80" and report["delay_ms"] == {"0": 0, "1": 50}
    assert report["games"] == 20 and report["views"] == "delayed"
    lo, hi = report["ci95"]["1"]
    assert lo <= report["win_rate"]["1"] <= hi
    text = io.StringIO()
    assert main([*argv, "--deals", "10"], text) == 0
    assert "seat 1 (+50 ms): wins" in text.getvalue()
    assert main(["fairness", "palace", "--deals", "2"], io.StringIO()) == 2  # turn-based
    assert main(["fairness", "speed", "--delay", "2=5", "--deals", "2"], io.StringIO()) == 2


def test_a_players_copy_holds_the_credits_too() -> None:
    """docs/games/common.md#race-policy: a seat's copy carries every race record; its check
    says it checked the credits, catches a changed one at its seq, and the settled copy and the
    log's verdict say every credit was checked."""
    match = raced_match()
    lines = log.loads(match.dumps())
    mine = log.redact_log(lines, 0)
    assert all("race" in ln for ln in mine[2:] if ln.get("type") == "entry")
    report = log.verify(mine)
    assert "credits" in report.checked and report.copy == "0"
    assert caught(tampered(mine, 4, delay_ms=mine[5]["race"]["delay_ms"] + 1))[0] == 4
    out = io.StringIO()
    done = Path(__file__).parents[1] / "golden" / "speed" / "compensated-2p-seed35.jsonl"
    assert main(["verify", str(done)], out) == 0
    assert "race policy compensated:80: every credit checked" in out.getvalue()


def test_replay_says_why_the_action_that_arrived_second_went_first(tmp_path: Path) -> None:
    """docs/games/common.md#race-policy: ``cardcore replay`` of a compensated game shows each
    credit, and names a race the credit decided against the order of arrival."""
    game = get_game("speed")
    match = Match(game, game.make_setup(2, 3, COMPENSATED))
    match.submit_received(1, match.legal_commands(1)[0], 1000, 60)  # credited at 940
    match.submit_received(0, match.legal_commands(0)[0], 990, 0)  # arrived first, credited 990
    (tmp_path / "race.jsonl").write_bytes(match.dumps())
    out = io.StringIO()
    assert main(["replay", str(tmp_path / "race.jsonl")], out) == 0
    text = out.getvalue()
    assert "(arrived at +1000 ms from 60 ms away: credited 60 ms earlier)" in text
    assert (
        "seat 1's Flip arrived 10 ms after seat 0's Flip, but seat 1 is 60 ms further away: "
        "seat 1 acted first"
    ) in text, text
