"""The routes of the catalogue and of creation: ``GET /v1/games``, ``GET /v1/server``,
``POST /v1/games``."""

from __future__ import annotations

from typing import Any

from litestar import Request, get, post
from litestar.datastructures import State
from litestar.params import JSONBody

from cardcore.signatures import ALG
from cardcore.version import __version__

from ...app import note
from . import render, wire
from .openapi import AdminKey, errors


@get(
    "/games",
    operation_id="ListGames",
    summary="The catalogue: every game, its rule flags and JSON Schemas",
    tags=["games"],
    responses=errors(503),
)
async def list_games(state: State) -> wire.Catalogue:
    note(rpc="ListGames")
    found: wire.Catalogue | None = state.get("catalogue")
    if found is None:  # rendered once: the catalogue never changes
        found = state["catalogue"] = render.catalogue(state.application.list_games())
    return found


@get(
    "/server",
    operation_id="GetServer",
    summary="This server: the key its logs are signed with, and its version",
    description="`server_key` is the Ed25519 public key (base64url) that signs every "
    "log's header and end line: `cardcore verify --server-key KEY game.jsonl`.",
    tags=["games"],
    security=[{}],
    responses=errors(503),
)
async def get_server(state: State) -> wire.ServerInfo:
    note(rpc="GetServer")
    return wire.ServerInfo(state.application.server_key, ALG, __version__)


@post(
    "/games",
    operation_id="CreateGame",
    summary="Deal a new game",
    description="Returns the game's id, one secret token per human seat, a spectator "
    "token and the seed commitment once the game is durable. Needs the "
    f"`{wire.ADMIN_KEY_HEADER}` header when the server requires an admin key.",
    tags=["games"],
    status_code=201,
    security=[{}, {"adminKey": []}, {"bearer": []}],
    responses=errors(400, 401, 403, 409, 413, 415, 422, 503),
)
async def create_game(
    request: Request[Any, Any, Any],
    state: State,
    data: JSONBody[wire.CreateGame],
    admin_key: AdminKey = "",
) -> wire.CreatedGame:
    note(rpc="CreateGame")
    made = await state.application.create_game(
        render.game_spec(data), admin_key or None, request.headers.get("authorization")
    )
    return render.created(made, request)


ROUTES = (list_games, get_server, create_game)
