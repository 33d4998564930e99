"""Seeded bot games for the tests of positions, commands and saved matches: the states they pass
through, the legal commands seen on the way, and variant flags other than the defaults."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from cardcore.bots import ask, seat_bots
from cardcore.engine import FlagInfo, Game, rule_flags
from cardcore.errors import InvalidSetup
from cardcore.match import Match

AnyGame = Game[Any, Any, Any, Any, Any]
AnyMatch = Match[Any, Any, Any, Any, Any]


def bot_step(match: AnyMatch, bots: list[Any], now: int) -> int | None:
    """Sequence the earliest bot proposal (ties to the lower seat), as ``play_out`` does; the
    new time, or None when no bot would act."""
    moves = [(p[0], b.seat, p[1]) for b in bots if (p := ask(b, match.game, match.state))]
    if not moves:
        return None
    delay, seat, command = min(moves, key=lambda m: (m[0], m[1]))
    match.submit(seat, command, now + delay)
    return now + delay


def play(match: AnyMatch, kind: str, seed: int, steps: int) -> Iterator[AnyMatch]:
    """Let seeded bots play ``match`` for up to ``steps`` actions, yielding it before each."""
    bots = seat_bots(kind, match.setup.seats, seed)
    now: int | None = match.last_at_ms
    for _ in range(steps):
        if match.outcome is not None or now is None:
            return
        yield match
        now = bot_step(match, bots, now)


def other_values(flag: FlagInfo) -> list[Any]:
    """JSON values of ``flag`` other than its default, read from its schema: each bound of an
    integer, every other choice, a set with one choice more or less, a changed table."""
    schema, default = flag.schema, flag.default
    out: list[Any] = []
    kind = schema.get("type")
    if "anyOf" in schema or kind == "integer":
        lo, hi = schema.get("minimum", 0), schema.get("maximum", (default or 0) + 3)
        out += [v for v in {lo, hi, lo + 1} if v != default and v <= hi]
    elif kind == "boolean":
        out.append(not default)
    elif "enum" in schema:
        out += [v for v in schema["enum"] if v != default]
    elif kind == "array":
        choices = schema["items"]["enum"]
        out += [sorted({*default, c}) for c in choices if c not in default]
        out += [sorted(set(default) - {c}) for c in default]
    elif kind == "object":
        out.append({**default, next(iter(default)): 5})
    assert out, f"no value other than the default for {flag.name}: {schema}"
    return out


COMPANIONS: dict[str, dict[str, Any]] = {"race_cap_ms": {"race_policy": "compensated"}}
"""Flags that only mean something beside another one's value (a cap credits nothing under
``race_policy: "arrival"``, and is refused there): set with it."""


def variants(game: AnyGame) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(label, rules)``: each flag of the game's schema at each of its other values, alone (or
    with the flag it needs: :data:`COMPANIONS`)."""
    for flag in rule_flags(game.rules_type):
        for value in other_values(flag):
            yield f"{flag.name}={value}", {**COMPANIONS.get(flag.name, {}), flag.name: value}


def setup_or_none(game: AnyGame, seats: int, seed: int, rules: dict[str, Any]) -> Any:
    """The setup, or None for a combination the game refuses (too few cards for the seats)."""
    try:
        return game.make_setup(seats, seed, rules)
    except InvalidSetup:
        return None
