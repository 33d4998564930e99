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


def test_the_build_stage_makes_the_three_wheels_without_node() -> None:
    """The engine, the client and the service are three distributions (issue 21): the build
    stage builds each, with no Node stage (the service's build fetches the pinned Pyodide runtime
    from the npm registry itself), and the runtime stage installs them by file name, so the
    engine and client can never come from an index."""
    steps = instructions()
    stages = [i for i, (w, _) in enumerate(steps) if w == "FROM"]
    assert not [steps[i] for i in stages if "node" in steps[i][1]], "no Node stage"
    build = next(i for i in stages if steps[i][1].endswith("AS build"))
    build_steps = steps[build : min(j for j in [*stages, len(steps)] if j > build)]
    wheel = next(rest for w, rest in build_steps if w == "RUN" and "--wheel" in rest)
    assert "for dist in . clients/python services" in wheel
    copied = {rest.split()[0] for w, rest in build_steps if w == "COPY"}
    assert {"cardcore", "clients/python", "proto", "services"} <= copied
    runtime = steps[stages[-1] :]
    install = next(rest for w, rest in runtime if w == "RUN" and "pip install" in rest)
    for name in ("/wheels/cardcore-*.whl", "/wheels/cardcore_client-*.whl", "cardcore_server-"):
        assert name in install, name


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
