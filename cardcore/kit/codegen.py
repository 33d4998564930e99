"""The kit's generated code, in one place: functions built from a class's field names (the one
``exec``, as :mod:`dataclasses` and :func:`collections.namedtuple` build theirs;
tests/unit/test_purity.py allows it here and nowhere else), and a rule function compiled again
from its own source, edited: with a check as its first statement, or its one-expression helpers
written in where it calls them.

The kit's mechanisms that need them: a record's ``__init__`` (:func:`cardcore.kit.record`), a
state's ``_replace`` and a derived value's ``__get__`` and ``read`` (:mod:`.states`), the
seat check of :func:`cardcore.kit.seated`, and :func:`cardcore.kit.inline`. A compiled build of
the engine (mypyc, issue 24), which cannot compile generated code, has this one module to keep
interpreted or to replace.
"""

from __future__ import annotations
import __future__

import ast
import builtins
import copy
import functools
import inspect
import linecache
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final


def function(name: str, params: Sequence[str], body: Sequence[str], ns: dict[str, Any]) -> Any:
    """The function ``def name(params): body`` compiled in the namespace ``ns``. Every source
    passed here is made of identifiers (a class's fields, a derived value's name, quoted or not)
    and names bound in ``ns``: nothing else, so it reads nothing and writes nothing."""
    exec(f"def {name}({', '.join(params)}):\n" + "\n".join(body), ns)
    return ns[name]


COMPILED: Final = not isinstance(function, types.FunctionType)
"""Whether the kit runs compiled (mypyc, hatch_build.py): its own functions are then not
Python functions, and its classes may not be subclassed at run time. (A rule of a compiled game
has no source to compile again: each mechanism here then leaves it as written.)"""


_FUTURE_FLAGS: Final = functools.reduce(
    int.__or__, (getattr(__future__, f).compiler_flag for f in __future__.all_feature_names), 0
)
"""The compiler flags of every ``from __future__ import``: a rule compiles again with its own."""
_PLAIN: Final = 0x0001 | 0x0002 | 0x0004 | 0x0008  # CO_OPTIMIZED, CO_NEWLOCALS, *args, **kwargs
"""The code flags of a plain function; one with any other (a generator, a coroutine, or a flag
another interpreter adds, such as CPython 3.14's ``CO_HAS_DOCSTRING`` in Pyodide, where the page
verifies logs) is left as it is: the kit's compiling again is written for, and tested on, the
interpreter the engine runs on (3.11, 3.12, 3.13), and a rule left as written gives the same
answers."""


def with_prologue(
    rule: Callable[..., Any], prologue: Sequence[str], bound: Mapping[str, Any]
) -> Callable[..., Any] | None:
    """``rule`` compiled again from its own source with the statements ``prologue`` first (after
    its docstring), which may use the names of ``bound``: :func:`recompiled`, which says when it
    cannot be done (None). The prologue is the kit's own text, of identifiers and names in
    ``bound``; a fault in it is reported at the ``def`` line."""

    def insert(node: ast.FunctionDef) -> None:
        at_def = "\n" * (node.lineno - 1)
        body = node.body
        has_doc = isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
        body[has_doc:has_doc] = ast.parse(at_def + "\n".join(prologue)).body

    return recompiled(rule, insert, bound)


def recompiled(
    rule: Callable[..., Any], edit: Callable[[ast.FunctionDef], None], bound: Mapping[str, Any]
) -> Callable[..., Any] | None:
    """``rule`` compiled again from its own source after ``edit`` has changed its definition in
    place, the code it adds reading the names of ``bound``, and with the calls of its module's
    :func:`inlinable` helpers written in (:class:`_Inliner`); the same function in every other way
    (name, docstring, defaults, globals, line numbers, ``__wrapped__`` for its signature), in one
    frame. None where that cannot be done: a function that is not a plain function of its
    module (a method, a closure, a generator), whose source cannot be read (a compiled build),
    or whose source, compiled again as it is, is not the code that runs (a file changed since it
    was imported).

    The source is read as tracebacks read it (:mod:`linecache`), once, when the rule is
    decorated."""
    code = getattr(rule, "__code__", None)
    if not isinstance(code, types.CodeType) or not _is_plain(rule, code, bound):
        return None
    tree = _source_of(code, rule.__globals__)
    if tree is None:
        return None
    node = tree.body[0]
    assert isinstance(node, ast.FunctionDef)  # _source_of checked it
    tree.body[:0] = _imports_of(rule, code)
    if _compiled(tree, code, rule.__name__) != code:
        return None
    node.decorator_list = []  # applied already: the result replaces the decorated function
    edit(node)
    if calls_inline_helpers(rule):  # else nothing to write in: no walk
        inliner = _Inliner(rule.__globals__, {*_local_names(code), *bound})
        inliner.visit(node)
        bound = {**bound, **inliner.cells}  # what another module's helpers read
    ast.fix_missing_locations(node)
    # Nested in a function whose parameters are the names bound, which the rule reads as closure
    # cells: nothing is added to the rule's module, and every other name it reads is read as it
    # was (its own name, for one, stays a global).
    at_def = "\n" * (node.lineno - 1)
    outer = ast.parse(f"{at_def}def _kit_prologue({', '.join(bound)}):\n global {node.name}")
    outer_def = outer.body[0]
    assert isinstance(outer_def, ast.FunctionDef)
    outer_def.body.append(node)
    tree.body[-1:] = [outer_def]
    outer_code = _compiled(tree, code, "_kit_prologue")
    assert outer_code is not None  # the tree defines it
    inner = next(
        c for c in outer_code.co_consts if isinstance(c, types.CodeType) and c.co_name == node.name
    )
    if not set(inner.co_freevars) <= set(bound):
        return None
    inner = inner.replace(co_qualname=code.co_qualname)
    cells = tuple(types.CellType(bound[n]) for n in inner.co_freevars)
    made = types.FunctionType(inner, rule.__globals__, rule.__name__, rule.__defaults__, cells)
    made.__kwdefaults__ = rule.__kwdefaults__
    return functools.update_wrapper(made, rule)


def positional_parameters(rule: Callable[..., Any]) -> tuple[str, ...]:
    """The names of ``rule``'s positional parameters: read from its code, or from its signature
    where it has none (a function compiled by mypyc, which gives its signature as text)."""
    code = getattr(rule, "__code__", None)
    if isinstance(code, types.CodeType):
        return code.co_varnames[: code.co_argcount]
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return tuple(p.name for p in inspect.signature(rule).parameters.values() if p.kind in kinds)


def calls_inline_helpers(rule: Callable[..., Any]) -> bool:
    """Whether ``rule`` reads a name of its module bound to an :func:`inlinable` helper, or an
    attribute holding one of a module it reads (``kit.seat_of``): one it may call."""
    code = getattr(rule, "__code__", None)
    if not isinstance(code, types.CodeType):
        return False
    module = getattr(rule, "__globals__", {})
    names = names_read(code)
    modules = [v for n in names if isinstance(v := module.get(n), types.ModuleType)]
    return any(hasattr(module.get(n), INLINE) for n in names) or any(
        hasattr(getattr(m, n, None), INLINE) for m in modules for n in names
    )


def names_read(code: types.CodeType) -> set[str]:
    """The global and attribute names ``code`` and the code nested in it read (what a rule still
    calls, for one)."""
    return {n for c in _nested(code) for n in c.co_names}


def _local_names(code: types.CodeType) -> set[str]:
    """Every name bound in ``code`` or in the code nested in it (a comprehension's variables)."""
    return {n for c in _nested(code) for n in (*c.co_varnames, *c.co_cellvars, *c.co_freevars)}


def _nested(code: types.CodeType) -> list[types.CodeType]:
    """``code`` and every code object nested in it."""
    found, todo = [], [code]
    while todo:
        current = todo.pop()
        found.append(current)
        todo += [c for c in current.co_consts if isinstance(c, types.CodeType)]
    return found


def _is_plain(rule: Callable[..., Any], code: types.CodeType, bound: Mapping[str, Any]) -> bool:
    """A function of its module's top level, not a generator, and not using the names bound."""
    return (
        rule.__qualname__ == rule.__name__ == code.co_name
        and not code.co_freevars
        and code.co_flags & ~_FUTURE_FLAGS & ~_PLAIN == 0
        and not set(bound) & {*code.co_names, *code.co_varnames, *code.co_cellvars}
    )


def _imports_of(rule: Callable[..., Any], code: types.CodeType) -> list[ast.stmt]:
    """``import name`` for each global the rule reads that its module imported (as far as can be
    told from the value: a module, or a class or function of another module). CPython 3.11
    compiles ``name.f(x)`` one way when ``name`` was bound by an import at the top of the module,
    another otherwise: the rule compiles alone as it did in its module with these declared (the
    statements are compiled, never run)."""
    names = names_read(code)
    module = rule.__globals__
    imported = [
        n
        for n in sorted(names)
        if n in module
        and n.isidentifier()  # not a name a tool put in the module (pytest's @py_builtins)
        and (
            isinstance(module[n], types.ModuleType)
            or (
                isinstance(module[n], type | types.FunctionType)
                and module[n].__module__ != rule.__module__
            )
        )
    ]
    return [ast.parse(f"import {n}").body[0] for n in imported]


def _source_of(code: types.CodeType, module: dict[str, Any]) -> ast.Module | None:
    """The module holding the source of ``code`` alone (its decorators included), at its lines
    in its file; None if it cannot be read or is not one function definition."""
    if not hasattr(code, "co_positions"):  # CPython 3.11 and later
        return None
    lines = linecache.getlines(code.co_filename, module)
    last = max((end for _, end, _, _ in code.co_positions() if end is not None), default=0)
    first = code.co_firstlineno
    if not lines or not 0 < first <= last <= len(lines):
        return None
    try:  # at its own lines: the lines before it, blank
        tree = ast.parse("\n" * (first - 1) + "".join(lines[first - 1 : last]))
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef):
        return None
    return tree


def _compiled(tree: ast.Module, code: types.CodeType, name: str) -> types.CodeType | None:
    """The code of the function ``name`` defined by ``tree``, compiled as ``code`` was (its file,
    its ``from __future__`` flags)."""
    module = compile(
        tree, code.co_filename, "exec", flags=code.co_flags & _FUTURE_FLAGS, dont_inherit=True
    )
    found = [c for c in module.co_consts if isinstance(c, types.CodeType) and c.co_name == name]
    return found[0] if len(found) == 1 else None


# ------------------------------------------------------------------------------ inlining

INLINE: Final = "__kit_inline__"
"""The attribute an :func:`inlinable` helper carries: its parameters and its expression."""

_NEW_SCOPES: Final = (ast.Lambda, ast.comprehension, ast.NamedExpr, ast.Await, ast.Yield)


def inlinable(helper: Callable[..., Any]) -> tuple[tuple[str, ...], ast.expr] | None:
    """A helper's parameters and the expression it returns, when it is a plain function of its
    module whose body (after a docstring) is ``return EXPR``, with positional parameters only;
    None where its source cannot be read (a compiled build) or its code is not known to be plain
    (:data:`_PLAIN`). Raises ``TypeError`` for a helper of any other shape: written otherwise, it
    cannot be inlined."""
    code = getattr(helper, "__code__", None)
    if COMPILED and isinstance(helper, types.BuiltinFunctionType):
        return None  # compiled too (mypyc): no source to write in, left a call
    if not isinstance(code, types.CodeType) or not helper.__qualname__ == helper.__name__:
        raise TypeError(f"{helper!r}: kit.inline takes a plain function of its module")
    if not _is_plain(helper, code, {}):
        return None  # flags this kit does not know (another interpreter's): left a call
    tree = _source_of(code, helper.__globals__)
    if tree is None:
        return None
    node = tree.body[0]
    assert isinstance(node, ast.FunctionDef)  # _source_of checked it
    args = node.args
    body = node.body[1:] if ast.get_docstring(node) is not None else node.body
    if (
        len(body) != 1
        or not isinstance(body[0], ast.Return)
        or body[0].value is None
        or args.posonlyargs
        or args.vararg
        or args.kwonlyargs
        or args.kwarg
        or args.defaults
        or any(isinstance(n, _NEW_SCOPES) for n in ast.walk(body[0].value))
    ):
        raise TypeError(
            f"{helper.__qualname__}: kit.inline takes a function whose body is one "
            "'return EXPR' (no lambda, comprehension, ':=', await or yield in it), with plain "
            "positional parameters"
        )
    return tuple(a.arg for a in args.args), body[0].value


class _Inliner(ast.NodeTransformer):
    """Each call ``helper(a, b)`` of an :func:`inlinable` helper of the rule's own module, or
    ``mod.helper(a, b)`` of another module's (``kit.seat_of``), written as the helper's expression
    with ``a`` and ``b`` in place of its parameters: where every argument is a pure read (a name,
    a constant, an attribute or an item of one: a value of the immutable state, which reading
    twice or not at all cannot change), and no global the helper reads is a local of the rule.
    Another module's helper reads its own module's globals through closure cells (:attr:`cells`,
    named ``_kit_`` and the global's name) and builtins the rule's module does not shadow. Any
    other call stays a call."""

    _DEPTH: Final = 8  # helpers written into helpers; a helper that calls itself stops here

    def __init__(self, module: dict[str, Any], local_names: set[str]) -> None:
        self.module = module
        self.local_names = local_names
        self.depth = 0
        self.cells: dict[str, Any] = {}
        """The values another module's helpers read, by the names they are written in as."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        spec = self._spec(node)
        if spec is None or self.depth >= self._DEPTH:
            return node
        params, expr, renamed = spec
        given: dict[str, ast.expr] = dict(zip(params, node.args, strict=True))
        given.update({n: ast.Name(alias, ast.Load()) for n, alias in renamed.items()})
        body = _Substitute(given).visit(_copy(expr))
        for part in ast.walk(body):
            ast.copy_location(part, node)
        self.depth += 1
        try:
            inlined: ast.AST = self.visit(body)
        finally:
            self.depth -= 1
        return inlined

    def _spec(self, node: ast.Call) -> tuple[tuple[str, ...], ast.expr, dict[str, str]] | None:
        """The helper's parameters and expression, and the names of its module's globals it
        reads with the cells they are written in as (its own module's: none); None: a call."""
        helper = self._helper(node.func)
        spec: tuple[tuple[str, ...], ast.expr] | None = getattr(helper, INLINE, None)
        if (
            spec is None
            or node.keywords
            or len(node.args) != len(spec[0])
            or not all(_is_pure_read(a) for a in node.args)
        ):
            return None
        params, expr = spec
        reads = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)} - set(params)
        if reads & self.local_names:
            return None
        own: dict[str, Any] = getattr(helper, "__globals__", {})
        if own is self.module:
            return params, expr, {}
        renamed = {n: f"_kit_{n}" for n in reads if n in own}
        if (
            any(n not in builtins.__dict__ or n in self.module for n in reads - set(renamed))
            or set(renamed.values()) & (self.local_names | set(self.module))
            or any(self.cells.get(a, own[n]) is not own[n] for n, a in renamed.items())
        ):
            return None  # a name it reads would mean another thing in the rule (or its cells)
        self.cells.update({alias: own[n] for n, alias in renamed.items()})
        return params, expr, renamed

    def _helper(self, func: ast.expr) -> Any:
        """What a call's ``helper`` or ``mod.helper`` names in the rule's module, if a global."""
        if isinstance(func, ast.Name) and func.id not in self.local_names:
            return self.module.get(func.id)
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id not in self.local_names
            and isinstance(owner := self.module.get(func.value.id), types.ModuleType)
        ):
            return getattr(owner, func.attr, None)
        return None


def _is_pure_read(node: ast.expr) -> bool:
    """A name, a constant, or an attribute or an item of a pure read (the item's index may be
    arithmetic of them, ``hands[1 - seat]``): a value read, never computed, so that a helper may
    read it twice at the cost of a read."""
    if isinstance(node, ast.Name | ast.Constant):
        return True
    if isinstance(node, ast.Attribute):
        return _is_pure_read(node.value)
    if isinstance(node, ast.Subscript):
        return _is_pure_read(node.value) and _is_index(node.slice)
    return False


def _is_index(node: ast.expr) -> bool:
    if isinstance(node, ast.BinOp):
        return _is_index(node.left) and _is_index(node.right)
    if isinstance(node, ast.UnaryOp):
        return _is_index(node.operand)
    return _is_pure_read(node)


class _Substitute(ast.NodeTransformer):
    """A helper's expression with its parameters replaced by the call's arguments."""

    def __init__(self, given: dict[str, ast.expr]) -> None:
        self.given = given

    def visit_Name(self, node: ast.Name) -> ast.AST:
        value = self.given.get(node.id)
        return node if value is None else _copy(value)


def _copy(node: ast.expr) -> ast.expr:
    copied: ast.expr = copy.deepcopy(node)
    return copied
