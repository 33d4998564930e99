"""The service's command line (issue 21, item 10): ``cardcore serve``, ``demo`` and ``backup``
say what each option does and its default, and refuse what they cannot do in one line with exit
2, never a traceback: a busy or unbindable port (gRPC's as REST's), a number out of range, a
store that cannot be opened."""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import cardcore as cardcore_engine
from cardcore_server.app import Application, GameSpec
from cardcore_server.cli import _serve_parser, main
from cardcore_server.errors import ServiceError
from cardcore_server.store import SeatSpec, SqliteStore
from cardcore_server.transports import server

from .helpers import ServerProcess


def cardcore(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cardcore.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=False,
        timeout=60,
    )


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port some other program listens on."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield int(sock.getsockname()[1])


def test_a_busy_grpc_port_is_one_line_as_a_busy_rest_port_is(
    busy_port: int, tmp_path: Path
) -> None:
    """The gRPC clash was a 25-line traceback (gRPC core's log line, then RuntimeError: "Failed
    to bind"); REST's was one line. Both are now worded by server.port_unavailable, exit 2,
    before the store is opened."""
    db = str(tmp_path / "s.db")
    grpc_clash = cardcore("serve", "--port", str(busy_port), "--db", db)
    assert (grpc_clash.returncode, grpc_clash.stderr) == (
        2,
        f"cardcore serve: the gRPC port 127.0.0.1:{busy_port} is in use: "
        "choose another with --port\n",
    )
    rest_clash = cardcore("serve", "--port", "0", "--rest-port", str(busy_port), "--db", db)
    assert (rest_clash.returncode, rest_clash.stderr) == (
        2,
        f"cardcore serve: the REST port 127.0.0.1:{busy_port} is in use: "
        "choose another with --rest-port\n",
    )
    assert not Path(db).exists()


def test_a_port_taken_after_the_check_is_worded_alike(
    busy_port: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between the check and gRPC's own bind another program may take the port: gRPC's bare
    RuntimeError is worded the same way."""
    monkeypatch.setattr(server, "bind_error", lambda host, port: None)
    options = server.ServerOptions(port=busy_port, db=str(tmp_path / "s.db"), rest_port=None)
    with pytest.raises(server.PortUnavailable) as refused:
        asyncio.run(server.start(options))
    assert str(refused.value) == (
        f"cannot listen for gRPC on 127.0.0.1:{busy_port}: gRPC refused it (see --host, --port)"
    )


def test_an_address_not_of_this_host_is_one_line(tmp_path: Path) -> None:
    done = cardcore(
        "serve", "--host", "192.0.2.1", "--admin-key", "k", "--db", str(tmp_path / "s.db")
    )  # TEST-NET-1 (RFC 5737): never an address of this host
    assert done.returncode == 2
    assert done.stderr == (
        "cardcore serve: cannot listen for gRPC on 192.0.2.1:50051: Cannot assign requested "
        "address (see --host, --port)\n"
    )


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("--port", "70000", "must be 0 to 65535, got 70000"),
        ("--rest-port", "-1", "must be 0 to 65535, got -1"),
        ("--grace", "-1", "must be at least 0, got -1"),
        ("--grace", "nan", "must be at least 0, got nan"),
        ("--collect-window-ms", "-5", "must be 0 to 600000, got -5"),
        ("--start-deadline-ms", "0", "must be 1 to 604800000 ms (a week), got 0"),
        ("--rate-limit", "-1", "must be at least 0, got -1"),
        ("--rate-limit-address", "-0.5", "must be at least 0, got -0.5"),
        ("--retain-days", "0", "must be more than 0, got 0"),
        ("--max-connections", "0", "must be 1 or more, got 0"),
        ("--header-timeout", "0", "must be more than 0, got 0"),
        ("--body-timeout", "inf", "must be more than 0, got inf"),
    ],
)
def test_serve_refuses_numbers_out_of_range(
    option: str, value: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--port 70000`` was a traceback (OverflowError); ``--grace -1``, ``--collect-window-ms
    -5``, ``--start-deadline-ms -1`` and ``--rate-limit -1`` started a server that misbehaved."""
    with pytest.raises(SystemExit) as stopped:
        main(["serve", "--print-config", option, value])
    assert stopped.value.code == 2
    assert f"argument {option}: {says}" in capsys.readouterr().err


def test_an_environment_value_out_of_range_names_its_variable(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CARDCORE_GRACE", "-1")
    assert main(["serve", "--print-config"]) == 2
    assert capsys.readouterr().err == (
        "cardcore serve: CARDCORE_GRACE: '-1' is not a valid value (must be at least 0, got -1)\n"
    )


def test_serve_says_in_one_line_what_it_cannot_open(tmp_path: Path) -> None:
    """A --port with no port after it for REST's default, a store that cannot be opened and a
    missing TLS file were tracebacks, or Python's "[Errno 2] …: '/nope'"."""
    cases = [
        (
            ("--port", "65535"),
            "REST's default port is --port + 1, and 65535 has none after it: give --rest-port, "
            "or --no-rest",
        ),
        (
            ("--port", "0", "--db", str(tmp_path / "no" / "such" / "dir.db")),
            f"the store {tmp_path}/no/such/dir.db: unable to open database file",
        ),
        (
            ("--port", "0", "--tls-cert", "/nope.pem", "--tls-key", "/nope.pem"),
            "/nope.pem: No such file or directory",
        ),
    ]
    for args, says in cases:
        done = cardcore("serve", "--db", str(tmp_path / "s.db"), *args)
        assert (done.returncode, done.stderr) == (2, f"cardcore serve: {says}\n"), args


def test_backup_says_in_one_line_what_it_cannot_copy(tmp_path: Path) -> None:
    """A file that is not a store, or a backup file that cannot be written, were tracebacks."""
    junk = tmp_path / "junk.db"
    junk.write_text("not a database\n")
    done = cardcore("backup", "--db", str(junk), "--to", str(tmp_path / "b.db"))
    assert (done.returncode, done.stderr) == (
        2,
        f"cardcore backup: {junk} to {tmp_path}/b.db: file is not a database\n",
    )
    assert not (tmp_path / "b.db").exists()  # no half-made backup left to refuse the next try
    store = tmp_path / "s.db"
    asyncio.run(_make_store(store))
    target = tmp_path / "no" / "b.db"
    done = cardcore("backup", "--db", str(store), "--to", str(target))
    assert (done.returncode, done.stderr) == (
        2,
        f"cardcore backup: {store} to {target}: unable to open database file\n",
    )


async def _make_store(path: Path) -> None:
    app = Application(SqliteStore(str(path)))
    await app.start()
    await app.close()


def test_every_serve_option_says_what_it_does_and_its_default() -> None:
    parser = _serve_parser()
    for action in parser._actions:  # argparse has no public list of its options
        if isinstance(action, argparse._HelpAction):
            continue
        name = action.option_strings[0]
        assert action.help, f"{name} has no help"
        if action.default not in (None, False, [], 0, 0.0):
            assert "default" in action.help, f"{name} does not show its default"


def test_demo_and_backup_help_is_plain_text_with_defaults(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``demo --help`` printed its module docstring, reStructuredText and all (``cardcore
    demo``, :func:…), and no option said its default."""
    for command, defaults in (
        ("demo", ("(default 1)", "(default 3000)", "(default: a temporary one)")),
        ("backup", ("default cardcore.db", "--db PATH")),
    ):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "``" not in text and ":func:" not in text, command
        for default in defaults:
            assert default in text, (command, default)
    with pytest.raises(SystemExit) as stopped:
        main(["demo", "--event-limit", "-1"])  # was a traceback from the protobuf message
    assert stopped.value.code == 2
    assert "argument --event-limit: must be 1 to 10000000, got -1" in capsys.readouterr().err


def test_a_game_of_one_seat_count_says_exactly(tmp_path: Path) -> None:
    """The service said "spit takes 2 to 2 seats, got 3"."""

    async def create() -> str:
        app = Application(SqliteStore(str(tmp_path / "s.db")))
        await app.start()
        try:
            await app.create_game(GameSpec("spit", [SeatSpec("human")] * 3))
        except ServiceError as exc:
            return exc.message
        finally:
            await app.close()
        return "created"

    assert "spit takes exactly 2 seats, got 3" in asyncio.run(create())


def test_the_listening_record_says_which_engine_serves(tmp_path: Path) -> None:
    """Operators see which build of the engine a server runs (issue 24): the ``listening`` log
    record names it, as ``cardcore --version`` does. The tree's tests run the pure build."""
    srv = ServerProcess(tmp_path, "--no-rest").start()
    try:
        records = [r for r in srv.log_records() if r.get("event") == "listening"]
    finally:
        srv.stop()
    assert [r["engine"] for r in records] == ["compiled" if cardcore_engine.compiled else "pure"]
