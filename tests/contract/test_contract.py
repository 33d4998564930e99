"""The contract every registered game must honour (the properties docs/adding-a-game.md asks of
every game), checked with Hypothesis.

Each example deals a seeded game and lets seeded bots (sensible ones that sometimes blunder, or
uniformly random ones) play a stretch of it through the sequencer; at every step it checks:

* replay of the recorded log equals the live state, step by step;
* the multiset of cards is conserved after every single event;
* every command ``legal_commands`` offers any seat is accepted by ``decide``;
* every rejected command changes nothing (state, sequence number, log);
* each viewer's view is byte-identical when the cards it cannot see are reshuffled, and the
  redacted events differ between the two worlds only where the viewer's views along the way
  (after each event) differ too, and then only in cards those views show;
* commands, events and views round-trip through the canonical JSON codec.

Each example plays under rule variants drawn from the game's own flag schema
(:func:`~cardcore.engine.rule_flags`), not only the default rules. Separately: seeded bot games
end at every seat count; ``shuffle_hidden`` really moves hidden cards (else the no-leak checks
above pass vacuously); ``Rules(...)`` refuses every kind of invalid flag value; and the
position hooks (``check_position``, ``format_position``, ``parse_position``) round-trip the
positions of bot games, which ``Match.from_position`` continues into a log that verifies.

The suite runs over every registered game and War (tests/war), the worked example of
docs/adding-a-game.md: a game that passes it is a game cardcore can host.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter, OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, cast

import pytest
from hypothesis import assume, find, given, settings
from hypothesis import strategies as st

from cardcore import codec, kit, log
from cardcore.bots import Bot, ask, play_out, seat_bots
from cardcore.cards import Card
from cardcore.engine import FlagInfo, Game, Role, Termination, Viewer, rule_flags
from cardcore.errors import DecodeError, InvalidPosition, InvalidSetup, Rejected
from cardcore.match import Match
from cardcore.registry import GAMES
from cardcore.rng import MAX_SEED, Rng
from tests.war.war import GAME as WAR

AnyGame = Game[Any, Any, Any, Any, Any]
STEPS = 120

ALL_GAMES: tuple[AnyGame, ...] = (*GAMES, WAR)
game_param = pytest.mark.parametrize("game", ALL_GAMES, ids=[g.name for g in ALL_GAMES])

# --------------------------------------------------------------------------- rule variants

INT_SPAN = 2
"""Integer flags are drawn from their lower bound up to this many above it (or the upper bound):
the low end is where rules change character (0 penalty cards, 1 deck, a target of 1 point);
a larger value plays the same rules for longer, and more decks make every step dearer."""


def flag_strategy(schema: dict[str, Any]) -> st.SearchStrategy[Any] | None:
    """The JSON values a flag's schema allows, or None for a kind this suite does not draw
    (a free-form mapping such as ERS's challenge_counts keeps its default)."""
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "boolean":
        return st.booleans()
    if kind == "integer" or "anyOf" in schema:
        lo = schema.get("minimum", 0)
        ints = st.integers(lo, min(schema.get("maximum", lo + INT_SPAN), lo + INT_SPAN))
        return ints if kind == "integer" else st.none() | ints  # anyOf: int or null
    if kind == "array" and "enum" in schema.get("items", {}):
        return st.lists(st.sampled_from(schema["items"]["enum"]), unique=True)
    return None


def rules_for(game: AnyGame) -> st.SearchStrategy[dict[str, Any]]:
    """Rule variants from the game's flag schema: each flag absent (its default) or drawn, so
    Hypothesis shrinks a failure towards the default rules and names the flags that matter."""
    optional = {}
    for f in rule_flags(game.rules_type):
        values = flag_strategy(dict(cast(dict[str, Any], f.schema)))
        if values is not None:
            optional[f.name] = values
    return st.fixed_dictionaries({}, optional=optional)


def invalid_values(f: FlagInfo) -> list[Any]:
    """Values of every kind of mistake the flag's schema rules out: an unknown choice, a wrong
    type (``True`` is not an int: style.md's ``True == 1`` lesson), just out of bounds."""
    schema = cast(dict[str, Any], f.schema)
    kind = schema.get("type")
    out: list[Any] = []
    if "enum" in schema:
        out += ["no_such_choice", 1]
    if kind == "boolean":
        out += [1, "yes", None]
    if kind == "integer" or "anyOf" in schema:
        out += [schema["minimum"] - 1] if "minimum" in schema else []
        out += [schema["maximum"] + 1] if "maximum" in schema else []
        out += ["1", True, 1.5]
    if kind == "array":
        out += [frozenset({"no_such_choice"}), "double", 1]
    if kind == "object":
        out += ["x", 1]
    assert out, f"flag {f.name}: no invalid value for schema {schema}"
    return out


def setup_or_skip(game: AnyGame, seats: int, seed: int, rules: dict[str, Any]) -> Any:
    try:
        return game.make_setup(seats, seed, rules)
    except InvalidSetup:
        assume(False)  # a combination the game refuses (e.g. 5 seats of 8-card Palace areas)
        raise  # pragma: no cover - assume(False) does not return


# --------------------------------------------------------------------------- bot games


def bot_step(match: Match[Any, Any, Any, Any, Any], bots: Sequence[Bot], now: int) -> int | None:
    """Sequence the earliest bot proposal (ties to the lower seat) as play_out does; the new
    time, or None when no bot would act."""
    moves = [(p[0], b.seat, p[1]) for b in bots if (p := ask(b, match.game, match.state))]
    if not moves:
        return None
    delay, seat, cmd = min(moves, key=lambda m: (m[0], m[1]))
    match.submit(seat, cmd, now + delay)
    return now + delay


def bot_states(game: AnyGame, setup: Any, kind: str, steps: int, every: int = 1) -> list[Any]:
    """Every ``every``-th state of a seeded bot game (unrecorded) before it ends."""
    match = Match(game, setup, record=False)
    bots = seat_bots(kind, setup.seats, setup.seed)
    out = []
    now: int | None = 0
    for i in range(steps):
        if match.outcome is not None or now is None:
            break
        if i % every == 0:
            out.append(match.state)
        now = bot_step(match, bots, now)
    return out


def default_setup(game: AnyGame, seats: int, seed: int) -> Any:
    try:
        return game.make_setup(seats, seed)
    except InvalidSetup:
        return game.make_setup(seats, seed, {"num_decks": 2})  # more seats, more decks


def seats_for(game: AnyGame) -> st.SearchStrategy[int]:
    return st.integers(game.info.min_seats, game.info.max_seats)


def viewers(seats: int) -> list[Viewer]:
    return [*range(seats), Role.SPECTATOR]


def flatten(value: Any, path: str = "") -> dict[str, Any]:
    """JSON leaves by path, for telling where two encodings differ."""
    out: dict[str, Any] = {}
    _flatten_into(value, path, out)
    return out


def _flatten_into(value: Any, path: str, out: dict[str, Any]) -> None:
    # one dict for the whole walk (depth first, as built up level by level before)
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten_into(v, f"{path}.{k}", out)
    elif isinstance(value, list):
        out[f"{path}#len"] = len(value)
        for i, v in enumerate(value):
            _flatten_into(v, f"{path}[{i}]", out)
    else:
        out[path] = value


def string_leaves(value: Any) -> list[str]:
    """The string leaves of a JSON value (the values of :func:`flatten` that are strings,
    without building their paths)."""
    out: list[str] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return out


_MEMO: OrderedDict[tuple[Any, ...], tuple[tuple[Any, ...], Any]] = OrderedDict()
_MEMO_SIZE = 4096


def memoised(kind: str, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)``, remembered for the last :data:`_MEMO_SIZE` calls by the identity of the
    arguments (games, states and event sequences are immutable; a view or a state along the way
    is asked for again by every check of a step). An entry holds its arguments, so no id is
    reused while it is remembered."""
    key = (kind, *(a if isinstance(a, int | str) else id(a) for a in args))
    hit = _MEMO.get(key)
    if hit is not None and all(map(_same, hit[0], args)):
        _MEMO.move_to_end(key)
        return hit[1]
    value = fn(*args)
    _MEMO[key] = (args, value)
    if len(_MEMO) > _MEMO_SIZE:
        _MEMO.popitem(last=False)
    return value


def _same(a: Any, b: Any) -> bool:
    return a is b or (isinstance(b, int | str) and a == b)


def encoded_view(game: AnyGame, state: Any, viewer: Viewer) -> Any:
    """``codec.encode(game.view(state, viewer))`` (read only: it is shared)."""
    return memoised("view", lambda g, s, v: codec.encode(g.view(s, v)), game, state, viewer)


def visible_cards(game: AnyGame, state: Any, viewer: Viewer) -> set[str]:
    """Every card string the viewer's view shows."""
    return memoised(
        "cards",
        lambda g, s, v: {t for t in string_leaves(encoded_view(g, s, v)) if is_card_text(t)},
        game,
        state,
        viewer,
    )


@functools.cache  # few distinct strings, checked millions of times ("??" raises inside)
def is_card_text(text: str) -> bool:
    try:
        codec.decode(Card, text)
    except DecodeError:
        return False
    return True


def fields(state: Any) -> tuple[Any, ...]:
    """A state's fields as they are now (a ``NamedTuple`` is its own; a native state's are
    read out): values that never change, so this is what the state holds at this moment."""
    return state._astuple() if isinstance(state, kit.NativeState) else tuple(state)


def states_along(game: AnyGame, state: Any, events: Any) -> list[Any]:
    """The state after each event: a client following the stream shows each of them, so a card
    face up in any of them (played, then swept up by the same action) was on show. (The same
    state objects for the same state and events, so each view along the way is encoded once.)"""

    def along(game: AnyGame, state: Any, events: Any) -> list[Any]:
        out = []
        for e in events:
            state = game.evolve(state, e)
            out.append(state)
        return out

    return list(memoised("along", along, game, state, events))


def cards_shown(game: AnyGame, states: Sequence[Any], viewer: Viewer) -> set[str]:
    """Every card string the viewer's view shows in any of these states."""
    return set().union(*(visible_cards(game, s, viewer) for s in states))


def check_redaction(
    game: AnyGame, state: Any, alt: Any, events: Any, alt_events: Any, viewer: Viewer
) -> None:
    """The no-leak property of events: differences only where the viewer's views along the
    way (after each event) differ too, and then only in cards those views show."""
    red = [codec.encode(game.redact(e, viewer)) for e in events]
    alt_red = [codec.encode(game.redact(e, viewer)) for e in alt_events]
    if red == alt_red:
        return
    along, alt_along = states_along(game, state, events), states_along(game, alt, alt_events)

    def views(states: list[Any]) -> list[bytes]:
        return [codec.canonical_bytes(encoded_view(game, s, viewer)) for s in states]

    assert views(along) != views(alt_along), (
        f"{game.name}: redacted events for {viewer} depend on hidden cards although no view "
        f"along the way does:\n{red}\n{alt_red}"
    )
    a, b = flatten(red), flatten(alt_red)
    if a.keys() != b.keys():
        return  # different structure: the outcome itself depended on a card now revealed
    shown, alt_shown = cards_shown(game, along, viewer), cards_shown(game, alt_along, viewer)
    for path in a:
        # Counts and turns may follow from a revealed card; a card itself must be on show.
        if a[path] != b[path] and isinstance(a[path], str) and is_card_text(a[path]):
            assert a[path] in shown and b[path] in alt_shown, (
                f"{game.name}: {viewer} is told {a[path]} / {b[path]} at {path}, which no view "
                "along the way shows"
            )


def candidate_commands(match: Match[Any, Any, Any, Any, Any], seats: int) -> list[Any]:
    """Commands worth trying as anyone: every seat's legal ones and the argument-less types."""
    out: list[Any] = []
    for s in range(seats):
        out.extend(match.legal_commands(s))
    for cls in match.game.command_types:
        try:
            out.append(cls())
        except TypeError:
            pass
    return out


@game_param
@given(data=st.data())
def test_contract_along_bot_games(game: AnyGame, data: st.DataObject) -> None:
    seats = data.draw(seats_for(game), label="seats")
    seed = data.draw(st.integers(0, MAX_SEED), label="seed")
    kind = data.draw(st.sampled_from(["reaction", "random"]), label="bots")
    rules = data.draw(rules_for(game), label="rules")
    setup = setup_or_skip(game, seats, seed, rules)
    match = Match(game, setup)
    full_deck = Counter(game.deck(setup))
    bots = seat_bots(kind, seats, seed)
    shuffler = Rng(seed, 99)
    states = [match.state]
    held = [fields(match.state)]

    # The deal: redacted deal events obey the same no-leak rule against another seed's deal.
    other = game.make_setup(seats, (seed + 1) % (MAX_SEED + 1), rules)
    deal, other_deal = game.deal(setup), game.deal(other)
    for v in viewers(seats):
        check_redaction(
            game, game.initial_state(setup), game.initial_state(other), deal, other_deal, v
        )

    now = 0
    for _ in range(STEPS):
        if match.outcome is not None:
            break
        state = match.state
        assert Counter(game.cards_in_play(state)) == full_deck

        # Every legal command of every seat is accepted.
        for s in range(seats):
            for cmd in match.legal_commands(s):
                try:
                    game.decide(state, s, cmd)
                except Rejected as exc:  # pragma: no cover - a failure message
                    raise AssertionError(f"legal {cmd!r} of seat {s} rejected: {exc}") from exc

        # Rejected commands change nothing.
        seq, n_lines = match.seq, len(match.writer.lines) if match.writer else 0
        for s in range(seats):
            for cmd in candidate_commands(match, seats):
                try:
                    match.check(s, cmd)
                except Rejected as exc:
                    assert exc.code.value, "a rejection carries a code"
                    with pytest.raises(Rejected):
                        match.submit(s, cmd, now)
                    assert match.state is state and match.seq == seq
                    assert (len(match.writer.lines) if match.writer else 0) == n_lines

        # Views are blind to the cards they cannot see; so are redacted events.
        moves = [(p[0], b.seat, p[1]) for b in bots if (p := ask(b, game, state))]
        if not moves:
            break
        delay, seat, cmd = min(moves, key=lambda m: (m[0], m[1]))
        events = game.decide(state, seat, cmd)
        for v in viewers(seats):
            alt = game.shuffle_hidden(state, v, shuffler)
            assert Counter(game.cards_in_play(alt)) == full_deck
            assert codec.canonical_bytes(codec.encode(game.view(state, v))) == (
                codec.canonical_bytes(codec.encode(game.view(alt, v)))
            ), f"{game.name}: the view of {v} depends on cards it cannot see"
            try:
                alt_events = game.decide(alt, seat, cmd)
            except Rejected:
                continue  # the command's legality hinges on a hidden card (a blind play)
            check_redaction(game, state, alt, events, alt_events, v)

        # Conservation after every single event; codec round-trips.
        along = states_along(game, state, events)
        for e, after in zip(events, along, strict=True):
            assert Counter(game.cards_in_play(after)) == full_deck, f"after {e!r}"
            assert game.decode_event(codec.encode(e)) == e
        s_ = along[-1] if along else state
        assert game.decode_command(codec.encode(cmd)) == cmd
        for v in [*viewers(seats), Role.REFEREE]:
            view = game.view(s_, v)
            assert codec.decode(game.view_type, codec.encode(view)) == view

        # The log and the streams carry commands as they were sent: a command may only name
        # cards that every viewer sees before it or along the way (after one of its events).
        named = [text for text in string_leaves(codec.encode(cmd)) if is_card_text(text)]
        for v in viewers(seats) if named else []:
            shown = cards_shown(game, [state, *along], v)
            for text in named:
                assert text in shown, f"{game.name}: {cmd!r} names {text}, hidden from {v}"

        now += delay
        match.submit(seat, cmd, now)
        assert match.state == s_
        states.append(match.state)
        held.append(fields(match.state))

    # Replay of the log equals the live state after every entry, and the log verifies.
    # (``game=``: cardcore.log would look the game up by name, and War is not registered.)
    assert match.writer is not None
    replayed = [step.state for step in log.replay(match.writer.lines, seed=seed, game=game)]
    assert replayed == states
    # A state once made never changes (a native game's evolve writes only the copy it returns):
    # what Match.checkpoint and every holder of a state count on.
    assert [fields(s) for s in states] == held
    report = log.verify(match.writer.lines, game=game)
    assert report.entries == match.seq


@game_param
def test_seeded_bot_games_end(game: AnyGame) -> None:
    for seats in range(game.info.min_seats, game.info.max_seats + 1):
        for seed in range(3):
            match = Match(game, default_setup(game, seats, seed), record=False)
            result = play_out(match, seat_bots("reaction", seats, seed))
            assert not result.stalled, f"{game.name} {seats} seats seed {seed} stalled"
            assert match.outcome is not None
            assert match.outcome.termination is not Termination.EVENT_LIMIT, (
                f"{game.name} {seats} seats seed {seed} hit the event limit"
            )


@game_param
def test_full_game_log_verifies_and_redacts(game: AnyGame) -> None:
    seats = game.info.min_seats
    setup = game.make_setup(seats, 2024)
    match = Match(game, setup)
    play_out(match, seat_bots("reaction", seats, 2024))
    assert match.writer is not None
    lines = match.writer.lines
    report = log.verify(lines, game=game)
    assert report.revealed and report.outcome == match.outcome
    # Before the end a player's download has no seed and matches its redacted events.
    partial = lines[:-1]
    for v in viewers(seats):
        red = log.redact_log(partial, v, game=game)
        text = log.dumps(red).decode()
        assert '"seed"' not in text and '"salt"' not in text
        for line, orig in zip(red[1:], partial[1:], strict=True):
            assert line["hash"] == orig["hash"]
            assert line["events"] == [
                codec.encode(game.redact(game.decode_event(e), v)) for e in orig["events"]
            ]
    assert log.redact_log(lines, 0, game=game) == lines  # after the end, everything is public


@game_param
def test_catalogue_and_schemas(game: AnyGame) -> None:
    assert game.info.rules_version
    for cls in (*game.command_types, *game.event_types, game.view_type):
        schema = codec.json_schema(cls)
        assert schema["properties"]["kind"] == {"const": cls.__name__}
    with pytest.raises(Exception, match="seats"):
        game.make_setup(game.info.max_seats + 1, 1)
    with pytest.raises(Exception, match=r"rules\.no_such_flag"):
        game.make_setup(game.info.min_seats, 1, {"no_such_flag": 1})


# --------------------------------------------------------------------------- rule flags


@game_param
def test_rules_refuse_invalid_flag_values(game: AnyGame) -> None:
    """``Rules(...)`` built directly refuses what make_setup refuses (engine.check_rules), for
    every flag and every kind of mistake its schema allows to produce."""
    for f in rule_flags(game.rules_type):
        for value in invalid_values(f):
            with pytest.raises(InvalidSetup) as direct:
                game.rules_type(**{f.name: value})
            assert direct.value.field.startswith(f"rules.{f.name}"), direct.value
            as_json = sorted(value) if isinstance(value, frozenset) else value
            with pytest.raises(InvalidSetup) as parsed:
                game.make_setup(game.info.min_seats, 1, {f.name: as_json})
            assert parsed.value.field.startswith(f"rules.{f.name}"), parsed.value


@game_param
def test_drawn_rules_are_the_declared_flags(game: AnyGame) -> None:
    """The variant strategy is not vacuous: it can draw a non-default value of every flag whose
    kind it knows (so the contract runs under variants, not only the defaults)."""
    drawn = 0
    for f in rule_flags(game.rules_type):
        values = flag_strategy(dict(cast(dict[str, Any], f.schema)))
        if values is not None:
            other = functools.partial(
                lambda d, v: codec.canonical_text(v) != d, codec.canonical_text(f.default)
            )
            find(values, other)  # raises NoSuchExample if only the default can be drawn
            drawn += 1
    assert drawn, f"{game.name}: no flag can be drawn"


# --------------------------------------------------------------------------- shuffle_hidden

SHUFFLE_SEEDS = 4
SHUFFLE_STEPS = 80
MIN_MOVED_SHARE = 0.5
"""A correct shuffle leaves the hidden cards of a place set in place with probability at most
1/2 (two distinct cards) and far less with more: the games measure above 0.9. An identity
shuffle scores 0, so 0.5 fails it with a wide margin either way."""


def hidden_places(game: AnyGame, state: Any, viewer: Viewer) -> dict[str, str]:
    """Where ``viewer``'s view shows ``??``, the card the referee's view shows there."""
    seen = flatten(codec.encode(game.view(state, viewer)))
    truth = flatten(codec.encode(game.view(state, Role.REFEREE)))
    return {
        path: truth[path]
        for path, text in seen.items()
        if text == "??" and isinstance(truth.get(path), str) and is_card_text(truth[path])
    }


def shuffle_share(game: AnyGame) -> tuple[int, int]:
    """``(eligible, moved)`` over states of random bot games: a (state, viewer) is eligible
    when the viewer has two or more hidden places holding different cards; moved when
    shuffle_hidden put a different card in at least one of them."""
    eligible = moved = 0
    seat_counts = range(game.info.min_seats, game.info.max_seats + 1)
    for seed in range(SHUFFLE_SEEDS):
        seats = seat_counts[seed % len(seat_counts)]
        rng = Rng(seed, 77)
        for state in bot_states(game, default_setup(game, seats, seed), "random", SHUFFLE_STEPS, 4):
            for v in viewers(seats):
                places = hidden_places(game, state, v)
                if len(set(places.values())) < 2:
                    continue
                eligible += 1
                after = hidden_places(game, game.shuffle_hidden(state, v, rng), v)
                moved += after != places
    return eligible, moved


def check_shuffle_moves_cards(game: AnyGame) -> None:
    eligible, moved = shuffle_share(game)
    assert eligible >= 20, f"{game.name}: only {eligible} states with hidden cards to shuffle"
    assert moved >= MIN_MOVED_SHARE * eligible, (
        f"{game.name}: shuffle_hidden moved hidden cards in only {moved} of {eligible} states "
        "(the no-leak checks pass vacuously if it leaves them in place)"
    )


@game_param
def test_shuffle_hidden_moves_hidden_cards(game: AnyGame) -> None:
    check_shuffle_moves_cards(game)


@game_param
def test_identity_shuffle_hidden_is_caught(game: AnyGame) -> None:
    """The check above can fail: a game whose shuffle_hidden returns the state as it is."""
    lazy = dataclasses.replace(game, shuffle_hidden=lambda s, v, r: s)
    with pytest.raises(AssertionError, match="moved hidden cards in only 0 of"):
        check_shuffle_moves_cards(lazy)


# --------------------------------------------------------------------------- positions


def position_hooks(game: AnyGame) -> tuple[Any, Any, Any]:
    check, fmt, parse = game.check_position, game.format_position, game.parse_position
    assert check is not None and fmt is not None and parse is not None, (
        f"{game.name} lacks check_position / format_position / parse_position (issue 10)"
    )
    return check, fmt, parse


@game_param
def test_position_hooks_exist(game: AnyGame) -> None:
    position_hooks(game)


def same_position(game: AnyGame, a: Any, b: Any) -> bool:
    """Equal but for the seed and event limit, which a notation does not carry."""
    return bool(
        a.setup.seats == b.setup.seats
        and a.setup.rules == b.setup.rules
        and a._replace(setup=b.setup) == b
    )


@game_param
@settings(max_examples=8)  # each example checks a whole bot game's positions
@given(data=st.data())
def test_notation_round_trips(game: AnyGame, data: st.DataObject) -> None:
    check, fmt, parse = position_hooks(game)
    seats = data.draw(seats_for(game), label="seats")
    seed = data.draw(st.integers(0, MAX_SEED), label="seed")
    rules = data.draw(rules_for(game), label="rules")
    setup = setup_or_skip(game, seats, seed, rules)
    shuffler = Rng(seed, 98)
    for state in bot_states(game, setup, "random", 60, every=3):
        check(state)  # a position a game reached is a position
        text = fmt(state, Role.REFEREE)
        assert "\n" not in text and text.isascii() and text.split(" ")[0] == game.name
        back = parse(text, setup.rules)
        assert same_position(game, state, back), f"{game.name}: {text} parses to another state"
        assert fmt(back, Role.REFEREE) == text
        for v in viewers(seats):
            shown = fmt(state, v)
            # A viewer's notation is no leak either: blind to the cards it may not see.
            assert shown == fmt(game.shuffle_hidden(state, v, shuffler), v), (
                f"{game.name}: the notation for {v} depends on cards it cannot see"
            )
            if "??" in shown:
                with pytest.raises(InvalidPosition):
                    parse(shown, setup.rules)
        with pytest.raises(InvalidPosition):
            parse(text + " -", setup.rules)  # one field too many
    with pytest.raises(InvalidPosition):
        parse(f"not{game.name}", None)


@game_param
def test_match_from_position_continues_and_verifies(game: AnyGame) -> None:
    """A mid-game position starts a new match (a new seed for any later shuffle) whose log
    replays to the live states and verifies, ending at the game's end or the event limit."""
    position_hooks(game)
    seats = game.info.min_seats
    states = bot_states(game, game.make_setup(seats, 7), "random", 40)
    assert len(states) > 20, f"{game.name}: the bot game ended before a mid-game position"
    mid = states[-1]
    match = Match.from_position(game, mid, seed=8, event_limit=300)
    bots = seat_bots("random", seats, 8)
    live = [match.state]
    now: int | None = 0
    while match.outcome is None and now is not None:
        now = bot_step(match, bots, now)
        live.append(match.state)
    assert match.outcome is not None, f"{game.name}: the bots stalled"
    assert match.writer is not None
    lines = match.writer.lines
    assert game.format_position is not None  # for mypy: position_hooks checked it
    assert lines[0]["position"] == game.format_position(mid, Role.REFEREE)
    replayed = [step.state for step in log.replay(lines, game=game)]
    report = log.verify(lines, game=game)
    assert all(same_position(game, a, b) for a, b in zip(replayed, live, strict=True))
    assert report.revealed and report.outcome == match.outcome and report.entries == match.seq


# --------------------------------------------------------------------------- leaving

LEFT_CODES = frozenset({"GameOver", "PlayerEliminated", "PlayerFinished"})
"""What a seat that may not resign (docs/games/common.md#leaving-a-game) is told."""


def _may_resign(match: Match[Any, Any, Any, Any, Any], seat: int) -> bool:
    """Whether ``seat`` is still in the game (its resignation would be accepted)."""
    from cardcore.kit import Resign

    try:
        match.check(seat, Resign())
    except Rejected:
        return False
    return True


@game_param
@settings(max_examples=30)
@given(data=st.data())
def test_any_seat_may_resign_at_any_point(game: AnyGame, data: st.DataObject) -> None:
    """docs/games/common.md#resign for every game: ``kit.Resign`` is a command of it, never
    offered by ``legal_commands`` (bots must not resign by chance); at any point a seat still in
    the game may resign — the cards are conserved after every event, two left means the game ends
    with the other the only winner (``RESIGNED``; in Palace, whose winners are a finishing order,
    the last of them after any who went out before, the resigner among the losers); a seat that
    is out is refused with the usual code and nothing changes; the game then plays to its end and
    the log verifies and replays."""
    from cardcore.kit import Resign

    assert Resign in game.command_types, f"{game.name} has no Resign"
    seats = data.draw(seats_for(game), label="seats")
    seed = data.draw(st.integers(0, MAX_SEED), label="seed")
    setup = setup_or_skip(game, seats, seed, data.draw(rules_for(game), label="rules"))
    match = Match(game, setup)
    deck = Counter(game.deck(setup))
    bots = seat_bots("reaction", seats, seed)
    now = 0
    resigns = data.draw(st.lists(st.integers(0, 60), max_size=seats), label="resign at")
    for step in range(STEPS):
        if match.outcome is not None:
            break
        for s in range(seats):
            assert not any(isinstance(c, Resign) for c in match.legal_commands(s))
        if step in resigns:
            seat = data.draw(st.integers(0, seats - 1), label="resigner")
            by = data.draw(st.sampled_from([None, "timer"]), label="by")
            state, seq = match.state, match.seq
            try:
                events = match.check(seat, Resign(by))
            except Rejected as exc:
                assert exc.code.value in LEFT_CODES, exc
                assert match.state is state and match.seq == seq
            else:
                for after in states_along(game, state, events):
                    assert Counter(game.cards_in_play(after)) == deck
                left = sum(1 for s in range(seats) if _may_resign(match, s))
                match.submit(seat, Resign(by), now)
                if match.outcome is not None and left > 2:
                    # The resigner was eliminated and the game's own rules ended it (Slapjack's
                    # slap_in_unlimited: the last holder of cards now holds every card).
                    assert seat not in match.outcome.winners
                    break
                if match.outcome is not None:
                    outcome = match.outcome
                    assert outcome.termination is Termination.RESIGNED
                    assert seat not in outcome.winners
                    if outcome.losers:  # Palace: winners are a finishing order, ranked above
                        assert seat in outcome.losers  # every loser, the resigner among them
                    else:
                        assert len(outcome.winners) == 1
                    break
                with pytest.raises(Rejected) as again:
                    match.check(seat, Resign())
                assert again.value.code.value in LEFT_CODES
                continue
        moves = [(p[0], b.seat, p[1]) for b in bots if (p := ask(b, game, match.state))]
        if not moves:
            break
        delay, seat, cmd = min(moves, key=lambda m: (m[0], m[1]))
        now += delay
        match.submit(seat, cmd, now)
    assert match.writer is not None
    report = log.verify(match.writer.lines, game=game)
    assert report.entries == match.seq
    assert [s.state for s in log.replay(match.writer.lines, seed=seed, game=game)][-1] == (
        match.state
    )
