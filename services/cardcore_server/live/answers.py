"""The one answer of each ``action_id``: the ``seq`` of the entry that accepted it, or the stored
rejection (docs/reference/grpc.md#conventions: a resent action is applied once). A seat keeps
its last :data:`~..store.REJECTIONS_KEPT` rejections, as the store does (the sequencer forgets the
oldest in the commit that stores a new one)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

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

    def past_the_cap(self, adding: Counter[int]) -> list[Key]:
        """Each seat's oldest stored rejections that keeping ``adding`` more (per seat) would
        push past :data:`~..store.REJECTIONS_KEPT`."""
        kept = self._kept
        over = {seat: n - REJECTIONS_KEPT for seat, n in (kept + adding).items()}
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
        for rej in rejections:
            key = (rej.seat, rej.action_id)
            if key not in self.rejected:
                self._kept[rej.seat] += 1
            self.rejected[key] = rej
        for key in self.past_the_cap(Counter()):
            del self.rejected[key]
            self._kept[key[0]] -= 1


def stored_rejection(seat: int, action_id: str, text: str, exc: Rejected) -> StoredRejection:
    """What the store keeps of a rejected action: enough for its one answer, and bounded."""
    detail = bounded(exc.detail, REJECTION_DETAIL)
    return StoredRejection(seat, action_id, command_digest(text), exc.code.value, detail)
