"""The routes of the lobby: joining tables (by invite or open seat), invite links, starting and
aborting, looking at a table, listing public tables, watching, and the games of one's tokens."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, get, post
from litestar.datastructures import State
from litestar.params import JSONBody, QueryParameter

from ...app import MAX_MY_GAMES, note
from . import render, wire
from .openapi import BEARER, AdminKey, GameId, InviteCode, errors


@post(
    "/tables/join",
    operation_id="JoinTable",
    summary="Take a seat of a table waiting for players",
    description="With `invite` (a code from CreateGame's `invites`) the invite's seat; "
    "with `game_id` a seat open to anyone (`seat`, or the first one free). No token "
    "needed: the answer carries the seat's token. The join that takes the last open "
    "seat deals the game (`status` `playing`), or, when seats joined with an "
    "`entropy_commitment`, makes the table `revealing` until each reveals it (`POST "
    "/v1/games/{game_id}/reveal`). Of clients racing for the last seat one gets it; the "
    "others get 409 `TableFull` or `GameStarted`.",
    tags=["lobby"],
    status_code=200,
    security=[{}],
    responses=errors(400, 404, 409, 413, 415, 422, 503),
)
async def join_table(state: State, data: JSONBody[wire.JoinTable]) -> wire.Joined:
    note(rpc="JoinTable")
    j = await state.application.lobby.join(
        data.invite,
        data.game_id,
        data.seat,
        bytes.fromhex(data.entropy),
        bytes.fromhex(data.entropy_commitment),
    )
    return wire.Joined(j.game_id, j.seat, j.token, j.status)


@get(
    "/invites/{code:str}",
    operation_id="GetInvite",
    summary="What an invite link is for: its seat and the table (changes nothing)",
    description="No token needed: the code is the credential. `POST` the same link "
    "to take the seat.",
    tags=["lobby"],
    security=[{}],
    responses=errors(400, 404, 503),
)
async def get_invite(state: State, code: InviteCode) -> wire.InviteInfo:
    note(rpc="GetInvite")
    seat, info = await state.application.lobby.invite(code)
    return wire.InviteInfo(seat, render.table(info))


@post(
    "/invites/{code:str}",
    operation_id="AcceptInvite",
    summary="Take the seat of an invite link",
    description='The same as `POST /v1/tables/join` with `{"invite": code}`: the '
    "answer carries the seat's token; a used invite is 409 `InviteUsed`. The body is "
    'optional: `{"entropy_commitment": "<64 hex digits>"}` commits to the joiner\'s 16 '
    "random bytes, revealed at the start (or `entropy`, given at once), as JoinTable's "
    "fields do (docs/rng.md).",
    tags=["lobby"],
    status_code=200,
    security=[{}],
    responses=errors(400, 404, 409, 413, 415, 422, 503),
)
async def accept_invite(
    state: State, code: InviteCode, data: JSONBody[wire.AcceptInvite | None] = None
) -> wire.Joined:
    note(rpc="JoinTable")
    entropy = bytes.fromhex(data.entropy) if data is not None else b""
    committed = bytes.fromhex(data.entropy_commitment) if data is not None else b""
    j = await state.application.lobby.join(code, "", None, entropy, committed)
    return wire.Joined(j.game_id, j.seat, j.token, j.status)


@post(
    "/games/{game_id:str}/reveal",
    operation_id="RevealEntropy",
    summary="Reveal the entropy the seat committed to when it joined",
    description="The seat's token, once the table is `revealing` (nobody can join or "
    "leave any more): `entropy` must hash to the seat's `entropy_commitment` (docs/rng.md). "
    "The last reveal deals the game; a table still missing one at its `deadline_ms` is "
    "cancelled. Before that: 409 `NotRevealing`; a value that does not match: 422.",
    tags=["lobby"],
    status_code=200,
    security=BEARER,
    responses=errors(400, 401, 403, 404, 409, 413, 415, 422, 503),
)
async def reveal_entropy(
    request: Request[Any, Any, Any], state: State, game_id: GameId, data: JSONBody[wire.Reveal]
) -> wire.Table:
    note(rpc="RevealEntropy")
    lobby = state.application.lobby
    info = await lobby.reveal(render.bearer(request), game_id, bytes.fromhex(data.entropy))
    return render.table(info)


@post(
    "/games/{game_id:str}/start",
    operation_id="StartTable",
    summary="Start a waiting table now, its empty seats played by bots",
    description="The creator's token. The body is optional (`fill_with` defaults to `reaction`).",
    tags=["lobby"],
    status_code=200,
    security=BEARER,
    responses=errors(400, 401, 403, 404, 409, 413, 415, 422, 503),
)
async def start_table(
    request: Request[Any, Any, Any],
    state: State,
    game_id: GameId,
    data: JSONBody[wire.StartTable | None] = None,
) -> wire.Table:
    note(rpc="StartTable")
    fill = data.fill_with if data is not None else "reaction"
    info = await state.application.lobby.start_table(render.bearer(request), game_id, fill)
    return render.table(info)


@post(
    "/games/{game_id:str}/abort",
    operation_id="AbortGame",
    summary="End a game at once, or cancel a table still waiting",
    description="The creator's token, or the `X-Cardcore-Admin-Key` header. A game "
    "ends with termination `aborted` (its log is final and reveals the seed); a table "
    "still waiting is `cancelled`.",
    tags=["lobby"],
    status_code=200,
    security=[{"bearer": []}, {"adminKey": []}],
    responses=errors(400, 401, 403, 404, 409, 413, 415, 422, 503),
)
async def abort_game(
    request: Request[Any, Any, Any], state: State, game_id: GameId, admin_key: AdminKey = ""
) -> wire.Table:
    note(rpc="AbortGame")
    lobby = state.application.lobby
    return render.table(await lobby.abort(render.bearer(request), game_id, admin_key or None))


@get(
    "/games/{game_id:str}/table",
    operation_id="GetTable",
    summary="A table's status and seats, and who is present",
    description="Any token of the game; none for a public table.",
    tags=["lobby"],
    security=[{}, {"bearer": []}],
    responses=errors(400, 401, 403, 404, 422, 503),
)
async def get_table(request: Request[Any, Any, Any], state: State, game_id: GameId) -> wire.Table:
    note(rpc="GetTable")
    return render.table(await state.application.lobby.table(render.bearer(request), game_id))


GameFilter = Annotated[
    str,
    QueryParameter(
        name="game",
        required=False,
        max_length=64,
        description="Only tables of this game (empty = every game).",
    ),
]
PageSize = Annotated[
    int,
    QueryParameter(
        name="page_size",
        required=False,
        ge=0,
        le=2**32 - 1,
        description="Tables per page, 1 to 100 (0 = 20).",
    ),
]
PageToken = Annotated[
    str,
    QueryParameter(
        name="page_token",
        required=False,
        max_length=1024,
        description="The previous page's next_page_token (empty = the newest).",
    ),
]


@get(
    "/tables",
    operation_id="ListTables",
    summary="Public tables waiting for players, newest first",
    description="No token needed. `page_token` (a previous page's `next_page_token`) "
    "continues the listing after that page: tables created since come before its first "
    "page, never in the pages after.",
    tags=["lobby"],
    security=[{}],
    responses=errors(400, 422, 503),
)
async def list_tables(
    state: State, game: GameFilter = "", page_size: PageSize = 0, page_token: PageToken = ""
) -> wire.TableList:
    note(rpc="ListTables")
    page = await state.application.lobby.list_tables(game, page_size, page_token)
    return wire.TableList([render.table(t) for t in page.tables], page.next_page_token)


@post(
    "/games/{game_id:str}/watch",
    operation_id="WatchTable",
    summary="A new spectator token of a public table",
    description="No token needed; a table that is not public is 403 `TableNotPublic`.",
    tags=["lobby"],
    status_code=200,
    security=[{}],
    responses=errors(400, 403, 413, 415, 422, 503),
)
async def watch_table(state: State, game_id: GameId) -> wire.Watching:
    note(rpc="WatchTable")
    return wire.Watching(await state.application.lobby.watch(game_id))


@post(
    "/my-games",
    operation_id="ListMyGames",
    summary="The games of the tokens a client holds",
    description=f"Up to {MAX_MY_GAMES} tokens (seat, spectator or creator tokens), "
    "in the body so that they stay out of URLs; one game per token, in order.",
    tags=["lobby"],
    status_code=200,
    security=[{}],
    responses=errors(400, 401, 413, 415, 422, 503),
)
async def list_my_games(state: State, data: JSONBody[wire.MyGamesQuery]) -> wire.MyGames:
    note(rpc="ListMyGames")
    games = await state.application.lobby.my_games(data.tokens)
    return wire.MyGames([wire.MyGame(v, render.table(t)) for v, t in games])


ROUTES = (
    join_table,
    get_invite,
    accept_invite,
    reveal_entropy,
    start_table,
    abort_game,
    get_table,
    list_tables,
    watch_table,
    list_my_games,
)
