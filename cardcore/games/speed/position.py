"""Speed's positions (docs/games/common.md#positions): :func:`position` builds one from explicit
cards, :func:`check_position` refuses what no game could reach, and the one-line notation
(docs/notation/speed.md) is :func:`format_position` / :func:`parse_position`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, TypeVar

from ...cards import Card, SeenCard
from ...engine import (
    Setup,
    Viewer,
)
from ...errors import InvalidPosition
from ...notation import (
    MAX_NOTATION,
    cards_text,
    check_seat_field,
    int_text,
    join,
    parse_cards,
    parse_choice,
    parse_int,
    parse_opt_int,
    parse_per_seat,
    parse_seats,
    per_seat_text,
    read_rules,
    seats_text,
    split,
)
from .declarations import Phase, Rules
from .rules import NAME, ZONES, State, deck, ends_game, is_stuck, outcome, view

T = TypeVar("T")


def position(
    hands: Sequence[Sequence[Card]],
    draws: Sequence[Sequence[Card]] = ((), ()),
    *,
    centre: Sequence[Sequence[Card]],
    sides: Sequence[Sequence[Card]] = ((), ()),
    phase: Phase = "PLAY",
    rules: Rules | None = None,
    seed: int = 0,
    calls: Sequence[int] = (),
    scores: tuple[int, int] = (0, 0),
    wins: tuple[int, int] = (0, 0),
    round: int = 1,
    shuffles: int = 0,
    winner: int | None = None,
    resigned: int | None = None,
    allow_over: bool = False,
) -> State:
    """A position from explicit cards, for tests and analysis (docs/games/common.md#positions).
    ``draws`` and ``sides`` are top first, ``centre`` piles bottom→top. Checked by
    :func:`check_position` (:class:`~cardcore.errors.InvalidPosition` names the field at fault);
    a finished game (phase ``OVER``, with its ``winner``; or ``resigned``, with ``winner`` the
    other seat) only with ``allow_over``."""
    # The empty table, then the fields given: a field of the wrong type is InvalidPosition
    # naming it in both builds (State._replace), where the compiled State refuses it with a
    # TypeError.
    empty: tuple[tuple[Card, ...], ...] = ((), ())
    setup = Setup(seats=2, seed=seed, rules=rules or Rules())
    state = State(setup, "READY", empty, empty, empty, empty)._replace(
        phase=phase,
        hands=tuple(tuple(h) for h in hands),
        draws=tuple(tuple(d) for d in draws),
        sides=tuple(tuple(r) for r in sides),
        centre=tuple(tuple(c) for c in centre),
        calls=frozenset(calls),
        scores=scores,
        wins=wins,
        round=round,
        shuffles=shuffles,
        winner=winner,
        resigned=resigned,
    )
    check_position(state, allow_over=allow_over)
    return state


# --------------------------------------------------------------------------- position check

_PHASES: Final[tuple[Phase, ...]] = ("READY", "PLAY", "OVER")
_ZONES: Final = ("hands", "draws", "sides", "centre")


def _check_pair(value: object, field: str, item: type) -> None:
    """``value`` is a 2-tuple (one per seat, or per pile) of ``item`` values (never a bool)."""
    if type(value) is not tuple or len(value) != 2:
        raise InvalidPosition(field, f"must be a tuple of 2 values, got {value!r:.60}")
    for i, v in enumerate(value):
        if type(v) is not item:
            raise InvalidPosition(f"{field}[{i}]", f"must be {item.__name__}, got {v!r:.40}")


def check_position(state: State, *, allow_over: bool = False) -> None:
    """Raise :class:`~cardcore.errors.InvalidPosition`, naming the state's field, unless
    ``state`` is a position Speed could reach (a hand-written one may hold fewer cards than the
    deck). What the rules guarantee, and so what is checked:

    * the zones are two piles each, of cards from the setup's deck, none more often than it
      holds it (docs/games/common.md#conservation; the first zone where a card is one too many is
      named);
    * a centre pile is never empty (the deal puts one card on each and nothing takes a top) and
      holds exactly its dealt card in ``READY``; a hand never holds more than ``hand_size``, and
      is as full as its draw pile allows after the deal and, with ``auto_refill``, after every
      play (docs/games/speed.md#playing);
    * in ``READY`` and ``PLAY`` each seat still has a card (emptying both ends the round);
      ``OVER`` has a ``winner`` whose hand and draw pile are empty, and only ``OVER`` has one —
      or a resignation (docs/games/common.md#leaving-a-game, ``resigned``): the table as it stood in
      ``READY`` or ``PLAY`` (every check of that phase holds), no call recorded, the other seat the
      ``winner``, and no total reached the target (the game ended before anyone won it);
    * calls (docs/games/common.md#joint-calls): never both seats (the second call takes effect and
      clears them), a stalemate call only while stuck, none once over;
    * totals: no round is won before the game ends without ``target_score``/``best_of``; a
      total below the target (or the series not yet won) until ``OVER``, reached in ``OVER``;
      points only with a win; won rounds fit the rounds played; ``round`` ≥ 1 and each re-deal
      used a shuffle (``shuffles`` ≥ ``round`` − 1);
    * not already over (``outcome`` is None) unless ``allow_over``.
    """
    _check_fields(state)
    _check_ending(state)
    _check_piles(state)
    _check_calls(state)
    _check_totals(state)
    if not allow_over and outcome(state) is not None:
        raise InvalidPosition(
            "phase" if state.resigned is None else "resigned", "the game is already over"
        )


def _check_fields(state: State) -> None:
    """Each field of the right type: a two-seat setup of Speed's rules, a phase, the zones (two
    piles each, cards of the deck, none too often), totals, counters and calls."""
    setup = state.setup
    if not isinstance(setup, Setup) or type(setup.rules) is not Rules or setup.seats != 2:
        raise InvalidPosition("setup", f"must be a 2-seat Setup of speed Rules, got {setup!r:.80}")
    phase: object = state.phase  # a hand-built state may hold anything
    if type(phase) is not str or phase not in _PHASES:
        raise InvalidPosition("phase", f"must be one of {', '.join(_PHASES)}, got {phase!r:.20}")
    for name in _ZONES:
        _check_pair(getattr(state, name), name, tuple)
    ZONES.check_cards(state, deck(setup))  # names the pile a card is one too many in
    for name in ("scores", "wins"):
        _check_pair(getattr(state, name), name, int)
        for i, v in enumerate(getattr(state, name)):
            if v < 0:
                raise InvalidPosition(f"{name}[{i}]", f"must not be negative, got {v}")
    if type(state.round) is not int or state.round < 1:
        raise InvalidPosition("round", f"must be an integer ≥ 1, got {state.round!r:.20}")
    if type(state.shuffles) is not int or state.shuffles < state.round - 1:
        raise InvalidPosition(
            "shuffles",
            f"round {state.round} was dealt from at least stream {state.round - 1}, got "
            f"{state.shuffles!r:.20}",
        )
    calls = state.calls
    if type(calls) is not frozenset:
        raise InvalidPosition("calls", f"must be a frozenset of seats, got {calls!r:.40}")
    for seat in calls:
        check_seat_field(seat, 2, "calls")
    check_seat_field(state.winner, 2, "winner", optional=True)
    check_seat_field(state.resigned, 2, "resigned", optional=True)


def _check_ending(state: State) -> None:
    """A winner exactly in phase OVER, or after a resignation in a phase of play
    (docs/games/common.md#leaving-a-game: over where it stood), the other seat."""
    phase, winner, resigned = state.phase, state.winner, state.resigned
    if resigned is not None:
        if phase == "OVER":
            raise InvalidPosition("resigned", "phase OVER means a round was won, not a resignation")
        if winner != 1 - resigned:
            raise InvalidPosition(
                "winner", f"seat {resigned} resigned, so seat {1 - resigned} won, got {winner}"
            )
    elif (phase == "OVER") != (winner is not None):
        raise InvalidPosition("winner", "a game has a winner exactly when its phase is OVER")


def _check_piles(state: State) -> None:
    """The centre piles never empty (one card before the start); hands no larger than
    ``hand_size``, refilled after the deal and (``auto_refill``) every play; a card for each seat
    until the round is won (docs/games/speed.md#playing)."""
    phase, rules = state.phase, state.setup.rules
    for j, pile in enumerate(state.centre):
        if not pile:
            raise InvalidPosition(f"centre[{j}]", "a centre pile is never empty")
        if phase == "READY" and len(pile) != 1:
            raise InvalidPosition(
                f"centre[{j}]", f"holds only its dealt card before the start, got {len(pile)}"
            )
    size = rules.hand_size
    for p in (0, 1):
        hand, draw = state.hands[p], state.draws[p]
        if len(hand) > size:
            raise InvalidPosition(f"hands[{p}]", f"holds {len(hand)} cards; hand_size is {size}")
        refilled = phase == "READY" or (phase == "PLAY" and rules.auto_refill)
        if refilled and draw and len(hand) < size:
            raise InvalidPosition(
                f"hands[{p}]",
                f"holds {len(hand)} cards with {len(draw)} in the draw pile: the hand is "
                f"refilled to {size} after the deal and every play",
            )
        if phase != "OVER" and not hand and not draw:
            raise InvalidPosition(
                f"hands[{p}]",
                "a seat without cards would have won the round "
                "(docs/games/speed.md#end-of-the-game)",
            )


def _check_calls(state: State) -> None:
    """docs/games/common.md#joint-calls: never both seats, none once over, a stalemate call only
    while stuck (docs/games/speed.md#stalemate)."""
    calls = state.calls
    if len(calls) == 2:
        raise InvalidPosition("calls", "the second call takes effect and clears the calls")
    if calls and state.winner is not None:
        raise InvalidPosition("calls", "no call is recorded once the game is over")
    if calls and state.phase == "PLAY" and not is_stuck(state):
        raise InvalidPosition(
            "calls", "a stalemate call is recorded only while stuck (docs/games/speed.md#stalemate)"
        )


def _check_totals(state: State) -> None:
    """Points only with a win, won rounds within the rounds played, and the totals below the
    target (or the series undecided) until the round winner reaches it
    (docs/games/speed.md#scoring)."""
    scores, wins = state.scores, state.wins
    for p in (0, 1):
        if scores[p] and not wins[p]:
            raise InvalidPosition(f"scores[{p}]", "points are scored only by winning a round")
    over = state.phase == "OVER"
    if sum(wins) - over > state.round - 1:
        raise InvalidPosition(
            "wins", f"{sum(wins)} rounds won, more than round {state.round} allows"
        )
    # Who won by emptying hand and draw pile: nobody, when a resignation ended the game first.
    champion = state.winner if state.resigned is None else None
    if champion is not None:
        _check_champion(state, champion)
    rules = state.setup.rules
    if rules.target_score is None and rules.best_of is None:
        if sum(wins) != over:
            raise InvalidPosition(
                "wins", "without target_score or best_of the first won round ends it"
            )
        return
    for p in (0, 1):
        if ends_game(rules, scores[p], wins[p]) != (p == champion):
            raise _not_ended_as_scored(rules, p, scores[p], wins[p])


def _check_champion(state: State, champion: int) -> None:
    """The round's winner emptied hand and draw pile, the other did not, and the last round is
    among the winner's."""
    loser = 1 - champion
    if state.hands[champion] or state.draws[champion]:
        raise InvalidPosition(f"hands[{champion}]", "the winner emptied hand and draw pile")
    if not state.hands[loser] and not state.draws[loser]:
        raise InvalidPosition(f"hands[{loser}]", "only the winner has emptied its cards")
    if not state.wins[champion]:
        raise InvalidPosition(f"wins[{champion}]", "the winner won the last round")


def _not_ended_as_scored(rules: Rules, p: int, score: int, wins: int) -> InvalidPosition:
    """Seat ``p``'s totals disagree with who won: in the words of the rule that ends the game."""
    if rules.target_score is not None:
        return InvalidPosition(
            f"scores[{p}]",
            f"{score} points: the game ends when (and only when) a total reaches "
            f"target_score {rules.target_score}",
        )
    assert rules.best_of is not None
    need = rules.best_of // 2 + 1
    return InvalidPosition(
        f"wins[{p}]",
        f"{wins} wins: the best-of-{rules.best_of} series ends when (and only when) a seat has "
        f"{need}",
    )


# --------------------------------------------------------------------------- notation

_FIELDS: Final = (
    "phase",
    "hands",
    "draws",
    "sides",
    "centre",
    "calls",
    "scores",
    "wins",
    "round",
    "shuffles",
    "winner",
)
"""The fields of the notation after the game's name (docs/notation/speed.md)."""
RESIGNED_FIELD: Final = "resigned"
"""The notation's optional last field, written only after a resignation: a text of rules
version 1 (every position a log of it starts from) stays a text of this version."""


def _has_resigned_field(text: object) -> bool:
    """Whether ``text`` ends with the optional ``resigned`` field: one field more than
    ``_FIELDS``, and a seat. Any other extra field is left to :func:`split` to refuse, so a text
    with a field too many is refused as before, for its field count."""
    if not isinstance(text, str) or len(text) > MAX_NOTATION:
        return False
    parts = text.strip().split(" ")
    return len(parts) == len(_FIELDS) + 2 and parts[-1] in ("0", "1")


def _piles_text(piles: Sequence[Sequence[SeenCard]]) -> str:
    return per_seat_text(piles, cards_text)


def format_position(state: State, viewer: Viewer) -> str:
    """The position in Speed's one-line notation (docs/notation/speed.md). For a viewer other
    than the referee, every card :func:`view` hides is ``??`` (so the sizes show)."""
    v = view(state, viewer)
    fields = [
        v.phase,
        _piles_text(v.hands),
        _piles_text(v.draws),
        _piles_text(v.sides),
        _piles_text(v.centre),
        seats_text(v.calls),
        per_seat_text(v.scores, str),
        per_seat_text(v.wins, str),
        str(v.round),
        str(state.shuffles),
        int_text(v.winner),
    ]
    if state.resigned is not None:
        fields.append(int_text(state.resigned))
    return join(NAME, fields, state.setup.rules)


def _parse_pair(text: str, field: str, item: Callable[[str, str], T]) -> tuple[T, T]:
    values = parse_per_seat(text, field, item)
    if len(values) != 2:
        raise InvalidPosition(field, f"takes 2 values joined by '/', got {len(values)}")
    return values[0], values[1]


def parse_position(text: str, rules: Rules | None = None, *, allow_over: bool = False) -> State:
    """The position a referee's notation text describes (docs/notation/speed.md), with
    ``Setup(2, 0, rules or Rules())``, checked by :func:`check_position` (a finished game only
    with ``allow_over``). Raises :class:`~cardcore.errors.InvalidPosition` and nothing else.
    The rules are the text's own when it carries them (they must then be ``rules``, if given)."""
    text, position_rules = read_rules(text, NAME, Rules, rules)
    names = (*_FIELDS, RESIGNED_FIELD) if _has_resigned_field(text) else _FIELDS
    f = dict(zip(names, split(text, NAME, names), strict=True))
    state = State(
        setup=Setup(2, 0, position_rules),
        phase=parse_choice(f["phase"], "phase", _PHASES),  # type: ignore[arg-type]
        hands=_parse_pair(f["hands"], "hands", parse_cards),
        draws=_parse_pair(f["draws"], "draws", parse_cards),
        sides=_parse_pair(f["sides"], "sides", parse_cards),
        centre=_parse_pair(f["centre"], "centre", parse_cards),
        calls=parse_seats(f["calls"], "calls", 2),
        scores=_parse_pair(f["scores"], "scores", parse_int),
        wins=_parse_pair(f["wins"], "wins", parse_int),
        round=parse_int(f["round"], "round", lo=1),
        shuffles=parse_int(f["shuffles"], "shuffles"),
        winner=parse_opt_int(f["winner"], "winner", hi=1),
        resigned=parse_int(f[RESIGNED_FIELD], RESIGNED_FIELD, hi=1)
        if RESIGNED_FIELD in f
        else None,
    )
    check_position(state, allow_over=allow_over)
    return state
