"""A game's module is its rule text (issue 23; design.md, "Speed of the core"): no speed machinery
of its own. Speed is declared through :mod:`cardcore.kit` (``kit.NativeState``, ``kit.seat_of``,
``kit.native_records``, ``kit.tabulate``, ``kit.inline``/``kit.hot``), so a converted game holds

* no ``tuple.__new__`` (a state built as a positional tuple: ``s._replace(...)`` is as fast);
* no ``# fmt: skip`` / ``# fmt: off`` (a build laid out by hand to be read at all);
* no module-level mutable state: no list, dict, set, bytearray, deque … bound at module level,
  no ``global`` statement, no ``functools.cache`` / ``lru_cache`` (a hidden, growing memo); a
  table is a ``kit.tabulate`` (read-only), a kept value a ``kit.derived``.

The checks read each module's source (and, for what a module-level name is bound to at import,
its value), and are shown to catch a planted instance of each below: a check that cannot fail
proves nothing.

CONVERTED lists the games rewritten as rule text so far; the others join it as they are
converted (issue 23), until it is every game of :data:`cardcore.registry.GAMES`.
"""

from __future__ import annotations

import ast
import collections
import functools
import importlib
import io
import tokenize
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import Any

import pytest

import cardcore
from cardcore import kit
from cardcore.kit import codegen

GAMES_DIR = Path(__file__).resolve().parents[2] / "cardcore" / "games"

CONVERTED = ("ratscrew", "slapjack", "palace", "spit", "speed")
"""The games whose modules are rule text: every game."""

MUTABLE_TYPES: tuple[type, ...] = (
    list,
    dict,
    set,
    bytearray,
    collections.deque,
    collections.defaultdict,
    collections.OrderedDict,
    collections.Counter,
)
"""What a module-level name may not be bound to (a ``MappingProxyType`` or ``frozenset`` may)."""

MUTABLE_CALLS = frozenset(
    {"list", "dict", "set", "bytearray", "deque", "defaultdict", "OrderedDict", "Counter"}
)
CACHE_DECORATORS = frozenset({"cache", "lru_cache", "cached_property"})


def sources(game: str) -> list[Path]:
    """The files of a game: its module, or every module of its package."""
    package = GAMES_DIR / game
    if package.is_dir():
        return sorted(package.rglob("*.py"))
    return [GAMES_DIR / f"{game}.py"]


def module_names(game: str) -> list[str]:
    out = []
    for path in sources(game):
        parts = path.relative_to(GAMES_DIR.parents[1]).with_suffix("").parts
        out.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return out


def _comments(source: str) -> list[str]:
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return [t.string for t in tokens if t.type == tokenize.COMMENT]


def _name_of(node: ast.expr) -> str:
    """``cache`` of ``cache``, ``functools.cache`` or ``functools.lru_cache(maxsize=8)``."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _mutable_value(value: ast.expr | None) -> bool:
    if isinstance(value, ast.List | ast.Dict | ast.Set | ast.ListComp | ast.DictComp | ast.SetComp):
        return True
    return isinstance(value, ast.Call) and _name_of(value.func) in MUTABLE_CALLS


def module_bindings(tree: ast.Module) -> list[tuple[str, ast.expr | None]]:
    """Every name a module binds at its top level by assignment, with the value bound."""
    out: list[tuple[str, ast.expr | None]] = []
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                    pairs = zip(target.elts, node.value.elts, strict=False)  # A, B = x, y
                    out += [(t.id, v) for t, v in pairs if isinstance(t, ast.Name)]
                    continue
                out += [(n.id, node.value) for n in ast.walk(target) if isinstance(n, ast.Name)]
        elif isinstance(node, ast.AnnAssign | ast.AugAssign) and isinstance(node.target, ast.Name):
            out.append((node.target.id, node.value))
    return out


def findings(source: str) -> list[str]:
    """What in ``source`` is speed machinery or module-level mutable state, in words."""
    out = [f"comment {c!r}" for c in _comments(source) if "fmt: skip" in c or "fmt: off" in c]
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "__new__"
            and isinstance(node.value, ast.Name)
            and node.value.id == "tuple"
        ):
            out.append(f"line {node.lineno}: tuple.__new__")
        if isinstance(node, ast.Global):
            out.append(f"line {node.lineno}: global {', '.join(node.names)}")
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out += [
                f"line {node.lineno}: {node.name} is a hidden cache ({_name_of(d)})"
                for d in node.decorator_list
                if _name_of(d) in CACHE_DECORATORS
            ]
    out += [
        f"line {value.lineno}: {name} is mutable module-level state"
        for name, value in module_bindings(tree)
        if value is not None and _mutable_value(value)
    ]
    return out


def value_findings(module: ModuleType, source: str) -> list[str]:
    """The module-level names ``source`` binds whose value, once imported, is mutable (what the
    source alone cannot tell: ``TABLE = build()`` returning a dict) or a function's cache."""
    out = []
    for name, _ in module_bindings(ast.parse(source)):
        value = getattr(module, name, None)
        if isinstance(value, MUTABLE_TYPES):
            out.append(f"{name} is a {type(value).__name__} (mutable module-level state)")
        elif callable(value) and hasattr(value, "cache_info"):
            out.append(f"{name} is a cached function (a hidden, growing memo)")
    return out


# --------------------------------------------------------------------------- the games


@pytest.mark.parametrize("game", CONVERTED)
def test_a_converted_game_is_rule_text(game: str) -> None:
    for path, name in zip(sources(game), module_names(game), strict=True):
        source = path.read_text(encoding="utf-8")
        found = findings(source) + value_findings(importlib.import_module(name), source)
        assert not found, f"{path.relative_to(GAMES_DIR)}: {'; '.join(found)}"


def test_every_converted_game_is_a_game() -> None:
    from cardcore.registry import _MODULES

    assert set(CONVERTED) <= set(_MODULES), "CONVERTED names the games' modules"


def _compiled_rules(module: ModuleType) -> list[tuple[Any, Any]]:
    """``(rule as written, rule as it runs)`` for each rule of ``module`` the kit compiled again
    (kit.hot, kit.seated, kit.builds), the trusted form of a seated rule included."""
    found = []
    for value in vars(module).values():
        written = getattr(value, "__wrapped__", None)
        if getattr(value, "__module__", None) != module.__name__ or written is None:
            continue
        for runs in (value, kit.trusted(value)):
            if runs.__code__ is not written.__code__:
                found.append((written, runs))
    return found


@pytest.mark.skipif(
    cardcore.compiled, reason="the kit's generated code: the compiled build leaves rules as written"
)
@pytest.mark.parametrize("game", CONVERTED)
def test_each_inline_helper_is_defined_above_the_rules_that_call_it(game: str) -> None:
    """kit.inline helpers are written into a rule when it is compiled (at its decorator): one
    defined below the rule stays a call there. A call left for another reason (an argument that
    is computed, such as ``tuple(piles)``) is allowed."""
    for name in module_names(game):
        module = importlib.import_module(name)
        helpers = {n: f for n, f in vars(module).items() if hasattr(f, codegen.INLINE)}
        compiled = _compiled_rules(module)
        if helpers and name.endswith(".rules"):  # Palace's rules declare none: nothing to check
            assert compiled, f"{name}: no compiled rule found (the check would pass on none)"
        for written, runs in compiled:
            for called in codegen.names_read(runs.__code__) & set(helpers):
                below = helpers[called].__code__.co_firstlineno > written.__code__.co_firstlineno
                assert not below, f"{name}: {called} is defined below {written.__name__}"


# --------------------------------------------------------------------------- the checks can fail


@pytest.mark.parametrize(
    ("source", "finding"),
    [
        ("_new = tuple.__new__\n", "tuple.__new__"),
        ("def f(s):\n    return tuple.__new__(type(s), (1, 2))\n", "tuple.__new__"),
        ("x = (\n    1, 2,\n)  # fmt: skip\n", "fmt: skip"),
        ("# fmt: off\nx = 1\n# fmt: on\n", "fmt: off"),
        ("_SEEN = {}\n", "_SEEN is mutable"),
        ("_SEEN: dict[str, int] = {}\n", "_SEEN is mutable"),
        ("PLAYS = [1, 2]\n", "PLAYS is mutable"),
        ("A, B = set(), 1\n", "A is mutable"),
        ("FITS = {k: k for k in range(3)}\n", "FITS is mutable"),
        ("from collections import deque\nQ = deque()\n", "Q is mutable"),
        ("n = 0\ndef bump():\n    global n\n    n += 1\n", "global n"),
        ("import functools\n@functools.cache\ndef fit(x):\n    return x\n", "hidden cache"),
        ("from functools import lru_cache\n@lru_cache(maxsize=8)\ndef f(x): ...\n", "cache"),
    ],
)
def test_a_planted_instance_is_caught(source: str, finding: str) -> None:
    assert any(finding in f for f in findings(source)), findings(source)


def test_declared_speed_and_constants_pass() -> None:
    source = (
        "from types import MappingProxyType\n"
        "from cardcore import kit\n"
        "SEATS = (0, 1)\n"
        "NAMES = frozenset({'a'})\n"
        "TABLE = kit.tabulate(str, range(3))\n"
        "BY_NAME = MappingProxyType({'a': 1})\n"
        "def f(s):\n    return s._replace(current=1)  # one field changed\n"
    )
    assert findings(source) == []


def test_a_mutable_value_built_by_a_call_is_caught() -> None:
    source = "def _build():\n    return {}\nTABLE = _build()\nTABLE_RO = _build()\n"
    module = ModuleType("planted")
    exec(compile(source, "planted", "exec"), module.__dict__)  # a planted module
    module.__dict__["TABLE_RO"] = MappingProxyType(module.__dict__["TABLE_RO"])
    assert findings(source) == []  # the source alone cannot tell
    assert value_findings(module, source) == ["TABLE is a dict (mutable module-level state)"]
    module.__dict__["cached"] = functools.cache(len)
    source += "cached = None\n"
    assert "cached is a cached function" in value_findings(module, source)[-1]
