"""Import time: ``import cardcore`` next to ``import msgspec`` (a compiled library of about the
same reach) measured in the same run, each in a fresh interpreter (issue 10: at most msgspec's
time + 20 ms).

Whole processes, run in turn (A B A B ...) so that a machine whose speed drifts slows both alike;
the medians are quoted and the difference and ratio are of those medians. ``python -c pass`` is
measured too: what is left after subtracting it is the import itself. Also
``cardcore.get_game("ers")`` (the first use: one game module) and ``cardcore.GAMES`` (all five).
Never asserted (shared, noisy machines); printed in the summary and stored in ``extra_info``.
Run alone as a script too: ``python benchmarks/test_import.py [runs]``.

Both sides run from cached bytecode, as installed packages do (pip compiles them on install):
with ``PYTHONDONTWRITEBYTECODE`` set, as in some dev shells, a checkout's modules would be
compiled from source on every run (about 10 ms per game module) while msgspec's ``.pyc`` files
sit in site-packages. So the children get a private ``PYTHONPYCACHEPREFIX`` (nothing is written
into the source tree) and the warm-up run fills it.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

import pytest

COMMANDS: dict[str, str] = {
    "python -c pass": "pass",
    "import msgspec": "import msgspec",
    "import cardcore": "import cardcore",
    "import cardcore; get_game('ers')": "import cardcore; cardcore.get_game('ers')",
    "import cardcore; GAMES": "import cardcore; cardcore.GAMES",
}


def run_once(code: str, env: dict[str, str]) -> float:
    """Wall seconds of one fresh interpreter running ``code`` (site-packages and all, as a
    user's ``python -c`` would)."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
    return time.perf_counter() - started


def measure(runs: int = 11) -> dict[str, float]:
    """Median milliseconds of each command over ``runs`` interleaved rounds (one warm-up)."""
    with tempfile.TemporaryDirectory(prefix="cardcore-pyc-") as pyc:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = pyc
        for code in COMMANDS.values():
            run_once(code, env)  # warm the page cache and write the .pyc files
        times: dict[str, list[float]] = {name: [] for name in COMMANDS}
        for _ in range(runs):
            for name, code in COMMANDS.items():
                times[name].append(run_once(code, env))
    return {name: statistics.median(t) * 1000 for name, t in times.items()}


def report(ms: dict[str, float]) -> dict[str, float]:
    """The figures to quote: medians, the import alone (minus ``pass``), and cardcore vs msgspec."""
    bare = ms["python -c pass"]
    out = {f"{name} (ms, whole process)": value for name, value in ms.items()}
    out["import msgspec alone (ms)"] = ms["import msgspec"] - bare
    out["import cardcore alone (ms)"] = ms["import cardcore"] - bare
    out["import cardcore - import msgspec (ms; target <= 20)"] = (
        ms["import cardcore"] - ms["import msgspec"]
    )
    out["import cardcore / import msgspec (whole process)"] = (
        ms["import cardcore"] / ms["import msgspec"]
    )
    out["get_game('ers') - import msgspec (ms)"] = (
        ms["import cardcore; get_game('ers')"] - ms["import msgspec"]
    )
    return out


def test_import_time(benchmark: Any, import_figures: dict[str, float]) -> None:
    pytest.importorskip("msgspec")
    figures = report(benchmark.pedantic(measure, rounds=1, iterations=1))
    benchmark.extra_info.update(figures)
    import_figures.update(figures)


if __name__ == "__main__":
    for name, value in report(measure(int(sys.argv[1]) if len(sys.argv) > 1 else 11)).items():
        print(f"{name:<56} {value:>9.2f}")
