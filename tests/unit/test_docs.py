"""The documentation site cannot fall behind the code (docs/, mkdocs.yml, tools/docs_hooks.py):

* every registered game has its page under docs/games/, in the site's nav, and every variant
  flag of its rules is in that page's flag table with the catalogue's default;
* every rule citation in cardcore/ (``docs/games/<page>.md#<section>``) names a section that
  exists, and none cites the old rules file or its section numbers, which the repository never
  had;
* every scenario test (tests/scenarios) is named after what it checks, never a section number,
  and its docstring opens with the sections it checks (``docs/<page>.md#<section>``, one or
  more); every citation anywhere in tests/ names a section that exists; and every section of
  docs/games that states a rule is cited by some test (``UNCITED_SECTIONS`` lists the few that
  state none, each with its reason);
* the hand-written route table of docs/reference/rest.md is the OpenAPI document's, the RPC
  table of docs/reference/grpc.md the proto's, and docs/reference/errors.md names every reason
  and rejection code.

``make docs`` (``mkdocs build --strict``) checks the links and anchors of the pages themselves.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import json
import re
import sys
from collections.abc import Iterator, Mapping, Set
from pathlib import Path
from types import ModuleType

import pytest

from cardcore import registry
from cardcore.engine import rule_flags
from cardcore.errors import RejectCode

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
GAMES_DIR = DOCS / "games"
CITATION = re.compile(r"docs/games/([a-z_]+)\.md#([a-z0-9_-]+)")
DOC_CITATION = re.compile(r"docs/((?:[\w-]+/)*[\w-]+)\.md#([\w-]+)")
"""A citation of any page of the site, e.g. ``docs/adding-a-game.md#5-views-and-redaction``."""
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*$", re.M)
SECTION_SIGN = "\N{SECTION SIGN}"
OLD_RULES_FILE = re.compile(r"\brules\.md\b")
NUMBERED_TEST = re.compile(r"test_s\d")
TESTS = ROOT / "tests"
SCENARIOS = TESTS / "scenarios"


def _hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "tools" / "docs_hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("docs_hooks", module)
    spec.loader.exec_module(module)
    return module


def slug(heading: str) -> str:
    """A heading's anchor, as MkDocs (toc) and forges both make it for plain headings; an
    explicit ``{#id}`` wins."""
    explicit = re.search(r"\{#([\w-]+)\}\s*$", heading)
    if explicit:
        return explicit.group(1)
    text = re.sub(r"[^\w\s-]", "", heading.replace("`", "")).strip().lower()
    return re.sub(r"[\s]+", "-", text)


def headings(text: str) -> list[tuple[int, str]]:
    """Each heading of a markdown page as (level, anchor), fenced code blocks left out."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return [(len(m.group(1)), slug(m.group(2))) for m in HEADING.finditer(text)]


def anchors(page: Path) -> set[str]:
    return {anchor for _, anchor in headings(page.read_text(encoding="utf-8"))}


def section(text: str, title: str) -> str:
    """The body of the ``## title`` section of a page (up to the next heading of that level)."""
    m = re.search(rf"^## {re.escape(title)}\s*$(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert m, f"no '## {title}' section"
    return m.group(1)


def table_rows(text: str) -> list[list[str]]:
    """The cells of every body row of the markdown tables in ``text`` (each table's header row
    and rule line left out)."""
    rows: list[list[str]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("|"):
            continue
        if re.fullmatch(r"\|[\s|:-]+\|", line):
            rows.pop()  # the row above a rule line is its table's header
            continue
        rows.append([c.strip() for c in re.split(r"(?<!\\)\|", line.strip("|"))])
    return rows


def code(cell: str) -> str:
    m = re.fullmatch(r"`([^`]*)`", cell.strip())
    assert m, f"expected one code span, got {cell!r}"
    return m.group(1)


# --------------------------------------------------------------------------- the games


def test_every_game_has_a_page_in_the_nav() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for game in registry.GAMES:
        page = GAMES_DIR / f"{game.name}.md"
        assert page.is_file(), f"{game.name}: no docs/games/{game.name}.md"
        assert f"games/{game.name}.md" in nav, f"{game.name}: its page is not in mkdocs.yml's nav"
        head = page.read_text(encoding="utf-8")[:400]
        assert f"`{game.name}`" in head, f"{game.name}: the page does not name the game first"


@pytest.mark.parametrize("name", [g.name for g in registry.GAMES])
def test_every_flag_is_documented_with_its_default(name: str) -> None:
    game = registry.get_game(name)
    rows = table_rows(section((GAMES_DIR / f"{name}.md").read_text("utf-8"), "Variant flags"))
    documented = {code(row[0]): row for row in rows}
    flags = rule_flags(game.rules_type)
    missing = [f.name for f in flags if f.name not in documented]
    assert not missing, f"{name}: flags without documentation: {missing}"
    extra = sorted(set(documented) - {f.name for f in flags})
    assert not extra, f"{name}: documented flags the rules do not have: {extra}"
    for f in flags:
        default = json.loads(code(documented[f.name][1]))
        expected = f.default
        if isinstance(expected, list):  # a set flag: any order
            default, expected = sorted(default), sorted(expected)
        assert default == expected, f"{name}.{f.name}: documented default {default!r}"
        assert documented[f.name][2], f"{name}.{f.name}: no meaning given"


def test_citations_in_cardcore_name_existing_sections() -> None:
    pages = {p.stem: anchors(p) for p in GAMES_DIR.glob("*.md")}
    bad, count = [], 0
    for path in sorted((ROOT / "cardcore").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for m in CITATION.finditer(text):
            count += 1
            page, anchor = m.groups()
            if anchor not in pages.get(page, set()):
                line = text.count("\n", 0, m.start()) + 1
                bad.append(f"{path.relative_to(ROOT)}:{line}: {m.group(0)}")
        assert not OLD_RULES_FILE.search(text), f"{path.relative_to(ROOT)} cites the old rules file"
        # Error messages reach users too: a bare section number numbers a file they do not have.
        for m in re.finditer(SECTION_SIGN, text):
            line = text.count(chr(10), 0, m.start()) + 1
            bad.append(f"{path.relative_to(ROOT)}:{line}: {SECTION_SIGN}")
        for doc in re.findall(r"docs/[\w/-]+\.md", text):
            if not (ROOT / doc).is_file():
                bad.append(f"{path.relative_to(ROOT)}: {doc} does not exist")
    assert not bad, "citations of sections that do not exist:\n" + "\n".join(bad)
    assert count > 100  # the engines do cite their rules


def test_the_slug_function_agrees_with_mkdocs() -> None:
    """On every page of docs/games, and on every heading of another page that a test cites."""
    toc = pytest.importorskip("markdown.extensions.toc")
    cited = {(DOCS / f"{page}.md", anchor) for *_, page, anchor in citations_in_tests()}
    for page in sorted({*GAMES_DIR.glob("*.md"), *(p for p, _ in cited if p.is_file())}):
        for m in HEADING.finditer(page.read_text(encoding="utf-8")):
            if "{#" in m.group(2):
                continue
            if page.parent == GAMES_DIR or (page, slug(m.group(2))) in cited:
                assert slug(m.group(2)) == toc.slugify(m.group(2), "-"), m.group(2)


# --------------------------------------------------------------------------- the tests

UNCITED_SECTIONS: dict[tuple[str, str], str] = {
    ("common", "real-time"): "the lead-in of its five subsections (the sequencer … joint calls), "
    "which state its rules and are cited; its one sentence of its own, that no clock decides, "
    "is the sequencer's",
    ("common", "at-a-glance"): "a summary table of the five game pages: each cell restates a rule "
    "that a game's page states, and a test cites there",
    ("index", "where-the-rules-are-cited"): "describes this very convention; states no rule",
}
"""The sections of docs/games that need no test, and why. Every other heading below a page's
title (``##``, ``###``, …) states rules: a test must cite it. A page's title is not a section of
its own: its lead names the game (checked by test_every_game_has_a_page_in_the_nav) and
summarises the sections below it."""


def defined_tests(tree: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if node.name.startswith("test_"):
                yield node


def opening_citations(docstring: str | None) -> list[str]:
    """The citations a docstring opens with: its first paragraph, if that is nothing but
    citations separated by commas or line breaks; else none."""
    first = (docstring or "").split("\n\n")[0].strip()
    words = [w for w in re.split(r"[,\s]+", first) if w]
    return words if words and all(DOC_CITATION.fullmatch(w) for w in words) else []


def convention_errors(source: str, where: str) -> list[str]:
    """What in one scenario module breaks the convention: a test named after a section number, a
    test whose docstring does not open with the sections it checks, a section sign or the old
    rules file anywhere in the module."""
    errors = []
    for f in defined_tests(ast.parse(source)):
        if NUMBERED_TEST.match(f.name):
            errors.append(f"{where}:{f.lineno}: {f.name} is named after a section number")
        if not opening_citations(ast.get_docstring(f)):
            errors.append(f"{where}:{f.lineno}: {f.name}'s docstring cites no section first")
    for i, line in enumerate(source.splitlines(), 1):
        if SECTION_SIGN in line or OLD_RULES_FILE.search(line):
            errors.append(f"{where}:{i}: the old rules file or a section number of it")
    return errors


@functools.cache
def citations_in_tests() -> tuple[tuple[Path, int, str, str], ...]:
    """Every ``docs/<page>.md#<section>`` in the Python files of tests/: (file, line, page,
    section)."""
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for m in DOC_CITATION.finditer(text):
            found.append((path, text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2)))
    return tuple(found)


@functools.cache
def cited_by_tests() -> frozenset[tuple[str, str]]:
    """Every (page, section) of docs/games that a test cites: in the docstring, the code or the
    comments of a ``test_*`` function anywhere in tests/."""
    cited = set()
    for path in TESTS.rglob("test_*.py"):
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        for f in defined_tests(ast.parse(source)):
            cited.update(CITATION.findall("\n".join(lines[f.lineno - 1 : f.end_lineno])))
    return frozenset(cited)


def uncited(
    pages: Mapping[str, str], cited: Set[tuple[str, str]], exceptions: Mapping[tuple[str, str], str]
) -> list[str]:
    """The sections of ``pages`` (name → markdown) that no test cites: every heading below the
    page's title, less ``exceptions``; then every exception that names no section at all."""
    sections = {
        (name, a) for name, text in pages.items() for level, a in headings(text) if level > 1
    }
    missing = [f"{p}.md#{a}" for p, a in sorted(sections - set(exceptions) - set(cited))]
    stale = [
        f"{p}.md#{a}: excepted, but no such section"
        for p, a in sorted(exceptions.keys() - sections)
    ]
    return missing + stale


def games_pages() -> dict[str, str]:
    return {p.stem: p.read_text(encoding="utf-8") for p in sorted(GAMES_DIR.glob("*.md"))}


def test_scenario_tests_are_named_for_what_they_check_and_cite_its_section() -> None:
    errors, count = [], 0
    for path in sorted(SCENARIOS.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        count += sum(1 for _ in defined_tests(ast.parse(source)))
        errors += convention_errors(source, str(path.relative_to(ROOT)))
    assert not errors, "\n".join(errors)
    assert count > 350  # the scenario modules were read


NUMBERED = "test_s" + "2_2_exactly_two_players"  # spelled so that a search of tests/ misses it
CONVENTION_SAMPLE = f'''
def {NUMBERED}():
    """docs/games/spit.md#setup"""

def test_without_a_docstring():
    pass

def test_citing_after_prose():
    """Two players exactly (docs/games/spit.md#setup)."""

def test_citing_a_section():
    """docs/games/spit.md#setup, docs/games/common.md#dealing

    Prose may follow."""

# the old rules file, {SECTION_SIGN}2.2
# as rules{".md"} said
'''
"""A scenario module with one test that keeps the convention and five things that break it. Its
citations lie outside any test function, so they count for no section's coverage."""
TWO_LINES = "docs/games/spit.md#setup,\ndocs/games/spit.md#laying-out"


def test_the_convention_check_catches_a_numbered_or_uncited_test() -> None:
    errors = convention_errors(CONVENTION_SAMPLE, "t.py")
    assert [e.split(": ")[1].split()[0] for e in errors] == [
        NUMBERED,
        "test_without_a_docstring's",
        "test_citing_after_prose's",
        "the",
        "the",
    ], errors
    assert opening_citations(TWO_LINES) == TWO_LINES.split(",\n")


def test_every_citation_in_tests_names_an_existing_section() -> None:
    bad = []
    for path, line, page, anchor in citations_in_tests():
        file = DOCS / f"{page}.md"
        if not file.is_file() or anchor not in anchors(file):
            bad.append(f"{path.relative_to(ROOT)}:{line}: docs/{page}.md#{anchor}")
    assert not bad, "citations of sections that do not exist:\n" + "\n".join(bad)
    assert len(citations_in_tests()) > 400  # the scenario tests do cite what they check


def test_every_rule_section_of_docs_games_is_cited_by_a_test() -> None:
    missing = uncited(games_pages(), cited_by_tests(), UNCITED_SECTIONS)
    assert not missing, "sections of docs/games that no test cites:\n" + "\n".join(missing)


def test_an_uncited_section_is_caught() -> None:
    page = (
        "# Demo\n\nThe title's lead.\n\n## Setup\n\nTwo players.\n\n## Playing\n\n"
        "### Slapping\n\nAny time.\n\n```text\n## Not a heading\n```\n"
    )
    pages = {"demo": page}
    setup, playing, slapping = ("demo", "setup"), ("demo", "playing"), ("demo", "slapping")
    assert uncited(pages, {setup, playing}, {}) == ["demo.md#slapping"]
    assert uncited(pages, {setup, playing, slapping}, {}) == []
    assert uncited(pages, {setup, playing}, {slapping: "why"}) == []
    assert uncited(pages, {setup, playing, slapping}, {("demo", "gone"): "why"}) == [
        "demo.md#gone: excepted, but no such section"
    ]
    # Planted in the real pages, against the real citations of the tests: caught.
    planted = games_pages()
    planted["spit"] += "\n## A planted rule\n\nNobody cites it.\n\n### And its detail\n"
    assert uncited(planted, cited_by_tests(), UNCITED_SECTIONS) == [
        "spit.md#a-planted-rule",
        "spit.md#and-its-detail",
    ]


# --------------------------------------------------------------------------- the service


def test_rest_route_table_is_the_openapi_documents() -> None:
    pytest.importorskip("litestar")
    hooks = _hooks()
    documented = {
        (code(r[0]), code(r[1]), code(r[2]))
        for r in table_rows(section((DOCS / "reference" / "rest.md").read_text("utf-8"), "Routes"))
    }
    served = {(m, p, op.get("operationId", "")) for m, p, op in hooks.operations(hooks.openapi())}
    assert documented == served, (
        f"docs/reference/rest.md's route table is out of date: missing {served - documented}, "
        f"not served {documented - served}"
    )


def test_grpc_rpc_table_is_the_protos() -> None:
    hooks = _hooks()
    documented = [
        code(r[0])
        for r in table_rows(section((DOCS / "reference" / "grpc.md").read_text("utf-8"), "RPCs"))
    ]
    rpcs = [rpc.name for pf in hooks.proto_files() for rpc in pf.rpcs()]
    assert documented == rpcs, f"docs/reference/grpc.md's RPC table: {documented} != {rpcs}"
    generated = hooks.proto_reference()
    for pf in hooks.proto_files():
        for block in pf.blocks:
            assert f"{{#{block.name.lower()}}}" in generated, block.name


def test_every_error_reason_and_rejection_code_is_documented() -> None:
    """docs/games/common.md#rejection-codes: the table names every code the engines use."""
    errors = pytest.importorskip("cardcore_server.errors")
    page = (DOCS / "reference" / "errors.md").read_text(encoding="utf-8")
    reasons = {code(r[0]) for r in table_rows(section(page, "The service's reasons"))}
    missing = [r.value for r in errors.Reason if r.value not in reasons]
    assert not missing, f"docs/reference/errors.md: reasons without a row: {missing}"
    for rc in RejectCode:
        assert f"`{rc.value}`" in section(page, "Rejections by the rules"), rc
    common = (GAMES_DIR / "common.md").read_text(encoding="utf-8")
    rows = table_rows(section(common, "Rejection codes"))
    codes = {code(r[0]) for r in rows if r[0].startswith("`")}
    assert codes >= {rc.value for rc in RejectCode}, {rc.value for rc in RejectCode} - codes
