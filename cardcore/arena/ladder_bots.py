"""Bots the ladder's documentation and tests use: :class:`SlowBot`."""

from __future__ import annotations

from ..bots import ReactionBot


class SlowBot(ReactionBot):
    """A :class:`~cardcore.bots.ReactionBot` that asks for long delays (600-900 ms): longer
    than a human reaction time, so the referee keeps them as deliberate waits and it loses
    most races — a bot a ladder must rank below the quick ones."""

    def __init__(self, seat: int, seed: int) -> None:
        super().__init__(seat, seed, min_ms=600, max_ms=900)
