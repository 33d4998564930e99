"""``cardcore ladder run``: bots play a schedule of duplicate deals, every game signed and kept,
rated with openskill (docs/ladder.md).

Each game of the schedule (:mod:`cardcore.arena.schedule`) is played by the referee
(:func:`cardcore.referee.play_refereed`, which owns reaction time and survives bots that fail)
in a worker process, recorded as a :class:`~cardcore.match.Match` log whose header (with the
game's id, which names the bots per seat) and end line the ladder's key signs. The parent writes
each log as it comes back, rates the games in the schedule's order once a round is complete
(:mod:`cardcore.arena.ratings`), and at the end writes the signed manifest, the results table
and the chart.
"""

from __future__ import annotations

import shlex
import shutil
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TextIO

from ..bots import Bot, bot_seed
from ..engine import Outcome
from ..fairness import ReactionModel
from ..match import Match
from ..referee import play_refereed
from ..registry import get_game
from . import chart
from .ladder_files import (
    CHART_FILE,
    GAMES_DIR,
    MANIFEST_FILE,
    MANIFEST_TYPE,
    RESULTS_FILE,
    TABLE_FILE,
    load_or_make_key,
    log_path,
    log_signer,
    sha256_hex,
    signed_manifest,
)
from .process import close_bots, load_bot
from .ratings import Ratings, markdown, results_bytes
from .schedule import Fixture, LadderConfig, Planner

STDERR_DIR: Final = "bot-stderr"
ABORTED_BY: Final = "ladder"
"""Who the log's abort names for a game the referee left unfinished (a stall): a draw."""


@dataclass(frozen=True, slots=True)
class Task:
    """One game for a worker: picklable, everything it needs."""

    fixture: Fixture
    specs: tuple[str, ...]
    """Each seat's bot spec, seat 0 first."""
    reaction: str
    secret: bytes
    deadline_ms: int
    bank_ms: int
    """A bot in another program's time (:func:`~cardcore.arena.process.load_bot`)."""
    stderr_path: str | None
    """Where the ``cmd:`` bots' standard error goes (None: no such bot in this game)."""


@dataclass(frozen=True, slots=True)
class Played:
    """What a worker sends back."""

    index: int
    game_id: str
    log: bytes
    outcome: Outcome | None
    faults: tuple[dict[str, Any], ...]


def play(task: Task) -> Played:
    """Play one game of the schedule (in a worker process): the deal, bots seeded per seat,
    the referee seeded with the deal's seed, the log signed. A game the referee leaves
    unfinished (no bot would act) is ended by the host's abort, so its log still ends."""
    f = task.fixture
    game = get_game(f.game)
    setup = game.make_setup(len(f.seats), f.deal_seed)
    match = Match(game, setup, game_id=f.id, record=True, sign=log_signer(task.secret))
    bots: list[Bot] = []
    # A program's stderr (its own log) goes to DIR/bot-stderr/<id>.txt, not to the terminal.
    err = open(task.stderr_path, "ab") if task.stderr_path else None  # noqa: SIM115 - closed below
    try:
        for seat, spec in enumerate(task.specs):
            seed = bot_seed(f.deal_seed, seat)
            bots.append(
                load_bot(
                    spec,
                    seat,
                    game,
                    setup,
                    seed,
                    deadline_ms=task.deadline_ms,
                    bank_ms=task.bank_ms,
                    stderr=err,
                )
            )
        result = play_refereed(match, bots, ReactionModel.parse(task.reaction), f.deal_seed)
        if match.outcome is None:
            match.abort(max(result.at_ms, match.last_at_ms), ABORTED_BY)
    finally:
        close_bots(bots, match.outcome)
        if err is not None:
            err.close()
    faults = tuple(
        {"seat": x.seat, "seq": x.seq, "kind": x.kind, "detail": x.detail, "action": x.action}
        for x in result.faults
    )
    return Played(f.index, f.id, match.dumps(), match.outcome, faults)


class ProgressBar:
    """``games 37/120 [=====     ]`` on one line of ``stream``, redrawn with ``\\r``."""

    WIDTH: Final = 30

    def __init__(self, total: int, stream: TextIO | None) -> None:
        self.total, self.stream, self.done = total, stream, 0

    def step(self) -> None:
        self.done += 1
        if self.stream is None:
            return
        filled = self.done * self.WIDTH // max(1, self.total)
        bar = "=" * filled + " " * (self.WIDTH - filled)
        self.stream.write(f"\rgames {self.done}/{self.total} [{bar}]")
        if self.done == self.total:
            self.stream.write("\n")
        self.stream.flush()


@contextmanager
def _workers(jobs: int) -> Iterator[Executor | None]:
    """A pool of ``jobs`` worker processes, or None to play in this process (``--jobs 1``)."""
    if jobs <= 1:
        yield None
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        yield pool


def _play_round(
    pool: Executor | None, tasks: Sequence[Task], done: Callable[[Played], None]
) -> list[Played]:
    """Play ``tasks``, calling ``done`` as each finishes; the results in the tasks' order."""
    if pool is None:
        out = []
        for task in tasks:
            out.append(play(task))
            done(out[-1])
        return out
    futures: list[Future[Played]] = [pool.submit(play, task) for task in tasks]
    for future in as_completed(futures):
        done(future.result())
    return [future.result() for future in futures]


def preflight(config: LadderConfig) -> None:
    """Refuse, before any game, a bot spec that names nothing: a ``module:Class`` (or
    ``random``, ``reaction``) is built once, a ``cmd:`` program must be found on the PATH (or as
    a path). ``ValueError`` naming the bot. (A program that starts and then fails is the bot's
    fault in the games instead.)"""
    game = get_game(config.games[0])
    setup = game.make_setup(2, config.seed)
    for name, spec in config.bots:
        try:
            if spec.startswith("cmd:"):
                argv = shlex.split(spec[4:])
                if not argv or shutil.which(argv[0]) is None:
                    raise ValueError(f"no program {argv[0] if argv else ''!r} found")
            else:
                load_bot(spec, 0, game, setup, 0)
        except ValueError as exc:
            raise ValueError(f"bot {name!r} ({spec}): {exc}") from None


@dataclass(frozen=True, slots=True)
class RunSummary:
    games: int
    faults: int
    key: str
    results: dict[str, Any]


def run_ladder(
    config: LadderConfig, root: Path, *, jobs: int = 1, progress: TextIO | None = sys.stderr
) -> RunSummary:
    """Play ``config``'s schedule into the directory ``root`` (made if missing; refused if it
    already holds a ladder) and write its files (docs/ladder.md#the-directory)."""
    preflight(config)
    ratings = Ratings(config)  # openskill now, so a missing extra is refused before any file
    chart.check()
    root.mkdir(parents=True, exist_ok=True)
    if (root / MANIFEST_FILE).exists():
        raise ValueError(f"{root} already holds a ladder ({MANIFEST_FILE}): give a new --out")
    (root / GAMES_DIR).mkdir(exist_ok=True)
    secret = load_or_make_key(root)
    specs = dict(config.bots)
    planner = Planner(config)
    bar = ProgressBar(planner.total_games(), progress)
    entries: list[dict[str, Any]] = []

    def done(played: Played) -> None:
        log_path(root, played.game_id).write_bytes(played.log)
        bar.step()

    with _workers(jobs) as pool:
        for round_ in range(1, config.rounds + 1):
            pairings, bye, fixtures = planner.round(round_, ratings.ordinals())
            tasks = [
                Task(
                    f,
                    tuple(specs[n] for n in f.seats),
                    config.reaction,
                    secret,
                    config.deadline_ms,
                    config.bank_ms,
                    _stderr_path(root, f, specs),
                )
                for f in fixtures
            ]
            for f, played in zip(fixtures, _play_round(pool, tasks, done), strict=True):
                ratings.add(f, played.outcome)
                entries.append(_entry(f, played))
            ratings.end_round(round_, pairings, bye)
    return _write_outputs(root, config, secret, ratings, entries)


def _stderr_path(root: Path, f: Fixture, specs: dict[str, str]) -> str | None:
    if not any(specs[n].startswith("cmd:") for n in f.seats):
        return None
    (root / STDERR_DIR).mkdir(exist_ok=True)
    return str(root / STDERR_DIR / f"{f.id}.txt")


def _entry(f: Fixture, played: Played) -> dict[str, Any]:
    """A game's line in the manifest."""
    return {
        "id": f.id,
        "round": f.round,
        "game": f.game,
        "deal": f.deal,
        "seats": list(f.seats),
        "log_sha256": sha256_hex(played.log),
        "faults": list(played.faults),
    }


def _write_outputs(
    root: Path,
    config: LadderConfig,
    secret: bytes,
    ratings: Ratings,
    entries: list[dict[str, Any]],
) -> RunSummary:
    results = ratings.results()
    body = {
        "type": MANIFEST_TYPE,
        "ladder": config.json(),
        "rounds": [{k: r[k] for k in ("round", "pairings", "bye")} for r in ratings.rounds],
        "games": entries,
    }
    (root / MANIFEST_FILE).write_bytes(signed_manifest(body, secret))
    (root / RESULTS_FILE).write_bytes(results_bytes(results))
    (root / TABLE_FILE).write_text(markdown(results))
    (root / CHART_FILE).write_bytes(chart.draw(results, ratings.trajectory, ratings.played))
    key = (root / "ladder.pub").read_text().strip()
    return RunSummary(len(entries), sum(len(e["faults"]) for e in entries), key, results)
