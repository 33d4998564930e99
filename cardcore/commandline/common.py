"""What the commands share: their exit codes, reading a log file (or standard input), and an
:class:`OSError` in the words other command-line tools use."""

from __future__ import annotations

import sys
from pathlib import Path

from .. import log

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2
EXIT_UNREVEALED = 3
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports `tool | head` for a C tool


def read_log(path: str) -> list[log.LogLine]:
    """The lines of the log at ``path`` (``-``: standard input)."""
    data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    return log.loads(data)


def os_error_text(exc: OSError) -> str:
    """``/x.jsonl: No such file or directory``, not ``[Errno 2] No such file or directory:
    '/x.jsonl'``: the file first, as other command-line tools say it."""
    if exc.strerror is None:
        return str(exc)
    if exc.filename is None:
        return exc.strerror
    return f"{exc.filename}: {exc.strerror}"
