"""Small rule helpers at no cost of a call: :func:`inline` and :func:`hot`.

A game's rule text is clearest as small named helpers (``exposes(pile, up)``, ``fit_table(rules)``)
called from the rules that read them; in CPython 3.11 each call costs a frame, about 50-60 ns,
and the functions a playout asks at every step (``legal_commands``, ``decide``, ``evolve`` and
what they call) call such helpers several times a step. The kit writes them in instead, so the
rule text keeps its names and the engine does not pay for them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from . import codegen

_F = TypeVar("_F", bound=Callable[..., Any])


def inline(helper: _F) -> _F:
    """Declares a helper whose body is one ``return EXPR`` (positional parameters, no lambda or
    comprehension in it) to be written into the rules of its module that the kit compiles again
    (:func:`hot`, :func:`~cardcore.kit.seated`, :func:`~cardcore.kit.builds`)::

        @kit.inline
        def exposes(pile: Sequence[Card], up: int) -> bool:
            \\"\\"\\"Taking the top off this pile uncovers a face-down card.\\"\\"\\"
            return up == 1 and len(pile) >= 2

    A call ``exposes(layout[i], ups[i])`` in such a rule then runs as
    ``ups[i] == 1 and len(layout[i]) >= 2``. Only calls whose arguments are pure reads (names,
    constants, attributes and items of them: values of an immutable state) are written in, so
    reading an argument twice, or not at all, changes nothing; any other call stays a call, as
    every call from a rule the kit does not compile again does. The helper itself is unchanged.
    A helper must be defined above the rules that call it (tests/unit/test_game_modules.py fails
    on a game's helper defined below a compiled rule that calls it).

    A helper of another module is written in where the rule calls it as ``module.helper(...)``,
    the globals it reads passed in as cells of the rule's own: ``kit.seat_of``, the seat check
    every game's ``decide``, ``legal_commands`` and ``is_sensible`` begin with.

    Why, by measurement (CPython 3.11, the engine harness's random playouts,
    ``benchmarks/ab_wheel.py`` against the same rules calling their helpers): when it was
    written, Spit asked ``exposes``, ``fitting`` and ``layout_size`` about ten times a step and
    Speed ``fit_table`` and its rows about six; written in, Spit's playouts ran 3-4 % faster and
    Speed's 2-3 %. ``kit.seat_of``, asked about seven times a step, written in: 2-3 %."""
    spec = codegen.inlinable(helper)
    if spec is not None:
        setattr(helper, codegen.INLINE, spec)
    return helper


def hot(rule: _F) -> _F:
    """Declares a rule a playout asks at every step: the kit compiles it again with the calls of
    its module's :func:`inline` helpers written in (as it does every rule declared
    :func:`~cardcore.kit.seated` or :func:`~cardcore.kit.builds`). Where it calls no such helper
    (compiling it again would gain nothing and cost the import time), or its source cannot be
    compiled again (a compiled build, a closure), the rule stays as written."""
    if not codegen.calls_inline_helpers(rule):
        return rule
    made = codegen.recompiled(rule, _unchanged, {})
    return rule if made is None else made  # type: ignore[return-value]


def _unchanged(node: object) -> None:
    """No edit of the rule's own: only its helpers are written in."""
