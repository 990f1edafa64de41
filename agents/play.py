"""Play one game between bots through the PettingZoo environment: two players, or four in teams.

:func:`play_table` (and :func:`play_game`, its two-player form) is the only
place bots meet the environment in the arena, so whatever the arena measures
is what users of ``sixtysix_env.env()`` and ``sixtysix_env.aec_four.env()``
get. The loop is written against the game contract
(:mod:`sixtysix_env.contract`): the same code referees a two-player game
(seats 0 and 1) and a four-player partnership game (seats 0..3, team =
``seat % 2``, docs/rules-four.md), where every seat has its own bot object
and partners share nothing but what their views show.
It also enforces fair play (docs/rules.md section 4.4): a bot that raises, returns
an illegal action or overruns the per-move time limit loses the match at
once by forfeit (at four players: for its team), and the :class:`GameRecord`
says which seat and why.

Misbehaving bots never crash the caller: anything a bot's ``reset``, ``act``
or hook raises (``SystemExit`` from ``sys.exit()`` and other
``BaseException`` included; only ``KeyboardInterrupt`` passes, so Ctrl-C
still stops a run) forfeits the game for that bot, as does an ``act`` that
returns anything but a legal action id. A bot's ``name`` is shown with
``str()`` (its type's name if even that fails), and what a bot prints goes to
stderr, never into the caller's stdout.

Time limits: ``move_time`` on a ``clock`` (``"wall"`` or ``"cpu"``: the bot's
own CPU time), as :mod:`agents.movetime` defines and measures them; search
bots (:class:`~agents.search.budget.Anytime`) then budget by the same clock.
A move over its limit is forfeited when it returns; on Unix, from the main
thread (as in arena worker processes), an alarm also interrupts a bot still
thinking at the deadline with :class:`~agents.movetime.MoveTimeout`, a
``BaseException``, so a bot's ``except Exception`` cannot swallow it. It is
raised only at a safe point: in the bot's own code, never inside an import,
a finalizer or an interpreter hook (code stuck there, or in a long C call,
is caught when it leaves). An external bot under the CPU clock is charged
its own process tree's CPU time, never the arena's; its wall cap bounds
waiting, with its own message. Python's cyclic garbage collector is paused
during a move (``agents.search.budget.gc_paused``): a full collection over
another bot's tables could take tens of milliseconds, charged to whoever
moved. Timeouts depend on machine load, so runs with a ``move_time`` are
reproducible only as long as no bot comes near its limit.

Bots cannot hurt the game or the caller through what they are given: each
move builds a new view for the bot (the loop keeps its own legal mask), a
bot that ``requires_state`` gets a deep copy of the state, and the hooks
get copies of the deal and the record. An edit is at most that bot's
forfeit.

Every record holds ``cpu``: the wall time of the game and the CPU time this
process and the bots' own processes spent in it, for the CPU share the
arena reports (a low share means a busy machine). Both are finite and never
negative, whatever a bot's ``cpu_time()`` meter reads.

A bot's exception may name its own forfeit reason in a ``forfeit_reason``
attribute (external bots: "timeout", "crash", "malformed", "illegal",
"protocol"). Optional hooks, called when a bot has them (one that raises
forfeits like ``act``): ``game_rules(rules)`` right after ``reset``, with the
game's rules object (:class:`sixtysix_env.variants.Rules`, or
:class:`sixtysix_env.four.FourRules` at a four-player table), then
``game_start(seat, unit, move_time)``, ``time_control(clock, move_time)``, ``deal_end(deal)`` with each
entry of ``GameRecord.deals``, and ``game_end(record)`` when the game is over
(also after a forfeit).
"""

from __future__ import annotations

import contextlib
import copy
import math
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from sixtysix_env.actions import check_action, describe_action
from sixtysix_env.aec import env as aec_env
from sixtysix_env.aec_four import env as aec_four_env
from sixtysix_env.engine import OVER, State
from sixtysix_env.knowledge import PlayerView, view
from sixtysix_env.seeding import derive_seed

from .base import Agent
from .core.forfeits import EXCEPTION, ILLEGAL, TIMEOUT
from .movetime import (
    CLOCKS,
    CPU,
    WALL,
    Limit,
    Meters,
    MoveTimeout,
    alarms,
    arm,
    check_clock,
    check_move_time,
    disarm,
    overrun,
    seat_move_times,
    timeout_text,
    use_cpu_clock,
    wall_cap,
)
from .record import GameRecord, deal_dict, outcome_dict
from .search.budget import gc_paused

UNITS = ("match", "deal")
TABLES = (2, 4)  # players at a table: a two-player game, or a four-player partnership game

__all__ = ["CLOCKS", "CPU", "EXCEPTION", "ILLEGAL", "TIMEOUT", "UNITS", "WALL", "GameRecord", "agent_name",
           "TABLES", "check_clock", "check_move_time", "deal_entry", "decide", "derive_seed", "make_env",
           "play_deal", "play_game", "play_table", "seat_of", "wall_cap"]


def agent_name(agent: Any) -> str:
    """A bot's ``name`` as a str, whatever it is (its type's name if even ``str()`` fails)."""
    try:
        return str(agent.name)
    except Exception:  # noqa: BLE001 - a broken name is the bot's problem, not the arena's
        return type(agent).__name__


def make_env(unit: str = "match", players: int = 2, **kwargs: Any) -> Any:
    """The wrapped PettingZoo env for a game unit ("match" or "deal") at a table of ``players``
    (2: ``sixtysix_env.env``, which takes ``rules``; 4: the partnership game's env)."""
    if unit not in UNITS:
        raise ValueError(f"unit must be one of {UNITS}, got {unit!r}")
    if players not in TABLES:
        raise ValueError(f"players must be one of {TABLES}, got {players!r}")
    return aec_four_env(episode=unit, **kwargs) if players == 4 else aec_env(episode=unit, **kwargs)


def seat_of(raw: Any, name: str) -> int:
    """The seat of the env's agent ``name`` (``"player_3"``: 3)."""
    return int(raw.possible_agents.index(name))


def deal_entry(raw: Any, before: Any) -> dict[str, Any] | None:
    """The record entry of the deal the env's last step ended (``before``: the game state the step
    was applied to), or None: the two-player env says so in its infos, a four-player deal in its
    state's result."""
    if len(raw.possible_agents) == 4:
        return None if before.result is None else outcome_dict(before.result)
    return deal_dict(raw.last_deal_result) if raw.infos["player_0"]["deal_over"] else None


def decide(agent: Agent, v: Any, state: Any) -> int:
    """The bot's move: it sees its view, and the true state only if it ``requires_state`` (the oracle).

    The oracle gets a deep copy of the state: what it edits is its own.
    """
    if getattr(agent, "requires_state", False):
        return agent.act(v, state=copy.deepcopy(state))  # type: ignore[call-arg]
    return agent.act(v)


_DECIDE = decide.__code__  # the call holding a move: the alarm raises only below it (agents.movetime)

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
    move_time: float | None | tuple[float | None, float | None] = None,
    record: bool = True,
    *,
    agent_seeds: tuple[int, int] | None = None,
    env: Any = None,
    clock: str = WALL,
) -> GameRecord:
    """Play one two-player game, ``agent_0`` as player_0 and ``agent_1`` as player_1
    (:func:`play_table` with two bots).

    ``seed`` fixes the cards (the env's ``reset(seed=...)``); bots are reset
    with ``agent_seeds`` (default: derived from ``seed`` and the seat, so
    as public as ``seed``). ``move_time`` is the per-move limit in seconds
    (None: no limit) on the ``clock`` (``"wall"`` or ``"cpu"``, see the
    module docstring), or a pair: each seat's own limit (a bot benched at
    another budget than its opponents'). Pass a reusable ``env`` made by :func:`make_env` for
    the same ``unit`` to save its construction per game.
    """
    return play_table((agent_0, agent_1), seed, unit, move_time, record, agent_seeds=agent_seeds, env=env,
                      clock=clock)


def play_table(
    agents: Sequence[Agent],
    seed: int,
    unit: str = "match",
    move_time: float | None | tuple[float | None, ...] = None,
    record: bool = True,
    *,
    agent_seeds: Sequence[int] | None = None,
    env: Any = None,
    clock: str = WALL,
) -> GameRecord:
    """Play one game with ``agents[s]`` in seat s: two bots, or four (seats 0 and 2 against 1 and 3).

    As :func:`play_game`; ``move_time`` may give each seat its own limit
    (a tuple of one per seat), and ``env`` must be one of
    :func:`make_env` for ``len(agents)`` players. Give each seat its own bot
    object: partners share nothing but what their views show.
    """
    if unit not in UNITS:
        raise ValueError(f"unit must be one of {UNITS}, got {unit!r}")
    n = len(agents)
    if n not in TABLES:
        raise ValueError(f"a table seats {' or '.join(map(str, TABLES))} bots, got {n}")
    if len({id(a) for a in agents}) != n:
        raise ValueError("give each seat its own bot object")
    try:
        times = seat_times(move_time, n)
        check_clock(clock)
    except ValueError as e:
        raise ValueError(f"move_time/clock: {e}") from None
    limits = tuple(Limit(t, clock) for t in times)
    if env is None:
        env = make_env(unit, n)
    if len(env.unwrapped.possible_agents) != n:
        raise ValueError(f"env seats {len(env.unwrapped.possible_agents)} players, the game has {n} bots")
    with contextlib.redirect_stdout(sys.stderr):  # a bot's prints never reach the caller's stdout
        return _play(tuple(agents), seed, unit, limits, record, agent_seeds, env)


def seat_times(move_time: Any, seats: int) -> tuple[float | None, ...]:
    """Each seat's per-move limit: one for all, or a tuple of one per seat (each checked)."""
    if seats == 2:
        return seat_move_times(move_time)
    if isinstance(move_time, tuple):
        if len(move_time) != seats:
            raise ValueError(f"per-seat limits must have {seats} entries, got {len(move_time)}")
        return tuple(check_move_time(t) for t in move_time)
    return (check_move_time(move_time),) * seats


def _play(agents: tuple[Agent, ...], seed: int, unit: str, limits: tuple[Limit, ...], record: bool,
          agent_seeds: Sequence[int] | None, env: Any) -> GameRecord:
    if agent_seeds is None:
        agent_seeds = tuple(derive_seed(seed, "seat", s) for s in range(len(agents)))
    rec = GameRecord(
        seed=seed,
        unit=unit,
        players=tuple(agent_name(a) for a in agents),
        agent_seeds=tuple(int(s) for s in agent_seeds),
    )
    env.reset(seed=seed)
    raw = env.unwrapped
    rules = raw.game_state.rules
    for seat, (agent, s, limit) in enumerate(zip(agents, agent_seeds, limits, strict=True)):
        if not (_guarded(rec, seat, raw, agent.reset, s)
                and _guarded(rec, seat, raw, _hook, agent, "game_rules", rules)
                and _guarded(rec, seat, raw, _hook, agent, "game_start", seat, unit, limit.seconds)
                and _guarded(rec, seat, raw, _hook, agent, "time_control", limit.clock, limit.seconds)):
            return rec
        if limit.cpu:
            use_cpu_clock(agent)
    meters = Meters(agents)  # from here: starting the bots is not part of the game's time
    bots0 = meters.bots_total()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    timed = [lim for lim in limits if lim.seconds is not None]
    with alarms(timed[0] if timed else limits[0]) as alarm:
        _loop(env, raw, agents, rec, limits, alarm, record, meters)
    bots = meters.bots_total() - bots0  # a bot's meter is its own: it may fail, or go back
    rec.cpu = {"wall": _seconds(time.perf_counter() - wall0),
               "cpu": _seconds(time.process_time() - cpu0 + max(0.0, bots))}
    _hook_all(agents, "game_end", rec, raw)
    return rec


def _seconds(x: float) -> float:
    """A measured time as a record holds it: finite, never negative, to the microsecond."""
    return round(x, 6) if math.isfinite(x) and x > 0 else 0.0


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


def _hook_all(agents: tuple[Agent, ...], hook: str, rec: GameRecord, raw: Any, *args: Any) -> None:
    """Call ``hook`` (with a copy of the record, or of ``args``) on every bot; raising forfeits."""
    for seat, agent in enumerate(agents):
        hook_args = (copy.deepcopy(rec),) if hook == "game_end" else copy.deepcopy(args)
        _guarded(rec, seat, raw, _hook, agent, hook, *hook_args)


def _loop(env: Any, raw: Any, agents: tuple[Agent, ...], rec: GameRecord, limits: tuple[Limit, ...],
          alarms_here: bool, record: bool, meters: Meters) -> None:
    perf = time.perf_counter
    while True:
        name = raw.agent_selection
        if raw.terminations[name] or raw.truncations[name]:
            break
        seat = seat_of(raw, name)
        v = raw.view(name)  # built for this move: the bot's own
        legal = v.legal_mask  # the loop's copy: what the bot does to its view changes nothing here
        agent, limit = agents[seat], limits[seat]
        alarm = alarms_here and limit.seconds is not None
        late = None
        # The collector is paused until the move's time is read: a collection (of anyone's garbage)
        # never lands inside a timed move, nor at its end, where enabling it may start one at once.
        with gc_paused():
            start, cpu_start = perf(), meters.start(seat) if limit.cpu else 0.0
            try:
                try:
                    if alarm:
                        arm(limit, meters.own[seat] is not None, _DECIDE)
                    action = decide(agent, v, raw.game_state)
                finally:
                    disarm(limit, alarm)
            except MoveTimeout as e:
                disarm(limit, alarm)  # again: a timeout a bot swallowed once may come back until then
                rec.lose_by_forfeit(seat, TIMEOUT, timeout_text(limit, e.cpu), _scores(raw))
                return
            except KeyboardInterrupt:
                raise
            except BaseException as e:  # noqa: BLE001 - any bot crash (sys.exit() too) is a forfeit
                rec.lose_by_forfeit(seat, _reason(e), _error_text(e), _scores(raw))
                return
            if limit.seconds is not None:
                late = overrun(limit, perf() - start, meters.used(seat, cpu_start) if limit.cpu else 0.0)
        if late:
            rec.lose_by_forfeit(seat, TIMEOUT, late, _scores(raw))
            return
        try:
            a = check_action(action, legal)
        except Exception:  # noqa: BLE001 - IllegalActionError, or a hostile object's own error
            rec.lose_by_forfeit(seat, ILLEGAL, f"illegal action {_describe(action)}", _scores(raw))
            return
        before = raw.game_state
        env.step(a)
        rec.add_move(a, record)
        entry = deal_entry(raw, before)
        if entry is not None:  # a deal ended in this step
            rec.deals.append(entry)
            _hook_all(agents, "deal_end", rec, raw, entry)
            if rec.forfeit is not None:
                return
    rec.finish(_scores(raw))


def _describe(action: Any) -> str:
    try:
        what = describe_action(action)
    except Exception:  # noqa: BLE001 - a hostile action object
        what = type(action).__name__
    if isinstance(action, bool) or not hasattr(action, "__index__"):
        what += ", not an action id"
    return what


def _scores(raw: Any) -> tuple[int, int]:
    """The match score the engine holds now (per side: player, or team)."""
    ms = raw.game_state.match_scores
    return (int(ms[0]), int(ms[1]))
