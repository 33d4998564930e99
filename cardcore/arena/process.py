"""A bot in another program: :class:`ProcessBot` runs it and speaks bot protocol v1 with it over
its stdin and stdout (:mod:`cardcore.arena.protocol`; docs/bots.md#the-protocol), and
:func:`load_bot` makes a bot from a spec (``module:Class`` or ``cmd:…``).

The bot's pipes are read and written by a thread each, so a bot that stops reading or writing
never blocks the host: the host waits for an answer on a queue, never longer than the
decision's deadline and the seat's bank (:meth:`ProcessBot.propose`). The wall clock is used for
that alone; the game's time (``at_ms``) is the referee's (:mod:`cardcore.referee`), so a game
against a program replays from its seeds whatever the machine's speed, except where a deadline
fired (docs/bots.md#determinism).
"""

from __future__ import annotations

import importlib
import queue
import shlex
import subprocess
import threading
import time
from collections.abc import Sequence
from typing import IO, Any, Final

from ..bots import BOT_KINDS, Bot, Legal
from ..engine import Game, Outcome, Setup
from ..referee import BotFault, bounded
from . import protocol
from .protocol import DEFAULT_BANK_MS, DEFAULT_DEADLINE_MS, DEFAULT_READY_MS, MAX_LINE_BYTES

AnyGame = Game[Any, Any, Any, Any, Any]

GRACE_MS: Final = 500
"""How long a bot may take to exit once it was sent ``end`` and its stdin closed."""
_EOF: Final = 0  # the reader's signals, beside the lines (bytes) on its queue
_TOO_LONG: Final = 1


def _read_lines(stream: IO[bytes], lines: queue.Queue[bytes | int]) -> None:
    """The reader thread: each line of ``stream`` (newline stripped) onto ``lines``, a line
    longer than :data:`MAX_LINE_BYTES` as :data:`_TOO_LONG` (its bytes skipped, never kept),
    then :data:`_EOF`. The queue is bounded: a bot that floods its stdout blocks on its pipe."""
    try:
        while line := stream.readline(MAX_LINE_BYTES + 1):
            if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                while line and not line.endswith(b"\n"):
                    line = stream.readline(MAX_LINE_BYTES + 1)
                lines.put(_TOO_LONG)
                continue
            lines.put(line.rstrip(b"\r\n"))
    except (OSError, ValueError):
        pass  # the pipe was closed under us: the end
    lines.put(_EOF)


def _write_lines(stream: IO[bytes], out: queue.Queue[bytes | None]) -> None:
    """The writer thread: each message of ``out`` to ``stream`` until None (then it closes
    the stream) or a broken pipe (the bot is gone: its reader will see the end)."""
    try:
        while (data := out.get()) is not None:
            stream.write(data)
            stream.flush()
        stream.close()
    except (OSError, ValueError):  # a broken pipe, or closed by close() after a stop
        pass


class ProcessBot:
    """A seat played by a program that speaks bot protocol v1 (docs/bots.md#the-protocol).

    Started at once (``argv``, no shell; ``cwd``; its stderr goes to ``stderr``, the host's by
    default) and sent ``hello``; its ``ready`` is awaited at the first decision, within
    ``ready_ms`` of the start. A :class:`~cardcore.bots.Bot`: :meth:`propose` sends the seat's
    view and legal commands (only when it has one) and waits ``deadline_ms``, then what is left
    of the seat's ``bank_ms`` for the whole game. Every way a decision is lost raises
    :class:`~cardcore.referee.BotFault` for the referee: ``crash`` (it exited, closed its
    stdout, never became ready, or could not be started), ``timeout``, ``garbage``. Call
    :meth:`close` at the end (or use it as a context manager)."""

    uses_view = True
    uses_hints = True

    def __init__(
        self,
        seat: int,
        argv: Sequence[str],
        game: AnyGame,
        setup: Setup[Any],
        *,
        seed: int = 0,
        deadline_ms: int = DEFAULT_DEADLINE_MS,
        bank_ms: int = DEFAULT_BANK_MS,
        ready_ms: int = DEFAULT_READY_MS,
        cwd: str | None = None,
        stderr: int | IO[Any] | None = None,
    ) -> None:
        if not argv:
            raise ValueError("argv: a bot's program needs at least its name")
        if deadline_ms < 1 or bank_ms < 0 or ready_ms < 1:
            raise ValueError("deadline_ms and ready_ms must be positive, bank_ms not negative")
        self.seat, self.game, self.name = seat, game, str(argv[0])
        self.deadline_ms, self.bank_ms = deadline_ms, bank_ms
        self._blank = game.initial_state(setup)  # what parse_command reads (the setup only)
        self._decision = 0
        self._ready = False
        self._gone: BotFault | None = None
        self._lines: queue.Queue[bytes | int] = queue.Queue(maxsize=256)
        self._out: queue.Queue[bytes | None] = queue.Queue()
        self._started = time.monotonic()
        self._ready_by = self._started + ready_ms / 1000
        try:
            self.process: subprocess.Popen[bytes] | None = subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                cwd=cwd,
            )
        except OSError as exc:
            self.process = None
            self._gone = BotFault("crash", f"could not start {argv[0]!r}: {exc}")
            return
        assert self.process.stdin is not None and self.process.stdout is not None
        for target, args in (
            (_read_lines, (self.process.stdout, self._lines)),
            (_write_lines, (self.process.stdin, self._out)),
        ):
            threading.Thread(target=target, args=args, daemon=True).start()
        message = protocol.hello(
            game, setup, seat, seed=seed, deadline_ms=deadline_ms, bank_ms=bank_ms
        )
        self._out.put(protocol.dumps(message))

    def __enter__(self) -> ProcessBot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def propose(self, view: Any, legal: Legal[Any]) -> tuple[int, Any] | None:
        """Ask the program (see the class); a pass is None."""
        if self._gone is not None:
            raise self._gone
        if not legal.commands:
            return None  # nothing to decide: the program is not asked
        if not self._ready:
            self._await_ready()
        self._decision += 1
        decision = self._decision
        texts = [self.game.format_command(c) for c in legal.commands]
        message = protocol.decide(
            self.game, decision, view, legal, deadline_ms=self.deadline_ms, bank_ms=self.bank_ms
        )
        self._out.put(protocol.dumps(message))
        start = time.monotonic()
        try:
            answer = self._answer(decision, texts, start)
        finally:
            self._charge(start)
        if answer.text is None:
            return None
        return answer.delay_ms, self._command(answer.text, texts, legal)

    def _answer(self, decision: int, texts: list[str], start: float) -> protocol.Answer:
        """The program's answer to ``decision``: stale answers (to decisions already lost) are
        dropped; raises :class:`BotFault` for the first line that is not an answer to it."""
        limit = start + (self.deadline_ms + self.bank_ms) / 1000
        while True:
            line = self._next_line(limit)
            if line is None:
                fault = BotFault(
                    "timeout",
                    f"no answer to decision {decision} within its {self.deadline_ms} ms "
                    f"and the {self.bank_ms} ms then left in its bank",
                )
                self.bank_ms = 0  # both spent
                raise fault
            if isinstance(line, int):  # _TOO_LONG
                raise BotFault("garbage", f"a line longer than {MAX_LINE_BYTES} bytes")
            message = protocol.parse_line(line)
            got = protocol.answer_id(message)
            if got < decision:
                continue  # a late answer to a decision already lost
            if got > decision:
                raise BotFault("garbage", f"an answer to decision {got}, not yet asked")
            return protocol.read_answer(message, texts)

    def _next_line(self, limit: float) -> bytes | int | None:
        """The program's next line (or :data:`_TOO_LONG`), None when ``limit`` (monotonic)
        passed first; a ``crash`` when the program closed its stdout."""
        try:
            line = self._lines.get(timeout=max(0.0, limit - time.monotonic()))
        except queue.Empty:
            return None
        if line == _EOF:
            self._lines.put(_EOF)  # every later read sees the end too
            self._gone = BotFault("crash", self._exit_detail())
            raise self._gone
        return line

    def _charge(self, start: float) -> None:
        """Take the time past the deadline from the bank (all of it on a timeout)."""
        spent_ms = (time.monotonic() - start) * 1000
        self.bank_ms = max(0, self.bank_ms - max(0, round(spent_ms) - self.deadline_ms))

    def _command(self, text: str, texts: list[str], legal: Legal[Any]) -> Any:
        """The command a text names: one of the legal texts, else whatever the game's command
        syntax reads (the referee calls it ``illegal`` unless it is legal); garbage when the
        text is no command of the game."""
        if text in texts:
            return legal.commands[texts.index(text)]
        try:
            return self.game.parse_command(self._blank, self.seat, text)
        except ValueError as exc:
            raise BotFault("garbage", f"not a {self.game.name} command: {exc}") from None

    def _await_ready(self) -> None:
        """Wait for ``ready`` until the ready deadline; a program that does not answer in time
        is stopped and crashed (it never joined the game)."""
        while True:
            line = self._next_line(self._ready_by)
            if line is None:
                waited = round((self._ready_by - self._started) * 1000)
                self._gone = BotFault("crash", f"no ready within {waited} ms of the start")
                self._stop()
                raise self._gone
            if isinstance(line, int):
                continue  # a line too long: not a ready
            try:
                name = protocol.ready_name(protocol.parse_line(line))
            except BotFault:
                continue  # nothing but ready counts before it: the program may be starting
            if name is not None:
                self.name, self._ready = name or self.name, True
                return

    def _exit_detail(self) -> str:
        """What a program that closed its stdout did: its exit code when it exited."""
        process = self.process
        code = None
        if process is not None:
            try:
                code = process.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                pass
        if code is None:
            return "closed its stdout (still running)"
        return f"exited with code {code}"

    def close(self, outcome: Outcome | None = None, grace_ms: int = GRACE_MS) -> None:
        """Send ``end`` (with ``outcome``) and close the program's stdin; stop the program if
        it has not exited ``grace_ms`` later. Idempotent."""
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            self._out.put(protocol.dumps(protocol.end(outcome)))
        self._out.put(None)
        try:
            process.wait(timeout=grace_ms / 1000)
        except subprocess.TimeoutExpired:
            self._stop()
        self.process = None
        for pipe in (process.stdin, process.stdout):  # the writer's, if it was stuck on it
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass

    def _stop(self) -> None:
        """Terminate the program, then kill it if it does not go."""
        process = self.process
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def __repr__(self) -> str:
        return f"ProcessBot(seat={self.seat}, name={bounded(self.name, 40)!r})"


def load_bot(
    spec: str,
    seat: int,
    game: AnyGame,
    setup: Setup[Any],
    seed: int,
    *,
    deadline_ms: int = DEFAULT_DEADLINE_MS,
    bank_ms: int = DEFAULT_BANK_MS,
    ready_ms: int = DEFAULT_READY_MS,
    cwd: str | None = None,
    stderr: int | IO[Any] | None = None,
) -> Bot:
    """The bot ``spec`` names, for ``seat`` of a game of ``game`` under ``setup``:

    * ``"cmd:<argv>"``: a program speaking the protocol, run without a shell (the argv is split
      with :func:`shlex.split`), e.g. ``"cmd:node examples/bots/node_bot.js"``; a
      :class:`ProcessBot` (the other keywords are its own);
    * ``"module:Class"``: a Python class, imported and built as ``Class(seat, seed)`` (the
      signature of :data:`cardcore.bots.BOT_KINDS`' factories), e.g.
      ``"cardcore.bots:RandomBot"``;
    * ``"random"`` or ``"reaction"``: cardcore's own bots (:data:`cardcore.bots.BOT_KINDS`).

    ``seed`` is the *bot's* seed (e.g. :func:`cardcore.bots.bot_seed` of the game's seed and
    the seat), never the game's: a bot that knew the deal's seed would see every card. Raises
    ``ValueError`` for a spec that names nothing (a program that fails to start is the bot's
    fault instead: its first decision is a ``crash``). A bot with a ``close`` method
    (:class:`ProcessBot`) must be closed: :func:`close_bots`."""
    kind, sep, rest = spec.partition(":")
    if kind == "cmd" and sep:
        argv = shlex.split(rest)
        if not argv:
            raise ValueError(f"bot spec {spec!r}: cmd: needs a program")
        return ProcessBot(
            seat, argv, game, setup, seed=seed, deadline_ms=deadline_ms,
            bank_ms=bank_ms, ready_ms=ready_ms, cwd=cwd, stderr=stderr,
        )  # fmt: skip
    if not sep:
        factory = BOT_KINDS.get(spec)
        if factory is None:
            raise ValueError(
                f"bot spec {spec!r}: expected cmd:<argv>, module:Class or one of "
                f"{', '.join(BOT_KINDS)}"
            )
        return factory(seat, seed)
    return _python_bot(spec, kind, rest, seat, seed)


def _python_bot(spec: str, module_name: str, class_name: str, seat: int, seed: int) -> Bot:
    """``Class(seat, seed)`` from ``module:Class``; ``ValueError`` naming what is missing."""
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"bot spec {spec!r}: cannot import {module_name!r}: {exc}") from None
    factory = getattr(module, class_name, None)
    if not callable(factory):
        raise ValueError(f"bot spec {spec!r}: {module_name} has no class {class_name!r}")
    bot = factory(seat, seed)
    if getattr(bot, "seat", None) != seat or not callable(getattr(bot, "propose", None)):
        raise ValueError(f"bot spec {spec!r}: {class_name}(seat, seed) is not a bot of seat {seat}")
    return bot  # type: ignore[no-any-return]


def close_bots(bots: Sequence[Bot], outcome: Outcome | None = None) -> None:
    """Close every bot that has a ``close`` method (:meth:`ProcessBot.close`), telling it the
    ``outcome``; the others have nothing to close."""
    for bot in bots:
        close = getattr(bot, "close", None)
        if callable(close):
            close(outcome)
