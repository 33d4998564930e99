#!/usr/bin/env python3
"""A faulty bot for the tests (tests/arena): plays sensibly, then exits with code 3 in the middle of
the game, on its decision number ``argv[1]`` (default 5), without answering it."""

from __future__ import annotations

import random
import sys
from typing import Any

from random_bot import sensible_answer, serve

AFTER = int(sys.argv[1]) if len(sys.argv) > 1 else 5


def answer(message: dict[str, Any], rng: random.Random) -> str:
    if message["id"] >= AFTER:
        sys.exit(3)
    return sensible_answer(message, rng)


if __name__ == "__main__":
    serve(answer, "crash_bot.py")
