#!/usr/bin/env python3
"""A bot for cardcore's bot protocol v1 (docs/bots.md), in plain Python (standard library only):
it plays a uniformly random legal command, false slaps included, as soon as it may.

The host runs it as a program and speaks JSON lines with it: one JSON object per line on stdin
(``hello``, then ``decide`` per decision, then ``end``) and one per line on stdout (``ready``,
then ``act`` or ``pass`` for each decision). Log to stderr, never to stdout. docs/bots.md shows
how to seat it in a game (``load_bot("cmd:python3 examples/bots/random_bot.py", ...)``).

The other bots in this folder reuse :func:`serve` (the faulty ones the tests run)."""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from typing import Any

Answer = Callable[[dict[str, Any], random.Random], str]
"""``answer(decide_message, rng) -> the line to send`` (without its newline)."""


def act(decision: int, index: int, delay_ms: int = 0) -> str:
    """Play ``legal[index]`` (the host's own text, so it cannot be misspelt)."""
    return json.dumps({"type": "act", "id": decision, "index": index, "delay_ms": delay_ms})


def pass_(decision: int) -> str:
    """Do nothing on this decision."""
    return json.dumps({"type": "pass", "id": decision})


def serve(answer: Answer, name: str) -> None:
    """Answer ``hello`` with ``ready`` and each ``decide`` with ``answer``'s line, until ``end``
    or the end of stdin. The bot's seed comes with ``hello``: draw from it, and a game replays."""
    rng = random.Random(0)
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            rng = random.Random(message["seed"])
            print(f"{name}: seat {message['seat']} of {message['game']}", file=sys.stderr)
            send(json.dumps({"type": "ready", "name": name}))
        elif message["type"] == "decide":
            send(answer(message, rng))
        elif message["type"] == "end":
            return


def send(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()  # a pipe is block-buffered: an answer not flushed never arrives


def random_answer(message: dict[str, Any], rng: random.Random) -> str:
    return act(message["id"], rng.randrange(len(message["legal"])))


def sensible_answer(message: dict[str, Any], rng: random.Random) -> str:
    """A sensible command (the host's hint) at random, else a pass."""
    good = [i for i, ok in enumerate(message["sensible"] or []) if ok]
    return act(message["id"], rng.choice(good)) if good else pass_(message["id"])


if __name__ == "__main__":
    serve(random_answer, "random_bot.py")
