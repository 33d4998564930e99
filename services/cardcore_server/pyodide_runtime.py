"""The web table's Pyodide runtime: which one (the pin), and how a build or a checkout gets it.

The page verifies games in the browser by running cardcore's own verifier in Pyodide (CPython
compiled to WebAssembly), served by ``cardcore serve`` at ``/web/pyodide/`` — never from a CDN.
The runtime is five files of the npm package ``pyodide`` (about 13 MB), not committed: the
server's wheel carries a copy in ``cardcore_server/web/vendor/pyodide``, and a checkout gets one
with ``make web-vendor``.

Where the copy comes from, in order: ``$CARDCORE_PYODIDE_DIR``; a copy already in place; the
checkout's ``node_modules/pyodide`` (``npm ci``); else the pinned tarball from the npm registry
(``$npm_config_registry``, as npm itself reads it, default ``https://registry.npmjs.org/``) — so
neither a build nor ``make serve`` needs Node. Whatever the
source, every file must have the pinned SHA-256 (and a download the lockfile's SHA-512), so a
wheel ships exactly the runtime ``package-lock.json`` pins, never a mix; a test holds
:data:`VERSION` and :data:`INTEGRITY` equal to the lockfile's.

Stdlib only: the wheel build hook (``services/hatch_build.py``) loads this file by its path.
Run as a script (``python cardcore_server/pyodide_runtime.py``) it fills the package's copy.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import sys
import tarfile
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Final

VERSION: Final = "314.0.8"
"""The npm ``pyodide`` version (package-lock.json pins the same)."""
INTEGRITY: Final = "sha512-" + (
    "74Wq1kXOC+CCEzAfxuRAO701nAcCMLjf8NrwvWpu8S41dVMXwXmLQ05dYB+F4e46AdnGo0oq7YHSVUpHsoarLQ=="
)
"""The tarball's Subresource Integrity, as package-lock.json records it."""
FILES: Final = {
    "pyodide.mjs": "1bb8cc14f9405aaa7cd4e00c12edd0a8539de9cc026618d6ee5a9663f367dc70",
    "pyodide.asm.mjs": "22514b8be6980e28a02c8b1d6387ce8dfe666fc4edf8d547cff5dce29ff4d972",
    "pyodide.asm.wasm": "e14d49ceca9b4a0e274ea918f3a898de2d3880b6e5573a6cfe1a2267ecc70329",
    "python_stdlib.zip": "2bd3394a145bfbbe5bbc9d9d6ab9136abbb986c6fef6c142b3a2962227aa5c28",
    "pyodide-lock.json": "5dc2fc119108bc148c7457dc86e7675b5c87e1cafd420b9c34c1eaef7b36c010",
}
"""The files the page loads (``loadPyodide`` fetches exactly these), with their SHA-256."""
ENV: Final = "CARDCORE_PYODIDE_DIR"
REGISTRY_ENV: Final = "npm_config_registry"
DEFAULT_REGISTRY: Final = "https://registry.npmjs.org/"
VENDOR: Final = Path(__file__).resolve().parent / "web" / "vendor" / "pyodide"
"""The package's own copy (gitignored; shipped in wheels)."""
CHECKOUT_NODE_MODULES: Final = Path(__file__).resolve().parents[2] / "node_modules" / "pyodide"
"""``services/cardcore_server/pyodide_runtime.py`` → ``<checkout>/node_modules/pyodide``."""


class RuntimeUnavailable(RuntimeError):
    """No pinned Pyodide runtime could be found or downloaded."""


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def is_pinned(folder: Path) -> bool:
    """Whether ``folder`` holds every runtime file with its pinned SHA-256."""
    return all((folder / n).is_file() and _sha256(folder / n) == h for n, h in FILES.items())


def tarball_url(registry: str) -> str:
    return f"{registry.rstrip('/')}/pyodide/-/pyodide-{VERSION}.tgz"


def download(dest: Path, registry: str) -> None:
    """Fetch the pinned tarball from ``registry``, check its SHA-512 and each file's SHA-256,
    and write the runtime files into ``dest``. Raises :class:`RuntimeUnavailable`."""
    url = tarball_url(registry)
    try:
        with urllib.request.urlopen(url, timeout=120) as answer:
            data = answer.read()
    except OSError as exc:
        raise RuntimeUnavailable(f"could not download {url}: {exc}") from None
    algo, _, expected = INTEGRITY.partition("-")
    if base64.b64encode(hashlib.new(algo, data).digest()).decode() != expected:
        raise RuntimeUnavailable(f"{url} does not have the pinned {algo} ({INTEGRITY[:24]}…)")
    files: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for name in FILES:
            member = tar.extractfile(f"package/{name}")
            if member is None:
                raise RuntimeUnavailable(f"{url} lacks package/{name}")
            files[name] = member.read()
    for name, body in files.items():
        if hashlib.sha256(body).hexdigest() != FILES[name]:
            raise RuntimeUnavailable(f"{url}: {name} does not have its pinned SHA-256")
    _write(dest, files)


def _write(dest: Path, files: Mapping[str, bytes]) -> None:
    """Each file written beside its final name, then renamed: a reader never sees half."""
    dest.mkdir(parents=True, exist_ok=True)
    for name, body in files.items():
        part = dest / f".{name}.part"
        part.write_bytes(body)
        part.replace(dest / name)


def provide(
    dest: Path = VENDOR,
    *,
    environ: Mapping[str, str] | None = None,
    node_modules: Path = CHECKOUT_NODE_MODULES,
) -> str:
    """Make ``dest`` hold the pinned runtime; returns where it came from (for the build log).

    Sources in order: ``$CARDCORE_PYODIDE_DIR``, ``dest`` itself, ``node_modules``, the npm
    registry. A local source whose files differ from the pin is passed over (and named if
    nothing else works)."""
    env = os.environ if environ is None else environ
    passed_over: list[str] = []
    sources = [Path(env[ENV])] if env.get(ENV) else []
    for source in (*sources, dest, node_modules):
        if is_pinned(source):
            if source != dest:
                _write(dest, {n: (source / n).read_bytes() for n in FILES})
            return str(source)
        if source.exists() and source != dest:
            passed_over.append(f"{source} (not pyodide {VERSION})")
    registry = env.get(REGISTRY_ENV) or DEFAULT_REGISTRY
    try:
        download(dest, registry)
    except RuntimeUnavailable as exc:
        raise RuntimeUnavailable(
            f"the web table's Pyodide runtime (npm pyodide {VERSION}) is missing: {exc}"
            + (f"; passed over {', '.join(passed_over)}" if passed_over else "")
            + f". Run `npm ci` in the repository, or point {ENV} at a folder holding "
            f"{', '.join(FILES)}, or {REGISTRY_ENV} at a reachable npm registry."
        ) from None
    return tarball_url(registry)


if __name__ == "__main__":
    try:
        print(f"pyodide {VERSION} in {VENDOR} from {provide()}")
    except RuntimeUnavailable as exc:
        print(exc, file=sys.stderr)
        sys.exit(1)
