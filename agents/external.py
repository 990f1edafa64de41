"""External bots: a program in any language that plays over JSON lines on stdin/stdout.

The spec ``exec:COMMAND`` (see :func:`parse_exec`) runs ``COMMAND`` as a child
process and plays it like any other bot: :class:`ExternalAgent` turns each
``act(view)`` into one ``request`` line built from the seat's view alone (a
two-player :class:`~sixtysix_env.knowledge.PlayerView` or a four-player
:class:`~sixtysix_env.four_knowledge.FourView`), and reads one ``action``
line back. The play loop's ``game_rules(rules)`` hook names the game (a
preset, or four players); a bot whose protocol version cannot express it
(1.1 or older: two-player German only) is refused there. The protocol
(message flow, every field, versioning) is ``agents/protocol/PROTOCOL.md``,
with a JSON Schema per message in ``agents/protocol/schemas/``;
:data:`PROTOCOL_VERSION` is the version spoken.

Faults are errors, so the play loop turns them into forfeits
(``agents.play``): each :class:`ExternalBotError` subclass carries the
forfeit reason (``timeout``, ``crash``, ``malformed``, ``illegal``,
``protocol``) and a short detail. After a fault the process is killed; the
next ``reset`` (the next game) starts a fresh one, so an arena run goes on.
A process found ended during a game is that game's crash, never restarted
mid-game (a new process would have missed the game so far).
Errors while starting (handshake) are kept and raised by the first ``act``,
because ``reset`` runs outside the play loop's forfeit handling.

Why the process cannot outlive the arena, however the arena ends:

- the bot runs in its own session (``start_new_session``), so closing or a
  fault kills its whole process group, grandchildren included;
- on Linux the bot is started under a tiny ``/bin/sh`` supervisor that shares
  the bot's pipes (no extra hop) and has the kernel's parent-death signal
  (``PR_SET_PDEATHSIG``) set to SIGTERM: when the arena dies, even by SIGKILL,
  the supervisor's trap kills the bot's process group. The signal follows the
  *thread* that started the process, so start bots from a thread that lives as
  long as the agent (the main thread, as the arena and its workers do);
- an ``atexit`` hook closes every live agent on a normal exit;
- well-behaved bots also exit at end of input (the example bots do);
- the supervisor is the bot's child subreaper: processes that leave the
  group (``setsid``, daemons) are re-parented to it when their parent ends,
  and it kills them with the group (when the bot exits, and on ``close``);
- where the machine has writable cgroups, every bot process has a control
  group of its own (:mod:`agents.protocol.cgroups`), joined before the bot
  starts: the whole group is killed at the game's end and when the arena
  dies, however its processes left the process group or session.

Not covered, outside the sandbox and without cgroups: a bot that attacks its
own supervisor (it runs as the same user); the sandbox's process namespace,
or the bot's cgroup, ends them all.

With ``sandbox`` (``exec:sandbox=1,...``, or the arena's ``--sandbox``) the
command runs inside bubblewrap (:mod:`agents.protocol.sandbox`): no network,
none of the arena's files. Under the CPU time control (the play loop's
``time_control("cpu", s)`` hook) a move may use ``s`` seconds of CPU time of
the bot's own processes, counted from its previous reply
(:meth:`ExternalAgent.cpu_time`: the bot's cgroup counter, children reaped
without a wait included, or where there are no cgroups the ``/proc``
samples of :mod:`agents.protocol.cputime`), and at most
:func:`~agents.movetime.wall_cap` of wall time (waiting costs no CPU time).
"""

from __future__ import annotations

import atexit
import hashlib
import math
import os
import re
import shlex
import shutil
import time
import weakref
from dataclasses import dataclass
from typing import Any

from sixtysix_env.four import FourRules
from sixtysix_env.four_knowledge import FourView
from sixtysix_env.knowledge import PlayerView
from sixtysix_env.variants import GERMAN, Rules

from .base import BaseAgent
from .movetime import wall_cap
from .protocol.messages import (
    BotCrash,
    BotProtocolError,
    BotTimeout,
    ExternalBotError,
    check_game,
    clip,
    deal_end_message,
    decode,
    encode,
    hello_message,
    match_end_message,
    new_match_message,
    parse_action,
    parse_hello,
    protocol_minor,
    request_message,
)
from .protocol.process import QUIT_GRACE, BotProcess
from .protocol.sandbox import DEFAULT_LOG_DIR, LOG_DIR_ENV, sandbox_argv


# ----------------------------------------------------------------- the spec
@dataclass(frozen=True)
class ExecSpec:
    """What ``exec:`` names: the command and the options in front of it."""

    argv: tuple[str, ...]
    timeout: float = 10.0  # seconds per reply when the arena sets no move time
    start_timeout: float = 10.0  # seconds for the process to start and answer the handshake
    name: str | None = None  # display name (default: the spec)
    logs: str | None = None  # folder for the stderr logs (default: $SIXTYSIX_BOT_LOGS or bot_logs)
    sandbox: bool = False  # run the command inside bubblewrap (agents.protocol.sandbox)


def _flag(raw: str) -> bool:
    value = {"1": True, "yes": True, "true": True, "0": False, "no": False, "false": False}.get(raw.lower())
    if value is None:
        raise ValueError(raw)
    return value


_OPTION_TYPES: dict[str, Any] = {"timeout": float, "start_timeout": float, "name": str, "logs": str,
                                 "sandbox": _flag}
CPU_POLL = 0.01  # seconds between checks of a CPU-timed bot's CPU time while it thinks


def parse_exec(tail: str) -> ExecSpec:
    """Parse the text after ``exec:``: ``[key=value,... ]COMMAND [ARG ...]``.

    The command line is split like a POSIX shell would (quotes work; no
    shell runs it). When the first word contains ``=`` it holds the options
    (``timeout``, ``start_timeout``, ``name``, ``logs``, ``sandbox``), e.g.
    ``exec:timeout=0.5,name=rnd python3 examples/bots/random_bot.py``. The
    program must be found (on ``PATH`` or as a path) so a typo fails before
    any game is played.
    """
    try:
        words = shlex.split(tail)
    except ValueError as e:
        raise ValueError(f"bad exec command {tail!r}: {e}") from None
    opts: dict[str, Any] = {}
    if words and "=" in words[0]:
        for item in words.pop(0).split(","):
            key, _, raw = item.partition("=")
            key = key.strip()
            typ = _OPTION_TYPES.get(key)
            if typ is None:
                known = ", ".join(_OPTION_TYPES)
                raise ValueError(f"unknown exec option {key!r} in {tail!r} (options: {known})")
            if key in opts:
                raise ValueError(f"exec option {key!r} given twice in {tail!r}")
            try:
                value = typ(raw)
            except ValueError:
                raise ValueError(f"bad value {raw!r} for exec option {key!r}") from None
            if typ is float and not (math.isfinite(value) and value > 0):
                raise ValueError(f"exec option {key!r} must be positive seconds, got {raw!r}")
            if typ is str and not value:
                raise ValueError(f"exec option {key!r} is empty")
            opts[key] = value
    if not words:
        raise ValueError("exec: needs a command, e.g. 'exec:python3 examples/bots/random_bot.py'")
    if shutil.which(words[0]) is None:
        raise ValueError(f"exec: program {words[0]!r} not found (or not executable) in {tail!r}")
    return ExecSpec(argv=tuple(words), **opts)


def check_command(command: str) -> str:
    """The registry's check of an ``exec:`` spec: the command line, if :func:`parse_exec` accepts it."""
    parse_exec(command)
    return command.strip()


def make_external(command: str, seed: int | None = None) -> ExternalAgent:
    """The bot of the spec ``exec:<command>`` (its registry factory; workers rebuild bots this way)."""
    s = parse_exec(command)
    return ExternalAgent(s.argv, seed=seed, timeout=s.timeout, start_timeout=s.start_timeout,
                         name=s.name or "exec:" + command.strip(), log_dir=s.logs, sandbox=s.sandbox)


# ---------------------------------------------------------------- the agent
@dataclass
class GameInProgress:
    """What an :class:`ExternalAgent` knows of the game being played: a new one each ``reset``."""

    seed: int | None
    budget: float  # seconds per reply: the bot's timeout, or the game's move time if smaller
    unit: str | None = None
    clock: str = "wall"  # what ``budget`` limits: "wall" or "cpu" (time_control)
    cpu_mark: float = 0.0  # the bot's CPU time at its last reply (CPU clock)
    fault: ExternalBotError | None = None  # a fault to raise at the next act
    match_sent: bool = False  # whether the bot was sent this game's new_match
    seat: int | None = None
    deals: int = 0  # deals finished so far
    rules: Any = None  # the game's Rules or FourRules (game_rules); None: two-player German
    checked: Any = None  # the rules last checked against the bot's protocol version


_LIVE: weakref.WeakSet[ExternalAgent] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for agent in list(_LIVE):
        agent.close(grace=0.0)


def _slug(name: str) -> str:
    """A file-name-safe form of a bot's name, unique per name (a short hash of it at the end)."""
    tag = hashlib.blake2b(name.encode(), digest_size=4).hexdigest()
    return (re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_")[:50] or "bot") + "-" + tag


class ExternalAgent(BaseAgent):
    """A bot in another process, speaking the JSON-lines protocol (agents/protocol/PROTOCOL.md).

    One process serves many games: ``reset`` starts it (handshake) when it is
    not running, ``game_rules`` names the game (two-player German if never
    called), ``game_start`` sends ``new_match``, ``act`` one request.
    ``deal_end`` / ``game_end`` are notifications (no reply). ``close`` ends
    the process and its group. ``bot_info`` is the bot's handshake (name,
    version, protocol); ``log_path`` its stderr log.
    """

    name = "exec"

    def __init__(self, argv: tuple[str, ...] | list[str], *, seed: int | None = None,
                 timeout: float = 10.0, start_timeout: float = 10.0, name: str | None = None,
                 log_dir: str | None = None, sandbox: bool = False) -> None:
        super().__init__(seed=seed, move_time=timeout)
        if not argv:
            raise ValueError("an external bot needs a command")
        self.argv = tuple(argv)
        self.timeout = float(timeout)
        self.start_timeout = float(start_timeout)
        self.name = name or "exec:" + shlex.join(self.argv)
        self.log_dir = log_dir or os.environ.get(LOG_DIR_ENV) or DEFAULT_LOG_DIR
        # One log per bot and process (a fresh bot per game appends to it; each start is capped).
        self.log_path = os.path.join(self.log_dir, f"{_slug(self.name)}.{os.getpid()}.log")
        self.sandbox = sandbox
        self.bot_info: dict[str, str] | None = None
        self._proc: BotProcess | None = None
        self._cpu_ended = 0.0  # CPU seconds of this agent's processes that have ended
        self.game = GameInProgress(seed=seed, budget=self.timeout)
        self._next_id = 0
        _LIVE.add(self)

    # -- lifecycle
    def reset(self, seed: int | None = None) -> None:
        """A new game: start the bot if needed; a start fault is kept for the first ``act``."""
        super().reset(seed)
        self.game = GameInProgress(seed=seed, budget=self.timeout)
        try:
            self._ensure_started()
        except ExternalBotError as e:
            self._fail(e)

    def game_rules(self, rules: Any) -> None:
        """Told by the play loop after ``reset``: the game's rules (a
        :class:`~sixtysix_env.variants.Rules` or :class:`~sixtysix_env.four.FourRules`),
        sent in ``new_match``. A bot whose protocol version cannot express them is refused
        here (:class:`~agents.protocol.messages.BotVersionError`), before the game starts."""
        if not isinstance(rules, Rules | FourRules):
            raise TypeError(f"game_rules takes a Rules or FourRules, got {type(rules).__name__}")
        self.game.rules = rules
        if self.game.fault is None and self.bot_info is not None:
            try:
                self._check_game(rules)
            except ExternalBotError as e:
                self._fail(e)
                raise

    def game_start(self, seat: int, unit: str, move_time: float | None) -> None:
        """Told by the play loop: the seat, the unit and its move time (the budget is the smaller)."""
        self.game.unit = unit
        if move_time is not None:
            self.game.budget = min(self.timeout, float(move_time))
        if self.game.fault is None:
            self._guarded(lambda: self._send_new_match(seat))

    def time_control(self, clock: str, move_time: float | None) -> None:
        """Told by the play loop: what the move time limits (``"wall"`` or ``"cpu"``); CPU counts from now."""
        self.game.clock = clock if move_time is not None else "wall"
        self.game.cpu_mark = self.cpu_time()

    def cpu_time(self) -> float:
        """CPU seconds used so far by all this agent's processes, the ended ones included: it never
        goes down, so a game's CPU time (a difference of two readings) is never negative."""
        proc = self._proc
        return self._cpu_ended + (proc.cpu_seconds() if proc is not None else 0.0)

    def act(self, view: PlayerView | FourView) -> int:
        if self.game.fault is not None:
            raise self.game.fault
        try:
            proc = self._proc
            if proc is None and not self.game.match_sent:  # act without reset: a game starts here
                self._ensure_started()
                proc = self._proc
            if proc is None:
                raise BotCrash("the process is not running")
            if not proc.alive():  # it ended mid-game: that game's crash; only the next game restarts
                raise proc.crash("ended before the request")
            if self.game.rules is None:  # no game_rules hook: the view's own game
                self.game.rules = view.rules
            if view.rules is not self.game.checked:
                self._check_game(view.rules)
            if not self.game.match_sent:
                self._send_new_match(view.player)
            if proc.pending():
                raise self._unsolicited(proc)
            rid = self._next_id
            self._next_id = rid + 1
            budget = self.game.budget
            cpu = self.game.clock == "cpu"
            deadline = time.monotonic() + (wall_cap(budget) if cpu else budget)
            if cpu:
                self.cpu_time()  # a sample: the tree as the move starts (see agents.protocol.cputime)
            proc.send(encode(request_message(view, rid, int(budget * 1000), self._minor())), deadline)
            line = self._recv_cpu(proc, deadline) if cpu else proc.recv(deadline, "reply")
            if cpu:
                self.game.cpu_mark = self.cpu_time()
            return parse_action(decode(line), rid, view.legal_mask)
        except ExternalBotError as e:
            self._fail(e)
            raise
        except BaseException:  # the play loop's move alarm, Ctrl-C: the bot is out of step now
            self._stop("interrupted")
            raise

    def _recv_cpu(self, proc: BotProcess, deadline: float) -> bytes:
        """The reply of a CPU-timed move: within its CPU budget (since the last reply) and the wall cap."""
        while True:
            try:
                return proc.recv(min(time.monotonic() + CPU_POLL, deadline), "reply")
            except BotTimeout:
                used = self.cpu_time() - self.game.cpu_mark
                if used > self.game.budget:
                    raise BotTimeout(f"used {used:.3f}s of CPU time, budget {self.game.budget:g}s") from None
                if time.monotonic() >= deadline:
                    raise BotTimeout(f"no reply within {wall_cap(self.game.budget):g}s of wall time (the cap "
                                     "of a CPU-timed move)") from None

    def deal_end(self, deal: dict[str, Any]) -> None:
        """Notification: a deal of the current game ended (no reply)."""
        if self.game.fault is None and self.game.match_sent:
            self._guarded(lambda: self._notify(deal_end_message(self.game.deals, deal)))
        self.game.deals += 1

    def game_end(self, record: Any) -> None:
        """Notification: the game ended (no reply); the process stays for the next game."""
        seat = self.game.seat if self.game.match_sent else None
        if self.game.fault is None and seat is not None:
            self._guarded(lambda: self._notify(match_end_message(record, seat)))
        self.game.match_sent = False

    def close(self, grace: float = QUIT_GRACE) -> None:
        """End the bot: ``quit``, end of input, then kill its process group. Safe to call twice."""
        self._stop("closed", grace)
        _LIVE.discard(self)

    def __del__(self) -> None:
        try:
            self._stop("garbage collected")
        except Exception:  # noqa: BLE001 - best effort at interpreter shutdown
            pass

    def __enter__(self) -> ExternalAgent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        """The pid of the running process (the supervisor on Linux; also its process group)."""
        return self._proc.pid if self._proc is not None and not self._proc.stopped else None

    # -- internals
    def _ensure_started(self) -> None:
        if self._proc is not None and self._proc.alive():
            return
        self._stop("restart")
        os.makedirs(self.log_dir, exist_ok=True)
        argv = sandbox_argv(self.argv, protected=(self.log_dir,)) if self.sandbox else self.argv
        proc = BotProcess(tuple(argv), self.log_path)
        self._proc = proc
        deadline = time.monotonic() + self.start_timeout
        proc.send(encode(hello_message()), deadline)
        self.bot_info = parse_hello(decode(proc.recv(deadline, "handshake reply")))

    def _minor(self) -> int:
        """The protocol minor version the bot speaks (what the arena sends it)."""
        return protocol_minor(self.bot_info["protocol"]) if self.bot_info is not None else 0

    def _check_game(self, rules: Any) -> None:
        if self.bot_info is not None:
            check_game(self.bot_info["protocol"], rules)
        self.game.checked = rules

    def _send_new_match(self, seat: int) -> None:
        game = self.game
        game.seat = seat
        rules = (game.rules or GERMAN) if self._minor() >= 2 else None
        budget_ms = int(game.budget * 1000)
        self._notify(new_match_message(game.seed, seat, game.unit, budget_ms, game.clock, rules))
        game.match_sent = True

    def _notify(self, msg: dict[str, Any]) -> None:
        proc = self._proc
        if proc is None or proc.stopped:
            raise BotCrash("the process is not running")
        proc.send(encode(msg), time.monotonic() + self.game.budget)

    def _guarded(self, fn: Any) -> None:
        try:
            fn()
        except ExternalBotError as e:
            self._fail(e)

    def _unsolicited(self, proc: BotProcess) -> ExternalBotError:
        """The fault for output before a request: a stray line, or the bot's end (a crash)."""
        try:
            line = proc.recv(time.monotonic() + 0.05, "line")
        except BotTimeout:
            return BotProtocolError(f"wrote output nobody asked for: {clip(bytes(proc.buf))}")
        except ExternalBotError as e:
            return e
        return BotProtocolError(f"wrote a line nobody asked for: {clip(line)}")

    def _fail(self, e: ExternalBotError) -> None:
        self.game.fault = e
        self._stop(f"{e.forfeit_reason}: {e.reason}")

    def _stop(self, why: str, grace: float = 0.0) -> None:
        proc = self._proc
        if proc is not None:
            try:
                proc.stop(grace, why)
            finally:
                self._proc = None
                self._cpu_ended += proc.cpu_seconds()  # its last reading, kept after it ended
