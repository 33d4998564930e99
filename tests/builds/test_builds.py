"""One source, two builds: the compiled engine and the pure one are held identical.

The same seeded playouts (every game, seat counts across its range, rule variants from its flag
schema, reaction and random bots) are written as a transcript by each build in a process of its
own (``CARDCORE_PURE=1`` forces the pure modules): views of every viewer after every step, legal
commands, ``decide``'s answer (events or rejection code and message) to candidates by every seat,
position notations parsed back, the final logs, viewers' copies, receipts checked and verify
reports. The two transcripts must be byte-identical but for the line naming the build, and each
build verifies the logs the other wrote. The golden logs are checked under both builds by
``make test`` (it runs the contract and golden suites again with ``CARDCORE_PURE=1``).

Without a compiled build (``make compiled``) this skips, except under ``CI`` or where
``CARDCORE_REQUIRE_COMPILED`` is set (``make test`` sets it), where it fails: a build that must be
compared is never passed over by a skip.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GAMES_EACH = 6


def _run(*args: str, pure: bool) -> str:
    env = {**os.environ, "CARDCORE_PURE": "1" if pure else ""}
    done = subprocess.run(
        [sys.executable, "-m", "tests.builds.transcript", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _require_compiled() -> None:
    said = _run("build", pure=False).strip()
    if said == "build compiled=True":
        return
    message = f"no compiled build is loaded ({said}): `make compiled` builds it (build/compiled)"
    required = [v for v in ("CI", "CARDCORE_REQUIRE_COMPILED") if os.environ.get(v)]
    if required:
        pytest.fail(f"{message} — {required[0]} is set, so this fails", pytrace=False)
    pytest.skip(message)


def _first_difference(a: list[str], b: list[str]) -> str:
    for n, (x, y) in enumerate(zip(a, b, strict=False), start=1):
        if x != y:
            return f"line {n}:\n  pure:     {x[:400]}\n  compiled: {y[:400]}"
    return f"lengths differ: {len(a)} pure lines, {len(b)} compiled"


@pytest.mark.slow
def test_both_builds_play_verify_and_redact_alike(tmp_path: Path) -> None:
    _require_compiled()
    pure, compiled = tmp_path / "pure", tmp_path / "compiled"
    _run("write", str(pure), "--games", str(GAMES_EACH), pure=True)
    _run("write", str(compiled), "--games", str(GAMES_EACH), pure=False)
    a = (pure / "transcript.txt").read_text(encoding="utf-8").splitlines()
    b = (compiled / "transcript.txt").read_text(encoding="utf-8").splitlines()
    assert (a[0], b[0]) == ("build compiled=False", "build compiled=True")
    assert a[1:] == b[1:], _first_difference(a, b)
    logs = sorted(p.name for p in (pure / "logs").glob("*.jsonl"))
    assert len(logs) >= 3 * 5, f"too few playouts reached a log: {logs}"
    assert len(a) > 100_000, f"a transcript of {len(a)} lines compares too little"
    for p in logs:
        assert (pure / "logs" / p).read_bytes() == (compiled / "logs" / p).read_bytes()
    # Each build verifies the logs the other wrote, with the same reports.
    by_pure = _run("verify", str(compiled / "logs"), pure=True).splitlines()
    by_compiled = _run("verify", str(pure / "logs"), pure=False).splitlines()
    assert len(by_pure) == len(logs) + 1
    assert by_pure[1:] == by_compiled[1:]
    print(f"{len(logs)} playouts, {len(a) - 1} transcript lines compared")  # in the -rA report
