"""The wheel carries the web table (issue 14): the page, its scripts and the Pyodide runtime,
which ``hatch_build.py`` copies from ``node_modules/pyodide`` when the package's vendor copy is
missing, and without either the build fails saying what to do.

One real build, on a copy of the tracked files (so the checkout's own vendor copy and stubs play
no part), as a release builds: ``python -m build``, the sdist first and then the wheel from the
unpacked sdist, which has no ``node_modules`` (so the sdist must carry the runtime), each in an
isolated environment with hatchling and the pinned grpcio-tools from the configured index (20-40
s, most of it those environments). The hook's copying step is also run in-process on small fake
runtimes, hatchling stubbed (it is a build dependency, not in the virtualenv)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

from cardcore_server import web

ROOT = Path(__file__).resolve().parents[2]
PYODIDE = ROOT / "node_modules" / "pyodide"
WEB = "cardcore_server/web/"


def _copy_tracked(dest: Path) -> None:
    files = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True
    ).stdout.split(b"\0")
    for raw in filter(None, files):
        rel = raw.decode()
        src = ROOT / rel
        if not src.is_file():
            continue  # deleted in the work tree
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(src.read_bytes())
    # the work tree's own hook (it may be newer than the index)
    (dest / "hatch_build.py").write_bytes((ROOT / "hatch_build.py").read_bytes())


def _build(src: Path, out: Path) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != "CARDCORE_PYODIDE_DIR"}
    return subprocess.Popen(
        [sys.executable, "-m", "build", "--outdir", str(out), str(src)],
        cwd=src,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


@pytest.mark.slow
def test_the_wheel_ships_the_page_and_the_pyodide_runtime(tmp_path: Path) -> None:
    if not (PYODIDE / "pyodide.asm.wasm").is_file():
        if os.environ.get("CI"):
            pytest.fail("node_modules/pyodide is missing (npm ci) under CI")
        pytest.skip("node_modules/pyodide is missing (npm ci)")
    src = tmp_path / "src"
    _copy_tracked(src)
    assert not (src / "services/cardcore_server/web/vendor").exists()
    (src / "node_modules").symlink_to(ROOT / "node_modules", target_is_directory=True)
    build = _build(src, tmp_path / "dist")
    output = build.communicate(timeout=300)[0]
    assert build.returncode == 0, output
    (sdist,) = (tmp_path / "dist").glob("cardcore-*.tar.gz")
    with tarfile.open(sdist) as tf:
        members = {m.name.split("/", 1)[1] for m in tf.getmembers() if "/" in m.name}
    assert {f"services/{WEB}vendor/pyodide/{n}" for n in web.PYODIDE_FILES} <= members
    assert "mkdocs.yml" in members and "tools/docs_hooks.py" in members
    assert not [m for m in members if m.startswith("node_modules")]
    (wheel,) = (tmp_path / "dist").glob("cardcore-*.whl")  # built from the unpacked sdist
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        source_web = ROOT / "services" / "cardcore_server" / "web"
        page = {
            WEB + p.relative_to(src / "services" / "cardcore_server" / "web").as_posix()
            for p in (src / "services" / "cardcore_server" / "web").rglob("*")
            if p.is_file() and "vendor" not in p.parts and p.name != ".gitignore"
        }  # every tracked file of the page
        assert {WEB + "index.html", WEB + "app.css", WEB + "js/main.js"} <= page
        assert page <= names, sorted(page - names)
        assert zf.read(WEB + "index.html") == (source_web / "index.html").read_bytes()
        runtime = {WEB + "vendor/pyodide/" + n for n in web.PYODIDE_FILES}
        assert runtime <= names, sorted(runtime - names)
        wasm = zf.read(WEB + "vendor/pyodide/pyodide.asm.wasm")
        assert wasm == (PYODIDE / "pyodide.asm.wasm").read_bytes()
        assert wasm[:4] == b"\0asm"
        assert not [n for n in names if n.startswith(WEB + "vendor/pyodide/console")]
        assert "cardcore_server/_pb/game_service_pb2.py" in names
        assert "cardcore_server/web.py" in names and "cardcore/log.py" in names


def _hook_module() -> ModuleType:
    """hatch_build.py, imported with a stand-in for hatchling's hook interface."""
    stub = ModuleType("hatchling.builders.hooks.plugin.interface")
    setattr(stub, "BuildHookInterface", type("BuildHookInterface", (), {}))  # noqa: B010
    names = ["hatchling", "hatchling.builders", "hatchling.builders.hooks"]
    saved = {n: sys.modules.get(n) for n in [*names, stub.__name__]}
    try:
        for n in names:
            sys.modules[n] = ModuleType(n)
        sys.modules[stub.__name__] = stub
        spec = importlib.util.spec_from_file_location(
            "_cardcore_hatch_build", ROOT / "hatch_build.py"
        )
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        for n, m in saved.items():
            if m is None:
                sys.modules.pop(n, None)
            else:
                sys.modules[n] = m


def _fake_runtime(where: Path, tag: str) -> None:
    where.mkdir(parents=True)
    for name in web.PYODIDE_FILES:
        (where / name).write_text(f"{tag} {name}")


def test_the_hook_copies_the_runtime_or_says_what_to_do(tmp_path: Path) -> None:
    hook = _hook_module()
    assert tuple(hook.PYODIDE_FILES) == web.PYODIDE_FILES
    root = tmp_path / "checkout"
    vendor = root / hook.VENDOR
    root.mkdir()
    # neither a vendor copy nor node_modules: refused, with the remedy
    with pytest.raises(hook.PyodideMissing) as refused:
        hook.vendor_pyodide(root, {})
    text = str(refused.value)
    assert "npm ci" in text and "make web-vendor" in text and "CARDCORE_PYODIDE_DIR" in text
    assert not vendor.exists()
    # node_modules/pyodide: copied in whole
    _fake_runtime(root / "node_modules" / "pyodide", "v1")
    assert hook.vendor_pyodide(root, {}) == vendor
    assert sorted(p.name for p in vendor.iterdir()) == sorted(web.PYODIDE_FILES)
    assert (vendor / "pyodide.asm.wasm").read_text() == "v1 pyodide.asm.wasm"
    # a vendor copy left from another version is brought in line, never mixed
    (vendor / "pyodide.mjs").write_text("stale")
    (vendor / "python_stdlib.zip").unlink()
    hook.vendor_pyodide(root, {})
    assert (vendor / "pyodide.mjs").read_text() == "v1 pyodide.mjs"
    assert (vendor / "python_stdlib.zip").read_text() == "v1 python_stdlib.zip"
    # CARDCORE_PYODIDE_DIR wins over node_modules
    _fake_runtime(tmp_path / "elsewhere", "v2")
    hook.vendor_pyodide(root, {"CARDCORE_PYODIDE_DIR": str(tmp_path / "elsewhere")})
    assert (vendor / "pyodide.asm.wasm").read_text() == "v2 pyodide.asm.wasm"
    # no source at all, but a complete vendor copy (a tree after `make web-vendor`): used as is
    for p in (root / "node_modules" / "pyodide").iterdir():
        p.unlink()
    assert hook.vendor_pyodide(root, {}) == vendor
    # an incomplete vendor copy and no source: refused
    (vendor / "pyodide-lock.json").unlink()
    with pytest.raises(hook.PyodideMissing):
        hook.vendor_pyodide(root, {})


def test_the_hook_ships_the_files_the_server_serves() -> None:
    text = (ROOT / "hatch_build.py").read_text()
    for name in web.PYODIDE_FILES:
        assert f'"{name}"' in text, name
