"""The referee: plays a match to its end with bots it does not trust, and owns reaction time.

:func:`play_refereed` is :func:`cardcore.fairness.play_raced` without the latency and with two
jobs added: it decides *when* each action happens, and it survives bots that fail.

**The timing rule** (docs/bots.md#the-referees-timing-rule says it in words). After each entry
every seat still in the game decides again, as in :func:`cardcore.bots.play_out`. Each time seat
``s`` decides after an entry published at ``T``, the referee draws a reaction time ``r`` for it
from the :class:`~cardcore.fairness.ReactionModel` (uniform over ``[min_ms, max_ms]``; seat
``s``'s draws are the stream ``Rng(seed, REACTION_STREAM + s)``, one draw per decision whether
or not the seat acts). If the bot asks for a delay ``d``:

* ``d <= model.max_ms`` is a request to act *as soon as the seat can*: the action happens at
  ``T + r``;
* ``d > model.max_ms`` is a deliberate wait and is kept as asked: the action happens at
  ``T + d`` (later than ``T + r`` in any case).

So no bot acts faster than the model lets it (an "instant" bot under ``human`` acts after a
human reaction time), and a bot written for humans, such as :class:`~cardcore.bots.ReactionBot`
drawing its own human-like delays within the model's range, plays at the referee's pace instead
of adding its delay to the referee's. The earliest action is applied (ties to the lower seat)
and the others decide again on the new entry.

**Faults.** A bot's ``propose`` may raise :class:`BotFault` (a bot in another process does:
:mod:`cardcore.arena.process`); any other exception it raises is a ``crash``; a proposal that is
not ``(delay_ms, command)`` with a non-negative integer delay is ``garbage``; a command that is
not among the seat's legal commands, or that the rules refuse, is ``illegal``. A fault never
stops the game:

* the decision is lost: the seat does nothing on it (a pass);
* a ``crash`` forfeits the seat at once (``Resign(by="timer")``, the host's forfeit of
  docs/games/common.md#leaving-a-game) and its bot is never asked again;
* a seat that loses :data:`LOST_IN_A_ROW` decisions in a row while the game waits for it is
  forfeited the same way (as the service's turn or idle timer would): in a turn-based game
  (``game.to_act``) the seat the game waits for, asked again until then; in a real-time game,
  when no seat proposes anything and some seats' last decision was lost, those seats, asked
  again until then. One hiccup costs a decision, never the game; a bot that keeps failing
  cannot stall it.

Every fault is recorded in :attr:`RefereeResult.faults`. Pure and seeded: the same match, bots,
model and seed give the same game (a bot in another process is deterministic too, except where
a deadline fired: docs/bots.md#determinism).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from .bots import Bot, BotFactory, Legal, ReactionBot, bot_seed, legal_for, play_out
from .engine import DEFAULT_EVENT_LIMIT, Game, Outcome, Setup, check_seat
from .errors import Rejected
from .fairness import HUMAN, ReactionModel
from .kit import RESIGN_BY_TIMER, Resign
from .match import Match
from .rng import Rng, stream_key

AnyGame = Game[Any, Any, Any, Any, Any]
AnyMatch = Match[Any, Any, Any, Any, Any]

FaultKind = Literal["crash", "timeout", "garbage", "illegal"]
FAULT_KINDS: Final[tuple[FaultKind, ...]] = ("crash", "timeout", "garbage", "illegal")
MAX_DETAIL: Final = 200
"""The longest detail a fault keeps (characters): a bot's error text is bounded."""
LOST_IN_A_ROW: Final = 3
"""Lost decisions in a row, while the game waits for the seat, after which it is forfeited."""
REACTION_STREAM: Final = 3_000_000
"""Seat ``s``'s reaction times are drawn from ``Rng(seed, REACTION_STREAM + s)``."""


def bounded(text: str, limit: int = MAX_DETAIL) -> str:
    """``text`` cut to ``limit`` characters (an ellipsis marks the cut), printable only."""
    clean = "".join(ch if ch.isprintable() else "?" for ch in text[: limit + 1])
    return clean if len(clean) <= limit else clean[: limit - 1] + "\N{HORIZONTAL ELLIPSIS}"


class BotFault(Exception):
    """What a bot's ``propose`` raises when it lost its decision: ``kind`` is one of
    :data:`FAULT_KINDS` (``crash``: the bot is gone; ``timeout``: no answer in time;
    ``garbage``: an answer that means nothing; ``illegal``: a command it may not play) and
    ``detail`` says what happened, cut to :data:`MAX_DETAIL` characters."""

    def __init__(self, kind: FaultKind, detail: str) -> None:
        if kind not in FAULT_KINDS:
            raise ValueError(f"a fault's kind is one of {', '.join(FAULT_KINDS)}, got {kind!r}")
        self.kind: FaultKind = kind
        self.detail = bounded(detail)
        super().__init__(f"{kind}: {self.detail}")


@dataclass(frozen=True, slots=True)
class Fault:
    """One fault, as :attr:`RefereeResult.faults` records it: the seat, ``seq`` (the match's
    entry count when it happened: the seq the seat's action would have had, and the forfeit's
    when it caused one), the kind, what happened, and what the referee did: ``"pass"`` (the
    decision was lost, the seat stays in) or ``"forfeit"`` (the seat was forfeited)."""

    seat: int
    seq: int
    kind: FaultKind
    detail: str
    action: Literal["pass", "forfeit"]


@dataclass(frozen=True, slots=True)
class RefereeResult:
    """What :func:`play_refereed` did."""

    actions: int
    """Actions of the bots applied (the referee's forfeits not counted)."""
    at_ms: int
    """The game's clock at the end."""
    stalled: bool
    """True when no bot would act although the game was not over, and no seat was to blame
    (a real-time game where no seat had lost its last decision, or a turn-based game whose
    seat to move passed): a bot that never acts."""
    faults: tuple[Fault, ...]
    forfeited: tuple[int, ...]
    """The seats the referee forfeited, in order."""


def reaction_delay(model: ReactionModel, requested_ms: int, drawn_ms: int) -> int:
    """The delay the referee applies: the drawn reaction time for a request within the model's
    range (act as soon as you can), the request itself for a longer, deliberate wait."""
    return drawn_ms if requested_ms <= model.max_ms else requested_ms


class _Seat:
    """A seat's bot and what the referee keeps about it."""

    __slots__ = ("bot", "lost", "out", "rng", "seat", "uses_hints", "uses_view")

    def __init__(self, bot: Bot, seed: int) -> None:
        self.bot = bot
        self.seat = bot.seat
        self.uses_view = bool(getattr(bot, "uses_view", True))
        self.uses_hints = bool(getattr(bot, "uses_hints", True))
        self.rng = Rng(seed, REACTION_STREAM + bot.seat)
        self.lost = 0  # its last decisions lost in a row
        self.out = False  # forfeited, or crashed: never asked again


Candidate = tuple[int, int, Any]
"""A proposal the referee accepted for timing: ``(at_ms, seat, command)``."""


class _Referee:
    """One refereed game: the loop of :func:`play_refereed` and its bookkeeping."""

    def __init__(self, match: AnyMatch, bots: Sequence[Bot], model: ReactionModel, seed: int):
        self.match, self.game, self.model = match, match.game, model
        seen = [check_seat(match.setup.seats, bot.seat) for bot in bots]
        if len(set(seen)) != len(seen):
            raise ValueError(f"two bots for one seat: seats {seen}")
        self.seats = [_Seat(bot, seed) for bot in sorted(bots, key=lambda b: b.seat)]
        self.span = model.max_ms - model.min_ms + 1
        self.faults: list[Fault] = []
        self.forfeited: list[int] = []
        self.actions = 0
        self.now = match.last_at_ms

    def run(self, start_ms: int) -> RefereeResult:
        match = self.match
        self.now = max(start_ms, match.last_at_ms)
        while match.outcome is None:
            candidates = self._round(self.now)
            if candidates is None:
                continue  # a seat was forfeited: everyone decides again
            if self._apply_first(sorted(candidates, key=lambda c: c[:2])):
                self.now = match.last_at_ms
                continue
            if not self._settle_stall():
                return self._result(True)  # nobody acts, and no lost decision is to blame
        return self._result(False)

    def _settle_stall(self) -> bool:
        """Nobody will act: True when a seat that lost its last decisions is to blame, so play
        goes on — it is asked again until it has lost :data:`LOST_IN_A_ROW` in a row, and then
        a real-time game forfeits it here (a turn-based one already has, in :meth:`_lost`);
        False when nobody is to blame (the game has stalled)."""
        lost = [s for s in self.seats if s.lost and not s.out]
        if self.game.to_act is not None:  # only the seat the game waits for can hold it up
            waited = self.game.to_act(self.match.state)
            return any(s.seat in waited for s in lost)
        for s in lost:
            if s.lost >= LOST_IN_A_ROW and self.match.outcome is None:
                self._forfeit(s, stall=True)
        return bool(lost)

    def _result(self, stalled: bool) -> RefereeResult:
        return RefereeResult(
            self.actions,
            self.match.last_at_ms,
            stalled,
            tuple(self.faults),
            tuple(self.forfeited),
        )

    def _round(self, now: int) -> list[Candidate] | None:
        """Every seat's decision on the current state, timed; None when a fault forfeited a
        seat (the state changed)."""
        out: list[Candidate] = []
        state = self.match.state
        for s in self.seats:
            if s.out:
                continue
            drawn = self.model.min_ms + s.rng.below(self.span)
            legal = legal_for(self.game, state, s.seat, s.uses_hints)
            view = self.game.view(state, s.seat) if s.uses_view else None
            try:
                proposal = _checked(s.bot.propose(view, legal), legal)
            except Exception as exc:  # a bot's own bug is its crash, not ours
                fault = exc if isinstance(exc, BotFault) else _crash(exc)
                if self._lost(s, fault):
                    return None
                continue
            s.lost = 0
            if proposal is not None:
                delay = reaction_delay(self.model, proposal[0], drawn)
                out.append((now + delay, s.seat, proposal[1]))
        return out

    def _apply_first(self, candidates: list[Candidate]) -> bool:
        """Apply the earliest candidate the rules accept; True when one was applied. A refused
        one is an ``illegal`` fault and the next is tried (the state has not changed)."""
        for at, seat, command in candidates:
            try:
                self.match.submit(seat, command, at)
            except Rejected as exc:
                s = next(x for x in self.seats if x.seat == seat)
                if self._lost(s, BotFault("illegal", f"refused by the rules: {exc}")):
                    return True
                continue
            self.actions += 1
            return True
        return False

    def _lost(self, s: _Seat, fault: BotFault) -> bool:
        """Record ``fault`` of seat ``s`` (its decision is lost); forfeit the seat when the
        rules of the module docstring say so. True when it was forfeited."""
        s.lost += 1
        waited_for = self.game.to_act is not None and s.seat in self.game.to_act(self.match.state)
        forfeit = fault.kind == "crash" or (waited_for and s.lost >= LOST_IN_A_ROW)
        seq = self.match.seq
        done = forfeit and self._forfeit(s)  # a crashed seat is out even if refused
        self.faults.append(
            Fault(s.seat, seq, fault.kind, fault.detail, "forfeit" if done else "pass")
        )
        return done

    def _forfeit(self, s: _Seat, *, stall: bool = False) -> bool:
        """Forfeit seat ``s`` (the host's ``Resign(by="timer")``, at the time of the entry it
        was deciding on); False when the rules refuse it (the seat was already out of the
        game). ``stall``: the forfeit of a real-time game where nobody would act, which answers
        the seat's last fault (a lost decision on this very state): that fault's action becomes
        ``"forfeit"``."""
        s.out = True  # forfeited, or out of the game already: nothing more to ask it
        try:
            self.match.submit(s.seat, Resign(RESIGN_BY_TIMER), self.now)
        except Rejected:
            return False
        self.forfeited.append(s.seat)
        if stall:
            i = max(i for i, f in enumerate(self.faults) if f.seat == s.seat)
            self.faults[i] = dataclasses.replace(self.faults[i], action="forfeit")
        return True


def _crash(exc: Exception) -> BotFault:
    """An in-process bot's exception as the fault it is: the bot is gone."""
    return BotFault("crash", f"{type(exc).__name__}: {exc}")


def _checked(proposal: object, legal: Legal[Any]) -> tuple[int, Any] | None:
    """A bot's proposal, checked: None, or ``(delay_ms, command)`` with a legal command.
    Raises :class:`BotFault` (``garbage`` or ``illegal``)."""
    if proposal is None:
        return None
    if not isinstance(proposal, tuple) or len(proposal) != 2:
        raise BotFault("garbage", f"a proposal is (delay_ms, command) or None, got {proposal!r}")
    delay, command = proposal
    if type(delay) is not int or delay < 0:
        raise BotFault("garbage", f"delay_ms must be a non-negative int, got {delay!r}")
    if command not in legal.commands:
        raise BotFault("illegal", f"not a legal command now: {command!r}")
    return delay, command


def play_refereed(
    match: AnyMatch,
    bots: Sequence[Bot],
    model: ReactionModel,
    seed: int,
    *,
    start_ms: int = 0,
) -> RefereeResult:
    """Play ``match`` to its end with ``bots`` under the reaction ``model``, the referee's
    reaction times drawn from ``seed`` (the module docstring's timing rule and faults). The
    clock starts at ``start_ms`` or the match's last ``at_ms``, whichever is later. A seat
    without a bot takes no part. Deterministic for deterministic bots."""
    return _Referee(match, bots, model, seed).run(start_ms)


# --------------------------------------------------------------------------- measuring it


@dataclass(frozen=True, slots=True)
class DuelReport:
    """The first bot's share of the wins over ``deals`` deals of a two-seat game, each played
    twice with the seats swapped, and its normal 95 % interval over the deals."""

    game: str
    model: str
    """The reaction model's name, or ``"none"``: played without a referee (:func:`play_out`)."""
    deals: int
    win_rate: float
    ci95: tuple[float, float]
    unfinished: int
    """Games nobody won (the event limit, a stall): each bot scored a half."""


def instant_bot(seat: int, seed: int) -> Bot:
    """A :class:`~cardcore.bots.ReactionBot` that asks to act at once (delay 0) every time."""
    return ReactionBot(seat, seed, min_ms=0, max_ms=0)


def human_bot(seat: int, seed: int) -> Bot:
    """A :class:`~cardcore.bots.ReactionBot` with the ``human`` model's delays (180-260 ms):
    the simulator's human-like player (:mod:`cardcore.fairness`)."""
    return ReactionBot(seat, seed, min_ms=HUMAN.min_ms, max_ms=HUMAN.max_ms)


def duel(
    game: AnyGame,
    first: BotFactory,
    second: BotFactory,
    model: ReactionModel | None,
    *,
    deals: int,
    seed: int = 0,
    event_limit: int = DEFAULT_EVENT_LIMIT,
) -> DuelReport:
    """``first`` against ``second`` (``factory(seat, seed)``) in ``deals`` two-seat deals of
    ``game``, each deal played with ``first`` at seat 0 and then at seat 1, refereed under
    ``model`` (None: no referee, the bots' own delays, as :func:`~cardcore.bots.play_out`).
    Deal ``d``'s seed is ``stream_key(seed, d)``; player ``p``'s bot seed (0: ``first``, 1:
    ``second``) is ``bot_seed(deal seed, p)`` at either seat, and the referee's seed is the
    deal's. Pure: the same arguments, the same figure."""
    shares: list[float] = []
    unfinished = 0
    for deal in range(deals):
        deal_seed = stream_key(seed, deal)
        setup = Setup(2, deal_seed, game.rules_type(), event_limit)
        share = 0.0
        for seat_of_first in (0, 1):
            # player p (0: first, 1: second) keeps its seed whatever its seat, so two players
            # of one kind are still two players, each with its own luck, in both games
            players = ((first, 0), (second, 1)) if seat_of_first == 0 else ((second, 1), (first, 0))
            bots = [make(s, bot_seed(deal_seed, p)) for s, (make, p) in enumerate(players)]
            match = Match(game, setup, game_id=None, record=False)
            if model is None:
                stalled = play_out(match, bots).stalled
            else:
                stalled = play_refereed(match, bots, model, deal_seed).stalled
            score = _first_place(match.outcome, stalled)
            unfinished += score is None
            share += 0.5 if score is None else float(score == seat_of_first)
        shares.append(share / 2)
    mean = sum(shares) / deals
    return DuelReport(
        game.name, "none" if model is None else model.name, deals, mean,
        _ci95(shares, mean), unfinished,
    )  # fmt: skip


def _first_place(outcome: Outcome | None, stalled: bool) -> int | None:
    """The seat that won a two-seat game (in Palace the first out), None when nobody did."""
    if stalled or outcome is None or not outcome.winners:
        return None
    return outcome.winners[0]


def _ci95(xs: Sequence[float], mean: float) -> tuple[float, float]:
    """The normal 95 % interval of the mean of ``xs`` (the per-deal shares)."""
    n = len(xs)
    if n < 2:
        return (0.0, 1.0)
    half = 1.96 * math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1)) / math.sqrt(n)
    return (max(0.0, mean - half), min(1.0, mean + half))
