"""Play one game between two bots through the PettingZoo environment.

:func:`play_game` is the only place bots meet the environment in the arena,
so whatever the arena measures is what users of ``sixtysix_env.env()`` get.
It also enforces fair play (docs/rules.md section 4.4): a bot that raises, returns
an illegal action or overruns the per-move time limit loses the match at
once by forfeit, and the :class:`GameRecord` says who and why.

Misbehaving bots never crash the caller: anything a bot's ``reset``, ``act``
or hook raises (``SystemExit`` from ``sys.exit()`` and other
``BaseException`` included; only ``KeyboardInterrupt`` passes, so Ctrl-C
still stops a run) forfeits the game for that bot, as does an ``act`` that
returns anything but a legal action id. A bot's ``name`` is shown with
``str()`` (its type's name if even that fails), and what a bot prints goes to
stderr, never into the caller's stdout.

Time limits: ``clock`` chooses what ``move_time`` limits. ``"wall"``: the
bot's ``act`` call is timed with ``time.perf_counter``. ``"cpu"``: the bot's
own CPU time is, so a busy machine slows a bot down without making it lose
on time: an in-process bot's is this process's CPU time during ``act``
(``time.process_time``: its threads included); a bot with a ``cpu_time()``
method (an external bot: its whole process tree) is measured by it, from the
end of its previous move (thinking between moves counts). Search bots
(:class:`~agents.search.budget.Anytime`) then budget by the same CPU clock.
A CPU-timed move also has a wall-clock cap (:func:`wall_cap`: 30 times the
limit plus 2 s), so a bot that sleeps cannot hang a game.
A move over its limit is forfeited when it returns (measure-and-forfeit).
On Unix, when called from the main thread (which is true in arena worker
processes), interval timers (``SIGALRM``; ``SIGPROF`` for CPU time)
additionally interrupt a bot still thinking at the deadline, so a bot stuck
in a Python loop cannot hang the arena. The alarm raises :class:`MoveTimeout`, a
``BaseException``, so a bot's ``except Exception`` cannot swallow it. Code
that never returns to the Python interpreter (a long C call) is only caught
when it returns. Python's cyclic garbage collector is paused during a move
(``agents.search.budget.gc_paused``): a full collection over another bot's
tables could take tens of milliseconds, charged to whoever moved. Timeouts
depend on machine load, so runs with a
``move_time`` are reproducible only as long as no bot comes near its limit.

Bots cannot hurt the game or the caller through what they are given: each
move builds a new view for the bot (the loop keeps its own legal mask), a
bot that ``requires_state`` gets a deep copy of the state, and the hooks
get copies of the deal and the record. An edit is at most that bot's
forfeit.

Every record holds ``cpu``: the wall time of the game and the CPU time this
process and the bots' own processes spent in it, for the CPU share the
arena reports (a low share means a busy machine).

A bot's exception may name its own forfeit reason in a ``forfeit_reason``
attribute (external bots: "timeout", "crash", "malformed", "illegal",
"protocol"). Optional hooks, called when a bot has them (one that raises
forfeits like ``act``): ``game_start(seat, unit, move_time)`` after ``reset``,
``time_control(clock, move_time)`` after that, ``deal_end(deal)`` with each
entry of ``GameRecord.deals``, and ``game_end(record)`` when the game is over
(also after a forfeit).
"""

from __future__ import annotations

import contextlib
import copy
import math
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sixtysix_env.actions import check_action, describe_action
from sixtysix_env.aec import env as aec_env
from sixtysix_env.engine import OVER, State
from sixtysix_env.knowledge import PlayerView, view
from sixtysix_env.seeding import derive_seed

from .base import Agent
from .forfeits import EXCEPTION, ILLEGAL, TIMEOUT
from .record import GameRecord
from .search.budget import MAX_MOVE_TIME, Anytime, gc_paused

UNITS = ("match", "deal")
WALL, CPU = "wall", "cpu"
CLOCKS = (WALL, CPU)  # what a move time limits: wall-clock time or the bot's own CPU time
WALL_CAP = 30.0  # a CPU-timed move may take this many times its limit (plus WALL_SLACK) of wall time
WALL_SLACK = 2.0

__all__ = ["CLOCKS", "CPU", "EXCEPTION", "ILLEGAL", "TIMEOUT", "UNITS", "WALL", "GameRecord", "agent_name",
           "check_clock", "check_move_time", "decide", "derive_seed", "make_env", "play_deal",
           "play_game"]


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


def agent_name(agent: Any) -> str:
    """A bot's ``name`` as a str, whatever it is (its type's name if even ``str()`` fails)."""
    try:
        return str(agent.name)
    except Exception:  # noqa: BLE001 - a broken name is the bot's problem, not the arena's
        return type(agent).__name__


class MoveTimeout(BaseException):
    """Raised inside a bot's ``act`` by the move-time alarm; ``cpu``: by the CPU-time one."""

    def __init__(self, cpu: bool = False) -> None:
        super().__init__()
        self.cpu = cpu


# True only while a bot's act() runs: an alarm delivered late (after act
# returned) is then ignored instead of escaping from play_game; the measured
# time still forfeits that move.
_ARMED = [False]


def _on_alarm(signum: int, frame: object) -> None:  # SIGALRM and SIGPROF
    if _ARMED[0]:
        _ARMED[0] = False
        raise MoveTimeout(cpu=signum == signal.SIGPROF)


def _can_alarm() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def make_env(unit: str = "match", **kwargs: Any) -> Any:
    """The wrapped PettingZoo env for a game unit ("match" or "deal")."""
    if unit not in UNITS:
        raise ValueError(f"unit must be one of {UNITS}, got {unit!r}")
    return aec_env(episode=unit, **kwargs)


def decide(agent: Agent, v: PlayerView, state: State) -> int:
    """The bot's move: it sees its view, and the true state only if it ``requires_state`` (the oracle).

    The oracle gets a deep copy of the state: what it edits is its own.
    """
    if getattr(agent, "requires_state", False):
        return agent.act(v, state=copy.deepcopy(state))  # type: ignore[call-arg]
    return agent.act(v)


Hook = Callable[[State, PlayerView], "int | None"]


def play_deal(state: State, agents: Sequence[Agent], hook: Hook | None = None) -> State:
    """Play ``state`` to the end of its deal in place, ``agents[p]`` for seat p; return it.

    The state-level loop for benches, distillation and tests, where the
    arena's checks (time, forfeits) are not wanted: a bot's error propagates.
    ``hook(state, view)`` sees every decision first and may return the move
    to play instead (exploration, comparing bots on a position), or None.
    """
    while state.window != OVER:
        v = view(state, state.to_act)
        a = hook(state, v) if hook is not None else None
        state.apply(decide(agents[state.to_act], v, state) if a is None else a)
    return state


def play_game(
    agent_0: Agent,
    agent_1: Agent,
    seed: int,
    unit: str = "match",
    move_time: float | None = None,
    record: bool = True,
    *,
    agent_seeds: tuple[int, int] | None = None,
    env: Any = None,
    clock: str = WALL,
) -> GameRecord:
    """Play one game, ``agent_0`` as player_0 and ``agent_1`` as player_1.

    ``seed`` fixes the cards (the env's ``reset(seed=...)``); bots are reset
    with ``agent_seeds`` (default: derived from ``seed`` and the seat, so
    as public as ``seed``). ``move_time`` is the per-move limit in seconds
    (None: no limit) on the ``clock`` (``"wall"`` or ``"cpu"``, see the
    module docstring). Pass a reusable ``env`` made by :func:`make_env` for
    the same ``unit`` to save its construction per game.
    """
    if unit not in UNITS:
        raise ValueError(f"unit must be one of {UNITS}, got {unit!r}")
    try:
        check_move_time(move_time)
        check_clock(clock)
    except ValueError as e:
        raise ValueError(f"move_time/clock: {e}") from None
    with contextlib.redirect_stdout(sys.stderr):  # a bot's prints never reach the caller's stdout
        return _play(agent_0, agent_1, seed, unit, Limit(move_time, clock), record, agent_seeds, env)


@dataclass(frozen=True)
class Limit:
    """The per-move limit of a game: seconds (None: none) on a clock."""

    seconds: float | None
    clock: str = WALL

    @property
    def cpu(self) -> bool:
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
        return self.mark[seat] if self.own[seat] is not None else time.process_time()

    def used(self, seat: int, start: float) -> float:
        m = self.own[seat]
        now = m() if m is not None else time.process_time()
        if m is not None:
            self.mark[seat] = now
        return now - start

    def bots_total(self) -> float:
        return sum(m() for m in self.own if m is not None)


def _meter(agent: Agent) -> Callable[[], float] | None:
    fn = getattr(agent, "cpu_time", None)
    if not callable(fn):
        return None

    def read() -> float:
        try:
            value = float(fn())
        except Exception:  # noqa: BLE001 - a meter that fails reads as no time used
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


def _play(agent_0: Agent, agent_1: Agent, seed: int, unit: str, limit: Limit, record: bool,
          agent_seeds: tuple[int, int] | None, env: Any) -> GameRecord:
    agents = (agent_0, agent_1)
    if agent_seeds is None:
        agent_seeds = (derive_seed(seed, "seat", 0), derive_seed(seed, "seat", 1))
    rec = GameRecord(
        seed=seed,
        unit=unit,
        players=(agent_name(agent_0), agent_name(agent_1)),
        agent_seeds=(int(agent_seeds[0]), int(agent_seeds[1])),
    )
    if env is None:
        env = make_env(unit)
    env.reset(seed=seed)
    raw = env.unwrapped
    for seat, (agent, s) in enumerate(zip(agents, agent_seeds, strict=True)):
        if not (_guarded(rec, seat, raw, agent.reset, s)
                and _guarded(rec, seat, raw, _hook, agent, "game_start", seat, unit, limit.seconds)
                and _guarded(rec, seat, raw, _hook, agent, "time_control", limit.clock, limit.seconds)):
            return rec
        if limit.cpu:
            use_cpu_clock(agent)
    meters = Meters(agents)  # from here: starting the bots is not part of the game's time
    bots0 = meters.bots_total()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    with _alarms(limit) as alarm:
        _loop(env, raw, agents, rec, limit, alarm, record, meters)
    rec.cpu = {"wall": round(time.perf_counter() - wall0, 6),
               "cpu": round(time.process_time() - cpu0 + meters.bots_total() - bots0, 6)}
    _hook_all(agents, "game_end", rec, raw)
    return rec


@contextlib.contextmanager
def _alarms(limit: Limit) -> Iterator[bool]:
    """Borrow SIGALRM (and SIGPROF for CPU time) while the game runs, if this thread may; yield whether.

    The caller's handlers and timers (e.g. pytest-timeout's) are given back after.
    """
    if limit.seconds is None or not _can_alarm():
        yield False
        return
    signals = [(signal.SIGALRM, signal.ITIMER_REAL)] + ([(signal.SIGPROF, signal.ITIMER_PROF)]
                                                        if limit.cpu else [])
    started = time.monotonic()
    saved = [(sig, timer, signal.signal(sig, _on_alarm), signal.setitimer(timer, 0))
             for sig, timer in signals]
    try:
        yield True
    finally:
        for sig, timer, handler, (delay, interval) in saved:
            signal.setitimer(timer, 0)
            signal.signal(sig, handler)
            if delay > 0 and timer == signal.ITIMER_REAL:
                left = max(delay - (time.monotonic() - started), 1e-3)
                signal.setitimer(timer, left, interval)
            elif delay > 0:
                signal.setitimer(timer, delay, interval)


def _arm(limit: Limit) -> None:
    assert limit.seconds is not None
    _ARMED[0] = True
    if limit.cpu:
        signal.setitimer(signal.ITIMER_PROF, limit.seconds)
        signal.setitimer(signal.ITIMER_REAL, wall_cap(limit.seconds))
    else:
        signal.setitimer(signal.ITIMER_REAL, limit.seconds)


def _disarm(limit: Limit) -> None:
    _ARMED[0] = False
    signal.setitimer(signal.ITIMER_REAL, 0)
    if limit.cpu:
        signal.setitimer(signal.ITIMER_PROF, 0)


def _hook(agent: Agent, hook: str, *args: Any) -> None:
    """Call a bot's optional hook (see the module docstring) if it has one."""
    fn = getattr(agent, hook, None)
    if fn is not None:
        fn(*args)


def _guarded(rec: GameRecord, seat: int, raw: Any, fn: Callable[..., Any], *args: Any) -> bool:
    """Call one of a bot's methods; whatever it raises (but Ctrl-C) forfeits the game for ``seat``."""
    try:
        fn(*args)
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # noqa: BLE001 - SystemExit from a bot is its forfeit, not the run's end
        if rec.forfeit is None:
            what = getattr(fn, "__name__", "hook")
            rec.lose_by_forfeit(seat, _reason(e), f"{what}: {_error_text(e)}", _scores(raw))
        return False
    return True


def _error_text(e: BaseException) -> str:
    """``Type: message`` of a bot's exception, even one whose ``str()`` raises."""
    try:
        return f"{type(e).__name__}: {e}"
    except Exception:  # noqa: BLE001 - a hostile exception
        return type(e).__name__


def _reason(e: BaseException) -> str:
    reason = getattr(e, "forfeit_reason", None)  # an external bot's fault names its kind
    return reason if isinstance(reason, str) else EXCEPTION


def _hook_all(agents: tuple[Agent, Agent], hook: str, rec: GameRecord, raw: Any, *args: Any) -> None:
    """Call ``hook`` (with a copy of the record, or of ``args``) on both bots; raising forfeits."""
    for seat, agent in enumerate(agents):
        hook_args = (copy.deepcopy(rec),) if hook == "game_end" else copy.deepcopy(args)
        _guarded(rec, seat, raw, _hook, agent, hook, *hook_args)


def _loop(env: Any, raw: Any, agents: tuple[Agent, Agent], rec: GameRecord, limit: Limit, alarm: bool,
          record: bool, meters: Meters) -> None:
    perf = time.perf_counter
    move_time = limit.seconds
    while True:
        name = raw.agent_selection
        if raw.terminations[name] or raw.truncations[name]:
            break
        seat = 0 if name == "player_0" else 1
        v = raw.view(name)  # built for this move: the bot's own
        legal = v.legal_mask  # the loop's copy: what the bot does to its view changes nothing here
        agent = agents[seat]
        start, cpu_start = perf(), meters.start(seat) if limit.cpu else 0.0
        try:
            try:
                if alarm:
                    _arm(limit)
                with gc_paused():  # a collection (of anyone's garbage) never lands inside a timed move
                    action = decide(agent, v, raw.game_state)
            finally:
                if alarm:
                    _disarm(limit)
                _ARMED[0] = False
        except MoveTimeout as e:
            rec.lose_by_forfeit(seat, TIMEOUT, _timeout_text(limit, e.cpu), _scores(raw))
            return
        except KeyboardInterrupt:
            raise
        except BaseException as e:  # noqa: BLE001 - any bot crash (sys.exit() too) is a forfeit
            rec.lose_by_forfeit(seat, _reason(e), _error_text(e), _scores(raw))
            return
        if move_time is not None:
            late = _overrun(limit, perf() - start, meters.used(seat, cpu_start) if limit.cpu else 0.0)
            if late:
                rec.lose_by_forfeit(seat, TIMEOUT, late, _scores(raw))
                return
        try:
            a = check_action(action, legal)
        except Exception:  # noqa: BLE001 - IllegalActionError, or a hostile object's own error
            rec.lose_by_forfeit(seat, ILLEGAL, f"illegal action {_describe(action)}", _scores(raw))
            return
        env.step(a)
        rec.add_move(a, record)
        if raw.infos["player_0"]["deal_over"]:  # a deal ended in this step
            _hook_all(agents, "deal_end", rec, raw, rec.add_deal(raw.last_deal_result))
            if rec.forfeit is not None:
                return
    rec.finish(_scores(raw))


def _timeout_text(limit: Limit, by_cpu: bool) -> str:
    """Why the alarm stopped a move: its CPU time, its wall time, or the wall cap of a CPU-timed move."""
    assert limit.seconds is not None
    if by_cpu:
        return f"used its {limit.seconds}s of CPU time without moving"
    if limit.cpu:
        return (f"no move within {wall_cap(limit.seconds):g}s of wall time (the cap of a move of "
                f"{limit.seconds}s CPU time: the bot waited, or the machine is very busy)")
    return f"no move within {limit.seconds}s"


def _overrun(limit: Limit, wall: float, cpu: float) -> str | None:
    """Why a move that took ``wall`` seconds (``cpu`` of CPU) broke the limit, or None."""
    assert limit.seconds is not None
    if not limit.cpu:
        return f"took {wall:.3f}s, limit {limit.seconds}s" if wall > limit.seconds else None
    if cpu > limit.seconds:
        return f"used {cpu:.3f}s of CPU time, limit {limit.seconds}s"
    if wall > wall_cap(limit.seconds):
        return f"took {wall:.3f}s of wall time, cap {wall_cap(limit.seconds):g}s for a CPU-timed move"
    return None


def _describe(action: Any) -> str:
    try:
        what = describe_action(action)
    except Exception:  # noqa: BLE001 - a hostile action object
        what = type(action).__name__
    if isinstance(action, bool) or not hasattr(action, "__index__"):
        what += ", not an action id"
    return what


def _scores(raw: Any) -> tuple[int, int]:
    """The match score the engine holds now."""
    ms = raw.game_state.match_scores
    return (int(ms[0]), int(ms[1]))
