"""The cardcore command line: games, simulate, verify, replay."""

from __future__ import annotations

import argparse
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from cardcore.cli import DASHED_VALUES, SERVICE_COMMANDS, attach_values, build_parser, main
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
        assert code == 0 and text.startswith("self-consistent, not authenticated: ratscrew")


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
    # the ladder's key too (test_ladder passed a random one: it failed once in 64)
    args = build_parser().parse_args(
        attach_values(["ladder", "verify", "d", "--key", key], DASHED_VALUES)
    )
    assert args.key == key


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


def _options(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.Action]]:
    """Every argument of ``parser`` and of its subcommands, named ``command option``."""
    for action in parser._actions:  # argparse has no public list of its arguments
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                if name not in SERVICE_COMMANDS:  # their own parsers: tests/service/test_cli_serve
                    yield from ((f"{name} {n}", a) for n, a in _options(sub))
        elif not isinstance(action, argparse._HelpAction | argparse._VersionAction):
            yield (action.option_strings or [action.dest])[0], action


def test_every_option_says_what_it_does_and_its_default() -> None:
    """``simulate --help`` listed ``--games GAMES`` and nothing more: every argument has a help
    text, and one whose default is a value (not "off", not "none") shows it."""
    found = dict(_options(build_parser()))
    assert "simulate --games" in found and "replay --at" in found and "verify --as" in found
    for name, action in found.items():
        assert action.help, f"{name} has no help"
        if action.default not in (None, False, []):
            assert "default" in action.help, f"{name} does not show its default"
    text = io.StringIO()
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    sub.choices["simulate"].print_help(text)
    assert "how many games to play (default 100)" in " ".join(text.getvalue().split())


def _a_log(tmp_path: Path) -> Path:
    run("simulate", "ratscrew", "--seed", "1", "--games", "1", "--log-dir", str(tmp_path))
    return next(tmp_path.iterdir())


def test_replay_refuses_a_negative_at(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--at -5`` printed nothing and exited 0."""
    path = _a_log(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        run("replay", str(path), "--at", "-5")
    assert stopped.value.code == 2
    assert "argument --at: must be 0 or more, got -5" in capsys.readouterr().err


def test_replay_refuses_an_at_past_the_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--at`` beyond the last entry printed the whole game as if it were the state asked
    for; it is refused, naming where the log ends (the end line's seq is still accepted)."""
    path = _a_log(tmp_path)
    last = json.loads(path.read_text().splitlines()[-1])["seq"]
    code, text = run("replay", str(path), "--at", str(last + 1))
    err = capsys.readouterr().err
    assert code == 2 and text == ""
    assert err == f"cardcore: --at {last + 1} is past the end of the log: its last seq is {last}\n"
    code, text = run("replay", str(path), "--at", str(last))
    assert code == 0 and "\nend: " in text


def test_replay_refuses_a_seat_the_game_lacks_before_printing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--as 5`` on a two-seat game printed the whole narration, then refused the seat."""
    path = _a_log(tmp_path)
    code, text = run("replay", str(path), "--as", "5")
    assert code == 2 and text == ""
    assert capsys.readouterr().err == "cardcore: no seat 5 in a 2-seat game\n"


def test_replay_of_a_file_that_is_no_log_is_an_invalid_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A first line that is not a header said "unknown game 'None'" (exit 2)."""
    path = tmp_path / "x.jsonl"
    path.write_text('{"type": "entry", "seq": 0}\n')
    code, text = run("replay", str(path))
    assert code == 1 and text == ""
    assert (
        capsys.readouterr().err == "cardcore: invalid log: header: the first line is not a header\n"
    )


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("--games", "-1", "must be 1 or more, got -1"),
        ("--games", "0", "must be 1 or more, got 0"),  # a report of no games answers nothing
        ("--event-limit", "0", "must be 1 or more, got 0"),
        ("--seed", "-1", "must be in [0, 2**64), got -1"),
        ("--games", "many", "not a whole number: 'many'"),
    ],
)
def test_simulate_refuses_counts_out_of_range(
    option: str, value: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--games -1`` played no game and exited 0."""
    with pytest.raises(SystemExit) as stopped:
        run("simulate", "ratscrew", option, value)
    assert stopped.value.code == 2
    assert f"argument {option}: {says}" in capsys.readouterr().err


def test_a_missing_file_is_named_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Python's ``[Errno 2] No such file or directory: '…'`` becomes the file, then why."""
    code, _ = run("replay", str(tmp_path / "nope.jsonl"))
    assert code == 2
    assert (
        capsys.readouterr().err == f"cardcore: {tmp_path}/nope.jsonl: No such file or directory\n"
    )


class _Closed(io.StringIO):
    """Standard output whose reader is gone (``| head``), or a Ctrl-C while writing to it."""

    def __init__(self, error: type[BaseException]) -> None:
        super().__init__()
        self.error = error

    def write(self, _text: str) -> int:
        raise self.error


def test_a_closed_pipe_or_ctrl_c_ends_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``cardcore replay LOG | head`` said "cardcore: [Errno 32] Broken pipe" (exit 2); Ctrl-C
    printed a traceback. Now: silence and 141, as a shell reports a command SIGPIPE stopped;
    "interrupted" and 130 (SIGINT)."""
    path = _a_log(tmp_path)
    assert main(["replay", str(path)], _Closed(BrokenPipeError)) == 141
    assert capsys.readouterr().err == ""
    assert main(["replay", str(path)], _Closed(KeyboardInterrupt)) == 130
    assert capsys.readouterr().err == "cardcore: interrupted\n"


@pytest.mark.parametrize("name", ["palace", "spit"])
def test_replay_writes_each_action_as_a_command_a_player_could_type(
    name: str, tmp_path: Path
) -> None:
    """Issue 21: replay named an action by its kind alone ("seat 0 Play"). It writes the game's
    text syntax (docs/notation.md#commands), which reads back as the logged command."""
    from cardcore import log

    code, _ = run("simulate", name, "--seed", "4", "--games", "1", "--log-dir", str(tmp_path))
    (path,) = tmp_path.glob("*.jsonl")
    code, text = run("replay", str(path))
    assert code == 0
    game = get_game(name)
    lines = log.loads(path.read_bytes())
    states = [step.state for step in log.replay(lines)]
    said = [ln.split(" ms ", 1)[1] for ln in text.splitlines() if ln.startswith("seq ")]
    checked = 0
    for entry, before, words in zip(lines[2:], states, said[1:], strict=False):
        if entry.get("type") != "entry" or entry["seat"] is None:
            continue
        seat, _, command_text = words.partition(": ")
        assert seat == f"seat {entry['seat']}"
        command = game.decode_command(entry["action"], "action")
        assert game.parse_command(before, entry["seat"], command_text) == command, words
        checked += 1
    assert checked > 20
