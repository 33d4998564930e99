"""The one answer of each ``action_id``: the ``seq`` of the entry that accepted it, or the stored
rejection (docs/reference/grpc.md#conventions: a resent action is applied once). A seat keeps
its last :data:`~..store.REJECTIONS_KEPT` rejections, as the store does (the sequencer forgets the
oldest in the commit that stores a new one)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from cardcore.errors import Rejected

from ..errors import bounded
from ..store import REJECTION_DETAIL, REJECTIONS_KEPT, StoredRejection, command_digest

Key = tuple[int, str]
"""``(seat, action_id)``."""


class Answers:
    """A game's answers by ``(seat, action_id)``, as durable as the store's."""

    def __init__(self) -> None:
        self.accepted: dict[Key, int] = {}
        """``(seat, action_id) -> seq`` of accepted actions."""
        self.rejected: dict[Key, StoredRejection] = {}
        """The stored rejections, each seat's oldest first."""
        self._kept: Counter[int] = Counter()
        """How many of :attr:`rejected` each seat has."""

    def past_the_cap(self, adding: Sequence[StoredRejection]) -> list[Key]:
        """Each seat's oldest stored rejections that keeping ``adding`` too would push past
        :data:`~..store.REJECTIONS_KEPT`."""
        if not adding:
            return []  # no seat is past the cap (:meth:`keep` sees to it): most rounds
        return self._oldest_past(self._kept + Counter(r.seat for r in adding))

    def _oldest_past(self, counts: Counter[int]) -> list[Key]:
        """Each seat's oldest stored rejections beyond :data:`~..store.REJECTIONS_KEPT` of
        ``counts`` (per seat)."""
        over = {seat: n - REJECTIONS_KEPT for seat, n in counts.items()}
        if all(n <= 0 for n in over.values()):
            return []
        out = []
        for key in self.rejected:  # oldest first
            if over.get(key[0], 0) > 0:
                over[key[0]] -= 1
                out.append(key)
        return out

    def keep(self, rejections: Iterable[StoredRejection]) -> None:
        """Remember ``rejections`` (stored, oldest first), forgetting each seat's oldest past
        :data:`~..store.REJECTIONS_KEPT` as the store does."""
        added = False
        for rej in rejections:
            key = (rej.seat, rej.action_id)
            if key not in self.rejected:
                self._kept[rej.seat] += 1
                added = True
            self.rejected[key] = rej
        if not added:
            return  # no seat has more than before: none is past the cap
        for key in self._oldest_past(self._kept):
            del self.rejected[key]
            self._kept[key[0]] -= 1


def stored_rejection(seat: int, action_id: str, text: str, exc: Rejected) -> StoredRejection:
    """What the store keeps of a rejected action: enough for its one answer, and bounded."""
    detail = bounded(exc.detail, REJECTION_DETAIL)
    return StoredRejection(seat, action_id, command_digest(text), exc.code.value, detail)
