"""Bots as separate programs (cardcore.arena, docs/bots.md#the-protocol): whole games between a
program and an in-process bot through the referee, in Python and in Node; the three faulty
programs of examples/bots (one crashes, one sleeps past its deadline, one prints garbage): the
game goes on to its end, the faults say what happened, and the log verifies. Then the
protocol's pieces: the messages, the answers it refuses, the bounded reader, the specs."""

from __future__ import annotations

import io
import json
import queue
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from cardcore.arena import ProcessBot, close_bots, load_bot, protocol
from cardcore.arena.process import _read_lines
from cardcore.bots import Legal, RandomBot, ReactionBot, bot_seed
from cardcore.engine import Termination
from cardcore.fairness import HUMAN
from cardcore.log import loads, verify
from cardcore.match import Match
from cardcore.referee import BotFault, RefereeResult, play_refereed
from cardcore.registry import get_game

BOTS = Path(__file__).resolve().parents[2] / "examples" / "bots"
PYTHON = sys.executable


def program(name: str, *args: object) -> str:
    """The spec of an example bot, run by this interpreter."""
    return f"cmd:{PYTHON} {BOTS / name} " + " ".join(str(a) for a in args)


def refereed(
    game: str,
    spec: str,
    seed: int,
    *,
    deadline_ms: int = protocol.DEFAULT_DEADLINE_MS,
    bank_ms: int = protocol.DEFAULT_BANK_MS,
) -> tuple[Match[Any, Any, Any, Any, Any], RefereeResult, Any]:
    """A recorded two-seat game, the program ``spec`` at seat 0 against a ReactionBot at seat
    1, refereed under the human model; the log verified."""
    g = get_game(game)
    setup = g.make_setup(2, seed)
    match = Match(g, setup)
    bots = [
        load_bot(
            spec,
            0,
            g,
            setup,
            bot_seed(seed, 0),
            deadline_ms=deadline_ms,
            bank_ms=bank_ms,
            stderr=subprocess.DEVNULL,
        ),
        ReactionBot(1, bot_seed(seed, 1), min_ms=180, max_ms=260),
    ]
    try:
        result = play_refereed(match, bots, HUMAN, seed)
    finally:
        close_bots(bots, match.outcome)
    report = verify(loads(match.dumps()))
    assert report.revealed and report.outcome == match.outcome is not None
    return match, result, bots[0]


@pytest.mark.parametrize("game", ["ratscrew", "palace", "spit"])
def test_a_python_program_plays_a_whole_game(game: str) -> None:
    _, result, bot = refereed(game, program("random_bot.py"), 3)
    assert not result.faults and not result.stalled and result.actions > 10
    assert bot.name == "random_bot.py"


def test_a_game_against_a_program_is_a_function_of_its_seeds() -> None:
    """The program draws from the seed its hello carries; the referee's clock is not the
    wall's: the same seeds, the same log, byte for byte."""
    logs = {refereed("speed", program("random_bot.py"), 8)[0].dumps() for _ in range(2)}
    assert len(logs) == 1


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed: no Node bot")
@pytest.mark.parametrize("game", ["slapjack", "palace"])
def test_the_node_bot_plays_a_whole_game(game: str) -> None:
    _, result, bot = refereed(game, f"cmd:node {BOTS / 'node_bot.js'}", 4)
    assert not result.faults and not result.stalled
    assert bot.name == "node_bot.js"


def test_a_bot_that_crashes_is_forfeited_and_the_game_ends() -> None:
    match, result, _ = refereed("ratscrew", program("crash_bot.py", 5), 5)
    (fault,) = result.faults
    assert (fault.seat, fault.kind, fault.action) == (0, "crash", "forfeit")
    assert fault.detail == "exited with code 3"
    assert result.forfeited == (0,)
    assert match.outcome is not None and match.outcome.termination is Termination.RESIGNED


def test_a_bot_that_sleeps_past_its_deadline_times_out_and_the_game_goes_on() -> None:
    """It answers its first two decisions at once, then sleeps 400 ms each time: the first such
    decision spends its 100 ms and 300 of its 500 ms bank, the next finds 200 ms left and is
    lost (its answer comes late and is dropped), and so on until nobody acts but it."""
    start = time.monotonic()
    match, result, bot = refereed(
        "ratscrew", program("slow_bot.py", 3, 400), 5, deadline_ms=100, bank_ms=500
    )
    assert time.monotonic() - start < 10
    assert result.faults and {f.kind for f in result.faults} == {"timeout"}
    assert all(f.seat == 0 for f in result.faults)
    assert result.faults[-1].action == "forfeit" and result.forfeited == (0,)
    assert bot.bank_ms == 0
    assert match.outcome is not None


def test_a_bot_that_prints_garbage_loses_those_decisions_and_plays_on() -> None:
    """Spit: every fourth answer is garbage of another kind; the other seat always has a play,
    so each is a pass until the one nobody else could act on."""
    match, result, _ = refereed("spit", program("garbage_bot.py", 4), 1)
    faults = result.faults
    assert {f.kind for f in faults} == {"garbage"} and len(faults) >= 5
    assert all(f.action == "pass" for f in faults[:-1])
    details = " / ".join(f.detail for f in faults)
    for said in ("not a JSON line", "not a JSON object", "not a spit command", "index 999",
                 "longer than 65536 bytes"):  # fmt: skip
        assert said in details
    assert match.outcome is not None


def test_a_program_that_is_never_ready_or_not_there_is_a_crash() -> None:
    g = get_game("speed")
    setup = g.make_setup(2, 1)
    legal = Legal(("x",), (True,))
    quiet = [PYTHON, "-c", "import time; time.sleep(30)"]
    with ProcessBot(0, quiet, g, setup, ready_ms=300) as bot:
        start = time.monotonic()
        with pytest.raises(BotFault, match="no ready within 300 ms") as caught:
            bot.propose(None, legal)
        assert caught.value.kind == "crash" and time.monotonic() - start < 3
    with ProcessBot(0, ["/no/such/bot"], g, setup) as bot:
        with pytest.raises(BotFault, match="could not start") as caught:
            bot.propose(None, legal)
        assert caught.value.kind == "crash"


def test_close_stops_a_program_that_ignores_the_end() -> None:
    g = get_game("speed")
    stubborn = [PYTHON, "-c", "import signal, time; time.sleep(30)"]
    bot = ProcessBot(0, stubborn, g, g.make_setup(2, 1))
    process = bot.process
    start = time.monotonic()
    bot.close(grace_ms=100)
    assert process is not None and process.poll() is not None
    assert time.monotonic() - start < 3
    bot.close()  # idempotent


# --------------------------------------------------------------------------- the pieces


def test_hello_names_the_variant_and_never_the_games_seed() -> None:
    g = get_game("palace")
    setup = g.make_setup(3, 123456789)
    hello = protocol.hello(g, setup, 1, seed=42, deadline_ms=200, bank_ms=5000)
    assert hello["setup_hash"] == setup.setup_hash()
    assert hello["setup"] == setup.public_json() and hello["seats"] == 3
    assert hello["seed"] == 42 and "123456789" not in protocol.dumps(hello).decode()
    assert json.loads(protocol.dumps(hello)) == hello


def test_decide_sends_the_seats_view_and_the_legal_texts() -> None:
    g = get_game("palace")
    match = Match(g, g.make_setup(2, 7), record=False)
    commands = tuple(match.legal_commands(0))
    legal = Legal(commands, tuple(g.is_sensible(match.state, 0, c) for c in commands))
    message = protocol.decide(g, 3, match.view(0), legal, deadline_ms=200, bank_ms=4000)
    assert message["legal"] == [g.format_command(c) for c in commands]
    assert message["sensible"] == list(legal.sensible or ())
    assert "??" in json.dumps(message["view"])  # the other hand is hidden


@pytest.mark.parametrize(
    ("message", "said"),
    [
        ({"type": "fold", "id": 1}, 'type is "act" or "pass"'),
        ({"type": "act", "id": 1}, "exactly one of command and index"),
        ({"type": "act", "id": 1, "index": 0, "command": "play"}, "exactly one"),
        ({"type": "act", "id": 1, "index": 2}, "index 2 is not in 0..1"),
        ({"type": "act", "id": 1, "index": True}, "index True"),
        ({"type": "act", "id": 1, "command": 5}, "command must be a string"),
        ({"type": "act", "id": 1, "index": 0, "delay_ms": -1}, "delay_ms"),
        ({"type": "act", "id": 1, "index": 0, "delay_ms": 1.5}, "delay_ms"),
    ],
)
def test_answers_of_the_wrong_shape_are_garbage(message: dict[str, Any], said: str) -> None:
    with pytest.raises(BotFault, match=said) as caught:
        protocol.read_answer(message, ["play", "slap"])
    assert caught.value.kind == "garbage"


def test_good_answers_read() -> None:
    read = protocol.read_answer
    assert read({"type": "pass", "id": 1}, ["play"]) == protocol.Answer(0, None)
    assert read({"type": "act", "id": 1, "index": 1}, ["a", "b"]) == protocol.Answer(0, "b")
    got = read({"type": "act", "id": 1, "command": "slap", "delay_ms": 900}, ["play"])
    assert got == protocol.Answer(900, "slap")
    for bad in (b"[1]", b"nope", b"\xff\xfe", b'"text"'):
        with pytest.raises(BotFault, match="not a JSON"):
            protocol.parse_line(bad)
    with pytest.raises(BotFault, match="integer id"):
        protocol.answer_id({"type": "pass", "id": "1"})


def test_the_reader_bounds_each_line() -> None:
    big = b"x" * (protocol.MAX_LINE_BYTES + 10)
    just = b"y" * protocol.MAX_LINE_BYTES
    lines: queue.Queue[bytes | int] = queue.Queue()
    data = b"one\n" + big + b"\n" + just + b"\n" + just + b"\r\nlast"  # \r is a byte of it
    _read_lines(io.BytesIO(data), lines)
    got = [lines.get_nowait() for _ in range(lines.qsize())]
    assert got == [b"one", 1, just, 1, b"last", 0]  # 1: too long (skipped), 0: the end


def test_a_command_text_that_is_not_legal_is_the_referees_illegal() -> None:
    """A text the game reads but that is not legal now is handed on, and refused by the referee
    as illegal (a pass here: the other seat plays on); a text the game cannot read is garbage."""
    g = get_game("speed")
    setup = g.make_setup(2, 3)
    seen: list[Any] = []

    class Fake(ProcessBot):
        def _answer(self, decision: int, texts: list[str], start: float) -> Any:
            seen.append(texts)
            return protocol.Answer(0, "draw" if decision == 2 else texts[0])

    bot = Fake(0, [PYTHON, str(BOTS / "random_bot.py")], g, setup, stderr=subprocess.DEVNULL)
    match = Match(g, setup)
    try:
        result = play_refereed(match, [bot, RandomBot(1, 2)], HUMAN, 1)
    finally:
        bot.close(match.outcome)
    assert result.faults[0].kind == "illegal" and "Draw" in result.faults[0].detail
    with pytest.raises(BotFault, match="not a speed command") as caught:
        bot._command("fly", ["flip"], Legal(("f",), None))
    assert caught.value.kind == "garbage"


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ("nonsense", "expected cmd:<argv>, module:Class or one of random, reaction"),
        ("cmd:", "cmd: needs a program"),
        ("no.such.module:Bot", "cannot import 'no.such.module'"),
        ("cardcore.bots:NoSuchBot", "has no class 'NoSuchBot'"),
        ("cardcore.bots:Legal", "is not a bot of seat 1"),
    ],
)
def test_a_spec_that_names_no_bot_is_refused(spec: str, said: str) -> None:
    g = get_game("slapjack")
    with pytest.raises(ValueError, match=said):
        load_bot(spec, 1, g, g.make_setup(2, 1), 7)


def test_specs_that_name_python_bots() -> None:
    g = get_game("slapjack")
    setup = g.make_setup(2, 1)
    bot = load_bot("cardcore.bots:RandomBot", 1, g, setup, 7)
    assert isinstance(bot, RandomBot) and bot.seat == 1
    assert isinstance(load_bot("reaction", 0, g, setup, 7), ReactionBot)
