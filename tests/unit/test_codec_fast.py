"""The log's one-pass encoders give exactly what the generic path gives.

The log writer encodes each command and event once into its JSON value *and* its canonical text
(:func:`cardcore.codec.encode_with_text`), hashes the line from those texts and keeps the line's
canonical bytes (:meth:`cardcore.log.LogWriter.line_bytes`). Golden logs pin the bytes for a few
games; here every line, command and event of random playouts of every registered game is checked
against ``json.dumps`` of the generic encoding, and canonical JSON against ``json.dumps`` for
arbitrary JSON values (escapes, non-ASCII, nesting).
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from cardcore import codec, registry
from cardcore.log import verify
from cardcore.match import Match


def reference(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def playout(game: Any, seats: int, seed: int, steps: int) -> Match[Any, Any, Any, Any, Any]:
    match = Match(game, game.make_setup(seats, seed))
    rng = random.Random(seed)
    at = 0
    for _ in range(steps):
        if match.outcome is not None:
            break
        options = [(s, c) for s in range(seats) for c in game.legal_commands(match.state, s)]
        if not options:
            break
        seat, command = rng.choice(options)
        at += rng.randrange(0, 400)
        events = match.submit(seat, command, at)
        for value in (command, *events):
            plain = codec.encode(value)
            assert codec.encode_with_text(value) == (plain, reference(plain))
            assert codec.canonical_text_of(value) == reference(plain)
    return match


def test_every_line_of_every_game_is_the_generic_encoding() -> None:
    for game in registry.GAMES:
        for seats in sorted({game.info.min_seats, min(game.info.max_seats, 4)}):
            for seed in range(3):
                match = playout(game, seats, seed, 300)
                writer = match.writer
                assert writer is not None
                for i, line in enumerate(writer.lines):
                    assert writer.line_bytes(i) == reference(line).encode(), (game.info.name, i)
                report = verify(writer.lines)  # raises on a bad hash or a re-decided mismatch
                assert report.entries == match.seq, game.info.name


def test_a_rewound_writer_keeps_bytes_in_step() -> None:
    game = registry.GAMES[0]
    match = playout(game, 2, 1, 40)
    assert match.outcome is None
    cp = match.checkpoint()
    kept = len(match.writer.lines) if match.writer else 0
    seat = next(s for s in range(2) if game.legal_commands(match.state, s))
    match.submit(seat, game.legal_commands(match.state, seat)[0], match.last_at_ms)
    match.rewind(cp)
    writer = match.writer
    assert writer is not None and len(writer.lines) == kept
    for i, line in enumerate(writer.lines):
        assert writer.line_bytes(i) == reference(line).encode()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(json_values)
def test_canonical_text_is_json_dumps(value: Any) -> None:
    assert codec.canonical_text(value) == reference(value)
    assert codec.canonical_bytes(value) == reference(value).encode()
