"""The single redaction point: everything the service sends to a viewer passes through here.

boardgame.io's lesson (style.md): one choke point applies the per-viewer projection to every
path out of the server, so no path can forget it. Here that is:

* :class:`EntryViews` — a log entry as a stream or a submit response shows
  it (events redacted with the game's own ``redact``), made once per distinct view and shared by
  the viewers who see the same. It carries the entry's ``hash`` and ``prev`` as logged: a keyed
  hash (HMAC under the secret salt) tells nothing of the hidden cards it covers, and it is what
  makes every entry a player receives a *receipt* (``cardcore verify --receipts``): the final
  log must hold that very entry;
* :func:`view` and :func:`legal_commands` — the viewer's view and its own legal commands;
* :func:`log` — the downloadable log (:func:`cardcore.log.redact_log`: redacted until the end,
  complete with the revealed seed after it);
* :func:`rejection_detail` — a rejection's text, with every card the viewer cannot see in its view
  (or name in its own command) replaced by ``??``.

Nothing here knows any particular game.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol, TypeVar

from cardcore import codec
from cardcore.engine import Game, Viewer
from cardcore.log import LogLine, redact_log
from cardcore.races import RACE_KEY

_T = TypeVar("_T")

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
    """One accepted action as a viewer sees it. :meth:`encoded` lets each transport cache its own
    encoding of the entry (it is sent to every subscriber with the same viewer)."""

    seq: int
    at_ms: int
    seat: int | None
    action: Value
    events: tuple[Value, ...]
    hash: str = ""
    """The entry's hash in the log (keyed: it proves the entry, and reveals nothing)."""
    prev: str = ""
    """The hash of the line before it."""
    race: str = ""
    """Its race record's canonical JSON, in a game under ``race_policy: "compensated"`` (log
    format 3; docs/games/common.md#race-policy): how it was credited. Empty otherwise."""
    wire: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """Each transport's encoding of the entry, made once for every subscriber of this view."""

    def encoded(self, key: str, make: Callable[[RedactedEntry], _T]) -> _T:
        """``make(self)``, a transport's encoding of the entry under ``key``: made the first
        time it is asked, then kept in :attr:`wire`."""
        found: _T | None = self.wire.get(key)
        if found is None:
            found = self.wire[key] = make(self)
        return found


def _make(line: LogLine, events: tuple[Value, ...]) -> RedactedEntry:
    return RedactedEntry(
        seq=int(line["seq"]),
        at_ms=int(line["at_ms"]),
        seat=line["seat"],
        action=Value.of(line["action"]),
        events=events,
        hash=str(line["hash"]),
        prev=str(line["prev"]),
        race=codec.canonical_text(line[RACE_KEY]) if RACE_KEY in line else "",
    )


_PLAIN: Final = object()
"""The key of the entry as logged (every event shown as it is)."""


class EntryViews:
    """Every durable entry of one game as each viewer sees it, made once per distinct view.

    An entry is redacted for a viewer when the viewer first asks for it (a submitter, a stream),
    never for viewers nobody serves. Viewers who see the same events (for most entries: all of
    them, as nothing in it is hidden) share one :class:`RedactedEntry`, so its JSON and each
    transport's encoding (``RedactedEntry.wire``) are made once per entry, not per subscriber."""

    __slots__ = ("_game", "_seqs")

    def __init__(self, game: AnyGame) -> None:
        self._game = game
        self._seqs: dict[int, dict[Any, RedactedEntry]] = {}

    def get(self, line: LogLine, events: Sequence[Any], viewer: Viewer) -> RedactedEntry:
        """``line`` is the full log entry, ``events`` its decoded events."""
        seq = int(line["seq"])
        views = self._seqs.get(seq)
        if views is None:
            views = self._seqs[seq] = {}
        found = views.get(viewer)
        if found is not None:
            return found
        redact = self._game.redact
        shown = tuple(redact(e, viewer) for e in events)
        key: Any = _PLAIN if all(a is b for a, b in zip(shown, events, strict=True)) else shown
        try:
            found = views.get(key)
        except TypeError:  # an unhashable event: this viewer's own copy
            key = (viewer,)
        if found is None:
            if key is _PLAIN:  # the logged JSON is the encoding already
                texts = tuple(Value.of(e) for e in line["events"])
            else:
                texts = tuple(Value.of(codec.encode(e)) for e in shown)
            found = views[key] = _make(line, texts)
        views[viewer] = found
        return found


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


def end_line(lines: Sequence[LogLine]) -> LogLine | None:
    """The log's end line, once the game is over (None before): public to every viewer, like
    the whole log then (:func:`log`); it reveals seed and salt, so a client's own receipts
    settle the game."""
    last = lines[-1] if lines else {}
    return last if last.get("type") == "end" else None


def rejection_detail(detail: str, match: Shown, viewer: Viewer, command_json: str) -> str:
    """A rejection's detail with every card not visible to the viewer masked."""
    if not _CARD_RE.search(detail):
        return detail
    visible = set(_CARD_RE.findall(view(match, viewer).json)) | set(_CARD_RE.findall(command_json))
    return _CARD_RE.sub(lambda m: m.group(0) if m.group(0) in visible else "??", detail)
