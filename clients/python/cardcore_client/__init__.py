"""A typed async Python client of the cardcore gRPC service.

>>> async with Client("127.0.0.1:50051") as client:          # doctest: +SKIP
...     game = await client.create_game("ratscrew", ["human", "reaction"])
...     me = client.game(game.game_id, game.seat_tokens[0])
...     await me.submit({"kind": "Play"})
...     async for entry in me.stream(from_seq=0):
...         print(entry.seq, [e.kind for e in entry.events])

``submit`` retries transient failures with the same ``action_id`` (the server applies it once);
``stream`` reconnects after a failure and resumes from the entry after the last one it yielded,
with no gap and no duplicate.
"""

from .client import (
    Ack,
    CallError,
    Client,
    CreatedGame,
    Entry,
    GameClient,
    Joined,
    PlaySession,
    Rejection,
    SubmitResult,
    Table,
    TableSeat,
    View,
    entropy_commitment,
)

__all__ = [
    "Ack",
    "CallError",
    "Client",
    "CreatedGame",
    "Entry",
    "GameClient",
    "Joined",
    "PlaySession",
    "Rejection",
    "SubmitResult",
    "Table",
    "TableSeat",
    "View",
    "entropy_commitment",
]
