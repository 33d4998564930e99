"""The PostgreSQL the tests use: ``CARDCORE_TEST_PG`` (default: the role and database that
``.ci/run`` creates). Unreachable → the test skips with the reason, except under ``CI``, where it
fails: CI must never pass by skipping the PostgreSQL backend."""

from __future__ import annotations

import fcntl
import functools
import hashlib
import os
import secrets
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import pytest

DEFAULT_URL = "postgresql://cardcore:cardcore@127.0.0.1:5432/cardcore_test"
PG_URL = os.environ.get("CARDCORE_TEST_PG", DEFAULT_URL)


def _shown(url: str) -> str:
    """The URL without its password (for messages)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urlunsplit(parts._replace(netloc=netloc))


@functools.cache
def _unreachable_reason() -> str | None:
    try:
        import psycopg
    except ImportError:
        return "psycopg is not installed (make setup installs it)"
    try:
        with psycopg.connect(PG_URL, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        return str(exc).strip().splitlines()[0]
    return None


def require_postgres() -> str:
    """``PG_URL`` when a server answers there; otherwise skip (fail when ``CI`` is set)."""
    reason = _unreachable_reason()
    if reason is None:
        return PG_URL
    message = (
        f"PostgreSQL is not reachable at {_shown(PG_URL)} ({reason}); start one and set "
        "CARDCORE_TEST_PG=postgresql://USER:PASSWORD@HOST:PORT/DB (see .ci/run)"
    )
    if os.environ.get("CI"):
        pytest.fail(f"{message} — CI is set, so this fails instead of skipping", pytrace=False)
    pytest.skip(message)


def with_search_path(url: str, schema: str) -> str:
    """``url`` with ``options=-csearch_path=<schema>`` (every table of the store lands there)."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query) if k != "options"]
    query.append(("options", f"-csearch_path={schema}"))
    return urlunsplit(parts._replace(query=urlencode(query)))


@contextmanager
def one_test_at_a_time() -> Iterator[None]:
    """Hold this machine's lock on ``PG_URL`` (``flock``: released if the process dies).

    Each test has a schema of its own, but NOTIFY, which carries the stores' change hints, and
    the schema upgrade's advisory lock are per database, and the scale-out tests restart the
    cluster. The tests on PostgreSQL therefore run one at a time, whichever xdist worker (or
    other suite on this machine) runs them. ``--dist loadgroup`` was meant to do this, but under
    pytest 9.2 xdist 3.8 can no longer rename the items it groups, so groups are ignored."""
    digest = hashlib.sha256(PG_URL.encode()).hexdigest()[:16]
    path = Path(tempfile.gettempdir()) / f"cardcore-tests-pg-{digest}.lock"
    with open(path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@contextmanager
def scratch_schema() -> Iterator[str]:
    """A URL whose tables live in a schema of their own, dropped afterwards (tests in parallel
    or after a crashed run never see each other's games)."""
    import psycopg

    url = require_postgres()
    schema = f"cardcore_t_{secrets.token_hex(6)}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield with_search_path(url, schema)
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")
