"""Bot protocol v1: the messages between a host and a bot in another program, one JSON object per
line over the bot's stdin and stdout (docs/bots.md#the-protocol has the whole of it, with a
transcript).

This module builds the host's messages and reads the bot's answers, and nothing else: no pipe,
no clock (:mod:`cardcore.arena.process` runs the program). Every answer that is not what the
protocol allows raises :class:`~cardcore.referee.BotFault` of kind ``garbage``, naming what is
wrong; a command the bot may not play now is the referee's ``illegal``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from .. import codec
from ..bots import Legal
from ..engine import Game, Outcome, Setup
from ..log import encode_outcome
from ..referee import BotFault

AnyGame = Game[Any, Any, Any, Any, Any]

PROTOCOL: Final = 1
DEFAULT_DEADLINE_MS: Final = 200
"""A decision's own time: answered within it, it costs the bank nothing."""
DEFAULT_BANK_MS: Final = 5000
"""The seat's time bank for the whole game: time past a decision's deadline is taken from it."""
DEFAULT_READY_MS: Final = 5000
"""How long a bot may take to start and answer ``hello`` with ``ready``."""
MAX_LINE_BYTES: Final = 64 * 1024
"""A longer line from a bot is garbage (and is not kept)."""
MAX_DELAY_MS: Final = 3_600_000
"""The longest delay a bot may ask for (an hour): a larger one is garbage."""
MAX_NAME: Final = 64


def dumps(message: dict[str, Any]) -> bytes:
    """One protocol line: compact JSON, UTF-8 (non-ASCII kept as is), ``\\n`` at the end."""
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.encode() + b"\n"


def hello(
    game: AnyGame, setup: Setup[Any], seat: int, *, seed: int, deadline_ms: int, bank_ms: int
) -> dict[str, Any]:
    """The first message: the game, its exact variant (``setup_hash`` names it; ``setup`` is
    the public setup, without the game's seed), the bot's seat, its own ``seed`` (for a bot
    that draws: never the game's) and its time."""
    return {
        "type": "hello",
        "protocol": PROTOCOL,
        "game": game.name,
        "rules_version": game.info.rules_version,
        "setup_hash": setup.setup_hash(),
        "setup": setup.public_json(),
        "seat": seat,
        "seats": setup.seats,
        "seed": seed,
        "deadline_ms": deadline_ms,
        "bank_ms": bank_ms,
    }


def decide(
    game: AnyGame, decision: int, view: Any, legal: Legal[Any], *, deadline_ms: int, bank_ms: int
) -> dict[str, Any]:
    """One decision: the seat's view (:func:`cardcore.codec.encode`), its legal commands as
    text (``game.format_command``, which the bot may answer with or by index) and their hints,
    and the time it has."""
    return {
        "type": "decide",
        "id": decision,
        "view": codec.encode(view),
        "legal": [game.format_command(c) for c in legal.commands],
        "sensible": None if legal.sensible is None else list(legal.sensible),
        "deadline_ms": deadline_ms,
        "bank_ms": bank_ms,
    }


def end(outcome: Outcome | None) -> dict[str, Any]:
    """The last message: the game's outcome as the log's end line records it (null when the
    game did not finish)."""
    return {"type": "end", "outcome": None if outcome is None else encode_outcome(outcome)}


def parse_line(line: bytes) -> dict[str, Any]:
    """A line from the bot as a JSON object; :class:`BotFault` ``garbage`` otherwise."""
    if len(line) > MAX_LINE_BYTES:
        raise BotFault("garbage", f"a line longer than {MAX_LINE_BYTES} bytes")
    try:
        data = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise BotFault("garbage", f"not a JSON line: {line[:80]!r}") from None
    if not isinstance(data, dict):
        raise BotFault("garbage", f"not a JSON object: {line[:80]!r}")
    return data


def ready_name(message: dict[str, Any]) -> str | None:
    """The bot's name when ``message`` is its ``ready``, else None (anything else before it is
    ignored). A name that is not a string is garbage."""
    if message.get("type") != "ready":
        return None
    name = message.get("name", "")
    if not isinstance(name, str):
        raise BotFault("garbage", f"ready's name must be a string, got {name!r:.40}")
    return name[:MAX_NAME]


def answer_id(message: dict[str, Any]) -> int:
    """The decision an answer answers; garbage when it has no integer ``id``."""
    decision = message.get("id")
    if type(decision) is not int:
        raise BotFault("garbage", f"an answer needs an integer id, got {decision!r:.40}")
    return decision


@dataclass(frozen=True, slots=True)
class Answer:
    """A bot's answer to a decision: ``command`` is None for a pass; otherwise the command's
    text (:attr:`text`, as the bot sent it or the legal text it chose by index)."""

    delay_ms: int
    text: str | None


def read_answer(message: dict[str, Any], legal_texts: Sequence[str]) -> Answer:
    """The answer in ``message`` (its ``id`` already checked): ``pass``, or ``act`` with
    exactly one of ``command`` (a text) and ``index`` (into ``legal``), and an optional
    ``delay_ms``. Anything else is garbage, naming the field."""
    kind = message.get("type")
    if kind == "pass":
        return Answer(0, None)
    if kind != "act":
        raise BotFault("garbage", f'an answer\'s type is "act" or "pass", got {kind!r:.40}')
    delay = message.get("delay_ms", 0)
    if type(delay) is not int or not 0 <= delay <= MAX_DELAY_MS:
        raise BotFault("garbage", f"delay_ms must be an integer in 0..{MAX_DELAY_MS}")
    has_command, has_index = "command" in message, "index" in message
    if has_command == has_index:
        raise BotFault("garbage", "an act needs exactly one of command and index")
    if has_index:
        index = message["index"]
        if type(index) is not int or not 0 <= index < len(legal_texts):
            raise BotFault("garbage", f"index {index!r:.20} is not in 0..{len(legal_texts) - 1}")
        return Answer(delay, legal_texts[index])
    text = message["command"]
    if not isinstance(text, str):
        raise BotFault("garbage", f"command must be a string, got {text!r:.40}")
    return Answer(delay, text)
