"""Presence across servers, as one server answers it (``Presence.present_seats``): its own streams
at once, merged with what the shared store says of the others, and never held up by a store that
does not answer (GetView otherwise answers from memory, also during an outage). Across real
servers on PostgreSQL: ``test_lifecycle_postgres.py``."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from cardcore_server.app.presence import PRESENCE_FRESH_S, PRESENCE_READ_S, Presence
from cardcore_server.store import StoreError


class Shared:
    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.published: list[tuple[str, frozenset[int]]] = []
        self.reads: list[list[str]] = []

    def set_presence(self, game_id: str, seats: frozenset[int]) -> None:
        self.published.append((game_id, seats))

    async def present_seats(self, game_ids: Any) -> dict[str, set[int]]:
        self.reads.append(list(game_ids))
        if self.answer == "hang":
            await asyncio.Event().wait()
        if self.answer == "fail":
            raise StoreError("store unreachable: OperationalError")
        return dict(self.answer)


def test_own_streams_merge_with_the_stores_and_an_outage_never_holds_an_answer() -> None:
    async def main() -> None:
        for answer, want in (
            ({"g": {1}, "other": {0}}, {"g": {0, 1}, "h": set()}),
            ("fail", {"g": {0}, "h": set()}),
            ("hang", {"g": {0}, "h": set()}),
        ):
            shared = Shared(answer)
            lobby = Presence(shared)  # type: ignore[arg-type]
            lobby.stream_opened("g", 0)
            lobby.stream_opened("g", 0)  # two streams of one seat
            lobby.stream_opened("g", "spectator")  # spectators are nobody's presence
            started = time.monotonic()
            assert await lobby.present_seats("g", "h") == want
            assert time.monotonic() - started < PRESENCE_READ_S + 0.3
            lobby.stream_closed("g", 0)
            lobby.stream_closed("g", 0)
            assert shared.published == [
                ("g", frozenset({0})),
                ("g", frozenset({0})),
                ("g", frozenset({0})),
                ("g", frozenset()),
            ]

    asyncio.run(main())


def test_the_stores_answer_stands_a_moment_and_own_streams_are_always_current() -> None:
    """Every viewer's page asks for its view after every entry: the other servers' presence is
    read once per game per PRESENCE_FRESH_S, not once per question."""

    async def main() -> None:
        shared = Shared({"g": {1}})
        lobby = Presence(shared)  # type: ignore[arg-type]
        assert await lobby.present_seats("g") == {"g": {1}}
        lobby.stream_opened("g", 0)
        shared.answer = {"g": {2}}
        assert await lobby.present_seats("g") == {"g": {0, 1}}  # own at once, the store's kept
        assert await lobby.present_seats("g", "h") == {"g": {0, 1}, "h": set()}
        assert shared.reads == [["g"], ["h"]]  # only the game not yet read
        await asyncio.sleep(PRESENCE_FRESH_S + 0.05)
        assert await lobby.present_seats("g") == {"g": {0, 2}}
        assert shared.reads == [["g"], ["h"], ["g"]]

    asyncio.run(main())
