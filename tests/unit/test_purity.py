"""The core stays pure: no clock, no global RNG, no OS entropy, no I/O (design.md §1).

Only ``cardcore/cli.py`` — the command-line front end — may touch files, the terminal and a clock.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[2] / "cardcore"
FORBIDDEN_MODULES = {
    "random", "time", "datetime", "secrets", "os", "socket", "subprocess", "pathlib", "uuid",
    "threading", "asyncio", "io", "shutil", "tempfile", "urllib", "http",
}  # fmt: skip
FORBIDDEN_CALLS = {"open", "input", "print", "exec", "eval", "__import__"}
IMPURE_ALLOWED = {"cli.py"}

modules = sorted(p for p in CORE.rglob("*.py") if p.name not in IMPURE_ALLOWED)


@pytest.mark.parametrize("path", modules, ids=[str(p.relative_to(CORE)) for p in modules])
def test_core_module_is_pure(path: Path) -> None:
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module.split(".")[0]]
        else:
            names = []
        for name in names:
            assert name not in FORBIDDEN_MODULES, f"{path.name} imports {name}"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in FORBIDDEN_CALLS, f"{path.name} calls {node.func.id}()"


def test_games_do_not_import_each_other() -> None:
    games = CORE / "games"
    names = {p.stem for p in games.glob("*.py")} - {"__init__"}
    for path in games.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                assert node.module not in names, f"{path.name} imports game {node.module}"
