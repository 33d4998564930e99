"""Palace's positions (docs/games/common.md#positions): :func:`position` builds one from explicit
cards, :func:`check_position` refuses what no game could reach, and the one-line notation
(docs/notation/palace.md) is :func:`format_position` / :func:`parse_position`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from ... import kit
from ... import notation as nt
from ...cards import HIDDEN, RANKS, Card, rank_name
from ...engine import Role, Setup, Viewer, seats_phrase
from ...errors import InvalidPosition
from .declarations import Phase, Rules
from .rules import (
    MAX_SEATS,
    MIN_SEATS,
    NAME,
    Setting,
    State,
    _allowed,
    _top_text,
    deck,
)
from .views import ZONES


def position(
    hands: Sequence[Sequence[Card]],
    up: Sequence[Sequence[Card]] | None = None,
    down: Sequence[Sequence[Card]] | None = None,
    *,
    rules: Rules | None = None,
    stock: Sequence[Card] = (),
    pile: Sequence[Card] = (),
    burned: Sequence[Card] = (),
    current: int | None = 0,
    phase: Phase = "play",
    follow_up: bool = False,
    direction: int = 1,
    ready: Iterable[int] | None = None,
    finished: Sequence[int] = (),
    window: tuple[int, int, int] | None = None,
    opening: bool = False,
    revealed: Card | None = None,
    set_aside: Sequence[Card] = (),
    resigned: Sequence[int] = (),
    allow_over: bool = False,
) -> State:
    """A position from explicit cards, for tests and analysis (docs/games/common.md#positions),
    checked by :func:`check_position` (:class:`~cardcore.errors.InvalidPosition`; a game that is
    already over only with ``allow_over``). ``ready`` defaults to every seat in the play phase
    (everybody called ready to get there), to nobody in the setup phase. A resigned seat is
    listed in ``finished`` and in ``resigned``; its cards are in ``set_aside``."""
    n = len(hands)
    if ready is None:
        ready = range(n) if phase == "play" else ()
    # The empty table, then the fields given: a field of the wrong type is InvalidPosition
    # naming it in both builds (State._replace), where the compiled State refuses it with a
    # TypeError.
    empty: tuple[tuple[Card, ...], ...] = ((),) * n
    setup = Setup(seats=n, seed=0, rules=rules or Rules())
    state = State(setup, phase, empty, empty, empty)._replace(
        phase=phase,
        hands=tuple(tuple(h) for h in hands),
        up=tuple(tuple(u) for u in up) if up is not None else empty,
        down=tuple(tuple(d) for d in down) if down is not None else empty,
        stock=tuple(stock),
        pile=tuple(pile),
        burned=tuple(burned),
        current=current if phase == "play" else None,
        follow_up=follow_up,
        direction=direction,
        ready=frozenset(ready),
        finished=tuple(finished),
        window=window,
        opening=opening,
        revealed=revealed,
        set_aside=tuple(set_aside),
        resigned=tuple(resigned),
    )
    check_position(state, allow_over=allow_over)
    return state


# --------------------------------------------------------------------------- position check


_PHASES: Final = ("setup", "play")


def check_position(state: State, *, allow_over: bool = False) -> None:
    """Raise :class:`~cardcore.errors.InvalidPosition` naming the field at fault unless
    ``state`` is a position a Palace game could reach (docs/notation/palace.md lists every
    check), or one that is over when ``allow_over``. What the rules guarantee:

    * the zones are one tuple per seat of cards from the setup's decks, none more often than
      they hold it; the setup phase is the deal (``k`` cards in each area, nothing played);
    * resigned seats (docs/games/common.md#leaving-a-game) are in ``finished`` too, in its order,
      each once; they hold nothing and their cards are set aside: ``set_aside`` holds cards exactly
      when a seat resigned; in the setup phase only resigned seats are out;
    * in play, every seat called ready (or resigned before); a seat holds at most ``k``
      face-down and ``k`` face-up cards; a finished seat holds nothing and an unfinished one
      something; while the stock lasts nobody went out (a seat may have resigned) and no hand
      is empty (refilled after each play);
    * the pile is what legal plays build: every card fits on the cards below it, no 10 (it
      burns), no four of a rank on top with ``consecutive`` burning;
    * the turn: ``current`` is an unfinished seat (None once over); a follow-up is owed on a 2
      or an empty pile; the add-drawn window belongs to another unfinished seat whose rank is on
      top, with at most its hand's cards drawn; ``opening`` means nothing was played yet;
      ``revealed`` is a card in a hand, the pile, the burned or the set-aside cards."""
    decks = _check_zones(state)
    _check_flags(state)
    _check_seats(state)
    revealed: object = state.revealed
    if revealed is not None:
        if not isinstance(revealed, Card):
            raise InvalidPosition("revealed", f"must be a card or None, got {revealed!r:.20}")
        nt.check_cards((revealed,), decks, "revealed")
    n, k = state.setup.seats, state.setup.rules.cards_per_area
    if state.phase == "setup":
        _check_setup_phase(state, n, k, allow_over)
    else:
        _check_play_phase(state, n, k, allow_over)


def _check_zones(state: State) -> Sequence[Card]:
    """The setup is Palace's, the zones are tuples of cards (one row per seat where a seat has
    its own), and no card of the setup's decks appears more often than they hold it; returns
    those decks."""
    setup = state.setup
    if not isinstance(setup, Setup) or not isinstance(setup.rules, Rules):
        raise InvalidPosition("setup", "must be a Setup of Palace rules")
    n = setup.seats
    if type(n) is not int or not MIN_SEATS <= n <= MAX_SEATS:
        raise InvalidPosition(
            "setup", f"Palace takes {seats_phrase(MIN_SEATS, MAX_SEATS)}, got {n!r}"
        )
    for name in ("hands", "up", "down"):
        rows = getattr(state, name)
        if type(rows) is not tuple or len(rows) != n:
            raise InvalidPosition(name, f"must be a tuple of one row of cards per seat ({n})")
        for q, row in enumerate(rows):
            if type(row) is not tuple:
                raise InvalidPosition(f"{name}[{q}]", "must be a tuple of cards")
    for name in ("stock", "pile", "burned", "set_aside"):
        if type(getattr(state, name)) is not tuple:
            raise InvalidPosition(name, "must be a tuple of cards")
    decks = deck(setup)
    ZONES.check_cards(state, decks)  # names the zone where a card first appears once too often
    return decks


def _check_flags(state: State) -> None:
    """The phase, the follow-up and opening flags, and the direction (reversed by jokers only)."""
    phase: object = state.phase
    if type(phase) is not str or phase not in _PHASES:
        raise InvalidPosition("phase", f"must be setup or play, got {phase!r:.20}")
    for name in ("follow_up", "opening"):
        if type(getattr(state, name)) is not bool:
            raise InvalidPosition(name, f"must be a bool, got {getattr(state, name)!r:.20}")
    direction = state.direction
    if type(direction) is not int or direction not in (1, -1):
        raise InvalidPosition("direction", f"must be 1 or -1, got {direction!r:.20}")
    if direction == -1 and not state.setup.rules.jokers:
        raise InvalidPosition("direction", "only jokers reverse the direction (rules.jokers is 0)")


def _check_seats(state: State) -> None:
    """``ready`` and ``finished`` are seats of the game (each once in ``finished``), and the
    resigned seats are consistent with them (:func:`_check_resigned`)."""
    n = state.setup.seats
    ready = state.ready
    if type(ready) is not frozenset:
        raise InvalidPosition("ready", "must be a frozenset of seats")
    for q in ready:
        nt.check_seat_field(q, n, "ready")
    finished = state.finished
    if type(finished) is not tuple:
        raise InvalidPosition("finished", "must be a tuple of seats")
    for q in finished:
        nt.check_seat_field(q, n, "finished")
    if len(set(finished)) != len(finished):
        raise InvalidPosition("finished", f"a seat went out twice: {finished}")
    _check_resigned(state, n)


def _check_resigned(state: State, n: int) -> None:
    """docs/games/common.md#leaving-a-game: a resigned seat is out (in ``finished``, in the same
    order), once; the set-aside cards are theirs: there are some exactly when a seat resigned (a
    seat in the game holds cards)."""
    resigned = state.resigned
    if type(resigned) is not tuple:
        raise InvalidPosition("resigned", "must be a tuple of seats")
    for q in resigned:
        nt.check_seat_field(q, n, "resigned")
    if len(set(resigned)) != len(resigned):
        raise InvalidPosition("resigned", f"a seat resigned twice: {resigned}")
    finished = state.finished
    if any(q not in finished for q in resigned):
        raise InvalidPosition("resigned", "a resigned seat is out: it is in finished too")
    if tuple(q for q in finished if q in resigned) != resigned:
        raise InvalidPosition("resigned", "the seats resigned in the order finished lists them")
    if bool(state.set_aside) != bool(resigned):
        raise InvalidPosition(
            "set_aside",
            "the cards of resigned seats are set aside"
            if resigned
            else "only a resignation sets cards aside",
        )


def _check_setup_phase(state: State, n: int, k: int, allow_over: bool) -> None:
    """The deal, before the first play: swaps keep every area at ``k`` cards
    (docs/games/palace.md#swapping); a seat that resigned (docs/games/common.md#leaving-a-game)
    holds nothing, and nobody waits for it to be ready."""
    resigned = state.resigned
    if state.finished != resigned:
        raise InvalidPosition("finished", "in the setup phase only resigned seats are out")
    over = len(resigned) >= n - 1
    if over and not allow_over:
        raise InvalidPosition("finished", "the game is already over (one seat is left in it)")
    for name, value, blank in (
        ("current", state.current, None),
        ("follow_up", state.follow_up, False),
        ("direction", state.direction, 1),
        ("window", state.window, None),
        ("opening", state.opening, False),
        ("revealed", state.revealed, None),
        ("pile", state.pile, ()),
        ("burned", state.burned, ()),
    ):
        if value != blank:
            raise InvalidPosition(name, f"must be {blank!r} in the setup phase")
    for name in ("hands", "up", "down"):
        for q, row in enumerate(getattr(state, name)):
            if q in resigned:
                if row:
                    raise InvalidPosition(f"{name}[{q}]", f"seat {q} resigned: it holds no cards")
            elif len(row) != k:
                raise InvalidPosition(
                    f"{name}[{q}]", f"the deal gives {k} cards (cards_per_area), got {len(row)}"
                )
    if not over and len(state.ready.union(resigned)) == n:
        raise InvalidPosition("ready", "every seat is ready: the play phase has begun")


def _check_play_phase(state: State, n: int, k: int, allow_over: bool) -> None:
    """After the first play: every seat called ready; the turn; each seat's holding; the pile,
    the follow-up, the add-drawn window, the opening and the revealed card."""
    rules = state._setting
    if len(state.ready.union(state.resigned)) != n:
        raise InvalidPosition(
            "ready", "in the play phase every seat has called ready (or resigned in the setup)"
        )
    _check_turn(state, n, allow_over)
    went_out = [q for q in state.finished if q not in state.resigned]
    if state.stock and went_out:
        raise InvalidPosition("stock", "a seat went out, so the stock is exhausted")
    for q in range(n):
        _check_holding(state, q, k)
    _check_pile(state.pile, rules)
    if state.follow_up and state.pile and not (state.pile[-1].rank == 2 and rules.two_follow_up):
        raise InvalidPosition(
            "follow_up", "a follow-up is owed on a 2 or after a burn (an empty pile)"
        )
    window = state.window
    if window is not None:
        _check_window(state, window, n, k)
    if state.opening and (state.pile or state.burned or went_out or state.follow_up):
        raise InvalidPosition("opening", "cards have been played already")
    revealed = state.revealed
    if revealed is not None and not any(
        revealed in zone for zone in (*state.hands, state.pile, state.burned, state.set_aside)
    ):
        raise InvalidPosition(
            "revealed",
            f"{revealed} was turned up: it is in a hand, the pile, burned or set aside",
        )


def _check_turn(state: State, n: int, allow_over: bool) -> None:
    """Once one seat is left holding cards the game is over and nobody is to play; until then
    ``current`` is a seat still in the game."""
    finished, current = state.finished, state.current
    if len(finished) >= n:
        raise InvalidPosition("finished", "the game ends when one seat is left in it")
    if len(finished) < n - 1:
        nt.check_seat_field(current, n, "current")
        if current in finished:
            raise InvalidPosition("current", f"seat {current} has gone out")
        return
    if not allow_over:
        raise InvalidPosition(
            "finished", "the game is already over (one seat is left holding cards)"
        )
    if current is not None or state.follow_up or state.window is not None:
        field = "current" if current is not None else "follow_up" if state.follow_up else "window"
        raise InvalidPosition(field, "nobody is to play once the game is over")


def _check_holding(state: State, q: int, k: int) -> None:
    """Seat ``q``'s cards: none once it is out; some while it is in, at most ``k`` in each table
    area, and a hand while the stock lasts."""
    hand, up, down = state.hands[q], state.up[q], state.down[q]
    if q in state.finished:
        gone = "resigned" if q in state.resigned else "has gone out"
        for name, row in (("hands", hand), ("up", up), ("down", down)):
            if row:
                raise InvalidPosition(f"{name}[{q}]", f"seat {q} {gone}: it holds no cards")
        return
    if not (hand or up or down):
        raise InvalidPosition(f"hands[{q}]", f"seat {q} holds no card but has not gone out")
    for name, row, where in (("up", up, "face-up"), ("down", down, "face-down")):
        if len(row) > k:
            raise InvalidPosition(
                f"{name}[{q}]", f"at most {k} {where} cards (cards_per_area), got {len(row)}"
            )
    if state.stock and not hand:
        # A hand is refilled after every play while the stock lasts, so it is never empty then.
        # (It holds k cards at least, too; that is not checked, so that a test may hand-write a
        # short hand beside a stock.)
        raise InvalidPosition(
            f"hands[{q}]", "a hand is refilled after every play while the stock lasts"
        )


def _check_pile(pile: tuple[Card, ...], rules: Setting) -> None:
    """The pile is built by legal plays only: each card fits on those below it
    (docs/games/palace.md#legal-plays), a 10 never stays (it burns), nor four of a rank on top with
    ``consecutive`` burning."""
    run, last = 0, None
    for i, c in enumerate(pile):
        if c.rank == 10:
            raise InvalidPosition("pile", f"a 10 burns the pile: it never stays on it ({c} at {i})")
        if c.rank not in _allowed(pile[:i], rules):
            raise InvalidPosition(
                "pile", f"{c} (at {i}) does not go on {_top_text(pile[:i], rules)}"
            )
        run = run + 1 if c.rank == last else 1
        last = c.rank
        if run >= 4 and rules.four_of_a_kind_burn == "consecutive":
            raise InvalidPosition("pile", f"four {rank_name(c.rank)}s on top burn the pile")


def _check_window(state: State, window: object, n: int, k: int) -> None:
    if type(window) is not tuple or len(window) != 3 or any(type(x) is not int for x in window):
        raise InvalidPosition("window", f"must be None or (seat, rank, drawn), got {window!r:.40}")
    seat, rank, drawn = window
    nt.check_seat_field(seat, n, "window")
    if not state.setup.rules.add_drawn_same_rank:
        raise InvalidPosition(
            "window", "no add-drawn window opens (rules.add_drawn_same_rank is off)"
        )
    if seat == state.current or seat in state.finished or state.follow_up:
        raise InvalidPosition(
            "window", "the window is another unfinished seat's, after its turn passed"
        )
    if not 0 <= rank <= 13:
        raise InvalidPosition("window", f"no rank {rank}")
    if state.pile and state.pile[-1].rank != rank:
        raise InvalidPosition(
            "window", f"the rank just played ({rank_name(rank)}) is on top of the pile"
        )
    if not 0 <= drawn <= min(k, len(state.hands[seat])):
        raise InvalidPosition("window", f"{drawn} cards drawn: at most {k} and the hand's cards")


# --------------------------------------------------------------------------- notation


NOTATION_FIELDS: Final = kit.native.fields_of(State)[1:]
"""The fields of Palace's notation, in order (docs/notation/palace.md): State's own. The last two
are written only once a seat has resigned (docs/games/common.md#leaving-a-game), so that every text
of rules version 1 (a log header's position) still reads, and formats, as it did."""

_RESIGN_FIELDS: Final = 2
"""How many of ``NOTATION_FIELDS``, at the end, are written only once a seat has resigned."""

_RANK_TEXTS: Final = ("JK", *RANKS)
"""A rank index's text (0 = joker, 1 = A … 13 = K), as in a card's text."""

_DIRECTIONS: Final = ("cw", "ccw")


@kit.viewed
def format_position(state: State, viewer: Viewer) -> str:
    """The position in Palace's notation (docs/notation/palace.md); what ``viewer`` may not see
    (``view`` hides it: others' hands, every face-down card, the stock) is ``??``."""
    referee = viewer == Role.REFEREE

    def row(cards: Sequence[Card], visible: bool) -> str:
        return nt.cards_text(cards if visible else (HIDDEN,) * len(cards))

    window = state.window
    fields: tuple[str, ...] = (
        state.phase,
        nt.per_seat_text(enumerate(state.hands), lambda qh: row(qh[1], referee or viewer == qh[0])),
        nt.per_seat_text(state.up, nt.cards_text),
        nt.per_seat_text(state.down, lambda d: row(d, referee)),
        row(state.stock, referee),
        nt.cards_text(state.pile),
        nt.cards_text(state.burned),
        nt.int_text(state.current),
        "1" if state.follow_up else "0",
        _DIRECTIONS[state.direction == -1],
        nt.seats_text(state.ready),
        ",".join(str(q) for q in state.finished) or nt.EMPTY,
        nt.EMPTY if window is None else f"{window[0]},{_RANK_TEXTS[window[1]]},{window[2]}",
        "1" if state.opening else "0",
        nt.EMPTY if state.revealed is None else str(state.revealed),
    )
    if state.resigned:
        fields += (row(state.set_aside, referee), ",".join(str(q) for q in state.resigned))
    return nt.join(NAME, fields, state.setup.rules)


def parse_position(text: str, rules: Rules | None = None) -> State:
    """The position a referee's notation text describes (docs/notation/palace.md), under
    ``rules`` (default rules when None), checked by :func:`check_position` (a game that is over
    parses too: a log may start from any position it records). Raises
    :class:`~cardcore.errors.InvalidPosition` naming the field at fault. The rules are the
    text's own when it carries them (they must then be ``rules``, if given)."""
    text, position_rules = nt.read_rules(text, NAME, Rules, rules)
    names: tuple[str, ...] = NOTATION_FIELDS
    if isinstance(text, str) and text.strip().count(" ") < len(names):  # no resign fields
        names = names[:-_RESIGN_FIELDS]
    field = dict(zip(names, nt.split(text, NAME, names), strict=True))
    phase = nt.parse_choice(field["phase"], "phase", _PHASES)
    hands = nt.parse_per_seat(field["hands"], "hands", nt.parse_cards)
    n = len(hands)
    if not MIN_SEATS <= n <= MAX_SEATS:
        raise InvalidPosition(
            "hands", f"Palace takes {seats_phrase(MIN_SEATS, MAX_SEATS)}, got {n}"
        )
    up = nt.parse_per_seat(field["up"], "up", nt.parse_cards)
    down = nt.parse_per_seat(field["down"], "down", nt.parse_cards)
    for name, rows in (("up", up), ("down", down)):
        if len(rows) != n:
            raise InvalidPosition(name, f"one row per seat: {n} in hands, {len(rows)} here")
    finished = _parse_seat_list(field["finished"], "finished", n)
    set_aside, resigned = _parse_resignations(field, n)
    window = _parse_window(field["window"], n)
    revealed = field["revealed"]
    state = State(
        setup=Setup(n, 0, position_rules),
        phase="play" if phase == "play" else "setup",
        hands=hands,
        up=up,
        down=down,
        stock=nt.parse_cards(field["stock"], "stock"),
        pile=nt.parse_cards(field["pile"], "pile"),
        burned=nt.parse_cards(field["burned"], "burned"),
        current=nt.parse_opt_int(field["current"], "current", hi=n - 1),
        follow_up=nt.parse_int(field["follow_up"], "follow_up", hi=1) == 1,
        direction=-1
        if nt.parse_choice(field["direction"], "direction", _DIRECTIONS) == "ccw"
        else 1,
        ready=nt.parse_seats(field["ready"], "ready", n),
        finished=finished,
        window=window,
        opening=nt.parse_int(field["opening"], "opening", hi=1) == 1,
        revealed=None if revealed == nt.EMPTY else nt.parse_card(revealed, "revealed"),
        set_aside=set_aside,
        resigned=resigned,
    )
    check_position(state, allow_over=True)
    return state


def _parse_seat_list(text: str, name: str, n: int) -> tuple[int, ...]:
    """Seats in order, comma-separated (``-`` for none)."""
    if text == nt.EMPTY:
        return ()
    return tuple(nt.parse_int(t, name, hi=n - 1) for t in text.split(","))


def _parse_resignations(field: dict[str, str], n: int) -> tuple[tuple[Card, ...], tuple[int, ...]]:
    """The set-aside cards and the resigned seats: the last two fields, written only once a seat
    resigned (docs/games/common.md#leaving-a-game)."""
    if "resigned" not in field:
        return (), ()
    if field["resigned"] == nt.EMPTY:  # one text per position: without a resignation, 15 fields
        raise InvalidPosition("resigned", "the last two fields are written once a seat resigned")
    set_aside = nt.parse_cards(field["set_aside"], "set_aside")
    return set_aside, _parse_seat_list(field["resigned"], "resigned", n)


def _parse_window(text: str, n: int) -> tuple[int, int, int] | None:
    """The add-drawn window, ``seat,rank,drawn`` (``-`` for none)."""
    if text == nt.EMPTY:
        return None
    parts = text.split(",")
    if len(parts) != 3:
        raise InvalidPosition("window", f"must be - or seat,rank,drawn; got {text[:20]!r}")
    rank = _RANK_TEXTS.index(nt.parse_choice(parts[1], "window", _RANK_TEXTS))
    return (nt.parse_int(parts[0], "window", hi=n - 1), rank, nt.parse_int(parts[2], "window"))
