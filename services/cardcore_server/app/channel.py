"""A play channel: one player's connection to one game (docs/reference/play-channel.md),
authenticated once when it opens, then carrying that seat's actions, views and entries until it
closes. Each transport's channel (the WebSocket, gRPC's ``Play``) holds one of these and speaks
its own wire; everything a channel answers comes from :class:`~.play.Play`, as the
request–response calls' answers do, so both paths give the same results (and ``action_id`` makes
a retry on either return the first).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from cardcore.engine import Viewer

from ..errors import Reason, ServiceError, Status
from ..limits import RateLimits
from ..live import LiveGame
from .values import JsonObject, StreamBatch, SubmitResult, Unreadable, ViewResult

if TYPE_CHECKING:
    from .play import Play


class PlayChannel:
    """One open play channel (:meth:`.play.Play.open_channel` makes it)."""

    def __init__(
        self,
        play: Play,
        live: LiveGame,
        viewer: Viewer,
        token: str = "",
        limits: RateLimits | None = None,
    ) -> None:
        self._play = play
        self._token = token
        self._limits = limits if limits is not None and limits.token is not None else None
        """Each act counts against the token's rate limit (the address's was counted at the
        open): one connection is no way round the limit a request would meet."""
        self._live = live
        self.game_id = live.game_id
        self.viewer = viewer
        self.seat: int | None = viewer if isinstance(viewer, int) else None
        """The seat the token is for; ``None`` for a spectator (who may not act)."""
        self._open = True
        if self.seat is not None:
            play.roundtrips.opened(self.game_id, self.seat)

    @property
    def next_seq(self) -> int:
        """The seq the game's next durable entry will have."""
        return self._live.durable_seq

    async def act(self, command: JsonObject | Unreadable, action_id: str) -> SubmitResult:
        """One command for the channel's seat: :meth:`.play.Play.act`."""
        if self.seat is None:
            raise ServiceError(Status.PERMISSION_DENIED, Reason.SPECTATOR, "a spectator cannot act")
        self._play.gate.check_open()  # a stopping server takes no new action (in flight: yes)
        if self._limits is not None:
            self._limits.admit(self._token, None)  # RateLimited, with retry_after_s
        if self._live.broken or self._live.closed:  # rebuilt since: act on the new one
            self._live = await self._play.live(self.game_id)
        return await self._play.act(self._live, self.seat, command, action_id)

    def entries(self, from_seq: int) -> AsyncIterator[StreamBatch]:
        """The channel's durable entries from ``from_seq`` on, as ``StreamEvents`` sends them
        (the caller is present at the table while it reads them)."""
        return self._play.entries(self._live, self.viewer, from_seq)

    async def view(self) -> ViewResult:
        """The seat's view now, with its round trip (:meth:`.play.Play.view_of`)."""
        return await self._play.view_of(self._live, self.viewer)

    def round_trip(self, seconds: float) -> None:
        """A ping of this channel was answered after ``seconds``."""
        if self.seat is not None and self._open:
            self._play.roundtrips.sample(self.game_id, self.seat, seconds)

    def close(self) -> None:
        """The connection ended (idempotent)."""
        if self._open and self.seat is not None:
            self._play.roundtrips.closed(self.game_id, self.seat)
        self._open = False
