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
    delays_ms: tuple[int, ...] = ()
    """Each seat's one-way delay to the host (the race simulator plays it:
    :func:`cardcore.fairness.play_raced`); none: every seat at the host."""

    @property
    def stem(self) -> str:
        return f"{self.game}/{self.name}-{self.seats}p-seed{self.seed}"


COMPENSATED: dict[str, Any] = {"race_policy": "compensated", "race_cap_ms": 80}

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
    Preset("slapjack", "default", 3, 21),
    Preset("slapjack", "default", 6, 22),
    Preset(
        "slapjack",
        "house",
        2,
        23,
        {
            "slap_targets": ["jack", "double", "sandwich"],
            "shuffle_after_win": False,
            "false_slap_penalty": 2,
            "penalty_recipient": "current_player",
            "next_after_win": "winner",
            "zero_card_false_slap": "ignore",
        },
    ),
    Preset(
        "slapjack",
        "house",
        5,
        24,
        {"out_of_cards": "eliminate_now", "next_after_win": "left_of_winner", "num_decks": 2},
    ),
    Preset(
        "slapjack",
        "unlimited",
        4,
        25,
        {"out_of_cards": "slap_in_unlimited", "zero_card_false_slap": "eliminate"},
    ),
    Preset("speed", "default", 2, 31),
    Preset(
        "speed",
        "match",
        2,
        32,
        {"side_pile_size": 5, "target_score": 10, "score_counts": "stock_and_hand"},
    ),
    Preset(
        "speed",
        "house",
        2,
        33,
        {
            "auto_refill": False,
            "multi_card_play": True,
            "jokers": 2,
            "allow_equal_rank": True,
            "best_of": 3,
        },
    ),
    Preset("spit", "default", 2, 43),
    Preset(
        "spit",
        "house",
        2,
        40,
        {
            "num_stock_piles": 4,
            "pile_claim": "choose",
            "alternate_colours": True,
            "auto_flip": True,
            "one_pile_stalemate_owner": "fewer_layout_cards",
        },
    ),
    Preset(
        "spit",
        "stacking",
        2,
        45,
        {"stack_equal_in_layout": True, "allow_equal_rank": True, "wrap": False},
    ),
    Preset("palace", "default", 3, 51),
    Preset("palace", "default", 5, 52),
    Preset(
        "palace",
        "house",
        4,
        53,
        {
            "seven_lower": True,
            "eight_skip": True,
            "three_invisible": True,
            "jokers": 2,
            "finish_on_special": False,
            "combine_hand_and_up": True,
            "starter_rule": "first_face_up_three",
        },
    ),
    Preset(
        "palace",
        "bga",
        2,
        54,
        {
            "cards_per_area": 6,
            "nine_lower": True,
            "starter_must_play_lowest": True,
            "two_follow_up": False,
            "ten_follow_up": False,
            "voluntary_pickup": True,
        },
    ),
    # docs/games/common.md#race-policy: one game per real-time game under "compensated", its
    # seats at different distances (a delay past the cap in the three-seat one)
    *(
        Preset(game, "compensated", seats, seed, COMPENSATED, delays_ms=delays)
        for game, seats, seed, delays in (
            ("ratscrew", 2, 15, (0, 40)),
            ("slapjack", 3, 25, (0, 30, 90)),
            ("speed", 2, 35, (45, 0)),
            ("spit", 2, 56, (0, 60)),
        )
    ),
]
