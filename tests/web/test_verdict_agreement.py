"""One verdict in three places (issue 21): the corpus of tests/forgeries.py — a genuine signed
game, what its seat 0 holds, and forgeries of its final log resealed with the revealed salt —
judged with and without receipts and the server key by the ``cardcore`` command (CPython), the
Node verifier (cardcore's Python under Pyodide in Node) and the web page (the same, in the
page's worker in Chromium). The three agree word for word and exit code for exit code; what each
verdict must say is tests/unit/test_verdicts.py's.

One Pyodide boot in Node and one page for the whole corpus (the page's run drives Chromium, so
this is a ``serial`` test through ``browser_ready``)."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
from pathlib import Path
from typing import Any

from cardcore.cli import main
from tests.forgeries import Case, corpus

from ..rest.helpers import RestServer

ROOT = Path(__file__).resolve().parents[2]
NODE_VERIFIER = ROOT / "clients" / "node" / "bin" / "cardcore-verify.js"
PAGE_DRIVER = Path(__file__).with_name("driver") / "verdicts.mjs"
Answer = tuple[int, str]


def python(case: Case, folder: Path) -> Answer:
    for name, text in case.files.items():
        if not (folder / name).exists():
            (folder / name).write_text(text, encoding="utf-8")
    argv = [str(folder / a[1:]) if a.startswith("@") else a for a in case.argv]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(argv, out)
    return code, (out.getvalue().strip() or err.getvalue().strip())


def _run(argv: list[str], cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``argv`` with the cases piped as JSON to its standard input (a pipe, as another
    program would give them: Node once read it with readFileSync, which fails there)."""
    done = subprocess.run(
        argv,
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    answers: list[dict[str, Any]] = json.loads(done.stdout)
    return answers


def node(cases: list[Case]) -> list[Answer]:
    batch = [{"argv": [a.removeprefix("@") for a in c.argv[1:]], "files": c.files} for c in cases]
    answers = _run(["node", str(NODE_VERIFIER), "--batch"], batch)
    return [(r["exit"], (r["stdout"].strip() or r["stderr"].strip())) for r in answers]


def page(cases: list[Case], server: RestServer) -> list[Answer]:
    batch = [{"argv": c.argv, "files": c.files} for c in cases]
    answers = _run(["node", str(PAGE_DRIVER), server.url], batch)
    return [(r["exit"], r["text"].strip()) for r in answers]


def test_python_node_and_the_page_give_one_verdict(web_server: RestServer, tmp_path: Path) -> None:
    cases = corpus()
    by_python = [python(c, tmp_path) for c in cases]
    by_node = node(cases)
    by_page = page(cases, web_server)
    for case, py, nd, pg in zip(cases, by_python, by_node, by_page, strict=True):
        assert nd == py, f"{case.name}: Node says {nd}, Python {py}"
        assert pg == py, f"{case.name}: the page says {pg}, Python {py}"
    named = {c.name: (c, v) for c, v in zip(cases, by_python, strict=True)}
    # the cases the old Node verifier called valid (a forged winner, a dropped entry), and the
    # one it named at the end line rather than the entry the receipts hold otherwise
    for name in ("winner: alone", "dropped: alone", "at_ms: receipts"):
        case, (code, text) = named[name]
        assert code == 1 and text.startswith(f"INVALID at seq {case.at}: "), text
