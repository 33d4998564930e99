"""The log writer's shortcuts give the lines, hashes and bytes of the plain definitions.

``LogWriter.record`` assembles each entry's canonical text from the canonical texts of its parts
and hashes it with precomputed HMAC pads; the header and end lines are written the same way.
Here each shortcut is checked against what docs/log-format.md defines: ``hmac.new``, plain
``sha256``, ``codec.canonical_bytes`` of the line, and ``LogWriter.entry`` of the encodings.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardcore import log, registry, rng
from cardcore.bots import play_out, seat_bots
from cardcore.engine import Outcome, Termination
from cardcore.match import Match

GAME = registry.get_game("ratscrew")


def canonical(line: Any) -> bytes:
    return json.dumps(
        line, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode()


def check_lines(writer: log.LogWriter) -> None:
    for i, line in enumerate(writer.lines):
        assert writer.line_bytes(i) == canonical(line), i
        assert writer.line_text(i) == canonical(line).decode()
        # a host's signature signs the hash of a header or end line: it is not hashed
        body = canonical({k: v for k, v in line.items() if k not in ("hash", "signature")})
        if line["type"] == "entry":
            assert line["hash"] == hmac.new(writer._salt, body, hashlib.sha256).hexdigest()
        else:
            assert line["hash"] == hashlib.sha256(body).hexdigest()
    assert log.dumps(writer.lines) == b"".join(
        writer.line_bytes(i) + b"\n" for i in range(len(writer.lines))
    )


@given(st.binary(max_size=100), st.binary(max_size=600))
def test_precomputed_pads_are_hmac_sha256(key: bytes, msg: bytes) -> None:
    inner, outer = (h.copy() for h in log._hmac_pads(key))
    inner.update(msg)
    outer.update(inner.digest())
    assert outer.hexdigest() == hmac.new(key, msg, hashlib.sha256).hexdigest()


@pytest.mark.parametrize("game", registry.GAMES, ids=lambda g: g.name)
def test_every_line_hashes_as_defined(game: Any) -> None:
    seats = game.info.min_seats
    match = Match(game, game.make_setup(seats, 5), game_id='g-"ü"\\1')
    play_out(match, seat_bots("reaction", seats, 5))
    writer = match.writer
    assert writer is not None and match.outcome is not None
    assert writer.lines[0]["setup_hash"] == match.setup.setup_hash()
    check_lines(writer)
    assert writer.line_bytes(-1) == canonical(writer.lines[-1])


@pytest.mark.parametrize("game", registry.GAMES, ids=lambda g: g.name)
def test_lines_built_when_read_are_the_lines_built_as_recorded(game: Any) -> None:
    # A writer builds an entry's object when its lines are first read (late), and from then on
    # as each entry is recorded (early, into the list handed out): the same objects, bytes,
    # hashes, whatever is cut in between.
    seats = game.info.min_seats
    late, early = (Match(game, game.make_setup(seats, 9)) for _ in range(2))
    assert late.writer is not None and early.writer is not None
    held = early.writer.lines
    for match in (late, early):
        play_out(match, seat_bots("reaction", seats, 9))
    n = late.writer.line_count
    assert n == len(held) > 3
    assert late.writer.last_hash == early.writer.last_hash == held[-1]["hash"]
    for i in range(-n, n):
        assert late.writer.line_bytes(i) == early.writer.line_bytes(i) == canonical(held[i])
    for writer in (late.writer, early.writer):
        writer.truncate(n - 2)
    assert late.writer.line_count == n - 2 and late.writer.last_hash == held[-1]["hash"]
    assert json.dumps(late.writer.lines) == json.dumps(early.writer.lines) == json.dumps(held)
    check_lines(late.writer)


@pytest.mark.parametrize("signed", [False, True])
def test_header_and_end_bytes_of_every_kind(signed: bool) -> None:
    # The header and end line are written from texts made once (format 2's contributions, a
    # start position, a host's signature added afterwards): the bytes are the codec's.
    contributions = [(1, b"\x01" * 16), (0, bytes(range(16)))]
    server_seed = 77
    setup = GAME.make_setup(2, rng.derive_deal_seed(server_seed, contributions))
    writer = log.LogWriter(
        GAME,
        setup,
        b"s" * 16,
        "g-\u00fc",
        position='p "1"',
        server_seed=server_seed,
        contributions=contributions,
        committed={1},
        sign=(lambda h: {"key": "k", "sig": h[::-1]}) if signed else None,
    )
    writer.record(0, 0, None, None, GAME.deal(setup))
    writer.end(1, Outcome(Termination.ABORTED))
    assert writer.lines[0]["format"] == 2 and "position" in writer.lines[0]
    assert ("signature" in writer.lines[0]) is signed
    check_lines(writer)


def steps(match: Match[Any, Any, Any, Any, Any], n: int) -> None:
    """``n`` actions (fewer if the game ends) of a random chooser, as the engine bench plays."""
    rng = random.Random(n)
    seats = match.setup.seats
    for _ in range(n):
        if match.outcome is not None:
            return
        options = [(s, c) for s in range(seats) for c in match.legal_commands(s)]
        seat, command = rng.choice(options)
        match.submit(seat, command, match.last_at_ms + rng.randrange(0, 90))


@pytest.mark.parametrize("game", registry.GAMES, ids=lambda g: g.name)
def test_entry_of_encodings_is_record(game: Any) -> None:
    match = Match(game, game.make_setup(game.info.min_seats, 9), salt=bytes(range(16)))
    steps(match, 150)
    typed = match.writer
    assert typed is not None
    plain = log.LogWriter(game, match.setup, bytes(range(16)), None)
    for line in typed.lines[1:]:
        if line["type"] == "entry":
            plain.entry(line["seq"], line["at_ms"], line["seat"], line["action"], line["events"])
    assert plain.lines == [line for line in typed.lines if line["type"] != "end"]
    check_lines(typed)
    check_lines(plain)


@dataclass(frozen=True, slots=True)
class Odd:
    note: str
    amount: Any


def test_record_of_odd_values_is_still_canonical() -> None:
    writer = log.LogWriter(GAME, GAME.make_setup(2, 1), bytes(16), "\u2028 \x00 \ud7ff")
    writer.record(0, 2**70, None, None, [])
    writer.record(1, True, False, Odd('"\\\n\u00e9', 2**70), [Odd("\ud7ff", True)] * 3)
    writer.record(2, 5, 1, Odd("", None), [Odd("x", [1, (2, "3")]), Odd("y", {"b": 1, "a": 2})])
    writer.end(3, Outcome(Termination.EVENT_LIMIT))
    check_lines(writer)


def test_a_value_that_does_not_encode_appends_nothing() -> None:
    match = Match(GAME, GAME.make_setup(2, 3))
    writer = match.writer
    assert writer is not None
    before = list(writer.lines)
    with pytest.raises(TypeError):
        writer.record(1, 1, 0, Odd("float", 1.5), [])
    with pytest.raises(TypeError):
        writer.record(1, 1, 0, Odd("ok", 1), [Odd("ok", 2), Odd("float", 0.5)])
    assert writer.lines == before
    check_lines(writer)


def test_lines_cut_or_added_from_outside_keep_their_bytes() -> None:
    match = Match(GAME, GAME.make_setup(3, 4))
    steps(match, 30)
    writer = match.writer
    assert writer is not None
    del writer.lines[10:]
    assert writer.line_bytes(9) == canonical(writer.lines[9])
    added = dict(writer.lines[9], seq=10, prev=writer.lines[9]["hash"])
    del added["hash"]
    added["hash"] = hmac.new(writer._salt, canonical(added), hashlib.sha256).hexdigest()
    writer.lines.append(added)
    writer.record(11, 99, 1, None, [])  # links to the line added from outside
    check_lines(writer)
    writer.truncate(5)
    assert len(writer.lines) == 5
    check_lines(writer)
