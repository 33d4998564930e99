"""Seeded bots, and the loop that lets them play a whole game through the sequencer.

A bot looks at the state and proposes ``(delay_ms, command)``: the command it wants, and how long
after the last accepted action it would act. In a real-time game every seat proposes at once and
the earliest proposal is the one the sequencer admits — that is how a race is decided (rules.md
§0.4); the others then look at the new state and propose again. The host turns a delay into an
``at_ms`` (the simulator adds it to its own clock; the service arms a timer).

Bots draw only from :mod:`cardcore.rng`, so a bot game is a pure function of its seeds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from .engine import Game
from .errors import Rejected
from .match import Match
from .rng import Rng, stream_key

AnyGame = Game[Any, Any, Any, Any, Any]


class Bot(Protocol):
    """Anything that can propose a move for its seat."""

    seat: int

    def propose(self, game: AnyGame, state: Any) -> tuple[int, Any] | None:
        """``(delay_ms, command)``, or None to do nothing in this state."""


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

    def __init__(self, seat: int, seed: int, *, min_ms: int = 50, max_ms: int = 500) -> None:
        super().__init__(seat, seed, min_ms, max_ms)

    def propose(self, game: AnyGame, state: Any) -> tuple[int, Any] | None:
        commands = game.legal_commands(state, self.seat)
        if not commands:
            return None
        delay, x = self._draw()
        return delay, commands[(x >> 44) % len(commands)]


class ReactionBot(_SeededBot):
    """Plays sensibly (``Game.is_sensible``) with a seeded human-like reaction time, and now and
    then blunders into a legal but unwise command (a false slap) — one in ``blunder_in`` turns."""

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

    def propose(self, game: AnyGame, state: Any) -> tuple[int, Any] | None:
        seat = self.seat
        commands = game.legal_commands(state, seat)
        if not commands:
            return None
        delay, x = self._draw()
        sensible = game.is_sensible
        if self.blunder_in and ((x >> 24) & 0xFFFFF) % self.blunder_in == 0:
            bad = [c for c in commands if not sensible(state, seat, c)]
            if bad:
                return delay, bad[(x >> 44) % len(bad)]
        good = [c for c in commands if sensible(state, seat, c)]
        if not good:
            return None
        return delay, good[(x >> 44) % len(good)]


BotFactory = Callable[[int, int], Bot]
"""``(seat, seed) -> bot``."""

BOT_KINDS: Final[dict[str, BotFactory]] = {
    "random": RandomBot,
    "reaction": ReactionBot,
}


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
    """Let the bots play until the game ends (by its rules or the event limit).

    Each step every bot proposes; the earliest ``at_ms`` wins the race (ties go to the lower seat),
    exactly as the service's sequencer would order them."""
    now = max(start_ms, match.last_at_ms)
    game = match.game
    proposers = [(bot.seat, bot.propose) for bot in bots]
    submit = match.submit
    actions = 0
    while match.outcome is None:
        best_at = -1
        best_seat = -1
        best_cmd: Any = None
        state = match.state
        for seat, propose in proposers:
            proposal = propose(game, state)
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
    """One bot of ``kind`` ("random" or "reaction") per seat, seeded from the game's seed."""
    factory = BOT_KINDS[kind]
    return [factory(seat, bot_seed(game_seed, seat)) for seat in range(seats)]
