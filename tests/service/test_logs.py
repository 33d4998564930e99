"""The server's log is JSON lines only, whoever writes to it: what asyncio, uvicorn or gRPC
report through :mod:`logging` (a descriptor limit reached in ``accept``, say) arrives as one of our
lines, scrubbed like the rest, not as a bare traceback between them."""

from __future__ import annotations

import io
import json
import logging

import structlog

from cardcore_server import logs


def test_library_reports_are_json_lines_scrubbed_like_ours() -> None:
    stream = io.StringIO()
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    try:
        logs.configure(stream)
        logs.configure(stream)  # configured twice (tests, restarts): still one line per record
        try:
            raise OSError(24, "Too many open files")
        except OSError:
            logging.getLogger("asyncio").error(
                "socket.accept() out of system resource", exc_info=True
            )
        logging.getLogger("uvicorn.error").info("Started server process")  # below WARNING
        logging.getLogger("grpc").warning("bad token cct_abcdef123 seen")
        lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    finally:
        for handler in list(root.handlers):
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(level)
        structlog.reset_defaults()
    assert [(r["level"], r["logger"]) for r in lines] == [("error", "asyncio"), ("warning", "grpc")]
    accept, grpc_line = lines
    assert accept["event"] == "socket.accept() out of system resource"
    assert "Too many open files" in json.dumps(accept["exception"])
    assert "cct_abcdef123" not in grpc_line["event"] and "cct_***" in grpc_line["event"]
