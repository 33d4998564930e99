"""The OpenAPI 3.1 document, served at ``/v1/openapi.json`` (and ``.yaml``): Litestar's, with
every wire type's schema as msgspec itself writes it (:func:`openapi_document`), and the pieces
of it the routes declare (:func:`errors`, the path and header parameters, the security schemes).
"""

from __future__ import annotations

from typing import Annotated, Any, Final

import msgspec
import yaml  # type: ignore[import-untyped]  # PyYAML comes with Litestar
from litestar import Request
from litestar.datastructures import ResponseHeader
from litestar.openapi import OpenAPIConfig, ResponseSpec
from litestar.openapi.plugins import JsonRenderPlugin, YamlRenderPlugin
from litestar.openapi.spec import Components, SecurityScheme, Tag
from litestar.params import HeaderParameter, PathParameter

from .wire import (
    ADMIN_KEY_HEADER,
    API_PREFIX,
    LOG_COMPLETE_HEADER,
    MAX_BODY,
    PROBLEM_JSON,
    WIRE_TYPES,
    Problem,
)

API_DESCRIPTION: Final = (
    "Play cardcore's card games (Egyptian Ratscrew, Slapjack, Palace, Spit, Speed) over HTTP: "
    "list the games and their variant flags, create a game (one secret token per human seat), "
    "submit actions as a seat, read a seat's or a spectator's view, follow the game's entries "
    "as Server-Sent Events and download its tamper-evident log. The same service as the gRPC "
    "API cardcore.v1.GameService; every error is an RFC 9457 problem document whose `code` is "
    "the rules' rejection code or the service's reason."
)
"""The OpenAPI document's ``info.description``: for the API's users, not this module's."""

BEARER: Final[list[dict[str, list[str]]]] = [{"bearer": []}]
GameId = Annotated[
    str, PathParameter(description="The game's id (32 lowercase hex digits).", max_length=64)
]
InviteCode = Annotated[
    str,
    PathParameter(description="An invite code (from CreateGame's `invites`).", max_length=64),
]
AdminKey = Annotated[
    str,
    HeaderParameter(
        name=ADMIN_KEY_HEADER,
        required=False,
        description="The admin key, when the server requires one.",
        max_length=1024,
    ),
]


def errors(*statuses: int) -> dict[int, ResponseSpec]:
    """The problem documents an operation may answer, by status."""
    descriptions = {
        400: "The request could not be parsed (code `Malformed`; `errors` names the fields).",
        401: "No token, or an unknown one (`MissingToken`, `InvalidToken`, `AdminKeyRequired`).",
        403: "Not allowed (`WrongGame`, `SpectatorCannotAct`, `SeatMismatch`, `SeedNotAllowed`, "
        "`AdminKeyRequired`, `NotCreator`, `TableNotPublic`).",
        404: "No such game or invite (`GameNotFound`, `InvalidInvite`).",
        409: "Refused now: the game's rules (`code` is its RejectCode: `NotYourTurn`, "
        "`StaleAction`, `GameOver`, ...) or the table's state (`GameNotStarted`, `GameStarted`, "
        "`TableCancelled`, `TableFull`, `InviteUsed`, `SeatNotOpen`, `NotRevealing`).",
        413: f"The body is larger than {MAX_BODY} bytes (`TooLarge`).",
        415: "The body is not `application/json` (`UnsupportedMediaType`).",
        422: "Well-formed but invalid (`Malformed`, or `HostOnly` for a command only the host "
        "may send; `errors` names the fields).",
        503: "Stopping, or the game is being rebuilt (`ShuttingDown`, `StoreUnavailable`); retry.",
    }
    return {
        s: ResponseSpec(
            data_container=Problem,
            media_type=PROBLEM_JSON,
            description=descriptions[s],
            generate_examples=False,
        )
        for s in statuses
    }


def complete_header() -> ResponseHeader:
    return ResponseHeader(
        name=LOG_COMPLETE_HEADER,
        value="false",
        description="`true` once the game is over: the log is complete and reveals the seed.",
        documentation_only=True,
    )


def config() -> OpenAPIConfig:
    return OpenAPIConfig(
        title="cardcore",
        version="1",
        description=API_DESCRIPTION,
        path=API_PREFIX,
        render_plugins=[_OpenAPIJson(path="/openapi.json"), _OpenAPIYaml(path="/openapi.yaml")],
        components=Components(
            security_schemes={
                "bearer": SecurityScheme(
                    type="http",
                    scheme="bearer",
                    description="A seat's, the spectator's or the creator's token "
                    "(CreateGame, JoinTable, WatchTable).",
                ),
                "adminKey": SecurityScheme(
                    type="apiKey",
                    name=ADMIN_KEY_HEADER,
                    security_scheme_in="header",
                    description="Needed to create games when the server requires it; aborts "
                    "any game.",
                ),
            }
        ),
        tags=[
            Tag(name="games", description="Catalogue and creation"),
            Tag(name="play", description="Actions, views and the event stream"),
            Tag(name="audit", description="The tamper-evident log"),
            Tag(name="lobby", description="Tables, invites, start, abort, listing and spectators"),
        ],
        create_examples=False,
    )


def openapi_document(generated: dict[str, Any]) -> dict[str, Any]:
    """Litestar's document with every wire type's schema as msgspec itself generates it (exact:
    bounds, ``additionalProperties: false`` where unknown fields are refused, nullable fields),
    so that what the document admits is what the decoder admits."""
    _, components = msgspec.json.schema_components(
        WIRE_TYPES, ref_template="#/components/schemas/{name}"
    )
    doc = dict(generated)
    schemas = dict(doc.get("components", {}).get("schemas", {}))
    schemas.update(components)
    doc["components"] = {**doc.get("components", {}), "schemas": schemas}
    paths = doc.get("paths", {})
    for path, method in _OPTIONAL_BODIES:
        body = paths.get(path, {}).get(method, {}).get("requestBody")
        if isinstance(body, dict):  # Litestar marks every body required; these may be absent
            paths[path][method]["requestBody"] = {**body, "required": False}
    return doc


_OPTIONAL_BODIES: Final = (
    (API_PREFIX + "/games/{game_id}/start", "post"),
    (API_PREFIX + "/invites/{code}", "post"),
)
"""Operations whose body may be left out (StartTable: ``fill_with`` has a default;
AcceptInvite: ``entropy`` is optional)."""


class _OpenAPIJson(JsonRenderPlugin):
    """Serves :func:`openapi_document` (built once)."""

    _doc: bytes | None = None

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        if self._doc is None:
            self._doc = msgspec.json.encode(openapi_document(openapi_schema))
        return self._doc


class _OpenAPIYaml(YamlRenderPlugin):
    """The same document as :class:`_OpenAPIJson`, in YAML."""

    _doc: bytes | None = None

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        if self._doc is None:
            document = openapi_document(openapi_schema)
            self._doc = yaml.dump(document, default_flow_style=False, allow_unicode=True).encode()
        return self._doc
