"""The cardcore command line: games, simulate, verify, replay."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from cardcore.cli import DASHED_VALUES, attach_values, main
from cardcore.engine import Role
from cardcore.errors import InvalidPosition
from cardcore.match import Match
from cardcore.registry import get_game


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), out)
    return code, out.getvalue()


def test_games_lists_names_versions_and_flags() -> None:
    code, text = run("games")
    assert code == 0 and "ratscrew (alias ers)" in text and "false_slap_penalty = 1" in text
    code, text = run("games", "--json")
    games = json.loads(text)
    assert games[0]["name"] == "ratscrew" and games[0]["rules_version"]


def test_simulate_json_finishes_every_game() -> None:
    code, text = run("simulate", "ers", "--seats", "3", "--seed", "7", "--games", "40", "--json")
    report = json.loads(text)
    assert code == 0 and report["finished"] == 40 and report["unfinished"] == 0
    assert sum(report["wins_by_seat"].values()) == 40


def test_simulate_logs_are_byte_identical_and_verify(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        code, _ = run(
            "simulate", "ratscrew", "--seats", "2", "--seed", "3", "--games", "5",
            "--rule", "slap_rules=double,sandwich,marriage", "--log-dir", str(d),
        )  # fmt: skip
        assert code == 0
    files = sorted(p.name for p in a.iterdir())
    assert len(files) == 5
    for name in files:
        assert (a / name).read_bytes() == (b / name).read_bytes()
        code, text = run("verify", str(a / name))
        assert code == 0 and text.startswith("valid: ratscrew")


def test_verify_names_the_first_bad_entry(tmp_path: Path) -> None:
    run("simulate", "ratscrew", "--seed", "1", "--games", "1", "--log-dir", str(tmp_path))
    path = next(tmp_path.iterdir())
    lines = path.read_text().splitlines()
    del lines[4]
    path.write_text("\n".join(lines) + "\n")
    code, text = run("verify", str(path))
    assert code == 1 and text.startswith("INVALID at seq 3")


def test_replay_narrates_from_a_viewer(tmp_path: Path) -> None:
    run("simulate", "ratscrew", "--seed", "1", "--games", "1", "--log-dir", str(tmp_path))
    path = next(tmp_path.iterdir())
    code, text = run("replay", str(path), "--as", "1", "--at", "6")
    assert code == 0
    assert "seq 0 +0 ms deal" in text and "seq 7" not in text
    assert "state as seat 1 sees it" in text and "stacks: [[??" in text


def test_replay_at_prints_the_position(tmp_path: Path) -> None:
    """``--at N`` ends with the position in the game's notation: the referee's parses back to
    the replayed state; a seat's hides what the seat may not see."""
    from cardcore import log
    from cardcore.engine import Role
    from cardcore.games import ratscrew

    run("simulate", "ratscrew", "--seed", "1", "--games", "1", "--log-dir", str(tmp_path))
    path = next(tmp_path.iterdir())
    lines = log.loads(path.read_bytes())
    state = [step.state for step in log.replay(lines)][6]
    code, text = run("replay", str(path), "--as", "referee", "--at", "6")
    assert code == 0
    printed = text.split("position: ", 1)[1].splitlines()[0]
    assert printed == ratscrew.GAME.format_position(state, Role.REFEREE)
    parsed = ratscrew.GAME.parse_position(printed, state.setup.rules)
    assert parsed == state._replace(setup=parsed.setup)
    _, seat_text = run("replay", str(path), "--as", "1", "--at", "6")
    assert "position: " + ratscrew.GAME.format_position(state, 1) in seat_text
    assert "??" in seat_text.split("position: ", 1)[1]


def test_bad_rule_is_a_usage_error(capsys: object) -> None:
    code, _ = run("simulate", "ratscrew", "--rule", "false_slap_penalty=-3")
    assert code == 2


def test_a_server_key_may_begin_with_a_dash(tmp_path: Path, capsys: object) -> None:
    """base64url keys begin with "-" one time in 64: ``--server-key -Abc…`` is the key, not a
    missing value (argparse alone says "expected one argument")."""
    run("simulate", "ratscrew", "--seed", "1", "--games", "1", "--log-dir", str(tmp_path))
    path = next(tmp_path.iterdir())
    key = "-" + "A" * 42  # 32 bytes in base64url, unpadded
    code, text = run("verify", "--server-key", key, str(path))
    assert code != 2, text
    assert "expected one argument" not in capsys.readouterr().err  # type: ignore[attr-defined]
    assert attach_values(["verify", "--server-key", key, "x"], DASHED_VALUES) == [
        "verify",
        f"--server-key={key}",
        "x",
    ]
    assert attach_values(["--server-key"], DASHED_VALUES) == ["--server-key"]


# --------------------------------------------------------------------------- issue 21, item 10


def test_a_fixed_seat_count_reads_exactly(capsys: pytest.CaptureFixture[str]) -> None:
    """ "spit takes 2 to 2 seats" read as a slip: a game of one seat count says "exactly", and
    every message and listing says a range one way (engine.seats_phrase)."""
    code, _ = run("simulate", "spit", "--seats", "3")
    assert code == 2 and "spit takes exactly 2 seats, got 3" in capsys.readouterr().err
    code, _ = run("simulate", "ratscrew", "--seats", "9")
    assert code == 2 and "ratscrew takes 2 to 8 seats, got 9" in capsys.readouterr().err
    _, listing = run("games")
    assert "spit — Spit, rules_version" in listing and "2–2" not in listing
    assert next(line for line in listing.splitlines() if line.startswith("spit ")).endswith(
        "exactly 2 seats, real-time"
    )


@pytest.mark.parametrize(("name", "field"), [("ratscrew", 1), ("slapjack", 1), ("palace", 2)])
def test_a_position_of_one_seat_says_how_many_the_game_takes(name: str, field: int) -> None:
    game = get_game(name)
    match = Match(game, game.make_setup(2, 1), game_id=None)
    assert game.format_position is not None and game.parse_position is not None
    fields = game.format_position(match.state, Role.REFEREE).split(" ")
    fields[field] = fields[field].split("/")[0]  # one seat's part of a per-seat field
    with pytest.raises(InvalidPosition, match=r"takes 2 to 8 seats, got 1$"):
        game.parse_position(" ".join(fields), None)
