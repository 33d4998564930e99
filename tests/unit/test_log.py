"""The tamper-evident log: verify names the first altered, dropped, reordered or injected entry."""

from __future__ import annotations

import copy
import hashlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardcore import log
from cardcore.bots import play_out, seat_bots
from cardcore.errors import CorruptLog
from cardcore.match import Match
from cardcore.registry import get_game

GAME = get_game("ratscrew")


@pytest.fixture(scope="module")
def lines() -> list[dict[str, Any]]:
    match = Match(GAME, GAME.make_setup(3, 7), salt=bytes(range(16)), game_id="g-1")
    play_out(match, seat_bots("reaction", 3, 7))
    assert match.writer is not None and match.outcome is not None
    return match.writer.lines


def bad_seq(lines: list[dict[str, Any]]) -> int | None:
    with pytest.raises(CorruptLog) as info:
        log.verify(lines)
    return info.value.seq


def test_valid_log_verifies(lines: list[dict[str, Any]]) -> None:
    report = log.verify(lines)
    assert report.revealed and report.entries == len(lines) - 2
    assert (
        lines[0]["commitment"]
        == hashlib.sha256((7).to_bytes(8, "big") + bytes(range(16))).hexdigest()
    )
    assert log.loads(log.dumps(lines)) == lines


def test_flipped_card_is_named(lines: list[dict[str, Any]]) -> None:
    bad = copy.deepcopy(lines)
    entry = next(line for line in bad[5:] if any("card" in e for e in line["events"]))
    event = next(e for e in entry["events"] if "card" in e)
    event["card"] = "KS" if event["card"] != "KS" else "QS"
    assert bad_seq(bad) == entry["seq"]


def test_recomputed_hash_still_caught_by_rules(lines: list[dict[str, Any]]) -> None:
    # After the reveal anyone knows the salt; a forger who re-hashes is caught by re-deciding.
    bad = copy.deepcopy(lines)
    salt = bytes.fromhex(bad[-1]["salt"])
    target = bad[10]
    target["events"] = list(reversed(target["events"])) + [target["events"][0]]
    for i in range(10, len(bad) - 1):
        bad[i]["prev"] = bad[i - 1]["hash"]
        bad[i]["hash"] = log._keyed_hash(salt, bad[i])
    bad[-1]["prev"] = bad[-2]["hash"]
    bad[-1]["hash"] = log._plain_hash(bad[-1])
    assert bad_seq(bad) == 9


def test_swapped_entries_are_named(lines: list[dict[str, Any]]) -> None:
    bad = list(lines)
    bad[20], bad[21] = bad[21], bad[20]
    assert bad_seq(bad) == lines[20]["seq"]


def test_dropped_entry_is_named(lines: list[dict[str, Any]]) -> None:
    bad = list(lines)
    del bad[30]
    assert bad_seq(bad) == lines[30]["seq"]


def test_injected_entry_is_named(lines: list[dict[str, Any]]) -> None:
    bad = list(lines)
    bad.insert(12, copy.deepcopy(lines[12]))
    assert bad_seq(bad) == lines[12]["seq"] + 1


def test_broken_commitment_is_named(lines: list[dict[str, Any]]) -> None:
    bad = copy.deepcopy(lines)
    bad[-1]["seed"] = 8
    assert bad_seq(bad) == bad[-1]["seq"]


def test_altered_header_is_caught(lines: list[dict[str, Any]]) -> None:
    bad = copy.deepcopy(lines)
    bad[0]["setup"]["rules"]["false_slap_penalty"] = 2
    assert bad_seq(bad) is None


def test_unfinished_log_is_consistent_but_unrevealed(lines: list[dict[str, Any]]) -> None:
    report = log.verify(lines[:40])
    assert not report.revealed and report.entries == 39


def test_redacted_download_hides_stack_cards_and_seed(lines: list[dict[str, Any]]) -> None:
    partial = lines[:40]
    red = log.redact_log(partial, 1)
    dealt = red[1]["events"][0]["stacks"]
    assert all(c == "??" for s in dealt for c in s)
    assert "seed" not in red[0] and all(line["type"] != "end" for line in red)
    assert [line["hash"] for line in red] == [line["hash"] for line in partial]


def test_replay_states_follow_the_log(lines: list[dict[str, Any]]) -> None:
    steps = list(log.replay(lines))
    assert len(steps) == len(lines) - 2
    assert GAME.outcome(steps[-1].state) is not None


def test_unknown_game_and_bad_format() -> None:
    with pytest.raises(CorruptLog, match="unknown game"):
        log.verify([{"type": "header", "format": 1, "game": "chess"}])
    with pytest.raises(CorruptLog, match="not a header"):
        log.verify([{"type": "entry"}])
    with pytest.raises(CorruptLog, match="line 1"):
        log.loads(b"{nope\n")


def test_unrevealed_log_is_still_checked_against_the_rules(lines: list[dict[str, Any]]) -> None:
    partial = copy.deepcopy(lines[:60])
    entry = next(line for line in partial[5:] if any("card" in e for e in line["events"]))
    event = next(e for e in entry["events"] if "card" in e)
    event["card"] = "KS" if event["card"] != "KS" else "QS"
    assert bad_seq(partial) == entry["seq"]


def test_unrevealed_shuffles_are_counted_not_guessed() -> None:
    game = get_game("slapjack")
    match = Match(game, game.make_setup(3, 5))
    play_out(match, seat_bots("reaction", 3, 5))
    assert match.writer is not None
    full = match.writer.lines
    partial = full[:-2]  # the game before its last action: in progress, seed still secret
    shuffling = sum(
        1 for line in partial[1:] if any(e["kind"] == "StackShuffled" for e in line["events"])
    )
    assert shuffling > 0
    report = log.verify(partial)
    assert not report.revealed and report.unchecked == shuffling
    assert log.verify(full).unchecked == 0


@settings(max_examples=300)
@given(data=st.data())
def test_any_tampering_is_a_corrupt_log_never_a_crash(
    lines: list[dict[str, Any]], data: st.DataObject
) -> None:
    """The dispute tool's promise: whatever is done to a log, verify answers CorruptLog (naming
    where) or a valid report — never another exception."""
    revealed = data.draw(st.booleans(), label="revealed")
    bad = copy.deepcopy(lines[:40] + (lines[-1:] if revealed else []))
    target: Any = data.draw(st.sampled_from(bad), label="line")
    # Walk down into nested objects and arrays (setup.rules, events[i].card, ...) now and then.
    while True:
        keys = list(range(len(target))) if isinstance(target, list) else sorted(target)
        if not keys:
            return
        key = data.draw(st.sampled_from(keys), label="key")
        inner = target[key]
        if isinstance(inner, dict | list) and inner and data.draw(st.booleans(), label="deeper"):
            target = inner
            continue
        break
    line = target
    junk = st.one_of(
        st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.text(max_size=5),
        st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3), st.integers()),
    )  # fmt: skip
    line[key] = data.draw(junk, label="value")
    try:
        log.verify(bad)
    except CorruptLog:
        pass
    try:  # replay checks no hash: it meets the tampered values themselves
        for _ in log.replay(bad):
            pass
    except CorruptLog:
        pass
