"""Build hook of ``cardcore``: the optional compiled build of the engine (mypyc).

One source, two builds. A plain build (``pip install .``, ``python -m build``) makes the pure
wheel, ``py3-none-any``: this hook does nothing and asks for nothing, so no compiler and no mypy
are needed. With ``CARDCORE_COMPILE=1`` in the environment, the wheel build compiles the modules
that ``[tool.cardcore.compiled] modules`` in ``pyproject.toml`` lists — the one list of them, which
the tests read too (:func:`compiled_modules`) — and makes a platform wheel
(``cp311-cp311-linux_x86_64`` and the like). Only then does the build ask for mypy and setuptools
(``[tool.cardcore.compiled] requires``; :meth:`CompiledEngineHook.dependencies`).

The compiled wheel carries every ``.py`` file as the pure one does, and beside each compiled
module its extension, plus the shared library of the group (:data:`GROUP`,
``cardcore/_engine__mypyc.*.so``): Python prefers the extension, and ``CARDCORE_PURE=1`` makes
``cardcore`` load the ``.py`` files instead (``cardcore/__init__.py``), which is how one wheel
compares both builds. mypyc writes its C code and objects into a temporary folder, never into the
source tree. Editable installs are never compiled (they run the tree's ``.py`` files).

The sdist is the same either way: sources only.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import sys
import tempfile
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

ENV = "CARDCORE_COMPILE"
"""The environment variable that asks for the compiled wheel (``1``)."""

OPT_ENV = "CARDCORE_COMPILE_OPT"
"""The C compiler's optimisation level for the compiled wheel: ``3`` (what ships) unless this
says otherwise; ``make test`` and the packaging test build with ``0``, which checks the same
files in under half the time (22 s against 50 s here)."""

GROUP = "cardcore._engine"
"""mypyc's group: every listed module is compiled into one shared library,
``cardcore/_engine__mypyc.<abi>.so``, and each module into a small extension beside its ``.py``
that loads its part of it. The library's name is fixed, whatever the list:
``cardcore/__init__.py`` (``_LIBRARY``) tells the compiled build by it."""


def compile_requested(environ: Mapping[str, str] = os.environ) -> bool:
    """``CARDCORE_COMPILE`` is set to something other than empty, ``0``, ``false`` or ``no``."""
    return environ.get(ENV, "").strip().lower() not in ("", "0", "false", "no")


def settings(root: Path) -> dict[str, Any]:
    """``[tool.cardcore.compiled]`` of ``root/pyproject.toml``."""
    with (root / "pyproject.toml").open("rb") as f:
        return dict(tomllib.load(f)["tool"]["cardcore"]["compiled"])


def compiled_modules(root: Path) -> list[str]:
    """The files mypyc compiles, relative to ``root`` (``cardcore/rng.py``, ...): the list's
    entries, globs expanded (``cardcore/kit/*.py``), less ``exclude``; checked: each is a ``.py``
    file of the ``cardcore`` package, never its ``__init__.py`` (which chooses between the
    builds, so must always run as Python) nor ``_mypyc.py`` (the declarations both builds run)."""
    listed = settings(root)
    excluded = {str(m) for m in listed.get("exclude", [])}
    modules: list[str] = []
    for entry in (str(m) for m in listed["modules"]):
        found = sorted(p.relative_to(root).as_posix() for p in root.glob(entry)) or [entry]
        modules += [m for m in found if m not in excluded and m not in modules]
    for name in modules:
        path = Path(name)
        if path.parts[0] != "cardcore" or path.suffix != ".py" or not (root / path).is_file():
            raise SystemExit(f"cardcore: [tool.cardcore.compiled] lists {name!r}: no such module")
        if path.as_posix() in ("cardcore/__init__.py", "cardcore/version.py", "cardcore/_mypyc.py"):
            raise SystemExit(f"cardcore: {name} always runs as Python: it cannot be compiled")
    if not modules:
        raise SystemExit("cardcore: [tool.cardcore.compiled] modules is empty")
    return modules


PURE_BUILD_ONLY = re.compile(r"^[ \t]*@kit\.(inline|hot)\b.*$", re.MULTILINE)
"""The kit's decorators that speed up the interpreted build alone (``kit.inline``, ``kit.hot``:
they compile a rule's source again, with its helpers written in). In the compiled build they
return the function as it is, but mypyc calls any decorated function through Python, where an
undecorated one is a direct C call: Speed's compiled playouts ran ~9 % faster without them
(1.85–1.90 against 1.70–1.75× RLCard uno, the same runs)."""


def for_mypyc(text: str) -> str:
    """A compiled module's source as mypyc reads it: the :data:`PURE_BUILD_ONLY` decorator lines
    blank (so every other line keeps its number, for tracebacks). The wheel carries the source
    as written."""
    return PURE_BUILD_ONLY.sub("", text)


def mypyc_tree(root: Path, modules: list[str], into: Path) -> Path:
    """What mypyc compiles from: ``root``'s package and settings copied into ``into``, each of
    ``modules`` as :func:`for_mypyc` gives it."""
    shutil.rmtree(into, ignore_errors=True)
    shutil.copytree(root / "cardcore", into / "cardcore", ignore=shutil.ignore_patterns("*.so"))
    shutil.copy2(root / "pyproject.toml", into / "pyproject.toml")
    for name in modules:
        (into / name).write_text(for_mypyc((root / name).read_text(encoding="utf-8")), "utf-8")
    return into


def compile_engine(root: Path, modules: list[str], work: Path) -> dict[str, str]:
    """Compile ``modules`` with mypyc into ``work``; answer each extension built → its path in
    the wheel. mypy type-checks them with the project's ``[tool.mypy]`` settings (strict), its
    cache and mypyc's C files kept in ``work``; mypyc reads them as :func:`for_mypyc` gives
    them."""
    # Build requirements of the compiled wheel only: a pure build never imports them.
    from mypyc.build import mypycify
    from setuptools import Distribution
    from setuptools.command.build_ext import build_ext

    here = Path.cwd()
    # mypy reads pyproject.toml's [tool.mypy] and names modules from here
    os.chdir(mypyc_tree(root, modules, work / "src"))
    try:
        extensions = mypycify(
            ["--config-file", "pyproject.toml", "--cache-dir", str(work / "mypy"), *modules],
            separate=[(modules, GROUP)],
            target_dir=str(work / "c"),
            opt_level=os.environ.get(OPT_ENV, "3"),
            # One C file per module rather than one for the group: gcc takes 19 s instead of 40
            # at -O0 (make test's build), the extensions' shims compiled side by side.
            multi_file=True,
        )
        # mypyc writes a dotted group's headers under the group's package folder and includes
        # them from the per-module C files by bare name (mypy 2.4, multi_file): look there too.
        headers = str(work.joinpath("c", *GROUP.split(".")[:-1]))
        for extension in extensions:
            extension.include_dirs.append(headers)
            # The C files' temporary folder, not written into the libraries: two builds of one
            # source give the same bytes (gcc and clang read this flag).
            extension.extra_compile_args.append(f"-ffile-prefix-map={work}=.")
        command = build_ext(Distribution({"ext_modules": extensions}))
        command.parallel = os.cpu_count() or 1
        command.build_lib = str(work / "lib")
        command.build_temp = str(work / "tmp")
        command.inplace = False
        command.ensure_finalized()
        command.run()
    finally:
        os.chdir(here)
    lib = work / "lib"
    return {str(p): p.relative_to(lib).as_posix() for p in sorted(lib.rglob("*")) if p.is_file()}


ANNOTATIONS = "cardcore/_annotations.py"
"""The module the compiled wheel carries beside its extensions (never in the source tree, never
in the pure wheel): the annotations of the classes of the compiled modules, as written in their
source (:func:`annotations_module`)."""


def annotations_module(root: Path, modules: list[str]) -> str:
    """The source of :data:`ANNOTATIONS`: ``ANNOTATIONS``, ``"module.Class"`` → ``{field:
    annotation text}`` for each top-level class of ``modules`` that annotates attributes, in
    their order. mypyc keeps no annotations of a native class, and the codec and ``match`` read a
    native event's (:func:`cardcore.kit.native_records`): the compiled build reads them from here,
    the interpreted one from the class, the same text from the same source, never a file read at
    run time."""
    table: dict[str, dict[str, str]] = {}
    for name in modules:
        module = name.removesuffix(".py").replace("/", ".")
        for node in ast.parse((root / name).read_text(encoding="utf-8")).body:
            if not isinstance(node, ast.ClassDef):
                continue
            fields = {
                item.target.id: ast.unparse(item.annotation)
                for item in node.body
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
            }
            if fields:
                table[f"{module}.{node.name}"] = fields
    head = (
        '"""The annotations of the compiled classes, as written (hatch_build.py, at build time)."""'
    )
    return f"{head}\n\nANNOTATIONS = {table!r}\n"


class CompiledEngineHook(BuildHookInterface):  # type: ignore[type-arg]
    def dependencies(self) -> list[str]:
        if not compile_requested():
            return []
        return [str(r) for r in settings(Path(self.root))["requires"]]

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable" or not compile_requested():
            return
        root = Path(self.root)
        modules = compiled_modules(root)
        self._work = Path(tempfile.mkdtemp(prefix="cardcore-mypyc-"))  # removed in finalize
        try:
            built = compile_engine(root, modules, self._work)
        except BaseException:  # mypy's errors, a compiler's (mypyc exits on them): no leftovers
            shutil.rmtree(self._work, ignore_errors=True)
            raise
        expected = {Path(m).with_suffix("").as_posix() for m in modules}
        expected.add(GROUP.replace(".", "/") + "__mypyc")
        found = {target.split(".", 1)[0] for target in built.values()}
        if found != expected:
            raise SystemExit(f"cardcore: mypyc built {sorted(found)}, not {sorted(expected)}")
        self.app.display_info(f"cardcore: compiled {', '.join(modules)} (python {sys.version})")
        build_data["force_include"].update(built)
        written = self._work / "_annotations.py"
        written.write_text(annotations_module(root, modules), encoding="utf-8")
        build_data["force_include"][str(written)] = ANNOTATIONS
        build_data["pure_python"] = False
        build_data["infer_tag"] = True  # cp311-cp311-linux_x86_64: this interpreter, this OS

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        work = getattr(self, "_work", None)
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)
