"""Egyptian Ratscrew's positions (docs/games/common.md#positions): :func:`position` builds one from
explicit cards, :func:`check_position` refuses what no game could reach, and the one-line notation
(docs/notation/ratscrew.md) is :func:`format_position` / :func:`parse_position`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Final

from ... import kit
from ... import notation as nt
from ...cards import HIDDEN, Card
from ...engine import Role, Setup, Termination, Viewer, seats_phrase
from ...errors import InvalidPosition
from .declarations import Rules
from .rules import (
    MAX_SEATS,
    MIN_SEATS,
    NAME,
    ZONES,
    State,
    _challenge_count,
    deck,
    outcome,
)


def position(
    stacks: Sequence[Sequence[Card]],
    *,
    rules: Rules | None = None,
    played: Sequence[Card] = (),
    played_by: Sequence[int] | None = None,
    burned: Sequence[Card] = (),
    current: int | None = 0,
    challenge: tuple[int, int] | None = None,
    owed_to: int | None = None,
    eliminated: Sequence[int] = (),
    resigned: Sequence[int] = (),
    epoch: int = 0,
    allow_over: bool = False,
) -> State:
    """A position from explicit cards, for tests and analysis (docs/games/common.md#positions),
    checked by :func:`check_position` (a finished game only with ``allow_over``).
    ``played_by`` defaults to seat 0 for every played card."""
    by = tuple(played_by) if played_by is not None else tuple(0 for _ in played)
    # The empty table, then the fields given: a field of the wrong type is InvalidPosition
    # naming it in both builds (State._replace), where the compiled State refuses it with a
    # TypeError.
    state = State(Setup(seats=len(stacks), seed=0, rules=rules or Rules()), ())._replace(
        stacks=tuple(tuple(s) for s in stacks),
        played=tuple(played),
        played_by=by,
        burned=tuple(burned),
        epoch=epoch,
        current=current,
        challenge=challenge,
        owed_to=owed_to,
        eliminated=frozenset(eliminated),
        resigned=frozenset(resigned),
    )
    check_position(state, allow_over=allow_over)
    return state


# --------------------------------------------------------------------------- the position check

NOTATION_FIELDS: Final = (
    "stacks",
    "played",
    "played_by",
    "burned",
    "epoch",
    "current",
    "challenge",
    "owed_to",
    "eliminated",
    "resigned",
)
"""The fields of the notation after the game's name, in order (docs/notation/ratscrew.md). The
last, ``resigned``, is written only when a seat has resigned (docs/games/common.md#leaving-a-game):
a position without one has the nine fields it had under rules version 1."""


def check_position(state: State, *, allow_over: bool = False) -> None:
    """Raise :class:`InvalidPosition` naming the field of ``state`` at fault when no ERS game
    could reach it. Each check is a guarantee that ``decide``/``evolve`` keep between actions:

    * every card comes from the setup's decks, none more often than they hold it
      (docs/games/common.md#conservation);
    * ``played_by`` names one seat per played card; burned cards only go under a played card
      (a false slap needs one), so a pile of burned cards alone exists only after a seat
      resigned (its stack went under the pile, docs/games/common.md#leaving-a-game);
    * an eliminated seat holds no card (it was out for a false slap at 0 cards or resigned,
      and no card is ever given to an eliminated seat), not every seat is out, and nobody is out
      but by resigning when no rule eliminates (``slap_in`` with
      ``zero_card_false_slap="ignore"``); under ``slap_in=False`` a seat at 0 cards is out
      unless it is owed the pile or is the challenger (docs/games/ratscrew.md#running-out-of-cards);
    * a resigned seat is eliminated, but for at most one of the last two in the game, whose
      resignation ended it (``GameResigned``, docs/games/common.md#leaving-a-game);
    * an owed pile (``owed_to``): nobody is to play and no challenge runs (``PileOwed``), the
      collector is not eliminated (docs/games/ratscrew.md#decisions, item 15), the pile holds a
      played card (or, after a resignation, burned ones) and, under ``auto_collect``, it stays owed
      only when nobody holds a card (the one ``PileOwed`` not followed by a collect);
    * ``current`` is None only while the pile is owed or nobody holds a card; otherwise it is a
      seat in the game holding a card (empty-handed players are skipped,
      docs/games/ratscrew.md#setup);
    * a challenge ``(challenger, remaining)``: the challenger is in the game and not the one to
      play, the last royal on the pile is the challenger's, and ``remaining`` is its count less
      the cards played on it, at least 1 (at 0 the pile is owed);
    * the game is not over (``outcome``) unless ``allow_over``.
    """
    _check_zones(state)
    _check_out(state)
    _check_turn(state)
    over = outcome(state)
    stacks, challenge = state.stacks, state.challenge
    if over is None and not state.setup.rules.slap_in:
        claim = challenge[0] if challenge is not None else None
        for q, stack in enumerate(stacks):
            if not stack and q not in state.eliminated and q != claim and q != state.owed_to:
                raise InvalidPosition(
                    f"stacks[{q}]", f"seat {q} holds no card and no claim: out (slap_in off)"
                )
    if over is not None and not allow_over:
        field = _OVER_FIELDS.get(over.termination, "stacks")
        raise InvalidPosition(field, f"the game is already over ({over.termination})")


def _check_zones(state: State) -> None:
    """The setup, the zones' types, conservation, ``played_by``, ``burned`` and ``epoch``."""
    setup = state.setup
    if not isinstance(setup, Setup) or not isinstance(setup.rules, Rules):
        raise InvalidPosition("setup", "must be a Setup with ratscrew Rules")
    stacks = state.stacks
    if type(stacks) is not tuple or not MIN_SEATS <= len(stacks) <= MAX_SEATS:
        raise InvalidPosition("stacks", f"must be a tuple of {MIN_SEATS}..{MAX_SEATS} stacks")
    n = len(stacks)
    if setup.seats != n:
        raise InvalidPosition("stacks", f"{n} stacks for a {setup.seats}-seat setup")
    for i, stack in enumerate(stacks):
        if type(stack) is not tuple:
            raise InvalidPosition(f"stacks[{i}]", "must be a tuple of cards")
    played, by, burned = state.played, state.played_by, state.burned
    for name, value in (("played", played), ("played_by", by), ("burned", burned)):
        if type(value) is not tuple:
            raise InvalidPosition(name, "must be a tuple")
    _check_cards(state)
    if len(by) != len(played):
        raise InvalidPosition("played_by", f"{len(by)} seats for {len(played)} played cards")
    for i, q in enumerate(by):
        nt.check_seat_field(q, n, f"played_by[{i}]")
    if burned and not played and not state.resigned:
        raise InvalidPosition(
            "burned",
            "burned cards lie under a played card (a false slap: docs/games/ratscrew.md#slapping)",
        )
    if type(state.epoch) is not int or state.epoch < 0:
        raise InvalidPosition("epoch", f"must be a non-negative int, got {state.epoch!r:.40}")


def _check_out(state: State) -> None:
    """Who is eliminated and who resigned, and that they hold no card."""
    n, rules = len(state.stacks), state.setup.rules
    out = state.eliminated
    if type(out) is not frozenset:
        raise InvalidPosition("eliminated", "must be a frozenset of seats")
    for q in out:
        nt.check_seat_field(q, n, "eliminated")
    resigned = state.resigned
    if type(resigned) is not frozenset:
        raise InvalidPosition("resigned", "must be a frozenset of seats")
    for q in resigned:
        nt.check_seat_field(q, n, "resigned")
    if len(out) == n:
        raise InvalidPosition("eliminated", "every seat is eliminated")
    last = resigned - out
    if len(last) > 1 or (last and n - len(out) != 2):
        raise InvalidPosition(
            "resigned",
            "a resigner is eliminated, unless it was one of the last two "
            "(docs/games/ratscrew.md#leaving)",
        )
    if out - resigned and rules.slap_in and rules.zero_card_false_slap == "ignore":
        raise InvalidPosition("eliminated", "no rule eliminates anybody under these rules")
    for q in sorted(out):
        if state.stacks[q]:
            raise InvalidPosition(f"stacks[{q}]", f"seat {q} is eliminated: it holds no card")


def _check_turn(state: State) -> None:
    """``current``, ``owed_to`` and ``challenge`` agree with each other and with the cards."""
    stacks, n, out = state.stacks, len(state.stacks), state.eliminated
    current, challenge, owed = state.current, state.challenge, state.owed_to
    nt.check_seat_field(current, n, "current", optional=True)
    nt.check_seat_field(owed, n, "owed_to", optional=True)
    if challenge is not None:
        if type(challenge) is not tuple or len(challenge) != 2:
            raise InvalidPosition("challenge", "must be (challenger, remaining) or None")
        nt.check_seat_field(challenge[0], n, "challenge")
        if type(challenge[1]) is not int or challenge[1] < 1:
            raise InvalidPosition("challenge", f"remaining must be at least 1: {challenge!r:.40}")
    if owed is not None:
        if current is not None:
            raise InvalidPosition(
                "current", "nobody plays while the pile is owed (docs/games/ratscrew.md#collecting)"
            )
        if challenge is not None:
            raise InvalidPosition("challenge", "the challenge is over once the pile is owed")
        if owed in out:
            raise InvalidPosition(
                "owed_to", "an eliminated seat's claim lapses (docs/games/ratscrew.md#decisions)"
            )
        if not state.played and not (state.burned and state.resigned):
            raise InvalidPosition("owed_to", "an owed pile holds a played card")
        if state.setup.rules.auto_collect and any(stacks):
            raise InvalidPosition("owed_to", "under auto_collect an owed pile is taken at once")
    elif current is None:
        if not state.played or any(stacks):
            raise InvalidPosition(
                "current", "None only while the pile is owed or nobody holds a card"
            )
    elif current in out:
        raise InvalidPosition("current", f"seat {current} is eliminated")
    elif not stacks[current]:
        raise InvalidPosition("current", f"seat {current} holds no card: it would be skipped")
    if challenge is not None:
        _check_challenge(state, challenge)


_OVER_FIELDS: Final[Mapping[Termination, str]] = MappingProxyType(
    {Termination.LAST_STANDING: "eliminated", Termination.RESIGNED: "resigned"}
)
"""The field that says a game is over, by how it ended (else the stacks: one holds them all)."""


def _check_cards(state: State) -> None:
    """Conservation (docs/games/common.md#conservation), naming the first zone where a card is one
    too many."""
    ZONES.check_cards(state, deck(state.setup))


def _check_challenge(state: State, challenge: tuple[int, int]) -> None:
    challenger, remaining = challenge
    if challenger in state.eliminated:
        raise InvalidPosition(
            "challenge",
            "an eliminated challenger's claim lapses (docs/games/ratscrew.md#decisions)",
        )
    if state.current is None or state.current == challenger:
        raise InvalidPosition("challenge", "a challenge is answered by another seat, to play")
    rules = state.setup.rules
    played = state.played
    for j in range(len(played) - 1, -1, -1):
        count = _challenge_count(rules.challenge_counts, played[j])
        if count is not None:
            break
    else:
        raise InvalidPosition("challenge", "no royal on the pile")
    if state.played_by[j] != challenger:
        raise InvalidPosition(
            "challenge", f"the last royal {played[j]} is seat {state.played_by[j]}'s"
        )
    expected = count - (len(played) - 1 - j)
    if remaining != expected:
        raise InvalidPosition(
            "challenge", f"{played[j]} owes {count}, {len(played) - 1 - j} played: {expected} left"
        )


@kit.viewed
def format_position(state: State, viewer: Viewer) -> str:
    """The position in ERS notation (docs/notation/ratscrew.md). Every viewer but the referee
    sees stack and burned cards face down, as :func:`view` shows them: they are ``??``."""
    if viewer == Role.REFEREE:
        stacks = nt.per_seat_text(state.stacks, nt.cards_text)
        burned = nt.cards_text(state.burned)
    else:
        stacks = nt.per_seat_text(state.stacks, lambda s: nt.cards_text((HIDDEN,) * len(s)))
        burned = nt.cards_text((HIDDEN,) * len(state.burned))
    challenge = state.challenge
    return nt.join(
        NAME,
        (
            stacks,
            nt.cards_text(state.played),
            ",".join(str(q) for q in state.played_by) or nt.EMPTY,
            burned,
            str(state.epoch),
            nt.int_text(state.current),
            nt.EMPTY if challenge is None else f"{challenge[0]},{challenge[1]}",
            nt.int_text(state.owed_to),
            nt.seats_text(state.eliminated),
            *((nt.seats_text(state.resigned),) if state.resigned else ()),
        ),
        state.setup.rules,
    )


def parse_position(text: str, rules: Rules | None = None, *, allow_over: bool = False) -> State:
    """The position a referee's ERS notation describes, under ``rules`` (default rules when
    None), checked by :func:`check_position`; raises :class:`InvalidPosition`. The setup is
    rebuilt with the text's seats, seed 0 and the default event limit. Nine fields: nobody has
    resigned; the tenth, ``resigned``, is there only when a seat has (never as ``-``). The
    rules are the text's own when it carries them (they must then be ``rules``, if given)."""
    text, position_rules = nt.read_rules(text, NAME, Rules, rules)
    with_resigned = isinstance(text, str) and text.strip().count(" ") == len(NOTATION_FIELDS)
    fields = nt.split(text, NAME, NOTATION_FIELDS if with_resigned else NOTATION_FIELDS[:-1])
    resigned_t = fields.pop() if with_resigned else nt.EMPTY
    if with_resigned and resigned_t == nt.EMPTY:  # written only when a seat resigned
        raise InvalidPosition("notation", "an empty resigned field is left out: 9 fields")
    stacks_t, played_t, by_t, burned_t, epoch_t, current_t, challenge_t, owed_t, out_t = fields
    stacks = nt.parse_per_seat(stacks_t, "stacks", nt.parse_cards)
    n = len(stacks)
    if not MIN_SEATS <= n <= MAX_SEATS:
        raise InvalidPosition(
            "stacks", f"ratscrew takes {seats_phrase(MIN_SEATS, MAX_SEATS)}, got {n}"
        )
    by: tuple[int, ...] = ()
    if by_t != nt.EMPTY:
        by = tuple(nt.parse_int(t, "played_by", hi=n - 1) for t in by_t.split(","))
    challenge: tuple[int, int] | None = None
    if challenge_t != nt.EMPTY:
        parts = challenge_t.split(",")
        if len(parts) != 2:
            raise InvalidPosition(
                "challenge", f"must be challenger,remaining or -: {challenge_t[:20]!r}"
            )
        challenge = (
            nt.parse_int(parts[0], "challenge", hi=n - 1),
            nt.parse_int(parts[1], "challenge", lo=1),
        )
    state = State(
        setup=Setup(n, 0, position_rules),
        stacks=stacks,
        played=nt.parse_cards(played_t, "played"),
        played_by=by,
        burned=nt.parse_cards(burned_t, "burned"),
        epoch=nt.parse_int(epoch_t, "epoch"),
        current=nt.parse_opt_int(current_t, "current", hi=n - 1),
        challenge=challenge,
        owed_to=nt.parse_opt_int(owed_t, "owed_to", hi=n - 1),
        eliminated=nt.parse_seats(out_t, "eliminated", n),
        resigned=nt.parse_seats(resigned_t, "resigned", n),
    )
    check_position(state, allow_over=allow_over)
    return state
