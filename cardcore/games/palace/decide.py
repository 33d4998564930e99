"""Palace's ``decide`` (docs/games/palace.md, docs/games/common.md#order-of-checks): the events of
each command, or :class:`~cardcore.errors.Rejected`. The rules it applies are in :mod:`.rules`.
"""

from __future__ import annotations

from ... import kit
from ...cards import JOKER_RANK, Card, rank_name
from ...errors import RejectCode, Rejected
from .declarations import (
    AddDrawn,
    BurnKind,
    Command,
    Pickup,
    Play,
    PlayFaceDown,
    Ready,
    Swap,
)
from .events import (
    CardsAdded,
    CardsDrawn,
    CardsPlayed,
    DirectionReversed,
    Event,
    FaceDownTurned,
    PileBurned,
    PileTaken,
    PlayerResigned,
    PlayerWentOut,
    PlayStarted,
    Readied,
    Swapped,
    TurnPassed,
)
from .rules import (
    _STARTER_RANKS,
    State,
    _advance,
    _bound_rank,
    _burn,
    _cards_text,
    _completion_played,
    _draw_count,
    _goes_out,
    _holds,
    _minus,
    _next,
    _power_finish_fails,
    _source,
    _top_run,
    _top_text,
    evolve,
)

# --------------------------------------------------------------------------- decide


@kit.hot  # the seat check written in (the pure build): kit.seat_of
def decide(state: State, seat: object, command: Command) -> list[Event]:
    """The events of ``command`` by ``seat``, or :class:`Rejected`
    (docs/games/common.md#order-of-checks); :class:`~cardcore.errors.InvalidSeat` for a seat that is
    not one (a caller's error)."""
    p = kit.seat_of(state._setting.seats, seat)
    finished = state.finished
    if len(finished) >= len(state.hands) - 1:  # outcome(state) is set (a resign ends a setup)
        raise Rejected(RejectCode.GAME_OVER, "the game is over")
    if p in finished:
        gone = "resigned" if p in state.resigned else "gone out"
        raise Rejected(RejectCode.PLAYER_FINISHED, f"seat {p} has {gone}")
    if isinstance(command, Play):
        return _decide_play(state, p, command.cards)
    if isinstance(command, PlayFaceDown):
        return _decide_face_down(state, p, command.index)
    if isinstance(command, Pickup):
        return _decide_pickup(state, p)
    if isinstance(command, AddDrawn):
        return _decide_add_drawn(state, p, command.cards)
    if isinstance(command, Swap):
        return _decide_swap(state, p, command)
    if isinstance(command, Ready):
        if state.phase != "setup":
            raise Rejected(RejectCode.INVALID_PHASE, "the setup is over")
        return _decide_ready(state, p)
    if isinstance(command, kit.Resign):
        return _decide_resign(state, p, command.by)
    raise Rejected(RejectCode.INVALID_PHASE, f"not a Palace command: {command!r}")


def _require_play_phase(state: State) -> None:
    if state.phase != "play":
        raise Rejected(RejectCode.INVALID_PHASE, "the setup is not over (swap, then ready)")


def _not_your_turn(state: State) -> Rejected:
    return Rejected(RejectCode.NOT_YOUR_TURN, f"it is seat {state.current}'s turn")


def _decide_swap(state: State, p: int, command: Swap) -> list[Event]:
    if state.phase != "setup":
        raise Rejected(RejectCode.INVALID_PHASE, "swapping is over: the play has begun")
    if p in state.ready:
        raise Rejected(RejectCode.INVALID_PHASE, f"seat {p} is ready: no more swaps")
    if command.hand_card not in state.hands[p]:
        raise Rejected(RejectCode.CARD_NOT_AVAILABLE, f"{command.hand_card} is not in your hand")
    if command.up_card not in state.up[p]:
        raise Rejected(
            RejectCode.CARD_NOT_AVAILABLE, f"{command.up_card} is not among your face-up cards"
        )
    return [Swapped(p, command.hand_card, command.up_card)]


def _decide_ready(state: State, p: int) -> list[Event]:
    events: list[Event] = [Readied(p)]
    ready = state.ready | {p}
    # Resigned seats (all of ``finished`` in the setup phase) are not waited for.
    if p not in state.ready and len(ready.union(state.finished)) == len(state.hands):
        events.append(PlayStarted(_starter(state)))
    return events


def _decide_resign(state: State, p: int, by: str | None) -> list[Event]:
    """docs/games/common.md#leaving-a-game for Palace, in any phase: ``p``'s cards are set aside and
    ``p`` is out. With two players left the game ends at once (``outcome``: ``RESIGNED``).
    Otherwise, in the setup phase, the play begins if everybody left is ready; in play, any
    add-drawn window closes, and if it was ``p``'s turn the next player plays on the pile as it is
    (a follow-up ``p`` owed is void, as for a player who went out:
    docs/games/palace.md#lead-to-a-finished-player)."""
    n = len(state.hands)
    cards = len(state.hands[p]) + len(state.up[p]) + len(state.down[p])
    resign = PlayerResigned(p, cards, by)
    events: list[Event] = [resign]
    finished = (*state.finished, p)
    if len(finished) >= n - 1:
        events.append(TurnPassed(None, False, None))
        return events
    if state.phase == "setup":
        if len(state.ready.union(finished)) == n:  # p was the last one not ready
            events.append(PlayStarted(_starter(evolve(state, resign))))
        return events
    if state.current == p:
        events.append(TurnPassed(_next(n, finished, p, state.direction), False, None))
    else:
        events.append(TurnPassed(state.current, state.follow_up, None))
    return events


def _starter(state: State) -> int:
    """docs/games/palace.md#starter and docs/games/palace.md#variant-flags ``starter_rule``; ties go
    to the lowest seat (docs/games/palace.md#decisions, item 1)."""
    rule = state.setup.rules.starter_rule  # once per game
    # Seat 0 unless it resigned (docs/games/common.md#leaving-a-game); resigned seats hold no card,
    # so no rank picks them.
    first = next(q for q in range(len(state.hands)) if q not in state.finished)
    if rule == "left_of_dealer":
        return first
    zones = (state.hands,) if rule == "lowest_in_hand" else (state.up, state.hands)
    for rank in _STARTER_RANKS:
        for zone in zones:
            for q, cards in enumerate(zone):
                for c in cards:
                    if c.rank == rank:
                        return q
    return first


def _split_turn_play(
    state: State, p: int, cards: tuple[Card, ...]
) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """Which of ``cards`` come from the hand and which from the face-up cards, for a turn play
    (docs/games/palace.md#active-source; docs/games/palace.md#variant-flags
    ``combine_hand_and_up``); raises ``CardNotAvailable``."""
    hand = state.hands[p]
    if hand:
        if _holds(hand, cards):
            return cards, ()
        rules = state._setting
        if rules.combine_hand_and_up and not state.stock:
            extra = _minus(cards, hand)
            if extra and _minus(state.up[p], extra) is not None:
                return hand, extra
        raise Rejected(RejectCode.CARD_NOT_AVAILABLE, f"{_cards_text(cards)} not in your hand")
    up = state.up[p]
    if up:
        if _holds(up, cards):
            return (), cards
        raise Rejected(
            RejectCode.CARD_NOT_AVAILABLE, f"{_cards_text(cards)} not among your face-up cards"
        )
    raise Rejected(
        RejectCode.CARD_NOT_AVAILABLE, "only face-down cards are left: use play_face_down"
    )


def _decide_play(state: State, p: int, cards: tuple[Card, ...]) -> list[Event]:
    """docs/games/palace.md#a-turn, step 1 (docs/games/palace.md#legal-plays); by another seat, a
    completion (docs/games/palace.md#out-of-turn-completion)."""
    _require_play_phase(state)
    if state.current != p:
        return _decide_completion(state, p, cards)
    if not cards:
        raise Rejected(RejectCode.CARD_NOT_AVAILABLE, "a play needs at least one card")
    from_hand, from_up = _split_turn_play(state, p, cards)
    rank = cards[0].rank
    for c in cards:
        if c.rank != rank:
            raise Rejected(RejectCode.MIXED_RANKS, f"{_cards_text(cards)} are not all one rank")
    rules = state._setting
    if rank not in state.allowed:
        raise Rejected(
            RejectCode.ILLEGAL_CARD,
            f"{rank_name(rank)} does not go on {_top_text(state.pile, rules)}",
        )
    lowest = _bound_rank(state, p)
    if lowest is not None and rank != lowest:
        raise Rejected(
            RejectCode.ILLEGAL_CARD,
            f"the first play must be your lowest card, a {rank_name(lowest)}",
        )
    return _resolve(state, p, from_hand, from_up, None, out_of_turn=False)


def _decide_completion(state: State, p: int, cards: tuple[Card, ...]) -> list[Event]:
    """docs/games/palace.md#out-of-turn-completion; anything else by a non-current player is
    ``NotYourTurn`` (docs/games/common.md#order-of-checks, step 5)."""
    rules = state._setting
    pile = state.pile
    if not (_completion_played(rules) and pile and cards):
        raise _not_your_turn(state)
    rank = pile[-1].rank
    if _top_run(pile) + len(cards) != 4 or any(c.rank != rank for c in cards):
        raise _not_your_turn(state)
    hand = state.hands[p]
    source = hand if hand else state.up[p]
    rest = _minus(source, cards)
    if rest is None:
        raise _not_your_turn(state)
    if _power_finish_fails(state, rank):
        hand_after, up_after = (len(rest), len(state.up[p])) if hand else (0, len(rest))
        if _goes_out(state, hand_after, up_after, len(state.down[p])):
            raise Rejected(RejectCode.ILLEGAL_CARD, "you may not go out on a power card")
    from_hand, from_up = (cards, ()) if hand else ((), cards)
    return _resolve(state, p, from_hand, from_up, None, out_of_turn=True)


def _resolve(
    state: State,
    p: int,
    from_hand: tuple[Card, ...],
    from_up: tuple[Card, ...],
    blind: tuple[int, Card] | None,
    *,
    out_of_turn: bool,
) -> list[Event]:
    """The effects of an accepted play, in docs/games/palace.md#a-turn: onto the pile, burn check,
    draw, finish check, then who plays next (follow-up, skip, add-drawn window)."""
    n = len(state.hands)
    events: list[Event]
    if blind is None:
        cards = from_hand + from_up
        events = [CardsPlayed(p, from_hand, from_up, out_of_turn)]
        down_after = len(state.down[p])
    else:
        cards = (blind[1],)
        events = [FaceDownTurned(p, blind[0], blind[1])]
        down_after = len(state.down[p]) - 1
    rank = cards[0].rank
    hand_after = len(state.hands[p]) - len(from_hand)
    up_after = len(state.up[p]) - len(from_up)
    pile_after = state.pile + cards
    draw = _draw_count(state, hand_after)
    finishing = _goes_out(state, hand_after, up_after, down_after)
    if finishing and _power_finish_fails(state, rank):
        # [ENGINE] going out on a power card is not allowed: the play fails like a bad blind card.
        nxt = _next(n, state.finished, p, state.direction)
        events.append(PileTaken(p, len(pile_after), "special_finish"))
        events.append(TurnPassed(nxt, False, None))
        return events
    burn, finished = _burn_draw_out(
        state, p, events, pile_after, rank=rank, draw=draw, finishing=finishing
    )
    if finished is None:
        return events
    rules = state._setting
    direction = state.direction
    if burn is not None:
        # A four of a kind always gives the lead; a 10 does unless ten_follow_up is off.
        follow = burn == "four_of_a_kind" or rules.ten_follow_up
    else:
        follow = rank == 2 and rules.two_follow_up
        if rank == JOKER_RANK and len(cards) % 2 == 1:
            direction = -direction
            events.append(DirectionReversed(direction))
    if follow and not finishing:
        events.append(TurnPassed(p, True, None))
        return events
    # docs/games/palace.md#lead-to-a-finished-player: the next unfinished player leads / plays on
    if follow:
        nxt = _next(n, finished, p, direction)
        events.append(TurnPassed(nxt, False, None))
        return events
    # docs/games/palace.md#variant-flags eight_skip: n eights skip n unfinished players (a burn
    # overrides the skip).
    if rules.eight_skip and rank == 8 and burn is None:
        nxt, skipped = _advance(n, finished, p, direction, len(cards) + 1)
    else:
        nxt, skipped = _next(n, finished, p, direction), ()
    window = None
    if rules.add_drawn_same_rank and not finishing and nxt != p:
        window = (p, rank, draw)
    events.append(TurnPassed(nxt, False, window, skipped))
    return events


def _burn_draw_out(
    state: State,
    p: int,
    events: list[Event],
    pile_after: tuple[Card, ...],
    *,
    rank: int,
    draw: int,
    finishing: bool,
) -> tuple[BurnKind | None, tuple[int, ...] | None]:
    """docs/games/palace.md#a-turn, steps 2–4, after cards went on the pile, the same for a play and
    for ``add_drawn``: the burn check, the draw, the finish check. Appends their events; returns the
    burn and the finishing order after them, None once the game is over (its last
    ``TurnPassed`` appended): the caller then decides only who plays next."""
    burn = _burn(pile_after, len(pile_after) - len(state.pile), rank, state._setting)
    if burn is not None:
        events.append(PileBurned(p, len(pile_after), burn))
    if draw:
        events.append(CardsDrawn(p, state.stock[:draw]))
    finished = state.finished
    if finishing:
        finished = (*finished, p)
        # The place counts those who went out: resigned seats rank below them all
        # (docs/games/common.md#leaving-a-game).
        events.append(PlayerWentOut(p, len(finished) - len(state.resigned)))
        if len(finished) >= len(state.hands) - 1:
            events.append(TurnPassed(None, False, None))
            return burn, None
    return burn, finished


def _decide_face_down(state: State, p: int, index: int) -> list[Event]:
    """docs/games/palace.md#face-down-cards: the face-down cards are played blind, last."""
    _require_play_phase(state)
    if state.current != p:
        raise _not_your_turn(state)
    if state.hands[p] or state.up[p]:
        raise Rejected(
            RejectCode.CARD_NOT_AVAILABLE, "face-down cards come after the hand and face-up cards"
        )
    down = state.down[p]
    if not 0 <= index < len(down):
        raise Rejected(RejectCode.INVALID_TARGET, f"no face-down card {index} (have {len(down)})")
    card = down[index]
    if card.rank in state.allowed:
        return _resolve(state, p, (), (), (index, card), out_of_turn=False)
    # docs/games/palace.md#face-down-cards: a blind card that does not fit goes into the hand with
    # the whole pile.
    nxt = _next(len(state.hands), state.finished, p, state.direction)
    return [
        FaceDownTurned(p, index, card),
        PileTaken(p, len(state.pile) + 1, "failed_blind"),
        TurnPassed(nxt, False, None),
    ]


def _has_plain_play(state: State, p: int) -> bool:
    """Can ``p`` make a play that fits and does not fail (docs/games/palace.md#picking-up,
    ``MustPlayIfAble``)?"""
    hand = state.hands[p]
    source = _source(state, p)
    # Only a lone last card can fail: with two or more, one can always be kept back.
    lone_last = len(source) == 1 and (
        not state.stock and not state.up[p] and not state.down[p] if hand else not state.down[p]
    )
    for c in source:
        if c.rank in state.allowed:
            return not (lone_last and _power_finish_fails(state, c.rank))
    return False


def _decide_pickup(state: State, p: int) -> list[Event]:
    _require_play_phase(state)
    if state.current != p:
        raise _not_your_turn(state)
    if not state.pile:
        raise Rejected(RejectCode.EMPTY_PILE, "there is no pile to pick up")
    if state.follow_up:
        raise Rejected(RejectCode.MUST_PLAY_IF_ABLE, "you owe a follow-up play")
    if not state.hands[p] and not state.up[p]:
        raise Rejected(RejectCode.MUST_PLAY_IF_ABLE, "a face-down card must always be tried")
    if not state._setting.voluntary_pickup and _has_plain_play(state, p):
        raise Rejected(RejectCode.MUST_PLAY_IF_ABLE, "you have a card that can be played")
    nxt = _next(len(state.hands), state.finished, p, state.direction)
    return [PileTaken(p, len(state.pile), "pickup"), TurnPassed(nxt, False, None)]


def _decide_add_drawn(state: State, p: int, cards: tuple[Card, ...]) -> list[Event]:
    _require_play_phase(state)
    window = state.window
    if window is None or window[0] != p:
        raise Rejected(RejectCode.WINDOW_CLOSED, "no add-drawn window of yours is open")
    _, rank, drawn = window
    hand = state.hands[p]
    tail = hand[len(hand) - drawn :] if drawn else ()
    if not cards or any(c.rank != rank for c in cards) or _minus(tail, cards) is None:
        raise Rejected(
            RejectCode.CARD_NOT_AVAILABLE,
            f"only just-drawn {rank_name(rank)}s may be added",
        )
    n = len(hand)
    hand_after = n - len(cards)
    draw = _draw_count(state, hand_after)
    finishing = _goes_out(state, hand_after, len(state.up[p]), len(state.down[p]))
    if finishing and _power_finish_fails(state, rank):
        raise Rejected(RejectCode.ILLEGAL_CARD, "you may not go out on a power card")
    events: list[Event] = [CardsAdded(p, cards)]
    pile_after = state.pile + cards
    burn, finished = _burn_draw_out(
        state, p, events, pile_after, rank=rank, draw=draw, finishing=finishing
    )
    if finished is None:
        return events
    seats = len(state.hands)
    # docs/games/palace.md#variant-flags: an added ten or four burns the pile and p leads
    if burn is not None:
        if finishing:
            nxt = _next(seats, finished, p, state.direction)
            events.append(TurnPassed(nxt, False, None))
        else:
            events.append(TurnPassed(p, True, None))
        return events
    # Added cards have no other effect; the window stays open with the new draw.
    events.append(
        TurnPassed(state.current, state.follow_up, None if finishing else (p, rank, draw))
    )
    return events
