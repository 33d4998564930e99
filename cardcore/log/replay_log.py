"""Replaying a log: the state after each entry, from its logged events alone (no rules, no RNG;
:func:`~cardcore.log.verify` is what re-decides them)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .. import codec
from ..engine import Game, union_of
from ..errors import CorruptLog, DecodeError
from .format import COPY_KEY, LogLine
from .header import checked_header, deal_seed, game_of, setup_of, start_of
from .viewers import copy_of, whose


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """The state after one entry, with the decoded command and events that led to it."""

    entry: LogLine
    command: Any
    events: tuple[Any, ...]
    state: Any


def replay(
    lines: Sequence[LogLine],
    seed: int | None = None,
    *,
    game: Game[Any, Any, Any, Any, Any] | None = None,
) -> Iterator[ReplayStep]:
    """The state after each entry, applying the logged events (no rules, no RNG).

    Works on any log whose events are complete (the full log or the referee's); raises
    :class:`CorruptLog` where an event does not decode. The states carry the revealed seed (or
    ``seed``, or 0 while it is secret): only later shuffles would need it. A viewer's copy
    (:func:`copy_of`) lacks the cards hidden from its viewer, so it has no states: it raises
    ``ValueError`` (``cardcore replay --as`` narrates a copy instead)."""
    header = checked_header(lines)
    game = game_of(header, game)
    if COPY_KEY in header:
        raise ValueError(
            f"this is {whose(copy_of(lines))} copy: the cards hidden from its viewer are not in "
            "it, so it replays into no states (the full log does, after the end)"
        )
    if seed is None:
        end = lines[-1] if lines[-1].get("type") == "end" else {}
        seed = end.get("seed", 0) if isinstance(end.get("seed", 0), int) else 0
        if end:
            seed = deal_seed(header, seed)
    setup = setup_of(game, header, seed)
    state = start_of(game, header, setup)
    decode_event = codec.decoder(union_of(game.event_types))
    evolve = game.evolve
    for line in lines[1:]:
        if line.get("type") != "entry":
            continue
        seq = line.get("seq")
        seq_i = seq if isinstance(seq, int) else None
        raw_events = line.get("events")
        if not isinstance(raw_events, list):
            raise CorruptLog(seq_i, "entry has no list of events")
        try:
            events = tuple([decode_event(e, "events") for e in raw_events])
            # No seat: the deal, or the host's abort (it changes no card).
            command = None if line.get("seat") is None else game.decode_command(line.get("action"))
        except DecodeError as exc:
            raise CorruptLog(seq_i, str(exc)) from None
        try:
            for event in events:
                state = evolve(state, event)
        except Exception as broken:
            # a tampered log: evolve trusts its events (docs/games/common.md#the-sequencer)
            raise CorruptLog(seq_i, f"an event does not apply: {type(broken).__name__}") from None
        yield ReplayStep(line, command, events, state)
