"""Build hook of ``cardcore-server``: the web table's Pyodide runtime.

The page verifies games in the browser with Pyodide, whose runtime (five files of the npm
``pyodide`` package, about 13 MB) is not committed: ``cardcore_server/web/vendor/pyodide`` is
gitignored. Every wheel and sdist carries it, so this hook fills that folder first
(``cardcore_server/pyodide_runtime.py``: from ``$CARDCORE_PYODIDE_DIR``, a copy in place, the
checkout's ``node_modules/pyodide``, or the pinned tarball from the npm registry — each file
checked against the pin) and fails the build, saying what to do, when none can be had. Editable
installs skip it: ``make web-vendor`` fills the same folder for a checkout.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

RUNTIME = Path("cardcore_server", "pyodide_runtime.py")
VENDOR = Path("cardcore_server", "web", "vendor", "pyodide")


def _runtime_module(root: Path) -> Any:
    """``pyodide_runtime`` loaded by its path: importing the package would need its runtime
    dependencies, which a build environment does not have."""
    spec = importlib.util.spec_from_file_location("_pyodide_runtime", root / RUNTIME)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class PyodideRuntimeHook(BuildHookInterface):  # type: ignore[type-arg]
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name not in ("wheel", "sdist") or version == "editable":
            return
        root = Path(self.root)
        runtime = _runtime_module(root)
        try:
            source = runtime.provide(root / VENDOR)
        except runtime.RuntimeUnavailable as exc:
            raise SystemExit(f"cardcore-server: {exc}") from None
        self.app.display_info(f"pyodide {runtime.VERSION} from {source}")
        build_data["artifacts"].append(VENDOR.as_posix() + "/*")
