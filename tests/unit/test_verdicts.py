"""Verdicts that mean what they say (issue 21): the corpus of tests/forgeries.py — one genuine
signed game, what its seat 0 holds, and forgeries rewritten and resealed with the revealed salt —
judged by ``cardcore verify`` with and without receipts and the server key.

Each verdict's first words say how far it goes; with receipts it names the first entry that
differs from what the player holds; a genuine file is never called invalid, an input the check
cannot judge is "unsupported"; and no verdict shows a Python repr. The Node verifier and the
page run this same command under Pyodide, held to the same words by clients/node's tests and
tests/web."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from cardcore.cli import main
from tests.forgeries import Case, corpus

CASES = corpus()
FIRST_WORDS = {
    "valid": 0,
    "self-consistent": 0,
    "consistent so far": 3,
    "INVALID": 1,
    "unsupported": 2,
}


def run_case(case: Case, folder: Path, *extra: str) -> tuple[int, str]:
    for name, text in case.files.items():
        path = folder / name
        if not path.exists():
            path.write_text(text, encoding="utf-8")
    argv = [str(folder / a[1:]) if a.startswith("@") else a for a in case.argv]
    out = io.StringIO()
    return main([*argv, *extra], out), out.getvalue()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("corpus")


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_each_verdict_says_how_far_it_goes(case: Case, folder: Path) -> None:
    code, text = run_case(case, folder)
    assert text.startswith(case.status), text
    assert code == FIRST_WORDS[case.status], text
    assert text.count("\n") == 1, "one line"
    assert not re.search(r"\b[A-Z][a-z]+\(|<[A-Z]\w+\.", text), f"a Python repr: {text}"
    if case.status != "INVALID":
        return
    seq = int(m.group(1)) if (m := re.match(r"INVALID at seq (\d+): ", text)) else "header"
    if case.at_least:
        assert isinstance(seq, int) and isinstance(case.at, int) and seq >= case.at, text
    else:
        assert seq == case.at, text


@pytest.mark.parametrize("case", CASES[:8], ids=[c.name for c in CASES[:8]])
def test_genuine_files_are_never_invalid(case: Case, folder: Path) -> None:
    assert case.status != "INVALID"
    code, text = run_case(case, folder)
    assert code in (0, 2, 3) and "INVALID" not in text


def test_json_verdicts_carry_the_same_words(folder: Path) -> None:
    for case in CASES:
        code, text = run_case(case, folder)
        jcode, jtext = run_case(case, folder, "--json")
        got = json.loads(jtext)
        assert (jcode, got["exit"], got["text"]) == (code, code, text.strip())
        assert text.startswith(got["status"])
        if got["status"] == "INVALID":
            assert f"INVALID at {'seq ' if got['at'] != 'header' else ''}{got['at']}:" in text


def test_a_forgery_without_evidence_is_never_called_valid(folder: Path) -> None:
    """The at_ms rewrite is a possible game: without a key or receipts nothing can see it, and
    the verdict must not say more than that."""
    (case,) = [c for c in CASES if c.name == "at_ms: alone"]
    code, text = run_case(case, folder)
    assert code == 0 and text.startswith("self-consistent, not authenticated:")
    assert "--server-key" in text and "--receipts" in text


def test_unreadable_and_foreign_files_are_unsupported(folder: Path) -> None:
    (folder / "notjson.jsonl").write_text("this is not JSON\n")
    (folder / "other.jsonl").write_text('{"type": "something else"}\n')
    (folder / "empty.jsonl").write_text("")
    for name, words in (
        ("notjson.jsonl", "is not JSON Lines"),
        ("other.jsonl", "is not a cardcore log, copy or receipts file"),
        ("empty.jsonl", "holds no lines"),
    ):
        out = io.StringIO()
        assert main(["verify", str(folder / name)], out) == 2
        assert out.getvalue().startswith("unsupported: ") and words in out.getvalue()
    run_case(CASES[0], folder)  # the corpus's files
    out = io.StringIO()
    mine = str(folder / "seat0.receipts.jsonl")
    assert main(["verify", "--receipts", mine, mine], out) == 2
    assert out.getvalue().startswith("unsupported: the final log must be the server's")
