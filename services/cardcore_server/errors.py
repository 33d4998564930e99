"""The service's errors, independent of any transport.

Every failure the application layer reports is a :class:`ServiceError` carrying a
:class:`Status` (named after the gRPC codes; the REST transport maps them to HTTP), a ``reason``
(a game's :class:`~cardcore.errors.RejectCode` string, or one of :class:`Reason`) and, for
malformed input, the fields at fault. Messages never contain a token, a seed or a hidden card:
they are built by :mod:`cardcore_server.redaction` or from fixed text. Whatever of the input
they quote is bounded and made sendable here, once (:func:`bounded`): an error never echoes a
500 KB key back, and never fails to encode (a lone surrogate from a JSON ``\\ud800`` escape).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final


class Status(StrEnum):
    """Transport-neutral status names (the gRPC code names)."""

    INVALID_ARGUMENT = "INVALID_ARGUMENT"
    NOT_FOUND = "NOT_FOUND"
    UNAUTHENTICATED = "UNAUTHENTICATED"
    PERMISSION_DENIED = "PERMISSION_DENIED"
    FAILED_PRECONDITION = "FAILED_PRECONDITION"
    RESOURCE_EXHAUSTED = "RESOURCE_EXHAUSTED"
    UNAVAILABLE = "UNAVAILABLE"
    INTERNAL = "INTERNAL"


class Reason(StrEnum):
    """Reasons of errors that are not a game's rejection."""

    MALFORMED = "Malformed"
    MISSING_TOKEN = "MissingToken"
    INVALID_TOKEN = "InvalidToken"
    GAME_NOT_FOUND = "GameNotFound"
    WRONG_GAME = "WrongGame"
    SPECTATOR = "SpectatorCannotAct"
    SEAT_MISMATCH = "SeatMismatch"
    ADMIN_KEY_REQUIRED = "AdminKeyRequired"
    SEED_NOT_ALLOWED = "SeedNotAllowed"
    UNKNOWN_GAME = "UnknownGame"
    ACTION_ID_REUSED = "ActionIdReused"
    STORE_UNAVAILABLE = "StoreUnavailable"
    SHUTTING_DOWN = "ShuttingDown"
    RATE_LIMITED = "RateLimited"
    REQUEST_TIMEOUT = "RequestTimeout"
    """The request's headers or body did not arrive within their deadline (REST: 408); a
    gRPC ``Play`` call whose ``open`` did not (``UNAVAILABLE``: resume)."""
    FELL_BEHIND = "FellBehind"
    """A play channel's client did not read what the server sent it (more waited than the
    server keeps for it): it resumes from its last ``seq``."""
    TOO_MANY_CONNECTIONS = "TooManyConnections"
    """REST only: the listener is at ``--max-connections`` with every connection busy (503)."""
    # the game lifecycle (tables, invites, abort: .lobby)
    TABLE_FULL = "TableFull"
    INVITE_USED = "InviteUsed"
    INVALID_INVITE = "InvalidInvite"
    GAME_STARTED = "GameStarted"
    GAME_NOT_STARTED = "GameNotStarted"
    TABLE_CANCELLED = "TableCancelled"
    NOT_REVEALING = "NotRevealing"
    """RevealEntropy: the table is not taking reveals (still waiting for players, or dealt
    with another value), or the caller's seat committed to nothing."""
    SEAT_NOT_OPEN = "SeatNotOpen"
    NOT_CREATOR = "NotCreator"
    NOT_PUBLIC = "TableNotPublic"
    HOST_ONLY = "HostOnly"
    IDEMPOTENCY_KEY_EXPIRED = "IdempotencyKeyExpired"
    """CreateGame: the game this idempotency key made is over (the key expired with it)."""
    INTERNAL = "Internal"


DOMAIN: Final = "cardcore"
"""The ``ErrorInfo.domain`` of every error."""

MAX_MESSAGE: Final = 600
MAX_FIELD: Final = 160
MAX_DESCRIPTION: Final = 300
MAX_VIOLATIONS: Final = 8
MAX_METADATA: Final = 200
"""Bounds on what an error may carry, in characters: every error, gRPC status with its details
or REST problem document, stays well under 4 KiB."""


def bounded(text: str, limit: int) -> str:
    """``text`` fit to send back: cut to ``limit`` characters (saying how long it was) and valid
    UTF-8 (a lone surrogate, which only a JSON escape can make, is written ``\\udXXX``)."""
    if len(text) > limit:
        suffix = f"… ({len(text)} characters)"
        text = text[: max(limit - len(suffix), 0)] + suffix
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


@dataclass(frozen=True, slots=True)
class FieldViolation:
    """One malformed field: its path in the request and what is wrong with it."""

    field: str
    description: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "field", bounded(self.field, MAX_FIELD))
        object.__setattr__(self, "description", bounded(self.description, MAX_DESCRIPTION))


@dataclass(slots=True)
class ServiceError(Exception):
    """A request the service refuses. ``metadata`` lands in ``ErrorInfo.metadata``."""

    status: Status
    reason: str
    message: str
    violations: tuple[FieldViolation, ...] = ()
    metadata: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.message = bounded(self.message, MAX_MESSAGE)
        self.violations = tuple(self.violations[:MAX_VIOLATIONS])
        self.metadata = {
            bounded(k, MAX_FIELD): bounded(v, MAX_METADATA)
            for k, v in list(self.metadata.items())[:MAX_VIOLATIONS]
        }
        Exception.__init__(self, f"{self.status}/{self.reason}: {self.message}")

    def __str__(self) -> str:
        return f"{self.status}/{self.reason}: {self.message}"


def invalid(field_path: str, description: str) -> ServiceError:
    """INVALID_ARGUMENT naming one field."""
    return ServiceError(
        Status.INVALID_ARGUMENT,
        Reason.MALFORMED,
        f"{field_path}: {description}",
        (FieldViolation(field_path, description),),
    )
