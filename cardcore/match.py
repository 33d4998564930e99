"""A running game: the single sequencer of docs/games/common.md#the-sequencer around one game's
decider.

:class:`Match` numbers accepted actions (``seq`` 0 is the deal), stamps each with the caller's
``at_ms``, applies them one at a time, ends the game at the setup's event limit, and records the
tamper-evident log (:mod:`cardcore.log`). It holds no clock and no I/O: the host supplies time and
persists what :attr:`Match.writer` records (:meth:`Match.dumps` gives its bytes,
:meth:`Match.loads` plays a saved log back into a match that plays on). A rejected action raises
:class:`~cardcore.errors.Rejected` and changes nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, Generic

from . import codec
from ._mypyc import mypyc_attr
from .engine import (
    C,
    E,
    Game,
    Outcome,
    R,
    Role,
    S,
    Setup,
    V,
    Viewer,
    check_command,
    check_seat,
    with_setup,
)
from .errors import CardcoreError, CorruptLog, InvalidPosition, RejectCode, Rejected

# The log's lower layers only (its lines, its header, its writer): the log's verify and copies
# re-decide games without a Match, so the log never imports this module.
from .log.format import (
    COPY_KEY,
    SALT_BYTES,
    LogLine,
    abort_action,
    abort_by,
    commitment,
)
from .log.format import loads as load_lines
from .log.header import (
    checked_header,
    committed_seats,
    contributions,
    deal_seed,
    game_of,
    revealed,
    setup_of,
    start_of,
)
from .log.writer import LogWriter
from .races import RACE_KEY, Race, RacePolicy, credit
from .sequencer import Sequencer


def simulation_salt(seed: int) -> bytes:
    """A salt derived from the seed, for simulations and tests only.

    Logs written with it are reproducible byte for byte, but their commitment hides nothing: a
    served game takes its salt from a cryptographic source instead."""
    return hashlib.sha256(b"cardcore simulation salt" + seed.to_bytes(8, "big")).digest()[
        :SALT_BYTES
    ]


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """Where a :class:`Match` stood (see :meth:`Match.checkpoint`); opaque to callers."""

    state: Any
    seq: int
    events_applied: int
    last_at_ms: int
    outcome: Outcome | None
    lines: int


# A host may subclass Match in its own (interpreted) code, in the compiled build too.
@mypyc_attr(allow_interpreted_subclasses=True)
class Match(Sequencer[S, C, E], Generic[S, C, E, V, R]):
    """One game in progress: the sequencer's rules (:class:`~cardcore.sequencer.Sequencer`),
    sequence numbers and the log."""

    def __init__(
        self,
        game: Game[S, C, E, V, R],
        setup: Setup[R],
        *,
        salt: bytes | None = None,
        at_ms: int = 0,
        game_id: str | None = None,
        record: bool = True,
        deal: Sequence[E] | None = None,
        rules_version: str | None = None,
        server_seed: int | None = None,
        contributions: Sequence[tuple[int, bytes]] | None = None,
        committed: Collection[int] = (),
        sign: Callable[[str], dict[str, str]] | None = None,
    ) -> None:
        """``deal``: the opening events to start from instead of dealing from the seed (a logged
        deal whose seed is still secret); such a match records no log. ``rules_version``: an
        earlier version of the game's rules it still replays, for a game started under it (the
        log's header records it). ``server_seed``, ``contributions``, ``committed`` and
        ``sign``: log format 2 and the host's signature (:class:`~cardcore.log.LogWriter`);
        ``setup.seed`` is then the deal seed derived from the first two."""
        super().__init__(game, setup, game.initial_state(setup), at_ms)
        self.game: Game[S, C, E, V, R] = game
        self.writer = (
            LogWriter(
                game,
                setup,
                salt if salt is not None else simulation_salt(setup.seed),
                game_id,
                rules_version=rules_version,
                server_seed=server_seed,
                contributions=contributions,
                committed=committed,
                sign=sign,
            )
            if record and deal is None
            else None
        )
        self._race_policy = RacePolicy.of_rules(setup.rules)
        self._compensated = self._race_policy.compensated  # read at every submit: a native bool
        self._advance(None, None, game.deal(setup) if deal is None else deal, at_ms)

    @classmethod
    def from_deal(
        cls, game: Game[S, C, E, V, R], setup: Setup[R], deal_json: Any, at_ms: int = 0
    ) -> Match[S, C, E, V, R]:
        """A match started from a logged deal instead of the seed (no log is recorded)."""
        events = [game.decode_event(e, f"events[{i}]") for i, e in enumerate(deal_json or [])]
        return cls(game, setup, at_ms=at_ms, deal=events)

    @classmethod
    def from_position(
        cls,
        game: Game[S, C, E, V, R],
        state: S,
        *,
        seed: int = 0,
        salt: bytes | None = None,
        at_ms: int = 0,
        game_id: str | None = None,
        record: bool = True,
        event_limit: int | None = None,
    ) -> Match[S, C, E, V, R]:
        """A match that starts from ``state`` (a game's ``position(...)`` or ``parse_position``)
        instead of a deal: checked first (:class:`~cardcore.errors.InvalidPosition`), then
        sequenced and logged like any game. The log's header carries the position in the
        game's notation and entry 0 deals nothing, so the log replays and verifies. ``seed``
        drives any later shuffle (a new round of Speed or Spit)."""
        if game.check_position is None or game.format_position is None:
            raise InvalidPosition("game", f"{game.name} has no position notation")
        game.check_position(state)
        old: Setup[R] = state.setup  # type: ignore[attr-defined]
        setup = Setup(
            old.seats, seed, old.rules, old.event_limit if event_limit is None else event_limit
        )
        start = with_setup(state, setup)
        match = cls(game, setup, at_ms=at_ms, deal=())  # no deal: start_from sets the state
        if record:
            match.writer = LogWriter(
                game,
                setup,
                salt if salt is not None else simulation_salt(seed),
                game_id,
                position=game.format_position(start, Role.REFEREE),
            )
        match.start_from(start, at_ms)
        return match

    def dumps(self) -> bytes:
        """The match's log as a log file's bytes: canonical JSON Lines, one line per header,
        entry and end (``cardcore verify`` reads them; :meth:`loads` plays them back).

        A function, not a ``save(path)``: cardcore does no I/O (only its command line touches
        files), so the host writes the bytes where it keeps its files, in one line:
        ``Path("game.jsonl").write_bytes(match.dumps())``. Raises ``ValueError`` for a match
        that records no log (made with ``record=False``, or started from a logged deal)."""
        writer = self.writer
        if writer is None:
            raise ValueError(
                "this match records no log (it was made with record=False, or from a logged "
                "deal): there is nothing to save; make it with record=True"
            )
        return b"".join(writer.line_bytes(i) + b"\n" for i in range(writer.line_count))

    @classmethod
    def loads(
        cls,
        data: bytes | str,
        *,
        seed: int | None = None,
        salt: bytes | None = None,
        game: Game[Any, Any, Any, Any, Any] | None = None,
        sign: Callable[[str], dict[str, str]] | None = None,
    ) -> Match[Any, Any, Any, Any, Any]:
        """The match a saved log (:meth:`dumps`) describes, ready to play on:
        ``Match.loads(Path("game.jsonl").read_bytes(), seed=7)``.

        The match is rebuilt as it was played: dealt (or started from the header's position)
        and every logged action re-decided by the rules in order, so its state, ``seq``, clock
        and log are the saved ones; each line it writes must be the saved line byte for byte,
        so a log that was altered, or loaded with the wrong seed or salt, is refused. (A match
        is loaded by replaying, not by trusting a snapshot.)

        ``seed``: the seed the header commits to (the one the match was made with; the server
        seed of a log of format 2). A game in progress keeps it secret, so it must be given; a
        finished log reveals it. ``salt``: the log's salt, when the match was made with one of
        its own (the simulation salt of ``seed`` otherwise). ``game``: a game that is not
        registered. ``sign``: the host's signer, for a signed log.

        Raises :class:`~cardcore.errors.CorruptLog` (``seq`` the first line at fault) for a
        text that is not a whole log (a viewer's copy, whose hidden cards are ``??``,
        included) or a line the rules do not rebuild; ``ValueError`` when ``seed`` is missing
        or does not match the header's commitment."""
        lines = load_lines(data)
        header = checked_header(lines)
        if COPY_KEY in header:
            raise CorruptLog(
                None, "a viewer's copy lacks the cards hidden from its viewer: load the full log"
            )
        game = game_of(header, game)
        end = lines[-1] if lines[-1].get("type") == "end" else None
        seed, salt = _secrets(header, end, seed, salt)
        setup = setup_of(game, header, deal_seed(header, seed))
        entries = lines[1 : len(lines) - (end is not None)]
        if (
            not entries
            or entries[0].get("seq") != 0
            or not isinstance(entries[0].get("at_ms"), int)
        ):
            raise CorruptLog(0, "the log has no entry 0 (the deal) with its at_ms")
        match = cls._restarted(
            game, header, setup, seed=seed, salt=salt, at_ms=entries[0]["at_ms"], sign=sign
        )
        match._replay(lines, entries)
        return match

    @classmethod
    def _restarted(
        cls,
        game: Game[Any, Any, Any, Any, Any],
        header: LogLine,
        setup: Setup[Any],
        *,
        seed: int,
        salt: bytes,
        at_ms: int,
        sign: Callable[[str], dict[str, str]] | None,
    ) -> Match[Any, Any, Any, Any, Any]:
        """The match a log's header starts (:meth:`loads`): from its position, or dealt."""
        if "position" in header:
            return cls.from_position(
                game,
                start_of(game, header, setup),
                seed=seed,
                salt=salt,
                at_ms=at_ms,
                game_id=header.get("game_id"),
                event_limit=setup.event_limit,
            )
        given = contributions(header)
        version = header.get("rules_version")
        return cls(
            game,
            setup,
            salt=salt,
            at_ms=at_ms,
            game_id=header.get("game_id"),
            rules_version=None if version == game.info.rules_version else str(version),
            server_seed=None if given is None else seed,
            contributions=given,
            committed=committed_seats(header),
            sign=sign,
        )

    def _replay(self, lines: Sequence[LogLine], entries: Sequence[LogLine]) -> None:
        """Re-decide every logged action after the deal; each line written must be the saved
        one (:meth:`loads`)."""
        writer = self.writer
        assert writer is not None  # a loaded match records its log
        _same_line(writer, lines, 0)
        _same_line(writer, lines, 1)
        game = self.game
        for i, line in enumerate(entries[1:], start=2):
            seq = line.get("seq")
            at = seq if isinstance(seq, int) else None
            if self.outcome is not None:
                raise CorruptLog(at, "an entry after the end of the game")
            try:
                at_ms = line["at_ms"]
                by = abort_by(line)
                if by is not None:
                    self.abort(at_ms, by)
                elif self.race_policy.compensated:
                    race = line[RACE_KEY]
                    command = game.decode_command(line["action"], "action")
                    self.submit_received(
                        line["seat"], command, race["received_ms"], race["delay_ms"]
                    )
                else:
                    self.submit(line["seat"], game.decode_command(line["action"], "action"), at_ms)
            except (CardcoreError, KeyError, TypeError, ValueError) as exc:
                raise CorruptLog(at, f"the logged action is not accepted: {exc}") from None
            _same_line(writer, lines, i)
        ended = lines[-1].get("type") == "end"
        if ended != (self.outcome is not None):
            last = lines[-1].get("seq")
            raise CorruptLog(
                last if isinstance(last, int) else None,
                "the log ends the game here, the rules do not"
                if ended
                else "the rules end the game here, but the log has no end line",
            )
        if ended:
            _same_line(writer, lines, len(lines) - 1)

    def start_from(self, state: S, at_ms: int) -> None:
        """Start over from ``state``: entry 0 deals nothing (used by :meth:`from_position`)."""
        self.state = state
        self.seq = 0
        self.events_applied = 0
        self.last_at_ms = at_ms
        self.outcome = None
        if self.writer is not None:
            self.writer.truncate(1)
        self._advance(None, None, (), at_ms)

    @property
    def race_policy(self) -> RacePolicy:
        """How races are decided (docs/games/common.md#race-policy): under ``compensated``
        every action is credited (:meth:`submit_received`) and its entry records its race. The
        setup's, for the whole match."""
        return self._race_policy

    @property
    def writer(self) -> LogWriter | None:
        """The match's log (None: it records none), the sequencer's recorder."""
        return self._writer

    @writer.setter
    def writer(self, writer: LogWriter | None) -> None:
        self._writer = self.recorder = writer

    # The log of a match: an entry per action, numbered (the writer records them as the
    # sequencer applies them; the abort's has no seat, its action {"kind": "Abort", "by": …} and
    # no events), and the end line once the game is over.

    def _record_abort(self, at_ms: int, by: str) -> None:
        if self.writer is not None:
            self.writer.entry(self.seq, at_ms, None, abort_action(by), [])
        super()._record_abort(at_ms, by)

    def _end(self, outcome: Outcome) -> None:
        self.outcome = outcome
        if self.writer is not None:
            self.writer.end(self.seq, outcome)

    def submit(self, seat: object, command: C, at_ms: int) -> Sequence[E]:
        """Sequence one action: decide, apply, record. Returns the events (unredacted).

        ``at_ms`` is the host's time stamp for this action; it must not go backwards. ``seat``
        is whatever the caller gave (:class:`~cardcore.errors.InvalidSeat` unless it is a seat
        of this game): declared ``object`` so that the compiled build, which checks a declared
        ``int`` on entry with a ``TypeError``, answers as the pure one does.

        Under ``race_policy: "compensated"`` this is the host's own action, or a bot's (delay
        0): :meth:`submit_received` with ``delay_ms=0``."""
        if self._compensated:
            if at_ms < self.last_at_ms:
                raise ValueError(f"at_ms went backwards: {at_ms} < {self.last_at_ms}")
            return self.submit_received(seat, command, at_ms, 0)
        if at_ms < self.last_at_ms:
            raise ValueError(f"at_ms went backwards: {at_ms} < {self.last_at_ms}")
        p = seat if type(seat) is int and 0 <= seat < self._seats else check_seat(self._seats, seat)
        if self.outcome is not None:
            raise Rejected(RejectCode.GAME_OVER, "the game is over")
        if type(command) not in self._typed:  # a kit.command checked its fields when built
            check_command(command)
        events = self._decide(self.state, p, command)
        self._advance(p, command, events, at_ms)
        return events

    def submit_received(
        self, seat: object, command: C, received_ms: int, delay_ms: int
    ) -> Sequence[E]:
        """Sequence one action of a game under ``race_policy: "compensated"``, received at
        ``received_ms`` from a seat ``delay_ms`` away (the host's measured one-way delay; 0 for
        its own actions and bots): credited at ``received_ms - min(delay_ms, cap)``, or at the
        last entry's time when that is earlier (clamped), decided there and recorded with its
        race (:func:`cardcore.races.credit`). The host hands actions over in credited order
        (:class:`cardcore.races.Hold`). Returns the events, like :meth:`submit`."""
        policy = self.race_policy
        if not policy.compensated:
            raise ValueError('submit_received is for a game under race_policy "compensated"')
        at_ms, race = credit(policy, received_ms, delay_ms, self.last_at_ms)
        p = check_seat(self._seats, seat)
        if self.outcome is not None:
            raise Rejected(RejectCode.GAME_OVER, "the game is over")
        if type(command) not in self._typed:
            check_command(command)
        events = self._decide(self.state, p, command)
        self._raced(race, p, command, events, at_ms)
        return events

    def _raced(
        self, race: Race, seat: int | None, command: Any, events: Sequence[E], at: int
    ) -> None:
        """Apply and record an action with its race record."""
        writer = self.writer
        if writer is not None:
            writer.race = race
        try:
            self._advance(seat, command, events, at)
        finally:
            if writer is not None:
                writer.race = None

    def apply(self, seat: int, command: C, events: Sequence[E], at_ms: int) -> None:
        """Sequence an action whose events were already decided (replaying a log, or
        :meth:`check` followed by a commit). No rules are consulted."""
        self._check_time(at_ms)
        self._advance(seat, command, events, at_ms)

    def checkpoint(self) -> Checkpoint:
        """The match as it stands now, to :meth:`rewind` to: a host that sequences actions
        optimistically (decides before its store has confirmed it holds the latest state)
        undoes the actions its store then refused. A state is never changed once made (a
        ``NamedTuple``, or a native state whose game's ``evolve`` writes only the copy it
        returns: the contract test holds every game to it), so this is O(1)."""
        lines = self.writer.line_count if self.writer is not None else 0
        return Checkpoint(
            self.state, self.seq, self.events_applied, self.last_at_ms, self.outcome, lines
        )

    def rewind(self, cp: Checkpoint) -> None:
        """Undo every action sequenced since ``cp`` (taken from this match)."""
        if cp.seq > self.seq:
            raise ValueError(f"checkpoint at seq {cp.seq} is ahead of the match ({self.seq})")
        self.state = cp.state
        self.seq = cp.seq
        self.events_applied = cp.events_applied
        self.last_at_ms = cp.last_at_ms
        self.outcome = cp.outcome
        if self.writer is not None:
            self.writer.truncate(cp.lines)

    def view(self, viewer: Viewer) -> V:
        return self.game.view(self.state, viewer)

    def legal_commands(self, seat: object) -> Sequence[C]:
        """``seat``'s legal commands now (none once the game is over); ``seat`` as
        :meth:`submit` takes it."""
        p = check_seat(self._seats, seat)
        if self.outcome is not None:
            return ()
        return self.game.legal_commands(self.state, p)


def _secrets(
    header: LogLine, end: LogLine | None, seed: int | None, salt: bytes | None
) -> tuple[int, bytes]:
    """The seed and salt a log was written with: those its end line reveals, else those given
    (the simulation salt of the deal seed by default), checked against the header's
    commitment."""
    if end is not None:
        shown_seed, shown_salt = revealed(header, end)
        if (seed is not None and seed != shown_seed) or (salt is not None and salt != shown_salt):
            raise ValueError("the seed or salt given is not the one the log's end line reveals")
        return shown_seed, shown_salt
    if seed is None:
        raise ValueError(
            "a log of a game in progress keeps its seed secret (the header only commits to it): "
            "pass seed=, the seed the match was made with"
        )
    if salt is None:
        salt = simulation_salt(deal_seed(header, seed))  # as Match makes it
    if commitment(seed, salt) != header.get("commitment"):
        raise ValueError("the seed and salt given do not match the header's commitment")
    return seed, salt


def _same_line(writer: LogWriter, lines: Sequence[LogLine], i: int) -> None:
    """Line ``i`` the match wrote is the saved line ``i``, byte for byte; else
    :class:`~cardcore.errors.CorruptLog` at that line."""
    if i >= writer.line_count:
        return  # the match wrote no such line: the replay reports what ended where
    if writer.line_bytes(i) != codec.canonical_bytes(lines[i]):
        seq = lines[i].get("seq")
        what = "header" if i == 0 else "line"
        raise CorruptLog(
            seq if isinstance(seq, int) and i else None,
            f"the {what} the rules rebuild differs from the saved one (altered, or another "
            "seed, salt or signer)",
        )
