"""The application's values as REST's wire types, and the request's as the application's.

A game's values and log lines go out as their canonical JSON (:func:`canonical`, the bytes the
log itself holds), written into the answer as they are; an entry as the log's own producer
writes it for a viewer (:func:`entry_json`, made once per entry and view).
"""

from __future__ import annotations

from typing import Any, Final, Literal, cast

import msgspec
from litestar import Request

from cardcore import codec
from cardcore.engine import Outcome as GameOutcome
from cardcore.log.format import entry_text

from ...app import (
    MAX_JSON,
    CatalogueEntry,
    CreatedGame,
    GameSpec,
    JsonObject,
    SubmitResult,
    TableInfo,
    Unreadable,
    ViewResult,
    read_json_object,
)
from ...redaction import RedactedEntry, Value
from ...store import SeatSpec
from . import wire

_WIRE: Final = "sse"
"""The key of this transport's encoding in :attr:`~cardcore_server.redaction.RedactedEntry.wire`."""

_encode = msgspec.json.Encoder()
_decode = msgspec.json.Decoder()


def canonical(value: Any) -> Any:
    """A JSON value as its canonical JSON (sorted keys), written as it is into the answer."""
    return msgspec.Raw(codec.canonical_bytes(value))


def _value(v: Value) -> Any:
    return _decode.decode(v.json)


# --------------------------------------------------------------------------- in


def game_spec(data: wire.CreateGame) -> GameSpec:
    return GameSpec(
        game=data.game,
        seats=[SeatSpec(s.kind, s.bot_min_delay_ms, s.bot_max_delay_ms) for s in data.seats],
        rules=json_object(data.rules, "rules_json") if data.rules else {},
        seed=data.seed,
        event_limit=data.event_limit,
        timeouts_ms=data.timeouts_ms,
        seat_open=[s.open for s in data.seats],
        public=data.public,
        start_deadline_ms=data.start_deadline_ms,
        turn_timeout_ms=data.turn_timeout_ms,
        idle_timeout_ms=data.idle_timeout_ms,
        abandon_timeout_ms=data.abandon_timeout_ms,
        entropy=[bytes.fromhex(s.entropy) for s in data.seats],
        entropy_commitments=[bytes.fromhex(s.entropy_commitment) for s in data.seats],
        idempotency_key=data.idempotency_key,
    )


def bearer(request: Request[Any, Any, Any]) -> str | None:
    """The bearer token, ``None`` when absent, or a value that no token equals when the header
    is present but not a bearer token (401 ``InvalidToken``, as in gRPC)."""
    value = request.headers.get("authorization")
    if value is None:
        return None
    scheme, _, token = value.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return "invalid"
    return token.strip()


def json_object(value: dict[str, Any], path: str) -> JsonObject | Unreadable:
    """A JSON object of the body as the application reads one: judged on its JSON text (as
    this transport writes it) only when that text could be refused — longer than
    :data:`~cardcore_server.app.MAX_JSON`, or with a float in it."""
    text = _encode.encode(value)
    if len(text) <= MAX_JSON and not _has_float(value):
        return value
    return read_json_object(text.decode(), path)


def _has_float(value: Any) -> bool:
    try:
        if isinstance(value, dict):
            return any(_has_float(v) for v in value.values())
        if isinstance(value, list):
            return any(_has_float(v) for v in value)
    except RecursionError:
        return True  # too deep to look at: its text says what is wrong with it
    return isinstance(value, float)


# --------------------------------------------------------------------------- out


def outcome(o: GameOutcome | None) -> wire.Outcome | None:
    if o is None:
        return None
    return wire.Outcome(o.termination.value, list(o.winners), list(o.losers), list(o.scores))


def entry_json(e: RedactedEntry) -> bytes:
    """The entry as its viewer sees it, in the log's own words (the log writes an entry so, its
    ``type`` aside): its canonical JSON, made once per entry and view."""
    return e.encoded(_WIRE, _entry_bytes)


def _entry_bytes(e: RedactedEntry) -> bytes:
    text = entry_text(
        e.seq,
        e.at_ms,
        e.seat,
        e.action.json,
        [x.json for x in e.events],
        prev=codec.canonical_text(e.prev),
        digest=codec.canonical_text(e.hash),
        typed=False,
    )
    if e.race:  # log format 3: the race record goes after prev, as the keys sort
        prev = f'"prev":{codec.canonical_text(e.prev)},'
        text = text.replace(prev, f'{prev}"race":{e.race},', 1)
    return text.encode()


def submitted(result: SubmitResult) -> wire.Submitted:
    # The entry goes out as the bytes its event streams send (cached per view), not decoded
    # into an Entry to be encoded again: msgspec writes a Raw as it is.
    entry = cast(wire.Entry, msgspec.Raw(entry_json(result.entry)))
    return wire.Submitted(entry, result.replayed, outcome(result.outcome))


def created(made: CreatedGame, request: Request[Any, Any, Any]) -> wire.CreatedGame:
    return wire.CreatedGame(
        game_id=made.game_id,
        seat_tokens=[wire.SeatToken(s, t) for s, t in made.seat_tokens],
        spectator_token=made.spectator_token,
        seed_commitment=made.seed_commitment,
        header=canonical(made.header),
        creator_token=made.creator_token,
        invites=[wire.SeatInvite(s, c, invite_link(request, c)) for s, c in made.invites],
        status=made.status,
    )


def invite_link(request: Request[Any, Any, Any], code: str) -> str:
    """The link that carries an invite: this server's ``/v1/invites/{code}``."""
    return f"{str(request.base_url).rstrip('/')}/v1/invites/{code}"


def game_view(r: ViewResult) -> wire.GameView:
    return wire.GameView(
        seq=r.seq,
        view=_value(r.view),
        legal_commands=[_value(c) for c in r.legal_commands],
        outcome=outcome(r.outcome),
        seat=r.seat,
        present_seats=list(r.present),
        head_hash=r.head_hash,
        rtt_ms=r.rtt_ms,
        race_delays_ms={str(s): d for s, d in r.race_delays_ms.items()},
    )


def table(t: TableInfo) -> wire.Table:
    return wire.Table(
        game_id=t.game_id,
        game=t.game,
        status=t.status,
        seats=[
            wire.TableSeat(
                s.seat,
                cast(Literal["human", "random", "reaction"], s.kind),
                cast(Literal["", "invite", "anyone"], s.open),
                s.taken,
                s.present,
                s.entropy_commitment,
                s.revealed,
            )
            for s in t.seats
        ],
        created_ms=t.created_ms,
        deadline_ms=t.deadline_ms,
        public=t.public,
        seed_commitment=t.seed_commitment,
        rules=canonical(t.rules),
        seq=t.seq,
        outcome=outcome(t.outcome),
    )


def catalogue(games: tuple[CatalogueEntry, ...]) -> wire.Catalogue:
    return wire.Catalogue(
        [
            wire.GameInfo(
                name=g.name,
                title=g.title,
                rules_version=g.rules_version,
                min_seats=g.min_seats,
                max_seats=g.max_seats,
                realtime=g.realtime,
                aliases=list(g.aliases),
                flags=[
                    wire.RuleFlag(f.name, canonical(f.default), canonical(f.schema), f.help)
                    for f in g.flags
                ],
                command_schema=canonical(g.command_schema),
                event_schema=canonical(g.event_schema),
                view_schema=canonical(g.view_schema),
            )
            for g in games
        ]
    )
