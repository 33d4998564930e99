"""A real ``cardcore serve`` (gRPC + REST) for the REST tests, and small HTTP/SSE helpers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from ..service.helpers import ServerProcess


class RestServer(ServerProcess):
    """``cardcore serve --port 0 --rest-port 0`` in a subprocess; stderr (JSON logs) to a file."""

    READY = (*ServerProcess.READY, b"cardcore REST on http://")

    def __init__(self, tmp: Path, *args: str, name: str = "rest") -> None:
        super().__init__(tmp, "--rest-port", "0", *args, name=name)
        self.rest_port = 0

    @property
    def grpc_port(self) -> int:
        return self.port

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.rest_port}"

    def _ready(self, lines: list[str]) -> None:
        super()._ready(lines)
        self.rest_port = int(lines[1].rsplit(":", 1)[1])


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create(
    client: httpx.Client,
    game: str = "ratscrew",
    seats: int = 2,
    *,
    bots: int = 0,
    seed: int | None = None,
    event_limit: int = 0,
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "game": game,
        "seats": [{"kind": "human"}] * (seats - bots)
        + [{"kind": "reaction", "bot_min_delay_ms": 1, "bot_max_delay_ms": 5}] * bots,
        "event_limit": event_limit,
    }
    if seed is not None:
        body["seed"] = seed
    r = client.post("/v1/games", json=body, headers=headers or {})
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


@dataclass
class Event:
    """One Server-Sent Event."""

    event: str = "message"
    data: str = ""
    id: str | None = None
    raw: list[str] = field(default_factory=list)

    def json(self) -> Any:
        return json.loads(self.data)


def sse_events(response: httpx.Response) -> Iterator[Event]:
    """Parse ``text/event-stream`` (WHATWG rules, enough of them for cardcore's streams)."""
    ev = Event()
    data: list[str] = []
    for line in response.iter_lines():
        if line == "":
            if data or ev.event != "message" or ev.id is not None:
                ev.data = "\n".join(data)
                yield ev
            ev, data = Event(), []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        ev.raw.append(line)
        if name == "data":
            data.append(value)
        elif name == "event":
            ev.event = value
        elif name == "id":
            ev.id = value
