"""First contact, served (issue 21): ``make serve`` on a fresh tree — the tracked files alone, no
``.venv``, no ``node_modules``, no generated stubs — in a new shell with a clean environment sets
everything up, fetches the web table's runtime without Node and serves; then, against that one
server, a person plays a game to the end in the page and reads its verdicts (headless Chromium),
and every shell line of the README and of docs/getting-started.md that needs a server runs as
written in a new shell: the REST session, the tables walk-through, the guide's first games over
REST and gRPC and its Python client, settling a dispute, ``cardcore serve`` and ``demo``, and the
``make`` lines.

What changes in a line: the server's addresses (``SERVE_ARGS="--port 0 --rest-port 0"``, the
lines' ``127.0.0.1:50051``/``50052`` replaced by the ports it printed), ``SERVE_DB`` under the
test's folder, and ``npm_config_registry``: a local registry serving the genuine pinned Pyodide
tarball, so that nothing is downloaded from npm. pip uses the machine's package index.

One boot for the module (about a minute: pip installs the three distributions and the dev
tools); the lines that need a server run at once in the background while the browser plays,
each test then checking its own. ``serial`` (one process beside the parallel run): the module
mostly waits, on pip and on bots playing in real time, and holds no timing to a bound."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from cardcore import log as clog
from cardcore_server import pyodide_runtime

from ..fresh_tree import ROOT, copy_tracked, pinned_tarball, registry
from ..rest.test_readme_curl import check_sensible_game, check_session, cli_verdict, session_script
from ..rest.test_readme_tables import Terminal, check_walk_through, walk_through
from . import snippets
from .shell import DEFAULT_PATH, activate, bash, expected_exit, new_shell_env, no_traceback

pytestmark = [pytest.mark.slow, pytest.mark.serial]

BOOT_TIMEOUT_S = 600
CHROMIUM = os.environ.get("CARDCORE_CHROMIUM", "/usr/bin/chromium")


@dataclass
class Served:
    """``make serve`` running in ``tree``, and where it answers."""

    tree: Path
    tmp: Path
    env: dict[str, str]
    rest: str  # http://127.0.0.1:PORT
    grpc: int

    def activated(self) -> dict[str, str]:
        """A new shell's environment after ``source .venv/bin/activate``."""
        venv = self.tree / ".venv"
        return {**self.env, "VIRTUAL_ENV": str(venv), "PATH": f"{venv}/bin:{DEFAULT_PATH}"}

    def api(self, text: str) -> str:
        """``text`` with the lines' default addresses replaced by this server's."""
        text = text.replace(snippets.DEFAULT_API, self.rest)
        return text.replace(snippets.DEFAULT_GRPC, f"127.0.0.1:{self.grpc}")

    def folder(self, name: str) -> Path:
        path = self.tmp / name
        path.mkdir()
        return path


def _ready_lines(proc: subprocess.Popen[str]) -> list[str]:
    """make's and the server's stdout until the REST line (the server is ready), or its end."""
    lines: list[str] = []
    done = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            if line.startswith("cardcore REST on "):
                break
        done.set()

    threading.Thread(target=read, daemon=True).start()
    done.wait(BOOT_TIMEOUT_S)
    return lines


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("first-contact")
    tree = tmp / "cardcore"
    copy_tracked(tree, new_files=True)
    assert not (tree / ".venv").exists() and not (tree / "node_modules").exists()
    with registry(pinned_tarball()) as (url, hits):
        env = new_shell_env(tmp / "home", npm_config_registry=url)
        serve_env = {
            **env,
            "SERVE_ARGS": "--port 0 --rest-port 0",
            "SERVE_DB": str(tmp / "db" / "cardcore.db"),
        }
        err = open(tmp / "serve.err", "w")  # noqa: SIM115 — owned by the child
        proc = subprocess.Popen(
            ["bash", "-c", "make serve"],
            cwd=tree,
            env=serve_env,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            start_new_session=True,  # its own process group: Ctrl-C reaches make and the server
        )
        err.close()
        try:
            lines = _ready_lines(proc)
            ports = re.findall(
                r"^cardcore (?:serving on 127\.0\.0\.1:|REST on )(\S+)$", "\n".join(lines), re.M
            )
            assert len(ports) == 2, "\n".join(lines) + (tmp / "serve.err").read_text()[-3000:]
            assert hits == [f"/pyodide/-/pyodide-{pyodide_runtime.VERSION}.tgz"], hits
            yield Served(tree, tmp, env, ports[1], int(ports[0]))
        finally:
            os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C in its terminal
            proc.wait(timeout=60)


# --------------------------------------------------------------------------- the lines, at once


def readme_rest(s: Served) -> tuple[Any, Path]:
    """The README's REST session, in a new shell that activated ``.venv`` (its verify line)."""
    cwd = s.folder("readme-rest")
    return bash(activate(s.tree) + s.api(session_script()), cwd, s.env, timeout=300), cwd


def readme_tables(s: Served) -> list[Terminal]:
    return walk_through(s.rest, s.folder("tables"), s.activated())


def guide_rest(s: Served) -> Any:
    """The guide's first game over REST: its two blocks, one after the other, in one shell at
    the repository's root (its verify line is ``.venv/bin/cardcore``)."""
    blocks = snippets.under(snippets.GETTING_STARTED, "## A first game over REST")
    return bash(s.api("".join(b.text for b in blocks)), s.tree, s.env, timeout=300)


def buf_curl(s: Served, path: Path, heading: str) -> Any:
    """``buf curl`` lines, where ``npm ci`` has put ``node_modules/.bin/buf`` (the checkout's,
    linked: the fresh tree has no node_modules)."""
    (block,) = snippets.under(path, heading)
    cwd = s.folder(re.sub(r"\W+", "-", heading.strip("# ")).lower())
    (cwd / "node_modules").symlink_to(ROOT / "node_modules")
    return bash(s.api(block.text), cwd, s.env, timeout=120)


def guide_python(s: Served, heading: str) -> tuple[Any, Path]:
    """A Python block of the guide, saved and run with the virtualenv's python."""
    (block,) = snippets.under(snippets.GETTING_STARTED, heading, lang="python")
    cwd = s.folder(re.sub(r"\W+", "-", heading.strip("# ")).lower())
    (cwd / "example.py").write_text(s.api(block.text))
    return bash("python3 example.py", cwd, s.activated(), timeout=300), cwd


def dispute(s: Served) -> list[tuple[str, Any]]:
    """The README's dispute lines, each in a new shell, on the files they name: a copy of seat
    0's log downloaded mid-game, its receipts and the final log of one game."""
    cwd = s.folder("dispute")
    asyncio.run(_dispute_files(f"127.0.0.1:{s.grpc}", cwd))
    (block,) = snippets.under(snippets.README, "### Settling a dispute")
    return [(line, bash(s.api(line), cwd, s.activated())) for line in block.lines]


async def _dispute_files(target: str, cwd: Path) -> None:
    from cardcore_client import Client, Rejection

    async with Client(target) as client:
        game = await client.create_game(
            "ratscrew", ["human", "reaction"], event_limit=40, bot_delay_ms=(1, 5)
        )
        me = client.game(game.game_id, game.seat_tokens[0])
        while (view := await me.view()).outcome is None:
            if view.seq >= 3 and not (cwd / "seat0-copy.jsonl").exists():
                (cwd / "seat0-copy.jsonl").write_bytes((await me.log())[0])
            command = next((c for c in view.legal_commands if c.kind != "Slap"), None)
            try:
                await (me.submit(command) if command else asyncio.sleep(0.01))
            except Rejection:
                pass  # the bot was faster
        async for _ in me.stream(from_seq=0, receipts=cwd / "seat0.receipts.jsonl"):
            pass
        log, complete = await me.log()
        assert complete and (cwd / "seat0-copy.jsonl").exists()
        (cwd / "final.jsonl").write_bytes(log)


def service_lines(s: Served) -> list[tuple[str, int, str]]:
    """The README's ``cardcore serve``/``demo`` lines, each in a new shell that activated
    ``.venv``: a server on free ports (``--port 0 --rest-port 0`` in place of its fixed ones),
    stopped with SIGTERM once ready; any other line run to its end. (line, exit, output)."""
    (block,) = snippets.under(snippets.README, "## The service")
    cwd, out = s.folder("service"), []
    for line in block.lines:
        if not line.startswith("cardcore serve"):
            done = bash(line, cwd, s.activated(), timeout=300)
            out.append((line, done.returncode, done.stdout + done.stderr))
            continue
        command = re.sub(r"--port \d+", "", line.partition("  #")[0]) + " --port 0 --rest-port 0"
        proc = subprocess.Popen(
            ["bash", "-c", f"exec {command}"],
            cwd=cwd,
            env=s.activated(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        ready = _ready_lines(proc)
        ok = bool(ready) and ready[-1].startswith("cardcore REST on ")
        if ok:
            # once it answers: the server prints its addresses a moment before it handles
            # SIGTERM (services/cardcore_server/transports/server.py), and a signal in between
            # kills it
            httpx.get(ready[-1].split()[-1] + "/readyz", timeout=10).raise_for_status()
        proc.send_signal(signal.SIGTERM)  # "SIGTERM stops gracefully"
        rest = proc.communicate(timeout=60)[0]
        out.append((line, proc.returncode if ok else -1, "\n".join(ready) + rest))
    return out


def make_lines(s: Served) -> list[tuple[str, Any]]:
    """Every ``make`` line of the README and the guide but ``make serve`` (running) and those
    not run here (snippets.NOT_HERE), each in a new shell at the repository's root. ``make
    setup`` runs first, alone: it installs what the others need (the dev tools, the stubs); the
    others then at once, each finding its prerequisites up to date (they took a minute in turn,
    make golden half of it)."""
    lines = [ln for ln in snippets.make_lines() if snippets.command(ln) != "make serve"]
    first = [ln for ln in lines if snippets.command(ln) == "make setup"][:1]
    others = [ln for ln in lines if ln not in first]
    golden = _golden(s.tree)
    done = [(ln, bash(ln, s.tree, s.env, timeout=300)) for ln in first]
    with ThreadPoolExecutor(len(others)) as pool:
        jobs = [pool.submit(bash, ln, s.tree, s.env, timeout=300) for ln in others]
        done += [(ln, job.result()) for ln, job in zip(others, jobs, strict=True)]
    changed = sorted(k for k, v in _golden(s.tree).items() if golden.get(k) != v)
    return [*done, ("(the golden logs changed)", changed)]


def _golden(tree: Path) -> dict[str, bytes]:
    root = tree / "tests" / "golden"
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


JOBS: dict[str, Callable[[Served], Any]] = {
    "readme_rest": readme_rest,
    "readme_tables": readme_tables,
    "guide_rest": guide_rest,
    "guide_grpc": lambda s: buf_curl(s, snippets.GETTING_STARTED, "## A first game over gRPC"),
    "readme_buf": lambda s: buf_curl(s, snippets.README, "### Other clients: Node, and buf curl"),
    "guide_client": lambda s: guide_python(s, "## The Python client"),
    "guide_library": lambda s: guide_python(s, "## The library"),
    "dispute": dispute,
    "service": service_lines,
    "make": make_lines,
}


@pytest.fixture(scope="module")
def background(served: Served) -> Iterator[dict[str, Future[Any]]]:
    """Every job above, started at once against the one server (they mostly wait: on bots that
    play at a human pace, on their own servers' start)."""
    with ThreadPoolExecutor(len(JOBS)) as pool:
        yield {name: pool.submit(job, served) for name, job in JOBS.items()}


def result(background: dict[str, Future[Any]], name: str) -> Any:
    return background[name].result(timeout=BOOT_TIMEOUT_S)


# --------------------------------------------------------------------------- what each shows


def test_make_serve_on_a_fresh_tree_serves_everything(served: Served) -> None:
    """Ready, with the web table's runtime (fetched without Node), in the .venv it made: the three
    distributions, without the developers' tools (``make test`` adds those)."""
    with httpx.Client(base_url=served.rest, timeout=10) as http:
        assert http.get("/readyz").status_code == 200
        assert http.get("/web/pyodide/pyodide.mjs").status_code == 200
        assert http.get("/").status_code == 200
    site = next((served.tree / ".venv" / "lib").glob("python3*/site-packages"))
    have = {p.name.split("-")[0].lower() for p in site.glob("*.dist-info")}
    assert {"cardcore", "cardcore_client", "cardcore_server"} <= have
    assert not {"pytest", "mypy", "ruff"} & have, have


def _browser_missing() -> str | None:
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM} (apt-get install -y chromium)"
    if not (ROOT / "node_modules" / "playwright-core" / "package.json").exists():
        return "node_modules/playwright-core is missing (npm ci)"
    return None


def test_the_page_plays_a_game_to_the_end_and_shows_its_verdicts(
    served: Served, background: dict[str, Future[Any]], tmp_path: Path
) -> None:
    # `background` first: the other lines run while the person plays
    if why := _browser_missing():
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    out = tmp_path / "result.json"
    args = json.dumps({"base": served.rest, "result": str(out)})
    done = subprocess.run(
        ["node", str(Path(__file__).with_name("first_contact.mjs")), args],
        cwd=ROOT,
        env={**os.environ, "CARDCORE_CHROMIUM": CHROMIUM},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.exists(), done.stdout + done.stderr
    r = json.loads(out.read_text())
    assert "error" not in r and not r["errors"], r.get("error") or r["errors"]
    assert r["runtime"] and all(x["status"] == 200 for x in r["runtime"]), r["runtime"]
    final = clog.loads(r["final"].encode())
    assert final[-1]["type"] == "end" and r["termination"] == final[-1]["outcome"]["termination"]
    # the page's verdicts are cardcore verify's, word for word (with the server's key or
    # without): the receipts alone, the receipts against the final log, the final log
    mine, last = tmp_path / "mine.jsonl", tmp_path / "final.jsonl"
    mine.write_text(r["receipts"])
    last.write_text(r["final"])
    key = ("--server-key", str(final[0].get("signature", {}).get("key", "")))
    forms = [(mine,), (last, "--receipts", str(mine)), (last,)]
    shown = [(v["exit"], v["text"]) for v in r["verdicts"]]
    assert len(shown) == 3, shown
    for (code, text), (path, *options) in zip(shown, forms, strict=True):
        assert code == 0, (code, text)
        assert text in {cli_verdict(path, *options)[1], cli_verdict(path, *key, *options)[1]}


def test_the_readme_rest_session(background: dict[str, Future[Any]]) -> None:
    check_session(*result(background, "readme_rest"))


def test_the_readme_tables_walk_through(background: dict[str, Future[Any]]) -> None:
    check_walk_through(result(background, "readme_tables"))


def test_the_guide_rest_game(served: Served, background: dict[str, Future[Any]]) -> None:
    done = result(background, "guide_rest")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    no_traceback(done)
    assert "ratscrew" in done.stdout.splitlines()[0]
    assert "id: 0\nevent: entry" in done.stdout  # the stream's first entries
    check_sensible_game(clog.loads((served.tree / "game.jsonl").read_bytes()), seat=0)
    code, verdict = cli_verdict(served.tree / "game.jsonl")
    assert done.stdout.rstrip().endswith(verdict) and code == 0, (code, verdict)


def _needs_buf() -> None:
    if not (ROOT / "node_modules" / ".bin" / "buf").exists():
        if os.environ.get("CI"):
            pytest.fail("node_modules/.bin/buf is missing under CI (npm ci)")
        pytest.skip("node_modules/.bin/buf is missing (npm ci)")


def test_the_readme_buf_curl_line(background: dict[str, Future[Any]]) -> None:
    _needs_buf()
    done = result(background, "readme_buf")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    names = [g["name"] for g in json.loads(done.stdout)["games"]]
    assert "ratscrew" in names, names


def test_the_guide_grpc_game(background: dict[str, Future[Any]]) -> None:
    _needs_buf()
    done = result(background, "guide_grpc")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert '"name": "ratscrew"' in done.stdout  # ListGames
    answer = json.loads(done.stdout[done.stdout.rindex("\n{") :])  # SubmitAction's answer
    entry = answer["entry"]  # proto3 JSON: 64-bit integers are strings
    assert entry["seq"] == "1" and entry["action"]["kind"] == "Play", answer


def test_the_guide_python_client(background: dict[str, Future[Any]]) -> None:
    done, cwd = result(background, "guide_client")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    no_traceback(done)
    receipts = cwd / "seat0.receipts.jsonl"
    check_sensible_game(clog.loads(receipts.read_bytes()), seat=0)
    code, verdict = cli_verdict(receipts)  # "settles the game from this file alone"
    assert code == 0, verdict


def test_the_guide_library_example(background: dict[str, Future[Any]]) -> None:
    done, _ = result(background, "guide_library")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.strip(), "what seat 1 sees"


def test_settling_a_dispute(background: dict[str, Future[Any]]) -> None:
    """Each line exits as its comment says (``exit 3`` for a copy downloaded mid-game, else 0)."""
    for line, done in result(background, "dispute"):
        no_traceback(done)
        assert done.returncode == expected_exit(line), (line, done.stdout, done.stderr)
        assert done.stdout.strip(), line


def test_the_service_lines(background: dict[str, Future[Any]]) -> None:
    for line, code, out in result(background, "service"):
        assert code == 0, (line, out[-3000:])
        assert "Traceback" not in out, (line, out[-3000:])
        if "demo" in line:
            assert " 0 failed" in out, out[-2000:]


def test_the_make_lines(background: dict[str, Future[Any]]) -> None:
    *done, (_, golden_changed) = result(background, "make")
    ran = {snippets.command(line) for line, _ in done}
    assert {"make setup", "make simulate", "make demo", "make golden", "make docs"} <= ran, ran
    for line, proc in done:
        assert proc.returncode == 0, (line, proc.stdout[-2000:], proc.stderr[-3000:])
    assert not golden_changed, f"make golden on a fresh tree changes nothing: {golden_changed}"
