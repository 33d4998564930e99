"""cardcore.observe: observations and action catalogues (docs/rl.md).

The leak test: along seeded random playouts of every game (2 and 3 seats where the game allows;
``CARDCORE_LEAK_STATES`` (state, seat) pairs per game, 10,000 by default), a seat's observation
and its mask do not change when the cards it cannot see are reshuffled (``game.shuffle_hidden``),
and a deliberately leaky encoder is caught by the same check. Along the same states: every
observation has its layout's size and stays within its bounds; every legal command the catalogue
offers comes back from its index (expectations cleared); every masked action is a legal command
the rules accept (Speed's stalemate flip excepted: it is masked from what the seat sees,
docs/rl.md#speed-actions); and the variants each game's catalogue handles or refuses.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from cardcore.engine import Game, Role, Setup
from cardcore.errors import InvalidSeat, InvalidSetup, Rejected
from cardcore.games.speed import Flip as SpeedFlip
from cardcore.games.speed import Play as SpeedPlay
from cardcore.observe import CODE, Catalogue, catalogue, encode, layout
from cardcore.registry import GAMES, get_game
from cardcore.rng import Rng

AnyGame = Game[Any, Any, Any, Any, Any]
Observe = Callable[[Any, int, Any], tuple[int, ...]]
"""``(state, seat, view) -> observation``: what an encoder is handed (the view is the seat's)."""

STATES = int(os.environ.get("CARDCORE_LEAK_STATES", "10000"))
"""(state, seat) pairs per game in the leak test."""
FAST_STATES = 1000
"""(state, seat) pairs per game in its fast version, and in the other checks of these states."""
STEPS_PER_GAME = 300
"""Actions of one playout before the next deal: many deals, each phase of each."""

game_param = pytest.mark.parametrize("game", GAMES, ids=[g.name for g in GAMES])


def seat_counts(game: AnyGame) -> tuple[int, ...]:
    return tuple(sorted({game.info.min_seats, min(3, game.info.max_seats)}))


def playout(game: AnyGame, setup: Setup[Any], pairs: int, stream: int) -> list[tuple[Any, int]]:
    """``pairs`` (state, seat) pairs along random playouts from ``setup``'s seed on: each step
    takes a uniform choice among every seat's legal commands (cardcore.rng, so it is the same
    every run), and every seat of every state is a pair; a new deal (the next seed) after a
    finished game or :data:`STEPS_PER_GAME` actions."""
    out: list[tuple[Any, int]] = []
    rng = Rng(setup.seed, stream)
    seed = setup.seed
    while len(out) < pairs:
        deal = dataclasses.replace(setup, seed=seed)
        state = game.initial_state(deal)
        for event in game.deal(deal):
            state = game.evolve(state, event)
        for _ in range(STEPS_PER_GAME):
            out += [(state, seat) for seat in range(setup.seats)]
            moves = [(s, c) for s in range(setup.seats) for c in game.legal_commands(state, s)]
            if not moves or game.outcome(state) is not None or len(out) >= pairs:
                break
            seat, command = moves[rng.below(len(moves))]
            for event in game.decide(state, seat, command):
                state = game.evolve(state, event)
        seed += 1
    return out[:pairs]


@functools.cache
def states_of(name: str, count: int) -> tuple[tuple[Any, int], ...]:
    """``count`` (state, seat) pairs of game ``name``, split between its seat counts."""
    game = get_game(name)
    counts = seat_counts(game)
    out: list[tuple[Any, int]] = []
    for k, seats in enumerate(counts):
        share = count // len(counts) + (1 if k < count % len(counts) else 0)
        out += playout(game, game.make_setup(seats, 1000 + seats), share, stream=7)
    return tuple(out)


def honest(state: Any, seat: int, view: Any) -> tuple[int, ...]:
    return encode(view, seat)


def check_no_leak(
    game: AnyGame, pairs: Sequence[tuple[Any, int]], observe: Observe
) -> dict[str, int]:
    """Assert that ``observe`` and the catalogue's mask see nothing of the cards hidden from the
    seat: unchanged when they are reshuffled. Returns how many reshuffles moved a card and how
    many changed the legal commands (what the mask must not pass on)."""
    rng = Rng(99, 1)
    cats: dict[tuple[int, str], Catalogue] = {}
    moved = legal_differs = 0
    for n, (state, seat) in enumerate(pairs):
        key = (state.setup.seats, repr(state.setup.rules))
        cat = cats.get(key) or cats.setdefault(key, catalogue(game.name, state.setup))
        alt = game.shuffle_hidden(state, seat, rng)
        if n % 8 == 0:  # a sample is enough to show that the reshuffles move cards
            moved += game.cards_in_play(alt) != game.cards_in_play(state)
        view, alt_view = game.view(state, seat), game.view(alt, seat)
        assert observe(alt, seat, alt_view) == observe(state, seat, view), (
            f"{game.name}: seat {seat}'s observation shows a card it may not see"
        )
        legal, alt_legal = game.legal_commands(state, seat), game.legal_commands(alt, seat)
        legal_differs += list(legal) != list(alt_legal)
        assert cat.mask(alt_view, alt_legal) == cat.mask(view, legal), (
            f"{game.name}: seat {seat}'s mask hinges on a card it may not see "
            f"({list(legal)} / {list(alt_legal)})"
        )
    return {"moved": moved, "legal_differs": legal_differs}


def check_everything(game: AnyGame, count: int) -> None:
    """The leak test, the layout check and the round trips over ``count`` pairs of ``game``."""
    pairs = states_of(game.name, count)
    assert len(pairs) == count
    seen = check_no_leak(game, pairs, honest)
    # the reshuffles must move cards, or the check above could not fail
    assert seen["moved"] > len(pairs) // 32, seen
    if game.name == "speed" and count >= STATES:  # the stalemate flip hinges on the other hand
        assert seen["legal_differs"] > 0, seen
    sample = pairs[:: max(1, count // 2000)]  # the other checks need fewer
    check_layout(game, sample)
    assert check_round_trips(game, sample) > len(sample) // 10


@pytest.mark.slow
@game_param
def test_observations_and_masks_do_not_leak(game: AnyGame) -> None:
    """The issue's leak test over :data:`STATES` pairs per game, with the layout and round-trip
    checks of :func:`check_everything` (2 to 4 s a game here)."""
    check_everything(game, STATES)


@game_param
def test_observations_and_masks_do_not_leak_fast(game: AnyGame) -> None:
    """The same over :data:`FAST_STATES` pairs, for a run that leaves out the slow tests."""
    check_everything(game, FAST_STATES)


@game_param
def test_a_leaky_encoder_is_caught(game: AnyGame) -> None:
    """The check above fails for an encoder that also writes what the referee sees."""

    def leaky(state: Any, seat: int, view: Any) -> tuple[int, ...]:
        referee = game.cards_in_play(state)  # every card, hidden ones included
        return encode(view, seat) + tuple(CODE[c] for c in referee)

    with pytest.raises(AssertionError, match="shows a card it may not see"):
        check_no_leak(game, states_of(game.name, FAST_STATES), leaky)


def check_layout(game: AnyGame, pairs: Sequence[tuple[Any, int]]) -> None:
    """Every observation has its setup's layout size, ints within the layout's bounds; the layout
    is fixed for the setup (the seed does not change it)."""
    layouts: dict[tuple[int, str], tuple[int, tuple[int, ...], tuple[int, ...]]] = {}
    for state, seat in pairs:
        key = (state.setup.seats, repr(state.setup.rules))
        if key not in layouts:
            fixed = layout(game.name, state.setup)
            assert layout(game.name, dataclasses.replace(state.setup, seed=1)) == fixed
            assert len(set(fixed.names())) == len(fixed.fields)
            layouts[key] = (fixed.size, fixed.lows(), fixed.highs())
        size, lows, highs = layouts[key]
        obs = encode(game.view(state, seat), seat)
        assert len(obs) == size, (game.name, len(obs), size)
        assert all(type(x) is int for x in obs)
        bad = [
            (i, x)
            for i, (x, lo, hi) in enumerate(zip(obs, lows, highs, strict=True))
            if not lo <= x <= hi
        ]
        assert not bad, f"{game.name}: positions out of their layout's bounds: {bad[:3]}"


def cleared(command: Any) -> Any:
    """``command`` with its expectations None (what the catalogue builds)."""
    names = [f.name for f in dataclasses.fields(command) if f.name.startswith("expect")]
    return dataclasses.replace(command, **dict.fromkeys(names)) if names else command


def check_round_trips(game: AnyGame, pairs: Sequence[tuple[Any, int]]) -> int:
    """Every legal command the catalogue offers comes back from its index; every masked action
    is a legal command the rules accept (Speed's flip excepted). Returns the commands checked."""
    cats: dict[tuple[int, str], Catalogue] = {}
    checked = 0
    for state, seat in pairs:
        key = (state.setup.seats, repr(state.setup.rules))
        cat = cats.get(key) or cats.setdefault(key, catalogue(game.name, state.setup))
        view = game.view(state, seat)
        legal = list(game.legal_commands(state, seat))
        for command in legal:
            i = cat.index_of(command, view)
            if i is None:
                assert type(command) is SpeedPlay and command.then, (game.name, command)
                continue
            assert cat.command_at(i, view) == cleared(command), (game.name, command, i)
            checked += 1
        for i, allowed in enumerate(cat.mask(view, legal)):
            if not allowed:
                continue
            command = cat.command_at(i, view)
            if type(command) is SpeedFlip:
                continue  # masked from what the seat sees: the rules may say NotStuck
            assert command in legal, (game.name, cat.name(i), command)
            game.decide(state, seat, command)  # accepted: no Rejected
    return checked


VARIANTS: dict[str, list[dict[str, Any]]] = {
    "ratscrew": [
        {"num_decks": 2, "jokers": 1, "slap_rules": ["double", "joker", "top_bottom"]},
        {"auto_collect": True, "late_slap": "reject"},
    ],
    "slapjack": [{"num_decks": 2, "slap_targets": ["jack", "double", "sandwich"]}],
    "palace": [
        {"jokers": 2, "combine_hand_and_up": True, "voluntary_pickup": True},
        {"num_decks": 2, "cards_per_area": 2, "add_drawn_same_rank": True},
        {"three_invisible": True, "eight_skip": True, "finish_on_special": False},
    ],
    "spit": [
        {"stack_equal_in_layout": True, "pile_claim": "choose", "num_stock_piles": 4},
        {"auto_flip": True, "allow_equal_rank": True},
    ],
    "speed": [
        {"auto_refill": False, "hand_size": 7, "side_pile_size": 5},
        {"multi_card_play": True, "jokers": 2, "best_of": 3},
    ],
}


@pytest.mark.parametrize(
    ("name", "rules"),
    [(name, rules) for name, variants in VARIANTS.items() for rules in variants],
    ids=[f"{name}-{i}" for name, variants in VARIANTS.items() for i in range(len(variants))],
)
def test_variants_leak_nothing_and_round_trip(name: str, rules: dict[str, Any]) -> None:
    game = get_game(name)
    pairs = []
    for seats in seat_counts(game):
        pairs += playout(game, game.make_setup(seats, 5, rules), 400, stream=3)
    check_no_leak(game, pairs, honest)
    assert check_round_trips(game, pairs) > 30
    check_layout(game, pairs)


def test_palace_refuses_more_than_two_decks() -> None:
    game = get_game("palace")
    setup = game.make_setup(2, 1, {"num_decks": 3})
    with pytest.raises(InvalidSetup, match="at most 2 decks") as caught:
        catalogue("palace", setup)
    assert caught.value.field == "rules.num_decks"
    assert layout("palace", setup).size > 0  # the observation handles any number of decks


def test_sizes_of_the_default_two_seat_games() -> None:
    """The sizes docs/rl.md quotes."""
    sizes = {}
    for game in GAMES:
        setup = game.make_setup(2, 0)
        sizes[game.name] = (layout(game.name, setup).size, catalogue(game.name, setup).size)
    assert sizes == {
        "ratscrew": (16, 3),
        "slapjack": (14, 2),
        "palace": (199, 404),
        "spit": (45, 40),
        "speed": (27, 11),
    }


def test_bad_arguments_are_refused_clearly() -> None:
    game = get_game("ratscrew")
    setup = game.make_setup(2, 0)
    state = game.initial_state(setup)
    view = game.view(state, 0)
    with pytest.raises(InvalidSeat):
        encode(view, 2)
    with pytest.raises(InvalidSeat):
        encode(view, -1)
    with pytest.raises(TypeError, match="not the view of a cardcore game"):
        encode(state, 0)
    with pytest.raises(InvalidSetup, match="not ratscrew rules"):
        layout("ers", get_game("speed").make_setup(2, 0))
    for name in ("palace", "speed"):  # a view shows its own seat's hand: another seat's is not
        other = get_game(name)
        dealt = other.initial_state(other.make_setup(2, 0))
        for event in other.deal(dealt.setup):
            dealt = other.evolve(dealt, event)
        with pytest.raises(ValueError, match="not seat 1's view"):
            encode(other.view(dealt, 0), 1)
    cat = catalogue("ratscrew", setup)
    assert [cat.name(i) for i in range(cat.size)] == ["play", "slap", "collect"]
    with pytest.raises(ValueError, match="no action 3"):
        cat.command_at(3, view)
    assert cat.index_of(game.view(state, Role.REFEREE), view) is None  # not a command


@game_param
def test_action_names_are_distinct(game: AnyGame) -> None:
    for seats in seat_counts(game):
        cat = catalogue(game.name, game.make_setup(seats, 0))
        names = [cat.name(i) for i in range(cat.size)]
        assert len(set(names)) == cat.size


def test_rejected_is_what_a_refused_flip_raises() -> None:
    """Speed's flip, masked from what the seat sees, may be refused by the rules: NotStuck, a
    Rejected the environment reports (docs/rl.md#speed-actions)."""
    game = get_game("speed")
    cat = catalogue("speed", game.make_setup(2, 0))
    refused = 0
    for state, seat in states_of("speed", FAST_STATES):
        view = game.view(state, seat)
        legal = game.legal_commands(state, seat)
        mask = cat.mask(view, legal)
        flip = cat.command_at(cat.size - 1, view)
        assert isinstance(flip, SpeedFlip)
        if mask[-1] and flip not in legal:
            with pytest.raises(Rejected, match="stalemate flip"):
                game.decide(state, seat, flip)
            refused += 1
    assert refused > 0
