"""Zones: which fields of a game's state hold cards, and who sees them; from them every card in
play (conservation), the no-leak hook (:meth:`Zones.shuffle_hidden`) and a position's card check
are derived, so no game writes them by hand."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .. import notation
from ..cards import Card
from ..engine import Role, Viewer
from ..rng import Rng

Visibility = Literal["owner", "everyone", "nobody"]
"""Who sees a zone's cards face up (the referee sees every card): the seat that owns the entry
(``per_seat`` zones), every viewer, or no seat and no spectator."""


@dataclass(frozen=True, slots=True)
class Zone:
    """One field of a game's state that holds cards, and who may see them.

    The field's value is a pile (a tuple of cards), or a tuple of piles (``piles``), or one of
    those per seat (``per_seat``: entry ``i`` belongs to seat ``i``). ``face_up`` names a field
    of the same shape holding, per pile, how many of its last cards (its top) are face up to
    everyone whatever ``seen_by`` says (Spit's layouts). ``hidden_while(state)`` hides the zone
    from every viewer but the referee while it holds (Speed's centre cards before the start)."""

    field: str
    seen_by: Visibility
    per_seat: bool = False
    piles: bool = False
    face_up: str | None = None
    hidden_while: Callable[[Any], bool] | None = None


class Zones:
    """A game's zones, in a fixed order; from them :meth:`cards` (every card in play, for
    conservation), :meth:`shuffle_hidden` (the contract suite's no-leak hook) and
    :meth:`check_cards` (a position's cards against the setup's decks) are derived, so no game
    writes them by hand."""

    def __init__(self, *zones: Zone) -> None:
        self.zones = zones

    def _piles(self, zone: Zone, state: Any) -> list[tuple[str, int | None, tuple[Card, ...], int]]:
        """``(path, owner, pile, face-up count)`` for every pile of ``zone``."""
        value = getattr(state, zone.field)
        counts = getattr(state, zone.face_up) if zone.face_up is not None else None
        entries = (
            [
                (f"[{i}]", i, v, counts[i] if counts is not None else None)
                for i, v in enumerate(value)
            ]
            if zone.per_seat
            else [("", None, value, counts)]
        )
        out = []
        for path, owner, entry, count in entries:
            if zone.piles:
                for j, pile in enumerate(entry):
                    up = count[j] if count is not None else 0
                    out.append((f"{zone.field}{path}[{j}]", owner, pile, up))
            else:
                out.append((f"{zone.field}{path}", owner, entry, count or 0))
        return out

    def cards(self, state: Any) -> list[Card]:
        """Every card in every zone, hidden or not."""
        return [c for z in self.zones for _, _, pile, _ in self._piles(z, state) for c in pile]

    def _hidden(self, zone: Zone, owner: int | None, viewer: Viewer, state: Any) -> bool:
        if zone.hidden_while is not None and zone.hidden_while(state):
            return True
        if zone.seen_by == "everyone":
            return False
        return not (zone.seen_by == "owner" and owner is not None and viewer == owner)

    def shuffle_hidden(self, state: Any, viewer: Viewer, rng: Rng) -> Any:
        """The same position with every card ``viewer`` cannot see permuted among the places
        of such cards (face-up tops stay where they are)."""
        if viewer == Role.REFEREE:
            return state
        plan = []  # per zone: its piles, each with how many of its bottom cards are hidden
        pool: list[Card] = []
        for zone in self.zones:
            piles = []
            for _, owner, pile, up in self._piles(zone, state):
                down = len(pile) - up if self._hidden(zone, owner, viewer, state) else 0
                pool += pile[:down]
                piles.append((pile, down))
            plan.append(piles)
        rng.shuffle(pool)
        at = 0
        changes: dict[str, Any] = {}
        for zone, piles in zip(self.zones, plan, strict=True):
            new = []
            for pile, down in piles:
                new.append(tuple(pool[at : at + down]) + tuple(pile[down:]) if down else pile)
                at += down
            changes[zone.field] = self._rebuild(zone, getattr(state, zone.field), iter(new))
        return state._replace(**changes)

    @staticmethod
    def _rebuild(zone: Zone, value: Any, piles: Iterator[tuple[Card, ...]]) -> Any:
        def entry(e: Any) -> Any:
            return tuple(next(piles) for _ in e) if zone.piles else next(piles)

        return tuple(entry(e) for e in value) if zone.per_seat else entry(value)

    def check_cards(self, state: Any, deck: Sequence[Card]) -> None:
        """Every card comes from the setup's decks and none more often than they hold it
        (:class:`~cardcore.errors.InvalidPosition` names the pile where one is too many)."""
        places = ((path, pile) for z in self.zones for path, _, pile, _ in self._piles(z, state))
        notation.check_cards_in(places, deck)
