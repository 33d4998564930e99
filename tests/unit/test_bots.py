"""Bots see what their seat sees and nothing more (issue 10, item 5).

A bot is handed its seat's view (``game.view(state, seat)``) and its :class:`~cardcore.bots.Legal`
commands with the game's hints, never the state. These tests record everything a bot is handed
along seeded games of every game and check that:

* each view equals ``game.view(state, seat)``, and nothing handed over is a state;
* a view does not change when the cards hidden from that seat are shuffled (``shuffle_hidden``):
  it holds no card the seat may not see;
* the legal commands and the hints do not change under that shuffle either: the hints the games
  give (``is_sensible``) are derivable from what the seat sees, so handing them over leaks
  nothing;
* bots that read neither view nor hints get neither, and choose exactly as before (same draws in
  the same order: the golden logs stay byte-identical).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import pytest

from cardcore import codec
from cardcore.bots import Legal, RandomBot, ReactionBot, ask, bot_seed, play_out, seat_bots
from cardcore.engine import Game, rule_flags
from cardcore.errors import InvalidSetup
from cardcore.match import Match
from cardcore.registry import GAMES
from cardcore.rng import Rng

AnyGame = Game[Any, Any, Any, Any, Any]
EVENT_LIMIT = 400
"""Enough events for every phase of each game, few enough to keep this file fast."""

game_param = pytest.mark.parametrize("game", GAMES, ids=[g.name for g in GAMES])


def seats_of(game: AnyGame) -> list[int]:
    return sorted({game.info.min_seats, min(game.info.max_seats, 3)})


class Recorder:
    """A bot that keeps everything it is handed and plays as a reaction bot would (it reads the
    view and the hints: a bot of your own, with the default ``uses_view``/``uses_hints``)."""

    def __init__(self, seat: int, seed: int, match: Match[Any, Any, Any, Any, Any]) -> None:
        self.seat = seat
        self.inner = ReactionBot(seat, seed)
        self.match = match  # the test's own handle, to compare with; the host never passes it
        self.seen: list[tuple[Any, Any, Legal[Any]]] = []

    def propose(self, view: Any, legal: Legal[Any]) -> tuple[int, Any] | None:
        self.seen.append((self.match.state, view, legal))
        return self.inner.propose(None, legal)


def walk(value: Any, depth: int = 0) -> Any:
    """Every value inside ``value`` (tuples, lists, dicts, sets, dataclasses), ``value`` too."""
    yield value
    if depth > 8 or isinstance(value, str | bytes | int | float | type(None)):
        return
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        children: Any = [getattr(value, f.name) for f in dataclasses.fields(value)]
    elif isinstance(value, dict):
        children = [*value.keys(), *value.values()]
    elif isinstance(value, tuple | list | set | frozenset):
        children = value
    else:
        return
    for child in children:
        yield from walk(child, depth + 1)


def variants(game: AnyGame) -> list[dict[str, Any]]:
    """The default rules, then each boolean flag flipped alone (hints often read the rules)."""
    flags = rule_flags(game.rules_type)
    return [{}, *({f.name: not f.default} for f in flags if isinstance(f.default, bool))]


@functools.cache  # both tests below read the same games
def recorded_games(game: AnyGame) -> list[Recorder]:
    """Recorders of seeded games played by :func:`play_out`: a few at each seat count under the
    default rules, and one under each variant."""
    out: list[Recorder] = []
    runs: list[tuple[int, int, dict[str, Any]]] = [
        (seats, seed, {}) for seats in seats_of(game) for seed in range(3)
    ]
    runs += [(game.info.min_seats, 7, rules) for rules in variants(game)[1:]]
    for seats, seed, rules in runs:
        try:
            setup = game.make_setup(seats, seed, rules, event_limit=EVENT_LIMIT)
        except InvalidSetup:
            continue  # a flag that needs another one set too
        match = Match(game, setup)
        bots = [Recorder(s, bot_seed(seed, s), match) for s in range(seats)]
        play_out(match, bots)
        out.extend(bots)
    return out


HIDDEN_LEGALITY: dict[str, frozenset[str]] = {"speed": frozenset({"Flip"})}
"""Commands whose *legality* the rules define on cards the seat cannot see, so the legal list itself
tells a seat one bit about them (as a rejection would tell a player): Speed's ``flip`` is legal only
while no card in *either* hand fits a centre top (docs/games/speed.md#stalemate, the opponent's hand
is face down). Any other difference fails the test."""


def blind(value: Any) -> bytes:
    return codec.canonical_bytes(codec.encode(value))


@game_param
def test_a_bot_is_handed_its_view_and_legal_commands_never_a_state(game: AnyGame) -> None:
    recorders = recorded_games(game)
    calls = 0
    for bot in recorders:
        seat = bot.seat
        for state, view, legal in bot.seen:
            calls += 1
            assert type(view) is game.view_type
            assert view == game.view(state, seat)
            assert isinstance(legal, Legal)
            assert legal.commands == tuple(game.legal_commands(state, seat))
            assert legal.sensible == tuple(game.is_sensible(state, seat, c) for c in legal.commands)
            for handed in (view, legal):
                for part in walk(handed):
                    assert type(part) is not type(state), f"{game.name}: a state was handed over"
                    assert not callable(part) or isinstance(part, type), "a callable handed over"
    assert calls > 100


@game_param
def test_views_and_hints_hold_nothing_the_seat_cannot_see(game: AnyGame) -> None:
    """Shuffling the cards hidden from a seat changes neither its view, nor its legal commands,
    nor their hints: each is a function of what the seat sees."""
    rng = Rng(7, 99)
    moved = 0
    for bot in recorded_games(game):
        seat = bot.seat
        for state, view, legal in bot.seen[::3]:
            alt = game.shuffle_hidden(state, seat, rng)
            moved += game.cards_in_play(alt) != game.cards_in_play(state)
            assert blind(game.view(alt, seat)) == blind(view), (
                f"{game.name}: seat {seat}'s view shows a card it may not see"
            )
            commands = tuple(game.legal_commands(alt, seat))
            if commands != legal.commands:
                allowed = HIDDEN_LEGALITY.get(game.name, frozenset())
                differ = set(commands).symmetric_difference(legal.commands)
                assert {type(c).__name__ for c in differ} <= allowed, (
                    f"{game.name}: the legality of {differ} hinges on a card seat {seat} cannot see"
                )
            hints = dict(zip(legal.commands, legal.sensible or (), strict=True))
            for c in commands:
                if c in hints:
                    assert game.is_sensible(alt, seat, c) == hints[c], (
                        f"{game.name}: is_sensible({c!r}) of seat {seat} depends on a card it "
                        "may not see"
                    )
    assert moved, f"{game.name}: shuffle_hidden never moved a card: the checks were vacuous"


@game_param
def test_hosts_hand_over_the_same_and_bots_choose_as_before(game: AnyGame) -> None:
    """A game of recorders (which read views and hints) is the game of reaction bots (which read
    neither): the same log line for line. And :func:`ask` hands over what play_out does."""
    seats = seats_of(game)[-1]
    for seed in range(2):
        setup = game.make_setup(seats, seed, event_limit=EVENT_LIMIT)
        plain = Match(game, setup)
        play_out(plain, seat_bots("reaction", seats, seed))
        watched = Match(game, setup)
        play_out(watched, [Recorder(s, bot_seed(seed, s), watched) for s in range(seats)])
        assert plain.writer is not None and watched.writer is not None
        assert watched.writer.lines == plain.writer.lines

        # ask(): one step at a time, the earliest proposal first, as play_out orders them
        stepped = Match(game, setup)
        bots = seat_bots("reaction", seats, seed)
        now = 0
        while stepped.outcome is None:
            proposals = [(p[0], b.seat, p[1]) for b in bots if (p := ask(b, game, stepped.state))]
            if not proposals:
                break
            delay, seat, command = min(proposals, key=lambda p: (p[0], p[1]))
            now += delay
            stepped.submit(seat, command, now)
        assert stepped.writer is not None
        assert stepped.writer.lines == plain.writer.lines


class Probe:
    """Records what a host hands a bot that declares what it reads."""

    def __init__(self, seat: int, uses_view: bool, uses_hints: bool) -> None:
        self.seat = seat
        self.uses_view = uses_view
        self.uses_hints = uses_hints
        self.seen: list[tuple[Any, Legal[Any]]] = []

    def propose(self, view: Any, legal: Legal[Any]) -> tuple[int, Any] | None:
        self.seen.append((view, legal))
        return (1, legal.commands[0]) if legal.commands else None


@pytest.mark.parametrize(("uses_view", "uses_hints"), [(True, True), (False, True), (False, False)])
def test_a_bot_gets_only_what_it_reads(uses_view: bool, uses_hints: bool) -> None:
    game = GAMES[0]
    setup = game.make_setup(2, 3, event_limit=60)
    match = Match(game, setup)
    probes = [Probe(s, uses_view, uses_hints) for s in range(2)]
    play_out(match, probes)
    direct = Probe(0, uses_view, uses_hints)
    ask(direct, game, match.state)
    for probe in [*probes, direct]:
        assert probe.seen
        for view, legal in probe.seen:
            assert (view is not None) == uses_view
            assert (legal.sensible is not None) == uses_hints
            if uses_hints:
                assert len(legal.sensible or ()) == len(legal.commands)


def test_the_built_in_bots_read_no_view() -> None:
    assert (RandomBot.uses_view, RandomBot.uses_hints) == (False, False)
    assert (ReactionBot.uses_view, ReactionBot.uses_hints) == (False, True)
    # So a host skips both the view and (for RandomBot) the hints: they decide on Legal alone.
    legal: Legal[str] = Legal(("a", "b"), (False, True))
    bot = ReactionBot(0, 1, blunder_in=0)
    for _ in range(20):
        proposal = bot.propose(None, legal)
        assert proposal is not None and proposal[1] == "b"
    assert ReactionBot(0, 1).propose(None, Legal((), ())) is None
    assert RandomBot(0, 1).propose(None, Legal(("x",), None)) is not None
