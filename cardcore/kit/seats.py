"""The one check of the seat (:func:`seated`) or viewer (:func:`viewed`) a rule function is given,
so the rule below trusts it; :func:`trusted`, the rule behind the check, for a caller that has
checked the seat itself."""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Mapping
from typing import Any, Concatenate, Final, ParamSpec, TypeVar

from ..engine import Role, Viewer, check_seat
from ..errors import InvalidSeat
from . import codegen
from .inline import hot

_S = TypeVar("_S")
_T = TypeVar("_T")
_P = ParamSpec("_P")


def seated(
    rule: Callable[Concatenate[_S, int, _P], _T],
) -> Callable[Concatenate[_S, int, _P], _T]:
    """The one check of the seat a game's ``decide``, ``legal_commands`` or ``is_sensible``
    (``rule(state, seat, ...)``) is asked about: a seat that is not an ``int`` (``True`` is not
    seat 1) or not one of ``state.setup.seats`` raises :class:`~cardcore.errors.InvalidSeat`, and
    the rule below trusts ``seat``::

        @kit.seated
        def legal_commands(state: State, seat: int) -> tuple[Command, ...]:
            ...

    :class:`~cardcore.match.Match` checks the seat of every action it sequences and calls the
    rule past this check (:func:`trusted`): a seat is checked once on every path. (The state's
    first field is its setup, as :func:`state` requires: the check reads ``state[0].seats``.)

    The check is written once, here, and declared where it applies, where the games wrote it
    inline at the top of each function, in 26 places. It runs as the first statement of the rule
    itself: the kit compiles the rule again from its own source with the check first
    (:func:`~cardcore.kit.codegen.with_prologue`), the function that results being the rule in
    every other way (name, docstring, signature, line numbers in tracebacks). Where that cannot
    be done (a rule that is a closure or a method, a build without sources), the rule is wrapped
    in a function that checks, then calls it: the same answers, and the same errors.

    Why, by measurement (CPython 3.11): the engine harness's random playouts ask every seat's
    ``legal_commands`` and every option's ``is_sensible`` at every step, six calls in a Slapjack
    step. A wrapper costs a Python frame per call: 57 ns a call, against 33 ns for the check in
    the rule's own frame (timeit, those six calls: 886 ns wrapped, 745 ns checked in the rule,
    544 ns unchecked); Slapjack's playouts ran 6.5 % faster without the wrappers."""
    params = codegen.positional_parameters(rule)
    fixed = len(params)
    if fixed not in _SEAT_CHECKS:
        raise TypeError(f"{rule.__qualname__}: kit.seated takes rule(state, seat[, command])")
    state, seat = params[:2]
    checked: Any = codegen.with_prologue(
        rule,
        [
            f"if type({seat}) is not int or not 0 <= {seat} < {state}[0].seats:",
            f"    _kit_check_seat({state}[0].seats, {seat})",
        ],
        {"_kit_check_seat": check_seat},
    )
    if checked is None:
        checked = _SEAT_CHECKS[fixed](rule)
        functools.update_wrapper(checked, rule)
    _TRUSTED[checked] = hot(rule)  # Match's: checked there, and its helpers written in too
    return checked  # type: ignore[no-any-return]


def _seat_checked_2(rule: Callable[[Any, int], Any]) -> Callable[[Any, Any], Any]:
    def checked(state: Any, seat: Any, /) -> Any:  # no *args to pack
        if type(seat) is not int or not 0 <= seat < state[0].seats:  # state[0] is its setup
            check_seat(state[0].seats, seat)
        return rule(state, seat)

    return checked


def _seat_checked_3(rule: Callable[[Any, int, Any], Any]) -> Callable[[Any, Any, Any], Any]:
    def checked(state: Any, seat: Any, command: Any, /) -> Any:
        if type(seat) is not int or not 0 <= seat < state[0].seats:
            check_seat(state[0].seats, seat)
        return rule(state, seat, command)

    return checked


_SEAT_CHECKS: Final[Mapping[int, Callable[[Any], Callable[..., Any]]]] = types.MappingProxyType(
    {2: _seat_checked_2, 3: _seat_checked_3}
)
"""The wrapper that checks the seat, by the rule's number of positional parameters: where the
rule cannot be compiled with the check first."""


def trusted(rule: Callable[_P, _T]) -> Callable[_P, _T]:
    """The rule behind a :func:`seated` function, which trusts its seat; any other function as it
    is. For a caller that has checked the seat itself (:class:`~cardcore.match.Match`)."""
    inner: Callable[_P, _T] | None = _TRUSTED.get(rule)
    return rule if inner is None else inner


_TRUSTED: Final[dict[Callable[..., Any], Callable[..., Any]]] = {}
"""The rule behind each :func:`seated` function (a lookup, where an attribute of the function
raised and caught an AttributeError for every other rule: 2 us of each match's start)."""


_ROLES: Final = frozenset(Role)


def check_viewer(viewer: object, seats: int) -> None:
    """A :class:`~cardcore.engine.Role` (``"spectator"``, ``"referee"``) or a seat of a
    ``seats``-seat game passes; anything else is :class:`~cardcore.errors.InvalidSeat` (a
    misspelt role is refused, not shown the table as a spectator)."""
    if isinstance(viewer, str):
        if viewer not in _ROLES:
            raise InvalidSeat(
                f"not a viewer: {viewer!r:.40} (a seat number, 'spectator' or 'referee')"
            )
    else:
        check_seat(seats, viewer)


def viewed(
    rule: Callable[Concatenate[_S, Viewer, _P], _T],
) -> Callable[Concatenate[_S, Viewer, _P], _T]:
    """The one check of the viewer of a game's ``view`` or ``format_position``
    (``rule(state, viewer, ...)``): :func:`check_viewer` against ``state.setup.seats``; the rule
    below trusts ``viewer``."""

    @functools.wraps(rule)
    # viewer: anything a caller passes, which check_viewer refuses or lets through (typed
    # Viewer, a compiled build would refuse it with a TypeError before the check).
    def checked(state: _S, viewer: Any, /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        check_viewer(viewer, state.setup.seats)  # type: ignore[attr-defined]
        if type(viewer) is str:  # a role's text: the rule is given the Role it declares
            viewer = Role(viewer)
        return rule(state, viewer, *args, **kwargs)

    return checked
