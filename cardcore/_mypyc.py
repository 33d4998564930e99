"""Declarations for the compiled build (mypyc, hatch_build.py) in a package without
dependencies: the names a type checker and mypyc read from where they are defined, and which
run as written here in both builds (the build never compiles this module).

* ``mypyc_attr`` is ``mypy_extensions``'s: mypyc acts on it at compile time. At run time it is a
  no-op, so neither build imports ``mypy_extensions``; it must exist all the same, for mypyc
  calls the decorators of a class it leaves to Python.
* ``dataclass_transform`` is ``typing``'s, for the type checker; at run time its marker is set
  where it can be: a function compiled by mypyc takes no attribute, and is left as it is.

And :func:`copied_as_built`, for the frozen dataclasses that are values a user may copy or pickle.
"""

from __future__ import annotations

import copyreg
import dataclasses
import typing
from typing import TYPE_CHECKING, Any

__all__ = ["copied_as_built", "dataclass_transform", "mypyc_attr"]

if TYPE_CHECKING:
    from typing import dataclass_transform

    from mypy_extensions import mypyc_attr
else:

    def mypyc_attr(*_: Any, **__: Any) -> Any:
        """No-op: what mypyc was told is for mypyc only."""
        return lambda declared: declared

    def dataclass_transform(**kwargs: Any) -> Any:
        """``typing.dataclass_transform``, which leaves a compiled function as it is."""
        mark = typing.dataclass_transform(**kwargs)

        def decorate(declared: Any) -> Any:
            try:
                return mark(declared)
            except AttributeError:  # compiled: the marker is for the type checker only
                return declared

        return decorate


def copied_as_built(*classes: type) -> None:
    """``copy`` and ``pickle`` make each of ``classes`` (frozen dataclasses) again by calling it
    with its fields, where mypyc compiled it: mypyc's own way sets each attribute of a bare
    instance, which a frozen class refuses. A class left to Python (every class, in the
    interpreted build) keeps the dataclass's way."""
    for cls in classes:
        if "__mypyc_attrs__" in vars(cls):  # what mypyc's pickling reads: a compiled class
            copyreg.pickle(cls, _as_built)


def _as_built(value: Any) -> tuple[type, tuple[Any, ...]]:
    return type(value), tuple(getattr(value, f.name) for f in dataclasses.fields(value))
