"""Seeded bots, and the loop that lets them play a whole game through the sequencer.

In short: ``play_out(match, seat_bots("reaction", seats, seed))`` plays a whole game
(:func:`play_out`, :func:`seat_bots`; the kinds are :data:`BOT_KINDS`); ``ask(bot, game, state)``
asks one bot for one move (:func:`ask`); a bot of your own is any object with a ``seat`` and a
``propose(view, legal)`` method (:class:`Bot`).

A bot sees what its seat's player sees and nothing more: :meth:`Bot.propose` gets the seat's view
(``game.view(state, seat)``, the cards it may not see already hidden) and its :class:`Legal`
commands, each with the game's hint (``Game.is_sensible``), never the state. Every hint the
games give depends only on what the seat sees (tests/unit/test_bots.py checks it: the hints do
not change when the cards hidden from the seat are shuffled), so handing it over leaks nothing.
The legal commands are the rules' own, and one rule is defined on hidden cards: Speed's ``flip``
is legal only while no card of *either* hand fits (docs/games/speed.md#stalemate), so its presence
tells a seat what a rejected ``flip`` would tell a player.

A bot proposes ``(delay_ms, command)``: the command it wants, and how long after the last
accepted action it would act. In a real-time game every seat proposes at once and the earliest
proposal is the one the sequencer admits — that is how a race is decided
(docs/games/common.md#the-sequencer); the others then look at the new view and propose again. The
host turns a delay into an ``at_ms`` (the simulator adds it to its own clock; the service arms a
timer). :func:`ask` is how every host (:func:`play_out`, the service's bot seats) asks a bot, so
they all show it the same.

Bots draw only from :mod:`cardcore.rng`, so a bot game is a pure function of its seeds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import compress
from typing import TYPE_CHECKING, Any, Final, Generic, NamedTuple, Protocol, TypeVar

from .engine import Game
from .errors import Rejected
from .rng import Rng, stream_key

if TYPE_CHECKING:  # only named in annotations: importing bots need not load the log and hmac
    from .match import Match

AnyGame = Game[Any, Any, Any, Any, Any]

C = TypeVar("C")


class Legal(NamedTuple, Generic[C]):
    """A seat's legal commands now (``Game.legal_commands`` order) and, side by side, the game's
    hint for each: would a player who plays well make it now (a false slap is legal, not
    sensible)? Plain immutable values, no state: a bot can learn nothing here its view does not
    show. (A named tuple: the cheapest immutable record to build, once per seat and step.)"""

    commands: tuple[C, ...]
    sensible: tuple[bool, ...] | None
    """One hint per command; None for a bot that declared ``uses_hints = False``."""


class Bot(Protocol):
    """Anything that can propose a move for its seat from what that seat sees.

    Two optional class attributes (read with defaults of True, so a bot of your own need not
    declare them) let a host skip work a bot would throw away: the view is the dearest thing a
    host computes per seat and step, the hints next. ``uses_view = False``: ``propose`` is
    passed None instead of the view; ``uses_hints = False``: ``legal.sensible`` is None. A bot
    never gets more than its seat sees either way."""

    seat: int

    def propose(self, view: Any, legal: Legal[Any]) -> tuple[int, Any] | None:
        """``(delay_ms, command)`` — a command of ``legal.commands`` — or None to do nothing
        now. ``view`` is ``game.view(state, seat)``. Asked at every step, even with no legal
        command (so a bot may follow the game through its views)."""


def legal_for(game: AnyGame, state: Any, seat: int, hints: bool = True) -> Legal[Any]:
    """The :class:`Legal` commands of ``seat`` in ``state``, with their hints unless ``hints``
    is False."""
    commands = tuple(game.legal_commands(state, seat))
    if not commands:
        return _NO_COMMANDS if hints else _NO_COMMANDS_NO_HINTS
    if not hints:
        return Legal(commands, None)
    sensible = game.is_sensible
    return Legal(commands, tuple([sensible(state, seat, c) for c in commands]))


_NO_COMMANDS: Final[Legal[Any]] = Legal((), ())
_NO_COMMANDS_NO_HINTS: Final[Legal[Any]] = Legal((), None)


def _wants(bot: Bot) -> tuple[bool, bool]:
    """``(uses_view, uses_hints)`` of a bot (both True unless it says otherwise)."""
    return bool(getattr(bot, "uses_view", True)), bool(getattr(bot, "uses_hints", True))


def ask(bot: Bot, game: AnyGame, state: Any) -> tuple[int, Any] | None:
    """``bot``'s proposal in ``state``: ``(delay_ms, command)``, or None when it would do
    nothing now. The bot is shown only its seat's view (``game.view(state, bot.seat)``) and its
    :class:`Legal` commands, never ``state`` itself: the one way hosts consult a bot (the
    service's bot seats; :func:`play_out` inlines it). A host that drives its own loop asks each
    bot, takes the earliest proposal and submits it:

    ```python
    proposals = [(p, b.seat) for b in bots if (p := ask(b, match.game, match.state))]
    (delay_ms, command), seat = min(proposals, key=lambda x: (x[0][0], x[1]))
    match.submit(seat, command, at_ms=now + delay_ms)
    ```
    """
    seat = bot.seat
    uses_view, uses_hints = _wants(bot)
    view = game.view(state, seat) if uses_view else None
    return bot.propose(view, legal_for(game, state, seat, uses_hints))


class _SeededBot:
    """What every bot here shares: its seat, its own RNG stream and a delay range.

    Each decision takes one 64-bit draw: bits 0-23 give the delay, bits 24-43 any yes/no roll,
    bits 44-63 the choice (each field far wider than its range: modulo bias below 2^-10)."""

    def __init__(self, seat: int, seed: int, min_ms: int, max_ms: int) -> None:
        if not 0 <= min_ms <= max_ms:
            raise ValueError("need 0 <= min_ms <= max_ms")
        self.seat = seat
        self.min_ms = min_ms
        self.span = max_ms - min_ms + 1
        self._rng = Rng(seed, seat + 1)

    def _draw(self) -> tuple[int, int]:
        """``(delay_ms, the draw)`` for one decision."""
        x = self._rng.next_u64()
        return self.min_ms + (x & 0xFFFFFF) % self.span, x


class RandomBot(_SeededBot):
    """Uniform over every legal command, false slaps included, after a uniform delay in
    ``[min_ms, max_ms]`` (so that no seat always wins the races)."""

    uses_view = False  # it decides from the legal commands alone
    uses_hints = False

    def __init__(self, seat: int, seed: int, *, min_ms: int = 50, max_ms: int = 500) -> None:
        super().__init__(seat, seed, min_ms, max_ms)

    def propose(self, view: Any, legal: Legal[Any]) -> tuple[int, Any] | None:
        commands = legal.commands
        if not commands:
            return None  # no draw: the stream advances only on a decision
        delay, x = self._draw()
        return delay, commands[(x >> 44) % len(commands)]


class ReactionBot(_SeededBot):
    """Plays sensibly (``Game.is_sensible``) with a seeded human-like reaction time, and now and
    then blunders into a legal but unwise command (a false slap) — one in ``blunder_in`` turns."""

    uses_view = False  # the hints say all it needs of the position
    uses_hints = True

    def __init__(
        self,
        seat: int,
        seed: int,
        *,
        min_ms: int = 150,
        max_ms: int = 900,
        blunder_in: int = 200,
    ) -> None:
        super().__init__(seat, seed, min_ms, max_ms)
        self.blunder_in = blunder_in

    def propose(self, view: Any, legal: Legal[Any]) -> tuple[int, Any] | None:
        commands, sensible = legal
        if not commands:
            return None  # no draw: the stream advances only on a decision
        assert sensible is not None  # uses_hints
        delay, x = self._draw()
        blunder = self.blunder_in and ((x >> 24) & 0xFFFFF) % self.blunder_in == 0
        if len(commands) == 1:  # the common case, without the lists (the same choice)
            if sensible[0] or blunder:
                return delay, commands[0]
            return None
        if blunder:
            bad = [c for c, ok in zip(commands, sensible, strict=True) if not ok]
            if bad:
                return delay, bad[(x >> 44) % len(bad)]
        good = list(compress(commands, sensible))  # in C: no comprehension frame
        if not good:
            return None
        return delay, good[(x >> 44) % len(good)]


BotFactory = Callable[[int, int], Bot]
"""``(seat, seed) -> bot``."""

BOT_KINDS: Final[dict[str, BotFactory]] = {
    "random": RandomBot,
    "reaction": ReactionBot,
}
"""The bots cardcore ships, by the name :func:`seat_bots`, ``cardcore simulate --bots`` and the
service's bot seats know them by: ``"random"`` (:class:`RandomBot`: any legal command, false
slaps included) and ``"reaction"`` (:class:`ReactionBot`: sensible commands at a human pace,
with a rare blunder). Each is called ``factory(seat, seed)``."""


def bot_seed(game_seed: int, seat: int) -> int:
    """The seed of a seat's bot, derived from the game's seed (documented for reproduction)."""
    return stream_key(game_seed, 1_000_000 + seat)


@dataclass(frozen=True, slots=True)
class PlayResult:
    """What :func:`play_out` did."""

    actions: int
    at_ms: int
    stalled: bool
    """True when no bot would act although the game was not over."""


def play_out(
    match: Match[Any, Any, Any, Any, Any], bots: Sequence[Bot], start_ms: int = 0
) -> PlayResult:
    """Let ``bots`` play ``match`` until the game ends (by its rules or the setup's event limit)
    and say what they did: how many actions, the clock at the end, and whether they stalled.

    Each step every bot is asked (as :func:`ask` asks it: its seat's view and legal commands
    only) and proposes a command after a delay; the earliest ``at_ms`` wins the race (ties go
    to the lower seat), exactly as the service's sequencer would order them, and is submitted
    through ``match`` (so it is logged when the match records). The clock starts at
    ``start_ms`` or the match's last ``at_ms``, whichever is later. It stops early, with
    ``stalled=True``, when no bot proposes anything (a bot of your own that never acts; the
    bots here always finish). A seat without a bot takes no part: give every seat one
    (:func:`seat_bots`) or drive the other seats yourself and call it again.

    Deterministic: the same match and the same seeded bots give the same game, action for
    action:

    ```python
    game = get_game("palace")
    match = Match(game, game.make_setup(seats=3, seed=7))
    result = play_out(match, seat_bots("reaction", 3, game_seed=7))
    print(result.actions, match.outcome)  # 79 out of cards: seats 1, 2 win; seat 0 loses
    ```

    Raises ``AssertionError`` if the match rejects a command its game listed as legal (a broken
    game, never a bot's fault)."""
    now = max(start_ms, match.last_at_ms)
    game = match.game
    proposers = [(bot.seat, bot.propose, *_wants(bot)) for bot in bots]
    view = game.view
    legal_commands = game.legal_commands
    sensible = game.is_sensible
    new = tuple.__new__  # Legal(...) without the named tuple's own Python-level __new__
    submit = match.submit
    actions = 0
    while match.outcome is None:
        best_at = -1
        best_seat = -1
        best_cmd: Any = None
        state = match.state
        for seat, propose, uses_view, uses_hints in proposers:
            # What ask() does, inlined (this runs for every seat on every step).
            commands = legal_commands(state, seat)
            if not commands:
                legal = _NO_COMMANDS if uses_hints else _NO_COMMANDS_NO_HINTS
            elif len(commands) == 1:  # the common case in the racing games: no loop, one tuple
                c = commands[0]
                legal = new(Legal, ((c,), (sensible(state, seat, c),) if uses_hints else None))
            else:
                commands = tuple(commands)
                hints = tuple([sensible(state, seat, c) for c in commands]) if uses_hints else None
                legal = new(Legal, (commands, hints))
            proposal = propose(view(state, seat) if uses_view else None, legal)
            if proposal is None:
                continue
            at = now + proposal[0]
            if best_at < 0 or at < best_at:
                best_at, best_seat, best_cmd = at, seat, proposal[1]
        if best_at < 0:
            return PlayResult(actions, now, True)
        now = best_at
        try:
            submit(best_seat, best_cmd, now)
        except Rejected as exc:  # a legal command must be accepted: a contract violation
            raise AssertionError(
                f"{game.name}: legal command {best_cmd!r} of seat {best_seat} rejected: {exc}"
            ) from exc
        actions += 1
    return PlayResult(actions, now, False)


def seat_bots(kind: str, seats: int, game_seed: int) -> list[Bot]:
    """One bot of ``kind`` (a name of :data:`BOT_KINDS`: ``"random"`` or ``"reaction"``) for
    each of ``seats`` seats, seat 0 first, each seeded with :func:`bot_seed` of ``game_seed``
    and its seat: so a game's seed fixes its bots too, and a simulation replays exactly. Pass
    them to :func:`play_out`. Raises ``ValueError`` for an unknown kind."""
    factory = BOT_KINDS.get(kind)
    if factory is None:
        raise ValueError(f"no bot kind {kind!r} (known: {', '.join(BOT_KINDS)})")
    return [factory(seat, bot_seed(game_seed, seat)) for seat in range(seats)]
