"""The repository's three distributions build as a release builds them (issue 21), from a copy of
the tracked files alone (no ``node_modules``, no generated stubs, no vendored runtime):

* ``cardcore`` (``.``): the engine alone — stdlib only, no Node, well under 500 KB: the pure wheel,
  its build hook idle (the compiled wheel, ``CARDCORE_COMPILE=1``:
  tests/e2e/test_compiled_build.py);
* ``cardcore-client`` (``clients/python``): the client and the stubs it generates from
  ``proto/`` (its sdist carries the ``.proto`` files, so its wheel builds from the sdist);
* ``cardcore-server`` (``services``): the service, the web table and the Pyodide runtime, which
  its build downloads from the npm registry (here a local one serving the genuine pinned
  tarball) and checks against the pin; the sdist carries it, so the wheel built from it needs no
  registry at all.

Each is built with ``python -m build --no-isolation`` (the sdist, then the wheel from the unpacked
sdist), the build tools coming from the dev virtualenv: a few seconds each, offline. That a fresh
clone installs with pip's isolated builds is the first-contact test's (tests/e2e)."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import shutil
import sys
import tarfile
import zipfile
from email.parser import HeaderParser
from pathlib import Path

import pytest

from cardcore_server import pyodide_runtime

from ..fresh_tree import copy_tracked, pinned_tarball, python_build, registry, required

ROOT = Path(__file__).resolve().parents[2]
WEB = "cardcore_server/web/"
ENGINE_WHEEL_LIMIT = 500_000


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("tree")
    copy_tracked(src)
    assert not (src / "node_modules").exists()
    assert not (src / "clients/python/cardcore_proto").exists()
    assert not (src / "services" / WEB / "vendor").exists()
    return src


def _build(folder: Path, out: Path, **env: str) -> None:
    """``python -m build`` (sdist, then the wheel from the unpacked sdist), no isolation, with
    no Pyodide source in the environment but what ``env`` gives (an unreachable registry by
    default: a build that tried to download would fail)."""
    clean = {
        k: v for k, v in os.environ.items() if k not in (pyodide_runtime.ENV, "npm_config_registry")
    }
    clean["PATH"] = str(Path(sys.executable).parent) + ":/usr/bin:/bin"
    clean.update(env, npm_config_registry=env.get("npm_config_registry", "http://127.0.0.1:9/"))
    python_build([str(folder)], out, clean, cwd=folder)


def _one(out: Path, pattern: str) -> Path:
    (found,) = out.glob(pattern)
    return found


def _requires(wheel: zipfile.ZipFile) -> list[str]:
    meta = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
    return HeaderParser().parsestr(wheel.read(meta).decode()).get_all("Requires-Dist") or []


@pytest.mark.slow
def test_the_engine_is_the_engine_alone(tree: Path, tmp_path: Path) -> None:
    _build(tree, tmp_path)
    wheel = _one(tmp_path, "cardcore-*.whl")
    assert wheel.stat().st_size < ENGINE_WHEEL_LIMIT, wheel.stat().st_size
    with zipfile.ZipFile(wheel) as zf:
        packages = {n.split("/")[0] for n in zf.namelist() if not n.startswith("cardcore-")}
        assert packages == {"cardcore"}, packages
        assert "cardcore/games/ratscrew/rules.py" in zf.namelist()
        assert required(_requires(zf)) == [], (
            "the engine has no dependency (its extras' are optional)"
        )
        extras = {r.split("extra ==")[1].strip().strip("'\"") for r in _requires(zf)}
        assert extras == {"rl", "ladder"}, extras
    assert wheel.name.endswith("-py3-none-any.whl"), "a plain build is the pure wheel"


@pytest.mark.slow
def test_the_client_ships_the_stubs_it_generates(tree: Path, tmp_path: Path) -> None:
    _build(tree / "clients" / "python", tmp_path)
    with tarfile.open(_one(tmp_path, "cardcore_client-*.tar.gz")) as tf:
        members = {m.name.split("/", 1)[1] for m in tf.getmembers() if "/" in m.name}
    assert "proto/cardcore/v1/game_service.proto" in members, "the sdist carries the contract"
    assert not [m for m in members if m.startswith("cardcore_proto/")], "generated, not shipped"
    with zipfile.ZipFile(_one(tmp_path, "cardcore_client-*.whl")) as zf:
        names = set(zf.namelist())
        assert {"cardcore_proto/game_service_pb2.py", "cardcore_client/client.py"} <= names
        assert not [n for n in names if n.startswith(("cardcore/", "cardcore_server/"))]
        needs = _requires(zf)
        assert any(d.startswith("grpcio") for d in needs)
        # the client speaks the wire contract: the engine only for its bots extra (botseat)
        engine = [d for d in needs if d.startswith("cardcore")]
        assert engine == ["cardcore==0.1.0; extra == 'bots'"], needs


@pytest.mark.slow
def test_the_service_fetches_its_runtime_without_node(tree: Path, tmp_path: Path) -> None:
    with registry(pinned_tarball()) as (url, hits):
        _build(tree / "services", tmp_path, npm_config_registry=url)
    assert len(hits) == 1, "the sdist's build downloads; the wheel's, from the sdist, does not"
    with tarfile.open(_one(tmp_path, "cardcore_server-*.tar.gz")) as tf:
        members = {m.name.split("/", 1)[1] for m in tf.getmembers() if "/" in m.name}
    assert {f"{WEB}vendor/pyodide/{n}" for n in pyodide_runtime.FILES} <= members
    with zipfile.ZipFile(_one(tmp_path, "cardcore_server-*.whl")) as zf:
        names = set(zf.namelist())
        page = {
            WEB + p.relative_to(tree / "services" / WEB).as_posix()
            for p in (tree / "services" / WEB).rglob("*")
            if p.is_file() and p.name != ".gitignore"
        }
        assert {WEB + "index.html", WEB + "js/main.js"} <= page <= names, sorted(page - names)
        for name, sha in pyodide_runtime.FILES.items():
            assert hashlib.sha256(zf.read(f"{WEB}vendor/pyodide/{name}")).hexdigest() == sha
        assert not [n for n in names if n.startswith(("cardcore/", "cardcore_proto/"))]
        needs = _requires(zf)
        assert "cardcore==0.1.0" in needs and "cardcore-client==0.1.0" in needs
        assert any(d.startswith("litestar") for d in needs)


# --------------------------------------------------------------------------- the runtime's source


def _fake_pin(monkeypatch: pytest.MonkeyPatch, tag: str) -> tuple[bytes, dict[str, bytes]]:
    """A made-up runtime and its tarball, pinned in place of the real one."""
    files = {name: f"{tag} {name}".encode() for name in pyodide_runtime.FILES}
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, body in files.items():
            info = tarfile.TarInfo(f"package/{name}")
            info.size = len(body)
            tf.addfile(info, io.BytesIO(body))
    tarball = buf.getvalue()
    sri = "sha512-" + base64.b64encode(hashlib.sha512(tarball).digest()).decode()
    monkeypatch.setattr(pyodide_runtime, "INTEGRITY", sri)
    pins = {n: hashlib.sha256(b).hexdigest() for n, b in files.items()}
    monkeypatch.setattr(pyodide_runtime, "FILES", pins)
    return tarball, files


def _holds(folder: Path, files: dict[str, bytes]) -> bool:
    return all((folder / n).read_bytes() == b for n, b in files.items())


def test_the_runtime_comes_from_the_first_pinned_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tarball, files = _fake_pin(monkeypatch, "v1")
    dest, node_modules, elsewhere = tmp_path / "vendor", tmp_path / "nm", tmp_path / "elsewhere"
    for folder in (node_modules, elsewhere):
        folder.mkdir()
        for name, body in files.items():
            (folder / name).write_bytes(body)
    env = {pyodide_runtime.ENV: str(elsewhere)}
    assert pyodide_runtime.provide(dest, environ=env, node_modules=node_modules) == str(elsewhere)
    assert _holds(dest, files)
    # a vendor copy of another version is brought in line, never mixed
    (dest / "pyodide.mjs").write_text("stale")
    (dest / "python_stdlib.zip").unlink()
    assert pyodide_runtime.provide(dest, environ={}, node_modules=node_modules) == str(node_modules)
    assert _holds(dest, files)
    # nothing local: the registry, its tarball checked
    shutil.rmtree(dest)
    with registry(tarball) as (url, hits):
        env = {"npm_config_registry": url}
        source = pyodide_runtime.provide(dest, environ=env, node_modules=tmp_path / "none")
    assert source.startswith(url) and len(hits) == 1 and _holds(dest, files)


def test_a_runtime_not_the_pinned_one_is_refused_saying_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tarball, files = _fake_pin(monkeypatch, "v1")
    wrong = tmp_path / "nm"
    wrong.mkdir()
    for name in files:
        (wrong / name).write_text("v0 " + name)  # another version in node_modules
    altered = tarball[:-8] + bytes(8)  # a registry that serves other bytes
    with registry(altered) as (url, _), pytest.raises(pyodide_runtime.RuntimeUnavailable) as no:
        pyodide_runtime.provide(
            tmp_path / "vendor", environ={"npm_config_registry": url}, node_modules=wrong
        )
    text = str(no.value)
    assert "does not have the pinned sha512" in text and f"{wrong} (not pyodide" in text
    assert "npm ci" in text and pyodide_runtime.ENV in text
    assert not (tmp_path / "vendor" / "pyodide.mjs").exists()
