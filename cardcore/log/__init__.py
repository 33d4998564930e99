"""The game log: canonical JSON Lines with a seed commitment and a keyed hash chain.

A log is a list of JSON objects, one per line (see ``docs/log-format.md``):

``header``
    ``format``, ``game``, ``rules_version``, ``cardcore``, ``rng``, ``setup`` (seats, rules, event
    limit — no seed), ``setup_hash``, ``commitment = sha256(seed as 8 bytes big-endian ‖ salt)``
    and ``game_id`` (or null); a game started from a position (:meth:`Match.from_position`)
    also has ``position``, the referee's notation of it (docs/notation.md); a viewer's copy also
    has ``copy`` (whose it is). Its ``hash`` is the plain sha256 of its other fields, ``copy``
    left out (:func:`header_hash`).
``entry`` (one per accepted action; ``seq`` 0 is the deal, with seat null; from a position its
    events are empty)
    ``seq``, ``at_ms``, ``seat``, ``action``, ``events``, ``prev`` (the previous line's hash) and
    ``hash = HMAC-SHA256(salt, canonical(entry without hash))``. The key is the secret salt, so a
    player who sees an entry's hash but not its hidden cards cannot test guesses against it.
``end`` (once the game is over)
    ``seq``, ``outcome``, the revealed ``seed`` and ``salt``, ``prev`` and a plain sha256 ``hash``.

:func:`verify` re-decides every action and checks every hash and the commitment, naming the first
bad entry; :func:`replay` yields the state after each entry; :func:`redact_log` is what a viewer may
download: before the end, a *copy* — hidden cards removed, hashes kept, the header marked with
``copy`` — which :func:`verify` checks as far as it can; after the end the seed is public, so the
whole log is, and :func:`check_copy` holds a copy (or the receipts a client kept) against it.

The package, one job per module (each name below is importable from ``cardcore.log`` itself):
:mod:`~cardcore.log.format` writes and hashes the lines (the only producer of their bytes),
:mod:`~cardcore.log.writer` records a game as it is played, :mod:`~cardcore.log.header` reads
what a header says, :mod:`~cardcore.log.replay_log` replays, :mod:`~cardcore.log.verify_log` and
:mod:`~cardcore.log.verify_copy` verify along the one chain walk of :mod:`~cardcore.log.chain`
(re-deciding with :mod:`~cardcore.log.redecide`), :mod:`~cardcore.log.viewers` and
:mod:`~cardcore.log.copies` make and check viewers' copies and receipts.
"""

from __future__ import annotations

from .. import codec  # noqa: F401 - tests/forgeries.py reaches the codec as log.codec
from ..engine import MAX_ABORT_BY, check_abort_by  # the abort's rule is the sequencer's
from . import chain as _chain
from . import format as _format
from . import viewers as _viewers
from .chain import Report, terminated
from .copies import CopyReport, check_copy, redact_log
from .format import (
    ABORT_KIND,
    COPY_KEY,
    DEAL_ACTION,
    FORMAT,
    FORMAT_2,
    FORMATS,
    RECEIPTS_TYPE,
    SALT_BYTES,
    LogLine,
    abort_action,
    abort_by,
    commitment,
    decode_outcome,
    dumps,
    encode_outcome,
    header_hash,
    loads,
)
from .header import committed_seats, contributions, deal_seed, revealed
from .replay_log import ReplayStep, replay
from .verify_log import verify
from .viewers import POSITION_HIDDEN, copy_of, viewer_text, whose
from .writer import LogWriter

# What tests reach for to forge a line or to word a count (tests/forgeries.py,
# tests/unit/test_log*.py, test_copies.py), under the names they had in the single module.
_count = _chain.count
_hmac_pads = _format.hmac_pads
_keyed_hash = _format.keyed_hash
_plain_hash = _format.plain_hash
_shows_hidden = _viewers.shows_hidden

# In the order the API reference (docs/api/log.md) presents them: the format, then writing,
# reading, verifying and viewers' copies.
__all__ = [  # noqa: RUF022
    "FORMAT",
    "FORMAT_2",
    "FORMATS",
    "SALT_BYTES",
    "DEAL_ACTION",
    "ABORT_KIND",
    "MAX_ABORT_BY",
    "COPY_KEY",
    "RECEIPTS_TYPE",
    "POSITION_HIDDEN",
    "LogLine",
    "LogWriter",
    "ReplayStep",
    "Report",
    "CopyReport",
    "abort_action",
    "check_abort_by",
    "abort_by",
    "commitment",
    "encode_outcome",
    "decode_outcome",
    "dumps",
    "loads",
    "header_hash",
    "viewer_text",
    "whose",
    "copy_of",
    "contributions",
    "committed_seats",
    "revealed",
    "deal_seed",
    "replay",
    "verify",
    "redact_log",
    "check_copy",
    "terminated",
]
