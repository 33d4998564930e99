"""A Griffe extension for the documentation site (mkdocs.yml): cardcore's docstrings are prose
with Sphinx roles (``:class:`~cardcore.match.Match```, ``:func:`verify```) and reST literals
(````x````). Markdown has neither, so before mkdocstrings renders a docstring each role becomes
inline code: the object's name (its last part with ``~``, as Sphinx shows it); and each rule
citation (``docs/games/<game>.md#<section>``) becomes a link to that section of the site.
Docstrings stay as they are in the source.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|const|obj|type):`([^`]+)`")
CITATION = re.compile(r"(?<![\w/`])(?<!\]\()docs/((?:games|notation)/[\w-]+\.md)(#[\w-]+)?")
"""A rule citation (``docs/games/palace.md#burning``), linked on the site: every API page is in
``docs/api/``, so the page is one folder up (MkDocs then checks the link and its anchor)."""


def _name(match: re.Match[str]) -> str:
    target = match.group(1).strip()
    if target.startswith("~"):
        target = target[1:].rsplit(".", 1)[-1]
    return f"`{target}`"


def markdown_of(text: str) -> str:
    """A docstring's text with every Sphinx role written as inline code and every rule citation
    as a link to its page."""
    text = ROLE.sub(_name, text)
    return CITATION.sub(lambda m: f"[{m.group(0)}](../{m.group(1)}{m.group(2) or ''})", text)


class RolesToCode(griffe.Extension):
    """Rewrites each docstring's Sphinx roles as inline code (:func:`markdown_of`)."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown_of(obj.docstring.value)
