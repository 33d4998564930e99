"""The one walk along a log's hash chain, and what it reports.

Every check of a log's entries goes through :func:`walk`: entry after entry in ``seq`` order, each
in its place and linked to the line before it (``prev``), then handed to a *policy* that knows how
much can be proved of it — a log (:mod:`cardcore.log.verify_log`: keyed hashes once the salt is
revealed, every action re-decided), a viewer's copy, or a copy settled with its end line
(:mod:`cardcore.log.verify_copy`). The policies differ in what they can see; the walk, and the
words for what every walk refuses, are here once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from ..engine import Outcome, Setup, Termination
from ..errors import CorruptLog, DecodeError
from ..races import RACE_KEY, RacePolicy, check_race
from .format import LogLine, decode_outcome, encode_outcome, json_eq

BROKEN: Final = "hash chain broken: prev does not match the previous line"


@dataclass(frozen=True, slots=True)
class Report:
    """What :func:`verify` established."""

    game: str
    entries: int
    revealed: bool
    outcome: Outcome | None
    unchecked: int = 0
    """Entries whose action could not be re-decided by the rules: in a log in progress, those
    that shuffle (the seed is still secret); in a viewer's copy, every one (the cards hidden
    from the viewer are not in it)."""
    copy: str | None = None
    """For a viewer's copy, whose (:func:`copy_of`): ``"0"``, ``"1"``, …, ``"spectator"``, or
    ``""`` for a redacted log that does not say. None for a log."""
    checked: tuple[str, ...] = ()
    """For a log in progress or a copy: what was checked, in short phrases."""
    not_checked: tuple[str, ...] = ()
    """For a log in progress or a copy: what could not be checked yet, each with its count and
    why, e.g. ``"12 entry hashes (salt secret)"``; the end line reveals what they need."""
    notes: tuple[str, ...] = ()
    """Anything else not checked, as a sentence (e.g. :data:`POSITION_HIDDEN`)."""
    signed_by: str | None = None
    """The public key (base64url) the header says signed the log, if any."""
    signatures_checked: int = 0
    """Signatures checked against the ``server_key`` given to :func:`verify` (header, end)."""
    committed: tuple[int, ...] = ()
    """The seats whose entropy the header records with the commitment made before the start,
    each reveal checked against it (docs/rng.md, "Committed entropy")."""
    race_policy: str = "arrival"
    """The game's race policy (docs/games/common.md#race-policy): ``arrival``, or
    ``compensated:CAP``, whose every credit was checked (:class:`RaceCheck`)."""


class EntryPolicy(Protocol):
    """How much a walk proves of each entry. Each method raises :class:`CorruptLog` for the
    first thing at fault; ``seq`` is what :meth:`place` returned, the ``seq`` to name."""

    def place(self, expected: int, line: LogLine) -> Any:
        """``line`` must be the entry with ``seq`` ``expected``; returns the ``seq`` to name."""

    def stamp(self, seq: Any, line: LogLine) -> int:
        """The entry's own hash and time, as far as this policy checks them; returns ``at_ms``."""

    def deal(self, line: LogLine, at_ms: int) -> None:
        """Entry 0: the deal (or, from a position, the start)."""

    def abort(self, seq: Any, line: LogLine, at_ms: int) -> None:
        """A later entry without a seat: it must be the host's abort."""

    def action(self, seq: Any, line: LogLine, seat: Any, at_ms: int) -> None:
        """A seat's action."""


def walk(body: Sequence[LogLine], prev: Any, policy: EntryPolicy, at: list[int | None]) -> Any:
    """Walk the entries ``body`` (the lines after the header, the end line left out) from the
    header's hash ``prev``; returns the last entry's hash, to which the end line must link.
    ``at[0]`` follows the entry being checked, for a fault no policy foresaw."""
    for expected, line in enumerate(body):
        at[0] = expected
        seq = policy.place(expected, line)
        if line.get("prev") != prev:
            raise CorruptLog(seq, BROKEN)
        prev = line.get("hash")
        at_ms = policy.stamp(seq, line)
        if expected == 0:
            policy.deal(line, at_ms)
        elif line.get("seat") is None:
            policy.abort(seq, line, at_ms)
        else:
            policy.action(seq, line, line.get("seat"), at_ms)
    return prev


# --------------------------------------------------------------------------- shared checks


def in_place(expected: int, line: LogLine, *, bool_is_seq: bool = True) -> Any:
    """The ``seq`` of ``line`` when it is an entry numbered ``expected``. ``bool_is_seq``:
    whether ``true`` passes for 1 (``True == 1``), as a log's check has always let it; a copy's
    refuses it."""
    if line.get("type") != "entry":
        raise CorruptLog(expected, f"expected an entry, found a {line.get('type')!r} line")
    seq = line.get("seq")
    if seq != expected or (not bool_is_seq and isinstance(seq, bool)):
        raise CorruptLog(
            expected, f"entry missing or out of order (found seq {seq!r} in its place)"
        )
    return seq


def ordered_time(seq: Any, line: LogLine, last_at_ms: int) -> int:
    """The entry's ``at_ms``, an int at or after ``last_at_ms``."""
    at_ms = line.get("at_ms")
    if not isinstance(at_ms, int) or isinstance(at_ms, bool) or at_ms < last_at_ms:
        raise CorruptLog(seq, f"at_ms {at_ms!r} is not a time at or after {last_at_ms}")
    return at_ms


def listed_events(seq: Any, line: LogLine) -> list[Any]:
    """The entry's ``events``, a list."""
    events = line.get("events")
    if not isinstance(events, list):
        raise CorruptLog(seq, "entry has no list of events")
    return events


def check_outcome(end: LogLine, outcome: Outcome | None) -> None:
    """The end line's outcome must be the game's, written exactly as the writer writes it (a
    field dropped or added that decodes to the same outcome is still a changed line)."""
    end_seq = end.get("seq")
    at = end_seq if isinstance(end_seq, int) and not isinstance(end_seq, bool) else None
    if outcome is None:
        raise CorruptLog(at, "the log ends but the game is not over")
    try:
        logged = decode_outcome(end.get("outcome"))
    except DecodeError as exc:
        raise CorruptLog(at, f"outcome does not decode: {exc}") from None
    if logged != outcome:
        raise CorruptLog(at, f"logged outcome {logged} differs from the game's {outcome}")
    if not json_eq(end.get("outcome"), encode_outcome(outcome)):
        raise CorruptLog(at, "the end line's outcome is not written as the game's outcome is")


def count(n: int, one: str, many: str | None = None) -> str:
    """``"1 decision"``, ``"12 decisions"``."""
    return f"{n} {one if n == 1 else many or one + 's'}"


def terminated(outcome: Outcome | None) -> bool:
    """True for a game that ended by its own rules (not by the event limit)."""
    return outcome is not None and outcome.termination is not Termination.EVENT_LIMIT


class RaceCheck:
    """The race records of a log (docs/games/common.md#race-policy): under ``compensated``,
    every action of a seat carries one whose credit follows the rule and whose ``at_ms`` is the
    credited time, and actions credited alike are in order of arrival; under ``arrival``, and
    on the deal and a host's abort, there is none. Every walker of entries asks it, in order."""

    def __init__(self, setup: Setup[Any]) -> None:
        self.policy = RacePolicy.of_rules(setup.rules)
        self._tie: tuple[int, int] | None = None
        """``(at_ms, received_ms)`` of the last action credited without a clamp."""

    def check(self, seq: Any, line: LogLine, last_at_ms: int) -> None:
        race: Any = line.get(RACE_KEY)
        if not self.policy.compensated or seq == 0 or line.get("seat") is None:
            if RACE_KEY in line:
                raise CorruptLog(
                    seq,
                    'only an action of a seat under race_policy "compensated" has a race record',
                )
            return
        why = check_race(self.policy, race, line.get("at_ms"), last_at_ms)
        if why is not None:
            raise CorruptLog(seq, f"the race record does not hold: {why}")
        at_ms, received, clamped = line["at_ms"], race["received_ms"], race["clamped"]
        if clamped:
            return
        if self._tie is not None and self._tie[0] == at_ms and received < self._tie[1]:
            raise CorruptLog(
                seq,
                f"credited at {at_ms} as the action before it, but received earlier "
                f"({received} < {self._tie[1]}): actions credited alike go in order of arrival",
            )
        self._tie = (at_ms, received)
