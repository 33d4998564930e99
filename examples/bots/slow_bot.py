#!/usr/bin/env python3
"""A faulty bot for the tests (tests/arena): plays sensibly, but from its decision number
``argv[1]`` (default 3) on it sleeps ``argv[2]`` ms (default 400) before each answer: past its
deadline, until its bank is spent and its decisions are lost (its late answers are ignored)."""

from __future__ import annotations

import random
import sys
import time
from typing import Any

from random_bot import sensible_answer, serve

AFTER = int(sys.argv[1]) if len(sys.argv) > 1 else 3
SLEEP_MS = int(sys.argv[2]) if len(sys.argv) > 2 else 400


def answer(message: dict[str, Any], rng: random.Random) -> str:
    if message["id"] >= AFTER:
        time.sleep(SLEEP_MS / 1000)
    return sensible_answer(message, rng)


if __name__ == "__main__":
    serve(answer, "slow_bot.py")
