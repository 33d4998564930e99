"""``cardcore verify``: the verdict on a log, a viewer's copy or receipts."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TextIO

from .. import log, signatures, verdicts
from ..engine import parse_viewer
from ..errors import CorruptLog
from .common import read_log


def cmd_verify(args: argparse.Namespace, out: TextIO) -> int:
    """``verify``: :func:`cardcore.verdicts.judge`'s verdict, printed as it words it (the web
    page and the Node verifier run this same command, so they say the same), with its exit
    code; ``--json`` prints it as an object."""
    key = None
    if args.server_key is not None:
        key = signatures.parse_key(_key_text(args.server_key))
    mine, final = args.log, args.final
    if args.receipts is not None:
        if args.log is not None or args.final is not None:
            raise ValueError("verify --receipts MINE FINAL takes no other log (nor --final)")
        mine, final = args.receipts
    if mine is None:
        raise ValueError("verify needs a LOG (or --receipts MINE FINAL)")
    if args.as_ is not None and final is None:
        raise ValueError("--as names whose copy MINE is: it goes with --receipts or --final")
    viewer = None if args.as_ is None else parse_viewer(args.as_)
    read: list[list[log.LogLine]] = []
    for path, what in ((mine, "this file" if final is None else "your copy"), (final, "")):
        if path is None:
            continue
        try:
            read.append(read_log(path))
        except CorruptLog as exc:  # not JSON Lines: nothing a log could be judged on
            what = what or "the final log"
            verdict = verdicts.Verdict(
                verdicts.Status.UNSUPPORTED,
                f"unsupported: {what} ({path}) is not JSON Lines: {exc.reason}",
            )
            return _print_verdict(verdict, args, out)
    verdict = verdicts.judge(
        read[0], final=read[1] if final is not None else None, viewer=viewer, server_key=key
    )
    return _print_verdict(verdict, args, out)


def _print_verdict(verdict: verdicts.Verdict, args: argparse.Namespace, out: TextIO) -> int:
    if getattr(args, "json", False):
        print(json.dumps(verdict.as_json(), ensure_ascii=False), file=out)
    else:
        print(verdict.text, file=out)
    return verdict.exit_code


def _key_text(given: str) -> str:
    """``--server-key``: the key itself, or a file holding it (as ``/v1/server`` prints it)."""
    path = Path(given)
    if len(given) < 200 and path.is_file():
        return path.read_text(encoding="utf-8").strip()
    return given
