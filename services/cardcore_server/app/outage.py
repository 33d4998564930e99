"""How the application answers while its store is away: never later than the client's wait.

A store that fails answers ``UNAVAILABLE``/``StoreUnavailable`` (:func:`unavailable`); one that
does not answer at all is given :data:`~cardcore_server.live.CLIENT_WAIT_S` (:func:`bounded`)
before the caller is told the same, so no caller is held to its own deadline by an outage.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

from ..errors import Reason, ServiceError, Status
from ..live import CLIENT_WAIT_S

T = TypeVar("T")


def unavailable(message: str = "the store did not answer") -> ServiceError:
    """``UNAVAILABLE``/``StoreUnavailable``: retry (with the same ``action_id``, if any)."""
    return ServiceError(Status.UNAVAILABLE, Reason.STORE_UNAVAILABLE, message)


class Slow(ServiceError):
    """The store did not answer within :data:`~cardcore_server.live.CLIENT_WAIT_S`."""


async def bounded(aw: Awaitable[T]) -> T:
    """``aw``'s result, or ``UNAVAILABLE`` (:class:`Slow`) once the store has taken
    :data:`~cardcore_server.live.CLIENT_WAIT_S`. ``aw`` runs on to its end meanwhile
    (cancelling a query to an unreachable database would wait for that database too), and its
    outcome is kept for the next caller (a game loaded, a token cached)."""
    task = asyncio.ensure_future(aw)
    try:
        done, _ = await asyncio.wait({task}, timeout=CLIENT_WAIT_S)
    finally:
        if not task.done():
            task.add_done_callback(ignore_outcome)
    if not done:
        raise Slow(
            Status.UNAVAILABLE,
            Reason.STORE_UNAVAILABLE,
            f"the store did not answer within {CLIENT_WAIT_S:g} s; retry",
        )
    return task.result()


def ignore_outcome(task: asyncio.Future[Any]) -> None:
    """Nobody waits for ``task`` any more: read its outcome (or asyncio logs it as lost)."""
    if not task.cancelled():
        task.exception()
