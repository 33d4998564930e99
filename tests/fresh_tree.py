"""What a fresh clone is, for the tests that start from one (tests/unit/test_distributions.py,
tests/e2e): the tracked files copied into a new folder (no ``.venv``, no ``node_modules``, no
generated stubs, no vendored runtime), and a local npm registry serving the genuine pinned
Pyodide tarball from npm's cache, so that a build or ``make serve`` that downloads the web
table's runtime stays offline."""

from __future__ import annotations

import base64
import hashlib
import http.server
import os
import shutil
import subprocess
import sys
import tarfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar

import pytest

from cardcore_server import pyodide_runtime

ROOT = Path(__file__).resolve().parents[1]


def python_build(
    args: list[str], out: Path, env: dict[str, str], cwd: Path | None = None, timeout: int = 300
) -> None:
    """``python -m build --no-isolation`` (this Python's build tools, offline) of ``args`` into
    ``out``, in exactly the environment ``env``; fails the test with the build's last words."""
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def required(requires: list[str] | None) -> list[str]:
    """A wheel's ``Requires-Dist`` lines less those of its optional extras (``; extra == …``):
    what installing it alone installs. The engine's must be empty: its extras (``rl``,
    ``ladder``) are the bot and RL authors' to ask for."""
    return [r for r in requires or [] if "extra ==" not in r]


def copy_tracked(dest: Path, *, new_files: bool = False) -> None:
    """The files git tracks, as the work tree holds them now, copied under ``dest``.

    ``new_files``: with the files not yet added that git does not ignore, so that a work tree
    whose changed files import a new one copies whole (under CI, a clone, there are none)."""
    others = ["--others", "--exclude-standard"] if new_files else []
    listing = ["git", "ls-files", "-z", "--cached", *others]
    files = subprocess.run(listing, cwd=ROOT, check=True, capture_output=True).stdout.split(b"\0")
    for raw in filter(None, files):
        rel = raw.decode()
        src = ROOT / rel
        if not src.exists():
            continue  # deleted in the work tree
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            target.symlink_to(os.readlink(src))
        else:
            target.write_bytes(src.read_bytes())
            target.chmod(src.stat().st_mode & 0o777)


class _Registry(http.server.BaseHTTPRequestHandler):
    tarball: ClassVar[bytes] = b""
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.hits.append(self.path)
        ok = self.path == f"/pyodide/-/pyodide-{pyodide_runtime.VERSION}.tgz"
        body = self.tarball if ok else b"not found"
        self.send_response(200 if ok else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def registry(tarball: bytes) -> Iterator[tuple[str, list[str]]]:
    """A local npm registry serving one tarball; yields its URL and the paths asked for."""
    handler = type("Handler", (_Registry,), {"tarball": tarball, "hits": []})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", handler.hits
    finally:
        server.shutdown()
        server.server_close()


def pinned_tarball() -> bytes:
    """The genuine pinned tarball from npm's cache (``npm ci`` put it there; ``npm cache add``
    fetches it from the registry otherwise), checked against the pin. Skips without it (fails
    under CI)."""
    digest = base64.b64decode(pyodide_runtime.INTEGRITY.removeprefix("sha512-")).hex()
    cache = Path(os.environ.get("npm_config_cache", Path.home() / ".npm"))  # noqa: SIM112 (npm's)
    path = cache / "_cacache" / "content-v2" / "sha512" / digest[:2] / digest[2:4] / digest[4:]
    if not path.is_file() and shutil.which("npm"):
        subprocess.run(
            ["npm", "cache", "add", f"pyodide@{pyodide_runtime.VERSION}"],
            check=False,
            capture_output=True,
            timeout=300,
        )
    if not path.is_file():
        if os.environ.get("CI"):
            pytest.fail("the pinned pyodide tarball is not in npm's cache (npm ci) under CI")
        pytest.skip("the pinned pyodide tarball is not in npm's cache (run npm ci)")
    data = path.read_bytes()
    assert hashlib.sha512(data).hexdigest() == digest
    return data


def extract(tar: tarfile.TarFile, dest: Path) -> None:
    """``tar`` (an archive the test made itself: git's, or an sdist it built) under ``dest``,
    through the ``data`` filter where this Python has it (3.11.4 and later; Debian 12's 3.11.2
    has not, and ``extractall`` refuses the keyword there)."""
    if hasattr(tarfile, "data_filter"):
        tar.extractall(dest, filter="data")
    else:
        tar.extractall(dest)  # our own archive, on a Python without filters
