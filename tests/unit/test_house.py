"""The house's sizes (issue 23): no module of the engine or the service longer than 600 lines (a
game's rules module, ``cardcore/games/<game>/rules.py``, under 1,000: a game grows into a small
package before that), and no function longer than 80 lines, docstring included — what fits on a
screen or two. Generated code (the gRPC stubs) is not ours and is not counted.

The lint holds the rest (pyproject.toml: ruff's C901, PLR0912, PLR0915 and PLC0415 are on, their
thresholds and every exception stated there with its reason); the import graph is
tests/unit/test_import_graph.py's."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = (ROOT / "cardcore", ROOT / "services" / "cardcore_server")
MODULE_LINES = 600
RULES_MODULE_LINES = 1000
FUNCTION_LINES = 80


def limit_of(path: Path) -> int:
    is_rules = path.name == "rules.py" and path.parent.parent.name == "games"
    return RULES_MODULE_LINES if is_rules else MODULE_LINES


def too_long(path: Path) -> Iterator[str]:
    """What in ``path`` is over its limit, as ``file: what (lines)``."""
    text = path.read_text(encoding="utf-8")
    lines = text.count("\n")
    if lines > limit_of(path):
        yield f"{path}: the module ({lines} lines > {limit_of(path)})"
    for node in ast.walk(ast.parse(text, str(path))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > FUNCTION_LINES:
                yield f"{path}:{node.lineno}: {node.name} ({length} lines > {FUNCTION_LINES})"


def test_no_module_or_function_is_too_long() -> None:
    modules = [p for folder in FOLDERS for p in sorted(folder.rglob("*.py"))]
    assert len(modules) > 100, "the tree was read"
    found = [line for path in modules for line in too_long(path)]
    assert not found, "\n".join(found)


def test_a_long_function_and_module_are_caught(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(FUNCTION_LINES))
    short = tmp_path / "short.py"
    short.write_text(f"def fits():\n{body[: body.rfind(chr(10))]}\n")
    assert list(too_long(short)) == []
    long = tmp_path / "long.py"
    long.write_text(f"async def sprawls():\n{body}\n" + "\n" * MODULE_LINES)
    found = list(too_long(long))
    assert len(found) == 2 and "the module" in found[0] and "sprawls (81 lines" in found[1]
    rules = tmp_path / "games" / "palace" / "rules.py"
    rules.parent.mkdir(parents=True)
    rules.write_text("\n" * (MODULE_LINES + 1))
    assert list(too_long(rules)) == []  # a game's rules module may reach 1,000
