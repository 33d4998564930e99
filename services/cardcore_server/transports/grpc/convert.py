"""The application's values as ``cardcore.v1`` messages, and the requests' as the application's.

A game's values go out as ``GameValue`` (kind and canonical JSON, as the log holds them); an
entry as an ``Entry`` serialized once per entry and view as field 1 (:func:`entry_field`),
which is both a ``SubmitActionResponse`` and a ``StreamEventsResponse`` of that one entry. A
batch of several is their serializations one after the other, which protobuf reads as their
merge (repeated fields append), so fan-out to many subscribers costs little.
"""

from __future__ import annotations

from typing import Final

from cardcore import codec
from cardcore.engine import Outcome
from cardcore_proto import game_service_pb2 as pb

from ...app import (
    MAX_SEATS,
    MAX_TIMEOUTS,
    CatalogueEntry,
    CreatedGame,
    GameSpec,
    JsonObject,
    StreamBatch,
    SubmitResult,
    TableInfo,
    Unreadable,
    ViewResult,
    read_json_object,
)
from ...errors import ServiceError, invalid
from ...redaction import RedactedEntry, Value
from ...store import SeatSpec

SEAT_KINDS: Final = {
    pb.SEAT_KIND_UNSPECIFIED: "human",
    pb.SEAT_KIND_HUMAN: "human",
    pb.SEAT_KIND_RANDOM_BOT: "random",
    pb.SEAT_KIND_REACTION_BOT: "reaction",
}
_KIND_OF: Final = {
    "human": pb.SEAT_KIND_HUMAN,
    "random": pb.SEAT_KIND_RANDOM_BOT,
    "reaction": pb.SEAT_KIND_REACTION_BOT,
}
_OPEN_OF: Final = {
    "": pb.SEAT_OPEN_UNSPECIFIED,
    "invite": pb.SEAT_OPEN_INVITE,
    "anyone": pb.SEAT_OPEN_ANYONE,
}
_SEAT_OPENS: Final = {v: k for k, v in _OPEN_OF.items()}
_ENTRY_FIELD: Final = "grpc"
"""The key of this transport's encoding of an entry (``RedactedEntry.wire``)."""


# --------------------------------------------------------------------------- in


def game_spec(request: pb.CreateGameRequest) -> GameSpec:
    if len(request.seats) > MAX_SEATS:  # before any per-seat work (issue 13 fault 4)
        raise invalid("seats", f"at most {MAX_SEATS} seats, got {len(request.seats)}")
    if len(request.timeouts_ms) > MAX_TIMEOUTS:
        raise invalid("timeouts_ms", f"at most {MAX_TIMEOUTS} entries")
    seats = []
    opens = []
    entropy: list[bytes] = []
    commitments: list[bytes] = []
    for i, s in enumerate(request.seats):
        kind = SEAT_KINDS.get(s.kind)
        if kind is None:
            raise invalid(f"seats[{i}].kind", "not a SeatKind")
        seat_open = _SEAT_OPENS.get(s.open)
        if seat_open is None:
            raise invalid(f"seats[{i}].open", "not a SeatOpen")
        seats.append(SeatSpec(kind, s.bot_min_delay_ms, s.bot_max_delay_ms))
        opens.append(seat_open)
        entropy.append(bytes(s.entropy))
        commitments.append(bytes(s.entropy_commitment))
    return GameSpec(
        game=request.game,
        seats=seats,
        rules=read_json_object(request.rules_json, "rules_json", empty=True),
        seed=request.seed if request.HasField("seed") else None,
        event_limit=request.event_limit,
        timeouts_ms=dict(request.timeouts_ms),
        seat_open=opens,
        public=request.public,
        start_deadline_ms=request.start_deadline_ms,
        turn_timeout_ms=request.turn_timeout_ms,
        idle_timeout_ms=request.idle_timeout_ms,
        abandon_timeout_ms=request.abandon_timeout_ms,
        entropy=entropy,
        entropy_commitments=commitments,
        idempotency_key=request.idempotency_key,
    )


def command(value: pb.GameValue) -> JsonObject | Unreadable:
    """A command's JSON object, ``kind`` included: ``json`` names it, or ``kind`` alone does,
    or both the same. Clients send the same few short commands over and over
    (``{"kind":"Play"}``): those read once are kept, by kind and text (the application only
    reads the objects it is given)."""
    key = (value.kind, value.json)
    found = _COMMANDS.get(key)
    if found is not None:
        return found
    data = read_json_object(value.json, "command.json")
    if isinstance(data, Unreadable) or not value.kind:
        return _kept(key, data)
    if data.get(codec.KIND, value.kind) != value.kind:
        return Unreadable(invalid("command.kind", "differs from the kind in command.json"))
    data.setdefault(codec.KIND, value.kind)
    return _kept(key, data)


_COMMANDS: dict[tuple[str, str], JsonObject] = {}
COMMANDS_KEPT: Final = 4096
COMMAND_KEPT_TEXT: Final = 256
"""Only commands sent as at most this many characters are kept (so the memory stays small)."""


def _kept(key: tuple[str, str], data: JsonObject | Unreadable) -> JsonObject | Unreadable:
    if isinstance(data, Unreadable) or len(key[1]) > COMMAND_KEPT_TEXT:
        return data  # a refusal is made anew each time: it is raised, and carries a traceback
    if len(_COMMANDS) >= COMMANDS_KEPT:
        _COMMANDS.clear()  # bounded; refilled by what clients send next
    _COMMANDS[key] = data
    return data


def fill_with(request: pb.StartTableRequest) -> str:
    """The bots that fill a started table's empty seats (a human kind means the default)."""
    if request.fill_with in (pb.SEAT_KIND_UNSPECIFIED, pb.SEAT_KIND_HUMAN):
        return "reaction"
    return SEAT_KINDS.get(request.fill_with, "")


# --------------------------------------------------------------------------- out


def value(v: Value) -> pb.GameValue:
    return pb.GameValue(kind=v.kind, json=v.json)


def outcome(o: Outcome) -> pb.Outcome:
    return pb.Outcome(
        termination=o.termination.value,
        winners=list(o.winners),
        losers=list(o.losers),
        scores=list(o.scores),
    )


def entry_field(e: RedactedEntry) -> bytes:
    """The entry as field 1 of its response, serialized once per entry and view: field 1 is
    ``SubmitActionResponse.entry`` and ``StreamEventsResponse.entries`` alike."""
    return e.encoded(_ENTRY_FIELD, _entry_field)


def _entry_field(e: RedactedEntry) -> bytes:
    message = pb.Entry(
        seq=e.seq,
        at_ms=e.at_ms,
        seat=e.seat,
        action=value(e.action),
        events=[value(x) for x in e.events],
        hash=e.hash,
        prev=e.prev,
        race_json=e.race,
    ).SerializeToString()
    # Field 1, wire type 2 (length-delimited): its tag, the length as a varint, the bytes.
    # Setting the field to a message would copy it (upb serializes and parses it again).
    return b"\x0a" + _varint(len(message)) + message


def _varint(n: int) -> bytes:
    """``n`` (≥ 0) in protobuf's base-128 varint: seven bits a byte, low first, the high
    bit set on every byte but the last."""
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def stream_response(batch: StreamBatch) -> bytes:
    """A StreamEventsResponse: each entry's, then the outcome and end line (serialized
    messages one after another parse as one message, their merge)."""
    parts = [entry_field(e) for e in batch.entries]
    if batch.outcome is not None or batch.end is not None:
        last = pb.StreamEventsResponse(
            outcome=outcome(batch.outcome) if batch.outcome is not None else None,
            end_json=codec.canonical_text(batch.end) if batch.end is not None else "",
        )
        parts.append(last.SerializeToString())
    return b"".join(parts)


def submitted(result: SubmitResult) -> bytes:
    """A SubmitActionResponse, serialized: its entry's part made once per entry and view (a
    resubmit answers with the same), then the outcome and ``replayed``, if any (serialized
    messages one after another parse as one message, their merge, as a stream's do)."""
    found = entry_field(result.entry)
    if result.outcome is None and not result.replayed:
        return found
    rest = pb.SubmitActionResponse(
        outcome=outcome(result.outcome) if result.outcome is not None else None,
        replayed=result.replayed,
    )
    return found + rest.SerializeToString()


def play_entry(e: RedactedEntry) -> bytes:
    """A ``PlayResponse`` carrying the entry: its ``entry`` is field 2, so the bytes are
    :func:`entry_field`'s (made once per entry and view, whatever the call) with field 2's tag
    (wire type 2 as well: ``0x12``) in place of field 1's."""
    return b"\x12" + entry_field(e)[1:]


def play_ack(action_id: str, result: SubmitResult) -> pb.PlayResponse:
    return pb.PlayResponse(
        ack=pb.PlayAck(
            action_id=action_id,
            seq=result.entry.seq,
            replayed=result.replayed,
            outcome=outcome(result.outcome) if result.outcome is not None else None,
        )
    )


def play_rejected(action_id: str, err: ServiceError) -> pb.PlayResponse:
    """The error a unary call would end with, as a message: its reason, status name, text,
    fields and metadata (what ``ErrorInfo`` and ``BadRequest`` carry there)."""
    problem = pb.PlayProblem(
        code=err.reason,
        status=err.status.value,
        detail=err.message,
        errors=[
            pb.PlayFieldViolation(field=v.field, description=v.description) for v in err.violations
        ],
        metadata=err.metadata,
    )
    return pb.PlayResponse(rejected=pb.PlayRejected(action_id=action_id, problem=problem))


def created(made: CreatedGame) -> pb.CreateGameResponse:
    return pb.CreateGameResponse(
        game_id=made.game_id,
        seat_tokens=[pb.SeatToken(seat=s, token=t) for s, t in made.seat_tokens],
        spectator_token=made.spectator_token,
        seed_commitment=made.seed_commitment,
        header_json=codec.canonical_text(made.header),
        creator_token=made.creator_token,
        invites=[pb.SeatInvite(seat=s, code=c) for s, c in made.invites],
        status=made.status,
    )


def game_view(result: ViewResult) -> pb.GetViewResponse:
    return pb.GetViewResponse(
        seq=result.seq,
        view=value(result.view),
        legal_commands=[value(v) for v in result.legal_commands],
        outcome=outcome(result.outcome) if result.outcome is not None else None,
        seat=result.seat,
        present_seats=result.present,
        head_hash=result.head_hash,
        rtt_ms=result.rtt_ms,
        race_delays_ms=result.race_delays_ms,
    )


def table(info: TableInfo) -> pb.TableInfo:
    return pb.TableInfo(
        game_id=info.game_id,
        game=info.game,
        status=info.status,
        seats=[
            pb.TableSeat(
                seat=s.seat,
                kind=_KIND_OF.get(s.kind, pb.SEAT_KIND_UNSPECIFIED),
                open=_OPEN_OF.get(s.open, pb.SEAT_OPEN_UNSPECIFIED),
                taken=s.taken,
                present=s.present,
                entropy_commitment=s.entropy_commitment,
                revealed=s.revealed,
            )
            for s in info.seats
        ],
        created_ms=info.created_ms,
        deadline_ms=info.deadline_ms,
        public=info.public,
        seed_commitment=info.seed_commitment,
        rules_json=codec.canonical_text(info.rules),
        seq=info.seq,
        outcome=outcome(info.outcome) if info.outcome is not None else None,
    )


def catalogue(games: tuple[CatalogueEntry, ...], server_key: str) -> pb.ListGamesResponse:
    return pb.ListGamesResponse(
        games=[
            pb.GameInfo(
                name=g.name,
                title=g.title,
                rules_version=g.rules_version,
                min_seats=g.min_seats,
                max_seats=g.max_seats,
                realtime=g.realtime,
                aliases=list(g.aliases),
                flags=[
                    pb.RuleFlag(
                        name=f.name,
                        default_json=codec.canonical_text(f.default),
                        schema_json=codec.canonical_text(f.schema),
                        help=f.help,
                    )
                    for f in g.flags
                ],
                command_schema_json=codec.canonical_text(g.command_schema),
                event_schema_json=codec.canonical_text(g.event_schema),
                view_schema_json=codec.canonical_text(g.view_schema),
            )
            for g in games
        ],
        server_key=server_key,
    )
