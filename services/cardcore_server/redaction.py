"""The single redaction point: everything the service sends to a viewer passes through here.

boardgame.io's lesson (style.md): one choke point applies the per-viewer projection to every
path out of the server, so no path can forget it. Here that is:

* :func:`entry` — a log entry as a stream or a submit response shows it (events redacted with the
  game's own ``redact``; entry hashes are left out, as they differ with hidden cards);
* :func:`view` and :func:`legal_commands` — the viewer's view and its own legal commands;
* :func:`log` — the downloadable log (:func:`cardcore.log.redact_log`: redacted until the end,
  complete with the revealed seed after it);
* :func:`rejection_detail` — a rejection's text, with every card the viewer cannot see in its view
  (or name in its own command) replaced by ``??``.

Nothing here knows any particular game.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from cardcore import codec
from cardcore.engine import Game, Viewer
from cardcore.log import LogLine, redact_log

AnyGame = Game[Any, Any, Any, Any, Any]

_CARD_RE: Final = re.compile(r"(?<![0-9A-Za-z])(?:10|[2-9AJQK])[SHDC♠♥♦♣](?![0-9A-Za-z])|JK")


@dataclass(frozen=True, slots=True)
class Value:
    """A command, event or view on the wire: ``kind`` and canonical JSON."""

    kind: str
    json: str

    @classmethod
    def of(cls, data: Any) -> Value:
        return cls(
            str(data.get(codec.KIND, "")) if isinstance(data, dict) else "",
            codec.canonical_text(data),
        )


@dataclass(frozen=True)
class RedactedEntry:
    """One accepted action as a viewer sees it. ``wire`` lets each transport cache its own
    encoding of the entry (it is sent to every subscriber with the same viewer)."""

    seq: int
    at_ms: int
    seat: int | None
    action: Value
    events: tuple[Value, ...]
    wire: dict[str, bytes] = field(default_factory=dict, compare=False, repr=False)


def entry(game: AnyGame, line: LogLine, events: Sequence[Any], viewer: Viewer) -> RedactedEntry:
    """``line`` is the full log entry, ``events`` its decoded events."""
    redact = game.redact
    return RedactedEntry(
        seq=int(line["seq"]),
        at_ms=int(line["at_ms"]),
        seat=line["seat"],
        action=Value.of(line["action"]),
        events=tuple(Value.of(codec.encode(redact(e, viewer))) for e in events),
    )


class Shown(Protocol):
    """A state to show: a :class:`~cardcore.match.Match`, or the service's durable state."""

    def view(self, viewer: Viewer) -> Any: ...

    def legal_commands(self, seat: int) -> Any: ...


def view(match: Shown, viewer: Viewer) -> Value:
    return Value.of(codec.encode(match.view(viewer)))


def legal_commands(match: Shown, viewer: Viewer) -> tuple[Value, ...]:
    """The viewer's own legal commands (none for a spectator)."""
    if not isinstance(viewer, int):
        return ()
    return tuple(Value.of(codec.encode(c)) for c in match.legal_commands(viewer))


def log(lines: Sequence[LogLine], viewer: Viewer) -> list[LogLine]:
    """The log as ``viewer`` may download it."""
    return redact_log(list(lines), viewer)


def rejection_detail(detail: str, match: Shown, viewer: Viewer, command_json: str) -> str:
    """A rejection's detail with every card not visible to the viewer masked."""
    if not _CARD_RE.search(detail):
        return detail
    visible = set(_CARD_RE.findall(view(match, viewer).json)) | set(_CARD_RE.findall(command_json))
    return _CARD_RE.sub(lambda m: m.group(0) if m.group(0) in visible else "??", detail)
