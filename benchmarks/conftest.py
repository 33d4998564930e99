"""Collects throughput figures from the benchmarks and prints them with their ratio to the
bare-loop baseline measured in the same run (never asserted: machines are shared and noisy)."""

from __future__ import annotations

from typing import Any

import pytest

FIGURES: dict[str, float] = {}
IMPORT_FIGURES: dict[str, float] = {}
"""Import times (test_import.py): milliseconds and a cardcore/msgspec ratio, not throughputs, so
printed apart from the bare-loop ratios."""


@pytest.fixture
def figures() -> dict[str, float]:
    return FIGURES


@pytest.fixture
def import_figures() -> dict[str, float]:
    return IMPORT_FIGURES


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if IMPORT_FIGURES:
        terminalreporter.section("cardcore import time (same run, fresh interpreters)")
        for name, value in IMPORT_FIGURES.items():
            terminalreporter.write_line(f"{name:<56} {value:>9.2f}")
    if not FIGURES:
        return
    base = FIGURES.get("bare War loop steps/s")
    terminalreporter.section("cardcore throughput (same run)")
    for name, value in FIGURES.items():
        ratio = f"  ({value / base:.3f}× bare loop)" if base and "bare" not in name else ""
        terminalreporter.write_line(f"{name:<48} {value:>12,.0f}{ratio}")
