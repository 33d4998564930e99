"""Compile the engine with mypyc, in place: the optional compiled build (issue 24).

One source, two builds: the modules listed below are plain typed Python, and run unchanged
without this step. Compiled, each gets a ``.so`` next to its ``.py`` (which Python then imports
first), and the shared library of the group (``cardcore__mypyc.*.so``) at the top of the tree::

    python tools/compile_engine.py           # compile in place (build files under build/mypyc)
    python tools/compile_engine.py --clean   # remove every .so and build file: the pure build

Run from the repository's root with the environment that has mypy (mypyc) and a C compiler.
The modules left out stay interpreted: the command line (``cli``, ``commandline/``), the bots,
the registry, signatures and ``ed25519``, which the engine reaches only through imports.
"""

from __future__ import annotations

import argparse
import glob
import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "mypyc"
GROUP = "cardcore"  # the shared library: cardcore__mypyc.<abi>.so at the root

MODULES = [
    "cardcore/cards.py",
    "cardcore/rng.py",
    "cardcore/errors.py",
    "cardcore/commands.py",
    "cardcore/views.py",
    "cardcore/notation.py",
    "cardcore/engine.py",
    "cardcore/match.py",
    "cardcore/sequencer.py",
    "cardcore/kit/*.py",
    "cardcore/codec/*.py",
    "cardcore/log/*.py",
    "cardcore/games/*/*.py",
]
"""What is compiled (globs, from the root): the engine, the kit, the codec, the log's writer and
verifier, and the five games; with what they import that is on every step (commands, views,
notation)."""

EXCLUDED: frozenset[str] = frozenset()
"""Files matched above that stay interpreted (none)."""


def sources() -> list[str]:
    found: list[str] = []
    for pattern in MODULES:
        for path in sorted(glob.glob(pattern, root_dir=ROOT)):
            if path not in EXCLUDED and path not in found:
                found.append(path)
    return found


def products() -> list[Path]:
    """Every compiled file in the tree: each module's .so and the group's library."""
    made = list((ROOT / "cardcore").rglob("*.so"))
    made += ROOT.glob(f"{GROUP}__mypyc*.so")
    return sorted(made)


def clean() -> None:
    for path in products():
        path.unlink()
        print(f"removed {path.relative_to(ROOT)}")
    if BUILD.exists():
        shutil.rmtree(BUILD)


_SETUP = """\
import sys

sys.path.insert(0, {compiler!r})  # mypy and mypyc as Python, for the one change below
import ast
import functools

import mypyc.irbuild.classdef as classdef
from mypyc.primitives.dict_ops import exact_dict_set_item_op
from setuptools import setup
from mypyc.build import mypycify

assert classdef.__file__.endswith(".py"), classdef.__file__
_lossy = classdef.add_non_ext_class_attr_ann


@functools.cache
def _written(path):
    \"\"\"(line, name) -> the annotation's text, for every ``name: annotation`` of a file.\"\"\"
    with open(path, encoding="utf-8") as file:
        source = file.read()
    return {{
        (n.lineno, n.target.id): ast.get_source_segment(source, n.annotation)
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
    }}


def add_non_ext_class_attr_ann(builder, non_ext, lvalue, stmt, get_type_info=None):
    \"\"\"A class's ``__annotations__`` as Python makes them under ``from __future__ import
    annotations`` (every module compiled has it): each annotation's text, as written.\"\"\"
    text = _written(builder.module_path).get((stmt.line, lvalue.name))
    if text is None:
        return _lossy(builder, non_ext, lvalue, stmt, get_type_info)
    key, value = builder.load_str(lvalue.name), builder.load_str(text)
    builder.call_c(exact_dict_set_item_op, [non_ext.anns, key, value], stmt.line)


classdef.add_non_ext_class_attr_ann = add_non_ext_class_attr_ann

sys.argv[1:] = ["build_ext", "--inplace", "--build-temp", {temp!r}, "--parallel", {jobs!r}]
setup(
    name="cardcore-compiled",
    packages=[],
    py_modules=[],
    ext_modules=mypycify({files!r}, opt_level={opt!r}, target_dir={target!r}, group_name={group!r},
                         strict_dunder_typing=False),
)
"""


def interpreted_compiler() -> Path:
    """A copy of the installed mypy and mypyc without their compiled files (Python imports the
    ``.py`` files then), so that the build can change one function of mypyc: mypy is itself
    compiled with mypyc, which calls its own functions past any change made at run time.

    The change: mypyc writes a class's ``__annotations__`` from the types it inferred, and
    keeps only a class (``tuple`` for ``tuple[Card, ...]``, ``type`` for ``int | None``). The
    kit (a command's field checks) and the codec (decoding, schemas) read a record's fields'
    types from its annotations, so the build writes each annotation's text instead: what the
    interpreter keeps under ``from __future__ import annotations``, which every module has."""
    spec = importlib.util.find_spec("mypy")  # the environment's, not imported
    assert spec is not None and spec.origin is not None, "mypy (mypyc) is not installed"
    where = BUILD / f"mypy-{importlib.metadata.version('mypy')}"
    site = Path(spec.origin).resolve().parent.parent
    if not where.exists():
        for package in ("mypy", "mypyc"):
            shutil.copytree(
                site / package,
                where / package,
                ignore=shutil.ignore_patterns("*.so", "__pycache__"),
            )
    return where


def build(opt: str, jobs: int) -> None:
    files = sources()
    BUILD.mkdir(parents=True, exist_ok=True)
    setup = BUILD / "setup.py"
    setup.write_text(
        _SETUP.format(
            files=files,
            opt=opt,
            target=str(BUILD / "c"),
            group=GROUP,
            temp=str(BUILD / "tmp"),
            jobs=str(jobs),
            compiler=str(interpreted_compiler()),
        )
    )
    env = dict(os.environ, MYPYC_OPT_LEVEL=opt)
    if jobs > 1:
        env.setdefault("MAX_JOBS", str(jobs))
    subprocess.run([sys.executable, str(setup)], cwd=ROOT, env=env, check=True)
    print(f"compiled {len(files)} modules; {len(products())} .so files in place")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clean", action="store_true", help="remove the compiled files")
    parser.add_argument("--opt", default="3", help="the C compiler's -O level (mypyc's default 3)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--list", action="store_true", help="print the modules compiled")
    args = parser.parse_args()
    if args.list:
        print("\n".join(sources()))
    elif args.clean:
        clean()
    else:
        clean()
        build(args.opt, args.jobs)


if __name__ == "__main__":
    main()
