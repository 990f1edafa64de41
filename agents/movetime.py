"""Move time: what a per-move limit means, how a move is measured, and how a bot is stopped.

``clock`` chooses what ``move_time`` limits. ``"wall"``: the bot's ``act``
call is timed with ``time.perf_counter``. ``"cpu"``: the bot's own CPU time
is, so a busy machine slows a bot down without making it lose on time: an
in-process bot's is this process's CPU time during ``act``
(``time.process_time``: its threads included); a bot with a ``cpu_time()``
method (an external bot: its whole process tree) is measured by it, from the
end of its previous move (thinking between moves counts), never by this
process's clock: waiting for its reply costs it nothing. A CPU-timed move
also has a wall-clock cap (:func:`wall_cap`: 30 times the limit plus 2 s),
so a bot that sleeps cannot hang a game; a move stopped there says so
("no move within ...s of wall time (the cap ...)"), not "used its CPU time".

:mod:`agents.play` forfeits a move over its limit when it returns. On Unix,
from the main thread, a wall-clock timer (``SIGALRM``, never a CPU-time
one: see :func:`alarms`) also stops a bot still thinking at the deadline:

- an in-process bot under the CPU clock: the alarm reads this process's CPU
  clock and looks again until the CPU limit or the wall cap is reached;
- a bot with its own meter under the CPU clock enforces both itself (an
  external bot's reply loop reads its process tree's CPU time, see
  :mod:`agents.external`); the alarm is only a backstop, :data:`BACKSTOP`
  seconds after the wall cap, with the wall-cap message.

A due alarm raises :class:`MoveTimeout` only at a safe point
(:func:`safe_point`): inside the move, and with no frame on the way there
that runs for the process rather than for the bot's search: the import
system (a module interrupted mid-import would be half-initialised for the
next game), a finalizer (``__del__``, a weakref callback,
``weakref.finalize``: Python would swallow the timeout and report it through
``sys.unraisablehook``), a hook the interpreter calls (``sys.unraisablehook``,
``gc.callbacks``) or a test runner's code. Elsewhere it looks again
:data:`RETRY` seconds later, and goes on doing so after raising, so a
timeout a bot swallows comes back. A bot stuck in a plain Python loop is
thus stopped within milliseconds of its limit; one stuck inside an import or
a finalizer is stopped when it leaves it, as code stuck in a long C call is
caught when it returns. The built-in search bots
(:class:`~agents.search.budget.Anytime`) check their own deadline, well
before the limit, and never need the alarm.
"""

from __future__ import annotations

import _weakrefset
import contextlib
import importlib
import inspect
import math
import os
import signal
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from types import CodeType, FrameType
from typing import Any

from .base import Agent
from .search.budget import MAX_MOVE_TIME, Anytime

WALL, CPU = "wall", "cpu"
CLOCKS = (WALL, CPU)  # what a move time limits: wall-clock time or the bot's own CPU time
WALL_CAP = 30.0  # a CPU-timed move may take this many times its limit (plus WALL_SLACK) of wall time
WALL_SLACK = 2.0


def check_clock(value: Any) -> str:
    """A time control: ``"wall"`` (wall-clock time per move) or ``"cpu"`` (the bot's own CPU time)."""
    if value not in CLOCKS:
        raise ValueError(f"must be one of {CLOCKS}, got {value!r}")
    return value


def wall_cap(move_time: float) -> float:
    """The wall-clock time a CPU-timed move may take at most (a bot getting 1/30 of a CPU still moves)."""
    return WALL_CAP * move_time + WALL_SLACK


def check_move_time(value: Any) -> float | None:
    """A per-move limit: finite positive seconds up to :data:`MAX_MOVE_TIME`, or None for none."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not hasattr(value, "__float__"):
        raise ValueError(f"must be a number of seconds or None, got {value!r}")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"must be positive, finite seconds, got {value!r}")
    if value > MAX_MOVE_TIME:
        raise ValueError(f"must be at most {MAX_MOVE_TIME:g} seconds (for no limit leave it unset), "
                         f"got {value!r}")
    return value


def seat_move_times(move_time: Any) -> tuple[float | None, float | None]:
    """Each seat's per-move limit: one limit for both, or a pair (each checked, None: no limit)."""
    if isinstance(move_time, tuple):
        if len(move_time) != 2:
            raise ValueError(f"a pair of per-seat limits must have 2 entries, got {len(move_time)}")
        return check_move_time(move_time[0]), check_move_time(move_time[1])
    return check_move_time(move_time), check_move_time(move_time)


class MoveTimeout(BaseException):
    """Raised inside a bot's ``act`` by the move-time alarm; ``cpu``: for its CPU time."""

    def __init__(self, cpu: bool = False) -> None:
        super().__init__()
        self.cpu = cpu


# True only while a bot's act() runs: an alarm delivered late (after act
# returned) is then ignored instead of escaping from play_game; the measured
# time still forfeits that move.
_ARMED = [False]
# The armed move: its limit, where its CPU and wall clocks started, whether the bot has its own
# CPU meter, and the code of the call that holds the move (read by the alarm).
_MOVE: dict[str, Any] = {}
CHECK_MIN = 0.001  # a CPU-timed move's alarm looks again at least this much wall time later
RETRY = 0.005  # a due timeout with no safe point, or one a bot swallowed, is tried again this much later
BACKSTOP = 1.0  # seconds after its wall cap the alarm stops a bot with its own CPU meter


def _on_alarm(signum: int, frame: FrameType | None) -> None:  # SIGALRM
    """Stop a move past its limit, at a safe point; elsewhere (and after raising) look again soon."""
    if not _ARMED[0]:
        return
    by_cpu = _due()
    if by_cpu is None:
        return
    signal.setitimer(signal.ITIMER_REAL, RETRY)
    if safe_point(frame, _MOVE["entry"]):
        raise MoveTimeout(cpu=by_cpu)


def _due() -> bool | None:
    """Whether the armed move is over its limit: None if not (the alarm is set again for when it
    could be, at the earliest: CPU time never outruns wall time in one thread), else whether by CPU."""
    limit: Limit = _MOVE["limit"]
    assert limit.seconds is not None
    if not limit.cpu:
        return False
    wall = time.perf_counter() - _MOVE["wall"]
    cap = wall_cap(limit.seconds)
    if _MOVE["own"]:  # its own meter keeps its CPU limit and the cap: this is the backstop
        left = cap + BACKSTOP - wall
        if left > 0:
            signal.setitimer(signal.ITIMER_REAL, max(left, CHECK_MIN))
            return None
        return False
    used = time.process_time() - _MOVE["cpu"]
    if used < limit.seconds and wall < cap:
        signal.setitimer(signal.ITIMER_REAL, max(min(limit.seconds - used, cap - wall), CHECK_MIN))
        return None
    return used >= limit.seconds


def safe_point(frame: FrameType | None, entry: CodeType | None) -> bool:
    """Whether a timeout may be raised in ``frame``: it runs inside the move (at or below a frame
    of ``entry``; None: anywhere), and no frame on the way is the import system, a finalizer or a hook."""
    f = frame
    while f is not None:
        if f.f_code is entry:
            return True
        if _for_the_process(f):
            return False
        f = f.f_back
    return entry is None


_FINALIZERS = frozenset({"__del__"})
_IMPORT_FILES = ("<frozen importlib", "<frozen zipimport")
_HOOK_MODULES = ("_pytest", "pluggy")  # a test runner's hooks (sys.unraisablehook, ...)
_STDLIB_FINALIZERS = frozenset({weakref.__file__, _weakrefset.__file__})  # finalize, WeakSet callbacks
_IMPORTLIB_DIR = os.path.dirname(importlib.__file__) + os.sep


def _for_the_process(f: FrameType) -> bool:
    """A frame running for the process rather than for the bot: imports, finalizers, hooks."""
    code = f.f_code
    return (code.co_name in _FINALIZERS or _system_file(code.co_filename)
            or bool(code.co_argcount or code.co_flags & inspect.CO_VARARGS) and _called_back(f, code))


def _system_file(name: str) -> bool:
    """The import system's code, the standard library's finalizers, a test runner's hooks."""
    if name.startswith(_IMPORT_FILES) or name.startswith(_IMPORTLIB_DIR) or name in _STDLIB_FINALIZERS:
        return True
    for mod in _HOOK_MODULES:
        path = getattr(sys.modules.get(mod), "__file__", None)
        if path and name.startswith(os.path.dirname(path) + os.sep):
            return True
    return False


def _called_back(f: FrameType, code: CodeType) -> bool:
    """A function the interpreter calls back, told by its arguments: a weakref callback (a dead
    reference), ``sys.unraisablehook`` (its arguments object), a ``gc.callbacks`` entry."""
    local, n = f.f_locals, code.co_argcount
    args: list[Any] = [local.get(name) for name in code.co_varnames[:n]]
    if code.co_flags & inspect.CO_VARARGS:  # callback(*args)
        extra = local.get(code.co_varnames[n + code.co_kwonlyargcount])
        args += list(extra) if type(extra) is tuple else []
    for a in args:  # by type only: a bot's objects may have hostile __class__ or __eq__
        kind = type(a)
        if issubclass(kind, weakref.ReferenceType) and weakref.ReferenceType.__call__(a) is None:
            return True
        if type(kind) is type and kind.__name__ == "UnraisableHookArgs" and kind.__module__ == "builtins":
            return True  # sys.unraisablehook's argument (its type is not public)
    return (len(args) >= 2 and type(args[-2]) is str and args[-2] in ("start", "stop")
            and type(args[-1]) is dict and "generation" in args[-1])


def _can_alarm() -> bool:
    """Interval timers exist here, and signals reach this thread (the main one)."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@dataclass(frozen=True)
class Limit:
    """The per-move limit of a game: seconds (None: none) on a clock."""

    seconds: float | None
    clock: str = WALL

    @property
    def cpu(self) -> bool:
        """Whether moves are timed by CPU time."""
        return self.seconds is not None and self.clock == CPU


class Meters:
    """Each seat's CPU clock: the bot's own ``cpu_time()`` if it has one, else this process's.

    A bot with its own meter is charged from the end of its previous move,
    so thinking between moves counts; the others for the ``act`` call.
    """

    def __init__(self, agents: Sequence[Agent]) -> None:
        self.own = [_meter(a) for a in agents]
        self.mark = [m() if m is not None else 0.0 for m in self.own]

    def start(self, seat: int) -> float:
        """The reading a move of ``seat`` starts from."""
        return self.mark[seat] if self.own[seat] is not None else time.process_time()

    def used(self, seat: int, start: float) -> float:
        """CPU seconds ``seat`` used since ``start`` (a bot's own meter marks the end of its move)."""
        m = self.own[seat]
        now = m() if m is not None else time.process_time()
        if m is not None:
            self.mark[seat] = now
        return now - start

    def bots_total(self) -> float:
        """CPU seconds the bots' own processes used so far, together."""
        return sum(m() for m in self.own if m is not None)


def _meter(agent: Agent) -> Callable[[], float] | None:
    fn = getattr(agent, "cpu_time", None)
    if not callable(fn):
        return None

    def read() -> float:
        try:
            value = float(fn())
        except KeyboardInterrupt:
            raise
        except BaseException:  # noqa: BLE001 - a meter that fails (sys.exit() too) reads as no time used
            return 0.0
        return value if math.isfinite(value) else 0.0

    return read


def use_cpu_clock(agent: Agent, depth: int = 3) -> None:
    """Anytime search bots budget by this process's CPU time: the bot, and the parts it holds
    (an ISMCTS bot's PIMC endgame; the arena's wrappers), a few levels down."""
    if isinstance(agent, Anytime):
        agent.clock = time.process_time
    if depth > 0:
        for part in list(getattr(agent, "__dict__", {}).values()):
            if hasattr(part, "__dict__") and not isinstance(part, type):
                use_cpu_clock(part, depth - 1)


@contextlib.contextmanager
def alarms(limit: Limit) -> Iterator[bool]:
    """Borrow SIGALRM while the game runs, if this thread may; yield whether.

    Only the wall-clock timer: a process CPU-time timer (``ITIMER_PROF``)
    makes the kernel keep this process's CPU clock by scheduler ticks while it
    is set (``time.process_time`` then moves in steps of a tick, 4 ms here,
    and the timer itself fired after as little as 11 ms of a 20 ms limit), so
    CPU time is read by :func:`_on_alarm` instead. The caller's handler and
    timer (e.g. pytest-timeout's) are given back after.
    """
    if limit.seconds is None or not _can_alarm():
        yield False
        return
    started = time.monotonic()
    handler = signal.signal(signal.SIGALRM, _on_alarm)
    delay, interval = signal.setitimer(signal.ITIMER_REAL, 0)
    try:
        yield True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, handler)
        if delay > 0:
            signal.setitimer(signal.ITIMER_REAL, max(delay - (time.monotonic() - started), 1e-3), interval)


def arm(limit: Limit, own_meter: bool = False, entry: CodeType | None = None) -> None:
    """Set the move's alarm: at its limit, or for a bot with its own CPU meter under the CPU clock
    at the backstop. ``entry``: the code of the call holding the move (the alarm raises below it)."""
    assert limit.seconds is not None
    _MOVE.update(limit=limit, cpu=time.process_time(), wall=time.perf_counter(), own=own_meter and limit.cpu,
                 entry=entry)
    _ARMED[0] = True
    first = wall_cap(limit.seconds) + BACKSTOP if own_meter and limit.cpu else limit.seconds
    signal.setitimer(signal.ITIMER_REAL, first)


def disarm(limit: Limit, alarm: bool) -> None:
    """Stop the move's alarm (if ``alarm``: :func:`alarms` yielded True); a late one is ignored now."""
    _ARMED[0] = False
    if alarm:
        signal.setitimer(signal.ITIMER_REAL, 0)


def timeout_text(limit: Limit, by_cpu: bool) -> str:
    """Why the alarm stopped a move: its CPU time, its wall time, or the wall cap of a CPU-timed move."""
    assert limit.seconds is not None
    if by_cpu:
        return f"used its {limit.seconds}s of CPU time without moving"
    if limit.cpu:
        return (f"no move within {wall_cap(limit.seconds):g}s of wall time (the cap of a move of "
                f"{limit.seconds}s CPU time: the bot waited, or the machine is very busy)")
    return f"no move within {limit.seconds}s"


def overrun(limit: Limit, wall: float, cpu: float) -> str | None:
    """Why a move that took ``wall`` seconds (``cpu`` of CPU) broke the limit, or None."""
    assert limit.seconds is not None
    if not limit.cpu:
        return f"took {wall:.3f}s, limit {limit.seconds}s" if wall > limit.seconds else None
    if cpu > limit.seconds:
        return f"used {cpu:.3f}s of CPU time, limit {limit.seconds}s"
    if wall > wall_cap(limit.seconds):
        return f"took {wall:.3f}s of wall time, cap {wall_cap(limit.seconds):g}s for a CPU-timed move"
    return None
