"""The golden-log presets: each is one seeded bot game, logged and rendered from every viewer.

Add a game's presets here (at least two rule presets per game), then run ``make golden`` and
review the new files before committing them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Preset:
    game: str
    name: str
    seats: int
    seed: int
    rules: dict[str, Any] = field(default_factory=dict)
    event_limit: int = 5_000

    @property
    def stem(self) -> str:
        return f"{self.game}/{self.name}-{self.seats}p-seed{self.seed}"


PRESETS: list[Preset] = [
    Preset("ratscrew", "default", 2, 11),
    Preset("ratscrew", "default", 4, 12),
    Preset(
        "ratscrew",
        "house",
        2,
        13,
        {
            "slap_rules": ["double", "sandwich", "tens", "marriage", "four_in_a_row", "joker"],
            "jokers": 1,
            "false_slap_penalty": 2,
            "false_slap_destination": "to_player_of_top_card",
            "challenge_exhausted": "pass_to_next",
            "auto_collect": True,
        },
    ),
    Preset(
        "ratscrew",
        "house",
        4,
        14,
        {
            "slap_rules": ["double", "sandwich", "top_bottom", "divorce"],
            "slap_in": False,
            "late_slap": "reject",
            "num_decks": 2,
        },
    ),
]
