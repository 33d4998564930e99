"""Native states (issue 24): a game's ``State`` written as a plain class with annotated attributes
and a typed ``__init__``, which mypyc compiles to a C struct (an attribute read is a struct read,
a build a direct C call), given here, once, what a ``NamedTuple`` gave it for free: ``==``,
``hash``, a ``repr`` that reads back, ``_replace``, pickling, and the outcome kept with the state
(:attr:`NativeState.ended`); and :func:`seat_of`, the one seat check a rule calls first.

Every shipped game is written this way; a game on :func:`~cardcore.kit.state` (a ``NamedTuple``)
and :func:`~cardcore.kit.seated` works as before (the simpler way, for a game that never needs the
compiled build). A native game:

* subclasses :class:`NativeState`, declares its fields as annotated attributes (``setup``
  first) and takes them in that order in its ``__init__``, the defaults those of a position built
  by hand; an attribute whose name begins with ``_`` is no field (a value kept, or made from the
  fields and handed on to save making it again);
* writes ``next()``, the copy ``evolve`` changes (``n = s.next(); n.current = p; return n``): the
  fields as they are, nothing derived kept;
* writes ``outcome()`` (the rule), kept as :attr:`NativeState.ended`;
* calls ``p = kit.seat_of(seats, seat)`` first in ``decide``, ``legal_commands`` and
  ``is_sensible``, their ``seat`` declared ``object`` (a compiled function refuses a value of
  another type than the one declared with a ``TypeError``, where a seat must be refused with
  :class:`~cardcore.errors.InvalidSeat`).
"""

from __future__ import annotations

from typing import Any, Final, TypeVar

from ..engine import Outcome, check_seat
from ..errors import InvalidPosition
from .inline import inline

_S = TypeVar("_S", bound="NativeState")


def seat_of(seats: int, seat: object) -> int:
    """``seat`` when it is a seat of a ``seats``-seat game, else
    :class:`~cardcore.errors.InvalidSeat` (:func:`cardcore.engine.check_seat`): the one check of
    the seat a rule is asked about, its first statement, so the rule below trusts the seat.

    Why a call, where :func:`~cardcore.kit.seated` writes the check into the rule: a compiled
    rule cannot be written again, and a wrapper around it costs a second call through Python's
    calling convention (its arguments parsed twice); this is a direct C call from a compiled
    rule. :class:`~cardcore.match.Match` checks the seat too: asked through it, twice, cheaply.
    In the interpreted build, a rule declared :func:`~cardcore.kit.hot` has it written in
    (:func:`~cardcore.kit.inline`: one expression), where each call cost a frame: 2-3 % of
    Slapjack's playouts, which ask it about seven times a step."""
    return seat if type(seat) is int and 0 <= seat < seats else check_seat(seats, seat)


inline(seat_of)


_FIELDS: Final[dict[type, tuple[str, ...]]] = {}
"""Each native state class's fields, read once from its ``__init__`` (:func:`fields_of`)."""


def fields_of(cls: type) -> tuple[str, ...]:
    """The fields of a :class:`NativeState` class: the attributes it declares, in order, less
    those whose name begins with ``_`` (kept values); they must be its ``__init__``'s positional
    parameters, in the same order (checked in the interpreted build, which has the
    ``__init__``'s code: ``TypeError`` otherwise). Read from the class's annotations, or in the
    compiled build from the attributes mypyc lists (``__mypyc_attrs__``: it keeps no
    annotations), read once."""
    fields = _FIELDS.get(cls)
    if fields is None:
        own = vars(cls)
        names = own.get("__mypyc_attrs__") or tuple(own.get("__annotations__", ()))
        fields = tuple(n for n in names if not n.startswith("_"))
        code = getattr(own.get("__init__"), "__code__", None)
        if code is not None and code.co_varnames[1 : 1 + len(fields)] != fields:
            raise TypeError(f"{cls.__name__}: __init__ takes its fields in the order declared")
        _FIELDS[cls] = fields
    return fields


class NativeState:
    """The base of a game's native ``State`` (see the module's docstring). What it adds reads the
    fields by name (:func:`fields_of`): off the hot path (positions, tests, logs' headers,
    :func:`cardcore.engine.with_setup`), where the rules read and build states natively."""

    _ended: Outcome | None = None
    _ended_known: bool = False

    @property
    def ended(self) -> Outcome | None:
        """How the game ended, None while it goes on: :meth:`outcome`, worked out once per state
        and kept (``Match`` asks it after every action, the rules at every question)."""
        if not self._ended_known:
            self._ended = self.outcome()
            self._ended_known = True
        return self._ended

    def outcome(self) -> Outcome | None:
        """The game's rule: how this state ended the game, or None."""
        raise NotImplementedError

    def _astuple(self) -> tuple[Any, ...]:
        return tuple([getattr(self, name) for name in fields_of(type(self))])

    def _replace(self: _S, **changes: Any) -> _S:
        """A new state with the fields given changed (as a ``NamedTuple``'s ``_replace``). A
        field of the wrong type that the compiled build refuses is
        :class:`~cardcore.errors.InvalidPosition` naming it, as the position check names it in
        the interpreted build (a position built by hand is one with a field at fault), and one the
        compiled build would store as another type (``True`` as an ``int`` field's ``1``); so is
        a setup the state cannot make what it keeps of its setup from (rules of another game)."""
        cls: Any = type(self)
        fields = fields_of(cls)
        for name in changes:
            if name not in fields:
                raise TypeError(f"{cls.__name__} has no field {name!r}")
        values = [changes[n] if n in changes else getattr(self, n) for n in fields]
        try:
            made: _S = cls(*values)
        except (TypeError, AttributeError) as error:
            probe = cls(*self._astuple())
            for name, value in changes.items():
                try:
                    setattr(probe, name, value)
                except TypeError as refused:
                    raise InvalidPosition(name, str(refused)) from None
            if "setup" in changes:  # what a state makes of its setup could not be made of it
                raise InvalidPosition("setup", f"not a setup of this game: {error}") from None
            raise
        for name, value in changes.items():  # a compiled int field stores True as 1
            kept = getattr(made, name)
            if type(kept) is not type(value):
                kind = type(kept).__name__
                raise InvalidPosition(name, f"must be {kind}, got {type(value).__name__}")
        return made

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, NativeState)
        return self._astuple() == other._astuple()

    def __ne__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, NativeState)
        return self._astuple() != other._astuple()

    def __hash__(self) -> int:
        return hash(self._astuple())

    def __repr__(self) -> str:
        values = zip(fields_of(type(self)), self._astuple(), strict=True)
        return f"{type(self).__name__}({', '.join(f'{n}={v!r}' for n, v in values)})"

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), self._astuple()


def kept_outcome(state: NativeState) -> Outcome | None:
    """A native game's ``outcome`` (its ``GAME``'s): :attr:`NativeState.ended`, so ``Match``
    asking it after each action keeps the answer for the game's own questions."""
    return state.ended
