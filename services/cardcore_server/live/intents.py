"""What the sequencer of a served game holds of each action (:mod:`.sequencer`): the action
waiting (:class:`Intent`), a round as decided (:class:`Round`), and how an action is answered."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from cardcore.errors import Rejected
from cardcore.log import LogLine

from ..store import StoredRejection
from .actions import Accepted
from .answers import Key


@dataclass(slots=True)
class Intent:
    """An action waiting for the sequencer."""

    seat: int
    command: Any
    text: str
    """The command's canonical JSON (tells a retry from a reused ``action_id``)."""
    action_id: str | None
    planned_seq: int | None
    """A timed or bot action: only at this ``seq`` (otherwise :class:`Superseded`)."""
    future: asyncio.Future[Accepted | Rejected]
    deadline: float
    """Loop time after which an unreachable store fails it (``inf``: never)."""
    received_ms: int = 0
    """When it arrived (ms since the game was created): under ``race_policy: "compensated"``
    it is credited from this (docs/games/common.md#race-policy)."""
    delay_ms: int = 0
    """Its seat's measured one-way delay when it arrived (0: the host's own action, a bot's)."""
    left: bool = False
    """Its caller was cancelled (the action stays in line)."""
    stopped_at: int | None = None
    """The caller's ``cancelling()`` count when :meth:`Sequencer._watch` stopped its round."""


Answer = Accepted | Rejected | BaseException


@dataclass(slots=True)
class Round:
    """One round as decided, before it is committed."""

    answers: list[tuple[Intent, Answer]] = field(default_factory=list)
    entries: list[tuple[LogLine, str | None]] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    """The entries' canonical JSON, as the log writer made it."""
    rejections: list[StoredRejection] = field(default_factory=list)
    accepted: dict[Key, int] = field(default_factory=dict)
    rejected: dict[Key, StoredRejection] = field(default_factory=dict)
    confirm: bool = False
    """A rejection was decided on a state the store must confirm as current."""


def answer(intent: Intent, answer: Answer) -> None:
    fut = intent.future
    if fut.done():
        return
    if isinstance(answer, (Accepted, Rejected)):
        fut.set_result(answer)
    else:
        fut.set_exception(answer)
        fut.exception()  # read: a cancelled caller never will, and asyncio would log it
