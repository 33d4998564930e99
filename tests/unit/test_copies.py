"""Viewers' copies of a log (docs/log-format.md, "Viewers' copies"): what a seat or a spectator
downloads before the end verifies as far as it can (never a false tampering, never a crash),
replays as its viewer was shown it, and after the end is held against the final log by
``check_copy`` (``cardcore verify --receipts``), which catches a host that rewrites what a viewer
saw or changes a card the viewer did not see but whose hash it holds."""

from __future__ import annotations

import copy
import functools
import io
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from cardcore import codec, log, registry
from cardcore.bots import play_out, seat_bots
from cardcore.cards import standard_deck
from cardcore.cli import main
from cardcore.engine import Role, Viewer
from cardcore.errors import CorruptLog
from cardcore.match import Match
from cardcore.registry import AnyGame, get_game

Lines = list[dict[str, Any]]
NAMES = [g.info.name for g in registry.GAMES]
SPECTATOR = Role.SPECTATOR
CARD_TEXTS = [c.text for c in standard_deck()]
SEED = 2030
"""The bot games' seed: games of 42 (speed) to 406 (slapjack) lines."""


def seats_of(game: AnyGame) -> int:
    return min(game.info.max_seats, 3)


@functools.cache
def _played(name: str) -> str:
    game = get_game(name)
    seats = seats_of(game)
    match = Match(game, game.make_setup(seats, SEED), game_id=f"g-{name}")
    play_out(match, seat_bots("reaction", seats, SEED))
    assert match.writer is not None and match.outcome is not None
    return log.dumps(match.writer.lines).decode()


def final_log(name: str) -> Lines:
    """A seeded bot game's complete log (a fresh copy each time: tests change it)."""
    return log.loads(_played(name))


def points(lines: Lines) -> list[int]:
    """Five moments of the game: the log's first ``k`` lines after entry 0, a quarter, half and
    three quarters of the entries, and the last before the end."""
    entries = len(lines) - 2
    ks = [2, 1 + entries // 4, 1 + entries // 2, 1 + 3 * entries // 4, 1 + entries]
    return sorted(set(ks))


def viewers(game: AnyGame) -> list[Viewer]:
    return [0, seats_of(game) - 1, SPECTATOR]


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), out)
    return code, out.getvalue()


def write(path: Path, lines: Lines) -> str:
    path.write_bytes(log.dumps(lines))
    return str(path)


def reseal(lines: Lines, salt: bytes, start: int = 0) -> Lines:
    """What a host holding the salt can do: make every hash from line ``start`` on consistent
    again (the header's plain hash, each entry's keyed hash, the end's plain hash)."""
    for i in range(start, len(lines)):
        line = lines[i]
        if not isinstance(line, dict):
            continue
        kind = line.get("type")
        if kind == "header":
            line["hash"] = log.header_hash(line)
            continue
        if i > 0 and isinstance(lines[i - 1], dict):
            line["prev"] = lines[i - 1].get("hash")
        if kind == "entry":
            line["hash"] = log._keyed_hash(salt, line)
        elif kind == "end":
            line["hash"] = log._plain_hash(line)
    return lines


def salt_of(lines: Lines) -> bytes:
    return bytes.fromhex(lines[-1]["salt"])


def receipts_of(copy_lines: Lines, viewer: Viewer, seqs: Iterator[int] | range) -> Lines:
    """A receipts file of the entries ``seqs`` of a copy, as a client would keep them."""
    head = {"type": "receipts", "game_id": copy_lines[0]["game_id"], "viewer": str(viewer)}
    if isinstance(viewer, Role):
        head["viewer"] = viewer.value
    body = [{k: v for k, v in copy_lines[1 + s].items() if k != "type"} for s in seqs]
    return [head, *body]


def card_leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], str]]:
    """Every card text in a JSON value, with its path."""
    if isinstance(value, str) and value in CARD_TEXTS:
        yield path, value
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from card_leaves(v, (*path, i))
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from card_leaves(v, (*path, k))


def get(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


def put(value: Any, path: tuple[Any, ...], new: Any) -> None:
    get(value, path[:-1])[path[-1]] = new


def other_card(text: str) -> str:
    return CARD_TEXTS[(CARD_TEXTS.index(text) + 1) % len(CARD_TEXTS)]


def find_card(
    full: Lines, shown: Lines, *, visible: bool, min_seq: int = 0
) -> tuple[int, int, tuple[Any, ...]]:
    """(line index, event index, path) of a card of the full log that the viewer of ``shown``
    sees (``visible``) or does not (shown as ``??``)."""
    for i in range(1 + min_seq, len(full) - 1):
        for j, event in enumerate(full[i]["events"]):
            for path, text in card_leaves(event):
                seen = get(shown[i]["events"][j], path)
                if (seen == text) == visible and (visible or seen == "??"):
                    return i, j, path
    raise AssertionError("no such card")


def corrupt(fn: Any) -> CorruptLog:
    with pytest.raises(CorruptLog) as info:
        fn()
    return info.value


# --------------------------------------------------------------------------- copies verify


@pytest.mark.parametrize("name", NAMES)
def test_every_copy_verifies_as_far_as_it_can(name: str) -> None:
    game = get_game(name)
    final = final_log(name)
    assert log.verify(final).revealed
    for k in points(final):
        for v in viewers(game):
            mine = log.redact_log(final[:k], v)
            text = log.viewer_text(v)
            assert mine[0]["copy"] == {"viewer": text}
            assert {key: x for key, x in mine[0].items() if key != "copy"} == final[0]
            assert log.header_hash(mine[0]) == final[0]["hash"]
            assert all("seed" not in line and "salt" not in line for line in mine)
            report = log.verify(mine)
            assert report.copy == text and not report.revealed and report.outcome is None
            assert report.entries == report.unchecked == k - 1
            assert report.not_checked[:2] == (
                log._count(k - 1, "decision") + " (hidden cards)",
                log._count(k - 1, "entry hash", "entry hashes") + " (salt secret)",
            )
            assert "header" in report.checked and not report.notes
            assert log.copy_of(mine) == text
            # the same copy again is the same; another viewer's redaction of it is refused
            assert log.redact_log(mine, v) == mine
            got = log.check_copy(mine, final)
            assert (got.viewer, got.source, got.entries) == (text, "copy", k - 1)
            assert (got.first_seq, got.last_seq, got.final_entries) == (0, k - 2, len(final) - 2)
    with pytest.raises(ValueError, match="copy"):
        log.redact_log(log.redact_log(final[:3], 0), SPECTATOR)
    # the referee's redaction is the log itself, unmarked; after the end, the whole log
    assert log.redact_log(final[:5], Role.REFEREE) == final[:5]
    assert log.redact_log(final, 0) == final


@pytest.mark.parametrize("name", NAMES)
def test_the_cli_on_copies(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = get_game(name)
    final = final_log(name)
    final_path = write(tmp_path / "final.jsonl", final)
    code, text = run("verify", final_path)
    assert code == 0 and text.startswith(f"self-consistent, not authenticated: {name}")
    for k in points(final):
        for v in viewers(game):
            path = write(tmp_path / f"copy-{k}-{v}.jsonl", log.redact_log(final[:k], v))
            code, text = run("verify", path)
            whose = log.whose(log.viewer_text(v))
            assert code == 3, text
            assert text == (
                f"consistent so far: {name}, {whose} copy, {k - 1} entries; not checked yet: "
                f"{log._count(k - 1, 'decision')} (hidden cards), "
                f"{log._count(k - 1, 'entry hash', 'entry hashes')} (salt secret); unsigned\n"
            )
            code, text = run("verify", "--receipts", path, final_path)
            assert code == 0, text
            assert text.startswith(
                f"valid against your copy: {whose} {k - 1} entries (seq 0–{k - 2}) are in the "
                "final log unchanged"
            )
            assert run("verify", path, "--final", final_path)[0] == 0
            code, text = run("replay", path)
            assert code == 0 and text.startswith("seq 0 +0 ms deal\n")
            assert f"{whose} copy of a game in progress" in text
            at = str(min(3, k - 2))  # an entry the copy holds
            assert run("replay", path, "--as", log.viewer_text(v), "--at", at)[0] == 0
            other = "1" if v == 0 else "0"
            assert run("replay", path, "--as", other)[0] == 2
            assert f"cardcore: this is {whose} copy; it cannot show seat {other}'s view" in (
                capsys.readouterr().err
            )
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err


def test_the_cli_in_a_process(tmp_path: Path) -> None:
    final = final_log("speed")
    mine = write(tmp_path / "mine.jsonl", log.redact_log(final[:12], 1))
    final_path = write(tmp_path / "final.jsonl", final)
    cli = [sys.executable, "-m", "cardcore.cli"]
    got = subprocess.run([*cli, "verify", mine], capture_output=True, text=True, check=False)
    assert got.returncode == 3 and got.stdout.startswith("consistent so far: speed, seat 1's")
    got = subprocess.run(
        [*cli, "verify", "--receipts", mine, final_path],
        capture_output=True,
        text=True,
        check=False,
    )
    assert got.returncode == 0
    assert got.stdout.startswith(
        "valid against your copy: seat 1's 11 entries (seq 0–10) are in the final log unchanged"
    )
    assert "Traceback" not in got.stdout + got.stderr


def test_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    final = final_log("palace")
    final_path = write(tmp_path / "final.jsonl", final)
    mine = write(tmp_path / "mine.jsonl", log.redact_log(final[:9], 1))
    assert run("verify")[0] == 2
    assert run("verify", mine, "--receipts", mine, final_path)[0] == 2
    assert run("verify", mine, "--as", "1")[0] == 2
    code, text = run("verify", "--receipts", final_path, mine)  # FINAL is not final
    assert code == 2 and text.startswith("unsupported: the final log must be the server's complete")
    code, text = run("verify", "--receipts", mine, final_path, "--as", "0")
    assert code == 2 and "this is seat 1's copy; it cannot be seat 0's" in text
    assert run("verify", "--receipts", mine, final_path, "--as", "1")[0] == 0
    # a complete log replays as before, --as any viewer
    assert run("replay", final_path, "--as", "0", "--at", "4")[0] == 0


# --------------------------------------------------------------------------- copies in detail


def test_a_copy_of_an_old_server_is_checked_as_an_unmarked_copy(tmp_path: Path) -> None:
    final = final_log("speed")
    old = log.redact_log(final[:30], 1)
    del old[0]["copy"]
    report = log.verify(old)
    assert report.copy == "" and report.entries == 29 and not report.revealed
    code, text = run("verify", write(tmp_path / "old.jsonl", old))
    assert code == 3 and text.startswith("consistent so far: speed, a redacted (unmarked) copy")
    with pytest.raises(ValueError, match="does not say whose"):
        log.check_copy(old, final)
    assert log.check_copy(old, final, viewer=1).entries == 29
    assert (
        "other events than the ones you were shown"
        in corrupt(lambda: log.check_copy(old, final, viewer=0)).reason
    )
    # the referee's log in progress is a log, not a copy: compared unredacted
    assert log.check_copy(final[:30], final).source == "log"
    assert log.check_copy(final, final).entries == len(final) - 2


def test_what_a_copy_refuses(tmp_path: Path) -> None:
    final = final_log("ratscrew")
    mine = log.redact_log(final[:40], 0)

    def bad(change: Any) -> CorruptLog:
        lines = copy.deepcopy(mine)
        change(lines)
        return corrupt(lambda: log.verify(lines))

    def put_line(i: int, key: str, value: Any) -> Any:
        return lambda lines: lines[i].__setitem__(key, value)

    assert bad(put_line(5, "seat", 3)).seq == 4
    assert bad(put_line(5, "seat", True)).seq == 4
    assert bad(put_line(5, "at_ms", -1)).seq == 4
    assert bad(put_line(5, "seq", 5)).seq == 4
    assert bad(put_line(5, "prev", "0" * 64)).seq == 4
    assert bad(put_line(5, "hash", "not a hash")).seq == 4
    assert bad(put_line(5, "action", {"kind": "Dance"})).seq == 4
    assert bad(put_line(5, "events", [{"kind": "Dance"}])).seq == 4
    assert bad(put_line(5, "events", ["??"])).seq == 4
    assert bad(put_line(1, "action", {"kind": "Play"})).seq == 0
    assert bad(put_line(0, "game_id", "other")).seq is None  # the header's hash
    assert bad(put_line(0, "copy", {"viewer": "3"})).seq is None  # not a seat of 3
    assert bad(put_line(0, "copy", {"viewer": "referee"})).seq is None
    assert bad(put_line(0, "copy", {"viewer": 0})).seq is None
    # A copy taken mid-game with the final end line: the end does not follow it (settling a game
    # from one's own copy needs every entry: test_a_whole_copy_with_its_end_settles_the_game).
    late_end = bad(lambda lines: lines.append(dict(final[-1])))
    assert late_end.seq == final[-1]["seq"] and "does not follow" in late_end.reason
    assert bad(lambda lines: lines.__delitem__(7)).seq == 6
    # an event that is the game's, with a wrong value and nothing hidden, is not an event ...
    entry = next(
        i
        for i in range(2, 40)
        if mine[i]["events"]
        and "seat" in mine[i]["events"][0]
        and not log._shows_hidden(mine[i]["events"][0])
    )
    wrong = lambda lines: lines[entry]["events"][0].__setitem__("seat", "x")  # noqa: E731
    assert bad(wrong).seq == entry - 1
    # ... but a hidden value where the type has none is counted, not a fault
    lines = copy.deepcopy(mine)
    lines[entry]["events"][0]["seat"] = "??"
    report = log.verify(lines)
    assert report.not_checked[-1] == "1 event (hidden values that do not decode)"
    # replay shows such an event as its kind and JSON (the game cannot narrate it)
    path = tmp_path / "odd.jsonl"
    code, text = run("replay", write(path, lines))
    event = lines[entry]["events"][0]
    assert code == 0 and f"    {event['kind']} {codec.canonical_text(event)}\n" in text
    # a card hidden from the viewer, shown: not that viewer's copy
    i, j, path = find_card(final[: len(mine) + 1], mine, visible=False)
    lines = copy.deepcopy(mine)
    put(lines[i]["events"][j], path, get(final[i]["events"][j], path))
    assert "shows a card hidden from seat 0" in corrupt(lambda: log.verify(lines)).reason


def test_an_aborted_game_copy() -> None:
    game = get_game("spit")
    match = Match(game, game.make_setup(2, 9))
    for _ in range(6):
        seat = next(s for s in range(2) if match.legal_commands(s))
        match.submit(seat, match.legal_commands(seat)[0], match.last_at_ms + 5)
    match.abort(match.last_at_ms + 1, "admin")
    assert match.writer is not None
    final = match.writer.lines
    mine = log.redact_log(final[:-1], SPECTATOR)
    assert log.verify(mine).entries == len(final) - 2
    assert log.check_copy(mine, final).entries == len(final) - 2
    after = copy.deepcopy(mine)
    after.append({**after[-2], "seq": after[-1]["seq"] + 1, "prev": after[-1]["hash"]})
    assert "after the host's abort" in corrupt(lambda: log.verify(after)).reason


@pytest.mark.parametrize("name", NAMES)
def test_a_copy_of_a_game_started_from_a_position(name: str, tmp_path: Path) -> None:
    game = get_game(name)
    seats = seats_of(game)
    start = [s.state for s in log.replay(final_log(name))][5]
    match = Match.from_position(game, start, seed=5, game_id="pos")
    play_out(match, seat_bots("reaction", seats, 5))
    assert match.writer is not None
    final = match.writer.lines
    for v in (0, SPECTATOR):
        mine = log.redact_log(final[: len(final) // 2], v)
        report = log.verify(mine)
        assert report.notes == (log.POSITION_HIDDEN,) and report.checked[0] == "setup"
        code, text = run("verify", write(tmp_path / "mine.jsonl", mine))
        assert code == 3 and text.endswith(f"; {log.POSITION_HIDDEN}; unsigned\n")
        assert log.check_copy(mine, final).entries == len(mine) - 1
        other = copy.deepcopy(mine)
        other[0]["game_id"] = "other"
        assert corrupt(lambda o=other: log.check_copy(o, final)).seq is None


# --------------------------------------------------------------------------- against the truth


@pytest.mark.parametrize("name", NAMES)
def test_a_rewritten_entry_the_viewer_saw_is_named(name: str) -> None:
    game = get_game(name)
    final = final_log(name)
    for v in viewers(game):
        mine = log.redact_log(final[:-1], v)
        i, j, path = find_card(final, mine, visible=True, min_seq=1)
        bad = copy.deepcopy(final)
        put(bad[i]["events"][j], path, other_card(get(bad[i]["events"][j], path)))
        reseal(bad, salt_of(final), i)
        got = corrupt(lambda b=bad, m=mine: log.check_copy(m, b))
        assert got.seq == i - 1 and got.reason == (
            "the final log's entry is not the one you were shown: other events than the ones "
            "you were shown; another hash than you were sent (so not the entry you received, "
            "hidden cards too)"
        )
        # the time of an entry: no rule sees it, the hash does
        bad = copy.deepcopy(final)
        bad[i]["at_ms"] += 1
        if i + 1 < len(bad) - 1 and bad[i + 1]["at_ms"] < bad[i]["at_ms"]:
            bad[i + 1]["at_ms"] = bad[i]["at_ms"]
        reseal(bad, salt_of(final), i)
        log.verify(bad)  # the final log alone cannot tell
        got = corrupt(lambda b=bad, m=mine: log.check_copy(m, b))
        assert got.seq == i - 1 and got.reason.startswith(
            "the final log's entry is not the one you were shown: "
            f"at_ms {bad[i]['at_ms']} (yours {final[i]['at_ms']}); another hash"
        )


@pytest.mark.parametrize("name", NAMES)
def test_a_changed_card_the_viewer_did_not_see_is_caught_by_its_hash(name: str) -> None:
    game = get_game(name)
    final = final_log(name)
    for v in viewers(game):
        mine = log.redact_log(final[:-1], v)
        i, j, path = find_card(final, mine, visible=False)
        bad = copy.deepcopy(final)
        put(bad[i]["events"][j], path, other_card(get(bad[i]["events"][j], path)))
        # left with its old hash, the final log fails its keyed hash ...
        got = corrupt(lambda b=bad, m=mine: log.check_copy(m, b))
        assert got.seq == i - 1 and got.reason.startswith("the final log is invalid: hash mismatch")
        # ... re-hashed with the salt, its hash is not the one the viewer holds
        reseal(bad, salt_of(final), i)
        got = corrupt(lambda b=bad, m=mine: log.check_copy(m, b))
        assert (got.seq, got.reason) == (
            i - 1,
            "the final log's entry is not the one you were shown: another hash than you were "
            "sent (so not the entry you received, hidden cards too)",
        )
        # the receipts of that one entry are enough
        receipts = receipts_of(mine, v, range(i - 1, i))
        got = corrupt(lambda b=bad, r=receipts: log.check_copy(r, b))
        assert got.seq == i - 1


def renumber(lines: Lines) -> Lines:
    for seq, line in enumerate(lines[1:-1]):
        line["seq"] = seq
    lines[-1]["seq"] = len(lines) - 2
    return lines


@pytest.mark.parametrize("name", NAMES)
def test_a_dropped_inserted_or_reordered_entry_is_caught(name: str) -> None:
    final = final_log(name)
    salt = salt_of(final)
    mine = log.redact_log(final[:-1], 0)
    k = len(final) // 2
    while final[k]["events"] == final[k + 1]["events"]:
        k += 1
    dropped = copy.deepcopy(final)
    del dropped[k]
    inserted = copy.deepcopy(final)
    inserted.insert(k, copy.deepcopy(final[k]))
    swapped = copy.deepcopy(final)
    swapped[k], swapped[k + 1] = swapped[k + 1], swapped[k]
    for bad in (dropped, inserted, swapped):
        corrupt(lambda b=bad: log.check_copy(mine, b))
        resealed = reseal(renumber(copy.deepcopy(bad)), salt)
        got = corrupt(lambda b=resealed: log.check_copy(mine, b))
        assert got.seq in (k - 1, k), got


@pytest.mark.parametrize("name", NAMES)
def test_a_copy_or_receipts_that_are_not_one_chain_are_caught(name: str) -> None:
    final = final_log(name)
    mine = log.redact_log(final[:-1], SPECTATOR)
    broken = copy.deepcopy(mine)
    broken[5]["prev"] = "0" * 64
    got = corrupt(lambda: log.check_copy(broken, final))
    assert got.seq == 4 and got.reason.startswith("your copy is not consistent")
    assert corrupt(lambda: log.verify(broken)).seq == 4
    # receipts: any order, repeats, gaps; but one chain where they are consecutive
    receipts = receipts_of(mine, SPECTATOR, iter([7, 2, 3, 3, 8, 9]))
    assert log.check_copy(receipts, final).entries == 5
    assert log.check_copy(receipts, final).source == "receipts"
    unlinked = copy.deepcopy(receipts)
    unlinked[-1]["prev"] = "1" * 64  # seq 9
    got = corrupt(lambda: log.check_copy(unlinked, final))
    assert got.seq == 9 and "your receipts is not one chain" in got.reason
    twice = copy.deepcopy(receipts)
    twice[4]["at_ms"] += 1  # the second receipt of seq 3
    got = corrupt(lambda: log.check_copy(twice, final))
    assert got.seq == 3 and got.reason == "you were shown two different versions of this entry"
    other_game = copy.deepcopy(receipts)
    other_game[0]["game_id"] = "elsewhere"
    assert corrupt(lambda: log.check_copy(other_game, final)).seq is None
    nohash = copy.deepcopy(receipts)
    del nohash[1]["hash"]
    assert corrupt(lambda: log.check_copy(nohash, final)).seq == 7
    with pytest.raises(ValueError, match="these are the spectator's receipts"):
        log.check_copy(receipts, final, viewer=0)


# --------------------------------------------------------------------------- properties


SMALL = ("speed", "palace")


@functools.cache
def _small(name: str) -> tuple[str, tuple[str, ...]]:
    final = final_log(name)
    copies = tuple(
        log.dumps(log.redact_log(final[:-1], v)).decode() for v in viewers(get_game(name))
    )
    return log.dumps(final).decode(), copies


def mutate(data: st.DataObject, lines: Lines) -> tuple[Lines, int, str | None]:
    """One change to one field of one line (or two lines swapped): (lines, the first line
    index changed, the top-level key changed)."""
    if data.draw(st.integers(0, 9), label="swap") == 0:
        i, j = sorted(
            data.draw(st.lists(st.integers(0, len(lines) - 1), min_size=2, max_size=2, unique=True))
        )
        lines[i], lines[j] = lines[j], lines[i]
        return lines, i, None
    i = data.draw(st.integers(0, len(lines) - 1), label="line")
    target: Any = lines[i]
    top: str | None = None
    while True:
        keys = list(range(len(target))) if isinstance(target, list) else sorted(target)
        if not keys:
            return lines, i, top  # an empty container: nothing to change (assume below)
        key = data.draw(st.sampled_from(keys), label="key")
        if top is None:
            top = str(key)
        inner = target[key]
        if isinstance(inner, dict | list) and inner and data.draw(st.booleans(), label="deeper"):
            target = inner
            continue
        break
    value = target[key]
    op = data.draw(st.sampled_from(["drop", "change"]), label="op")
    if op == "drop":
        del target[key]
    elif type(value) is int:
        target[key] = value + data.draw(st.sampled_from([1, -1]), label="by")
    elif type(value) is bool:
        target[key] = not value
    elif value is None:
        target[key] = 0
    elif isinstance(value, str):
        target[key] = data.draw(
            st.sampled_from(
                [value + "x", value[:-1], "??", other_card(value) if value in CARD_TEXTS else "AS"]
            ),
            label="text",
        )
    elif isinstance(value, list):
        target[key] = [*value, *value[:1]] if value else [0]
    else:
        target[key] = {}
    return lines, i, top


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_single_change_to_a_final_log_is_detected(data: st.DataObject) -> None:
    """Whatever one change a host makes to the final log — re-hashed with the salt or not — the
    final log fails to verify, or some viewer's copy no longer matches it."""
    name = data.draw(st.sampled_from(SMALL), label="game")
    text, copies = _small(name)
    original = log.loads(text)
    bad, i, top = mutate(data, log.loads(text))
    sealed = data.draw(st.booleans(), label="resealed")
    if sealed:
        assume(top not in ("hash", "prev"))  # re-hashing puts those back
        reseal(bad, salt_of(original), i)
    assume(bad != original)
    try:
        log.verify(bad)
    except CorruptLog:
        return
    for mine in copies:
        try:
            log.check_copy(log.loads(mine), bad)
        except ValueError:  # CorruptLog, or a final log without its end line
            return
    raise AssertionError(f"undetected: line {i}, {top}, resealed {sealed}")


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_change_to_a_copy_is_a_verdict_never_a_crash(data: st.DataObject) -> None:
    """verify, check_copy and the CLI answer any copy, however damaged: a report (exit 3), a
    CorruptLog (exit 1) or a usage error (exit 2) — never another exception."""
    name = data.draw(st.sampled_from(SMALL), label="game")
    text, copies = _small(name)
    mine = log.loads(data.draw(st.sampled_from(copies), label="copy"))
    k = data.draw(st.integers(2, len(mine)), label="k")
    bad, _, _ = mutate(data, mine[:k])
    try:
        log.verify(bad)
    except CorruptLog:
        pass
    try:
        log.check_copy(bad, log.loads(text))
    except ValueError:
        pass
    out = io.StringIO()
    for argv in (["verify", "-"], ["replay", "-"]):
        stdin = io.TextIOWrapper(io.BytesIO(log.dumps(bad)))
        saved, sys.stdin = sys.stdin, stdin
        try:
            assert main(argv, out) in (0, 1, 2, 3)
        finally:
            sys.stdin = saved


def test_verify_of_any_line_never_crashes() -> None:
    final = final_log("speed")
    mine = log.redact_log(final[:10], 0)
    for junk in (None, 0, "x", [], [1], {"kind": 3}, {"type": "entry"}, "??", {"kind": "Dealt"}):
        for lines in (mine, final[:10], [*final[:10], final[-1]]):
            for i in range(len(lines)):
                for key in lines[i]:
                    bad = copy.deepcopy(lines)
                    bad[i][key] = junk
                    try:
                        log.verify(bad)
                    except CorruptLog:
                        pass


@pytest.mark.parametrize("game", registry.GAMES, ids=[g.name for g in registry.GAMES])
def test_a_whole_copy_with_its_end_settles_the_game(game: AnyGame) -> None:
    """Every entry a viewer was shown, and the end line it was sent (seed and salt revealed):
    the game is rebuilt from the seed and the actions, and every hash the viewer holds and
    every event it was shown is checked — no final log from the server is needed. A copy the
    server lied in (an event shown, an entry's hash) is named at its seq."""
    match = Match(game, game.make_setup(2, 77), game_id="g")
    play_out(match, seat_bots("reaction", 2, 77))
    assert match.writer is not None
    lines = match.writer.lines
    for viewer in (0, 1, Role.SPECTATOR):
        own = [*log.redact_log(lines[:-1], viewer), lines[-1]]
        report = log.verify(own)
        assert report.revealed and report.copy == log.viewer_text(viewer)
        assert report.outcome == match.outcome and report.entries == len(lines) - 2
    own = [dict(line) for line in [*log.redact_log(lines[:-1], 0), lines[-1]]]
    k = len(own) // 2
    lied = [dict(line) for line in own]
    lied[k]["hash"] = "0" * 64
    with pytest.raises(CorruptLog) as caught:
        log.verify(lied)
    assert caught.value.seq == k - 1  # entry seq k-1 is line k (line 0 is the header)
    lied = [dict(line) for line in own]
    lied[1] = {**lied[1], "events": [{"kind": "Nonsense"}]}
    with pytest.raises(CorruptLog) as caught:
        log.verify(lied)
    assert caught.value.seq == 0
