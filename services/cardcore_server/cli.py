"""``cardcore serve`` and ``cardcore demo`` (called by :func:`cardcore.cli.main`).

``main(argv)`` takes ``argv[0]`` = ``"serve"`` or ``"demo"`` followed by that command's arguments.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sqlite3
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit, urlunsplit

from cardcore.cli import attach_values, os_error_text, whole_number

from . import logs
from .app import MAX_DELAY_MS, MAX_TIMER_MS
from .config import ServiceConfig
from .demo import demo_main
from .limits import parse_network
from .sealing import read_key
from .transports.connections import ConnectionLimits
from .transports.server import ServerOptions, serve

_LIMITS: Final = ConnectionLimits()
PORT: Final = whole_number(0, 65535)


def real_number(low: float, *, above: bool = False) -> Callable[[str], float]:
    """An argparse ``type``: a finite number, ``low`` or more (more than ``low`` if ``above``);
    else a usage error naming the option, not a server that starts and misbehaves."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r:.40}") from None
        if not math.isfinite(value) or value < low or (above and value == low):
            raise argparse.ArgumentTypeError(
                f"must be {'more than' if above else 'at least'} {low:g}, got {text:.40}"
            )
        return value

    return parse


class ListOption(argparse.Action):
    """A list option, repeatable (and taking several values each, with ``nargs``): the values
    given on the command line replace a list from the environment, as every other flag does,
    where argparse's ``append`` would add them to it (``--trusted-proxy`` given on the command
    line must be the whole list of proxies trusted, not more)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        given: set[str] = namespace.__dict__.setdefault("_lists_given", set())
        items = list(getattr(namespace, self.dest) or []) if self.dest in given else []
        given.add(self.dest)
        items.extend(values if isinstance(values, list) else [values])
        setattr(namespace, self.dest, items)


def _network(text: str) -> str:
    """An argparse ``type``: an address or network (:func:`.limits.parse_network`)."""
    try:
        return parse_network(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _serve_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cardcore serve", description="Run the cardcore gRPC and REST server."
    )
    # in the order --help lists them
    _where_options(p)
    _policy_options(p)
    _secret_options(p)
    _limit_options(p)
    p.epilog = (
        "Every flag may also be given in the environment as CARDCORE_<FLAG> (--rest-port as "
        "CARDCORE_REST_PORT; a switch as 1/0; --cors-origin and --trusted-proxy as "
        "comma-separated lists), or read from a file as CARDCORE_<FLAG>_FILE (e.g. "
        "CARDCORE_DB_FILE holding a postgresql:// URL with its password, so it is never on a "
        "command line). A flag on the command line wins over the environment."
    )
    return p


def _where_options(p: argparse.ArgumentParser) -> None:
    """Where the server listens, and its store."""
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind; beyond loopback needs --admin-key (default %(default)s)",
    )
    p.add_argument(
        "--port",
        type=PORT,
        default=50051,
        help="gRPC port (0 = any free port; default %(default)s)",
    )
    p.add_argument(
        "--rest-port",
        type=PORT,
        default=None,
        metavar="PORT",
        help="REST API port (default: the gRPC port + 1, i.e. 50052; any free port when --port "
        "is 0; 0 = any free port); OpenAPI at /v1/openapi.json",
    )
    p.add_argument("--no-rest", action="store_true", help="serve gRPC only (default: REST too)")
    p.add_argument(
        "--db",
        default="cardcore.db",
        metavar="PATH|URL",
        help="the event store: a SQLite file (PATH or sqlite:PATH; default cardcore.db), or "
        "postgresql://USER:PASSWORD@HOST:PORT/DB to let several servers serve the same games "
        "(needs pip install 'cardcore-server[postgres]')",
    )


def _policy_options(p: argparse.ArgumentParser) -> None:
    """Who may do what, the clocks, and how long games are kept."""
    p.add_argument(
        "--admin-key",
        default=None,
        metavar="KEY",
        help="key needed to create games and to abort any game (required beyond loopback; "
        "default: none, anyone on loopback may)",
    )
    p.add_argument(
        "--allow-client-seed",
        action="store_true",
        help="accept client-chosen seeds (tests, tournaments); never for real games",
    )
    p.add_argument(
        "--grace",
        type=real_number(0),
        default=5.0,
        metavar="S",
        help="seconds in-flight calls get to finish on stop (default %(default)s)",
    )
    p.add_argument(
        "--collect-window-ms",
        type=whole_number(0, MAX_DELAY_MS),
        default=2000,
        metavar="MS",
        help="an idle seat owed the pile collects it after this long (Egyptian Ratscrew's "
        "collect window; 0 = off; default %(default)s)",
    )
    p.add_argument(
        "--start-deadline-ms",
        type=whole_number(1, MAX_TIMER_MS, f"1 to {MAX_TIMER_MS} ms (a week)"),
        default=15 * 60_000,
        metavar="MS",
        help="how long a table with open seats waits for players before it is cancelled "
        "(default 15 minutes; a table may ask for its own)",
    )
    p.add_argument(
        "--reveal-deadline-ms",
        type=whole_number(1, MAX_TIMER_MS, f"1 to {MAX_TIMER_MS} ms (a week)"),
        default=30_000,
        metavar="MS",
        help="how long seats that committed to entropy have to reveal it once their table's "
        "start is final, before the table is cancelled (default 30 s; docs/rng.md)",
    )
    p.add_argument(
        "--retain-days",
        type=real_number(0, above=True),
        default=None,
        metavar="DAYS",
        help="archive and remove finished games (and cancelled tables) older than this many "
        "days; unfinished games idle that long are aborted first (default: keep everything)",
    )
    p.add_argument(
        "--archive",
        default=None,
        metavar="DIR",
        help="with --retain-days: write each removed game's final log to DIR/<game_id>.jsonl "
        "(default: removed games are not kept)",
    )


def _secret_options(p: argparse.ArgumentParser) -> None:
    """Keys: the logs' signing key, the seal of secrets at rest, TLS; and browser origins."""
    p.add_argument(
        "--server-key",
        default=None,
        metavar="PEM",
        help="an Ed25519 private key (PEM) to sign logs with; by default the server makes one "
        "on first start and keeps it with its store",
    )
    p.add_argument(
        "--secrets-key",
        default=None,
        metavar="KEY",
        help="seal the seeds and salts of games at rest with this AES-256 key (64 hex digits or "
        "base64 of 32 bytes, or a file holding it; better CARDCORE_SECRETS_KEY_FILE): a copy of "
        "the database alone then does not reveal a game still in play (default: not sealed)",
    )
    p.add_argument(
        "--tls-cert",
        default=None,
        metavar="PEM",
        help="serve gRPC and REST over TLS with this certificate chain (with --tls-key; "
        "default: plain TCP)",
    )
    p.add_argument(
        "--tls-key",
        default=None,
        metavar="PEM",
        help="the private key of --tls-cert",
    )
    p.add_argument(
        "--cors-origin",
        action=ListOption,
        default=[],
        metavar="ORIGIN",
        help="let a web frontend on ORIGIN (e.g. https://cards.example) call the REST API from "
        "a browser (repeatable; * = any origin; default: none, same-origin pages only)",
    )


def _limit_options(p: argparse.ArgumentParser) -> None:
    """What a client may cost the server; what the server writes."""
    p.add_argument(
        "--rate-limit",
        type=real_number(0),
        default=0.0,
        metavar="PER_S",
        help="requests per second per bearer token (a token bucket, bursts of twice that); "
        "over it: RESOURCE_EXHAUSTED / 429 with Retry-After (default 0: off)",
    )
    p.add_argument(
        "--rate-limit-address",
        type=real_number(0),
        default=0.0,
        metavar="PER_S",
        help="requests per second per client address, likewise (default 0: off)",
    )
    p.add_argument(
        "--trusted-proxy",
        action=ListOption,
        nargs="+",
        type=_network,
        default=[],
        metavar="CIDR",
        help="believe X-Forwarded-For (the client's address, for --rate-limit-address) only from "
        "these proxies' addresses or networks (e.g. 10.0.0.0/8; repeatable; default: none, "
        "the header is ignored)",
    )
    p.add_argument(
        "--max-connections",
        type=whole_number(1),
        default=_LIMITS.max_connections,
        metavar="N",
        help="open client connections per listener (gRPC, REST); at the cap REST closes the "
        "longest-idle connection to make room (default %(default)s; lowered to what ulimit -n "
        "allows)",
    )
    p.add_argument(
        "--header-timeout",
        type=real_number(0, above=True),
        default=_LIMITS.header_timeout_s,
        metavar="S",
        help="seconds a connection has to send its request's headers (REST) or finish its "
        "handshake (gRPC) (default %(default)s)",
    )
    p.add_argument(
        "--body-timeout",
        type=real_number(0, above=True),
        default=_LIMITS.body_timeout_s,
        metavar="S",
        help="seconds a REST request has to send its body after its headers (default %(default)s)",
    )
    p.add_argument(
        "--log-level",
        default="info",
        choices=["debug", "info", "warning", "error"],
        help="the least severe log record written, as JSON lines on stderr (default %(default)s)",
    )
    p.add_argument(
        "--print-config",
        action="store_true",
        help="print the effective configuration (flags over CARDCORE_* variables over defaults; "
        "secrets masked) and exit",
    )


SECRET_FLAGS: Final = frozenset({"admin_key", "db", "secrets_key"})
"""Options whose values are masked by --print-config (a database URL: its password only)."""
_TRUE: Final = frozenset({"1", "true", "yes", "on"})
_FALSE: Final = frozenset({"0", "false", "no", "off", ""})


def apply_environment(parser: argparse.ArgumentParser, environ: Mapping[str, str]) -> None:
    """Make ``CARDCORE_<DEST>`` (or ``CARDCORE_<DEST>_FILE``, a file holding the value) the
    default of every option of ``parser``; raises ``ValueError`` naming the variable."""
    for action in parser._actions:  # argparse has no public list of its options
        if not action.option_strings or action.dest in ("help", "print_config"):
            continue
        name = "CARDCORE_" + action.dest.upper()
        raw = environ.get(name)
        if raw is None and (path := environ.get(name + "_FILE")) is not None:
            try:
                raw = Path(path).read_text(encoding="utf-8").strip()
            except OSError as exc:
                raise ValueError(f"{name}_FILE: cannot read {path}: {exc.strerror}") from None
            name += "_FILE"
        if raw is None:
            continue
        try:
            value = _env_value(action, raw)
        except (TypeError, ValueError, argparse.ArgumentTypeError) as exc:
            raise ValueError(f"{name}: {raw[:40]!r} is not a valid value ({exc})") from None
        parser.set_defaults(**{action.dest: value})


def _env_value(action: argparse.Action, raw: str) -> Any:
    """An option's value from its variable's text, checked as the command line checks it."""
    if isinstance(action, argparse._StoreTrueAction):
        if raw.lower() not in _TRUE | _FALSE:
            raise ValueError("1 or 0 (true or false)")
        return raw.lower() in _TRUE
    if isinstance(action, ListOption):
        values = [v.strip() for v in raw.split(",") if v.strip()]
        return [action.type(v) for v in values] if callable(action.type) else values
    value = action.type(raw) if callable(action.type) else raw
    if action.choices is not None and value not in action.choices:
        raise ValueError(f"one of {', '.join(map(str, action.choices))}")
    return value


def effective_config(ns: argparse.Namespace) -> dict[str, Any]:
    """The options as the server will use them, secrets masked."""
    out: dict[str, Any] = {}
    for key, value in sorted(vars(ns).items()):
        if key == "print_config" or key.startswith("_"):
            continue
        if key in SECRET_FLAGS and value:
            value = _mask_url(str(value)) if key == "db" else "********"
        out[key] = value
    return out


def _mask_url(url: str) -> str:
    """A database URL with its password replaced (a SQLite path is shown as is)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":********@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def serve_main(args: list[str]) -> int:
    parser = _serve_parser()
    try:
        apply_environment(parser, os.environ)
    except ValueError as exc:
        print(f"cardcore serve: {exc}", file=sys.stderr)
        return 2
    # keys may begin with "-" (base64url, or whatever an operator chose)
    ns = parser.parse_args(attach_values(args, frozenset({"--admin-key", "--secrets-key"})))
    if ns.print_config:
        print(json.dumps(effective_config(ns), indent=2, sort_keys=True))
        return 0
    logs.configure(level=ns.log_level)
    try:
        options = _server_options(ns)
    except _Refused as exc:
        print(f"cardcore serve: {exc}", file=sys.stderr)
        return 2
    try:
        return asyncio.run(serve(options))
    except OSError as exc:  # a port in use (server.port_unavailable), a TLS file, PostgreSQL
        print(f"cardcore serve: {os_error_text(exc)}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"cardcore serve: {exc}", file=sys.stderr)
        return 2
    except sqlite3.Error as exc:  # a SQLite store that cannot be opened or is not one
        print(f"cardcore serve: the store {ns.db}: {exc}", file=sys.stderr)
        return 2


class _Refused(Exception):
    """Options that do not make a server (the text says why): exit 2."""


def _server_options(ns: argparse.Namespace) -> ServerOptions:
    try:
        secrets_key = read_key(ns.secrets_key) if ns.secrets_key else None
    except (ValueError, OSError) as exc:
        raise _Refused(str(exc)) from None
    config = ServiceConfig(
        allow_client_seed=ns.allow_client_seed,
        admin_key=ns.admin_key or None,
        default_timeouts_ms={"Collect": ns.collect_window_ms} if ns.collect_window_ms else {},
        start_deadline_ms=ns.start_deadline_ms,
        reveal_deadline_ms=ns.reveal_deadline_ms,
        retain_days=ns.retain_days,
        archive_dir=ns.archive,
        server_key_path=ns.server_key or None,
        secrets_key=secrets_key,
        rate_per_token=ns.rate_limit,
        rate_per_address=ns.rate_limit_address,
        cors_origins=tuple(ns.cors_origin),
        trusted_proxies=tuple(dict.fromkeys(ns.trusted_proxy)),
    )
    if ns.archive is not None and ns.retain_days is None:
        raise _Refused("--archive needs --retain-days")
    rest_port = _rest_port(ns)
    try:
        limits = ConnectionLimits(ns.max_connections, ns.header_timeout, ns.body_timeout)
    except ValueError as exc:
        raise _Refused(str(exc)) from None
    return ServerOptions(
        limits=limits,
        host=ns.host,
        port=ns.port,
        db=ns.db,
        grace_s=ns.grace,
        config=config,
        rest_port=rest_port,
        tls_cert=ns.tls_cert or None,
        tls_key=ns.tls_key or None,
    )


def _rest_port(ns: argparse.Namespace) -> int | None:
    """``--rest-port``, or by default the gRPC port + 1 (any free port when ``--port`` is 0);
    None with ``--no-rest``."""
    if ns.no_rest:
        return None
    if ns.rest_port is not None:
        return int(ns.rest_port)
    rest_port = ns.port + 1 if ns.port else 0
    if rest_port > 65535:
        raise _Refused(
            f"REST's default port is --port + 1, and {ns.port} has none after it: give "
            "--rest-port, or --no-rest"
        )
    return int(rest_port)


def backup_main(args: list[str]) -> int:
    """``cardcore backup --db PATH --to FILE``: a consistent copy of a SQLite store, taken
    while a server runs on it (SQLite's online backup: the copy is one snapshot, and the server
    is never stopped). Restore by starting a server on the copy. PostgreSQL: use ``pg_dump``
    (docs/operations.md)."""
    p = argparse.ArgumentParser(
        prog="cardcore backup", description="Back up the embedded SQLite store while it serves."
    )
    p.add_argument(
        "--db",
        default="cardcore.db",
        metavar="PATH",
        help="the store (a SQLite file; default %(default)s)",
    )
    p.add_argument("--to", required=True, metavar="FILE", help="the backup file (must not exist)")
    ns = p.parse_args(args)
    db = str(ns.db).removeprefix("sqlite:")
    if db.startswith(("postgresql://", "postgres://")):
        print("cardcore backup: a PostgreSQL store is backed up with pg_dump", file=sys.stderr)
        return 2
    if not os.path.isfile(db):
        print(f"cardcore backup: no store at {db}", file=sys.stderr)
        return 2
    if os.path.exists(ns.to):
        print(f"cardcore backup: {ns.to} exists (a backup never overwrites)", file=sys.stderr)
        return 2
    try:
        check, games = _backup(db, ns.to)
    except sqlite3.Error as exc:  # not a store, or a target that cannot be written
        if os.path.isfile(ns.to):  # ours (it did not exist): a partial copy is no backup
            os.unlink(ns.to)
        print(f"cardcore backup: {db} to {ns.to}: {exc}", file=sys.stderr)
        return 2
    if check is None or check[0] != "ok":
        print(f"cardcore backup: the copy fails its integrity check: {check}", file=sys.stderr)
        return 1
    print(f"backed up {db} to {ns.to}: {games[0]} games")
    return 0


def _backup(db: str, to: str) -> tuple[Any, Any]:
    """SQLite's online backup of ``db`` into ``to``: its integrity check and its games' count."""
    source = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        target = sqlite3.connect(to)
    except sqlite3.Error:
        source.close()
        raise
    try:
        source.backup(target)  # one read transaction: a consistent snapshot of every table
        target.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
        target.commit()
        check = target.execute("PRAGMA integrity_check").fetchone()
        games = target.execute("SELECT count(*) FROM games").fetchone()
    finally:
        target.close()
        source.close()
    return check, games


def main(argv: list[str]) -> int:
    """Entry point: ``argv[0]`` is ``serve``, ``demo`` or ``backup``."""
    if not argv or argv[0] not in ("serve", "demo", "backup"):
        print("usage: cardcore {serve,demo,backup} ...", file=sys.stderr)
        return 2
    if argv[0] == "serve":
        return serve_main(argv[1:])
    if argv[0] == "backup":
        return backup_main(argv[1:])
    return demo_main(argv[1:])
