"""A real ``cardcore serve`` (gRPC + REST) for the REST tests, and small HTTP/SSE helpers."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

READY_TIMEOUT_S = 30.0


class RestServer:
    """``cardcore serve --port 0 --rest-port 0`` in a subprocess; stderr (JSON logs) to a file."""

    def __init__(self, tmp: Path, *args: str, name: str = "rest") -> None:
        self.db = str(tmp / f"{name}.db")
        self.log_path = tmp / f"{name}.log"
        self.args = list(args)
        self.grpc_port = 0
        self.rest_port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.rest_port}"

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    def start(self) -> RestServer:
        cmd = [sys.executable, "-m", "cardcore.cli", "serve", "--port", "0", "--rest-port", "0"]
        cmd += ["--db", self.db, *self.args]
        err = open(self.log_path, "ab")  # noqa: SIM115 — owned by the child
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, env=env)
        err.close()
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        out = b""
        deadline = time.monotonic() + READY_TIMEOUT_S
        while out.count(b"\n") < 2 and time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                chunk = os.read(fd, 4096)
                if not chunk:
                    break
                out += chunk
            elif self.proc.poll() is not None:
                break
        lines = out.splitlines()
        if len(lines) < 2 or not lines[1].startswith(b"cardcore REST on http://"):
            self.stop()
            raise RuntimeError(f"server did not start: {lines!r}\n{self.log_text()[-2000:]}")
        self.grpc_port = int(lines[0].decode().rsplit(":", 1)[1])
        self.rest_port = int(lines[1].decode().rsplit(":", 1)[1])
        return self

    def stop(self, timeout: float = 15.0) -> int | None:
        """SIGTERM and wait (graceful shutdown)."""
        if self.proc is None:
            return None
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait(5)
            rc = -999 if rc is not None else rc
        self.proc = None
        return rc

    def log_text(self) -> str:
        try:
            return self.log_path.read_text()
        except FileNotFoundError:
            return ""


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
