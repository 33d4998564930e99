"""A CreateGame request checked, field by field, before anything is made of it (:func:`plan`).

The checks run in a fixed order, the cheap bounds first (the seat count bounds every later
loop), and each refusal names its field.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from cardcore import registry
from cardcore.engine import DEFAULT_EVENT_LIMIT, seats_phrase
from cardcore.errors import InvalidSetup, UnknownGame
from cardcore.rng import ENTROPY_BYTES, MAX_SEED

from ..config import ServiceConfig
from ..errors import FieldViolation, Reason, ServiceError, Status, invalid
from ..live import AnyGame
from ..store import SeatSpec
from ..tables import SeatOpen
from .inputs import readable
from .values import GameSpec

SEAT_KINDS: Final = ("human", "random", "reaction")
COMMITMENT_BYTES: Final = 32
"""A commitment to entropy: a SHA-256 digest."""
MAX_SEATS: Final = 8
"""The most seats any game takes (tests/service/test_api.py checks it against the registry):
a request with more is refused before any per-seat work, so it cannot stall the server."""
MAX_TIMEOUTS: Final = 16
"""The most ``timeouts_ms`` entries a request may carry (a game has a handful of timed kinds)."""
MAX_DELAY_MS: Final = 600_000
MAX_TIMER_MS: Final = 7 * 86_400_000
"""The longest turn, idle, abandonment or start-deadline clock a table may set (a week)."""
MAX_EVENT_LIMIT: Final = 10_000_000


@dataclass(frozen=True, slots=True)
class Plan:
    """A CreateGame request, checked: what the game is made of."""

    game: AnyGame
    rules: dict[str, Any]
    seats: tuple[SeatSpec, ...]
    seed: int
    event_limit: int
    timeouts: dict[str, int]
    opens: tuple[SeatOpen, ...]
    timers: dict[str, int]


def plan(spec: GameSpec, config: ServiceConfig) -> Plan:
    """The request checked, field by field, before anything is made of it."""
    try:
        game = registry.get_game(spec.game)
    except UnknownGame:
        known = ", ".join(g.info.name for g in registry.GAMES)
        raise invalid("game", f"unknown game; known: {known}") from None
    lo, hi = game.info.min_seats, game.info.max_seats
    if not lo <= len(spec.seats) <= hi:  # first: the count bounds every later loop
        raise invalid("seats", f"{game.name} takes {seats_phrase(lo, hi)}, got {len(spec.seats)}")
    if len(spec.timeouts_ms) > MAX_TIMEOUTS:
        raise invalid("timeouts_ms", f"at most {MAX_TIMEOUTS} entries")
    rules = readable(spec.rules)
    seats = _checked_seats(spec.seats)
    seed = _seed(spec, config)
    if not 0 <= spec.event_limit <= MAX_EVENT_LIMIT:
        raise invalid("event_limit", f"must be 0..{MAX_EVENT_LIMIT}")
    timeouts = _timeouts(game, spec, config)
    opens = _seat_opens(spec, seats)
    timers = _clocks(game, spec)
    try:
        setup = game.make_setup(len(seats), seed, rules, spec.event_limit or DEFAULT_EVENT_LIMIT)
    except InvalidSetup as exc:
        raise _setup_error(exc) from None
    except (TypeError, ValueError) as exc:
        raise invalid("rules_json", type(exc).__name__) from None
    return Plan(game, rules, seats, seed, setup.event_limit, timeouts, opens, timers)


def _seed(spec: GameSpec, config: ServiceConfig) -> int:
    if spec.seed is None:
        return secrets.randbits(64)
    if not config.allow_client_seed:
        raise ServiceError(
            Status.PERMISSION_DENIED,
            Reason.SEED_NOT_ALLOWED,
            "this server chooses seeds (start it with --allow-client-seed to allow them)",
        )
    if not 0 <= spec.seed <= MAX_SEED:
        raise invalid("seed", "must be in [0, 2**64)")
    return spec.seed


def _timeouts(game: AnyGame, spec: GameSpec, config: ServiceConfig) -> dict[str, int]:
    """The timed actions: the server's defaults for the game's kinds, then the request's."""
    kinds = {t.__name__ for t in game.command_types}
    timeouts = {k: v for k, v in config.default_timeouts_ms.items() if k in kinds}
    for kind, ms in spec.timeouts_ms.items():
        if kind not in kinds:
            raise invalid(f"timeouts_ms.{kind}", f"not a command of {game.name}")
        if not 0 <= ms <= MAX_DELAY_MS:
            raise invalid(f"timeouts_ms.{kind}", f"must be 0..{MAX_DELAY_MS} ms")
        timeouts[kind] = ms
    return timeouts


def _seat_opens(spec: GameSpec, seats: Sequence[SeatSpec]) -> tuple[SeatOpen, ...]:
    """How each seat is filled (``GameSpec.seat_open``), checked: only a human seat opens."""
    raw = tuple(spec.seat_open)
    if len(raw) > len(seats):
        raise invalid("seat_open", f"{len(raw)} entries for {len(seats)} seats")
    out = []
    for i, seat in enumerate(seats):
        text = raw[i] if i < len(raw) else ""
        try:
            mode = SeatOpen(text)
        except ValueError:
            raise invalid(f"seats[{i}].open", 'one of "", invite, anyone') from None
        if mode and seat.kind != "human":
            raise invalid(f"seats[{i}].open", "only a human seat is open (a bot's seat is filled)")
        out.append(mode)
    return tuple(out)


def _checked_seats(given: Sequence[SeatSpec]) -> tuple[SeatSpec, ...]:
    seats = tuple(given)
    for i, s in enumerate(seats):
        if s.kind not in SEAT_KINDS:
            raise invalid(f"seats[{i}].kind", f"one of {', '.join(SEAT_KINDS)}")
        if not 0 <= s.min_delay_ms <= MAX_DELAY_MS or not 0 <= s.max_delay_ms <= MAX_DELAY_MS:
            raise invalid(f"seats[{i}]", f"bot delays must be 0..{MAX_DELAY_MS} ms")
        if s.max_delay_ms and s.min_delay_ms > s.max_delay_ms:
            raise invalid(f"seats[{i}]", "bot_min_delay_ms exceeds bot_max_delay_ms")
    return seats


def _clocks(game: AnyGame, spec: GameSpec) -> dict[str, int]:
    """The request's turn, idle and abandonment clocks (and its start deadline), checked."""
    timers = {
        name: int(getattr(spec, name))
        for name in ("turn_timeout_ms", "idle_timeout_ms", "abandon_timeout_ms")
    }
    for name, ms in (*timers.items(), ("start_deadline_ms", spec.start_deadline_ms)):
        if not 0 <= ms <= MAX_TIMER_MS:
            raise invalid(name, f"must be 0..{MAX_TIMER_MS} ms (a week)")
    if spec.turn_timeout_ms and game.to_act is None:
        raise invalid(
            "turn_timeout_ms",
            f"{game.name} has no turns to time (its seats play in real time: use idle_timeout_ms)",
        )
    return timers


def check_entropy(data: bytes, path: str) -> str:
    """A seat's contribution to the deal: empty (none) or exactly 16 bytes; as hex."""
    if data and len(data) != ENTROPY_BYTES:
        raise invalid(path, f"{ENTROPY_BYTES} random bytes, or none (got {len(data)})")
    return data.hex()


def check_commitment(data: bytes, path: str) -> str:
    """A seat's commitment to the entropy it reveals once the start is final: empty (none) or
    the 32 bytes of :func:`cardcore.rng.entropy_commitment`; as hex."""
    if data and len(data) != COMMITMENT_BYTES:
        raise invalid(
            path, f"a SHA-256 digest ({COMMITMENT_BYTES} bytes), or none (got {len(data)})"
        )
    return data.hex()


def commitments(
    spec: GameSpec, seats: Sequence[SeatSpec], opens: Sequence[SeatOpen]
) -> dict[int, str]:
    """The creator's commitments for the human seats it holds (``GameSpec.entropy_commitments``:
    docs/rng.md, "Committed entropy"), by seat."""
    given = tuple(spec.entropy_commitments)
    if len(given) > len(seats):
        raise invalid("entropy_commitments", f"{len(given)} entries for {len(seats)} seats")
    out = {}
    for i, data in enumerate(given):
        if not data:
            continue
        path = f"seats[{i}].entropy_commitment"
        if seats[i].kind != "human" or opens[i]:
            raise invalid(path, "only a seat the creator holds: bots add none")
        if i < len(spec.entropy) and spec.entropy[i]:
            raise invalid(path, "give entropy or a commitment to it, not both")
        out[i] = check_commitment(data, path)
    return out


def contributions(
    spec: GameSpec, seats: Sequence[SeatSpec], opens: Sequence[SeatOpen]
) -> tuple[tuple[int, str], ...]:
    """The creator's contributions for the human seats it holds (``GameSpec.entropy``)."""
    given = tuple(spec.entropy)
    if len(given) > len(seats):
        raise invalid("entropy", f"{len(given)} entries for {len(seats)} seats")
    out = []
    for i, data in enumerate(given):
        if not data:
            continue
        if seats[i].kind != "human" or opens[i]:
            raise invalid(f"seats[{i}].entropy", "only a seat the creator holds: bots add none")
        out.append((i, check_entropy(data, f"seats[{i}].entropy")))
    return tuple(out)


def _setup_error(exc: InvalidSetup) -> ServiceError:
    path = exc.field
    if path == "rules" or path.startswith("rules."):
        path = "rules_json" + path[len("rules") :]
    return ServiceError(
        Status.INVALID_ARGUMENT,
        Reason.MALFORMED,
        f"{path}: {exc.message}",
        (FieldViolation(path, exc.message),),
    )
