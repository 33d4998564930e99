"""cardcore: deterministic, seeded, replayable, event-sourced card game engines.

Five games — Egyptian Ratscrew, Slapjack, Palace (Shithead), Spit and Speed — as pure deciders
(:mod:`cardcore.engine`), a single sequencer (:class:`cardcore.match.Match`), a tamper-evident log
(:mod:`cardcore.log`) and seeded bots (:mod:`cardcore.bots`). Standard library only: no clock, no
global RNG, no I/O.

``import cardcore`` imports nothing else: each public name below is imported from its module on
first access (PEP 562 ``__getattr__``), and a game's module only when that game is first used
(:mod:`cardcore.registry`). So a command that needs one game, or none (``cardcore --help``, a
client that only names types), does not pay for all five.

One source, two builds: the pure wheel, and a platform wheel in which some modules are also
compiled with mypyc (``hatch_build.py``). Python loads a compiled module's extension rather than
the ``.py`` beside it; ``CARDCORE_PURE=1`` in the environment makes every ``cardcore`` module load
from its ``.py`` even so, and :data:`compiled` says which build runs. This module itself is never
compiled: it makes that choice before any other of cardcore's modules is imported.
"""

from __future__ import annotations

import sys
from os import environ  # the one read of the environment in the core (tests/unit/test_purity.py)

TYPE_CHECKING = False
"""Not :data:`typing.TYPE_CHECKING`: importing :mod:`typing` alone would cost more than the rest
of this module (type checkers treat any ``TYPE_CHECKING`` name as true)."""

PURE_ENV = "CARDCORE_PURE"
"""Set (to anything but empty or ``0``), every ``cardcore`` module loads from its ``.py`` file."""

_PURE = environ.get(PURE_ENV, "") not in ("", "0")

_LIBRARY = "_engine__mypyc"
"""The compiled build's shared library, ``cardcore/_engine__mypyc.<abi>.so`` (mypyc's group
``cardcore._engine``, named in ``hatch_build.py``): every compiled module's code is in it."""

if _PURE:
    from importlib.machinery import SOURCE_SUFFIXES, FileFinder, ModuleSpec, SourceFileLoader

    class _SourceFirst:
        """A :data:`sys.meta_path` finder for ``cardcore``'s submodules alone: each is found as
        the path finder would find it, but among ``.py`` files only (a :class:`FileFinder` with
        the source loader alone, one per folder of the package), so a compiled extension beside a
        module is passed over. Its specs are the ordinary ones of a source file: ``__file__``,
        :mod:`importlib.resources`, tracebacks and bytecode caching work as always. A module with
        no ``.py`` (the shared library) is left to the path finder; other packages too."""

        cardcore_pure = True

        def __init__(self) -> None:
            self._finders: dict[str, FileFinder] = {}

        def find_spec(
            self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
        ) -> ModuleSpec | None:
            if path is None or not fullname.startswith(__name__ + "."):
                return None
            for folder in path:
                finder = self._finders.get(folder)
                if finder is None:
                    finder = self._finders[folder] = FileFinder(
                        folder, (SourceFileLoader, SOURCE_SUFFIXES)
                    )
                spec = finder.find_spec(fullname)
                if spec is not None and spec.loader is not None:
                    return spec
            return None

        def invalidate_caches(self) -> None:
            for finder in self._finders.values():
                finder.invalidate_caches()

    # first, before any submodule is imported; once, even if this module is imported again
    if not any(getattr(f, "cardcore_pure", False) for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceFirst())

# one tiny module, never compiled; hatch reads the version from it
from .version import __version__  # noqa: E402 (after the finder: no submodule before it)

if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType

    compiled: bool  # see _is_compiled below
    # What the type checker (and a reader) sees: the names as eager imports.
    from .cards import HIDDEN, Card
    from .commands import CommandSyntaxError, FieldTypeError
    from .engine import Game, GameInfo, Outcome, Role, Setup, Termination, Viewer
    from .errors import (
        CardcoreError,
        CorruptLog,
        DecodeError,
        InvalidSetup,
        RejectCode,
        Rejected,
        UnknownGame,
    )
    from .match import Match
    from .registry import GAMES, get_game

_HOME: dict[str, str] = {
    "HIDDEN": "cards",
    "Card": "cards",
    "CommandSyntaxError": "commands",
    "FieldTypeError": "commands",
    "Game": "engine",
    "GameInfo": "engine",
    "Outcome": "engine",
    "Role": "engine",
    "Setup": "engine",
    "Termination": "engine",
    "Viewer": "engine",
    "CardcoreError": "errors",
    "CorruptLog": "errors",
    "DecodeError": "errors",
    "InvalidSetup": "errors",
    "RejectCode": "errors",
    "Rejected": "errors",
    "UnknownGame": "errors",
    "Match": "match",
    "GAMES": "registry",
    "get_game": "registry",
}
"""Each lazily imported public name → the submodule that defines it."""


def _is_compiled() -> bool:
    """``cardcore.compiled``: true when the compiled modules are the ones Python loads — this is
    the compiled build (its shared library loads) and ``CARDCORE_PURE`` is not set. Which modules
    are compiled is the build's list (``[tool.cardcore.compiled]`` in pyproject.toml): true says
    each of them runs compiled, not that every module of cardcore is; the others run as Python in
    either build. Asked on first use, not at ``import cardcore``: loading the library costs a
    little, and a compiled module would load it anyway."""
    if _PURE:
        return False
    try:
        __import__(f"{__name__}.{_LIBRARY}")
    except ImportError:  # the pure build: no library (or one built for another Python)
        return False
    return True


if not TYPE_CHECKING:  # hidden from type checkers, which would let any name through it

    def __getattr__(name: str) -> object:
        if name == "compiled":
            value = globals()[name] = _is_compiled()
            return value
        home = _HOME.get(name)
        if home is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        # __import__ with a fromlist returns the submodule itself (no importlib to load)
        value = getattr(__import__(f"{__name__}.{home}", fromlist=[name]), name)
        globals()[name] = value  # later accesses are plain global reads
        return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME, "compiled"})


__all__ = [
    "GAMES",
    "HIDDEN",
    "Card",
    "CardcoreError",
    "CommandSyntaxError",
    "CorruptLog",
    "DecodeError",
    "FieldTypeError",
    "Game",
    "GameInfo",
    "InvalidSetup",
    "Match",
    "Outcome",
    "RejectCode",
    "Rejected",
    "Role",
    "Setup",
    "Termination",
    "UnknownGame",
    "Viewer",
    "__version__",
    "compiled",
    "get_game",
]
