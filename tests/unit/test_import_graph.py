"""The import graph of cardcore, its client and its service is a DAG (issue 23), imports inside
functions included: a circle hidden by an import inside a function is still a circle — it only
moves the failure from import time to the first call.

The graph is read from the source (``ast``), not from ``sys.modules``: every ``import`` and
``from … import`` of a module of ours, wherever it stands, except those under ``if
TYPE_CHECKING:`` (they never run). ``from package import name`` is an edge to the submodule
``package.name`` when there is one, else to the package's ``__init__``. Only optional third-party
packages (psycopg, cryptography) may be imported inside functions; modules of ours never are
(ruff's PLC0415 holds the rest of the code to it).

The layers the arrows must follow are docs/architecture.md's table; this test reads them from
it, so the page stays true."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {
    "cardcore": ROOT / "cardcore",
    "cardcore_client": ROOT / "clients" / "python" / "cardcore_client",
    "cardcore_server": ROOT / "services" / "cardcore_server",
}
ARCHITECTURE = ROOT / "docs" / "architecture.md"

Graph = dict[str, set[str]]


def modules(packages: dict[str, Path]) -> dict[str, Path]:
    """Every module of ``packages``: dotted name → file (a package is its ``__init__.py``)."""
    found: dict[str, Path] = {}
    for name, folder in packages.items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([name, *parts])] = path
    return found


def _type_checking_block(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return isinstance(test, ast.Name | ast.Attribute) and ast.unparse(test).endswith(
        "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement, those under ``if TYPE_CHECKING:`` left out."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if _type_checking_block(node):
            stack.extend(node.orelse)  # type: ignore[attr-defined]
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _base(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    parts = module.split(".")
    keep = len(parts) - node.level + (1 if is_package else 0)
    return ".".join(parts[:keep] + ([node.module] if node.module else []))


def edges_of(module: str, path: Path, known: Iterable[str]) -> set[str]:
    """The modules of ours that ``module`` (at ``path``) imports."""
    names = set(known)
    out: set[str] = set()
    for node in _imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = _base(module, path.name == "__init__.py", node)
            targets = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in names else base for a in node.names
            ]
        for target in targets:
            while target and target not in names:  # ``import a.b.c`` of ours: its module
                target = target.rpartition(".")[0]
            if target and target != module:
                out.add(target)
                out |= _packages_run_first(module, target, names)
    return out


def _packages_run_first(module: str, target: str, names: set[str]) -> set[str]:
    """Importing ``a.b.c`` runs ``a/__init__`` and ``a/b/__init__`` first: those packages are
    imported too, but for the importer's own (already running before it)."""
    parts = target.split(".")
    ancestors = {".".join(parts[:i]) for i in range(1, len(parts))}
    return {p for p in ancestors if p in names and not module.startswith(p + ".")}


def import_graph(packages: dict[str, Path]) -> Graph:
    found = modules(packages)
    return {name: edges_of(name, path, found) for name, path in found.items()}


def circles(graph: Graph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_import_graph_has_no_circle() -> None:
    graph = import_graph(PACKAGES)
    assert len(graph) > 60, "the graph was read"
    assert not circles(graph), f"import circles: {circles(graph)}"


def test_a_planted_circle_is_caught(tmp_path: Path) -> None:
    """Two modules of a made-up package that import each other, one of them inside a function
    (what an in-function import hides from Python at import time): found."""
    pkg = tmp_path / "planted"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from .b import thing\n")
    (pkg / "a.py").write_text("from .sub import thing\n")
    (pkg / "sub" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..a import x\n"
        "def thing():\n    from planted import a\n    return a\n"
    )
    graph = import_graph({"planted": pkg})
    assert graph["planted.a"] == {"planted.sub"}
    assert graph["planted.sub.b"] == {"planted.a"}, "in-function: seen; TYPE_CHECKING: not"
    assert circles(graph) == [["planted.a", "planted.sub", "planted.sub.b"]]
    (pkg / "sub" / "b.py").write_text("def thing():\n    return 1\n")
    assert circles(import_graph({"planted": pkg})) == []
    # a module outside a package that imports one of its submodules runs the package's
    # __init__ first: a circle through that __init__ is one (it failed at import time)
    (pkg / "sub" / "c.py").write_text("from ..a import thing\n")
    (pkg / "sub" / "__init__.py").write_text("from .b import thing\nfrom . import c\n")
    (pkg / "a.py").write_text("from .sub.b import thing\n")
    graph = import_graph({"planted": pkg})
    assert graph["planted.a"] == {"planted.sub", "planted.sub.b"}
    assert circles(graph) == [["planted.a", "planted.sub", "planted.sub.c"]]


# --------------------------------------------------------------------------- the layers


def layers() -> dict[str, int]:
    """docs/architecture.md's layer table: ``| n | `module` …`` rows, module prefixes → layer."""
    rows = re.findall(r"^\|\s*(\d+)\s*\|\s*`([\w.]+)`", ARCHITECTURE.read_text(), re.M)
    return {prefix: int(n) for n, prefix in rows}


def layer_of(module: str, table: dict[str, int]) -> int:
    best = max((p for p in table if module == p or module.startswith(p + ".")), key=len)
    return table[best]


@pytest.mark.skipif(not ARCHITECTURE.exists(), reason="docs/architecture.md not written yet")
def test_imports_follow_the_layers_of_the_architecture_page() -> None:
    """A module imports only modules of its own layer or below (the page's table); the core
    (layer 0..) never imports the client or the service, the client never the service."""
    table = layers()
    assert {"cardcore", "cardcore_server", "cardcore_client"} <= set(table), table
    graph = import_graph(PACKAGES)
    upward = sorted(
        f"{a} ({layer_of(a, table)}) imports {b} ({layer_of(b, table)})"
        for a, targets in graph.items()
        for b in targets
        if layer_of(b, table) > layer_of(a, table)
    )
    assert not upward, "\n".join(upward)
