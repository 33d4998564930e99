"""The routes of play: ``POST /v1/games/{id}/actions``, ``GET /v1/games/{id}/view``,
``GET /v1/games/{id}/log`` and ``GET /v1/games/{id}/events`` (Server-Sent Events)."""

from __future__ import annotations

from typing import Annotated, Any, Final

from litestar import Request, Response, get, post
from litestar.datastructures import State
from litestar.exceptions import ValidationException
from litestar.params import HeaderParameter, JSONBody, QueryParameter
from litestar.response import Stream

from ...app import note
from . import render, sse, wire
from .openapi import BEARER, GameId, complete_header, errors


@post(
    "/games/{game_id:str}/actions",
    operation_id="SubmitAction",
    summary="Submit one command for the token's seat",
    description="Answers once the action is durable, with the accepted entry as the "
    "caller sees it. A rejection by the game's rules is a 409 whose `code` is the "
    "RejectCode. Retrying with the same `action_id` returns the original result.",
    tags=["play"],
    status_code=200,
    security=BEARER,
    responses=errors(400, 401, 403, 404, 409, 413, 415, 422, 503),
)
async def submit_action(
    request: Request[Any, Any, Any],
    state: State,
    game_id: GameId,
    data: JSONBody[wire.SubmitAction],
) -> wire.Submitted:
    note(rpc="SubmitAction")
    result = await state.application.submit(
        render.bearer(request),
        game_id,
        render.json_object(data.command, "command.json"),
        action_id=data.action_id,
        as_seat=data.as_seat,
    )
    return render.submitted(result)


@get(
    "/games/{game_id:str}/view",
    operation_id="GetView",
    summary="The caller's view and its legal commands",
    description="A table still waiting for players has no view yet (409 "
    "`GameNotStarted`); `present_seats` are the seats with an event stream open now.",
    tags=["play"],
    security=BEARER,
    responses=errors(400, 401, 403, 404, 409, 422, 503),
)
async def get_view(request: Request[Any, Any, Any], state: State, game_id: GameId) -> wire.GameView:
    note(rpc="GetView")
    return render.game_view(await state.application.view(render.bearer(request), game_id))


@get(
    "/games/{game_id:str}/log",
    operation_id="GetLog",
    summary="The log as the caller may see it (JSON Lines)",
    description="Canonical JSON Lines, as `cardcore verify` reads them: redacted for "
    "the caller while the game runs, complete with the revealed seed once it is over "
    f"(then the `{wire.LOG_COMPLETE_HEADER}` header is `true`).",
    tags=["audit"],
    security=BEARER,
    media_type=wire.JSON_LINES,
    response_description="The log, one canonical JSON object per line.",
    response_headers=[complete_header()],
    responses=errors(400, 401, 403, 404, 409, 422, 503),
)
async def get_log(
    request: Request[Any, Any, Any], state: State, game_id: GameId
) -> Response[bytes]:
    note(rpc="GetLog")
    r = await state.application.log(render.bearer(request), game_id)
    return Response(
        r.log_jsonl,
        media_type=wire.JSON_LINES,
        headers={wire.LOG_COMPLETE_HEADER: "true" if r.complete else "false"},
    )


_STREAM_DOC: Final = (
    "Server-Sent Events (`text/event-stream`). Each log entry from `from_seq` on is one event: "
    "`id: <seq>`, `event: entry`, `data: <Entry JSON>`. Once the game is over the stream sends "
    "`event: outcome` (`data: <Outcome JSON>`) and closes. To resume after a dropped connection "
    "send `Last-Event-ID: <last seq seen>` (EventSource does): the stream continues with the "
    "next seq, with no gap and no duplicate. When the server stops, the stream sends "
    "`event: closing` (`data: {code, detail}`) and ends. Idle streams carry a comment line "
    f"every {int(sse.HEARTBEAT_S)} s."
)
FromSeq = Annotated[
    int,
    QueryParameter(name="from_seq", ge=0, description="The first seq wanted (0 = from the deal)."),
]
LastEventId = Annotated[
    str,
    HeaderParameter(
        name="Last-Event-ID",
        required=False,
        pattern=r"^[0-9]{0,19}$",
        description="The last seq received: resume after it (wins over from_seq).",
    ),
]


@get(
    "/games/{game_id:str}/events",
    operation_id="StreamEvents",
    summary="The game's entries as Server-Sent Events",
    description=_STREAM_DOC,
    tags=["play"],
    security=BEARER,
    media_type=wire.EVENT_STREAM,
    response_description="`event: entry` per log entry (`id` = its seq, `data` = an "
    "Entry), then `event: outcome` (`data` = an Outcome) once the game is over; or "
    "`event: closing` (`data` = a Closing) when the server stops.",
    responses=errors(400, 401, 403, 404, 409, 422, 503),
)
async def stream_events(
    request: Request[Any, Any, Any],
    state: State,
    game_id: GameId,
    from_seq: FromSeq = 0,
    last_event_id: LastEventId = "",
) -> Stream:
    note(rpc="StreamEvents")
    start = _first_seq(request, from_seq, last_event_id)
    note(from_seq=start)
    batches = await state.application.stream(render.bearer(request), game_id, start)
    return Stream(
        sse.events(batches, state.closing),
        media_type=wire.EVENT_STREAM,
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


def _first_seq(request: Request[Any, Any, Any], from_seq: int, last_event_id: str) -> int:
    """Where a stream starts: after ``Last-Event-ID`` (a reconnecting browser repeats the
    query it began with, so the header wins), else at ``from_seq``."""
    raw = request.query_params.get("from_seq")
    if raw is not None and not (raw.isascii() and raw.isdigit() and len(raw) <= 19):
        raise ValidationException(  # "1e3", "+5", 2**64: not a seq (Litestar took them)
            extra=[{"key": "from_seq", "message": "must be a seq: 0..2^63-1, digits only"}]
        )
    if not last_event_id.strip():
        return from_seq
    text = last_event_id.strip()
    if not text.isascii() or not text.isdigit() or len(text) > 19:
        raise ValidationException(  # unparseable: 400, like any header of bad type
            extra=[{"key": "Last-Event-ID", "message": "must be the seq of an entry"}]
        )
    return int(text) + 1


ROUTES = (submit_action, get_view, get_log, stream_events)
