"""One running game, composed of its jobs: the :class:`~.sequencer.Sequencer` (one order, decided
on the durable state, committed by compare-and-set), the :class:`~.fanout.Fanout` (the durable
state every view and stream reads), the :class:`~.timers.Timers` (timed actions and server
bots), the :class:`~.answers.Answers` (one answer per ``action_id``); and how a game is made:
created fresh, or rebuilt from the store (:mod:`.catchup`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from cardcore.engine import Viewer
from cardcore.log import LogLine, commitment
from cardcore.match import Match
from cardcore.rng import derive_deal_seed
from cardcore.signatures import SIGNATURE_KEY

from ..redaction import RedactedEntry
from ..store import EventStore, GameRecord, SharedStore, StoredGame
from .actions import Accepted, AnyGame, AnyMatch, RebuildError, Sign
from .answers import Answers
from .catchup import replay_stored
from .fanout import DurableState, Fanout
from .sequencer import Sequencer, wall_ms
from .timers import Timers


class LiveGame:
    """A game in memory, built from the store or created fresh."""

    def __init__(
        self,
        game: AnyGame,
        record: GameRecord,
        match: AnyMatch,
        store: EventStore,
        clock: Callable[[], int] = wall_ms,
        *,
        version: int = 0,
        owner: str | None = None,
    ) -> None:
        self.game = game
        self.record = record
        self.game_id = record.game_id
        self.match = match
        self.store = store
        self.events: list[tuple[Any, ...]] = []
        """Decoded events per ``seq`` (for per-viewer redaction without re-decoding)."""
        self.fanout = Fanout(game, match, self.events)
        self.lines: list[LogLine] = self.fanout.lines
        self.answers = Answers()
        self.sequencer = Sequencer(
            game,
            record,
            match,
            fanout=self.fanout,
            answers=self.answers,
            store=store,
            clock=clock,
            version=version,
            on_durable=self.plan,
            on_caught_up=self._caught_up,
        )
        self.shared = self.sequencer.shared
        """Set when other processes write to this game too."""
        self.server_id = self.sequencer.server_id
        self.timers = Timers(
            game,
            record,
            self.sequencer,
            self.fanout,
            clock,
            owned=self.shared is None or owner == self.server_id,
        )

    # ------------------------------------------------------------------ construction

    @classmethod
    def create(
        cls,
        game: AnyGame,
        record: GameRecord,
        store: EventStore,
        clock: Callable[[], int] = wall_ms,
        *,
        sign: Sign | None = None,
    ) -> LiveGame:
        """A new game, owned by this server; durable once the store's ``create`` is. ``sign``:
        the server's signature of a log line's hash (:mod:`..signing`)."""
        match = _match(game, record, 0, sign)
        owner = store.server_id if isinstance(store, SharedStore) else None
        self = cls(game, record, match, store, clock, owner=owner)
        self.events.append(self._deal_events())
        self.fanout.durable_lines = 0  # until the store has it
        return self

    def _deal_events(self) -> tuple[Any, ...]:
        deal = self.lines[1]["events"]
        return tuple(self.game.decode_event(e, f"events[{i}]") for i, e in enumerate(deal))

    @classmethod
    def restore(
        cls,
        game: AnyGame,
        stored: StoredGame,
        store: EventStore,
        clock: Callable[[], int] = wall_ms,
        *,
        sign: Sign | None = None,
    ) -> LiveGame:
        """Re-create the match from the stored setup, seed and salt, re-submit every stored
        action, and check that the rebuilt log equals the stored one line for line."""
        record = stored.record
        lines = stored.lines
        if len(lines) < 2:
            raise RebuildError("no deal entry")
        if record.rules_version is None and _stored_version(game, lines[0]) is not None:
            record = replace(record, rules_version=_stored_version(game, lines[0]))
        match = _match(game, record, int(lines[1]["at_ms"]), _resigner(lines, sign))
        self = cls(game, record, match, store, clock, version=stored.version, owner=stored.owner)
        if self.lines[:2] != lines[:2]:
            raise RebuildError("header or deal differs from the stored one")
        if lines[0].get("commitment") != commitment(record.seed, record.salt):
            raise RebuildError("the commitment does not match the stored seed")
        self.events.append(self._deal_events())
        replay_stored(game, match, lines, self.events)
        self.answers.accepted = dict(stored.action_ids)
        self.answers.keep(stored.rejections.values())
        self.sequencer.mark_durable()
        return self

    # ------------------------------------------------------------------ state

    @property
    def durable(self) -> DurableState:
        """The state the store holds (what every view is computed from)."""
        return self.fanout.durable

    @property
    def over(self) -> bool:
        return self.fanout.over

    @property
    def durable_lines(self) -> int:
        """How many of :attr:`lines` are durable (header included)."""
        return self.fanout.durable_lines

    @property
    def durable_seq(self) -> int:
        """The number of durable entries (the next ``seq`` a stream will see)."""
        return self.fanout.durable_seq

    @property
    def version(self) -> int:
        """The store's version of the game that :attr:`durable` is at."""
        return self.sequencer.version

    @property
    def broken(self) -> bool:
        """The stored rows do not replay here: the game must be rebuilt."""
        return self.sequencer.broken

    @property
    def closed(self) -> bool:
        return self.sequencer.closed

    @property
    def owned(self) -> bool:
        """Whether this server arms the game's timers and bots."""
        return self.timers.owned

    @property
    def on_auto(self) -> Callable[[str], None] | None:
        """Told the kind of every action the host took by itself (a timer's, a bot's)."""
        return self.timers.on_auto

    @on_auto.setter
    def on_auto(self, observer: Callable[[str], None] | None) -> None:
        self.timers.on_auto = observer

    def entry_line(self, seq: int) -> LogLine:
        return self.fanout.entry_line(seq)

    def now_ms(self) -> int:
        return self.sequencer.now_ms()

    def created(self) -> None:
        """The store's ``create`` is durable: so is the deal."""
        self.sequencer.mark_durable()

    # ------------------------------------------------------------------ actions

    async def submit(
        self,
        seat: int,
        command: Any,
        command_text: str,
        action_id: str | None,
        planned_seq: int | None = None,
    ) -> Accepted:
        """Sequence one action for ``seat``; returns once it is durable. ``planned_seq``: the
        ``seq`` a timer chose the command for (:class:`~.actions.Superseded` when the game moved
        on).

        Raises :class:`~cardcore.errors.Rejected` (once the rejection is durable, when it
        carried an ``action_id``), :class:`~.actions.ActionIdReused`,
        :class:`~.actions.Unavailable`, or :class:`~..store.StoreError` when the store stayed
        unreachable."""
        return await self.sequencer.submit(seat, command, command_text, action_id, planned_seq)

    async def sync(self) -> None:
        """Catch up with what other processes wrote (a shared store only; a store that cannot
        be read leaves the durable state as it is). Raises :class:`~.actions.Unavailable` when
        the game is broken (rebuild it)."""
        await self.sequencer.sync()

    def request_sync(self) -> None:
        """A hint that the store may hold more than we do: catch up soon (no waiting)."""
        self.sequencer.request_sync()

    # ------------------------------------------------------------------ streams

    def redacted(self, seq: int, viewer: Viewer) -> RedactedEntry:
        return self.fanout.redacted(seq, viewer)

    async def wait_change(self, seen_lines: int) -> None:
        """Return once more lines are durable than ``seen_lines``, or on :meth:`wake` (the
        caller looks again either way)."""
        if not self.broken and not self.closed:
            await self.fanout.wait_change(seen_lines)

    def wake(self) -> None:
        """Wake every stream waiting on this game (the server is stopping)."""
        self.fanout.wake()

    # ------------------------------------------------------------------ timers and bots

    def set_owned(self, owned: bool) -> None:
        """This server now owns the game's timers and bots (or no longer does)."""
        self.timers.set_owned(owned)

    def plan(self) -> None:
        """Re-arm the bots' and timed actions' timers for the durable state (owner only)."""
        self.timers.plan()

    def _caught_up(self, owned: bool | None, owner: str | None) -> None:
        self.timers.caught_up(owned, owner)

    # ------------------------------------------------------------------ stopping

    def drain(self, *, in_round: bool = False) -> None:
        """The server is stopping: answer every action still waiting ``UNAVAILABLE`` now (a
        client retries it, with its ``action_id``, on the next server), rather than let the
        transport cancel it at the end of the grace period. ``in_round``: the round being
        committed too (its commit may still land: the retry then gets the same answer)."""
        self.sequencer.drain(in_round=in_round)

    async def close(self) -> None:
        """Stop timers; let the round being committed land; answer the rest ``UNAVAILABLE``."""
        self.timers.stop()
        await self.sequencer.close()
        self.fanout.wake()


def _match(game: AnyGame, record: GameRecord, at_ms: int, sign: Sign | None) -> AnyMatch:
    """The match of a served game: dealt with the deal seed derived from the server's seed and
    the seats' contributions (log format 2), or from the seed itself (a format-1 game)."""
    given = record.contributions
    entropy = None if given is None else tuple((s, bytes.fromhex(h)) for s, h in given)
    seed = record.seed if entropy is None else derive_deal_seed(record.seed, entropy)
    setup = game.make_setup(len(record.seats), seed, record.rules, record.event_limit)
    return Match(
        game,
        setup,
        salt=record.salt,
        at_ms=at_ms,
        game_id=record.game_id,
        rules_version=record.rules_version,
        server_seed=None if entropy is None else record.seed,
        contributions=entropy,
        committed=record.committed,
        sign=sign,
    )


def _resigner(lines: list[LogLine], sign: Sign | None) -> Sign | None:
    """How a rebuilt game signs: as its stored log was. A game begun unsigned stays unsigned
    (its rebuilt lines must equal the stored ones); a signed line keeps its stored signature
    (the key may have changed since); a new end line is signed with the server's key."""
    if sign is None or SIGNATURE_KEY not in lines[0]:
        return None
    kept = {
        str(ln["hash"]): ln[SIGNATURE_KEY] for ln in (lines[0], lines[-1]) if SIGNATURE_KEY in ln
    }

    def resign(line_hash: str) -> dict[str, str]:
        found = kept.get(line_hash)
        return dict(found) if isinstance(found, dict) else sign(line_hash)

    return resign


def _stored_version(game: AnyGame, header: LogLine) -> str | None:
    """The rules version a stored game was started under, if it is an earlier one the game
    still replays (served across an upgrade); None for the game's own."""
    version = header.get("rules_version")
    if version != game.info.rules_version and version in game.info.replays_versions:
        return str(version)
    return None
