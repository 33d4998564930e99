"""The host's abort (docs/games/common.md#leaving-a-game): an entry with no seat, then the end
``ABORTED``; it verifies and replays like any log, and nothing can follow it."""

from __future__ import annotations

import pytest

from cardcore import log, registry
from cardcore.engine import Outcome, Termination
from cardcore.errors import CorruptLog, Rejected
from cardcore.match import Match


@pytest.mark.parametrize("name", [g.info.name for g in registry.GAMES])
def test_an_aborted_game_verifies_and_replays(name: str) -> None:
    game = registry.get_game(name)
    match = Match(game, game.make_setup(game.info.min_seats, 7), game_id="g")
    for at in range(1, 4):  # a few moves first, so the abort lands mid-game
        legal = [c for s in range(match.setup.seats) for c in match.legal_commands(s)[:1]]
        if match.outcome is not None or not legal:
            break
        seat = next(s for s in range(match.setup.seats) if match.legal_commands(s))
        match.submit(seat, match.legal_commands(seat)[0], at * 10)
    assert match.outcome is None
    match.abort(100, "creator")
    assert match.outcome == Outcome(Termination.ABORTED)
    assert match.writer is not None
    lines = log.loads(log.dumps(match.writer.lines))
    entry, end = lines[-2], lines[-1]
    assert entry["seat"] is None and entry["action"] == {"kind": "Abort", "by": "creator"}
    assert entry["events"] == [] and end["outcome"]["termination"] == "aborted"
    report = log.verify(lines)
    assert report.outcome == Outcome(Termination.ABORTED) and report.revealed
    steps = list(log.replay(lines))
    assert steps[-1].command is None and steps[-1].state == match.state
    with pytest.raises(Rejected):
        match.abort(200, "admin")


def test_a_forged_host_entry_is_refused() -> None:
    game = registry.get_game("speed")
    match = Match(game, game.make_setup(2, 3), game_id="g")
    match.abort(5, "admin")
    assert match.writer is not None
    lines = [dict(line) for line in match.writer.lines]
    forged = {**lines[-2], "action": {"kind": "Abort", "by": "admin", "x": 1}}
    with pytest.raises(CorruptLog, match="hash mismatch"):
        log.verify([*lines[:-2], forged, lines[-1]])
    with pytest.raises(CorruptLog, match="host's abort"):  # a copy before the end: no hashes
        log.verify([*lines[:-2], forged])
    with pytest.raises(CorruptLog, match="no end line"):
        log.verify(lines[:-1])
    with pytest.raises(ValueError):
        Match(game, game.make_setup(2, 3)).abort(5, "")


def test_an_earlier_rules_version_still_verifies() -> None:
    """A version that only added a command lists the one before in ``replays_versions``: logs
    written under it keep verifying, and a host re-records a game started under it."""
    game = registry.get_game("spit")
    old = game.info.replays_versions
    if not old:
        pytest.skip("spit has no earlier rules version")
    match = Match(game, game.make_setup(2, 3), game_id="g", rules_version=old[0])
    match.abort(5, "admin")
    assert match.writer is not None
    assert match.writer.lines[0]["rules_version"] == old[0]
    assert log.verify(match.writer.lines).outcome == Outcome(Termination.ABORTED)
    with pytest.raises(ValueError):
        Match(game, game.make_setup(2, 3), rules_version="no-such-version")


def test_the_cli_names_the_hosts_abort(
    tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    from pathlib import Path

    from cardcore.cli import main

    game = registry.get_game("ratscrew")
    match = Match(game, game.make_setup(2, 5), game_id="g")
    match.submit(0, match.legal_commands(0)[0], 5)
    match.abort(9, "admin")
    assert match.writer is not None
    path = Path(str(tmp_path)) / "aborted.jsonl"
    path.write_bytes(log.dumps(match.writer.lines))
    assert main(["verify", str(path)]) == 0
    assert "aborted" in capsys.readouterr().out
    assert main(["replay", "--as", "1", str(path)]) == 0
    out = capsys.readouterr().out
    assert "seq 2 +9 ms aborted by the host (admin)" in out and '"termination":"aborted"' in out
