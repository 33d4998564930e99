"""War: a small game that lives only in the tests, the worked example of docs/adding-a-game.md.

Rules (every one decided here, so the engine is deterministic):

1. Two players; one 52-card deck, shuffled with stream 0 of the seed and dealt one card at a time
   from seat 0 (docs/games/common.md#dealing), so each holds a face-down stack of 26, top first.
   Nobody, the owner included, sees a stack.
2. Each player turns (``Turn``) the top card of their stack face up, in either order (a race
   that does not matter); a player who has turned waits (``NotYourTurn``) for the other.
3. When both have turned, the higher rank wins the battle (an ace is highest when ``aces_high``,
   else lowest; suits never matter) and its player takes the table (``Collect``; until then
   nobody turns, ``InvalidPhase``; anyone else, ``NotCollector``): the face-up cards, battle by
   battle in the order turned, then the burned cards in the order burned, go under the
   winner's stack, the winner's card of each battle first (seat 0's first would let many a
   game cycle for ever).
4. A tie is a war: both cards stay face up, and each player burns ``war_burn`` cards from the
   top of their stack face down (fewer if they must keep one card to turn), then both turn
   again. A player who has no card left to turn loses the war: the other collects. If neither
   has one, nobody can go on: the game ends with no winner.
5. The game ends when one player holds all 52 cards (or at the setup's event limit).
6. Either player may resign (``kit.Resign``, docs/games/common.md#leaving-a-game) at any point:
   with two players that ends the game at once and the other wins. ``legal_commands`` never
   offers it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, NamedTuple, assert_never

from cardcore import engine, kit
from cardcore import notation as nt
from cardcore.cards import HIDDEN, Card, SeenCard, standard_deck
from cardcore.engine import Game, GameInfo, Outcome, Role, Setup, Termination, Viewer
from cardcore.errors import InvalidPosition, RejectCode, Rejected
from cardcore.rng import shuffled


@dataclass(frozen=True, slots=True)
class Rules:
    war_burn: int = engine.flag(1, "cards each player burns face down in a war", min=0, max=3)
    aces_high: bool = engine.flag(True, "an ace ranks above the king (else below the two)")

    def __post_init__(self) -> None:
        engine.check_rules(self)  # Rules(...) built directly is checked as make_setup checks


@kit.record
class Turn:
    """Turn the top card of your stack face up."""


@kit.record
class Collect:
    """Take the table: the battle (or the war) is yours."""


Command = Turn | Collect | kit.Resign
TURN: Final = Turn()
COLLECT: Final = Collect()


@kit.record
class Dealt:
    stacks: tuple[tuple[SeenCard, ...], ...]


@kit.record
class Turned:
    seat: int
    card: Card


@kit.record
class Burned:
    """``seat`` burned ``cards`` face down for a war: only the referee sees them."""

    seat: int
    cards: tuple[SeenCard, ...]


@kit.record
class Collected:
    """``seat`` slid the whole table (``cards`` of them) under its stack."""

    seat: int
    cards: int


@kit.record
class Resigned:
    """``seat`` left the game (rule 6): the other wins."""

    seat: int


Event = Dealt | Turned | Burned | Collected | Resigned


class State(NamedTuple):
    setup: Setup[Rules]
    stacks: tuple[tuple[Card, ...], ...]  # top first, face down
    turned: tuple[Card | None, ...] = (None, None)  # this battle's face-up card per seat
    up: tuple[Card, ...] = ()  # the tied pairs of this war so far, face up, in the order turned
    down: tuple[Card, ...] = ()  # the burned cards, in the order burned
    resigned: int | None = None  # rule 6: the seat that left (the game is over)


@kit.record
class View:
    stacks: tuple[tuple[SeenCard, ...], ...]
    turned: tuple[Card | None, ...]
    up: tuple[Card, ...]
    down: tuple[SeenCard, ...]


def _value(card: Card, rules: Rules) -> int:
    return 14 if card.rank == 1 and rules.aces_high else card.rank


def _tie(a: Card | None, b: Card | None, rules: Rules) -> bool:
    return a is not None and b is not None and _value(a, rules) == _value(b, rules)


def owed_to(state: State) -> int | None:
    """The seat that takes the table now (rules 3 and 4), if any."""
    (a, b), rules = state.turned, state.setup.rules
    if a is not None and b is not None:  # not a tie: that went to ``up`` at once
        return 0 if _value(a, rules) > _value(b, rules) else 1
    if a is None and b is None and state.up and len([s for s in state.stacks if s]) == 1:
        return 0 if state.stacks[0] else 1  # the other has no card to go on with the war
    return None


def decide(state: State, seat: int, command: Command) -> list[Event]:
    """docs/games/common.md#rejection-codes order: GameOver, InvalidPhase, then turn and role, then
    the card."""
    if outcome(state) is not None:
        raise Rejected(RejectCode.GAME_OVER, "the game is over")
    if type(command) is kit.Resign:
        return [Resigned(seat)]
    owed = owed_to(state)
    if type(command) is Collect:
        if owed != seat:
            raise Rejected(RejectCode.NOT_COLLECTOR, f"the table is not seat {seat}'s to take")
        return [Collected(seat, len(cards_in_play(state)) - sum(map(len, state.stacks)))]
    if type(command) is not Turn:
        raise Rejected(RejectCode.INVALID_PHASE, f"not a War command: {command!r}")
    if owed is not None:
        raise Rejected(RejectCode.INVALID_PHASE, f"seat {owed} takes the table first")
    if state.turned[seat] is not None:
        raise Rejected(RejectCode.NOT_YOUR_TURN, "wait for the other player to turn")
    if not state.stacks[seat]:
        raise Rejected(RejectCode.NO_CARDS, f"seat {seat} has no cards")
    card, rules = state.stacks[seat][0], state.setup.rules
    events: list[Event] = [Turned(seat, card)]
    left = [len(s) - (i == seat) for i, s in enumerate(state.stacks)]
    if not _tie(card, state.turned[1 - seat], rules) or 0 in left:
        return events  # rule 4: who cannot go on loses the war (owed_to); neither: game over
    for s in (0, 1):  # rule 4: burn, keeping a card to turn (``seat``'s top card is turned)
        burn = state.stacks[s][s == seat :][: min(rules.war_burn, left[s] - 1)]
        events += [Burned(s, burn)] if burn else []
    return events


Stacks = tuple[tuple[Card, ...], ...]


def _without_top(stacks: Stacks, seat: int, k: int) -> Stacks:
    return tuple(st[k:] if i == seat else st for i, st in enumerate(stacks))


def evolve(state: State, event: Event) -> State:
    s = state
    match event:
        case Dealt(dealt):
            return State(s.setup, tuple(tuple(c for c in st if type(c) is Card) for st in dealt))
        case Turned(seat, card):
            other, stacks = s.turned[1 - seat], _without_top(s.stacks, seat, 1)
            if other is not None and _tie(card, other, s.setup.rules):  # war: the pair stays up
                tied = (card, other) if seat == 0 else (other, card)
                return State(s.setup, stacks, (None, None), s.up + tied, s.down)
            return s._replace(stacks=stacks, turned=(card, other) if seat == 0 else (other, card))
        case Burned(seat, cards):
            burned = s.stacks[seat][: len(cards)]
            return s._replace(stacks=_without_top(s.stacks, seat, len(cards)), down=s.down + burned)
        case Collected(seat):
            up = s.up + tuple(c for c in s.turned if c is not None)  # battles, seat 0's first
            pairs = zip(up[::2], up[1::2], strict=True)
            up = tuple(c for p in pairs for c in (p[seat], p[1 - seat]))  # rule 3: winner's first
            stacks = tuple(st + up + s.down if i == seat else st for i, st in enumerate(s.stacks))
            return State(s.setup, stacks)
        case Resigned(seat):
            return s._replace(resigned=seat)
        case _:
            assert_never(event)


def deck(setup: Setup[Rules]) -> list[Card]:
    return standard_deck()


def initial_state(setup: Setup[Rules]) -> State:
    return State(setup, ((), ()))


def deal(setup: Setup[Rules]) -> list[Event]:
    cards = shuffled(setup.seed, 0, deck(setup))
    return [Dealt((tuple(cards[0::2]), tuple(cards[1::2])))]


def view(state: State, viewer: Viewer) -> View:
    if viewer == Role.REFEREE:
        return View(state.stacks, state.turned, state.up, state.down)
    stacks = tuple((HIDDEN,) * len(s) for s in state.stacks)
    return View(stacks, state.turned, state.up, (HIDDEN,) * len(state.down))


def redact(event: Event, viewer: Viewer) -> Event:
    if viewer == Role.REFEREE:
        return event
    if type(event) is Dealt:
        return Dealt(tuple((HIDDEN,) * len(s) for s in event.stacks))
    if type(event) is Burned:
        return Burned(event.seat, (HIDDEN,) * len(event.cards))
    return event


ZONES: Final = kit.Zones(
    kit.Zone("stacks", "nobody", per_seat=True),
    kit.Zone("up", "everyone"),
    kit.Zone("down", "nobody"),
)  # where the cards lie and who sees them; the kit derives shuffle_hidden from it
shuffle_hidden = ZONES.shuffle_hidden


def cards_in_play(state: State) -> list[Card]:
    return [*ZONES.cards(state), *(c for c in state.turned if c is not None)]


def outcome(state: State) -> Outcome | None:
    if state.resigned is not None:
        return Outcome(Termination.RESIGNED, (1 - state.resigned,))
    if state.turned != (None, None):
        return None  # a battle is under way
    holders = [s for s in (0, 1) if state.stacks[s]]
    if not holders and state.up:
        return Outcome(Termination.OUT_OF_CARDS)  # rule 4: a war neither can go on with
    if len(holders) == 1 and not state.up:
        return Outcome(Termination.ALL_CARDS, (holders[0],))
    return None


def legal_commands(state: State, seat: int) -> list[Command]:
    if outcome(state) is not None:
        return []
    owed = owed_to(state)
    if owed is not None:
        return [COLLECT] if owed == seat else []
    return [TURN] if state.turned[seat] is None and state.stacks[seat] else []


def narrate(event: Event) -> str:
    match event:
        case Dealt(stacks):
            return f"dealt {len(stacks[0])} cards to each seat"
        case Turned(seat, card):
            return f"seat {seat} turned {card.symbol}"
        case Burned(seat, cards):
            return f"seat {seat} burned {len(cards)} for the war"
        case Collected(seat, cards):
            return f"seat {seat} collects {cards} cards"
        case Resigned(seat):
            return f"seat {seat} resigned; seat {1 - seat} wins"
        case _:
            assert_never(event)


# --------------------------------------------------------------------------- notation

FIELDS: Final = ("stacks", "turned", "up", "down")


def format_position(state: State, viewer: Viewer) -> str:
    """``war <stacks> <turned> <up> <down>``; stacks top first, the others in table order."""
    v = view(state, viewer)
    turned = nt.per_seat_text(v.turned, lambda c: nt.EMPTY if c is None else str(c))
    stacks = nt.per_seat_text(v.stacks, nt.cards_text)
    return nt.join("war", (stacks, turned, nt.cards_text(v.up), nt.cards_text(v.down)))


def parse_position(text: str, rules: Rules | None) -> State:
    stacks, turned, up, down = nt.split(text, "war", FIELDS)

    def card_or_none(part: str, field: str) -> Card | None:
        return None if part == nt.EMPTY else nt.parse_card(part, field)

    state = State(
        Setup(2, 0, rules or Rules()),
        nt.parse_per_seat(stacks, "stacks", nt.parse_cards),
        nt.parse_per_seat(turned, "turned", card_or_none),
        nt.parse_cards(up, "up"),
        nt.parse_cards(down, "down"),
    )
    check_position(state)
    return state


def check_position(state: State) -> None:
    if state.setup.seats != 2 or len(state.stacks) != 2 or len(state.turned) != 2:
        raise InvalidPosition("stacks", "War is played by exactly two seats")
    nt.check_cards(cards_in_play(state), deck(state.setup))
    if _tie(state.turned[0], state.turned[1], state.setup.rules):
        raise InvalidPosition("turned", "a tie is a war at once: the pair belongs in up")
    if len(state.up) % 2 or (state.down and not state.up):
        raise InvalidPosition("up", "face-up table cards come in tied pairs, before any burn")
    if outcome(state) is not None:
        raise InvalidPosition("stacks", "the game is already over")
    for seat in (0, 1):
        if state.turned[seat] is None and not state.stacks[seat] and owed_to(state) is None:
            raise InvalidPosition(f"stacks[{seat}]", "no card to turn, and the game is not over")


# The game record (engine.Game), field for field; compact, so a reader sees it whole.
# fmt: off
GAME: Final[Game[State, Command, Event, View, Rules]] = Game(
    info=GameInfo("war", "War", "1", min_seats=2, max_seats=2, realtime=True),
    rules_type=Rules, command_types=(Turn, Collect, kit.Resign),
    event_types=(Dealt, Turned, Burned, Collected, Resigned), view_type=View,
    initial_state=initial_state, deal=deal, decide=decide, evolve=evolve,
    legal_commands=legal_commands, outcome=outcome, view=view, redact=redact, narrate=narrate,
    deck=deck, cards_in_play=cards_in_play, shuffle_hidden=shuffle_hidden,
    is_sensible=engine.always_sensible, check_position=check_position,
    format_position=format_position, parse_position=parse_position,
)
# fmt: on
