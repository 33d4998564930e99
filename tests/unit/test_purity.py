"""The core stays pure: no clock, no global RNG, no OS entropy, no I/O (what docs/rng.md's
determinism rests on).

Only the command-line front end — ``cardcore/cli.py`` and the commands of
``cardcore/commandline/`` — and ``cardcore/arena/`` (bots as separate programs, the ladder) may
touch files, processes, the terminal and a clock. The checks read each
module's source (an import that never runs in a test still counts), and are themselves tested
on synthetic sources below: a purity check that cannot fail proves nothing.
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
IMPURE_ALLOWED = {"cli.py", "commandline", "arena"}
"""By their place in cardcore/ (a module, or a package of them): the command-line front end, and
``cardcore/arena/``, which runs bots as separate programs (subprocesses, pipes, and a clock that
enforces their deadlines only: a game's own time stays the referee's, docs/bots.md#determinism)
and the ladder that plays them in parallel processes."""
GAME_NAMES = frozenset(
    p.name.removesuffix(".py")
    for p in (CORE / "games").iterdir()
    if (p.suffix == ".py" and p.name != "__init__.py") or (p / "__init__.py").is_file()
)
"""A game is a module of cardcore/games/ or a package there (spit/, speed/)."""

modules = sorted(
    p for p in CORE.rglob("*.py") if p.relative_to(CORE).parts[0] not in IMPURE_ALLOWED
)


def imported_names(node: ast.AST) -> list[str]:
    """Every top-level name an import statement could bind a forbidden module under.

    ``import os.path`` imports ``os``; ``from os import path`` reads ``os``; and a relative
    ``from . import time`` or ``from ..time import x`` names a module ``time`` next to the
    core: a shadow of the stdlib one, or a way round this check, and refused alike."""
    if isinstance(node, ast.Import):
        return [a.name.split(".")[0] for a in node.names]
    if isinstance(node, ast.ImportFrom):
        if node.level == 0:
            return [node.module.split(".")[0]] if node.module else []
        if node.module:  # from .x.y import z: every part of the dotted path is a module
            return node.module.split(".")
        return [a.name for a in node.names]
    return []


def imports_own_submodule(call: ast.Call) -> bool:
    """``__import__(f"{__package__}.games.{module}", ...)``: a lazy import of one of cardcore's
    own modules (the registry and the package's ``__getattr__`` load games this way, without
    importing importlib). The name starts inside the package, so it cannot reach the stdlib."""
    if not call.args or not isinstance(name := call.args[0], ast.JoinedStr):
        return False
    head = name.values[:2]
    return (
        len(head) == 2
        and isinstance(head[0], ast.FormattedValue)
        and isinstance(head[0].value, ast.Name)
        and head[0].value.id in ("__name__", "__package__")
        and isinstance(head[1], ast.Constant)
        and str(head[1].value).startswith(".")
    )


def impurities(source: str) -> list[str]:
    """What makes ``source`` impure, in words (empty when it is pure)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        out += [f"imports {name}" for name in imported_names(node) if name in FORBIDDEN_MODULES]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in FORBIDDEN_CALLS and not (
                node.func.id == "__import__" and imports_own_submodule(node)
            ):
                out.append(f"calls {node.func.id}()")
    return out


def games_imported(source: str, package_level: int) -> list[str]:
    """The game modules a module at ``cardcore/games/`` imports (``package_level`` 1: a
    ``from . import x`` there is ``cardcore.games.x``)."""
    out: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):  # import cardcore.games.spit
            parts = [a.name.split(".") for a in node.names]
            out += [p[2] for p in parts if p[:2] == ["cardcore", "games"] and len(p) > 2]
        elif isinstance(node, ast.ImportFrom):
            module = (node.module or "").split(".") if node.module else []
            if node.level == package_level:  # from .spit import x / from . import spit
                out += module[:1] if module else [a.name for a in node.names]
            elif node.level == package_level + 1 and module[:1] == ["games"]:
                out += module[1:2] if len(module) > 1 else [a.name for a in node.names]
            elif node.level == 0 and module[:2] == ["cardcore", "games"]:
                out += module[2:3] if len(module) > 2 else [a.name for a in node.names]
    return [name for name in out if name in GAME_NAMES]


EXEC_ALLOWED = {"kit/codegen.py"}
"""The kit builds a record class's ``__init__``, a state's ``_replace`` and a derived value's
reader from identifiers with ``exec``, as :mod:`dataclasses` does, in one function of
``cardcore/kit/codegen.py``: the source is made of identifiers only, so it reads nothing and
writes nothing. Nowhere else."""


ENVIRON_ALLOWED = "__init__.py"
"""The package's ``__init__`` reads one environment variable, ``CARDCORE_PURE`` (its
``PURE_ENV``), to choose between the compiled and the pure modules before any other module
loads: ``from os import environ`` and one ``environ.get(PURE_ENV, ...)``, nothing else of
:mod:`os`. Nowhere else."""


def reads_only_the_pure_switch(source: str) -> bool:
    """``os`` is imported only as ``from os import environ``, and ``environ`` is read only once,
    as ``environ.get(PURE_ENV, ...)``."""
    tree = ast.parse(source)
    imports = [
        [(a.name, a.asname) for a in node.names]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom) and "os" in imported_names(node)
    ]
    reads = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "environ"
        and node.args
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id == "PURE_ENV"
    ]
    uses = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "environ"]
    return imports == [[("environ", None)]] and len(reads) == len(uses) == 1


@pytest.mark.parametrize("path", modules, ids=[str(p.relative_to(CORE)) for p in modules])
def test_core_module_is_pure(path: Path) -> None:
    found = impurities(path.read_text())
    if path.relative_to(CORE).as_posix() in EXEC_ALLOWED:
        assert found.count("calls exec()") == 1, "kit/codegen.py: exec() only in function()"
        found.remove("calls exec()")
    if path.relative_to(CORE).as_posix() == ENVIRON_ALLOWED:
        assert reads_only_the_pure_switch(path.read_text()), "__init__: CARDCORE_PURE alone"
        found.remove("imports os")
    assert not found, f"{path.relative_to(CORE)}: {'; '.join(found)}"


def test_games_do_not_import_each_other() -> None:
    games = CORE / "games"
    for path in games.rglob("*.py"):
        # cardcore.games is one level up from games/x.py, two from games/spit/rules.py
        level = len(path.relative_to(games).parts)
        found = games_imported(path.read_text(), package_level=level)
        assert not found, f"{path.relative_to(games)} imports game(s) {', '.join(found)}"


RL_EXTRA = {"numpy", "gymnasium", "pettingzoo"}
"""The packages of the optional extra ``cardcore[rl]``: only ``cardcore/rl/`` (the PettingZoo
environments) imports them, so the engine stays dependency-free and ``import cardcore`` never
needs them. cardcore/rl/ is otherwise held to every check above: it reads no clock, and its
draws are cardcore.rng's, but for the seed of an episode reset without one, which gymnasium's
generator draws (docs/rl.md#seeding)."""


def rl_extra_imported(source: str) -> list[str]:
    """The packages of :data:`RL_EXTRA` that ``source`` imports."""
    found = {n for node in ast.walk(ast.parse(source)) for n in imported_names(node)}
    return sorted(found & RL_EXTRA)


def test_only_cardcore_rl_imports_the_rl_extra() -> None:
    found = [
        f"{p.relative_to(CORE)}: {', '.join(names)}"
        for p in sorted(CORE.rglob("*.py"))
        if p.relative_to(CORE).parts[0] != "rl" and (names := rl_extra_imported(p.read_text()))
    ]
    assert not found, found
    assert rl_extra_imported((CORE / "rl" / "table.py").read_text()), "the check reads imports"


# --------------------------------------------------------------------------- the checks can fail


@pytest.mark.parametrize(
    ("source", "finding"),
    [
        ("import random", "imports random"),
        ("import os.path", "imports os"),
        ("import urllib.request as r", "imports urllib"),
        ("import json, time", "imports time"),
        ("from datetime import datetime", "imports datetime"),
        ("from os import path", "imports os"),
        ("from . import random", "imports random"),
        ("from .. import time", "imports time"),
        ("from . import codec, secrets", "imports secrets"),
        ("from .socket import create_connection", "imports socket"),
        ("from ..games.io import x", "imports io"),
        ("def f():\n    import subprocess", "imports subprocess"),
        ("open('f')", "calls open()"),
        ("x = __import__('os')", "calls __import__()"),
        ("x = __import__(f'{mod}.path')", "calls __import__()"),
        ("x = __import__(f'{__name__}os')", "calls __import__()"),  # not a submodule
        ("x = __import__(name)", "calls __import__()"),
    ],
)
def test_impurities_are_found(source: str, finding: str) -> None:
    assert finding in impurities(source)


@pytest.mark.parametrize(
    "source",
    [
        "import json",
        "from . import codec",
        "from .rng import Rng",
        "from ..cards import Card",
        "from __future__ import annotations",
        "from typing import TYPE_CHECKING",
        "x.open('f')",  # a method named open is not the builtin
        "g = __import__(f'{__package__}.games.{module}', fromlist=['GAME']).GAME",
        "m = __import__(f'{__name__}.{home}', fromlist=[name])",
    ],
)
def test_pure_sources_pass(source: str) -> None:
    assert impurities(source) == []


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("import numpy as np", ["numpy"]),
        ("from gymnasium import spaces", ["gymnasium"]),
        ("def f():\n    import pettingzoo.test", ["pettingzoo"]),
        ("from .numbers import x\nimport json", []),
    ],
)
def test_rl_extra_imports_are_found(source: str, found: list[str]) -> None:
    assert rl_extra_imported(source) == found


@pytest.mark.parametrize(
    ("source", "game"),
    [
        ("from . import ratscrew", "ratscrew"),
        ("from . import cards, spit", "spit"),
        ("from .speed import State", "speed"),
        ("from ..games import palace", "palace"),
        ("from ..games.slapjack import Rules", "slapjack"),
        ("import cardcore.games.spit", "spit"),
        ("from cardcore.games import speed", "speed"),
        ("from cardcore.games.palace import GAME", "palace"),
    ],
)
def test_game_imports_are_found(source: str, game: str) -> None:
    assert games_imported(source, package_level=1) == [game]


@pytest.mark.parametrize(
    "source", ["from .. import kit", "from ..engine import Game", "from . import __init__"]
)
def test_core_imports_are_not_game_imports(source: str) -> None:
    assert games_imported(source, package_level=1) == []


@pytest.mark.parametrize(
    ("source", "allowed"),
    [
        ("from os import environ\n_PURE = environ.get(PURE_ENV, '') != ''", True),
        ("from os import environ\nx = environ.get(PURE_ENV)\ny = environ['HOME']", False),
        ("from os import environ\nx = environ.get('HOME')", False),
        ("from os import environ, path\nx = environ.get(PURE_ENV)", False),
        ("import os\nx = os.environ.get(PURE_ENV)", False),
        ("from os import environ as e\nx = e.get(PURE_ENV)", False),
        ("from os import environ\nx = environ.get(PURE_ENV)\ny = environ", False),
    ],
)
def test_only_the_pure_switch_is_read_from_the_environment(source: str, allowed: bool) -> None:
    assert reads_only_the_pure_switch(source) is allowed
