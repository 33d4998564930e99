"""Saving a match and loading it back to play on (issue 21, item 11).

``match.dumps()`` is the log file's bytes (cardcore does no I/O: the host writes them);
``Match.loads(data, seed=...)`` replays the log into a match in the same state, whose further
play writes the log the original would have written. A match that records no log says so.
"""

from __future__ import annotations

import pytest

from cardcore import log
from cardcore.bots import play_out, seat_bots
from cardcore.errors import CorruptLog
from cardcore.games import palace, ratscrew
from cardcore.match import Match
from cardcore.registry import GAMES
from cardcore.rng import derive_deal_seed

from .bot_play import AnyGame, AnyMatch, play


def half_played(game: AnyGame, seed: int, **kwargs: object) -> AnyMatch:
    match = Match(game, game.make_setup(game.info.min_seats, seed), **kwargs)  # type: ignore[arg-type]
    for _ in play(match, "reaction", seed, 25):
        pass
    assert match.outcome is None
    return match


@pytest.mark.parametrize("game", GAMES, ids=[g.name for g in GAMES])
def test_a_saved_match_loads_and_plays_on_as_the_original(game: AnyGame) -> None:
    match = half_played(game, 3)
    data = match.dumps()
    assert match.writer is not None and data == log.dumps(match.writer.lines)
    loaded = Match.loads(data, seed=3)
    assert (loaded.state, loaded.seq, loaded.last_at_ms) == (
        match.state,
        match.seq,
        match.last_at_ms,
    )
    assert loaded.dumps() == data
    # Both play on alike: the loaded match writes, action for action, the original's log.
    for m in (match, loaded):
        play_out(m, seat_bots("reaction", m.setup.seats, 9), start_ms=m.last_at_ms)
    assert loaded.outcome == match.outcome is not None
    assert loaded.dumps() == match.dumps()
    # A finished log reveals its seed: it loads without one.
    assert Match.loads(match.dumps()).state == match.state


def test_a_match_that_records_no_log_cannot_be_saved() -> None:
    match = Match(ratscrew.GAME, ratscrew.GAME.make_setup(2, 1), record=False)
    with pytest.raises(ValueError, match="record=False"):
        match.dumps()


def test_the_seed_is_asked_for_and_checked() -> None:
    data = half_played(palace.GAME, 5).dumps()
    with pytest.raises(ValueError, match="pass seed="):
        Match.loads(data)
    with pytest.raises(ValueError, match="commitment"):
        Match.loads(data, seed=6)
    with pytest.raises(ValueError, match="commitment"):
        Match.loads(data, seed=5, salt=bytes(16))


def test_an_altered_log_is_refused_at_the_first_altered_line() -> None:
    match = half_played(ratscrew.GAME, 2)
    assert match.writer is not None
    lines = [dict(line) for line in match.writer.lines]
    lines[7] = dict(lines[7], at_ms=lines[7]["at_ms"] + 1)  # a time changed, nothing rehashed
    with pytest.raises(CorruptLog) as info:
        Match.loads(log.dumps(lines), seed=2)
    assert info.value.seq == 6
    lines = [dict(line) for line in match.writer.lines]
    lines[5] = dict(lines[5], seat=1 - lines[5]["seat"])  # another seat: the rules refuse it
    with pytest.raises(CorruptLog) as info:
        Match.loads(log.dumps(lines), seed=2)
    assert info.value.seq == 4
    with pytest.raises(CorruptLog) as info:
        Match.loads(log.dumps(match.writer.lines[:1]), seed=2)  # the header alone
    assert "entry 0" in str(info.value)


def test_a_viewers_copy_is_not_a_match() -> None:
    match = half_played(palace.GAME, 4)
    assert match.writer is not None
    copy = log.redact_log(match.writer.lines, 0)
    with pytest.raises(CorruptLog, match="viewer's copy"):
        Match.loads(log.dumps(copy), seed=4)


def test_a_match_from_a_position_an_aborted_one_and_one_of_format_2_load_too() -> None:
    start = half_played(palace.GAME, 7).state
    from_position = Match.from_position(palace.GAME, start, seed=8, at_ms=500)
    for _ in play(from_position, "reaction", 8, 10):
        pass
    assert Match.loads(from_position.dumps(), seed=8).state == from_position.state

    aborted = half_played(ratscrew.GAME, 1)
    aborted.abort(aborted.last_at_ms + 5, "admin")
    loaded = Match.loads(aborted.dumps())
    assert loaded.outcome == aborted.outcome and loaded.dumps() == aborted.dumps()

    entropy = ((0, bytes(range(16))), (1, bytes(range(16, 32))))
    setup = ratscrew.GAME.make_setup(2, derive_deal_seed(11, entropy))
    served = Match(ratscrew.GAME, setup, server_seed=11, contributions=entropy, salt=bytes(16))
    for _ in play(served, "random", 11, 20):
        pass
    again = Match.loads(served.dumps(), seed=11, salt=bytes(16))
    assert again.state == served.state and again.dumps() == served.dumps()


def test_committed_contributions_are_recorded_checked_and_replayed() -> None:
    """A seat that committed to its entropy before the start: the header records the
    commitment beside the reveal, ``verify`` holds the one to the other, and the log replays
    byte for byte (docs/rng.md, "Committed entropy")."""
    from cardcore.rng import entropy_commitment

    entropy = ((0, bytes(range(16))), (1, bytes(range(16, 32))))
    setup = ratscrew.GAME.make_setup(2, derive_deal_seed(11, entropy))
    served = Match(
        ratscrew.GAME, setup, server_seed=11, contributions=entropy, committed={1}, salt=bytes(16)
    )
    for _ in play(served, "random", 11, 20):
        pass
    served.abort(served.last_at_ms + 5, "admin")
    header = served.writer.lines[0]  # type: ignore[union-attr]
    assert header["contributions"][0] == {"seat": 0, "entropy": bytes(range(16)).hex()}
    assert header["contributions"][1]["commitment"] == entropy_commitment(bytes(range(16, 32)))
    again = Match.loads(served.dumps())
    assert again.dumps() == served.dumps()
    lines = log.loads(served.dumps())
    assert log.verify(lines).committed == (1,)

    for bad in ("0" * 64, 7, None):
        forged = [dict(lines[0]), *lines[1:]]
        forged[0]["contributions"] = [dict(c) for c in header["contributions"]]
        forged[0]["contributions"][1]["commitment"] = bad
        forged[0]["hash"] = log.header_hash(forged[0])
        with pytest.raises(CorruptLog, match="seat 1's revealed entropy does not match"):
            log.verify(forged)
