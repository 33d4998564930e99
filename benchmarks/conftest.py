"""Collects throughput figures from the benchmarks and prints them with their ratio to the
bare-loop baseline measured in the same run (never asserted: machines are shared and noisy)."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from typing import Any, NamedTuple

import pytest

FIGURES: dict[str, float] = {}
IMPORT_FIGURES: dict[str, float] = {}
"""Import times (test_import.py): milliseconds and a cardcore/msgspec ratio, not throughputs, so
printed apart from the bare-loop ratios."""


@contextlib.contextmanager
def served(code: str) -> Iterator[tuple[int, int]]:
    """A baseline server run from ``code`` in a Python of its own, which prints its port first:
    its port and PID (the benchmarks read its CPU from /proc), stopped at the end."""
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    try:
        yield int(proc.stdout.readline()), proc.pid
    finally:
        proc.terminate()
        proc.wait(10)


NOOP_SERVER = r"""
import asyncio, sys, grpc

async def unary(request, context):
    return b""

async def stream(request, context):
    n = int(request.decode() or "0")
    for _ in range(n):
        yield b"\x0a\x02ok"

subscribers = set()

async def subscribe(request, context):
    # b"0" at once (as a StreamEvents stream starts with the deal), then every published message
    queue = asyncio.Queue()
    subscribers.add(queue)
    try:
        yield b"0"
        while True:
            yield await queue.get()
    finally:
        subscribers.discard(queue)

async def publish(request, context):
    for queue in subscribers:
        queue.put_nowait(request)
    return b""

async def main():
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bench.Noop", {
        "Unary": grpc.unary_unary_rpc_method_handler(unary),
        "Stream": grpc.unary_stream_rpc_method_handler(stream),
        "Subscribe": grpc.unary_stream_rpc_method_handler(subscribe),
        "Publish": grpc.unary_unary_rpc_method_handler(publish),
    }),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(port, flush=True)
    await server.wait_for_termination()

asyncio.run(main())
"""


class Noop(NamedTuple):
    target: str
    pid: int


@pytest.fixture(scope="module")
def noop() -> Iterator[Noop]:
    """A no-op grpc.aio server (unary, server stream, subscribe/publish): what a gRPC call
    costs with no application behind it."""
    with served(NOOP_SERVER) as (port, pid):
        yield Noop(f"127.0.0.1:{port}", pid)


@pytest.fixture
def figures() -> dict[str, float]:
    return FIGURES


@pytest.fixture
def import_figures() -> dict[str, float]:
    return IMPORT_FIGURES


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if IMPORT_FIGURES:
        terminalreporter.section("cardcore import time (same run, fresh interpreters)")
        for name, value in IMPORT_FIGURES.items():
            terminalreporter.write_line(f"{name:<56} {value:>9.2f}")
    if not FIGURES:
        return
    base = FIGURES.get("bare War loop steps/s")
    terminalreporter.section("cardcore throughput (same run)")
    for name, value in FIGURES.items():
        ratio = f"  ({value / base:.3f}× bare loop)" if base and "bare" not in name else ""
        terminalreporter.write_line(f"{name:<48} {value:>12,.0f}{ratio}")
