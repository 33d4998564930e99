"""Logs written under an earlier ``rules_version`` keep verifying and replaying (a version that
only added a command lists the one before in ``GameInfo.replays_versions``). One log per game,
copied here before the version moved on; never regenerated."""

from __future__ import annotations

from pathlib import Path

import pytest

from cardcore import log, registry

LEGACY = sorted((Path(__file__).parent / "legacy").glob("*.jsonl"))


@pytest.mark.parametrize("path", LEGACY, ids=[p.stem for p in LEGACY])
def test_a_log_of_an_earlier_rules_version_verifies(path: Path) -> None:
    lines = log.loads(path.read_bytes())
    game = registry.get_game(str(lines[0]["game"]))
    report = log.verify(lines)
    assert report.revealed and report.outcome is not None
    assert sum(1 for _ in log.replay(lines)) == report.entries
    version = lines[0]["rules_version"]
    assert version == game.info.rules_version or version in game.info.replays_versions


def test_every_game_has_a_legacy_log() -> None:
    assert {p.name.split("-rules-")[0] for p in LEGACY} == {g.info.name for g in registry.GAMES}
