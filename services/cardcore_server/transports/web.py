"""The web table: the static frontend served at ``/``, and CORS for browsers on other origins.

The page (``web/``: HTML, JavaScript modules, CSS; no build step) talks to the server only
through the public REST API and its event stream, like any other client. Besides its own
files the server hands it two things it needs to check games without trusting the server:

* ``/web/pyodide/…`` — the Pyodide runtime (CPython compiled to WebAssembly) from the npm
  ``pyodide`` package (:mod:`.pyodide_runtime`: the pin, and how a build or ``make web-vendor``
  fills ``web/vendor/pyodide``), or from ``CARDCORE_PYODIDE_DIR``, or the checkout's
  ``node_modules/pyodide``; without one it answers 404 with what to do, and the page says so;
* ``/web/cardcore.zip`` — the ``cardcore`` package's own sources (stdlib-only), zipped once,
  which the page unpacks into Pyodide to run :func:`cardcore.log.verify` and
  :func:`cardcore.log.check_copy` on its receipts and the final log.

CORS: none by default (a page served here needs none). ``cardcore serve --cors-origin ORIGIN``
(repeatable; ``*`` for any) lets a frontend on another origin call the API: preflights are
answered, and the answers carry ``Access-Control-Allow-Origin`` for that origin. No cookies are
involved (tokens travel in ``Authorization``), so credentials are never allowed.
"""

from __future__ import annotations

import functools
import io
import os
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

from litestar import Response, get
from litestar.enums import ScopeType
from litestar.params import FromPath
from litestar.types import ASGIApp, Message, Receive, Scope, Send

import cardcore

from .. import pyodide_runtime

WEB_DIR: Final = Path(__file__).resolve().parents[1] / "web"
"""The frontend's files (index.html, js/, css, svg)."""
PYODIDE_FILES: Final = tuple(pyodide_runtime.FILES)
"""The runtime files the page loads (``loadPyodide`` fetches exactly these)."""
WEB_PREFIX: Final = "/web"
API_PREFIX: Final = "/v1"

_TYPES: Final = {
    ".html": "text/html",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".css": "text/css",
    ".svg": "image/svg+xml",
    ".json": "application/json",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".txt": "text/plain",
}
CSP: Final = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; "
    "style-src 'self'; img-src 'self' data:; connect-src *; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)
"""The page's Content-Security-Policy: its own scripts only (WebAssembly allowed: Pyodide),
no inline script; ``connect-src *`` so that it can be pointed at an API on another origin."""
_HEADERS: Final = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def pyodide_dir() -> Path | None:
    """Where the Pyodide runtime is: ``$CARDCORE_PYODIDE_DIR``, the copy inside the package,
    or the checkout's ``node_modules/pyodide``; None when none holds it."""
    candidates: list[Path] = []
    if os.environ.get(pyodide_runtime.ENV):
        candidates.append(Path(os.environ[pyodide_runtime.ENV]))
    candidates += [pyodide_runtime.VENDOR, pyodide_runtime.CHECKOUT_NODE_MODULES]
    for path in candidates:
        if (path / "pyodide.asm.wasm").is_file():
            return path
    return None


@functools.cache
def cardcore_zip() -> bytes:
    """The ``cardcore`` package's Python sources as a zip (``cardcore/…``), built once. The
    timestamps are fixed so that the bytes depend on the sources alone."""
    root = Path(cardcore.__file__).resolve().parent
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(root.rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            name = "cardcore/" + path.relative_to(root).as_posix()
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, path.read_bytes())
    return buf.getvalue()


def _file(path: Path, *, cache: str) -> Response[bytes]:
    media = _TYPES.get(path.suffix.lower(), "application/octet-stream")
    headers = {**_HEADERS, "Cache-Control": cache}
    if path.suffix == ".html":
        headers["Content-Security-Policy"] = CSP
    return Response(path.read_bytes(), media_type=media, headers=headers)


RUNTIME_MISSING: Final = (
    "this server has no Pyodide runtime, so the page cannot check games: "
    "run `make web-vendor` in its checkout (or `npm ci`), or set CARDCORE_PYODIDE_DIR"
)


def _not_found(why: str = "not found") -> Response[bytes]:
    body = (why + "\n").encode()
    return Response(body, status_code=404, media_type="text/plain", headers=_HEADERS)


def _inside(base: Path, rel: str) -> Path | None:
    """``base/rel`` if it is a file inside ``base`` (no ``..``, no absolute path), else None."""
    if not rel or "\\" in rel or "\x00" in rel:
        return None
    parts = rel.split("/")
    if any(p in ("", ".", "..") or p.startswith(".") for p in parts):
        return None
    path = base.joinpath(*parts)
    try:
        resolved = path.resolve()
        if not resolved.is_relative_to(base.resolve()) or not resolved.is_file():
            return None
    except OSError:
        return None
    return resolved


@get("/", include_in_schema=False, sync_to_thread=False)
def index() -> Response[bytes]:
    """The web table's page (lobby and tables: the page routes by its URL's fragment)."""
    return _file(WEB_DIR / "index.html", cache="no-cache")


@get(WEB_PREFIX + "/{path:path}", include_in_schema=False, sync_to_thread=False)
def static(path: FromPath[str]) -> Response[bytes]:
    """The page's files, the Pyodide runtime and the zipped cardcore sources."""
    rel = path.lstrip("/")
    if rel == "cardcore.zip":
        return Response(
            cardcore_zip(),
            media_type="application/zip",
            headers={**_HEADERS, "Cache-Control": "no-cache"},
        )
    if rel.startswith("pyodide/"):
        base = pyodide_dir()
        name = rel.removeprefix("pyodide/")
        if name not in PYODIDE_FILES:
            return _not_found()
        if base is None:
            return _not_found(RUNTIME_MISSING)
        return _file(base / name, cache="public, max-age=86400")
    if rel.startswith("vendor/"):
        return _not_found()
    found = _inside(WEB_DIR, rel)
    if found is None:
        return _not_found()
    return _file(found, cache="no-cache")


@get("/favicon.ico", include_in_schema=False, sync_to_thread=False)
def favicon() -> Response[bytes]:
    return _file(WEB_DIR / "favicon.svg", cache="public, max-age=86400")


def route_handlers() -> list[Any]:
    """The web table's routes (none is part of the API's OpenAPI document)."""
    return [index, static, favicon]


# --------------------------------------------------------------------------- CORS

ALLOW_METHODS: Final = "GET, POST, OPTIONS"
ALLOW_HEADERS: Final = "Authorization, Content-Type, Last-Event-ID, X-Cardcore-Admin-Key"
EXPOSE_HEADERS: Final = "Cardcore-Log-Complete, Retry-After, WWW-Authenticate, Content-Type"
MAX_AGE_S: Final = 600


def cors(origins: Iterable[str]) -> Any:
    """A Litestar middleware factory: CORS for the API (``/v1/…``) for exactly ``origins``
    (``*``: any origin). With none it is a pass-through: same-origin pages only."""
    allowed = frozenset(o.rstrip("/") for o in origins)
    any_origin = "*" in allowed

    def factory(app: ASGIApp) -> ASGIApp:
        if not allowed:
            return app

        async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != ScopeType.HTTP or not str(scope.get("path", "")).startswith(
                API_PREFIX
            ):
                await app(scope, receive, send)
                return
            origin = _header(scope, b"origin")
            if origin is None or not (any_origin or origin in allowed):
                await app(scope, receive, send)
                return
            extra = [
                (b"access-control-allow-origin", origin.encode("latin-1")),
                (b"vary", b"Origin"),
            ]
            preflight = (
                scope.get("method") == "OPTIONS"
                and _header(scope, b"access-control-request-method") is not None
            )
            if preflight:
                headers = [
                    *extra,
                    (b"access-control-allow-methods", ALLOW_METHODS.encode()),
                    (b"access-control-allow-headers", ALLOW_HEADERS.encode()),
                    (b"access-control-max-age", str(MAX_AGE_S).encode()),
                    (b"content-length", b"0"),
                ]
                start: Any = {"type": "http.response.start", "status": 204, "headers": headers}
                await send(start)
                body: Any = {"type": "http.response.body", "body": b""}
                await send(body)
                return
            extra.append((b"access-control-expose-headers", EXPOSE_HEADERS.encode()))

            async def send_with_cors(message: Message) -> None:
                if message["type"] == "http.response.start":
                    changed: Any = dict(message)
                    changed["headers"] = [*message.get("headers", []), *extra]
                    message = changed
                await send(message)

            await app(scope, receive, send_with_cors)

        return middleware

    return factory


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None
