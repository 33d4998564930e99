"""What the compiled engine saves the server per action: one server on each build, same games.

    make compiled
    .venv/bin/python benchmarks/server_builds.py [--compiled build/compiled] [--rounds 7]
        [--calls 400] [--json OUT]

Two ``cardcore serve`` processes (SQLite store, WAL, synchronous=FULL, on the temporary folder's
disk) run the same tree's service: one with the compiled engine first on its path (``--compiled``,
a folder holding the ``cardcore`` package of a compiled wheel, as ``make compiled`` makes it),
the other with the same files under ``CARDCORE_PURE=1`` (its pure modules). Each says which
engine it loaded in its ``listening`` log record; this script runs them at ``--log-level warning``
(as ``benchmarks/test_service.py`` does) and asks the same Python with the same environment.

One gRPC client drives Egyptian Ratscrew games on each (:class:`benchmarks.test_service.
ErsDriver`: the seat to act plays or collects, ``SubmitAction`` by ``SubmitAction``, a new game
when one ends), ``--calls`` actions a round, the two servers in turn (A B A B …, the order
swapped every round) so the machine's drift falls on both. Printed per build: the server's CPU
per action (utime + stime of its process over the round, /proc/PID/stat), the client's
round-trip p50; then the medians of the within-round figures: the CPU the compiled engine saves
per action (pure − compiled, µs) and pure ÷ compiled.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.test_service import CpuMeter, ErsDriver, server_pid, summary  # noqa: E402
from cardcore_client import Client  # noqa: E402
from tests.service.helpers import ServerProcess  # noqa: E402

SERVE_ARGS = ("--allow-client-seed", "--collect-window-ms", "0", "--log-level", "warning")


@contextlib.contextmanager
def environment(**changes: str | None) -> Iterator[None]:
    """``os.environ`` with ``changes`` (None: unset) while a server starts (it inherits it)."""
    saved = {k: os.environ.get(k) for k in changes}
    try:
        _set(changes)
        yield
    finally:
        _set(saved)


def _set(values: dict[str, str | None]) -> None:
    for k, v in values.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def start(tmp: Path, name: str, compiled: Path, pure: bool) -> ServerProcess:
    """A server of this tree with the compiled build first on its path (safe-path mode: the
    working folder never goes in front of it); ``pure``: under ``CARDCORE_PURE=1``. Exits if
    that environment does not import the engine asked for."""
    path = f"{compiled}{os.pathsep}{ROOT}"
    flag = "1" if pure else None
    with environment(PYTHONSAFEPATH="1", PYTHONPATH=path, CARDCORE_PURE=flag):
        # The server logs its engine in its "listening" record (info), which the measured
        # servers (--log-level warning, as benchmarks/test_service.py runs them) leave out: the
        # same interpreter with the same environment and path says which engine it imports.
        said = subprocess.run(
            [sys.executable, "-c", "import cardcore; print(cardcore.compiled)"],
            capture_output=True,
            text=True,
            check=True,
            cwd=tmp,
        ).stdout.strip()
        if said != str(not pure):
            raise SystemExit(f"the {name} server would not run the {name} engine")
        return ServerProcess(tmp, *SERVE_ARGS, name=name).start()


async def round_of(driver: ErsDriver, pid: int, calls: int) -> dict[str, float]:
    """``calls`` sequential actions: the server's CPU per action and the client's latencies."""
    latencies: list[float] = []
    meter = CpuMeter(pid)
    begin = time.perf_counter()
    for _ in range(calls):
        t = time.perf_counter()
        await driver.step()
        latencies.append(time.perf_counter() - t)
    out = summary(latencies, time.perf_counter() - begin)
    out.update(meter.per_action(calls))
    return out


async def measure(servers: dict[str, ServerProcess], rounds: int, calls: int) -> dict[str, Any]:
    drivers: dict[str, ErsDriver] = {}
    for i, (name, server) in enumerate(servers.items()):
        drivers[name] = ErsDriver(Client(server.target), seed=1000 * (i + 1))
        await drivers[name].new_game()
        for _ in range(100):  # warm up the connection and every code path
            await drivers[name].step()
    rows: dict[str, list[dict[str, float]]] = {name: [] for name in servers}
    names = list(servers)
    for r in range(rounds):
        for name in names if r % 2 == 0 else reversed(names):
            rows[name].append(await round_of(drivers[name], server_pid(servers[name]), calls))
    for driver in drivers.values():
        await driver.client.close()
    return rows


def report(rows: dict[str, list[dict[str, float]]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, rs in rows.items():
        out[name] = {
            "server_cpu_us": statistics.median(r["server_cpu_us"] for r in rs),
            "p50_ms": statistics.median(r["p50_ms"] for r in rs),
            "per_s": statistics.median(r["per_s"] for r in rs),
        }
        print(
            f"{name:9} server CPU {out[name]['server_cpu_us']:7.1f} µs/action   "
            f"p50 {out[name]['p50_ms']:.3f} ms   {out[name]['per_s']:,.0f} actions/s"
        )
    pairs = list(zip(rows["pure"], rows["compiled"], strict=True))
    saved = [p["server_cpu_us"] - c["server_cpu_us"] for p, c in pairs]
    ratio = [p["server_cpu_us"] / c["server_cpu_us"] for p, c in pairs]
    out["saved_us"] = statistics.median(saved)
    out["pure_over_compiled"] = statistics.median(ratio)
    print(
        f"the compiled engine saves {out['saved_us']:.1f} µs of server CPU per action "
        f"(min {min(saved):.1f}, max {max(saved):.1f}); pure/compiled "
        f"{out['pure_over_compiled']:.3f} (min {min(ratio):.3f}, max {max(ratio):.3f}), "
        f"{len(pairs)} rounds"
    )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--compiled", type=Path, default=ROOT / "build" / "compiled")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--calls", type=int, default=400)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if not (args.compiled / "cardcore").is_dir():
        raise SystemExit(f"{args.compiled}: no compiled build here (make compiled)")
    with tempfile.TemporaryDirectory() as tmp:
        servers: dict[str, ServerProcess] = {}
        try:
            for name, pure in (("compiled", False), ("pure", True)):
                servers[name] = start(Path(tmp), name, args.compiled.resolve(), pure)
            rows = asyncio.run(measure(servers, args.rounds, args.calls))
        finally:
            for server in servers.values():
                server.stop()
    out = report(rows)
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "summary": out}, indent=2))


if __name__ == "__main__":
    main()
