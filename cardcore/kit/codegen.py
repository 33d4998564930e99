"""The kit's one ``exec``: functions generated from a class's field names, as :mod:`dataclasses`
and :func:`collections.namedtuple` build theirs (tests/unit/test_purity.py allows it here and
nowhere else).

Two mechanisms of the kit need a function whose parameters are a class's fields: a record's
``__init__`` (:func:`cardcore.kit.record`) and a state's ``_replace``
(:func:`cardcore.kit.state`). Both are built here, so a compiled build of the engine (mypyc,
issue 24), which cannot compile generated code, has one module to keep interpreted or to replace.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def function(name: str, params: Sequence[str], body: Sequence[str], ns: dict[str, Any]) -> Any:
    """The function ``def name(params): body`` compiled in the namespace ``ns``. Every source
    passed here is made of field identifiers (a class's own annotations) and names bound in
    ``ns``: nothing else, so it reads nothing and writes nothing."""
    exec(f"def {name}({', '.join(params)}):\n" + "\n".join(body), ns)
    return ns[name]
