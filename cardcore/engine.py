"""The engine protocol every game implements, and the types shared by all games.

A game is a *decider* (Chassaing's pattern): pure functions over frozen values.

* ``initial_state(setup)`` — the table before the deal; ``deal(setup)`` — the opening events,
  drawn from the seed (so the log records the deal and replay never needs the RNG);
* ``decide(state, seat, command) -> events`` — raises :class:`~cardcore.errors.Rejected`;
  never mutates;
* ``evolve(state, event) -> state`` — applies a fact; no rules, never raises on a valid log;
* ``legal_commands(state, seat)``, ``outcome(state)``, ``view(state, viewer)``,
  ``redact(event, viewer)`` and ``narrate(event)``.

The seat acting is an argument, never part of a command: on the service it comes from the token.
Commands are logged and streamed as sent, so a command may name only cards that every viewer sees
before or after it is accepted (the contract suite checks this for every game).
:class:`Game` bundles these with :class:`GameInfo` and the test hooks of the contract suite
(``deck``, ``cards_in_play``, ``shuffle_hidden``), and reads and writes positions
(``parse_position`` / ``format_position``) and commands (:meth:`Game.parse_command` /
:meth:`Game.format_command`) as text. :mod:`cardcore.registry` lists every game.
"""

from __future__ import annotations

import copyreg
import dataclasses
import functools
import hashlib
import types
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final, Generic, TypeVar, cast, get_type_hints

from . import codec, commands
from ._mypyc import compiled_class, mypyc_attr
from .cards import Card
from .errors import DecodeError, InvalidSeat, InvalidSetup
from .rng import MAX_SEED, Rng

S = TypeVar("S")
C = TypeVar("C")
E = TypeVar("E")
V = TypeVar("V")
R = TypeVar("R")

DEFAULT_EVENT_LIMIT: Final = 200_000
"""Events after which a game that has not finished ends with ``Termination.EVENT_LIMIT``."""


class Role(StrEnum):
    """Viewers who are not a seat. The referee is omniscient (audits after the game)."""

    SPECTATOR = "spectator"
    REFEREE = "referee"


Viewer = int | Role
"""Who looks: a seat number, a spectator or the referee."""


def parse_viewer(text: str) -> Viewer:
    """``"2"`` → seat 2; ``"spectator"`` / ``"referee"`` → the role. Raises ``ValueError``."""
    try:
        return Role(text)
    except ValueError:
        pass
    if text.isdigit():
        return int(text)
    raise ValueError(f"not a viewer: {text!r} (a seat number, 'spectator' or 'referee')")


class Termination(StrEnum):
    """How a game ended (``python-chess``'s ``Outcome`` model)."""

    ALL_CARDS = "all_cards"
    """One player holds every card (ERS, Slapjack)."""
    LAST_STANDING = "last_standing"
    """Every other player was eliminated."""
    OUT_OF_CARDS = "out_of_cards"
    """A player got rid of all their cards (Spit, Speed; in Palace, the last holder loses)."""
    TARGET_SCORE = "target_score"
    """A player reached the match's target score or won the best-of series (Speed)."""
    EVENT_LIMIT = "event_limit"
    """The setup's event limit was reached first; nobody won."""
    RESIGNED = "resigned"
    """A player resigned (or forfeited on a timer) with two players left; the other won
    (docs/games/common.md#leaving-a-game)."""
    ABORTED = "aborted"
    """The host (the table's creator or an administrator) ended the game: no winners, no losers
    (docs/games/common.md#leaving-a-game)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game as data. ``losers`` matters where the game names one (Palace).

    ``str(outcome)`` is one line in the log's words, e.g. ``"out of cards: seat 0 wins"``,
    ``"out of cards: seats 2, 0 win; seat 1 loses"`` (seats in the outcome's order, best first),
    ``"target score: seat 1 wins; scores 3/5"`` (per seat, seat 0 first, as in the notation),
    ``"event limit: no winner"``. Two different outcomes never read alike; ``repr`` reads back."""

    termination: Termination
    winners: tuple[int, ...] = ()
    losers: tuple[int, ...] = ()
    scores: tuple[int, ...] = ()

    def __str__(self) -> str:
        parts = [_seats_phrase(self.winners, "wins", "win") if self.winners else "no winner"]
        if self.losers:
            parts.append(_seats_phrase(self.losers, "loses", "lose"))
        if self.scores:
            parts.append("scores " + "/".join(str(s) for s in self.scores))
        return f"{self.termination.value.replace('_', ' ')}: {'; '.join(parts)}"


def _seats_phrase(seats: Sequence[int], one: str, many: str) -> str:
    """``"seat 0 wins"``, ``"seats 2, 0 win"``."""
    if len(seats) == 1:
        return f"seat {seats[0]} {one}"
    return f"seats {', '.join(str(s) for s in seats)} {many}"


# --------------------------------------------------------------------------- rules and setup


def flag(
    default: Any,
    help: str,
    *,
    min: int | None = None,
    max: int | None = None,
    omit_default: bool = False,
) -> Any:
    """Declare a rule flag on a game's rules dataclass: its default, a one-line help text and,
    for integers, inclusive bounds. Each game's page says what its flags do
    (docs/games/<game>.md#variant-flags); the catalogue lists them.

    ``omit_default``: a log's header leaves the game's ``omit_default`` flags out while every
    one of them has its default value (and writes them all otherwise), so flags added to a game
    after logs of it were written change none of their bytes, and the headers of games that
    keep the defaults read as they always did."""
    meta = {"help": help, "min": min, "max": max, "omit_default": omit_default}
    if isinstance(default, dict | list | set):
        frozen = default
        return field(default_factory=lambda: type(frozen)(frozen), metadata=meta)
    return field(default=default, metadata=meta)


@dataclass(frozen=True, slots=True)
class FlagInfo:
    """One variant flag of a game, as the catalogue and ``cardcore games`` show it."""

    name: str
    default: codec.JSON
    schema: codec.JSON
    help: str


def rule_flags(rules_type: type) -> tuple[FlagInfo, ...]:
    """The flags of a rules dataclass, in declaration order."""
    hints = get_type_hints(rules_type)
    out = []
    default_rules = rules_type()
    for f in dataclasses.fields(rules_type):
        schema = dict(codec._schema(hints[f.name]))
        if f.metadata.get("min") is not None:
            schema["minimum"] = f.metadata["min"]
        if f.metadata.get("max") is not None:
            schema["maximum"] = f.metadata["max"]
        out.append(
            FlagInfo(
                name=f.name,
                default=codec.encode(getattr(default_rules, f.name)),
                schema=schema,
                help=str(f.metadata.get("help", "")),
            )
        )
    return tuple(out)


@functools.cache
def _rule_fields(rules_type: type) -> tuple[dict[str, Any], dict[str, dataclasses.Field[Any]]]:
    """Type hints and fields of a rules dataclass (cached: resolving hints is slow)."""
    fields = {f.name: f for f in dataclasses.fields(rules_type)}
    return get_type_hints(rules_type), fields


@functools.cache
def _omitted_at_default(rules_type: type) -> tuple[str, ...]:
    """The flags a header leaves out while they have their default (:func:`flag`)."""
    return tuple(
        f.name for f in dataclasses.fields(rules_type) if f.metadata.get("omit_default", False)
    )


@functools.cache
def _rule_defaults(rules_type: type) -> dict[str, Any]:
    """Each flag's default value (built once per rules type; treated as read-only)."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(rules_type):
        factory = f.default_factory
        out[f.name] = factory() if factory is not dataclasses.MISSING else f.default
    return out


@functools.cache
def _default_rules(rules_type: type) -> Any:
    """The default rules of a game, made once: rules are frozen, so every setup without flags
    may share them (building and checking them again took about half of ``make_setup``)."""
    return rules_type()


def parse_rules(rules_type: type[R], values: Mapping[str, codec.JSON] | None) -> R:
    """Build a game's rules from JSON values, validating each flag. Unknown flags, wrong types
    and out-of-range values raise :class:`InvalidSetup` naming ``rules.<flag>``."""
    if values is not None and not isinstance(values, Mapping):
        raise InvalidSetup("rules", f"must be an object of flags, got {type(values).__name__}")
    values = dict(values or {})
    if not values:
        return cast(R, _default_rules(cast(type, rules_type)))
    hints, fields = _rule_fields(cast(type, rules_type))
    kwargs: dict[str, Any] = {}
    for name, raw in values.items():
        path = f"rules.{name}"
        f = fields.get(name)
        if f is None:
            raise InvalidSetup(path, f"unknown flag; known flags: {', '.join(fields)}")
        kwargs[name] = _flag_value(hints[name], f, raw, path)
    return rules_type(**kwargs)


def _flag_value(hint: Any, f: dataclasses.Field[Any], data: codec.JSON, path: str) -> Any:
    """A flag's value from its JSON: decoded to the declared type and within its bounds."""
    try:
        value = codec.decode(hint, data, path)
    except DecodeError as exc:
        raise InvalidSetup(exc.field, exc.message) from None
    lo, hi = f.metadata.get("min"), f.metadata.get("max")
    if isinstance(value, int) and not isinstance(value, bool):
        if lo is not None and value < lo:
            raise InvalidSetup(path, f"must be at least {lo}, got {value}")
        if hi is not None and value > hi:
            raise InvalidSetup(path, f"must be at most {hi}, got {value}")
    return value


def check_rules(rules: object) -> None:
    """Validate a rules dataclass built directly, exactly as :func:`parse_rules` validates JSON
    flags (types, ``Literal`` values, bounds), and normalise each value to its declared type (a
    ``set`` of slap rules becomes a ``frozenset``). Every game's ``Rules.__post_init__`` calls
    it, so ``Rules(...)`` and ``make_setup`` accept exactly the same variants."""
    hints, fields = _rule_fields(cast(type, type(rules)))
    defaults = _rule_defaults(cast(type, type(rules)))
    for name, f in fields.items():
        value = getattr(rules, name)
        default = defaults[name]
        if value is default or (type(value) is type(default) and value == default):
            continue  # a default is valid (the catalogue lists it): most Rules() are defaults
        path = f"rules.{name}"
        try:
            data = codec.encode(value)
        except (TypeError, ValueError):
            raise InvalidSetup(path, f"not a valid value: {value!r:.80}") from None
        decoded = _flag_value(hints[name], f, data, path)
        if type(decoded) is not type(value):
            object.__setattr__(rules, name, decoded)  # frozen: normalised once, at construction


def seats_phrase(lo: int, hi: int) -> str:
    """How many seats a game takes, as every message says it: ``"exactly 2 seats"``,
    ``"2 to 8 seats"`` (never "2 to 2")."""
    return f"exactly {lo} seats" if lo == hi else f"{lo} to {hi} seats"


def check_seat(seats: int, seat: object) -> int:
    """``seat`` when it is a seat of a ``seats``-seat game; else :class:`InvalidSeat` (a clear
    ``ValueError``, never an ``IndexError`` deep in a game). ``True`` is not seat 1."""
    if type(seat) is not int:
        raise InvalidSeat(f"a seat must be an int, got {type(seat).__name__} {seat!r:.40}")
    if not 0 <= seat < seats:
        raise InvalidSeat(f"no seat {seat} in a {seats}-seat game")
    return seat


def with_setup(state: S, setup: Setup[Any]) -> S:
    """``state`` under ``setup`` (every game's state has ``setup`` as its first field and a
    ``_replace``: a ``NamedTuple``, or a :class:`~cardcore.kit.NativeState`)."""
    return state._replace(setup=setup)  # type: ignore[attr-defined, no-any-return]


@functools.cache
def _int_fields(cls: type) -> tuple[str, ...]:
    """The fields of a command class declared ``int`` (or ``int | None``); none for a class that
    checks its fields' types at construction (:func:`cardcore.kit.command`)."""
    if not dataclasses.is_dataclass(cls) or commands.syntax_of(cls) is not None:
        return ()
    hints = get_type_hints(cls)
    return tuple(
        f.name
        for f in dataclasses.fields(cls)
        if hints[f.name] is int or int in getattr(hints[f.name], "__args__", ())
    )


@functools.cache  # asked by every match a game starts: a playout's setup
def needs_no_check(command_types: tuple[type, ...]) -> frozenset[type]:
    """The classes of ``command_types`` in which :func:`check_command` has nothing to check (no
    ``int`` field, or a :func:`cardcore.kit.command`, which checked its fields when built): a
    sequencer skips the call for their commands, as it would find nothing."""
    return frozenset(t for t in command_types if not _int_fields(t))


MAX_ABORT_BY: Final = 32
"""The longest name of who aborted a game (:func:`check_abort_by`)."""


def check_abort_by(by: object) -> str:
    """``by`` of a host's abort (docs/games/common.md#abort): a short printable name of who
    aborted; raises ``ValueError``."""
    if not isinstance(by, str) or not 0 < len(by) <= MAX_ABORT_BY or not by.isprintable():
        raise ValueError(f"an abort's by must be 1 to {MAX_ABORT_BY} printable characters")
    return by


def check_command(command: object) -> None:
    """Refuse a command whose integer field holds a ``bool``: ``True == 1`` would pass every
    rule, then the log would record ``true`` where a number belongs and fail ``verify``.
    Raises :class:`DecodeError` naming ``command.<field>`` (a JSON command never gets here:
    the codec refuses it first; a command of :func:`cardcore.kit.command` neither: its
    constructor refused it)."""
    for name in _int_fields(cast(type, type(command))):
        if type(getattr(command, name)) is bool:
            raise DecodeError(f"command.{name}", "expected an integer, got bool")


# A Python class in the compiled build too: mypyc builds no slotted dataclass of a Generic.
@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class Setup(Generic[R]):
    """Everything that fixes a game before the first action: seats, seed, rules, event limit.

    The seed stays inside the engine: no view, redacted event or redacted log ever shows it.
    """

    seats: int
    seed: int
    rules: R
    event_limit: int = DEFAULT_EVENT_LIMIT

    def public_json(self) -> dict[str, codec.JSON]:
        """The setup without its seed, as the log header records it: the flags declared with
        ``omit_default`` are left out while every one of them has its default."""
        rules = codec.encode(self.rules)
        del rules[codec.KIND]
        rules_type = cast(type, type(self.rules))
        late = _omitted_at_default(rules_type)
        defaults = _rule_defaults(rules_type)
        if all(getattr(self.rules, name) == defaults[name] for name in late):
            for name in late:
                del rules[name]
        return {"seats": self.seats, "rules": rules, "event_limit": self.event_limit}

    def setup_hash(self) -> str:
        """sha256 of the canonical public setup: names the exact variant a log was played under."""
        return hashlib.sha256(codec.canonical_bytes(self.public_json())).hexdigest()


# --------------------------------------------------------------------------- the game record


@dataclass(frozen=True, slots=True)
class GameInfo:
    """What the catalogue says of a game."""

    name: str
    title: str
    rules_version: str
    min_seats: int
    max_seats: int
    realtime: bool
    aliases: tuple[str, ...] = ()
    replays_versions: tuple[str, ...] = ()
    """Earlier ``rules_version`` values whose logs these rules still verify and replay exactly:
    a version that only *added* a command (e.g. ``Resign``) decides every old action as before."""


# A Python class in the compiled build too: mypyc builds no slotted dataclass of a Generic.
@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class Game(Generic[S, C, E, V, R]):
    """One game: its decider functions, its types (for the codec and schemas) and test hooks."""

    info: GameInfo
    rules_type: type[R]
    command_types: tuple[type, ...]
    event_types: tuple[type, ...]
    view_type: type
    initial_state: Callable[[Setup[R]], S]
    deal: Callable[[Setup[R]], Sequence[E]]
    decide: Callable[[S, int, C], Sequence[E]]
    evolve: Callable[[S, E], S]
    legal_commands: Callable[[S, int], Sequence[C]]
    outcome: Callable[[S], Outcome | None]
    view: Callable[[S, Viewer], V]
    redact: Callable[[E, Viewer], E]
    narrate: Callable[[E], str]
    deck: Callable[[Setup[R]], list[Card]]
    """The multiset of cards a game with this setup plays with (conservation)."""
    cards_in_play: Callable[[S], list[Card]]
    """Every card in every zone of a state, hidden or not (conservation)."""
    shuffle_hidden: Callable[[S, Viewer, Rng], S]
    """The same position with the cards ``viewer`` cannot see permuted among their places."""
    is_sensible: Callable[[S, int, C], bool]
    """Bots' hint: would a player who plays well make this legal command now? (A false slap is
    legal but not sensible.)"""
    check_setup: Callable[[Setup[R]], None] | None = None
    """The game's own cross-checks of seats and rules; raises :class:`InvalidSetup`."""
    check_position: Callable[[S], None] | None = None
    """Raises :class:`~cardcore.errors.InvalidPosition` naming the field at fault when a state
    is not a position this game could reach (cards not conserved, seats out of range, phase
    and turn inconsistent, ...). Every game's ``position(...)`` calls it."""
    format_position: Callable[[S, Viewer], str] | None = None
    """The position in the game's one-line notation (docs/notation.md), its rules included when
    they are not the defaults (docs/notation.md#the-rules-field). For a viewer other than the
    referee, the cards it may not see are written ``??`` (such a text is for display: it does
    not parse back)."""
    parse_position: Callable[[str, R | None], S] | None = None
    """The position a referee's notation text describes, checked: under the rules the text
    carries, else these rules (default rules when None); a text that carries rules other than
    those given is refused. Raises :class:`~cardcore.errors.InvalidPosition` (``field``
    "notation", "rules" or the part at fault). ``parse_position(format_position(s, REFEREE),
    None)`` is ``s`` with seed 0 and the default event limit, whatever its rules."""
    to_act: Callable[[S], Collection[int]] | None = None
    """A turn-based game: the seats it is waiting for (the player to move; in a phase every
    seat must finish, those that have not). A host's turn timer runs for them; a game without
    it has no turn timer (its real-time seats have an idle timer instead)."""

    def __post_init__(self) -> None:
        copied_as_built(self.rules_type)  # a setup's rules are copied and pickled with it

    @property
    def name(self) -> str:
        return self.info.name

    def make_setup(
        self,
        seats: int,
        seed: int,
        rules: Mapping[str, codec.JSON] | None = None,
        event_limit: int = DEFAULT_EVENT_LIMIT,
    ) -> Setup[R]:
        """A validated setup; raises :class:`InvalidSetup` naming the field at fault."""
        if isinstance(seats, bool) or not isinstance(seats, int):
            raise InvalidSetup("seats", f"must be an integer, got {seats!r}")
        lo, hi = self.info.min_seats, self.info.max_seats
        if not lo <= seats <= hi:
            raise InvalidSetup("seats", f"{self.name} takes {seats_phrase(lo, hi)}, got {seats}")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
            raise InvalidSetup("seed", f"must be an integer in [0, 2**64), got {seed!r}")
        if isinstance(event_limit, bool) or not isinstance(event_limit, int) or event_limit < 1:
            raise InvalidSetup("event_limit", f"must be a positive integer, got {event_limit!r}")
        setup = Setup(seats, seed, parse_rules(self.rules_type, rules), event_limit)
        self.validate_setup(setup)
        return setup

    def validate_setup(self, setup: Setup[R]) -> None:
        """Cross-checks that need both seats and rules (e.g. enough cards for every seat)."""
        deck = self.deck(setup)
        if len(deck) < setup.seats:
            raise InvalidSetup("rules", f"{len(deck)} cards cannot be dealt to {setup.seats} seats")
        if self.check_setup is not None:
            self.check_setup(setup)

    def parse_command(self, state: S, seat: int, text: str) -> C:
        """The command ``text`` describes in this game's command syntax (docs/notation.md#commands),
        e.g. ``"play 4S 4H"`` in Palace, ``"slap epoch 3"`` in Egyptian Ratscrew; the inverse of
        :meth:`format_command`. ``state`` and ``seat`` are where it would be played: ``seat``
        must be a seat of it (:class:`~cardcore.errors.InvalidSeat`) and each card one of its
        setup's decks. Raises :class:`~cardcore.commands.CommandSyntaxError` (a ``ValueError``)
        quoting the text and saying what was expected. Whether the command is legal there is
        :attr:`decide`'s to say, as for any command."""
        setup: Setup[Any] = state.setup  # type: ignore[attr-defined]
        check_seat(setup.seats, seat)
        texts = _command_texts(self.name, self.command_types)
        return texts.parse(text, frozenset(self.deck(setup)))  # type: ignore[no-any-return]

    def format_command(self, command: C) -> str:
        """``command`` in this game's command syntax: the text :meth:`parse_command` reads back
        as ``command`` (also ``str(command)``). Raises ``TypeError`` for a value that is not
        one of this game's commands."""
        if type(command) not in self.command_types:
            raise TypeError(f"not a {self.name} command: {command!r:.80}")
        return commands.format_command(command)

    @property
    def command_usage(self) -> str:
        """Every command's syntax, ``|``-separated: ``"play | slap [epoch EXPECT_EPOCH] ..."``."""
        return _command_texts(self.name, self.command_types).usage

    def decode_command(self, data: codec.JSON, path: str = "command") -> C:
        """A command of this game from its JSON; raises :class:`~cardcore.errors.DecodeError`."""
        return codec.decoder(union_of(self.command_types))(data, path)  # type: ignore[no-any-return]

    def decode_event(self, data: codec.JSON, path: str = "event") -> E:
        """An event of this game from its JSON; raises :class:`~cardcore.errors.DecodeError`."""
        return codec.decoder(union_of(self.event_types))(data, path)  # type: ignore[no-any-return]


def copied_as_built(*classes: type) -> None:
    """``copy`` and ``pickle`` make each of ``classes`` (frozen dataclasses) again by calling it
    with its fields, where mypyc compiled it: mypyc's own way sets each attribute of a bare
    instance, which a frozen class refuses. A class left to Python (every class, in the
    interpreted build) keeps the dataclass's way."""
    for cls in classes:
        if compiled_class(cls):
            copyreg.pickle(cls, _as_built)


def _as_built(value: Any) -> tuple[type, tuple[Any, ...]]:
    return type(value), tuple(getattr(value, f.name) for f in dataclasses.fields(value))


copied_as_built(Outcome, FlagInfo, GameInfo)

_generic: Any
for _generic in (Setup, Game):
    # mypyc makes these two Python classes without their Generic base (it types them itself):
    # ``Game[S, C, E, V, R]`` is then the plain alias of the class, as for a builtin generic.
    if not hasattr(_generic, "__class_getitem__"):
        _generic.__class_getitem__ = classmethod(types.GenericAlias)


@functools.cache
def _command_texts(game: str, command_types: tuple[type, ...]) -> commands.CommandTexts:
    """A game's commands by verb, compiled once per game."""
    return commands.CommandTexts(game, command_types)


@functools.cache
def union_of(types_: tuple[type, ...]) -> Any:
    """``A | B | ...`` of a game's command or event classes (a typing union, for the codec)."""
    out: Any = types_[0]
    for t in types_[1:]:
        out = out | t
    return out


def always_sensible(state: object, seat: int, command: object) -> bool:
    """The default bot hint: every legal command is a fair choice."""
    return True
