"""The ``cardcore`` command: games, simulate, fairness, verify, replay (stdlib only), ladder
(with the extra ``cardcore[ladder]``), serve and demo.

This module is the entry point (``cardcore = "cardcore.cli:main"``, ``python -m cardcore.cli``):
it reads the command line (:mod:`cardcore.commandline.parser`), runs the command's module of
:mod:`cardcore.commandline` and turns its errors into exit codes. With that package, it is the
one part of cardcore that touches files, the terminal and a clock (only to report steps per
second; no time ever reaches a game or a log). ``serve`` and ``demo`` hand over to the service's
distribution (``cardcore-server``, from ``services/``), found by its entry points.

Every name the command line had here is still here (the service's command line uses
:func:`whole_number`, :func:`attach_values` and :func:`os_error_text`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from importlib.metadata import entry_points
from typing import Final, TextIO

from .commandline.common import (
    EXIT_BROKEN_PIPE,
    EXIT_INTERRUPTED,
    EXIT_INVALID,
    EXIT_OK,
    EXIT_UNREVEALED,
    EXIT_USAGE,
    os_error_text,
)
from .commandline.fairness import cmd_fairness
from .commandline.games import cmd_games
from .commandline.ladder import cmd_ladder
from .commandline.parser import (
    DASHED_VALUES,
    SEED,
    SERVICE_COMMANDS,
    SERVICE_HELP,
    attach_values,
    build_parser,
    whole_number,
)
from .commandline.replay import cmd_replay
from .commandline.simulate import Progress, cmd_simulate, game_seed, parse_rule_args
from .commandline.verify import cmd_verify
from .errors import CardcoreError, CorruptLog

COMMANDS_GROUP: Final = "cardcore.commands"
"""The entry-point group in which the service's distribution declares its commands."""

__all__ = [
    "COMMANDS_GROUP",
    "DASHED_VALUES",
    "EXIT_BROKEN_PIPE",
    "EXIT_INTERRUPTED",
    "EXIT_INVALID",
    "EXIT_OK",
    "EXIT_UNREVEALED",
    "EXIT_USAGE",
    "SEED",
    "SERVICE_COMMANDS",
    "SERVICE_HELP",
    "Progress",
    "attach_values",
    "build_parser",
    "cmd_games",
    "cmd_replay",
    "cmd_simulate",
    "cmd_verify",
    "game_seed",
    "main",
    "os_error_text",
    "parse_rule_args",
    "whole_number",
]


def _service_command(argv: list[str]) -> int:
    """``serve``, ``demo``, ``backup``: the service's own commands, found by the entry points
    its distribution (``cardcore-server``) declares in the ``cardcore.commands`` group — the
    engine never imports the service by name."""
    found = [ep for ep in entry_points(group=COMMANDS_GROUP) if ep.name == argv[0]]
    if not found:
        print(
            f"cardcore {argv[0]} is a command of the service, which is not installed: from a "
            "clone of cardcore, pip install . ./clients/python ./services",
            file=sys.stderr,
        )
        return EXIT_USAGE
    return int(found[0].load()(argv))


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in SERVICE_COMMANDS:
        return _service_command(argv)
    args = build_parser().parse_args(attach_values(argv, DASHED_VALUES))
    handlers = {
        "games": cmd_games,
        "simulate": cmd_simulate,
        "fairness": cmd_fairness,
        "verify": cmd_verify,
        "replay": cmd_replay,
        "ladder": cmd_ladder,
    }
    try:
        return handlers[args.command](args, out)
    except CorruptLog as exc:
        print(f"cardcore: invalid log: {exc}", file=sys.stderr)
        return EXIT_INVALID
    except BrokenPipeError:  # the reader left (| head): no message, as a tool killed by SIGPIPE
        if out is sys.stdout:
            _quiet_stdout()
        return EXIT_BROKEN_PIPE
    except OSError as exc:
        print(f"cardcore: {os_error_text(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except (CardcoreError, ValueError) as exc:
        print(f"cardcore: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("cardcore: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's own flush at exit does not fail on
    the closed pipe a second time (and print "Exception ignored")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real stdout (a test's): nothing to flush
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
