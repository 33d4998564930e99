"""Who is at the table: the seats with an event stream open now, on this server or another.

This server counts its own streams per game and seat; on a shared store it publishes them, and
merges what the other servers published when it answers. Presence is advisory: a store that
does not answer never holds an answer up (GetView otherwise answers from memory, also during
an outage), and the other servers' presence, once read, stands a moment.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from typing import Final

from ..store import SharedStore, StoreError
from .outage import ignore_outcome

PRESENCE_READ_S: Final = 0.5
"""How long an answer waits for the other servers' presence (a shared store) before it gives
this server's own: GetView never otherwise waits on the store, and must not during an outage."""
PRESENCE_CACHED_MAX: Final = 4096
"""Games kept in that memory before the expired ones are dropped."""
PRESENCE_FRESH_S: Final = 0.25
"""How long the other servers' presence, once read, answers for a game: the web table asks
for its view after every entry, and every viewer of a game would otherwise cost the store a
read per entry (a read that failed or timed out stands as "none" as long). This server's own
streams are always current."""


class Presence:
    """Open streams per game and seat (a spectator's stream is nobody's presence)."""

    def __init__(self, shared: SharedStore | None) -> None:
        self._shared = shared
        self.present: dict[str, Counter[int]] = {}
        """Open streams per game and seat on this server."""
        self._elsewhere: dict[str, tuple[float, set[int]]] = {}
        """Per game, the presence the store last gave, and until when (monotonic) it stands."""

    def stream_opened(self, game_id: str, viewer: object) -> None:
        if isinstance(viewer, int):
            self.present.setdefault(game_id, Counter())[viewer] += 1
            self._publish(game_id)

    def stream_closed(self, game_id: str, viewer: object) -> None:
        if isinstance(viewer, int):
            seen = self.present.get(game_id)
            if seen is not None:
                seen[viewer] -= 1
                if seen[viewer] <= 0:
                    del seen[viewer]
                if not seen:
                    del self.present[game_id]
                self._publish(game_id)

    def _publish(self, game_id: str) -> None:
        """Tell the other servers on the store (none on SQLite) which seats stream from here."""
        if self._shared is not None:
            self._shared.set_presence(game_id, frozenset(self.present.get(game_id, ())))

    async def present_seats(self, *game_ids: str) -> dict[str, set[int]]:
        """The seats of each game with an event stream open now, on this server or any other on
        the store. Advisory: with the store away, this server's own."""
        found = {g: set(self.present.get(g, ())) for g in game_ids}
        if self._shared is None:
            return found
        now = time.monotonic()
        cached = self._elsewhere
        stale = [g for g in found if cached.get(g, (0.0, set()))[0] <= now]
        if stale:
            # shielded: a read cut short by the time-out runs to its end and gives its
            # connection back in order (cancelling a query mid-flight would not)
            read = asyncio.ensure_future(self._shared.present_seats(stale))
            try:
                elsewhere = await asyncio.wait_for(asyncio.shield(read), PRESENCE_READ_S)
            except (StoreError, TimeoutError):
                read.add_done_callback(ignore_outcome)
                elsewhere = {}
            if len(cached) > PRESENCE_CACHED_MAX:
                self._elsewhere = cached = {g: c for g, c in cached.items() if c[0] > now}
            until = time.monotonic() + PRESENCE_FRESH_S
            for g in stale:
                cached[g] = (until, elsewhere.get(g, set()))
        for g in found:
            found[g] |= cached[g][1]
        return found
