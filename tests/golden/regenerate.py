"""Regenerate every golden log and render (``make golden``). Only on purpose: review the diff."""

from __future__ import annotations

import sys

from .presets import PRESETS
from .render import build, paths


def main() -> int:
    for preset in PRESETS:
        log_bytes, render_bytes = build(preset)
        log_path, render_path = paths(preset)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log_path.write_bytes(log_bytes)
        render_path.write_bytes(render_bytes)
        print(f"wrote {log_path.relative_to(log_path.parents[2])} ({len(log_bytes)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
