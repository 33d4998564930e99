"""Playing a game: submit an action, stream the entries, read the view and the log — each for
the caller its token names, redacted for it (:mod:`cardcore_server.redaction`).

The flow of an action is the one of design.md §4: authenticate (the seat comes from the token,
never from the payload) → decode the command → the game's sequencer (stamp ``at_ms``, decide,
apply, enqueue to the store) → wait until durable → redact for the caller → answer.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any, Final

from cardcore import codec
from cardcore.engine import Viewer
from cardcore.errors import DecodeError, Rejected
from cardcore.kit import Resign
from cardcore.log import LogLine, dumps
from cardcore.races import RACE_KEY

from .. import redaction
from ..errors import FieldViolation, Reason, ServiceError, Status, invalid
from ..limits import RateLimits
from ..live import ActionIdReused, AnyGame, LiveGame, Unavailable
from ..metrics import Metrics
from ..store import StoreError
from .channel import PlayChannel
from .games import Games
from .inputs import readable
from .outage import unavailable
from .presence import Presence
from .requests import Gate, note
from .roundtrips import RoundTrips
from .tokens import TokenBook, parse_viewer
from .values import JsonObject, LogResult, StreamBatch, SubmitResult, Unreadable, ViewResult
from .waiting import WaitingTables

_ACTION_ID_RE: Final = re.compile(r"^[\x21-\x7e]{1,128}$")


class Play:
    """``SubmitAction``, ``StreamEvents``, ``GetView`` and ``GetLog``."""

    def __init__(
        self,
        stream_batch: int,
        *,
        gate: Gate,
        tokens: TokenBook,
        games: Games,
        presence: Presence,
        waiting: WaitingTables,
        metrics: Metrics,
        roundtrips: RoundTrips,
    ) -> None:
        self._stream_batch = stream_batch
        self.gate = gate
        """Open until the server stops (:mod:`.requests`)."""
        self._tokens = tokens
        self._games = games
        self._presence = presence
        self._waiting = waiting
        self._metrics = metrics
        self.roundtrips = roundtrips
        """Each seat's round trip, measured on its play channels (:mod:`.roundtrips`)."""

    async def _caller(
        self, token: str | None, game_id: str, *, sync: bool = True
    ) -> tuple[LiveGame, Viewer]:
        """The game and the viewer of a token of it (a game this server does not know is
        ``GameNotFound``)."""
        viewer = await self._tokens.authenticate(token, game_id, known=True)
        return await self._games.live(game_id, sync=sync), parse_viewer(viewer)

    async def submit(
        self,
        token: str | None,
        game_id: str,
        command: JsonObject | Unreadable,
        *,
        action_id: str = "",
        as_seat: int | None = None,
    ) -> SubmitResult:
        """Sequence one command (its JSON, ``kind`` included) for the token's seat; answer
        once it is durable."""
        live, viewer = await self._caller(token, game_id, sync=False)
        if not isinstance(viewer, int):
            raise ServiceError(Status.PERMISSION_DENIED, Reason.SPECTATOR, "a spectator cannot act")
        if as_seat is not None and as_seat != viewer:
            raise ServiceError(
                Status.PERMISSION_DENIED, Reason.SEAT_MISMATCH, "the token is for another seat"
            )
        return await self.act(live, viewer, command, action_id)

    async def act(
        self, live: LiveGame, seat: int, command: JsonObject | Unreadable, action_id: str
    ) -> SubmitResult:
        """Sequence ``command`` for ``seat`` of ``live``, already authenticated (by
        :meth:`submit` for each request, by :meth:`open_channel` once per play channel);
        answer once it is durable."""
        if action_id and not _ACTION_ID_RE.match(action_id):
            raise invalid("action_id", "1 to 128 printable ASCII characters")
        decoded, text = _command(live.game, command)
        try:
            accepted = await live.submit(seat, decoded, text, action_id or None)
        except Rejected as exc:
            durable = live.durable
            self._metrics.rejections.labels(exc.code.value).inc()
            note(reason=exc.code.value, seq=durable.seq)
            detail = redaction.rejection_detail(exc.detail, durable, seat, text)
            raise ServiceError(
                Status.FAILED_PRECONDITION,
                exc.code.value,
                detail or exc.code.value,
                metadata={"game_id": live.game_id, "next_seq": str(durable.seq)},
            ) from None
        except ActionIdReused:
            raise invalid("action_id", "already used for a different command") from None
        except (StoreError, Unavailable):
            raise unavailable(
                "the store did not confirm the action; retry with the same action_id"
            ) from None
        note(seq=accepted.seq, replayed=accepted.replayed)
        race = accepted.line.get(RACE_KEY)
        if race is not None and not accepted.replayed:
            credit_s = (race["received_ms"] - accepted.line["at_ms"]) / 1000
            self._metrics.race_credit.observe(credit_s)
            if race["clamped"]:
                self._metrics.race_clamped.inc()
        return SubmitResult(live.redacted(accepted.seq, seat), accepted.outcome, accepted.replayed)

    async def open_channel(
        self, token: str | None, game_id: str, limits: RateLimits | None = None
    ) -> PlayChannel:
        """A play channel for ``token`` on ``game_id``: authenticated here, once, for every
        action, view and entry it carries (:mod:`.channel`); ``limits``: each of its acts
        counts against the token's rate limit, as a request would. A table still waiting for
        players is ``GameNotStarted``: a channel opens on a dealt game."""
        live, viewer = await self._caller(token, game_id)
        return PlayChannel(self, live, viewer, token or "", limits)

    async def stream(
        self, token: str | None, game_id: str, from_seq: int = 0
    ) -> AsyncIterator[StreamBatch]:
        """Durable entries from ``from_seq`` on, redacted for the caller, in batches; ends after
        the game's last entry (the last batch carries the outcome). On a table still waiting
        for players, the stream waits for the deal."""
        if from_seq < 0:
            raise invalid("from_seq", "must not be negative")
        try:
            live, viewer = await self._caller(token, game_id)
        except ServiceError as exc:
            if exc.reason != Reason.GAME_NOT_STARTED:
                raise
            return self._stream_when_dealt(token, game_id, from_seq)
        return self.entries(live, viewer, from_seq)

    async def _stream_when_dealt(
        self, token: str | None, game_id: str, from_seq: int
    ) -> AsyncIterator[StreamBatch]:
        viewer = parse_viewer(await self._tokens.authenticate(token, game_id))
        self._presence.stream_opened(game_id, viewer)
        try:
            await self._waiting.wait_started(game_id)
        finally:
            self._presence.stream_closed(game_id, viewer)
        live, viewer = await self._caller(token, game_id)
        async for batch in self.entries(live, viewer, from_seq):
            yield batch

    async def entries(
        self, live: LiveGame, viewer: Viewer, next_seq: int
    ) -> AsyncIterator[StreamBatch]:
        """:meth:`stream` for a caller already authenticated (a play channel's): the caller
        is present at the table while it reads."""
        self._presence.stream_opened(live.game_id, viewer)
        self._metrics.streams.inc()
        try:
            async for batch in self._entries(live, viewer, next_seq):
                yield batch
        finally:
            self._metrics.streams.dec()
            self._presence.stream_closed(live.game_id, viewer)

    async def _entries(
        self, live: LiveGame, viewer: Viewer, next_seq: int
    ) -> AsyncIterator[StreamBatch]:
        batch = self._stream_batch
        while True:
            if live.broken or live.closed:
                raise unavailable("the game is being rebuilt; resume from your last seq")
            seen = live.durable_lines
            durable = live.durable_seq
            over = live.over
            if next_seq < durable:
                upto = min(durable, next_seq + batch)
                entries = tuple(live.redacted(s, viewer) for s in range(next_seq, upto))
                next_seq = upto
                last = over and next_seq >= durable
                yield StreamBatch(
                    entries,
                    live.durable.outcome if last else None,
                    _end_line(live) if last else None,
                )
                if last:
                    return
                continue
            if over:
                yield StreamBatch((), live.durable.outcome, _end_line(live))
                return
            # Looked at before each wait, not only after one: begin_shutdown() wakes the
            # streams waiting then, and a stream still sending its last batch (an action just
            # acknowledged) must not wait past the stop for a change that never comes.
            self.gate.check_open_to_resume()
            await live.wait_change(seen)

    async def view(self, token: str | None, game_id: str) -> ViewResult:
        """The caller's view of the durable state and its legal commands."""
        live, viewer = await self._caller(token, game_id)
        return await self.view_of(live, viewer)

    async def view_of(self, live: LiveGame, viewer: Viewer) -> ViewResult:
        """:meth:`view` for a caller already authenticated (a play channel's)."""
        durable = live.durable
        note(seq=durable.seq)
        seat = viewer if isinstance(viewer, int) else None
        return ViewResult(
            seq=durable.seq,
            view=redaction.view(durable, viewer),
            legal_commands=redaction.legal_commands(durable, viewer),
            outcome=durable.outcome,
            seat=seat,
            present=tuple(sorted((await self._presence.present_seats(live.game_id))[live.game_id])),
            head_hash=str(live.entry_line(durable.seq - 1)["hash"]) if durable.seq else "",
            rtt_ms=None if seat is None else self.roundtrips.rtt_ms(live.game_id, seat),
            race_delays_ms=self._race_delays(live),
        )

    def _race_delays(self, live: LiveGame) -> dict[int, int]:
        """Each seat's credit now, under ``race_policy: "compensated"`` (else none)."""
        policy = live.match.race_policy
        if not policy.compensated:
            return {}
        seats = live.match.setup.seats
        delay = self.roundtrips.delay_ms
        return {s: min(delay(live.game_id, s), policy.cap_ms) for s in range(seats)}

    async def live(self, game_id: str) -> LiveGame:
        """The game as it is served now (after a rebuild, the new one)."""
        return await self._games.live(game_id, sync=False)

    async def log(self, token: str | None, game_id: str) -> LogResult:
        """The durable log as the caller may see it: complete, with the seed, once over."""
        live, viewer = await self._caller(token, game_id)
        lines = live.lines[: live.durable_lines]
        complete = bool(lines) and lines[-1].get("type") == "end"
        return LogResult(dumps(redaction.log(lines, viewer)), complete)


def _command(game: AnyGame, value: JsonObject | Unreadable) -> tuple[Any, str]:
    """The command and its canonical JSON."""
    data = readable(value)
    try:
        command = game.decode_command(data, "command.json")
    except DecodeError as exc:
        raise invalid(exc.field or "command.json", exc.message) from None
    if isinstance(command, Resign) and command.by is not None:
        raise ServiceError(
            Status.INVALID_ARGUMENT,
            Reason.HOST_ONLY,
            "command.json.by: only the host marks a resign as its own (a forfeit on a "
            'time-out); send {"kind":"Resign"}',
            (FieldViolation("command.json.by", "set only by the host"),),
        )
    return command, codec.canonical_text_of(command)


def _end_line(live: LiveGame) -> LogLine | None:
    """The durable end line of a game that is over, as streams end with it."""
    return redaction.end_line(live.lines[: live.durable_lines])
