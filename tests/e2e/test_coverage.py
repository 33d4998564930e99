"""Every shell line of the README and docs/getting-started.md is run by a test, as written, or
listed in ``snippets.NOT_HERE`` with the reason it cannot run here: a new line without a test
fails this file. A block is run whole by the test ``snippets.RUN_BY`` names for its heading;
``make`` lines by test_serve.py (``make serve`` is its server)."""

from __future__ import annotations

import importlib
from pathlib import Path

from . import snippets

FILES = (snippets.README, snippets.GETTING_STARTED)


def uncovered(blocks: list[snippets.Block]) -> list[str]:
    """The lines of ``blocks`` that no test runs and no reason excuses."""
    missing = []
    for block in blocks:
        if snippets.run_by(block) is not None:
            continue
        for line in block.lines:
            command = snippets.command(line)
            if command not in snippets.NOT_HERE and not command.startswith("make "):
                missing.append(f"{block.path.name} {block.heading}: {line}")
    return missing


def test_every_shell_line_is_run_by_a_test_or_says_why_not() -> None:
    found = [b for path in FILES for b in snippets.blocks(path)]
    assert len(found) >= 12, [b.heading for b in found]
    missing = uncovered(found)
    assert not missing, "lines no test runs (run them, or say why in NOT_HERE):\n" + "\n".join(
        missing
    )


def test_each_claim_names_a_real_test_and_a_real_line() -> None:
    by_name = {path.name: path for path in FILES}
    for (name, heading, holding), test in snippets.RUN_BY.items():
        assert snippets.under(by_name[name], heading, holding=holding), (name, heading)
        module, _, function = test.partition("::")
        runner = importlib.import_module(f"{__package__}.{module.removesuffix('.py')}")
        assert function == "" or callable(getattr(runner, function, None)), test
    commands = {
        snippets.command(ln) for path in FILES for b in snippets.blocks(path) for ln in b.lines
    }
    stale = set(snippets.NOT_HERE) - commands
    assert not stale, f"reasons for lines the files no longer have: {stale}"
    assert snippets.make_lines(), "the make lines test_serve.py runs"


def test_a_line_added_without_a_test_is_caught(tmp_path: Path) -> None:
    doc = tmp_path / "README.md"
    doc.write_text(
        "# cardcore\n\n## The command line\n\n```sh\ncardcore games\n```\n\n"
        "## Somewhere new\n\n```sh\n# a comment\nmake test\ncardcore frobnicate   # new\n```\n"
    )
    assert uncovered(snippets.blocks(doc)) == [
        "README.md ## Somewhere new: cardcore frobnicate   # new"
    ]
