"""The referee (cardcore.referee, docs/bots.md#the-referees-timing-rule): it owns reaction time,
and a faulty bot loses its decision, or its seat, never the game. In-process bots only (the
programs are tests/arena/test_protocol.py's)."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest

from cardcore.bots import Bot, Legal, RandomBot, ReactionBot, play_out
from cardcore.engine import Termination
from cardcore.fairness import HUMAN, REACTION_MODELS, ReactionModel
from cardcore.kit import RESIGN_BY_TIMER
from cardcore.log import loads, verify
from cardcore.match import Match
from cardcore.referee import (
    LOST_IN_A_ROW,
    MAX_DETAIL,
    REACTION_STREAM,
    BotFault,
    duel,
    human_bot,
    instant_bot,
    play_refereed,
    reaction_delay,
)
from cardcore.registry import get_game
from cardcore.rng import Rng


class Scripted:
    """A bot that asks for ``delay`` ms and plays its first legal command, or does what
    ``fault(decision)`` says on the decisions it names."""

    def __init__(self, seat: int, delay: int = 0, fault: Any = None) -> None:
        self.seat, self.delay, self.fault, self.decisions = seat, delay, fault, 0

    def propose(self, view: Any, legal: Legal[Any]) -> Any:
        if not legal.commands:
            return None
        self.decisions += 1
        if self.fault is not None:
            special = self.fault(self.decisions, legal)
            if special is not None:
                return special
        return self.delay, legal.commands[0]


def new_match(game: str, seed: int = 5) -> Match[Any, Any, Any, Any, Any]:
    g = get_game(game)
    return Match(g, g.make_setup(2, seed))


def verified(match: Match[Any, Any, Any, Any, Any]) -> None:
    report = verify(loads(match.dumps()))
    assert report.revealed and report.outcome == match.outcome


def gaps(entries: list[Any]) -> list[int]:
    """The time from each entry of a log to the next (the deal's included)."""
    return [b["at_ms"] - a["at_ms"] for a, b in pairwise(entries)]


def draws(seed: int, seat: int, model: ReactionModel, n: int) -> list[int]:
    rng = Rng(seed, REACTION_STREAM + seat)
    return [model.min_ms + rng.below(model.max_ms - model.min_ms + 1) for _ in range(n)]


@pytest.mark.parametrize("delay", [0, 150, 260])
def test_a_request_within_the_model_acts_after_the_drawn_reaction_time(delay: int) -> None:
    """Every entry comes exactly the acting seat's draw for that round after the last one:
    each round every seat draws once (seat order), the earliest action wins, ties to seat 0."""
    match = new_match("ratscrew")
    result = play_refereed(match, [Scripted(0, delay), Scripted(1, delay)], HUMAN, seed=9)
    assert match.outcome is not None and not result.faults
    entries = [line for line in loads(match.dumps()) if line["type"] == "entry"]
    r = [draws(9, s, HUMAN, len(entries)) for s in (0, 1)]
    for k, (before, entry) in enumerate(pairwise(entries)):
        assert entry["at_ms"] - before["at_ms"] == r[entry["seat"]][k], f"entry {entry['seq']}"
    assert all(HUMAN.min_ms <= gap <= HUMAN.max_ms for gap in gaps(entries))


def test_a_longer_request_is_a_deliberate_wait_kept_as_asked() -> None:
    match = new_match("ratscrew")
    play_refereed(match, [Scripted(0, 1000), Scripted(1, 1000)], HUMAN, seed=9)
    entries = [line for line in loads(match.dumps()) if line["type"] == "entry"]
    assert set(gaps(entries)) == {1000}
    assert reaction_delay(HUMAN, 261, 180) == 261
    assert reaction_delay(HUMAN, 260, 180) == 180
    assert reaction_delay(REACTION_MODELS["instant"], 0, 0) == 0


def test_a_human_paced_bot_plays_at_the_referees_pace_not_slower() -> None:
    """ReactionBots drawing their own 180-260 ms play at the referee's draws, not at the sum."""
    match = new_match("slapjack")
    bots = [ReactionBot(s, 40 + s, min_ms=180, max_ms=260) for s in (0, 1)]
    play_refereed(match, bots, HUMAN, seed=3)
    entries = [line for line in loads(match.dumps()) if line["type"] == "entry"]
    assert max(gaps(entries)) <= HUMAN.max_ms


def test_the_game_is_a_function_of_its_seeds() -> None:
    logs = set()
    for _ in range(2):
        match = new_match("speed", seed=12)
        play_refereed(match, [RandomBot(0, 1), ReactionBot(1, 2)], HUMAN, seed=4)
        logs.add(match.dumps())
    assert len(logs) == 1


def test_a_bot_that_raises_has_crashed_and_its_seat_is_forfeited_at_once() -> None:
    def boom(decision: int, legal: Legal[Any]) -> Any:
        if decision == 4:
            raise ZeroDivisionError("the bot divided by zero")
        return None

    match = new_match("ratscrew")
    result = play_refereed(match, [Scripted(0, fault=boom), Scripted(1)], HUMAN, seed=1)
    (fault,) = result.faults
    assert (fault.seat, fault.kind, fault.action) == (0, "crash", "forfeit")
    assert "ZeroDivisionError: the bot divided by zero" in fault.detail
    assert result.forfeited == (0,)
    assert match.outcome is not None and match.outcome.termination is Termination.RESIGNED
    assert match.outcome.winners == (1,)
    last = [line for line in loads(match.dumps()) if line["type"] == "entry"][-1]
    assert last["action"] == {"kind": "Resign", "by": RESIGN_BY_TIMER}
    assert last["seq"] == fault.seq  # the entry count when it crashed: the forfeit's seq
    verified(match)


def test_with_three_seats_a_crashed_seat_is_out_and_the_others_play_on() -> None:
    g = get_game("ratscrew")
    match = Match(g, g.make_setup(3, 6))

    def boom(decision: int, legal: Legal[Any]) -> Any:
        if decision == 3:
            raise BotFault("crash", "exited with code 1")
        return None

    crasher = Scripted(1, fault=boom)
    bots: list[Bot] = [ReactionBot(0, 1), crasher, ReactionBot(2, 3)]
    result = play_refereed(match, bots, HUMAN, seed=2)
    assert [(f.seat, f.kind, f.action) for f in result.faults] == [(1, "crash", "forfeit")]
    assert crasher.decisions == 3, "never asked again"
    assert match.outcome is not None and 1 not in match.outcome.winners
    assert result.actions > 20
    verified(match)


def test_illegal_and_garbage_proposals_lose_the_decision_in_a_real_time_game() -> None:
    """Speed: the other seat usually has a play, so a lost decision is a pass; the game goes on
    and ends by its rules."""
    bad = [(1, "not a proposal"), ("soon", None), (-1, None)]

    def fault(decision: int, legal: Legal[Any]) -> Any:
        if decision % 5 == 0:
            return (0, object()) if decision % 10 == 0 else bad[decision // 5 % 3]
        return None

    match = new_match("speed", seed=2)
    result = play_refereed(match, [Scripted(0, fault=fault), ReactionBot(1, 8)], HUMAN, seed=1)
    kinds = {f.kind for f in result.faults}
    assert kinds == {"illegal", "garbage"}
    assert any(f.action == "pass" for f in result.faults)
    assert all(f.action == "pass" for f in result.faults[:-1])
    assert match.outcome is not None
    verified(match)


def test_lost_decisions_of_the_seat_a_turn_based_game_waits_for_forfeit_it() -> None:
    """Palace waits for seat 0 to swap or be ready: it is asked again after a timeout, and its
    third in a row is the turn timer's forfeit."""
    match = new_match("palace")
    g = match.game
    assert g.to_act is not None and 0 in g.to_act(match.state)

    def late(decision: int, legal: Legal[Any]) -> Any:
        raise BotFault("timeout", "no answer in 200 ms")

    result = play_refereed(match, [Scripted(0, fault=late), Scripted(1)], HUMAN, seed=1)
    passes = [(0, "timeout", "pass")] * (LOST_IN_A_ROW - 1)
    assert [(f.seat, f.kind, f.action) for f in result.faults] == [
        *passes,
        (0, "timeout", "forfeit"),
    ]
    assert match.outcome is not None and match.outcome.winners == (1,)
    verified(match)


def test_a_real_time_game_where_nobody_acts_forfeits_the_seats_that_lost_their_say() -> None:
    """Ratscrew opens with seat 0 to play and nothing for seat 1: garbage from seat 0 there
    leaves nobody acting, so seat 0 is asked again, and forfeited at its third garbage in a
    row; its last fault says so."""
    match = new_match("ratscrew")
    result = play_refereed(match, [Scripted(0, fault=lambda d, legal: "?"), Scripted(1)], HUMAN, 1)
    passes = [(0, "garbage", "pass")] * (LOST_IN_A_ROW - 1)
    assert [(f.seat, f.kind, f.action) for f in result.faults] == [
        *passes,
        (0, "garbage", "forfeit"),
    ]
    assert result.forfeited == (0,) and not result.stalled
    verified(match)


class Hiccup(ReactionBot):
    """A :class:`ReactionBot` whose first answer is garbage."""

    hiccups = 1

    def propose(self, view: Any, legal: Legal[Any]) -> Any:
        if legal.commands and self.hiccups:
            self.hiccups -= 1
            return "?"
        return super().propose(view, legal)


@pytest.mark.parametrize("game", ["ratscrew", "palace"])
def test_one_hiccup_costs_a_decision_not_the_game(game: str) -> None:
    """Garbage on the seat's first decision, where the game waits for it, then good answers:
    the seat is asked again and plays on; the game ends by its own rules: a player wins (with
    a bot that always plays its first command, Palace swapped two cards to the event limit)."""
    match = new_match(game)
    result = play_refereed(match, [Hiccup(0, 3), ReactionBot(1, 2)], HUMAN, seed=1)
    assert [(f.seat, f.kind, f.action) for f in result.faults] == [(0, "garbage", "pass")]
    assert result.forfeited == () and match.outcome is not None
    assert match.outcome.termination not in ("event_limit", "resigned") and match.outcome.winners
    verified(match)


def test_a_bot_that_never_acts_stalls_the_game_without_a_fault() -> None:
    idle = Scripted(0, fault=lambda d, legal: None)
    idle.propose = lambda view, legal: None  # type: ignore[method-assign]
    match = new_match("ratscrew")
    result = play_refereed(match, [idle, Scripted(1)], HUMAN, 1)
    assert result.stalled and not result.faults and match.outcome is None


def test_faults_are_named_and_bounded() -> None:
    with pytest.raises(ValueError, match="crash, timeout, garbage, illegal"):
        BotFault("slow", "x")  # type: ignore[arg-type]
    fault = BotFault("garbage", "é\n" * 500)
    assert len(fault.detail) == MAX_DETAIL and fault.detail.isprintable()
    with pytest.raises(ValueError, match="two bots for one seat"):
        play_refereed(new_match("speed"), [Scripted(0), Scripted(0)], HUMAN, 1)


# --------------------------------------------------------------------------- the figure


DEALS = 40


@pytest.mark.parametrize("game", ["ratscrew", "slapjack", "speed"])
def test_under_the_human_model_an_instant_bot_wins_no_more_than_its_share(game: str) -> None:
    """docs/bots.md#measured: the issue's bar is 0.60. Seeded, so each figure is exact (this
    seed gives 0.475-0.55); without the referee the same bots give 0.95-1.00, so the check
    can fail."""
    g = get_game(game)
    refereed = duel(g, instant_bot, human_bot, HUMAN, deals=DEALS, seed=27)
    assert refereed.win_rate <= 0.56, refereed
    unrefereed = duel(g, instant_bot, human_bot, None, deals=DEALS, seed=27)
    assert unrefereed.win_rate >= 0.9, unrefereed


def test_the_instant_model_changes_nothing_for_these_bots() -> None:
    """Under "instant" every delay is kept (0 is the model's maximum): the referee's figure is
    the unrefereed one."""
    g = get_game("speed")
    instant = duel(g, instant_bot, human_bot, REACTION_MODELS["instant"], deals=20, seed=27)
    unrefereed = duel(g, instant_bot, human_bot, None, deals=20, seed=27)
    assert (instant.win_rate, instant.ci95) == (unrefereed.win_rate, unrefereed.ci95)
    assert instant.win_rate >= 0.9


def test_play_out_and_the_instant_referee_agree_game_for_game() -> None:
    for seed in range(3):
        a, b = new_match("slapjack", seed), new_match("slapjack", seed)
        bots_a = [instant_bot(0, 7), human_bot(1, 8)]
        bots_b = [instant_bot(0, 7), human_bot(1, 8)]
        play_out(a, bots_a)
        play_refereed(b, bots_b, REACTION_MODELS["instant"], seed=seed)
        assert a.dumps() == b.dumps()
