"""Bringing a live game to what the store holds: every stored entry is re-decided on the match
(as :func:`cardcore.log.verify` does) and the line it makes checked against the stored one, line
for line, for a rebuild (every entry, :func:`replay_stored`) as for a catch-up (the rows other
servers wrote, :func:`apply_tail`). A stored game that does not replay is never served."""

from __future__ import annotations

from typing import Any

from cardcore.errors import DecodeError, Rejected
from cardcore.log import LogLine, abort_by

from ..store import Tail
from .actions import AnyGame, AnyMatch, RebuildError
from .answers import Answers


def replay_entry(game: AnyGame, match: AnyMatch, line: LogLine) -> tuple[Any, ...]:
    """Re-decide one stored entry on ``match`` (a seat's command, or the host's abort); returns
    its events. Raises what :meth:`Match.submit` raises, or ``KeyError`` / ``ValueError``."""
    if line.get("seat") is None:
        by = abort_by(line)
        if by is None:
            raise ValueError(f"entry {line.get('seq')} has no seat and is not an abort")
        match.abort(int(line["at_ms"]), by)
        return ()
    command = game.decode_command(line["action"], "action")
    return tuple(match.submit(int(line["seat"]), command, int(line["at_ms"])))


def replay_stored(
    game: AnyGame, match: AnyMatch, stored: list[LogLine], events: list[tuple[Any, ...]]
) -> None:
    """Re-decide the stored entries after the deal (``stored[2:]``, up to the end line),
    appending their events; raises :class:`~.actions.RebuildError` unless the match's log then
    equals ``stored``."""
    for line in stored[2:]:
        if line.get("type") != "entry":
            break
        try:
            events.append(replay_entry(game, match, line))
        except (DecodeError, Rejected, ValueError, KeyError) as exc:
            raise RebuildError(f"entry {line.get('seq')} does not replay: {exc}") from None
    assert match.writer is not None  # a live match records its log
    if match.writer.lines != stored:
        raise RebuildError("the rebuilt log differs from the stored log")


def apply_tail(
    game: AnyGame,
    match: AnyMatch,
    events: list[tuple[Any, ...]],
    answers: Answers,
    tail: Tail,
) -> bool:
    """Apply the tail's rows (each entry re-decided and checked line for line); returns whether
    the match grew. Raises :class:`~.actions.RebuildError` (or what :func:`replay_entry` raises)
    when a row does not replay."""
    assert match.writer is not None  # a live match records its log
    lines = match.writer.lines
    grew = False
    for seq, line, action_id in tail.entries:
        if seq != match.seq:
            raise RebuildError(f"entry {match.seq} is missing")
        events.append(replay_entry(game, match, line))
        over = match.outcome is not None
        if (lines[-2] if over else lines[-1]) != line:
            raise RebuildError(f"entry {seq} differs from the stored one")
        if over and lines[-1] != tail.end:
            raise RebuildError("the end line differs from the stored one")
        if action_id is not None:
            answers.accepted[(int(line["seat"]), str(action_id))] = seq
        grew = True
    answers.keep(tail.rejections)  # the writer forgot the same in the store
    return grew
