"""The documentation site cannot fall behind the code (docs/, mkdocs.yml, tools/docs_hooks.py):

* every registered game has its page under docs/games/, in the site's nav, and every variant
  flag of its rules is in that page's flag table with the catalogue's default;
* every rule citation in cardcore/ (``docs/games/<page>.md#<section>``) names a section that
  exists, and none cites the old ``rules.md``, a file the repository never had;
* the hand-written route table of docs/reference/rest.md is the OpenAPI document's, the RPC
  table of docs/reference/grpc.md the proto's, and docs/reference/errors.md names every reason
  and rejection code.

``make docs`` (``mkdocs build --strict``) checks the links and anchors of the pages themselves.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
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
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*$", re.M)


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


def anchors(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
    return {slug(m.group(2)) for m in HEADING.finditer(text)}


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
        assert "rules.md" not in text, f"{path.relative_to(ROOT)} cites rules.md"
        # Error messages reach users too: a bare "§1.2" numbers a file they do not have.
        for m in re.finditer("§", text):
            bad.append(f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: §")
        for doc in re.findall(r"docs/[\w/-]+\.md", text):
            if not (ROOT / doc).is_file():
                bad.append(f"{path.relative_to(ROOT)}: {doc} does not exist")
    assert not bad, "citations of sections that do not exist:\n" + "\n".join(bad)
    assert count > 100  # the engines do cite their rules


def test_the_slug_function_agrees_with_mkdocs() -> None:
    toc = pytest.importorskip("markdown.extensions.toc")
    for page in GAMES_DIR.glob("*.md"):
        for m in HEADING.finditer(page.read_text(encoding="utf-8")):
            if "{#" not in m.group(2):
                assert slug(m.group(2)) == toc.slugify(m.group(2), "-"), m.group(2)


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
