#!/usr/bin/env python3
"""A faulty bot for the tests (tests/arena): plays sensibly, but every ``argv[1]``-th decision
(default 3) it answers garbage instead, a different kind each time: a line that is not JSON, a
JSON array, a command text that is no command of the game, an index out of range, a line longer
than the protocol's 64 KiB."""

from __future__ import annotations

import json
import random
import sys
from typing import Any

from random_bot import sensible_answer, serve

EVERY = int(sys.argv[1]) if len(sys.argv) > 1 else 3


def garbage(decision: int, k: int) -> str:
    kinds = [
        "this is not JSON",
        json.dumps([decision, "play"]),
        json.dumps({"type": "act", "id": decision, "command": "fly to the moon"}),
        json.dumps({"type": "act", "id": decision, "index": 999}),
        json.dumps({"type": "act", "id": decision, "command": "x" * 70_000}),
    ]
    return kinds[k % len(kinds)]


def answer(message: dict[str, Any], rng: random.Random) -> str:
    decision = message["id"]
    if decision % EVERY == 0:
        return garbage(decision, decision // EVERY - 1)
    return sensible_answer(message, rng)


if __name__ == "__main__":
    serve(answer, "garbage_bot.py")
