"""Move time: what a per-move limit means, how a move is measured, and the alarms that stop it.

``clock`` chooses what ``move_time`` limits. ``"wall"``: the bot's ``act``
call is timed with ``time.perf_counter``. ``"cpu"``: the bot's own CPU time
is, so a busy machine slows a bot down without making it lose on time: an
in-process bot's is this process's CPU time during ``act``
(``time.process_time``: its threads included); a bot with a ``cpu_time()``
method (an external bot: its whole process tree) is measured by it, from the
end of its previous move (thinking between moves counts). A CPU-timed move
also has a wall-clock cap (:func:`wall_cap`: 30 times the limit plus 2 s), so a bot that sleeps cannot
hang a game. :mod:`agents.play` forfeits a move over its limit when it
returns, and on Unix, from the main thread, a wall-clock timer (``SIGALRM``)
interrupts a bot still thinking at the deadline with :class:`MoveTimeout`;
for a CPU-timed move the alarm reads the CPU clock and looks again until
the CPU limit or the wall cap is reached (never a CPU-time timer: see
:func:`alarms`).
"""

from __future__ import annotations

import contextlib
import math
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
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
    """Raised inside a bot's ``act`` by the move-time alarm; ``cpu``: by the CPU-time one."""

    def __init__(self, cpu: bool = False) -> None:
        super().__init__()
        self.cpu = cpu


# True only while a bot's act() runs: an alarm delivered late (after act
# returned) is then ignored instead of escaping from play_game; the measured
# time still forfeits that move.
_ARMED = [False]
# The armed move: its limit and where its CPU and wall clocks started (read by the alarm).
_MOVE: dict[str, Any] = {}
CHECK_MIN = 0.001  # a CPU-timed move's alarm looks again at least this much wall time later
RETRY = 0.01  # a timeout Python swallowed (raised inside a weakref callback or __del__) is raised again


def _on_alarm(signum: int, frame: object) -> None:  # SIGALRM
    """Stop a move past its limit; for a CPU-timed move, first read the CPU clock and, if time is
    left, look again when it could at the earliest run out (CPU time never outruns wall time in one
    thread). The timer stays set after raising, so a swallowed timeout comes back."""
    if not _ARMED[0]:
        return
    limit: Limit = _MOVE["limit"]
    assert limit.seconds is not None
    cpu = False
    if limit.cpu:
        used = time.process_time() - _MOVE["cpu"]
        wall = time.perf_counter() - _MOVE["wall"]
        cap = wall_cap(limit.seconds)
        if used < limit.seconds and wall < cap:
            signal.setitimer(signal.ITIMER_REAL, max(min(limit.seconds - used, cap - wall), CHECK_MIN))
            return
        cpu = used >= limit.seconds
    signal.setitimer(signal.ITIMER_REAL, RETRY)
    raise MoveTimeout(cpu=cpu)


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


def arm(limit: Limit) -> None:
    """Set the move's alarm: at its limit (a CPU-timed move's alarm then reads the CPU clock)."""
    assert limit.seconds is not None
    _MOVE.update(limit=limit, cpu=time.process_time(), wall=time.perf_counter())
    _ARMED[0] = True
    signal.setitimer(signal.ITIMER_REAL, limit.seconds)


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
