"""Spit's positions (docs/games/common.md#positions): :func:`position` builds one from explicit
cards, :func:`check_position` refuses what no game could reach, and the one-line notation
(docs/notation/spit.md) is :func:`format_position` / :func:`parse_position`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ... import kit
from ... import notation as nt
from ...cards import HIDDEN, Card, SeenCard
from ...engine import (
    Role,
    Setup,
    Viewer,
)
from ...errors import InvalidPosition
from .declarations import Phase, Rules
from .events import hide_layout, tops_up
from .rules import (
    GAME_NAME,
    NO_TARGETS,
    SEATS,
    SPIT_PILES,
    State,
    deck,
    initial_state,
    is_stuck,
    lay_out,
    layout_size,
    locked_out,
)


def position(
    layouts: Sequence[Sequence[Sequence[Card]]],
    *,
    spit_cards: Sequence[Sequence[Card]] = ((), ()),
    spit_piles: Sequence[Sequence[Card]] = ((), ()),
    up: Sequence[Sequence[int]] | None = None,
    phase: Phase = "PLAY",
    rules: Rules | None = None,
    called: Sequence[bool] | frozenset[int] | set[int] = frozenset(),
    call_targets: Sequence[int | None] = (None, None),
    locked: int | None = None,
    chooser: int | None = None,
    round: int = 1,
    shuffles: int | None = None,
    winner: int | None = None,
    resigned: int | None = None,
    seed: int = 0,
    allow_over: bool = False,
) -> State:
    """A position from explicit cards, for tests and analysis (docs/games/common.md#positions),
    checked by :func:`check_position` (a finished game only with ``allow_over``).

    Layouts are padded with empty spaces up to ``num_stock_piles``. ``up[seat][pile]`` counts the
    face-up cards on top of each pile; seats it leaves out have every non-empty stock pile's top
    card face up and the rest face down. ``called``: the seats that called (a set), or one flag
    per seat. ``shuffles`` defaults to the two per re-layout of the rounds before ``round``.
    ``resigned``: the seat that resigned (with ``winner`` the other seat and ``allow_over``)."""
    rules = rules or Rules()
    n = rules.num_stock_piles
    lay = tuple(
        tuple(tuple(p) for p in seat_piles) + ((),) * (n - len(seat_piles))
        for seat_piles in layouts
    )
    given = tuple(up or ())
    ups = tuple(
        tuple(given[s]) + (0,) * (n - len(given[s])) if s < len(given) else tops_up(lay[s])
        for s in range(len(lay))
    )
    callers = (
        frozenset(called)
        if isinstance(called, set | frozenset)
        else frozenset(p for p, c in enumerate(called) if c)
    )
    # The empty table, then the fields given: a field of the wrong type is InvalidPosition
    # naming it in both builds (State._replace), where the compiled State refuses it with a
    # TypeError.
    state = initial_state(Setup(seats=SEATS, seed=seed, rules=rules))._replace(
        phase=phase,
        layouts=lay,
        up=ups,
        spit_cards=tuple(tuple(s) for s in spit_cards),
        spit_piles=tuple(tuple(s) for s in spit_piles),
        called=callers,
        call_targets=tuple(call_targets),
        locked=locked,
        chooser=chooser,
        round=round,
        shuffles=2 * (round - 1) if shuffles is None and isinstance(round, int) else shuffles,
        winner=winner,
        resigned=resigned,
    )
    check_position(state, allow_over=allow_over)
    return state


# --------------------------------------------------------------------------- position check


PHASES: Final[tuple[Phase, ...]] = ("READY", "PLAY", "SLAP", "CHOOSE", "OVER")


def _pair_of(value: object, field: str) -> tuple[object, ...]:
    """``value`` as a pair (one entry per seat or per spit pile), else ``InvalidPosition``."""
    if type(value) is not tuple or len(value) != 2:
        raise InvalidPosition(field, f"must be a tuple of 2 (one per seat), got {value!r:.60}")
    return value


def _check_index(value: object, field: str, what: str = "spit pile") -> None:
    """``value`` is None or 0/1 (a seat or a spit pile; a bool is neither)."""
    if value is not None and (type(value) is not int or not 0 <= value < 2):
        raise InvalidPosition(field, f"must be a {what} 0..1 or None, got {value!r:.40}")


def check_position(state: State, *, allow_over: bool = False) -> None:
    """Raise :class:`InvalidPosition` naming the field at fault unless ``state`` is a position
    Spit could reach (with the cards it holds: a position may hold fewer than the deck), and
    not over unless ``allow_over``. What the rules guarantee (docs/games/spit.md), zone by zone:

    * shapes: two seats of ``num_stock_piles`` piles; ``0 <= up <= len(pile)``; pile ``i`` has
      at most ``i`` face-down cards (it is laid out with ``i`` and never gains one); without
      stacking a pile never holds more than ``i + 1`` cards nor more than one face-up card;
      with ``auto_flip`` no top waits face down; cards from one deck, none twice;
    * ``shuffles == 2 * (round - 1)``; at most one joint call recorded (the second takes
      effect); a call target is a recorded caller's, naming an existing pile;
    * READY: the layouts exactly as :func:`lay_out` leaves them, no spit pile, no lock;
    * PLAY, SLAP, CHOOSE: a seat with spit cards has its own spit pile (it started it and piles
      last the round); a lock means a solo spit, so not both still have spit cards;
    * PLAY: no round end pending: no empty layout (A), and not stuck without spit cards (B)
      once a spit pile exists; a recorded stalemate call means stuck (without stacking, where
      nothing a stuck player may still do changes that);
    * SLAP / CHOOSE: both spit piles, no call, and the round end that leads there: CHOOSE only
      under ``pile_claim="choose"`` with the chooser's layout empty;
    * OVER (the winner set): nothing laid out, the winner holds no card, a lower seat with no
      card would have won first;
    * a resignation (docs/games/common.md#leaving-a-game, ``resigned`` set): a phase of play with
      its checks above, the other seat the winner, no call recorded; over, so only with
      ``allow_over``."""
    rules = _check_setup(state)
    _check_zones(state, rules)
    _check_calls(state)
    _check_counters(state)
    phase, winner, resigned = state.phase, state.winner, state.resigned
    if resigned is not None:
        _check_resigned(state)
    elif (winner is not None) != (phase == "OVER"):
        raise InvalidPosition("winner", f"a winner is set exactly in phase OVER (phase {phase})")
    if state.chooser is not None and phase != "CHOOSE":
        raise InvalidPosition("chooser", f"only phase CHOOSE has a chooser (phase {phase})")
    if phase == "OVER":
        _check_over(state)
        if not allow_over:
            raise InvalidPosition("winner", f"the game is already over: seat {winner} won")
        return
    if phase == "READY":
        _check_ready(state)
    else:
        _check_round(state, rules.stack_equal_in_layout)
    if resigned is not None and not allow_over:
        raise InvalidPosition("resigned", f"the game is already over: seat {resigned} resigned")


def _check_setup(state: State) -> Rules:
    """A two-seat setup of Spit's rules, and a phase of the game; returns the rules."""
    setup = state.setup
    if not isinstance(setup, Setup) or setup.seats != SEATS:
        raise InvalidPosition("setup", f"a Spit setup has 2 seats, got {setup!r:.60}")
    rules = setup.rules
    if not isinstance(rules, Rules):
        raise InvalidPosition("setup", f"rules must be spit.Rules, got {type(rules).__name__}")
    phase = state.phase
    if phase not in PHASES:
        raise InvalidPosition("phase", f"must be one of {', '.join(PHASES)}; got {phase!r:.20}")
    return rules


class _Cards:
    """The cards of a position so far, zone by zone: each zone a tuple of cards of the deck, no
    card more often than the deck holds it (the first zone where one is too many is named)."""

    def __init__(self, setup: Setup[Rules]) -> None:
        self.deck = deck(setup)
        self.seen: list[Card] = []

    def add(self, zone: object, field: str) -> tuple[Card, ...]:
        if type(zone) is not tuple:
            raise InvalidPosition(field, f"must be a tuple of cards, got {zone!r:.40}")
        self.seen.extend(zone)
        nt.check_cards(self.seen, self.deck, field)
        return zone


def _check_zones(state: State, rules: Rules) -> None:
    """The layouts (with their face-up counts), the spit cards and the spit piles: their shapes,
    and cards from one deck, none twice."""
    cards = _Cards(state.setup)
    n = rules.num_stock_piles
    layouts = _pair_of(state.layouts, "layouts")
    ups = _pair_of(state.up, "up")
    for s in range(SEATS):
        lay, up = layouts[s], ups[s]
        for value, name in ((lay, f"layouts[{s}]"), (up, f"up[{s}]")):
            if type(value) is not tuple or len(value) != n:
                raise InvalidPosition(
                    name, f"must be a tuple of {n} stock piles, got {value!r:.60}"
                )
        assert isinstance(lay, tuple) and isinstance(up, tuple)
        for i in range(n):
            pile = cards.add(lay[i], f"layouts[{s}][{i}]")
            _check_stock_pile(pile, up[i], rules, s, i)
    spit_cards = _pair_of(state.spit_cards, "spit_cards")
    for s in range(SEATS):
        cards.add(spit_cards[s], f"spit_cards[{s}]")
    spit_piles = _pair_of(state.spit_piles, "spit_piles")
    for j in range(SPIT_PILES):
        cards.add(spit_piles[j], f"spit_piles[{j}]")


def _check_stock_pile(pile: tuple[Card, ...], u: object, rules: Rules, s: int, i: int) -> None:
    """Stock pile ``i`` of seat ``s`` with ``u`` face-up cards on top: laid out with ``i``
    face-down cards under one face-up card, it never gains a face-down card, and only a stack
    puts a card on it (or a second face-up card) beyond that."""
    stacking = rules.stack_equal_in_layout
    field = f"up[{s}][{i}]"
    if type(u) is not int or not 0 <= u <= len(pile):
        raise InvalidPosition(field, f"must be 0..{len(pile)} (the pile's size), got {u!r:.20}")
    if not stacking and len(pile) > i + 1:
        raise InvalidPosition(
            f"layouts[{s}][{i}]",
            f"stock pile {i} holds at most {i + 1} cards without stacking, got {len(pile)}",
        )
    if len(pile) - u > i:
        raise InvalidPosition(
            field,
            f"stock pile {i} is laid out with {i} face-down cards and never gains one; "
            f"{len(pile) - u} face down",
        )
    if not stacking and u > 1:
        raise InvalidPosition(field, f"only a stack puts a face-up card on another, got {u}")
    if pile and not u and rules.auto_flip:
        raise InvalidPosition(field, "with auto_flip no top waits face down")


def _check_calls(state: State) -> None:
    """At most one joint call recorded (the second takes effect); a target only a caller's."""
    called = state.called
    if type(called) is not frozenset:
        raise InvalidPosition("called", f"must be a frozenset of seats, got {called!r:.40}")
    for p in called:
        nt.check_seat_field(p, SEATS, "called")
    if len(called) == SEATS:
        raise InvalidPosition("called", "both calls recorded: the joint call takes effect")
    targets = _pair_of(state.call_targets, "call_targets")
    for p in range(SEATS):
        t = targets[p]
        _check_index(t, f"call_targets[{p}]")
        if t is not None and p not in called:
            raise InvalidPosition(f"call_targets[{p}]", f"seat {p} has not called")


def _check_counters(state: State) -> None:
    """The lock, chooser, winner and resigner are a pile or seat; two shuffles per re-layout."""
    _check_index(state.locked, "locked")
    _check_index(state.chooser, "chooser", "seat")
    _check_index(state.winner, "winner", "seat")
    _check_index(state.resigned, "resigned", "seat")
    round_ = state.round
    if type(round_) is not int or round_ < 1:
        raise InvalidPosition("round", f"must be an integer >= 1, got {round_!r:.20}")
    if state.shuffles != 2 * (round_ - 1):
        raise InvalidPosition(
            "shuffles",
            f"two per re-layout: {2 * (round_ - 1)} before round {round_}, "
            f"got {state.shuffles!r:.20}",
        )


def _check_resigned(state: State) -> None:
    """A resignation (docs/games/common.md#leaving-a-game) leaves the table as it stood in a phase
    of play, the calls cleared (:func:`evolve`), the other seat the winner; the phase's own checks
    still hold."""
    resigned = state.resigned
    assert resigned is not None
    if state.phase == "OVER":
        raise InvalidPosition("resigned", "phase OVER means a packet was empty, not a resignation")
    if state.winner != 1 - resigned:
        raise InvalidPosition(
            "winner", f"seat {resigned} resigned, so seat {1 - resigned} won, got {state.winner}"
        )
    if state.called:
        raise InvalidPosition("called", "a resignation clears the calls")


def _check_over(state: State) -> None:
    """OVER: :func:`_new_layout` with a winner lays nothing out (docs/games/spit.md#end-of-the-game:
    an empty packet wins)."""
    w = state.winner
    assert w is not None
    for s in range(SEATS):
        if any(state.layouts[s]):
            raise InvalidPosition(f"layouts[{s}]", "the game is over: nothing is laid out")
    for j in range(SPIT_PILES):
        if state.spit_piles[j]:
            raise InvalidPosition(f"spit_piles[{j}]", "the game is over: the piles were taken")
    if state.called or state.call_targets != NO_TARGETS:
        raise InvalidPosition("called", "the game is over: no call is recorded")
    if state.locked is not None:
        raise InvalidPosition("locked", "the game is over: no lock")
    if state.spit_cards[w]:
        raise InvalidPosition(f"spit_cards[{w}]", f"seat {w} won with an empty packet")
    if w == 1 and not state.spit_cards[0]:
        raise InvalidPosition("winner", "seat 0's packet is empty too: seat 0 won first")


def _check_ready(state: State) -> None:
    """READY: as :func:`lay_out` leaves a packet; only the start calls (no target) so far."""
    for s in range(SEATS):
        _check_laid_out(state, s)
    for j in range(SPIT_PILES):
        if state.spit_piles[j]:
            raise InvalidPosition(f"spit_piles[{j}]", "no spit pile before the start call")
    for p in range(SEATS):
        if state.call_targets[p] is not None:
            raise InvalidPosition(f"call_targets[{p}]", "the start call names no spit pile")
    if state.locked is not None:
        raise InvalidPosition("locked", "the lock belongs to a round in play")


def _check_laid_out(state: State, s: int) -> None:
    """Seat ``s``'s cards as :func:`lay_out` leaves them: each stock pile's size, its top alone
    face up, the rest spit cards."""
    lay = state.layouts[s]
    total = layout_size(lay) + len(state.spit_cards[s])
    if not total:
        raise InvalidPosition(f"layouts[{s}]", f"seat {s}'s packet is empty: it has won")
    piles, rest = lay_out(range(total), state.setup.rules.num_stock_piles)
    laid_up = tops_up(lay)
    for i, pile in enumerate(piles):
        if len(lay[i]) != len(pile):
            raise InvalidPosition(
                f"layouts[{s}][{i}]",
                f"laid out, {total} cards give stock pile {i} {len(pile)} cards, got {len(lay[i])}",
            )
        if state.up[s][i] != laid_up[i]:
            raise InvalidPosition(f"up[{s}][{i}]", "laid out, each top alone is face up")
    if len(state.spit_cards[s]) != len(rest):
        raise InvalidPosition(f"spit_cards[{s}]", f"laid out, {total} cards leave {len(rest)}")


def _check_round(state: State, stacking: bool) -> None:
    """PLAY, SLAP, CHOOSE: the round in play or just ended (see :func:`check_position`)."""
    piles, spits = state.spit_piles, state.spit_cards
    for p in range(SEATS):
        if spits[p] and not piles[p]:
            raise InvalidPosition(
                f"spit_piles[{p}]", f"seat {p} has spit cards, so it started spit pile {p}"
            )
    locked = state.locked
    if locked is not None:
        if not piles[locked]:
            raise InvalidPosition("locked", f"spit pile {locked} does not exist")
        if spits[0] and spits[1]:
            raise InvalidPosition("locked", "a lock comes from a solo spit: one had no spit cards")
    if state.phase == "PLAY":
        _check_play(state, stacking)
    else:
        _check_claim(state)


def _check_play(state: State, stacking: bool) -> None:
    """PLAY: no round end pending, a stalemate call only while stuck, and each call target an
    existing spit pile the lock allows."""
    piles, spits = state.spit_piles, state.spit_cards
    for p in range(SEATS):
        if not any(state.layouts[p]):
            raise InvalidPosition(f"layouts[{p}]", "an empty layout ends the round (A)")
    stuck = is_stuck(state)
    if not spits[0] and not spits[1] and stuck and (piles[0] or piles[1]):
        raise InvalidPosition("phase", "stuck with no spit cards: the round ended (B)")
    if state.called and not stuck and not stacking:
        raise InvalidPosition("called", "a stalemate call is recorded only while stuck")
    for p in range(SEATS):
        t = state.call_targets[p]
        if t is None:
            continue
        if not piles[t]:
            raise InvalidPosition(f"call_targets[{p}]", f"spit pile {t} does not exist")
        if locked_out(state, p, t):
            raise InvalidPosition(
                f"call_targets[{p}]", f"the solo spit is locked to {state.locked}"
            )


def _check_claim(state: State) -> None:
    """SLAP / CHOOSE: both spit piles, the calls cleared, and the round end that leads there."""
    phase, piles, layouts = state.phase, state.spit_piles, state.layouts
    for j in range(SPIT_PILES):
        if not piles[j]:
            raise InvalidPosition(f"spit_piles[{j}]", f"phase {phase} follows a two-pile round")
    if state.called:
        raise InvalidPosition("called", "the round end cleared the calls")
    if state.call_targets != NO_TARGETS:
        raise InvalidPosition("call_targets", "the round end cleared the calls")
    if phase == "CHOOSE":
        if state.setup.rules.pile_claim != "choose":
            raise InvalidPosition("phase", 'CHOOSE needs the rule pile_claim="choose"')
        chooser = state.chooser
        if chooser is None:
            raise InvalidPosition("chooser", "phase CHOOSE has a chooser")
        if any(layouts[chooser]):
            raise InvalidPosition(
                "chooser", f"the chooser emptied its layout (A); seat {chooser} did not"
            )
        return
    emptied = not any(layouts[0]) or not any(layouts[1])
    by_layout = emptied and state.setup.rules.pile_claim == "slap"
    no_spits = not state.spit_cards[0] and not state.spit_cards[1]
    if not by_layout and not (no_spits and is_stuck(state)):
        raise InvalidPosition("phase", "SLAP follows a round end: an empty layout (A) or stuck (B)")


# --------------------------------------------------------------------------- notation


def _field_names(n: int) -> tuple[str, ...]:
    """The notation's fields after the game's name (docs/notation/spit.md): ``L0`` … one per
    stock pile."""
    piles = tuple(f"L{i}" for i in range(n))
    after = ("up", "spit_cards", "spit_piles", "called", "call_targets", "locked", "chooser")
    return ("phase", "round", *piles, *after, "winner")


RESIGNED_FIELD: Final = "resigned"
"""The notation's optional last field, written only after a resignation: a text of rules
version 1 (every position a log of it starts from) stays a text of this version."""


def _has_resigned_field(text: object, fields: int) -> bool:
    """Whether ``text`` ends with the optional ``resigned`` field: one field more than the
    others take, and a seat. Any other extra field is left to :func:`nt.split` to refuse, so a
    text with a field too many is refused as before, for its field count."""
    if not isinstance(text, str) or len(text) > nt.MAX_NOTATION:
        return False
    parts = text.strip().split(" ")
    return len(parts) == fields + 2 and parts[-1] in ("0", "1")


def format_position(state: State, viewer: Viewer = Role.REFEREE) -> str:
    """The position in Spit's notation (docs/notation/spit.md): for any viewer but the referee,
    face-down layout cards and every spit card (exactly what :func:`view` hides) are ``??``."""
    kit.check_viewer(viewer, SEATS)
    hide = viewer != Role.REFEREE
    layouts = state.layouts
    if hide:
        layouts = tuple(
            hide_layout(lay, ups)  # type: ignore[misc]
            for lay, ups in zip(state.layouts, state.up, strict=True)
        )
    spit_cards: Sequence[Sequence[SeenCard]] = (
        tuple((HIDDEN,) * len(s) for s in state.spit_cards) if hide else state.spit_cards
    )
    n = len(layouts[0])
    fields = [
        state.phase,
        str(state.round),
        *(nt.per_seat_text((lay[i] for lay in layouts), nt.cards_text) for i in range(n)),
        nt.per_seat_text(state.up, lambda ups: ",".join(str(u) for u in ups)),
        nt.per_seat_text(spit_cards, nt.cards_text),
        nt.per_seat_text(state.spit_piles, nt.cards_text),
        nt.seats_text(state.called),
        nt.per_seat_text(state.call_targets, nt.int_text),
        nt.int_text(state.locked),
        nt.int_text(state.chooser),
        nt.int_text(state.winner),
    ]
    if state.resigned is not None:
        fields.append(nt.int_text(state.resigned))
    return nt.join(GAME_NAME, fields, state.setup.rules)


def _two(text: str, field: str) -> list[str]:
    """The two ``/``-separated parts of a per-seat (or per-pile) field."""
    parts = text.split("/")
    if len(parts) != SEATS:
        raise InvalidPosition(field, f"two values joined by '/', got {len(parts)}: {text[:40]!r}")
    return parts


def parse_position(text: str, rules: Rules | None = None) -> State:
    """The position a referee's notation text describes (docs/notation/spit.md), under
    ``rules`` (default rules when None), checked by :func:`check_position`. A finished game
    parses (its notation is a fair record); :meth:`Match.from_position` refuses it. The rules
    are the text's own when it carries them (they must then be ``rules``, if given): read first,
    as ``num_stock_piles`` sets the number of fields."""
    text, position_rules = nt.read_rules(text, GAME_NAME, Rules, rules)
    n = position_rules.num_stock_piles
    names = _field_names(n)
    if _has_resigned_field(text, len(names)):
        names = (*names, RESIGNED_FIELD)
    f = nt.split(text, GAME_NAME, names)
    phase = nt.parse_choice(f[0], "phase", PHASES)
    round_ = nt.parse_int(f[1], "round", lo=1)
    piles = [
        [
            nt.parse_cards(part, f"layouts[{s}][{i}]")
            for s, part in enumerate(_two(f[2 + i], f"L{i}"))
        ]
        for i in range(n)
    ]
    layouts = tuple(tuple(piles[i][s] for i in range(n)) for s in range(SEATS))
    ups = []
    for s, part in enumerate(_two(f[2 + n], "up")):
        items = part.split(",")
        if len(items) != n:
            raise InvalidPosition(f"up[{s}]", f"{n} counts joined by ',', got {part[:40]!r}")
        ups.append(tuple(nt.parse_int(t, f"up[{s}][{i}]", hi=99) for i, t in enumerate(items)))
    spit_cards = tuple(
        nt.parse_cards(part, f"spit_cards[{s}]")
        for s, part in enumerate(_two(f[3 + n], "spit_cards"))
    )
    spit_piles = tuple(
        nt.parse_cards(part, f"spit_piles[{j}]")
        for j, part in enumerate(_two(f[4 + n], "spit_piles"))
    )
    called = nt.parse_seats(f[5 + n], "called", SEATS)
    targets = tuple(
        nt.parse_opt_int(part, f"call_targets[{s}]", hi=1)
        for s, part in enumerate(_two(f[6 + n], "call_targets"))
    )
    state = State(
        Setup(SEATS, 0, position_rules),
        phase,  # type: ignore[arg-type]
        layouts,
        tuple(ups),
        spit_cards,
        spit_piles,
        called,
        targets,
        nt.parse_opt_int(f[7 + n], "locked", hi=1),
        nt.parse_opt_int(f[8 + n], "chooser", hi=1),
        round_,
        2 * (round_ - 1),
        nt.parse_opt_int(f[9 + n], "winner", hi=1),
        nt.parse_int(f[10 + n], RESIGNED_FIELD, hi=1) if len(f) > 10 + n else None,
    )
    check_position(state, allow_over=True)
    return state
