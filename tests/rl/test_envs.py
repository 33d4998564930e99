"""The PettingZoo environments of cardcore.rl (docs/rl.md#environments): PettingZoo's own API and
seed tests for every game (the Parallel ones for the four real-time games), every observation
inside its space, random masked episodes played to the end, reset(seed) reproducing the game,
and an episode's log that verifies and replays to the same outcome.

Skipped, saying why, where the extra ``cardcore[rl]`` (gymnasium, pettingzoo, numpy) is not
installed."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

pytest.importorskip("numpy", reason="cardcore[rl] is not installed (numpy)")
pytest.importorskip("gymnasium", reason="cardcore[rl] is not installed (gymnasium)")
pytest.importorskip("pettingzoo", reason="cardcore[rl] is not installed (pettingzoo)")

import numpy as np
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

from cardcore.engine import Outcome, Role, Termination
from cardcore.log import loads, replay, verify
from cardcore.match import Match
from cardcore.observe import encode
from cardcore.registry import get_game
from cardcore.rl import MASKED, env, parallel_env, rewards_of
from cardcore.rl.table import VIEW_MASKED
from cardcore.rng import Rng

GAMES = ("ratscrew", "slapjack", "palace", "spit", "speed")
REALTIME = ("ratscrew", "slapjack", "spit", "speed")
SHORT = 400
"""An event limit that keeps a random episode of Palace or Spit (a thousand actions and more)
short; the other games mostly end by their rules before it."""


def choose(rng: Rng, mask: Any) -> int:
    """A uniform choice among the actions ``mask`` allows (cardcore's RNG: reproducible)."""
    allowed = np.flatnonzero(mask)
    return int(allowed[rng.below(len(allowed))])


def play_aec(e: Any, rng: Rng, seed: int | None) -> int:
    """One random masked episode of an AEC env, every observation checked against its space;
    the number of steps."""
    e.reset(seed=seed)
    steps = 0
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        assert e.observation_space(agent).contains(obs), (agent, obs)
        e.step(None if term or trunc else choose(rng, obs["action_mask"]))
        steps += 1
    return steps


def play_parallel(e: Any, rng: Rng, seed: int | None) -> dict[str, float]:
    """One random masked episode of a Parallel env; each agent's reward at the end."""
    obs, _ = e.reset(seed=seed)
    total: dict[str, float] = {}
    while e.agents:
        for o in obs.values():
            assert e.observation_space("player_0").contains(o)
        actions = {a: choose(rng, obs[a]["action_mask"]) for a in e.agents}
        obs, rewards, _, _, _ = e.step(actions)
        for a, r in rewards.items():
            total[a] = total.get(a, 0.0) + r
    return total


# ----------------------------------------------------------------- PettingZoo's own tests


@pytest.mark.parametrize("game", GAMES)
def test_the_aec_env_passes_pettingzoo_api_test(game: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its advice (e.g. "observation is all zeros")
        api_test(env(game, event_limit=SHORT, render_mode="ansi"), num_cycles=500)


@pytest.mark.parametrize("game", GAMES)
def test_the_aec_env_passes_pettingzoo_seed_test(game: str) -> None:
    seed_test(lambda: env(game), num_cycles=300)


@pytest.mark.parametrize("game", REALTIME)
def test_the_parallel_env_passes_pettingzoo_parallel_api_test(game: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parallel_api_test(parallel_env(game, event_limit=SHORT), num_cycles=400)


@pytest.mark.parametrize("game", REALTIME)
def test_the_parallel_env_passes_pettingzoo_parallel_seed_test(game: str) -> None:
    """Its actions are sampled without the mask: the masked ones are refused, reproducibly."""
    parallel_seed_test(lambda: parallel_env(game), num_cycles=300)


def test_palace_has_no_parallel_env() -> None:
    with pytest.raises(ValueError, match="turn-based"):
        parallel_env("palace")


# ----------------------------------------------------------------- episodes


@pytest.mark.parametrize("game", GAMES)
def test_fifty_random_masked_episodes_end_in_the_aec_env(game: str) -> None:
    """Each ends with the game's outcome (by its rules, or truncated at the event limit), every
    agent rewarded as :func:`rewards_of` says."""
    seats = 3 if game == "palace" else 2
    e = env(game, seats=seats, event_limit=SHORT)
    rng = Rng(27, 0)
    ends = []
    for seed in range(50):
        e.reset(seed=seed)
        totals = dict.fromkeys(e.agents, 0.0)
        for agent in e.agent_iter():
            obs, reward, term, trunc, _ = e.last()
            assert e.observation_space(agent).contains(obs), (agent, obs)
            totals[agent] += reward
            e.step(None if term or trunc else choose(rng, obs["action_mask"]))
        outcome = e.outcome
        assert outcome is not None
        assert tuple(totals[f"player_{s}"] for s in range(seats)) == rewards_of(outcome, seats)
        ends.append(outcome.termination)
    if game in ("ratscrew", "slapjack", "speed"):  # short games: most end by their rules
        assert ends.count(Termination.EVENT_LIMIT) < 25, ends


@pytest.mark.parametrize("game", REALTIME)
def test_random_masked_episodes_end_in_the_parallel_env(game: str) -> None:
    e = parallel_env(game, event_limit=SHORT, reaction="uniform:0-120")
    rng = Rng(27, 1)
    for seed in range(10):
        rewards = play_parallel(e, rng, seed)
        outcome = e.outcome
        assert outcome is not None
        assert tuple(rewards[f"player_{s}"] for s in range(2)) == rewards_of(outcome, 2)


@pytest.mark.parametrize("game", GAMES)
def test_reset_with_a_seed_reproduces_the_game(game: str) -> None:
    """The same seed and the same actions give the same log, byte for byte; another seed
    another deal; a reset without a seed after ``reset(seed=s)`` continues a reproducible
    sequence."""
    e = env(game, event_limit=SHORT)
    logs = []
    for seed in (5, 5, 6):
        play_aec(e, Rng(1, 2), seed)
        logs.append(e.log())
    assert logs[0] == logs[1] and logs[0] != logs[2]
    firsts = []
    for _ in range(2):
        e.reset(seed=9)
        e.reset()
        firsts.append(e.table.match.setup.seed)
    assert firsts[0] == firsts[1]


@pytest.mark.parametrize("game", REALTIME)
def test_parallel_reset_with_a_seed_reproduces_the_game(game: str) -> None:
    e = parallel_env(game, event_limit=SHORT)
    logs = []
    for _ in range(2):
        play_parallel(e, Rng(3, 4), 11)
        logs.append(e.log())
    assert logs[0] == logs[1]


@pytest.mark.parametrize("game", GAMES)
def test_an_episode_log_verifies_and_replays_to_its_outcome(game: str) -> None:
    e = env(game, event_limit=SHORT)
    play_aec(e, Rng(8, 8), 21)
    data = e.unwrapped.log()
    lines = loads(data)
    report = verify(lines)
    outcome = e.outcome
    assert report.outcome == outcome and report.revealed
    *_, last = replay(lines)
    assert Match.loads(data).outcome == outcome
    assert last.state == e.table.match.state


@pytest.mark.parametrize("game", REALTIME)
def test_a_parallel_episode_log_verifies_with_arrival_times(game: str) -> None:
    e = parallel_env(game, event_limit=SHORT, reaction="uniform:60-60", tick_ms=50)
    play_parallel(e, Rng(2, 2), 4)
    lines = loads(e.log())
    assert verify(lines).outcome == e.outcome
    times = [
        ln["at_ms"] for ln in lines if ln.get("type") == "entry" and ln.get("seat") is not None
    ]
    assert times and all(t % 50 == 10 for t in times), "sent at a tick, landed 60 ms later"


# ----------------------------------------------------------------- what an agent sees and does


def test_the_observation_is_the_seats_view_encoded() -> None:
    e = env("palace", seats=3)
    e.reset(seed=3)
    game, state = get_game("palace"), e.table.match.state
    for s in range(3):
        obs = e.observe(f"player_{s}")
        assert tuple(obs["observation"]) == encode(game.view(state, s), s)


def test_palace_asks_the_seats_it_waits_for_without_a_wait() -> None:
    e = env("palace", seats=3)
    e.reset(seed=1)
    game = get_game("palace")
    for _ in range(60):
        agent = e.agent_selection
        seat = int(agent.rsplit("_", 1)[1])
        mask = e.observe(agent)["action_mask"]
        waited = seat in game.to_act(e.table.match.state)
        assert mask[-1] == (0 if waited else 1)
        for other in e.agents:
            if other != agent:
                assert e.observe(other)["action_mask"].tolist() == [0] * (len(mask) - 1) + [1]
        e.step(choose(Rng(seat, 5), mask))


def test_a_masked_action_loses_the_decision_and_changes_nothing() -> None:
    e = env("speed")
    e.reset(seed=2)
    agent = e.agent_selection
    mask = e.observe(agent)["action_mask"]
    index = int(np.flatnonzero(mask == 0)[0])
    before = e.table.match.seq
    e.step(index)
    assert e.infos[agent] == {"rejected": MASKED}
    assert e.table.match.seq == before
    with pytest.raises(ValueError, match="Discrete"):
        e.step(len(mask))


def test_a_race_lost_in_flight_is_refused_as_stale() -> None:
    """Slapjack, instant hands: the players play until a Jack shows, then both slap it in the
    same tick; the first to land takes the pile, the second carries the epoch it saw and is
    refused as stale, changing nothing."""
    from cardcore.games.slapjack import PLAY, SLAP

    e = parallel_env("slapjack", reaction="instant")
    e.reset(seed=0)
    catalogue, wait = e.table.catalogue, e.table.wait
    play, slap = catalogue.index_of(PLAY, None), catalogue.index_of(SLAP, None)
    for _ in range(200):
        state = e.table.match.state
        if state.pile and state.pile[-1].rank == 11:
            break
        e.step({f"player_{s}": play if state.current == s else wait for s in range(2)})
    else:
        pytest.fail("no jack was played")
    seq = e.table.match.seq
    _, _, _, _, infos = e.step(dict.fromkeys(e.agents, slap))
    assert sorted(i.get("rejected", "") for i in infos.values()) == ["", "StaleAction"]
    assert e.table.match.seq == seq + 1, "one slap landed, the stale one changed nothing"


def test_render_is_the_referees_notation() -> None:
    e = env("ratscrew", render_mode="ansi")
    e.reset(seed=4)
    game = get_game("ratscrew")
    assert e.render() == game.format_position(e.table.match.state, Role.REFEREE)
    assert env("ratscrew").render() is None


def test_rewards_name_winners_and_losers() -> None:
    assert rewards_of(Outcome(Termination.OUT_OF_CARDS, (1, 2), (0,)), 3) == (-1.0, 1.0, 1.0)
    assert rewards_of(Outcome(Termination.ALL_CARDS, (1,)), 3) == (-1.0, 1.0, -1.0)
    assert rewards_of(Outcome(Termination.EVENT_LIMIT), 2) == (0.0, 0.0)
    assert rewards_of(Outcome(Termination.ABORTED), 2) == (0.0, 0.0)


def test_after_a_sweep_of_waits_a_real_time_seat_with_a_sensible_command_must_act() -> None:
    """Ratscrew's deal: only the first player has a command (play: sensible). It waits; the
    sweep is over with nobody acting, so in the next one it may not wait."""
    e = env("ratscrew")
    e.reset(seed=1)
    agent = e.agent_selection
    assert e.observe(agent)["action_mask"][-1] == 1
    e.step(e.table.wait)
    assert e.agent_selection == agent and e.infos[agent] == {}
    assert e.observe(agent)["action_mask"][-1] == 0, "the table does not stand still"
    e.step(e.table.wait)
    assert e.infos[agent] == {"rejected": MASKED}, "a wait it was not offered is refused"


def test_a_command_the_rules_refuse_loses_the_decision_in_aec() -> None:
    """Speed's stalemate flip is masked from what the seat sees (no play of its own, every hand
    full), so a seat is asked whether or not the other hand can play (being asked tells it
    nothing); where the other could, the rules refuse the call (NotStuck): reported, the table
    unchanged, the sweep going on."""
    e = env("speed")
    rng = Rng(6, 6)
    refused = 0
    for seed in range(40):
        e.reset(seed=seed)
        for agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            seq = e.table.match.seq
            e.step(None if term or trunc else choose(rng, obs["action_mask"]))
            if e.infos.get(agent, {}).get("rejected") == "NotStuck":
                refused += 1
                assert e.table.match.seq == seq
        if refused >= 3:
            break
    assert refused >= 3


@pytest.mark.parametrize("game", [g for g in GAMES if g not in VIEW_MASKED])
def test_only_the_view_masked_catalogues_offer_an_action_without_a_legal_command(
    game: str,
) -> None:
    """What lets a sweep pass over a seat with no legal command without computing its view
    (``cardcore.rl.table.VIEW_MASKED``): these catalogues' masks mark legal commands only."""
    e = env(game, event_limit=SHORT)
    rng = Rng(9, 9)
    g, catalogue = get_game(game), e.table.catalogue
    for seed in range(5):
        e.reset(seed=seed)
        for _ in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            for s in range(2):
                view = g.view(e.table.match.state, s)
                assert not any(catalogue.mask(view, ())), (game, s)
            e.step(None if term or trunc else choose(rng, obs["action_mask"]))


@pytest.mark.parametrize("game", GAMES)
def test_an_agent_is_shown_the_same_whatever_the_cards_it_cannot_see(game: str) -> None:
    """At every decision of a random episode, the asked agent's observation and mask are the
    same when the cards its seat cannot see are reshuffled (``Game.shuffle_hidden``): the
    environment adds nothing of the state to what ``cardcore.observe`` shows."""
    e = env(game, event_limit=SHORT)
    g, table, rng = get_game(game), e.table, Rng(4, 4)
    e.reset(seed=2)
    for n, agent in enumerate(e.agent_iter(400)):
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        seat, real = int(agent.rsplit("_", 1)[1]), table.match.state
        table.match.state = g.shuffle_hidden(real, seat, Rng(n, 1))
        table._at = [-1] * table.seats  # computed again from the reshuffled state
        table._legal_at = [-1] * table.seats
        again = e.observe(agent)
        table.match.state = real
        table._at = [-1] * table.seats
        table._legal_at = [-1] * table.seats
        assert (again["observation"] == obs["observation"]).all(), (game, n)
        assert (again["action_mask"] == obs["action_mask"]).all(), (game, n)
        e.step(choose(rng, obs["action_mask"]))


def test_a_setup_the_environment_cannot_offer_is_refused_naming_the_field() -> None:
    from cardcore.errors import InvalidSetup

    with pytest.raises(InvalidSetup) as seats:
        env("speed", seats=3)
    assert seats.value.field == "seats"
    with pytest.raises(InvalidSetup) as decks:
        env("palace", rules={"num_decks": 3})  # beyond the catalogue's plays
    assert decks.value.field == "rules.num_decks"
    with pytest.raises(ValueError, match="reaction model"):
        parallel_env("speed", reaction="quick")
    with pytest.raises(ValueError, match="render_mode"):
        env("speed", render_mode="human")


@pytest.mark.parametrize("game", GAMES)
def test_what_the_table_computes_once_is_what_the_game_and_the_catalogue_say(game: str) -> None:
    """The table's shortcuts change nothing: its view of each seat (the game's view past the
    viewer's check) equals ``game.view``; its mask is the catalogue's; each observation it
    hands out is a fresh, writable array (the encoding kept per seat and state is copied), so
    an agent that changes one changes nothing it is shown next."""
    e = env(game, event_limit=SHORT)
    g, table, rng = get_game(game), e.table, Rng(6, 6)
    assert table._view is not g.view  # past the check (kit.viewed's wrapper)
    e.reset(seed=5)
    for agent in e.agent_iter(300):
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        for s in range(table.seats):
            now = table.seat(s)
            assert now.view == g.view(table.match.state, s), (game, s)
            legal = tuple(g.legal_commands(table.match.state, s))
            assert now.mask == table.catalogue.mask(now.view, legal), (game, s)
        assert obs["observation"].flags.writeable and obs["action_mask"].flags.writeable
        again = e.observe(agent)
        obs["observation"][:] = 0
        obs["action_mask"][:] = 0
        assert (e.observe(agent)["observation"] == again["observation"]).all(), game
        assert (e.observe(agent)["action_mask"] == again["action_mask"]).all(), game
        e.step(choose(rng, again["action_mask"]))


def test_a_speed_play_action_means_the_play_of_that_slot_whoever_built_it_before() -> None:
    """Speed's catalogue keeps each play it builds (plays are values): the command of an action
    is the play of the card in that slot now, equal to one built afresh, however the hand moved."""
    from cardcore.games.speed import Play

    e = env("speed")
    table, rng = e.table, Rng(8, 8)
    for seed in range(6):
        e.reset(seed=seed)
        for _ in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            now = table.seat(e._selected)
            for i in range(table.catalogue.flip_at):  # type: ignore[attr-defined]
                slot, to = divmod(i, 2)
                hand = now.view.hands[e._selected]
                want = Play(hand[slot], to) if slot < len(hand) else None
                assert table.catalogue.command_at(i, now.view) == want
            e.step(choose(rng, obs["action_mask"]))


def test_a_parallel_tick_of_waits_checks_each_action_as_any_other_tick_does() -> None:
    """The tick where every agent waits skips sending: a wait given as anything but an int index
    is still refused (the same ValueError), and arrays handed out on unchanged ticks are fresh."""
    e = parallel_env("speed")
    obs, _ = e.reset(seed=1)
    wait = e.table.wait
    with pytest.raises(ValueError, match="integer index"):
        e.step({"player_0": float(wait), "player_1": wait})
    first, *_ = e.step(dict.fromkeys(e.agents, wait))
    first["player_0"]["observation"][:] = 0
    first["player_0"]["action_mask"][:] = 0
    for _ in range(3):
        again, *_ = e.step(dict.fromkeys(e.agents, np.int64(wait)))
        assert (again["player_0"]["observation"] == obs["player_0"]["observation"]).all()
        assert (again["player_0"]["action_mask"] == obs["player_0"]["action_mask"]).all()
        again["player_0"]["observation"][:] = 0


def test_a_layout_wider_than_a_byte_is_observed_as_its_ints_every_time() -> None:
    """No layout needs more than uint8 today; the path for one that does (np.array of the
    encoding) gives the encoding itself, the first time and when asked again (copies)."""
    e = env("speed")
    e.reset(seed=4)
    table = e.table
    table._uint8, table._obs_dtype = False, np.dtype(np.int16)
    table._shown = [None] * table.seats
    agent = e.agent_selection
    seat = int(agent.rsplit("_", 1)[1])
    want = encode(get_game("speed").view(table.match.state, seat), seat)
    for _ in range(3):
        obs = e.observe(agent)["observation"]
        assert obs.dtype == np.int16 and tuple(obs) == want
        obs[:] = -1


def test_the_generator_of_unseeded_resets_is_gymnasiums_seeded_by_the_last_seed() -> None:
    """The generator is made only when needed (an unseeded reset, ``np_random`` read), and is
    then the one ``reset(seed=s)`` always made: gymnasium's ``seeding.np_random(s)``."""
    from gymnasium.utils import seeding

    e = env("ratscrew")
    assert e.np_random is None
    e.reset(seed=11)
    e.reset(seed=12)
    want = seeding.np_random(12)[0]
    assert e.np_random.bit_generator.state == want.bit_generator.state
    e.reset()
    assert e.table.match.setup.seed == int(want.integers(0, 2**63, dtype=np.int64))
    e.reset()
    assert e.table.match.setup.seed == int(want.integers(0, 2**63, dtype=np.int64))
