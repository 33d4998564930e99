"""A real server process for the service tests: started, killed and restarted on 127.0.0.1."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Self

import grpc

from cardcore_proto import game_service_pb2 as pb
from cardcore_proto import game_service_pb2_grpc as pb_grpc

READY_TIMEOUT_S = 30.0


class ServerProcess:
    """``cardcore serve`` in a subprocess; stderr (its JSON logs) goes to ``log_path``."""

    def __init__(self, tmp: Path, *args: str, name: str = "server", db: str | None = None) -> None:
        self.db = db or str(tmp / f"{name}.db")
        self.log_path = tmp / f"{name}.log"
        self.args = list(args)
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> Self:
        cmd = [
            sys.executable,
            "-m",
            "cardcore.cli",
            "serve",
            "--port",
            str(self.port),
            "--db",
            self.db,
            *self._rest_port_again(),
            *self.args,
        ]
        err = open(self.log_path, "ab")  # noqa: SIM115 — owned by the child
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, env=env)
        err.close()
        lines = self._read_ready_lines()
        if len(lines) < len(self.READY) or not all(
            line.startswith(prefix) for line, prefix in zip(lines, self.READY, strict=False)
        ):
            self.stop()
            raise RuntimeError(f"server did not start: {lines!r}\n{self.log_text()[-2000:]}")
        self._ready([line.decode() for line in lines])
        self.starts += 1
        return self

    def _rest_port_again(self) -> list[str]:
        """On a restart, the REST port the server had (by default it would take the gRPC port
        + 1, which another test's server may hold by now); none on the first start or for a
        server without REST."""
        if not self.starts or "--rest-port" in self.args:
            return []
        listening = [
            json.loads(line)
            for line in self.log_text().splitlines()
            if '"event": "listening"' in line
        ]
        port = listening[-1].get("rest_port") if listening else None
        return ["--rest-port", str(port)] if isinstance(port, int) else []  # None: --no-rest

    READY: tuple[bytes, ...] = (b"cardcore serving on",)
    """What the server prints on stdout, one line each, once it accepts calls (server.py)."""

    def _read_ready_lines(self) -> list[bytes]:
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        out = b""
        deadline = time.monotonic() + READY_TIMEOUT_S
        while out.count(b"\n") < len(self.READY) and time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                chunk = os.read(fd, 4096)
                if not chunk:
                    break
                out += chunk
            elif self.proc.poll() is not None:
                break
        return out.splitlines()

    def _ready(self, lines: list[str]) -> None:
        """Take the bound ports from the ready lines."""
        self.port = int(lines[0].rsplit(":", 1)[1])

    def kill(self) -> None:
        """SIGKILL: no cleanup of any kind."""
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
            self.proc = None

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
        self.proc = None
        return rc

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_text(self) -> str:
        try:
            return self.log_path.read_text()
        except FileNotFoundError:
            return ""

    def log_records(self) -> list[dict[str, Any]]:
        """The log's lines, parsed, asserting first that every one is JSON (no traceback, no
        "Task exception was never retrieved", nothing a library printed on its own)."""
        lines = self.log_text().splitlines()
        strays = [line for line in lines if not line.startswith("{")]
        assert not strays, strays[:10]
        return [json.loads(line) for line in lines]


def stub(target: str) -> tuple[grpc.Channel, Any]:
    channel = grpc.insecure_channel(target)
    return channel, pb_grpc.GameServiceStub(channel)


def auth(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def create(
    s: Any,
    game: str = "ratscrew",
    seats: int = 2,
    *,
    bots: int = 0,
    seed: int | None = None,
    timeouts: dict[str, int] | None = None,
    event_limit: int = 0,
) -> Any:
    assignments = [pb.SeatAssignment(kind=pb.SEAT_KIND_HUMAN) for _ in range(seats - bots)]
    assignments += [
        pb.SeatAssignment(kind=pb.SEAT_KIND_REACTION_BOT, bot_min_delay_ms=1, bot_max_delay_ms=5)
        for _ in range(bots)
    ]
    req = pb.CreateGameRequest(
        game=game, seats=assignments, timeouts_ms=timeouts or {}, event_limit=event_limit
    )
    if seed is not None:
        req.seed = seed
    return s.CreateGame(req)


def command(kind: str, **fields: Any) -> pb.GameValue:
    data = {"kind": kind, **fields}
    return pb.GameValue(kind=kind, json=json.dumps(data, sort_keys=True, separators=(",", ":")))


def hang_store_commits(app: Any) -> None:
    """From now on the in-process server's store never answers a commit (an outage that hangs
    rather than fails): what a stop does with the actions then in flight."""
    import asyncio

    never = asyncio.Event()
    commit = app.store.commit

    async def hanging(c: Any) -> int:
        await never.wait()
        result: int = await commit(c)
        return result

    app.store.commit = hanging
