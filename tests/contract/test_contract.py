"""The contract every registered game must honour (design.md §5), checked with Hypothesis.

Each example deals a seeded game and lets seeded bots (sensible ones that sometimes blunder, or
uniformly random ones) play a stretch of it through the sequencer; at every step it checks:

* replay of the recorded log equals the live state, step by step;
* the multiset of cards is conserved after every single event;
* every command ``legal_commands`` offers any seat is accepted by ``decide``;
* every rejected command changes nothing (state, sequence number, log);
* each viewer's view is byte-identical when the cards it cannot see are reshuffled, and the
  redacted events differ between the two worlds only where the viewer's next view differs too,
  and then only in cards that view shows;
* commands, events and views round-trip through the canonical JSON codec.

Separately, seeded bot games end at every seat count.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from cardcore import codec, log
from cardcore.bots import play_out, seat_bots
from cardcore.engine import Game, Role, Termination, Viewer
from cardcore.errors import InvalidSetup, Rejected
from cardcore.match import Match
from cardcore.registry import GAMES
from cardcore.rng import MAX_SEED, Rng

AnyGame = Game[Any, Any, Any, Any, Any]
STEPS = 120

game_param = pytest.mark.parametrize("game", GAMES, ids=[g.name for g in GAMES])


def seats_for(game: AnyGame) -> st.SearchStrategy[int]:
    return st.integers(game.info.min_seats, game.info.max_seats)


def viewers(seats: int) -> list[Viewer]:
    return [*range(seats), Role.SPECTATOR]


def flatten(value: Any, path: str = "") -> dict[str, Any]:
    """JSON leaves by path, for telling where two encodings differ."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            out.update(flatten(v, f"{path}.{k}"))
        return out
    if isinstance(value, list):
        out = {f"{path}#len": len(value)}
        for i, v in enumerate(value):
            out.update(flatten(v, f"{path}[{i}]"))
        return out
    return {path: value}


def visible_cards(game: AnyGame, state: Any, viewer: Viewer) -> Counter[str]:
    """Every card string the viewer's view shows."""
    leaves = flatten(codec.encode(game.view(state, viewer)))
    return Counter(v for v in leaves.values() if isinstance(v, str) and is_card_text(v))


def is_card_text(text: str) -> bool:
    try:
        codec.decode(codec.Card, text)
    except codec.DecodeError:
        return False
    return True


def evolve_all(game: AnyGame, state: Any, events: Any) -> Any:
    for e in events:
        state = game.evolve(state, e)
    return state


def check_redaction(
    game: AnyGame, state: Any, alt: Any, events: Any, alt_events: Any, viewer: Viewer
) -> None:
    """The no-leak property of events: differences only where the viewer's next view differs."""
    red = [codec.encode(game.redact(e, viewer)) for e in events]
    alt_red = [codec.encode(game.redact(e, viewer)) for e in alt_events]
    if red == alt_red:
        return
    after, alt_after = evolve_all(game, state, events), evolve_all(game, alt, alt_events)
    view_bytes = codec.canonical_bytes(codec.encode(game.view(after, viewer)))
    alt_view_bytes = codec.canonical_bytes(codec.encode(game.view(alt_after, viewer)))
    assert view_bytes != alt_view_bytes, (
        f"{game.name}: redacted events for {viewer} depend on hidden cards although the next "
        f"view does not:\n{red}\n{alt_red}"
    )
    a, b = flatten(red), flatten(alt_red)
    if a.keys() != b.keys():
        return  # different structure: the outcome itself depended on a card now revealed
    shown, alt_shown = visible_cards(game, after, viewer), visible_cards(game, alt_after, viewer)
    for path in a:
        # Counts and turns may follow from a revealed card; a card itself must be on show.
        if a[path] != b[path] and isinstance(a[path], str) and is_card_text(a[path]):
            assert a[path] in shown and b[path] in alt_shown, (
                f"{game.name}: {viewer} is told {a[path]} / {b[path]} at {path}, which its view "
                "does not show"
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
    try:
        setup = game.make_setup(seats, seed)
    except InvalidSetup:
        assume(False)  # e.g. 6+ seats of Palace need a second deck
    match = Match(game, setup)
    full_deck = Counter(game.deck(setup))
    bots = seat_bots(kind, seats, seed)
    shuffler = Rng(seed, 99)
    states = [match.state]

    # The deal: redacted deal events obey the same no-leak rule against another seed's deal.
    other = game.make_setup(seats, (seed + 1) % (MAX_SEED + 1))
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
        proposals = [(b.propose(game, state), b.seat) for b in bots]
        moves = [(p[0], seat, p[1]) for p, seat in proposals if p is not None]
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
        s_ = state
        for e in events:
            s_ = game.evolve(s_, e)
            assert Counter(game.cards_in_play(s_)) == full_deck, f"after {e!r}"
            assert game.decode_event(codec.encode(e)) == e
        assert game.decode_command(codec.encode(cmd)) == cmd
        for v in [*viewers(seats), Role.REFEREE]:
            view = game.view(s_, v)
            assert codec.decode(game.view_type, codec.encode(view)) == view

        # The log and the streams carry commands as they were sent: a command may only name
        # cards that every viewer sees before or after it.
        named = [v for v in flatten(codec.encode(cmd)).values() if isinstance(v, str)]
        for v in viewers(seats):
            shown = visible_cards(game, state, v) + visible_cards(game, s_, v)
            for text in named:
                if is_card_text(text):
                    assert text in shown, f"{game.name}: {cmd!r} names {text}, hidden from {v}"

        now += delay
        match.submit(seat, cmd, now)
        assert match.state == s_
        states.append(match.state)

    # Replay of the log equals the live state after every entry, and the log verifies.
    assert match.writer is not None
    replayed = [step.state for step in log.replay(match.writer.lines, seed=seed)]
    assert replayed == states
    report = log.verify(match.writer.lines)
    assert report.entries == match.seq


@game_param
def test_seeded_bot_games_end(game: AnyGame) -> None:
    for seats in range(game.info.min_seats, game.info.max_seats + 1):
        for seed in range(3):
            try:
                setup = game.make_setup(seats, seed)
            except InvalidSetup:
                setup = game.make_setup(seats, seed, {"num_decks": 2})  # more seats, more decks
            match = Match(game, setup, record=False)
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
    report = log.verify(lines)
    assert report.revealed and report.outcome == match.outcome
    # Before the end a player's download has no seed and matches its redacted events.
    partial = lines[:-1]
    for v in viewers(seats):
        red = log.redact_log(partial, v)
        text = log.dumps(red).decode()
        assert '"seed"' not in text and '"salt"' not in text
        for line, orig in zip(red[1:], partial[1:], strict=True):
            assert line["hash"] == orig["hash"]
            assert line["events"] == [
                codec.encode(game.redact(game.decode_event(e), v)) for e in orig["events"]
            ]
    assert log.redact_log(lines, 0) == lines  # after the end, everything is public


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
