"""The play channel's rows, added to the shared harness's ``VARIANTS`` (bench.py's copy calls
:func:`add_play_channel` right after its own list; see overlay.py).

Each row goes after an existing one of its section, so it runs in the same interleaved order in
every round and sits beside cardcore's other rows in the table.
"""

from __future__ import annotations

from typing import Any


def add_play_channel(variants: list[Any], variant: Any, dur: str, shm: str) -> list[Any]:
    """``variants`` with the play channel's rows inserted (``variant``: bench.py's ``Variant``;
    ``dur``/``shm``: its storage labels). Fails if an anchor row is gone or a row exists."""
    after = {
        "seq.cc_rest": [
            variant("seq.cc_ws", "seq", "node", "cc_ws", "cc_disk",
                    "cardcore WebSocket play channel [node ws]", dur, base="seq.ws_echo"),
            variant("seq.cc_ws_shm", "seq", "node", "cc_ws", "cc_shm",
                    "cardcore WebSocket play channel, tmpfs [node ws]", shm, base="seq.ws_echo"),
            variant("seq.cc_play", "seq", "py", "cc_play", "cc_disk",
                    "cardcore gRPC Play stream [py grpc.aio]", dur, base="seq.noop_grpc"),
        ],
        "conc.cc_grpc_shm": [
            variant("conc.cc_ws", "conc", "node", "cc_ws", "cc_disk",
                    "cardcore WebSocket play channel x8 [node ws]", dur, base="conc.ws_echo"),
        ],
        "fan.cc_sse": [
            variant("fan.cc_ws", "fan", "node", "cc_ws", "cc_disk",
                    "cardcore WebSocket play channel, 8 spectator channels [node ws]", dur),
        ],
    }  # fmt: skip
    ids = {v.id for v in variants}
    missing = sorted(set(after) - ids)
    clash = sorted(n.id for rows in after.values() for n in rows if n.id in ids)
    if missing or clash:
        raise SystemExit(
            f"benchmarks/servers overlay: the shared harness changed (rows missing: {missing}, "
            f"rows it has already: {clash}); update benchmarks/servers/play_variants.py"
        )
    out: list[Any] = []
    for v in variants:
        out.append(v)
        out.extend(after.get(v.id, []))
    return out
