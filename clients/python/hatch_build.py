"""Build hook of ``cardcore-client``: the gRPC stubs of ``proto/`` (``cardcore_proto``).

The stubs are build output — never edited by hand, never committed — so every wheel, including
``pip install ./clients/python`` from a fresh clone and editable installs, generates them here with
the pinned grpcio-tools (a build dependency only). The sdist carries the ``.proto`` files it
needs (a copy of the repository's ``proto/``), so a wheel built from it generates the same stubs.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class ProtoStubsHook(BuildHookInterface):  # type: ignore[type-arg]
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        if self.target_name == "sdist":
            checkout_protos = root.parents[1] / "proto"
            if (checkout_protos / "cardcore").is_dir():
                build_data["force_include"][str(checkout_protos)] = "proto"
            return
        if self.target_name != "wheel":
            return
        script = root / "_protogen.py"
        subprocess.run([sys.executable, str(script), "--if-stale"], check=True)
        build_data["artifacts"].append("cardcore_proto/*")
