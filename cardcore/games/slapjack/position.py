"""Slapjack's positions (docs/games/common.md#positions): :func:`position` builds one from explicit
cards, :func:`check_position` refuses what no game could reach, and the one-line notation
(docs/notation/slapjack.md) is :func:`format_position` / :func:`parse_position`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ... import kit
from ... import notation as nt
from ...cards import HIDDEN, Card, SeenCard
from ...engine import Role, Setup, Viewer, seats_phrase
from ...errors import InvalidPosition
from .declarations import Rules
from .rules import MAX_SEATS, MIN_SEATS, NAME, ZONES, State, deck, outcome


def position(
    stacks: Sequence[Sequence[Card]],
    *,
    rules: Rules | None = None,
    pile: Sequence[Card] = (),
    played_by: Sequence[int] | None = None,
    current: int | None = 0,
    eliminated: Sequence[int] = (),
    epoch: int = 0,
    shuffles: int | None = None,
    burned: Sequence[Card] = (),
    seed: int = 0,
    allow_over: bool = False,
) -> State:
    """A position from explicit cards, for tests and analysis (docs/games/common.md#positions),
    checked by :func:`check_position` (:class:`~cardcore.errors.InvalidPosition`; a finished
    game only with ``allow_over``). ``played_by`` defaults to seat 0 for every pile card;
    ``shuffles`` to what a game reaches at this ``epoch``: one shuffle per pile taken when
    ``shuffle_after_win``, else none. ``burned``: resigners' cards under the pile, bottom→top."""
    rules = rules or Rules()
    by = tuple(played_by) if played_by is not None else tuple(0 for _ in pile)
    if shuffles is None:
        shuffles = epoch if rules.shuffle_after_win else 0
    # The empty table, then the fields given: a field of the wrong type is InvalidPosition
    # naming it in both builds (State._replace), where the compiled State refuses it with a
    # TypeError.
    state = State(Setup(seats=len(stacks), seed=seed, rules=rules), ())._replace(
        stacks=tuple(tuple(s) for s in stacks),
        pile=tuple(pile),
        played_by=by,
        epoch=epoch,
        current=current,
        eliminated=frozenset(eliminated),
        shuffles=shuffles,
        burned=tuple(burned),
    )
    check_position(state, allow_over=allow_over)
    return state


# --------------------------------------------------------------------------- position check


def _check_count(value: object, field: str) -> None:
    if type(value) is not int or value < 0:
        raise InvalidPosition(field, f"must be a non-negative int, got {value!r:.40}")


def check_position(state: State, *, allow_over: bool = False) -> None:
    """Raise :class:`InvalidPosition` naming the field at fault unless a Slapjack game could
    reach ``state`` (a finished one only with ``allow_over``). What the rules
    (docs/games/slapjack.md) guarantee:

    * every card comes from the setup's decks, none more often than they hold it (fewer is
      fine: a small hand-written position); ``played_by`` names one seat per pile card;
    * an eliminated player holds no card: only an empty hand is eliminated, and nobody ever
      gives one a card (docs/games/slapjack.md#slapping); at least one player is still in (the game
      ends at one);
    * ``current`` is a player in the game who holds a card (step 3, ``TurnPassed`` and
      ``Resigned`` pick a holder, and nothing else takes a card from them), or None exactly when
      nobody holds a card and a target waits on top of the pile to be slapped (step 3) — so a
      position always holds a card;
    * burned cards lie under the pile only after a resignation
      (docs/games/common.md#leaving-a-game), so some seat is eliminated; ``resigned`` is None, or an
      eliminated seat and the game is over;
    * ``shuffles`` counts one shuffle per pile taken (``epoch``) under ``shuffle_after_win``,
      none otherwise;
    * the game is not over (:func:`outcome`).
    """
    _check_zones(state)
    eliminated = state.eliminated
    if state.resigned is not None:
        nt.check_seat_field(state.resigned, state.setup.seats, "resigned")
        if state.resigned not in eliminated or len(eliminated) != state.setup.seats - 1:
            raise InvalidPosition(
                "resigned",
                "names the eliminated seat that ended the game with two left "
                "(docs/games/slapjack.md#leaving)",
            )
        if not allow_over:
            raise InvalidPosition("resigned", "the game is already over")
        return  # the game ended with the resignation: there is no next turn to check
    _check_current(state)
    if not allow_over and outcome(state) is not None:
        field = "eliminated" if len(eliminated) >= state.setup.seats - 1 else "stacks"
        raise InvalidPosition(field, "the game is already over")


def _check_zones(state: State) -> None:
    """The setup, the zones' types, conservation, ``played_by``, the counts and who is out."""
    setup = state.setup
    if not isinstance(setup, Setup) or not isinstance(setup.rules, Rules):
        raise InvalidPosition("setup", f"not a Slapjack setup: {setup!r:.60}")
    n = setup.seats
    if type(n) is not int or not MIN_SEATS <= n <= MAX_SEATS:
        raise InvalidPosition(
            "setup", f"Slapjack takes {seats_phrase(MIN_SEATS, MAX_SEATS)}, got {n!r}"
        )
    stacks = state.stacks
    if type(stacks) is not tuple or len(stacks) != n:
        raise InvalidPosition("stacks", f"must be a tuple of one stack per seat ({n})")
    for q, stack in enumerate(stacks):
        if type(stack) is not tuple:
            raise InvalidPosition(f"stacks[{q}]", "must be a tuple of cards")
    pile = state.pile
    if type(pile) is not tuple:
        raise InvalidPosition("pile", "must be a tuple of cards")
    if type(state.burned) is not tuple:
        raise InvalidPosition("burned", "must be a tuple of cards")
    ZONES.check_cards(state, deck(setup))  # names the zone a card is one too many in
    played_by = state.played_by
    if type(played_by) is not tuple or len(played_by) != len(pile):
        raise InvalidPosition(
            "played_by", f"must name one seat per pile card ({len(pile)}), got {played_by!r:.40}"
        )
    for i, q in enumerate(played_by):
        nt.check_seat_field(q, n, f"played_by[{i}]")
    _check_count(state.epoch, "epoch")
    _check_count(state.shuffles, "shuffles")
    expected = state.epoch if setup.rules.shuffle_after_win else 0
    if state.shuffles != expected:
        raise InvalidPosition(
            "shuffles",
            f"must be {expected}: one shuffle per pile taken (epoch {state.epoch}) "
            f"when shuffle_after_win={setup.rules.shuffle_after_win}",
        )
    _check_out(state)


def _check_out(state: State) -> None:
    """Who is eliminated: nobody holding a card, not everybody, and some seat when cards are
    burned."""
    n, eliminated = state.setup.seats, state.eliminated
    if type(eliminated) is not frozenset:
        raise InvalidPosition("eliminated", "must be a frozenset of seats")
    for q in sorted(eliminated, key=repr):
        nt.check_seat_field(q, n, "eliminated")
        if state.stacks[q]:
            raise InvalidPosition(f"stacks[{q}]", f"seat {q} is eliminated but holds cards")
    if len(eliminated) == n:
        raise InvalidPosition("eliminated", "every seat is eliminated; the game ends at one")
    if state.burned and not eliminated:
        raise InvalidPosition(
            "burned",
            "only a resigner's cards are burned, and none resigned "
            "(docs/games/slapjack.md#leaving)",
        )


def _check_current(state: State) -> None:
    """``current`` holds a card and is in the game, or is None while nobody holds a card and a
    target waits on the pile (docs/games/slapjack.md#playing-a-card)."""
    current, stacks = state.current, state.stacks
    if current is None:
        if any(stacks):
            raise InvalidPosition(
                "current",
                "is none only while nobody holds a card (docs/games/slapjack.md#playing-a-card)",
            )
        if state.target is None:
            raise InvalidPosition(
                "current",
                "is none only while a target waits on the pile to be slapped "
                "(docs/games/slapjack.md#playing-a-card)",
            )
    else:
        nt.check_seat_field(current, state.setup.seats, "current")
        if current in state.eliminated:
            raise InvalidPosition("current", f"seat {current} is eliminated")
        if not stacks[current]:
            raise InvalidPosition(
                "current",
                f"seat {current} holds no card to play (docs/games/slapjack.md#playing-a-card)",
            )


# --------------------------------------------------------------------------- notation

_FIELDS: Final = ("stacks", "pile", "played_by", "epoch", "current", "eliminated", "shuffles")
"""The fields of the notation, in order (docs/notation/slapjack.md)."""
_BURNED_FIELDS: Final = (*_FIELDS, "burned")
"""With the optional last field: written only when burned cards lie under the pile, so every
other position reads as it did before rules version 2 added resigning
(docs/games/common.md#leaving-a-game)."""


@kit.viewed
def format_position(state: State, viewer: Viewer) -> str:
    """``state`` in one line (docs/notation/slapjack.md). Every stack card and burned card is
    ``??`` but to the referee, exactly as :func:`view` hides them; the pile's played cards are
    face up to everyone. The ``burned`` field is written only when a card is burned."""
    burned: tuple[SeenCard, ...] = state.burned
    if viewer == Role.REFEREE:
        stacks = nt.per_seat_text(state.stacks, nt.cards_text)
    else:
        stacks = nt.per_seat_text(state.stacks, lambda s: nt.cards_text((HIDDEN,) * len(s)))
        burned = (HIDDEN,) * len(burned)
    fields = [
        stacks,
        nt.cards_text(state.pile),
        ",".join(map(str, state.played_by)) or nt.EMPTY,
        nt.int_text(state.epoch),
        nt.int_text(state.current),
        nt.seats_text(state.eliminated),
        nt.int_text(state.shuffles),
    ]
    if burned:
        fields.append(nt.cards_text(burned))
    return nt.join(NAME, fields, state.setup.rules)


def parse_position(text: str, rules: Rules | None = None) -> State:
    """The position a referee's notation ``text`` describes, under ``rules`` (default rules when
    None), with ``Setup(seats, seed 0, rules)``; checked by :func:`check_position` (a finished
    game is refused). The eighth field, ``burned``, is there only when cards are burned, so a
    text of rules version 1 reads as it always did. Raises :class:`InvalidPosition` naming the
    field at fault. The rules are the text's own when it carries them (they must then be
    ``rules``, if given)."""
    text, position_rules = nt.read_rules(text, NAME, Rules, rules)
    # Seven fields, or eight with burned cards; counted only on what nt.split will read.
    short = isinstance(text, str) and len(text) <= nt.MAX_NOTATION
    parts = text.strip().split(" ") if short else []
    optional = len(parts) == 1 + len(_BURNED_FIELDS) and all(parts)  # not a double space
    fields = nt.split(text, NAME, _BURNED_FIELDS if optional else _FIELDS)
    stacks = nt.parse_per_seat(fields[0], "stacks", nt.parse_cards)
    n = len(stacks)
    if not MIN_SEATS <= n <= MAX_SEATS:
        raise InvalidPosition(
            "stacks", f"Slapjack takes {seats_phrase(MIN_SEATS, MAX_SEATS)}, got {n}"
        )
    pile = nt.parse_cards(fields[1], "pile")
    by_text = fields[2]
    played_by = (
        ()
        if by_text == nt.EMPTY
        else tuple(
            nt.parse_int(t, f"played_by[{i}]", hi=n - 1) for i, t in enumerate(by_text.split(","))
        )
    )
    state = State(
        setup=Setup(n, 0, position_rules),
        stacks=stacks,
        pile=pile,
        played_by=played_by,
        epoch=nt.parse_int(fields[3], "epoch"),
        current=nt.parse_opt_int(fields[4], "current", hi=n - 1),
        eliminated=nt.parse_seats(fields[5], "eliminated", n),
        shuffles=nt.parse_int(fields[6], "shuffles"),
        burned=_parse_burned(fields[7]) if optional else (),
    )
    check_position(state)
    return state


def _parse_burned(text: str) -> tuple[Card, ...]:
    if text == nt.EMPTY:  # one spelling per position: no burned cards, no field
        raise InvalidPosition("burned", "is left out when no card is burned, never written '-'")
    return nt.parse_cards(text, "burned")
