"""Wheel build hook: generate the gRPC stubs of proto/ with the pinned grpcio-tools.

The stubs are build output — never edited by hand, never committed (rules of issue 5) — so every
wheel, including a plain ``pip install .`` from a fresh clone and editable installs, generates them
here. The pinned generator is a build dependency only: installing cardcore installs nothing else.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class ProtoStubsHook(BuildHookInterface):  # type: ignore[type-arg]
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        script = Path(self.root) / "services" / "cardcore_server" / "_protogen.py"
        subprocess.run([sys.executable, str(script), "--if-stale"], check=True)
        build_data["artifacts"].append("services/cardcore_server/_pb/*")
