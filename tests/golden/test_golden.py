"""Golden logs catch any unintended rule change: regenerated games must match byte for byte,
under two hash seeds (so no set or dict iteration order leaks into a game)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cardcore import log

from .presets import PRESETS, Preset
from .render import build, paths

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("preset", PRESETS, ids=[p.stem for p in PRESETS])
def test_golden_log_and_render_match(preset: Preset) -> None:
    log_path, render_path = paths(preset)
    assert log_path.exists(), f"missing {log_path}: run `make golden`"
    log_bytes, render_bytes = build(preset)
    assert log_bytes == log_path.read_bytes(), "log differs: a rule change? (`make golden`)"
    assert render_bytes == render_path.read_bytes()
    report = log.verify(log.loads(log_bytes))
    assert report.revealed


CHECK = """
import sys
from tests.golden.presets import PRESETS
from tests.golden.render import build, paths
bad = [p.stem for p in PRESETS if build(p)[0] != paths(p)[0].read_bytes()]
print(bad)
sys.exit(1 if bad else 0)
"""


@pytest.mark.parametrize("hashseed", ["0", "4242"])
def test_golden_logs_independent_of_hash_seed(hashseed: str) -> None:
    env = dict(os.environ, PYTHONHASHSEED=hashseed)
    result = subprocess.run(
        [sys.executable, "-c", CHECK],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
