"""A game's state and the values derived from it, made fast in one place: :func:`state` (a
``NamedTuple`` whose ``_replace`` builds the next state at about positional-tuple speed) and
:class:`derived` (a value of a state worked out once, then kept with it)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any, Final, Generic, TypeVar, overload

from . import codegen

_S = TypeVar("_S")
_T = TypeVar("_T")
_F = TypeVar("_F", bound=Callable[..., Any])


class _Unset:
    """The default of each parameter of a state's ``_replace``: the field keeps its value."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<unchanged>"


_UNSET: Final = _Unset()


def state(cls: type[_S]) -> type[_S]:
    """A game's ``State``: a ``NamedTuple`` whose first field is ``setup`` (``Match`` and the log
    replace it with ``s._replace(setup=...)``), made fast in the two ways an engine needs:

    * ``s._replace(field=...)`` builds the next state about as fast as a hand-written positional
      tuple, so ``evolve`` names only the fields an event changes;
    * :class:`derived` values (``state.ended``, ``state.slap``) are computed once per state and
      kept with it, so the questions asked of one position for every seat at every step
      (``legal_commands``, ``is_sensible``) read them instead of working them out again.

    ::

        @kit.state
        class State(NamedTuple):
            setup: Setup[Rules]
            stacks: tuple[tuple[Card, ...], ...]
            played: tuple[Card, ...] = ()
            ...

            @kit.derived
            def ended(self) -> Outcome | None:
                return outcome(self)

        case CardPlayed():
            return s._replace(played=s.played + (event.card,), current=event.current, ...)

    mypy checks each keyword of ``_replace`` against the field it names (a misspelt field or a
    value of the wrong type is a type error), and the state stays a ``NamedTuple``: immutable,
    equal by value, unpacked, pickled and matched as before. The class returned is a subclass of
    the one declared, under the same name, whose instances may keep derived values (a
    ``NamedTuple``'s own instances have no room for them).

    Why, by measurement (CPython 3.11, min of 300 runs of 2,000 on a shared machine, the 11-field
    ERS state, four fields changed, their values computed in each): a hand-written
    ``tuple.__new__(State, (...))`` 298-323 ns, the kit's ``_replace`` 413-462 ns, the stdlib's
    827-952 ns; a ``**changes`` loop over an index table, the best way without generated code,
    640-700 ns. The kit's parameters are positional-or-keyword (CPython fills their defaults from
    a tuple; from a dict for keyword-only ones, 51 ns more), and an unknown field is a
    ``TypeError`` (keeping the stdlib's ``ValueError`` cost 35 ns more; mypy refuses it first).
    Reading the sentinel once into a local saves 10-18 ns more (Slapjack's 10 fields)."""
    fields: tuple[str, ...] | None = getattr(cls, "_fields", None)
    if not (isinstance(cls, type) and issubclass(cls, tuple) and fields):
        raise TypeError(f"kit.state takes a NamedTuple class, not {cls!r}")
    if fields[0] != "setup":
        raise TypeError(f"{cls.__name__}: a game's state has 'setup' as its first field")
    namespace: dict[str, Any] = {
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
        "__doc__": cls.__doc__,
        "_kit_fields": fields,  # what kit.builds compiles its positional builds from
    }
    # Each derived value declared again on the class made, which names it (__set_name__); in the
    # interpreted build, as the instance of a class of its own (_own_class).
    own: Callable[[derived[Any, Any]], derived[Any, Any]] = (
        _same if codegen.COMPILED else _own_class
    )
    namespace |= {n: own(d) for n, d in vars(cls).items() if isinstance(d, derived)}
    # No __slots__: the subclass's instances get a __dict__, where derived values are kept.
    made: Any = type(cls.__name__, (cls,), namespace)
    ns: dict[str, Any] = {"_unset": _UNSET, "_new": tuple.__new__, "_cls": made}
    # The sentinel read once into a local: a local is read faster than a global, 11 times.
    new = [f"{f} if {f} is not unset else self[{i}]" for i, f in enumerate(fields)]
    body = ["    unset = _unset", f"    return _new(_cls, ({', '.join(new)},))"]
    replace = codegen.function("_replace", ["self", *(f"{f}=_unset" for f in fields)], body, ns)
    replace.__qualname__ = f"{cls.__qualname__}._replace"
    replace.__doc__ = f"A new {cls.__name__} with the fields given changed (kit.state)."
    made._replace = replace
    return made  # type: ignore[no-any-return]


def builds(cls: type[Any]) -> Callable[[_F], _F]:
    """Declares that a rule function builds states of ``cls`` (a :func:`state`) with
    ``s._replace(field=...)``, as a game's ``evolve`` does for every event; the kit compiles
    each such call as the positional build a hand-written engine would write::

        @kit.builds(State)
        def evolve(state: State, event: Event) -> State:
            s = state
            ...
            return s._replace(pile=s.pile + (event.card,), current=event.current)

    runs as ``tuple.__new__(State, (s[0], s[1], s.pile + (event.card,), event.current, ...))``
    when ``s`` is a ``State`` (else the call as written: another ``NamedTuple``'s
    ``_replace``). The rule text names only what an event changes; the fields are computed in
    the state's order rather than the call's (rule text is pure: the values are the same).
    The function is the rule in every other way (name, docstring, signature, line numbers), and
    stays as written where its source cannot be compiled again (a compiled build, a closure).

    Why, by measurement (CPython 3.11, timeit, a 12-field state, three fields changed): the
    positional build 232 ns, the generated ``_replace`` 355 ns (a call of thirteen parameters,
    whatever the way the fields are passed); evolve builds one state per event."""
    fields: tuple[str, ...] | None = vars(cls).get("_kit_fields") if isinstance(cls, type) else None
    if fields is None:
        raise TypeError(f"kit.builds takes a kit.state class, not {cls!r}")

    def decorate(rule: _F) -> _F:
        bound = {"_kit_new": tuple.__new__, "_kit_type": type, "_kit_state": cls}
        made = codegen.recompiled(rule, _PositionalBuilds(fields).visit, bound)
        return rule if made is None else made  # type: ignore[return-value]

    return decorate


class _PositionalBuilds(ast.NodeTransformer):
    """``x._replace(f=v, …)`` (``x`` a name, keywords only) as
    ``_kit_new(_kit_state, (x[0], v, …)) if _kit_type(x) is _kit_state else x._replace(…)``;
    and the statement ``return x._replace(f=v, …)``, the form of nearly every build, as::

        if _kit_type(x) is _kit_state:
            _kit_0, _kit_1, … = x
            return _kit_new(_kit_state, (_kit_0, v, …))
        return x._replace(f=v, …)

    (a state is unpacked in one step, where reading its fields one by one is a step each: 190 ns
    against 245 ns for a 13-field state, timeit, CPython 3.11)."""

    def __init__(self, fields: tuple[str, ...]) -> None:
        self.fields = fields

    def visit_Return(self, node: ast.Return) -> ast.AST:
        self.generic_visit(node)
        made = node.value
        if not (isinstance(made, ast.IfExp) and getattr(made, "_kit_build", False)):
            return node
        name, given = made._kit_build  # type: ignore[attr-defined]
        unpacked = [f"_kit_{i}" for i in range(len(self.fields))]
        unpack = ast.Assign(
            [ast.Tuple([ast.Name(n, ast.Store()) for n in unpacked], ast.Store())],
            ast.Name(name, ast.Load()),
        )
        items = [
            given.get(f) or ast.Name(n, ast.Load())
            for f, n in zip(self.fields, unpacked, strict=True)
        ]
        build = ast.Return(_new_state(ast.Tuple(items, ast.Load())))
        written = ast.If(made.test, [unpack, build], [ast.Return(made.orelse)])
        return ast.copy_location(written, node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if not (
            isinstance(func, ast.Attribute)
            and func.attr == "_replace"
            and isinstance(func.value, ast.Name)
            and not node.args
            and all(k.arg in self.fields for k in node.keywords)  # a repeated one: SyntaxError
            and not any(isinstance(n, ast.NamedExpr) for n in ast.walk(node))
        ):
            return node
        name = func.value.id
        given = {k.arg: k.value for k in node.keywords}
        items: list[ast.expr] = [
            given.get(f) or ast.Subscript(ast.Name(name, ast.Load()), ast.Constant(i), ast.Load())
            for i, f in enumerate(self.fields)
        ]
        is_state = ast.Compare(
            ast.Call(ast.Name("_kit_type", ast.Load()), [ast.Name(name, ast.Load())], []),
            [ast.Is()],
            [ast.Name("_kit_state", ast.Load())],
        )
        made = ast.IfExp(is_state, _new_state(ast.Tuple(items, ast.Load())), node)
        made._kit_build = (name, given)  # type: ignore[attr-defined]  # for visit_Return
        return ast.copy_location(made, node)


def _new_state(fields: ast.Tuple) -> ast.Call:
    """``_kit_new(_kit_state, fields)``: the state built positionally."""
    return ast.Call(
        ast.Name("_kit_new", ast.Load()), [ast.Name("_kit_state", ast.Load()), fields], []
    )


class derived(Generic[_S, _T]):  # lower case: a decorator, as property is
    """A value of a :func:`state` computed from it by ``rule`` the first time it is read, then
    kept with that state (a state never changes, so neither does the value)::

        @kit.derived
        def slap(self) -> tuple[SlapRule, tuple[Card, ...]] | None:
            \"\"\"The pattern a slap would match now.\"\"\"
            return slap_match(self.played, self.setup.rules.slap_rules)

    ``rule`` is the readable rule, or calls it; ``state.slap`` is then an attribute read. The
    next state (``_replace``) starts with none kept.

    Why, by measurement (CPython 3.11): bots and hosts ask ``legal_commands`` and
    ``is_sensible`` of one position for every seat, and ``Match`` asks ``outcome`` after every
    action; each asked again whether the game is over or the pile slappable. A kept value is read
    in ~17 ns, where calling ERS's ``outcome`` costs ~160 ns and ``slap_match`` ~200-300 ns; the
    first read costs ~130 ns more than calling the rule (the descriptor, the state's ``__dict__``;
    ~90 ns through :attr:`read`).
    In the random playouts of the engine harness, ERS's rule text with ``ended`` and ``slap`` runs
    1-5 % faster than the hand-inlined fast paths it replaced (the same run, before and after)."""

    def __init__(self, rule: Callable[[_S], _T]) -> None:
        self.rule = rule
        # A method of a class compiled by mypyc has no name or docstring: the name is then the
        # attribute's, given by __set_name__ when kit.state makes the class.
        self.name: str = getattr(rule, "__name__", "")
        self.__doc__ = getattr(rule, "__doc__", None)
        self.read: Callable[[_S], _T] = _reader(self.name, rule)
        """The value as a function of the state, kept as reading the attribute keeps it: the
        ``GAME``'s ``outcome=State.ended.read``, so that ``Match`` asking it after each action
        keeps the answer for the game's own questions of the same state."""

    def __set_name__(self, owner: type[Any], name: str) -> None:
        if name != self.name:
            self.name = name
            self.read = _reader(name, self.rule)

    @overload
    def __get__(self, state: None, owner: type[Any]) -> derived[_S, _T]: ...
    @overload
    def __get__(self, state: _S, owner: type[Any]) -> _T: ...
    def __get__(self, state: _S | None, owner: type[Any]) -> _T | derived[_S, _T]:
        # What _getter generates for the interpreted build (:func:`_own_class`); the compiled
        # build keeps this one, compiled.
        if state is None:
            return self
        value = self.rule(state)
        # A non-data descriptor: once the state's __dict__ holds the value, Python reads it
        # from there and never calls this again for that state.
        state.__dict__[self.name] = value
        return value


def _same(value: derived[_S, _T]) -> derived[_S, _T]:
    return value


def _own_class(value: derived[_S, _T]) -> derived[_S, _T]:
    """``value`` as the instance of a class of its own, whose ``__get__`` is generated with its
    rule and name written in (:func:`_getter`): 21 ns faster than :meth:`derived.__get__` in the
    interpreted build, where :func:`state` puts it in place of the one declared. (The compiled
    build keeps the one declared: ``derived`` is then a compiled class, its ``__get__`` C.)"""
    base: type[Any] = derived  # read as any class: mypyc compiles no read of a native one's
    own = type(
        "derived",
        (base,),
        {
            "__slots__": (),
            "__get__": _getter(value.name, value.rule),
            "__module__": base.__module__,
            "__qualname__": base.__qualname__,
            "__doc__": base.__doc__,
        },
    )
    made: derived[_S, _T] = own(value.rule)
    return made


def _reader(name: str, rule: Callable[[_S], _T]) -> Callable[[_S], _T]:
    """``derived.read``: the value of a state, kept in its ``__dict__`` as the descriptor keeps
    it, written out for the one who asks first (``Match``, which asks a state's outcome as soon
    as it is made).

    Why a function of its own rather than ``operator.attrgetter(name)``: a state's first read
    through the attribute goes through the descriptor's ``__get__``, called by CPython with three
    arguments; asked directly, 35 ns less (timeit, CPython 3.11: 213 ns against 249 ns for a
    fresh state and a rule that returns None; a kept value costs 25 ns more this way, and
    ``Match`` never asks twice)."""
    lines = [
        "    kept = state.__dict__",
        f"    if {name!r} in kept:",
        f"        return kept[{name!r}]",
        f"    value = kept[{name!r}] = _rule(state)",
        "    return value",
    ]
    read = codegen.function("read", ["state"], lines, {"_rule": rule})
    read.__qualname__ = f"{name}.read"
    return read  # type: ignore[no-any-return]


def _getter(name: str, rule: Callable[[_S], _T]) -> Callable[..., Any]:
    """``derived.__get__`` with the rule and the name written in: where the general one reads
    both from the descriptor at each first read (timeit, CPython 3.11, a fresh state and a rule
    that returns None: 254 ns against 275 ns)."""
    lines = [
        "    if state is None:",
        "        return self",
        f"    value = state.__dict__[{name!r}] = _rule(state)",
        "    return value",
    ]
    get = codegen.function("__get__", ["self", "state", "owner=None"], lines, {"_rule": rule})
    get.__qualname__ = f"{name}.__get__"
    return get  # type: ignore[no-any-return]
