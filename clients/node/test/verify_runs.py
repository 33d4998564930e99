"""``python -m cardcore verify ARGS…`` many times in one process, for the Node verifier's tests
(``logs.js``, ``pythonVerify``): they hold Node's verdict to Python's on hundreds of logs, and
starting Python and importing cardcore was most of each run's cost (0.36 of 0.48 s CPU).

One JSON object a line on standard input, ``{"id", "args", "files", "stdin"}`` (the files'
contents and ``stdin`` in base64: bytes); one a line on
standard output, ``{"id", "exit", "stdout", "stderr"}``: what a process of its own would have
answered. Each run gets what such a process gets: a new directory holding ``files`` as its
working directory, ``stdin`` as its standard input, the command line's own entry point
(``cardcore.cli.main``, as ``python -m cardcore`` calls it, ``sys.argv[0]`` the same), its exit
status as ``python -m cardcore`` makes it (``SystemExit``, or 1 with the traceback for an
uncaught exception), and warnings shown as a new process shows them."""

from __future__ import annotations

import base64
import io
import json
import os
import sys
import tempfile
import traceback
import warnings
from pathlib import Path
from typing import Any

import cardcore
from cardcore import cli

MAIN = str(Path(cardcore.__file__).with_name("__main__.py"))


def exit_status(code: object, stderr: io.TextIOWrapper) -> int:
    """The exit status ``raise SystemExit(code)`` gives a process (a message is printed)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=stderr)
    return 1


def run(case: dict[str, Any]) -> dict[str, Any]:
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    given = io.TextIOWrapper(io.BytesIO(base64.b64decode(case["stdin"])), encoding="utf-8")
    kept = sys.stdin, sys.stdout, sys.stderr, sys.argv, os.getcwd()
    with tempfile.TemporaryDirectory(prefix="cardcore-py-") as folder:
        for name, text in case["files"].items():
            Path(folder, name).write_bytes(base64.b64decode(text))
        os.chdir(folder)
        sys.stdin, sys.stdout, sys.stderr = given, out, err
        sys.argv = [MAIN, "verify", *case["args"]]
        try:
            with warnings.catch_warnings():  # each run shows its warnings afresh
                status = exit_status(cli.main(["verify", *case["args"]]), err)
        except SystemExit as stop:
            status = exit_status(stop.code, err)
        except Exception:  # what the interpreter prints for an uncaught exception
            traceback.print_exc()
            status = 1
        finally:
            sys.stdin, sys.stdout, sys.stderr, sys.argv, cwd = kept
            os.chdir(cwd)
    texts = [stream.buffer.getvalue().decode() for stream in (out, err)]
    return {"id": case["id"], "exit": status, "stdout": texts[0], "stderr": texts[1]}


def main() -> None:
    for line in sys.stdin:
        sys.stdout.write(json.dumps(run(json.loads(line))) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
