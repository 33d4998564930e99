"""A Griffe extension for the documentation site (mkdocs.yml): cardcore's docstrings are prose
with Sphinx roles (``:class:`~cardcore.match.Match```, ``:func:`verify```) and reST literals
(````x````). Markdown has neither, so before mkdocstrings renders a docstring each role becomes
inline code: the object's name (its last part with ``~``, as Sphinx shows it). Docstrings stay
as they are in the source.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|const|obj|type):`([^`]+)`")


def _name(match: re.Match[str]) -> str:
    target = match.group(1).strip()
    if target.startswith("~"):
        target = target[1:].rsplit(".", 1)[-1]
    return f"`{target}`"


def markdown_of(text: str) -> str:
    """A docstring's text with every Sphinx role written as inline code."""
    return ROLE.sub(_name, text)


class RolesToCode(griffe.Extension):
    """Rewrites each docstring's Sphinx roles as inline code (:func:`markdown_of`)."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown_of(obj.docstring.value)
