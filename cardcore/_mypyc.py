"""Declarations for the compiled build (mypyc, hatch_build.py) in a package without
dependencies: the names a type checker and mypyc read from where they are defined, and which
run as written here in both builds (the build never compiles this module).

* ``mypyc_attr`` is ``mypy_extensions``'s: mypyc acts on it at compile time. At run time it is a
  no-op, so neither build imports ``mypy_extensions``; it must exist all the same, for mypyc
  calls the decorators of a class it leaves to Python.
* ``dataclass_transform`` is ``typing``'s, for the type checker; at run time its marker is set
  where it can be: a function compiled by mypyc takes no attribute, and is left as it is.
* ``i64`` is ``mypy_extensions``'s 64-bit integer: in a compiled module a native machine word
  whose arithmetic wraps (mypyc compiles with ``-fwrapv``); at run time, and in the interpreted
  build, plain ``int``. Code that declares it must be right both ways (:mod:`cardcore.rng`).

And :func:`compiled_class`, which tells a class mypyc compiled. This module imports nothing but
:mod:`typing`: the cards read it at their import.
"""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Any

__all__ = ["compiled_class", "dataclass_transform", "i64", "mypyc_attr"]

if TYPE_CHECKING:
    from typing import dataclass_transform

    from mypy_extensions import i64, mypyc_attr
else:
    i64 = int

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


def compiled_class(cls: type) -> bool:
    """Whether mypyc compiled ``cls`` (a native class: its attributes are what mypyc's pickling
    reads, ``__mypyc_attrs__``); never, in the interpreted build."""
    return "__mypyc_attrs__" in vars(cls)
