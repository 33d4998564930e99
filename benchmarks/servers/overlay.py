"""Lay benchmarks/servers' play-channel variants over a copy of the shared servers harness.

    python overlay.py COPY_DIR

Copies the new modules (cc_ws.js, cc_play.py, play_variants.py) into COPY_DIR and makes the
smallest text patches to its bench.py, node_worker.js and py_worker.py so that they load them;
each inserted block is marked ``benchmarks/servers overlay``. Every anchor must occur exactly once
in the file: a shared harness that changed stops the run here instead of being mis-patched.
Never run it on /work/shared itself (run.sh gives it a temporary copy).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODULES = ("cc_ws.js", "cc_play.py", "play_variants.py")

BEGIN = "benchmarks/servers overlay (cardcore repo)"

# file -> [(anchor, text, "before" | "after")]
PATCHES: dict[str, list[tuple[str, str, str]]] = {
    "bench.py": [
        (
            "\nSECTIONS = {\n",
            f"""
# >>> {BEGIN}: the play channel's rows
from play_variants import add_play_channel  # noqa: E402

VARIANTS = add_play_channel(VARIANTS, Variant, DUR, SHM)
# <<< benchmarks/servers overlay
""",
            "before",
        ),
    ],
    "node_worker.js": [
        (
            "// ------------------------------------------------------------------ dispatch\n",
            f"""// >>> {BEGIN}: the play channel over WebSocket
const ccWs = require('./cc_ws')({{
  now, deferred, withTimeout, httpJson, makePool, movesNeeded, nextTurn, PLAY, SEEDS,
}});
// <<< benchmarks/servers overlay

""",
            "before",
        ),
        (
            "    noop_http: () => noopHttpSteps(cmd, clients),\n",
            "    cc_ws: () => ccWs.cc_ws(cmd, clients, spectators),"
            " // benchmarks/servers overlay\n",
            "after",
        ),
    ],
    "py_worker.py": [
        (
            '    ("noop_grpc", "conc"): noop,\n}\n',
            f"""
# >>> {BEGIN}: gRPC Play
import cc_play  # noqa: E402

cc_play.install(globals())
# <<< benchmarks/servers overlay
""",
            "after",
        ),
    ],
}


def patch(path: Path, patches: list[tuple[str, str, str]]) -> None:
    text = path.read_text()
    if BEGIN in text:
        raise SystemExit(f"overlay: {path} is patched already")
    for anchor, insert, where in patches:
        n = text.count(anchor)
        if n != 1:
            raise SystemExit(
                f"overlay: anchor {anchor!r} found {n} times in {path.name} (expected once): "
                "the shared harness changed; update benchmarks/servers/overlay.py"
            )
        new = insert + anchor if where == "before" else anchor + insert
        text = text.replace(anchor, new)
    path.write_text(text)


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    copy = Path(sys.argv[1]).resolve()
    if not (copy / "bench.py").is_file():
        raise SystemExit(f"overlay: {copy} has no bench.py")
    if copy.is_relative_to("/work/shared"):
        raise SystemExit("overlay: refusing to patch /work/shared (run it on a copy)")
    for name in MODULES:
        shutil.copy2(HERE / name, copy / name)
    for name, patches in PATCHES.items():
        patch(copy / name, patches)
    return 0


if __name__ == "__main__":
    sys.exit(main())
