"""The exceptions of cardcore. Every one derives from :class:`CardcoreError`.

A rejected action raises :class:`Rejected` carrying a :class:`RejectCode`; the code strings are the
public contract of docs/games/common.md#rejection-codes and are the same in Python, gRPC and REST. A
false slap is *not* an error: it is a legal action that the rules penalise.
"""

from __future__ import annotations

from enum import StrEnum

from ._mypyc import mypyc_attr


class RejectCode(StrEnum):
    """Why an action was rejected (docs/games/common.md#rejection-codes). The values are part of the
    public contract."""

    GAME_OVER = "GameOver"
    INVALID_PHASE = "InvalidPhase"
    NOT_YOUR_TURN = "NotYourTurn"
    PLAYER_ELIMINATED = "PlayerEliminated"
    PLAYER_FINISHED = "PlayerFinished"
    NO_CARDS = "NoCards"
    EMPTY_PILE = "EmptyPile"
    STALE_ACTION = "StaleAction"
    CARD_NOT_AVAILABLE = "CardNotAvailable"
    ILLEGAL_CARD = "IllegalCard"
    MIXED_RANKS = "MixedRanks"
    INVALID_TARGET = "InvalidTarget"
    FACE_DOWN = "FaceDown"
    ALREADY_FACE_UP = "AlreadyFaceUp"
    NO_EMPTY_SPACE = "NoEmptySpace"
    NOT_STUCK = "NotStuck"
    SPIT_PILE_LOCKED = "SpitPileLocked"
    NOT_COLLECTOR = "NotCollector"
    MUST_PLAY_IF_ABLE = "MustPlayIfAble"
    WINDOW_CLOSED = "WindowClosed"
    HAND_FULL = "HandFull"
    NOT_CHOOSER = "NotChooser"


@mypyc_attr(native_class=False)  # its subclasses may also be a TypeError (mypyc: no native one)
class CardcoreError(Exception):
    """Base class of every error cardcore raises."""


class Rejected(CardcoreError):
    """An action that is not legal in the state it met. It changed nothing
    (docs/games/common.md#no-side-effects)."""

    def __init__(self, code: RejectCode, detail: str = "") -> None:
        super().__init__(f"{code.value}: {detail}" if detail else code.value)
        self.code = code
        self.detail = detail

    def __reduce__(self) -> tuple[type[Rejected], tuple[RejectCode, str]]:
        return (Rejected, (self.code, self.detail))


class InvalidSetup(CardcoreError, ValueError):
    """A game setup or rule flag is invalid. ``field`` is the path of the value at fault,
    e.g. ``"rules.false_slap_penalty"`` or ``"seats"``."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class InvalidPosition(CardcoreError, ValueError):
    """A position (a state built by hand, or parsed from its notation) that no game could reach.
    ``field`` names the part at fault, e.g. ``"stacks[1]"``, ``"current"`` or ``"notation"``."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class InvalidSeat(CardcoreError, ValueError):
    """A seat that is not a seat of this game: not an ``int`` (a ``bool`` is not a seat), or out
    of range. A programming error of the caller, not a rejected action: nothing is logged."""


class UnknownGame(CardcoreError, ValueError):
    """No registered game has this name or alias."""

    def __init__(self, name: str, known: tuple[str, ...] = ()) -> None:
        hint = f" (known: {', '.join(known)})" if known else ""
        super().__init__(f"unknown game {name!r}{hint}")
        self.name = name


class DecodeError(CardcoreError, ValueError):
    """A JSON value does not decode into the expected cardcore type. ``field`` is its path."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field or '<root>'}: {message}")
        self.field = field
        self.message = message


class CorruptLog(CardcoreError, ValueError):
    """A game log failed verification or could not be read. ``seq`` names the first bad entry
    (``None`` when the fault is in the header or the log as a whole)."""

    def __init__(self, seq: int | None, reason: str) -> None:
        where = "header" if seq is None else f"seq {seq}"
        super().__init__(f"{where}: {reason}")
        self.seq = seq
        self.reason = reason
