"""Configuration by environment (issue 13): every ``cardcore serve`` flag as ``CARDCORE_*``
(or ``CARDCORE_*_FILE``, a file holding it: a database URL with its password never needs to be
on a command line), the command line winning; ``--print-config`` shows the effective
configuration with secrets masked; a bad value names its variable."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

from cardcore_client import Client

from .helpers import ServerProcess


def serve(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cardcore.cli", "serve", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        check=False,
        timeout=30,
    )


def test_print_config_merges_flags_environment_and_files_and_masks_secrets(tmp_path: Path) -> None:
    url = tmp_path / "db-url"
    url.write_text("postgresql://cardcore:s3cret-pw@db.internal:5432/cardcore\n")
    done = serve(
        "--print-config",
        "--port",
        "7000",
        env={
            "CARDCORE_PORT": "6000",  # the flag wins
            "CARDCORE_DB_FILE": str(url),
            "CARDCORE_ADMIN_KEY": "a-very-secret-admin-key",
            "CARDCORE_ALLOW_CLIENT_SEED": "true",
            "CARDCORE_CORS_ORIGIN": "https://a.example, https://b.example",
            "CARDCORE_RETAIN_DAYS": "30",
            "CARDCORE_TRUSTED_PROXY": "10.0.0.0/8, 127.0.0.1",
        },
    )
    assert done.returncode == 0, done.stderr
    config = json.loads(done.stdout)
    assert config["port"] == 7000 and config["allow_client_seed"] is True
    assert config["db"] == "postgresql://cardcore:********@db.internal:5432/cardcore"
    assert config["admin_key"] == "********" and config["retain_days"] == 30.0
    assert config["cors_origin"] == ["https://a.example", "https://b.example"]
    assert config["trusted_proxy"] == ["10.0.0.0/8", "127.0.0.1/32"]
    assert "s3cret-pw" not in done.stdout and "a-very-secret" not in done.stdout


def test_a_list_on_the_command_line_replaces_the_environments() -> None:
    """As every other flag, a list flag given on the command line wins over the environment:
    --trusted-proxy there is the whole list of proxies trusted (argparse's append added the
    two: a proxy meant to be replaced stayed trusted)."""
    done = serve(
        "--print-config",
        "--trusted-proxy",
        "127.0.0.1",
        "::1",
        "--cors-origin",
        "https://b.example",
        "--cors-origin",
        "https://c.example",
        env={"CARDCORE_TRUSTED_PROXY": "10.0.0.0/8", "CARDCORE_CORS_ORIGIN": "https://a.example"},
    )
    assert done.returncode == 0, done.stderr
    config = json.loads(done.stdout)
    assert config["trusted_proxy"] == ["127.0.0.1/32", "::1/128"]
    assert config["cors_origin"] == ["https://b.example", "https://c.example"]


def test_a_bad_environment_value_names_its_variable() -> None:
    for env, name in (
        ({"CARDCORE_PORT": "fifty"}, "CARDCORE_PORT"),
        ({"CARDCORE_NO_REST": "maybe"}, "CARDCORE_NO_REST"),
        ({"CARDCORE_LOG_LEVEL": "chatty"}, "CARDCORE_LOG_LEVEL"),
        ({"CARDCORE_DB_FILE": "/nonexistent/url"}, "CARDCORE_DB_FILE"),
        ({"CARDCORE_TRUSTED_PROXY": "10.0.0.0/8, proxy.internal"}, "CARDCORE_TRUSTED_PROXY"),
    ):
        done = serve("--print-config", env=env)
        assert done.returncode == 2 and name in done.stderr, (env, done.stderr)


def test_a_server_configured_by_environment_serves(tmp_path: Path) -> None:
    """The server reads its switches from the environment (here: client seeds allowed)."""
    proc = ServerProcess(tmp_path)
    os.environ["CARDCORE_ALLOW_CLIENT_SEED"] = "1"
    os.environ["CARDCORE_COLLECT_WINDOW_MS"] = "0"
    try:
        proc.start()
    finally:
        del os.environ["CARDCORE_ALLOW_CLIENT_SEED"], os.environ["CARDCORE_COLLECT_WINDOW_MS"]
    try:

        async def main() -> None:
            async with Client(proc.target) as c:
                created = await c.create_game("speed", ["human", "human"], seed=5)
                assert created.game_id

        asyncio.run(main())
    finally:
        assert proc.stop() == 0
