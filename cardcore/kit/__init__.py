"""What every game is made of, written once: the record type of commands, events and views, the
game's state and the speed of the engine, turn order, slap patterns, joint calls, and zones (which
cards a state holds where, and who sees them).

A game module imports these instead of writing its own; each is the rule text of docs/games/ it
cites, kept small enough to read beside it. (Positions' notation and checks are in
:mod:`cardcore.notation`.)

**Speed lives here, and only here** (design.md, "Speed of the core"). A game's module is rule text:
it declares what it wants fast and the kit makes it so, by one mechanism each:

* :func:`state` and :func:`builds` — a game's ``State`` (a ``NamedTuple``) whose
  ``s._replace(field=...)`` is as fast as a hand-written positional tuple build in the functions
  declared ``@kit.builds(State)`` (``evolve``), so ``evolve`` names the fields it changes and
  nothing else;
* :class:`derived` — a value of a state (is the game over? what would a slap match?) worked out
  once per state and kept with it, for the questions asked of one position for every seat;
* :func:`tabulate` — a rule evaluated once, at import, over finite domains (the flag values, the
  cards, the seats), declared next to the readable rule it speeds up; a table of a command class is
  the game's interned commands;
* :func:`seated` / :func:`viewed` — the one check of the seat or viewer a rule function is given,
  so the rule below trusts it (a seat check is compiled in as the rule's first statement, where
  the rule's source allows, so that it costs no call of its own);
* :func:`inline` / :func:`hot` — a one-expression helper written into the rules that call it on a
  playout's every step, so that rule text may name what it asks without paying a call for it;
* :func:`union_types` — ``command_types`` and ``event_types`` read from the ``Command`` and
  ``Event`` unions, never repeated by hand.

**Native states and events** (issue 24, :mod:`.native`), for the compiled build: a game's state a
plain class on :class:`NativeState` (a C struct when compiled: ``==``, ``hash``, ``repr``,
``_replace``, pickling and the kept outcome written once, here), its events plain classes made
records in place (:func:`native_records`), its rules checking their seat with :func:`seat_of` as
their first statement. Every shipped game is written this way; :func:`state`, :func:`builds`,
:func:`derived` and :func:`seated` stay, unchanged, the simpler way for a game that never needs
the compiled build (docs/adding-a-game.md, section 11; tests/war's War).

Each is measured where it is defined. A compiled build (mypyc) keeps the same calls and may swap
how the kit makes them fast without touching a game.

A game imports the package (``from cardcore import kit``, then ``kit.state``, ``kit.Resign``),
never its modules, one job each: :mod:`.records` (events, views, commands and their unions),
:mod:`.fieldtypes` (a command's field type checks), :mod:`.codegen` (the generated code: a
record's ``__init__``, a state's ``_replace``, a rule compiled with its seat check first),
:mod:`.states` (the state and its derived values), :mod:`.native` (native states),
:mod:`.tables`, :mod:`.inline`, :mod:`.seats`,
:mod:`.common` (turn order, slap patterns and joint calls), :mod:`.leaving` (``Resign``) and
:mod:`.zones`.
"""

from __future__ import annotations

from .common import (
    DOUBLE,
    MAX_SEATS,
    SANDWICH,
    PairPattern,
    double_or_sandwich,
    joint_call,
    next_holder,
    next_in_game,
)
from .inline import hot, inline
from .leaving import RESIGN_BY_TIMER, Resign
from .native import NativeState, kept_outcome, seat_of
from .records import command, native_records, record, union_types, view
from .seats import check_viewer, seated, trusted, viewed
from .states import builds, derived, state
from .tables import subsets, tabulate
from .zones import Visibility, Zone, Zones

__all__ = [
    "DOUBLE",
    "MAX_SEATS",
    "RESIGN_BY_TIMER",
    "SANDWICH",
    "NativeState",
    "PairPattern",
    "Resign",
    "Visibility",
    "Zone",
    "Zones",
    "builds",
    "check_viewer",
    "command",
    "derived",
    "double_or_sandwich",
    "hot",
    "inline",
    "joint_call",
    "kept_outcome",
    "native_records",
    "next_holder",
    "next_in_game",
    "record",
    "seat_of",
    "seated",
    "state",
    "subsets",
    "tabulate",
    "trusted",
    "union_types",
    "view",
    "viewed",
]
