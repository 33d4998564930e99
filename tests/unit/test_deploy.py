"""The Dockerfile and the compose file, checked statically (this machine has no container
runtime, so neither is built or run here; the README says so): every COPY source exists, the
runtime stage runs as a non-root user with a health check, the command is the README's
``cardcore serve``, and compose's servers take their secrets from files."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def instructions() -> list[tuple[str, str]]:
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_every_copy_source_exists() -> None:
    copies = [rest for word, rest in instructions() if word == "COPY" and "--from" not in rest]
    assert copies
    for rest in copies:
        *sources, _dest = rest.split()
        for source in sources:
            assert (ROOT / source).exists(), f"COPY {source}: not in the repository"


def test_runtime_stage_is_non_root_with_a_health_check_and_the_readme_command() -> None:
    steps = instructions()
    last_from = max(i for i, (w, _) in enumerate(steps) if w == "FROM")
    runtime = steps[last_from:]
    users = [rest for w, rest in runtime if w == "USER"]
    assert users and users[-1] not in ("root", "0")
    assert any(w == "HEALTHCHECK" and "/readyz" in rest for w, rest in runtime)
    cmd = [rest for w, rest in runtime if w == "CMD"][-1]
    assert cmd == '["cardcore", "serve"]'
    assert "cardcore serve" in (ROOT / "README.md").read_text()
    assert sum(1 for w, _ in steps if w == "FROM") >= 2, "multi-stage"


def test_the_wheel_stage_has_the_web_tables_runtime() -> None:
    """hatch_build.py refuses to build a wheel without the Pyodide runtime (node_modules/pyodide
    or a vendor copy): the build stage must get it from a stage that ran ``npm ci``."""
    steps = instructions()
    stages = [i for i, (w, _) in enumerate(steps) if w == "FROM"]
    build = next(i for i in stages if steps[i][1].endswith("AS build"))
    web = next(i for i in stages if steps[i][1].endswith("AS web"))
    web_steps = steps[web : min(j for j in stages if j > web)]
    assert ("RUN", "npm ci --no-audit --no-fund --ignore-scripts") in web_steps
    assert ("COPY", "package.json package-lock.json ./") in web_steps
    build_steps = steps[build : min(j for j in [*stages, len(steps)] if j > build)]
    assert ("COPY", "--from=web /src/node_modules/pyodide ./node_modules/pyodide") in build_steps
    wheel = next(rest for w, rest in build_steps if w == "RUN" and "--wheel" in rest)
    assert build_steps.index(("RUN", wheel)) > build_steps.index(
        ("COPY", "--from=web /src/node_modules/pyodide ./node_modules/pyodide")
    )


def test_compose_runs_postgres_and_two_servers_with_secrets_from_files() -> None:
    text = (ROOT / "deploy" / "compose.yaml").read_text()
    assert re.search(r"^  db:\n    image: postgres", text, re.M)
    assert "server-a:" in text and "server-b:" in text
    assert "CARDCORE_DB_FILE: /run/secrets/db_url" in text
    secret_settings = [
        line.strip()
        for line in text.splitlines()
        if re.match(r"\s+[A-Z_]*(PASSWORD|KEY|CARDCORE_DB)[A-Z_]*:", line)
    ]
    assert secret_settings and all("_FILE:" in line for line in secret_settings), secret_settings
