"""One source, two builds: the pure wheel (``py3-none-any``) and the compiled one (mypyc, a
platform wheel), and the switch between them at run time.

* The build: ``hatch_build.py`` compiles ``[tool.cardcore.compiled] modules`` (pyproject.toml,
  the one list) when ``CARDCORE_COMPILE=1``; a plain build asks for nothing and stays pure.
* The switch: ``cardcore/__init__.py`` says which build runs (``cardcore.compiled``), and with
  ``CARDCORE_PURE=1`` loads every module from its ``.py`` even where an extension sits beside
  it (a ``sys.meta_path`` finder for cardcore's modules alone). Tested here in this process, on
  a copy of the package loaded under another name, with fake extensions beside its modules.
* The slow test builds as a release does — the sdist, then both wheels from it, without
  isolation (offline, the dev virtualenv's hatchling, mypy and setuptools) — installs the
  compiled wheel into a new virtualenv, and runs it both ways: ``simulate`` prints the same
  report and writes the same log bytes. One test, so that its build runs once even on two
  workers (the C code built at ``-O0``). Under ``make test`` the Makefile has built them so
  already (build/release, named by ``CARDCORE_TEST_RELEASE``), for the compiled build's suites:
  the test checks those, holding every module they carry to this tree's source, rather than
  compiling the engine a second time.
"""

from __future__ import annotations

import ast
import importlib.resources
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tarfile
import traceback
import zipfile
from collections.abc import Iterator
from email.parser import HeaderParser
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import cardcore

from ..fresh_tree import copy_tracked, extract, python_build, required

ROOT = Path(__file__).resolve().parents[2]
PLATFORM_TAG = f"cp{sys.version_info[0]}{sys.version_info[1]}"


def _hook_module() -> Any:
    """``hatch_build.py`` (a top-level file, not a package module), loaded by its path."""
    spec = importlib.util.spec_from_file_location("_cardcore_hatch_build", ROOT / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hatch_build = _hook_module()


# --------------------------------------------------------------------------- the configuration


def test_the_list_of_compiled_modules_is_one_list_of_real_modules() -> None:
    modules = hatch_build.compiled_modules(ROOT)
    config = hatch_build.settings(ROOT)
    listed = {p.relative_to(ROOT).as_posix() for g in config["modules"] for p in ROOT.glob(g)}
    excluded = set(config["exclude"])
    assert excluded <= listed, f"exclusions nothing lists: {sorted(excluded - listed)}"
    assert sorted(modules) == sorted(listed - excluded) and modules
    assert len(set(modules)) == len(modules)
    for name in modules:
        assert (ROOT / name).is_file() and name.startswith("cardcore/") and name.endswith(".py")
        assert name not in ("cardcore/__init__.py", "cardcore/version.py")


def _except_names(source: str) -> Iterator[tuple[int, str, set[str]]]:
    """Each function's ``except ... as NAME`` bound to more than one exception type: its line,
    the name and the types."""
    for fn in ast.walk(ast.parse(source)):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            bound: dict[str, set[str]] = {}
            for node in ast.walk(fn):
                if isinstance(node, ast.ExceptHandler) and node.name:
                    caught = ast.unparse(node.type) if node.type else "BaseException"
                    bound.setdefault(node.name, set()).add(caught)
            yield from ((fn.lineno, n, t) for n, t in bound.items() if len(t) > 1)


def test_no_compiled_function_names_two_exception_types_alike() -> None:
    """mypyc gives a local one type, the first ``except X as exc`` gives it: a later
    ``except Y as exc`` catching a Y that is not an X raises ``TypeError`` in the compiled build
    (a tampered log crashed ``replay`` there instead of naming the entry). Each handler of a
    different type has a name of its own."""
    found = [
        f"{name}:{line} '{bound}' is {sorted(types)}"
        for name in hatch_build.compiled_modules(ROOT)
        for line, bound, types in _except_names((ROOT / name).read_text())
    ]
    assert found == []
    (caught,) = _except_names(
        "def f():\n try: g()\n except KeyError as e: pass\n"
        " try: g()\n except ValueError as e: pass\n"
    )
    assert caught == (1, "e", {"KeyError", "ValueError"})  # the check finds what it looks for


def test_mypyc_reads_the_source_without_the_pure_builds_speed_decorators() -> None:
    """``kit.inline`` and ``kit.hot`` leave a compiled function as it is, and a decorated one
    is called through Python: mypyc reads their lines blank, every other line where it was."""
    text = "@kit.hot\ndef f(s):\n    return g(s)\n\n\n  @kit.inline  # why\n"
    text += "def g(s):\n    @kit.hotter\n"
    made = hatch_build.for_mypyc(text)
    assert made.splitlines() == [
        "",
        "def f(s):",
        "    return g(s)",
        "",
        "",
        "",
        "def g(s):",
        "    @kit.hotter",
    ]
    for name in hatch_build.compiled_modules(ROOT):  # what the build compiles still parses
        source = hatch_build.for_mypyc((ROOT / name).read_text())
        assert "@kit.hot\n" not in source and "@kit.inline\n" not in source
        assert len(source.splitlines()) == len((ROOT / name).read_text().splitlines())
        ast.parse(source)


def test_the_hook_and_the_package_name_the_same_library() -> None:
    package, _, group = hatch_build.GROUP.rpartition(".")
    assert package == "cardcore" and f"{group}__mypyc" == cardcore._LIBRARY


def test_a_plain_build_asks_for_nothing_and_the_compiled_one_for_mypy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def requires(environ: dict[str, str]) -> list[str]:
        monkeypatch.delenv(hatch_build.ENV, raising=False)
        for key, value in environ.items():
            monkeypatch.setenv(key, value)
        # as hatchling makes it to ask for its dependencies (no build config is read)
        hook = hatch_build.CompiledEngineHook(str(ROOT), {}, None, None, "", "wheel")
        return list(hook.dependencies())

    assert requires({}) == []
    for off in ("", "0", "false", "no"):
        assert requires({hatch_build.ENV: off}) == [], off
    needs = requires({hatch_build.ENV: "1"})
    assert needs == hatch_build.settings(ROOT)["requires"]
    assert any(n.startswith("mypy") for n in needs) and any(
        n.startswith("setuptools") for n in needs
    )


# --------------------------------------------------------------------------- the switch, in process


@pytest.fixture
def copies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Two copies of the cardcore package, ``pure_copy`` (imported with ``CARDCORE_PURE=1``) and
    ``plain_copy`` (without), each with a fake extension (bytes no loader accepts) beside
    ``rng.py``, ``boom.py`` (a module that raises) and in place of the compiled library. Both
    are imported as packages of those names; everything they add is taken away afterwards."""
    fake = EXTENSION_SUFFIXES[0]
    for name in ("pure_copy", "plain_copy"):
        pkg = tmp_path / name
        shutil.copytree(ROOT / "cardcore", pkg, ignore=shutil.ignore_patterns("__pycache__"))
        (pkg / "boom.py").write_text('def boom() -> None:\n    raise ValueError("from boom.py")\n')
        for stem in ("rng", "boom", cardcore._LIBRARY):
            (pkg / f"{stem}{fake}").write_bytes(b"not an extension")
    meta_path, modules = list(sys.meta_path), set(sys.modules)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        monkeypatch.setenv("CARDCORE_PURE", "1")
        __import__("pure_copy")
        monkeypatch.delenv("CARDCORE_PURE")
        __import__("plain_copy")
        yield tmp_path
    finally:
        sys.meta_path[:] = meta_path
        for name in set(sys.modules) - modules:
            del sys.modules[name]


def _load(name: str) -> ModuleType:
    __import__(name)
    return sys.modules[name]


def test_under_cardcore_pure_a_module_loads_from_its_py_beside_an_extension(copies: Path) -> None:
    pure = _load("pure_copy")
    finders = [f for f in sys.meta_path if getattr(f, "cardcore_pure", False)]
    assert len(finders) == 1 and sys.meta_path[0] is finders[0], "one finder, first"
    rng = _load("pure_copy.rng")
    assert rng.__file__ == str(copies / "pure_copy" / "rng.py")
    assert rng.__spec__ is not None and type(rng.__spec__.loader).__name__ == "SourceFileLoader"
    assert rng.mix64(7) == _load("cardcore.rng").mix64(7)
    games = _load("pure_copy.games")
    assert games.__file__ == str(copies / "pure_copy" / "games" / "__init__.py")
    assert pure.compiled is False, "CARDCORE_PURE: never compiled"


def test_without_it_the_extension_is_what_python_loads(copies: Path) -> None:
    plain = _load("plain_copy")
    with pytest.raises(ImportError):
        _load("plain_copy.rng")  # the fake extension was chosen over rng.py: it cannot load
    assert plain.compiled is False, "a library that does not load is no compiled build"
    assert _load("plain_copy.errors").__file__ == str(copies / "plain_copy" / "errors.py")


def test_the_finder_keeps_tracebacks_and_resources_and_leaves_other_packages_alone(
    copies: Path,
) -> None:
    _load("pure_copy")
    boom = _load("pure_copy.boom")
    try:
        boom.boom()
    except ValueError:
        text = traceback.format_exc()
    assert str(copies / "pure_copy" / "boom.py") in text
    assert 'raise ValueError("from boom.py")' in text, "the source line, read through the loader"
    resources = importlib.resources.files("pure_copy")
    assert resources.joinpath("py.typed").is_file()
    assert "rng.py" in {p.name for p in resources.iterdir()}
    (finder,) = [f for f in sys.meta_path if getattr(f, "cardcore_pure", False)]
    path = [str(copies / "pure_copy")]
    assert finder.find_spec("json", None) is None
    assert finder.find_spec("pure_copyx.rng", path) is None, "a prefix is not the package"
    assert finder.find_spec("plain_copy.rng", [str(copies / "plain_copy")]) is None
    assert finder.find_spec(f"pure_copy.{cardcore._LIBRARY}", path) is None, "no .py: not ours"
    spec = finder.find_spec("pure_copy.rng", path)
    assert spec is not None and spec.origin == str(copies / "pure_copy" / "rng.py")


def test_importing_cardcore_again_installs_no_second_finder(
    copies: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _load("pure_copy")
    monkeypatch.setenv("CARDCORE_PURE", "1")
    del sys.modules["pure_copy"]
    _load("pure_copy")
    assert len([f for f in sys.meta_path if getattr(f, "cardcore_pure", False)]) == 1


def test_this_process_runs_the_tree_as_python() -> None:
    """The dev tree has no compiled module (``*.so`` is never committed): a process that loads
    the tree's cardcore runs it as Python (``make test`` also runs suites on build/compiled)."""
    assert "compiled" in cardcore.__all__ and "compiled" in dir(cardcore)
    tree = ROOT / "cardcore"
    if Path(cardcore.__file__).resolve().parent == tree:
        assert not list(tree.rglob(f"*{EXTENSION_SUFFIXES[0]}"))
        assert cardcore.compiled is False


# --------------------------------------------------------------------------- the wheels, built


def _build(args: list[str], out: Path, **env: str) -> None:
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", hatch_build.ENV)}
    python_build(args, out, clean | env, timeout=600)


def _wheel_names(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as zf:
        return set(zf.namelist())


def _wheel_meta(wheel: Path, suffix: str) -> Any:
    with zipfile.ZipFile(wheel) as zf:
        name = next(n for n in zf.namelist() if n.endswith(f".dist-info/{suffix}"))
        return HeaderParser().parsestr(zf.read(name).decode())


def _check_wheels(pure: Path, compiled: Path, modules: list[str]) -> None:
    assert pure.name.endswith("-py3-none-any.whl"), pure.name
    assert compiled.name.endswith(f"-{PLATFORM_TAG}-{PLATFORM_TAG}-linux_x86_64.whl") or (
        sys.platform != "linux" and f"-{PLATFORM_TAG}-{PLATFORM_TAG}-" in compiled.name
    ), compiled.name
    assert _wheel_meta(compiled, "WHEEL")["Root-Is-Purelib"] == "false"
    for wheel in (pure, compiled):
        assert not required(_wheel_meta(wheel, "METADATA").get_all("Requires-Dist")), (
            "no dependency"
        )
    pure_names, compiled_names = _wheel_names(pure), _wheel_names(compiled)
    assert not [n for n in pure_names if n.endswith((".so", ".pyd"))], "the pure wheel is pure"
    py = {n for n in pure_names if n.endswith(".py")}
    # both carry every .py; the compiled wheel, the annotations its build wrote too
    assert py | {hatch_build.ANNOTATIONS} == {n for n in compiled_names if n.endswith(".py")}
    extensions = {n for n in compiled_names if n.endswith((".so", ".pyd"))}
    stems = {n.split(".", 1)[0] for n in extensions}
    wanted = {m.removesuffix(".py") for m in modules} | {f"cardcore/{cardcore._LIBRARY}"}
    assert stems == wanted, sorted(stems ^ wanted)
    assert {f"{stem}.py" for stem in wanted - {f"cardcore/{cardcore._LIBRARY}"}} <= py
    tops = {n.split("/")[0] for n in compiled_names if not n.startswith("cardcore-")}
    assert tops == {"cardcore"}, "the compiled library lives inside the package"


def _venv_run(venv: Path, args: list[str], cwd: Path, **env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CARDCORE_PURE")}
    done = subprocess.run(
        [str(venv / "bin" / args[0]), *args[1:]],
        cwd=cwd,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, (args, env, done.stdout[-2000:], done.stderr[-3000:])
    return done.stdout


PROBE = (
    "import importlib, json, sys, cardcore\n"
    "def chosen(m):\n"
    "    path = importlib.import_module(m.rpartition('.')[0]).__path__\n"
    "    return next(s.origin for f in sys.meta_path if (s := f.find_spec(m, path)))\n"
    "files = [chosen(m) for m in sys.argv[1:]]\n"
    "for m in sys.argv[1:]: importlib.import_module(m)\n"
    "print(json.dumps([cardcore.compiled, files]))"
)
"""Imports the modules named on its command line: ``[cardcore.compiled, [the file an import of
each chooses]]``, asked of the import system's finders in order (a compiled module's own
``__file__`` and spec are its group library's, set by mypyc: ``cardcore/cardcore/kit/...``)."""


def _check_installed(venv: Path, work: Path, modules: list[str]) -> None:
    """Every listed module loads compiled by default and from its ``.py`` under
    ``CARDCORE_PURE=1``; ``--version`` says which; and the games are the same either way."""
    names = [m.removesuffix(".py").replace("/", ".") for m in modules]
    site = next((venv / "lib").glob("python3*/site-packages"))

    def loaded(**env: str) -> tuple[bool, list[str]]:
        compiled, files = json.loads(_venv_run(venv, ["python", "-c", PROBE, *names], work, **env))
        return compiled, [Path(f).relative_to(site).as_posix() for f in files]

    compiled, files = loaded()
    assert compiled is True
    assert files == [m.removesuffix(".py") + EXTENSION_SUFFIXES[0] for m in modules], files
    assert loaded(CARDCORE_PURE="1") == (False, modules)
    assert _venv_run(venv, ["cardcore", "--version"], work).strip() == "cardcore 0.1.0 (compiled)"
    pure_version = _venv_run(venv, ["cardcore", "--version"], work, CARDCORE_PURE="1")
    assert pure_version.strip() == "cardcore 0.1.0 (pure Python)"
    games = _venv_run(venv, ["cardcore", "games", "--names"], work).split()
    assert len(games) == 5, games
    for game in games:
        runs = {}
        for build, env in (("compiled", {}), ("pure", {"CARDCORE_PURE": "1"})):
            logs = work / f"{game}-{build}"
            args = ["cardcore", "simulate", game, "--seed", "1", "--games", "20"]
            text = _venv_run(venv, args, work, **env)
            report = json.loads(
                _venv_run(venv, [*args, "--json", "--log-dir", str(logs)], work, **env)
            )
            report.pop("steps_per_second")
            files = {p.name: p.read_bytes() for p in sorted(logs.iterdir())}
            runs[build] = (text.rpartition(";")[0], report, files)
        assert runs["compiled"][0] and runs["compiled"] == runs["pure"], game


def _release(tmp_path: Path) -> Path:
    """The folder of the sdist and both wheels: the Makefile's (``CARDCORE_TEST_RELEASE``), else
    built here from a clean copy of the tree."""
    made = os.environ.get("CARDCORE_TEST_RELEASE")
    if made:
        return Path(made)
    tree, dist = tmp_path / "tree", tmp_path / "dist"
    copy_tracked(tree, new_files=True)
    assert not list((tree / "cardcore").rglob("*.so")), "a clean tree: sources only"
    _build([str(tree)], dist, **{hatch_build.ENV: "0"})  # the sdist, then the pure wheel from it
    (sdist,) = dist.glob("cardcore-*.tar.gz")
    with tarfile.open(sdist) as tf:
        extract(tf, tmp_path / "unpacked")
    (unpacked,) = (tmp_path / "unpacked").iterdir()
    _build(["--wheel", str(unpacked)], dist, **{hatch_build.ENV: "1", hatch_build.OPT_ENV: "0"})
    return dist


def _check_sources(sdist: Path, compiled: Path, modules: list[str]) -> None:
    """The sdist carries its build hook, and every module of the compiled wheel is this tree's
    source as it is now (a wheel built from another tree, or before an edit, is refused); the
    one module the build writes, the compiled classes' annotations, is what the hook makes of
    that source."""
    with tarfile.open(sdist) as tf:
        assert any(m.name.endswith("/hatch_build.py") for m in tf.getmembers()), "the sdist hook"
    with zipfile.ZipFile(compiled) as zf:
        py = [n for n in zf.namelist() if n.endswith(".py") and n != hatch_build.ANNOTATIONS]
        stale = [n for n in py if zf.read(n) != (ROOT / n).read_bytes()]
        written = zf.read(hatch_build.ANNOTATIONS).decode()
    assert py and not stale, f"not this tree's source: {stale[:5]}"
    assert written == hatch_build.annotations_module(ROOT, modules)
    assert not (ROOT / hatch_build.ANNOTATIONS).exists(), "written into the wheel, never the tree"


@pytest.mark.slow
def test_both_wheels_from_the_sdist_and_the_compiled_one_both_ways(tmp_path: Path) -> None:
    venv, work = tmp_path / "venv", tmp_path / "work"
    modules = hatch_build.compiled_modules(ROOT)
    dist = _release(tmp_path)
    (sdist,) = dist.glob("cardcore-*.tar.gz")
    (pure,) = dist.glob("cardcore-*-py3-none-any.whl")
    (compiled,) = set(dist.glob("cardcore-*.whl")) - {pure}
    _check_sources(sdist, compiled, modules)
    _check_wheels(pure, compiled, modules)

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    install = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install"]
    subprocess.run(
        [*install, "--quiet", "--no-index", "--no-deps", str(compiled)],
        check=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    work.mkdir()
    _check_installed(venv, work, modules)
