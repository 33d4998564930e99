"""Bots as separate programs, and the ladder that plays them (issue 27).

:mod:`.protocol` is bot protocol v1, JSON lines over a bot's stdin and stdout
(docs/bots.md#the-protocol); :mod:`.process` runs a bot program (:class:`ProcessBot`) and makes
a bot from a spec (:func:`load_bot`: ``cmd:…``, ``module:Class``). The games they play are
refereed by :func:`cardcore.referee.play_refereed`, which owns reaction time.

Unlike the rest of the engine this package runs processes and reads a clock (to enforce
deadlines only), as :mod:`cardcore.commandline` does; the command line sits above it.
"""

from __future__ import annotations

from .process import ProcessBot, close_bots, load_bot
from .protocol import DEFAULT_BANK_MS, DEFAULT_DEADLINE_MS, DEFAULT_READY_MS, PROTOCOL

__all__ = [
    "DEFAULT_BANK_MS",
    "DEFAULT_DEADLINE_MS",
    "DEFAULT_READY_MS",
    "PROTOCOL",
    "ProcessBot",
    "close_bots",
    "load_bot",
]
