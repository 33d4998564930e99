"""Wheel build hook: the gRPC stubs of proto/ and the web table's Pyodide runtime.

The stubs are build output — never edited by hand, never committed (rules of issue 5) — so every
wheel, including a plain ``pip install .`` from a fresh clone and editable installs, generates them
here with the pinned grpcio-tools. That generator is a build dependency only: installing cardcore
installs nothing else.

The web table (issue 14) verifies games in the browser with Pyodide, whose runtime (the npm
``pyodide`` package, about 13 MB) is not committed either: ``services/cardcore_server/web/vendor/
pyodide`` is gitignored. A wheel must carry it, so this hook fills that folder — from
``$CARDCORE_PYODIDE_DIR`` or the checkout's ``node_modules/pyodide`` (``npm ci``) — whenever a
file is missing or differs from the source's, and fails the build, saying what to do, when no
complete runtime is found anywhere. ``make web-vendor`` does the same copy by hand. Editable
installs (``make setup``, before ``npm ci`` has run) skip it: they serve the checkout itself. The
sdist ships the vendor copy as well, so that a wheel built from it (``python -m build``, or pip
installing the sdist) finds a complete runtime there.
"""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
"""The runtime files the page loads (the same list as ``cardcore_server.web.PYODIDE_FILES``)."""
VENDOR = Path("services", "cardcore_server", "web", "vendor", "pyodide")
"""Where, under the project root, the runtime is copied for the wheel to ship."""
PYODIDE_ENV = "CARDCORE_PYODIDE_DIR"


class PyodideMissing(RuntimeError):
    """No complete Pyodide runtime to put in the wheel."""


def _complete(path: Path) -> bool:
    return all((path / name).is_file() for name in PYODIDE_FILES)


def vendor_pyodide(root: Path, environ: dict[str, str] | None = None) -> Path:
    """Make ``root/VENDOR`` hold the whole Pyodide runtime and return it.

    The source is ``$CARDCORE_PYODIDE_DIR`` if set, else ``root/node_modules/pyodide``; a file
    missing from the vendor copy, or whose bytes differ from the source's, is copied again (so
    a wheel ships the version the lockfile pins, never a mix). Without a complete
    source, a complete vendor copy is used as it is. Raises :class:`PyodideMissing` otherwise."""
    env = os.environ if environ is None else environ
    dest = root / VENDOR
    source = Path(env[PYODIDE_ENV]) if env.get(PYODIDE_ENV) else root / "node_modules" / "pyodide"
    if _complete(source):
        dest.mkdir(parents=True, exist_ok=True)
        for name in PYODIDE_FILES:
            src, dst = source / name, dest / name
            if not (dst.is_file() and filecmp.cmp(src, dst, shallow=False)):
                shutil.copy2(src, dst)
        return dest
    if _complete(dest):
        return dest
    missing = [n for n in PYODIDE_FILES if not (source / n).is_file()]
    raise PyodideMissing(
        "cardcore's wheel ships the web table's Pyodide runtime, and none was found: "
        f"{dest} is incomplete and {source} lacks {', '.join(missing)}. "
        "Run `npm ci` in the project root (it installs the npm package `pyodide`, "
        "package-lock.json pins it), or `make web-vendor`, or point "
        f"{PYODIDE_ENV} at a folder holding {', '.join(PYODIDE_FILES)}; then build again."
    )


class ProtoStubsHook(BuildHookInterface):  # type: ignore[type-arg]
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        if self.target_name == "sdist":
            # The sdist carries the runtime too: a wheel built from it (`python -m build`, or
            # pip installing the sdist) has no node_modules to take it from.
            vendor_pyodide(root)
            build_data["artifacts"].append(VENDOR.as_posix() + "/*")
            return
        if self.target_name != "wheel":
            return
        # an editable install serves the checkout's own node_modules/pyodide (web.py)
        if version != "editable":
            vendor_pyodide(root)  # first: a build that cannot ship the runtime stops at once
            build_data["artifacts"].append(VENDOR.as_posix() + "/*")
        script = root / "services" / "cardcore_server" / "_protogen.py"
        subprocess.run([sys.executable, str(script), "--if-stale"], check=True)
        build_data["artifacts"].append("services/cardcore_server/_pb/*")
