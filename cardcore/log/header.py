"""What a log's header says, checked: the game it is of, that game's setup and the state it starts
from, and the seeds it commits to. Read by :func:`~cardcore.log.replay`,
:func:`~cardcore.log.verify`, the viewers' copies and :meth:`cardcore.match.Match.loads`; each
raises :class:`~cardcore.errors.CorruptLog` for a header that does not say it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import rng
from ..engine import Game, Setup, with_setup
from ..errors import CardcoreError, CorruptLog
from ..races import RacePolicy
from ..registry import get_game
from .format import FORMAT, FORMAT_3, FORMATS, SALT_BYTES, LogLine, commitment


def checked_header(lines: Sequence[LogLine]) -> LogLine:
    """The first line, when it is a header of a format this cardcore reads."""
    if not lines or not isinstance(lines[0], dict) or lines[0].get("type") != "header":
        raise CorruptLog(None, "the first line is not a header")
    header = lines[0]
    if header.get("format") not in FORMATS or isinstance(header.get("format"), bool):
        raise CorruptLog(None, f"unsupported log format {header.get('format')!r}")
    contributions(header)  # format 2's fields are well-formed (format 1 has none)
    return header


def game_of(
    header: LogLine, game: Game[Any, Any, Any, Any, Any] | None = None
) -> Game[Any, Any, Any, Any, Any]:
    """The header's game: from the registry, or ``game`` (one that is not registered, e.g. a
    game of your own) when its name is the header's."""
    if game is not None:
        if header.get("game") != game.info.name:
            raise CorruptLog(None, f"a log of {header.get('game')!r}, not of {game.name!r}")
    else:
        try:
            game = get_game(str(header.get("game")))
        except CardcoreError as exc:
            raise CorruptLog(None, str(exc)) from None
    version = header.get("rules_version")
    if version != game.info.rules_version and version not in game.info.replays_versions:
        raise CorruptLog(
            None,
            f"recorded under {game.name} rules_version {header.get('rules_version')!r}; "
            f"this cardcore plays {game.info.rules_version!r}",
        )
    return game


def contributions(header: LogLine) -> tuple[tuple[int, bytes], ...] | None:
    """The seats' entropy a format-2 header records, in seat order (None for format 1);
    raises :class:`CorruptLog` when they are malformed."""
    if header.get("format") == FORMAT:
        if "contributions" in header or "seed_derivation" in header:
            raise CorruptLog(None, "a format-1 header has no contributions")
        return None
    if header.get("format") == FORMAT_3 and not {"contributions", "seed_derivation"} & set(header):
        return None  # format 3 with format 1's header
    if header.get("seed_derivation") != rng.DERIVATION:
        raise CorruptLog(None, f"unknown seed_derivation {header.get('seed_derivation')!r}")
    raw = header.get("contributions")
    if not isinstance(raw, list):
        raise CorruptLog(None, "a format-2 header lists its contributions")
    out: list[tuple[int, bytes]] = []
    for i, c in enumerate(raw):
        seat = c.get("seat") if isinstance(c, dict) else None
        entropy = c.get("entropy") if isinstance(c, dict) else None
        if (
            not isinstance(c, dict)
            or not {"seat", "entropy"} <= set(c) <= {"seat", "entropy", "commitment"}
            or not isinstance(seat, int)
            or isinstance(seat, bool)
            or not 0 <= seat < 2**32
            or (out and seat <= out[-1][0])
            or not _hex_digits(entropy, 2 * rng.ENTROPY_BYTES)
        ):
            raise CorruptLog(
                None,
                f"contributions[{i}] is not a seat (in increasing order) with 32 hex digits",
            )
        assert isinstance(entropy, str)
        if "commitment" in c and c["commitment"] != rng.entropy_commitment(bytes.fromhex(entropy)):
            raise CorruptLog(
                None,
                f"contributions[{i}]: seat {seat}'s revealed entropy does not match the "
                "commitment it made before the start",
            )
        out.append((seat, bytes.fromhex(entropy)))
    return tuple(out)


def committed_seats(header: LogLine) -> frozenset[int]:
    """The seats whose contribution a header records with the commitment made before the start
    (checked by :func:`contributions`: each reveal hashes to its commitment)."""
    raw = header.get("contributions")
    if not isinstance(raw, list):
        return frozenset()
    return frozenset(c["seat"] for c in raw if isinstance(c, dict) and "commitment" in c)


def _hex_digits(text: object, n: int) -> bool:
    return isinstance(text, str) and len(text) == n and not text.strip("0123456789abcdef")


def revealed(header: LogLine, end: LogLine) -> tuple[int, bytes]:
    """The seed and salt an end line reveals, checked against the header's commitment; raises
    :class:`CorruptLog` at the end line's ``seq``."""
    end_seq = end.get("seq")
    at = end_seq if isinstance(end_seq, int) else None
    try:
        salt = bytes.fromhex(str(end["salt"]))
    except (KeyError, ValueError):
        salt = b""
    seed = end.get("seed")
    if (
        not isinstance(seed, int)
        or isinstance(seed, bool)
        or not 0 <= seed <= rng.MAX_SEED
        or len(salt) != SALT_BYTES
    ):
        raise CorruptLog(at, "end line lacks a valid seed and salt")
    if commitment(seed, salt) != header.get("commitment"):
        raise CorruptLog(at, "revealed seed and salt do not match the header's commitment")
    return seed, salt


def deal_seed(header: LogLine, seed: int) -> int:
    """The seed a game dealt with, from the ``seed`` its end line reveals: that seed itself in
    format 1, the seed derived from it and the header's contributions in format 2."""
    given = contributions(header)
    return seed if given is None else rng.derive_deal_seed(seed, given)


def setup_of(game: Game[Any, Any, Any, Any, Any], header: LogLine, seed: int) -> Setup[Any]:
    """The header's setup with ``seed`` (the deal seed, or 0 while it is secret), checked
    against its ``setup_hash``."""
    raw = header.get("setup")
    if not isinstance(raw, dict):
        raise CorruptLog(None, "header has no setup")
    try:
        setup = game.make_setup(raw.get("seats"), seed, raw.get("rules"), raw.get("event_limit"))  # type: ignore[arg-type]
    except CardcoreError as exc:
        raise CorruptLog(None, f"invalid setup: {exc}") from None
    if setup.setup_hash() != header.get("setup_hash"):
        raise CorruptLog(None, "setup_hash does not match the setup")
    if RacePolicy.of_rules(setup.rules).compensated != (header.get("format") == FORMAT_3):
        raise CorruptLog(
            None, 'a log is of format 3 exactly when its rules set race_policy "compensated"'
        )
    return setup


def start_of(game: Game[Any, Any, Any, Any, Any], header: LogLine, setup: Setup[Any]) -> Any:
    """The state before entry 0: the table before the deal, or the header's position."""
    text = header.get("position")
    if text is None:
        return game.initial_state(setup)
    if game.parse_position is None:
        raise CorruptLog(None, f"{game.name} has no position notation")
    if not isinstance(text, str):
        raise CorruptLog(None, "the header's position is not a string")
    try:
        state = game.parse_position(text, setup.rules)
    except CardcoreError as exc:
        raise CorruptLog(None, f"the header's position does not parse: {exc}") from None
    if state.setup.seats != setup.seats:
        raise CorruptLog(
            None, f"the position has {state.setup.seats} seats, the setup {setup.seats}"
        )
    return with_setup(state, setup)


def seats_of(header: LogLine) -> int:
    """The header's number of seats, unchecked (0 when it has none)."""
    setup = header.get("setup")
    seats = setup.get("seats") if isinstance(setup, dict) else None
    return seats if isinstance(seats, int) and not isinstance(seats, bool) else 0
