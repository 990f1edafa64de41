"""Playing the scheduled games: backends that turn tasks into game lines, and the progress bar.

A :class:`Backend` plays a list of :class:`~agents.arena.schedule.Task` and
yields one game line per task, in any order; :func:`play_missing` stores
them by index, so the results never depend on the backend or its number of
workers. :class:`InProcess` plays in this process (Agent objects allowed);
:class:`ProcessPool` in worker processes that build the bots from their
spec strings; :class:`~agents.arena.ray_backend.RayBackend` (in its own module, chosen by
:mod:`~agents.arena.api`) in Ray actors.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import sys
from collections import deque
from collections.abc import Generator, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Protocol

from tqdm import tqdm

from agents.base import Agent
from agents.lifetime import die_with, die_with_parent
from agents.play import GameRecord, make_env, play_game
from agents.registry import make_agent

from .pairing import percent
from .records import ResultsWriter
from .schedule import Task
from .sprt import SequentialStop

AgentLike = str | Agent
GameLine = dict[str, Any]


@dataclass(frozen=True)
class Setup:
    """What every game of a run shares: the players (specs or Agent objects), unit and move time."""

    players: tuple[AgentLike, ...]
    unit: str
    move_time: float | None


class Backend(Protocol):
    """Plays tasks; closing the generator it returns stops the games still in flight."""

    def play(self, setup: Setup, tasks: Sequence[Task]) -> Generator[GameLine, None, None]: ...


def build_agent(player: AgentLike) -> Agent:
    """The bot of a spec string, or the Agent object itself."""
    return make_agent(player) if isinstance(player, str) else player


def close_built(players: Sequence[AgentLike], agents: Sequence[Agent]) -> None:
    """End the bots built from spec strings that hold resources (``close``: external processes)."""
    for p, agent in zip(players, agents, strict=True):
        if isinstance(p, str) and hasattr(agent, "close"):
            agent.close()


def game_line(task: Task, rec: GameRecord) -> GameLine:
    """The results-file line of a finished game: where it sits in the schedule, then the record."""
    d = {"type": "game", "index": task.index, "pairing": [task.a, task.b], "seats": list(task.seats),
         "cluster": task.cluster}
    d.update(rec.to_dict())
    return d


def play_task(agents: Sequence[Agent], env: Any, task: Task, setup: Setup) -> GameLine:
    rec = play_game(agents[task.seats[0]], agents[task.seats[1]], task.seed, setup.unit, setup.move_time,
                    agent_seeds=task.agent_seeds, env=env)
    return game_line(task, rec)


class InProcess:
    """Plays the tasks one after another in this process, with one bot per player and one env."""

    def play(self, setup: Setup, tasks: Sequence[Task]) -> Generator[GameLine, None, None]:
        if not tasks:
            return
        agents = [build_agent(p) for p in setup.players]
        env = make_env(setup.unit)
        try:
            for task in tasks:
                yield play_task(agents, env, task, setup)
        finally:  # bots built here from specs (external processes) end with the run
            close_built(setup.players, agents)


# Per-process state of pool workers (set by the initializer, bots built on the first task).
_W: dict[str, Any] = {}


def _init_worker(setup: Setup, turn: Any, arena: int) -> None:
    # Bots are built on the first task, not here: an exception in a pool
    # initializer breaks the pool, while one in a task reaches the parent as a clear error.
    _W.update(setup=setup, agents=None, env=None, turn=turn)
    die_with_parent()  # a killed arena takes its workers, and so their external bots, along
    die_with(arena)  # also when the parent is a forkserver, which outlives the arena while workers live


class _Tracked:
    """A worker's bot that notes in shared memory which player it is before every call,
    so that the parent knows whose call killed the worker (``os._exit``, a crash in C)."""

    def __init__(self, agent: Agent, player: int, turn: Any) -> None:
        self._agent, self._player, self._turn = agent, player, turn

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._agent, name)
        if not callable(value):
            return value

        def call(*args: Any, **kwargs: Any) -> Any:
            self._turn.value = self._player
            return value(*args, **kwargs)

        return call


def _worker_chunk(tasks: Sequence[Task]) -> list[GameLine]:
    setup: Setup = _W["setup"]
    if _W["agents"] is None:
        _W["agents"] = [_Tracked(build_agent(p), i, _W["turn"]) for i, p in enumerate(setup.players)]
        _W["env"] = make_env(setup.unit)
    lines = []
    for task in tasks:
        _W["turn"].value = -1
        lines.append(play_task(_W["agents"], _W["env"], task, setup))
    return lines


def _mp_context() -> Any:
    """forkserver on Unix (no fork of a threaded parent), spawn elsewhere."""
    methods = mp.get_all_start_methods()
    return mp.get_context("forkserver" if "forkserver" in methods else "spawn")


def crash_line(setup: Setup, task: Task, player: int) -> GameLine:
    """The line of a game whose bot killed its worker process twice: that bot forfeits ("crash")."""
    seat = task.seats.index(player) if player in task.seats else 0
    names = (str(setup.players[task.seats[0]]), str(setup.players[task.seats[1]]))
    rec = GameRecord(task.seed, setup.unit, names, task.agent_seeds, winner=1 - seat)
    rec.forfeit = {"seat": seat, "reason": "crash", "detail": "the bot's worker process died (os._exit, a "
                   "signal or a crash in native code), also when the game was played again alone"}
    return game_line(task, rec)


Chunks = list[list[Task]]


class ProcessPool:
    """Plays the tasks in ``workers`` processes; the players must be spec strings.

    A bot that kills its worker process cannot hang or end the run: the
    pool is rebuilt, the games that were in flight are played again one at
    a time in a single worker, and a game that kills that worker too is
    recorded as a forfeit (reason "crash") of the bot that was being called.
    """

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def play(self, setup: Setup, tasks: Sequence[Task]) -> Generator[GameLine, None, None]:
        if len(tasks) <= 1:  # not worth starting processes
            yield from InProcess().play(setup, tasks)
            return
        n = min(self.workers, len(tasks))
        chunk = max(1, min(8, len(tasks) // (n * 16)))
        rest: Chunks = [list(tasks[i:i + chunk]) for i in range(0, len(tasks), chunk)]
        turn = _mp_context().RawValue("i", -1)
        while rest:
            lost, rest = yield from self._run(setup, rest, n, turn, 2 * n)
            singles = [[t] for c in lost for t in c]
            while singles:  # one game at a time: a game that breaks the worker now is the culprit
                culprit, singles = yield from self._run(setup, singles, 1, turn, 1)
                if culprit:
                    yield crash_line(setup, culprit[0][0], turn.value)
                    singles = culprit[1:] + singles

    def _run(self, setup: Setup, chunks: Chunks, n: int, turn: Any, window: int
             ) -> Generator[GameLine, None, tuple[Chunks, Chunks]]:
        """Play ``chunks`` in a pool of ``n``, at most ``window`` at a time; if a worker dies,
        return (chunks lost, chunks not started)."""
        ex = ProcessPoolExecutor(n, mp_context=_mp_context(), initializer=_init_worker,
                                 initargs=(setup, turn, os.getpid()))
        queue, running, ok = deque(chunks), {}, False
        try:
            while queue or running:
                while queue and len(running) < window:
                    c = queue.popleft()
                    running[ex.submit(_worker_chunk, c)] = c
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                lost = []
                for fut in finished:
                    c = running.pop(fut)
                    if isinstance(fut.exception(), BrokenProcessPool):
                        lost.append(c)
                    else:
                        yield from fut.result()
                if lost:
                    return lost + list(running.values()), list(queue)
            ok = True
            return [], []
        finally:
            _shutdown(ex, ok)


def _shutdown(ex: ProcessPoolExecutor, ok: bool) -> None:
    """Shut a pool down; unless it ended well, terminate its workers at once (they may be mid-game)."""
    if ok:
        ex.shutdown(wait=True)
        return
    procs = list((getattr(ex, "_processes", None) or {}).values())
    ex.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        p.terminate()
    for p in procs:
        p.join(2)


def backend_for(workers: int) -> Backend:
    """The local backend for ``workers`` processes (1: this process)."""
    return InProcess() if workers == 1 else ProcessPool(workers)


def play_missing(setup: Setup, names: list[str], tasks: Sequence[Task], done: dict[int, GameLine],
                 backend: Backend, *, writer: ResultsWriter | None = None, progress: bool = False,
                 stop: SequentialStop | None = None) -> int:
    """Play the games of ``tasks`` not yet in ``done`` (which they join); return how many leading games count.

    Without ``stop`` that is all of them. With it, finished games are fed to
    the test in index order and play stops once it decides: the count is
    then the deciding game's index plus one, whatever order the games finish
    in. Each game is written to ``writer`` as it arrives.
    """
    order = [t.index for t in tasks]
    if stop is not None and stop.catch_up(order, done):
        return stop.played  # a resumed run whose recorded games already decide
    todo = [t for t in tasks if t.index not in done]
    bar = Progress(len(tasks), len(tasks) - len(todo), names, done.values()) if progress else None
    results = backend.play(setup, todo)
    try:
        for line in results:
            done[line["index"]] = line
            if writer is not None:
                writer.write(line)
            if bar is not None:
                bar.update(line)
            if stop is not None and stop.catch_up(order, done):
                return stop.played
    finally:
        results.close()  # stops (terminates) a worker pool still playing
        if bar is not None:
            bar.close()
    return len(tasks)


class Progress:
    """tqdm bar on stderr: games done, rate, ETA, and the current standings."""

    def __init__(self, total: int, initial: int, names: list[str], done: Iterable[GameLine]) -> None:
        self.names = names
        self.score = [0.0] * len(names)
        self.played = [0] * len(names)
        for line in done:
            self._count(line)
        self.bar = tqdm(total=total, initial=initial, unit="game", dynamic_ncols=True, file=sys.stderr)
        self._show()

    def _count(self, line: GameLine) -> None:
        seats, w = line["seats"], line["winner"]
        for s in (0, 1):
            p = seats[s]
            self.played[p] += 1
            self.score[p] += 0.5 if w is None else float(w == s)

    def _show(self) -> None:
        order = sorted(range(len(self.names)), key=lambda i: -self.score[i] / max(1, self.played[i]))
        text = " ".join(f"{self.names[i]} {percent(self.score[i] / self.played[i])}"
                        for i in order[:4] if self.played[i])
        self.bar.set_postfix_str(text, refresh=False)

    def update(self, line: GameLine) -> None:
        self._count(line)
        self._show()
        self.bar.update(1)

    def close(self) -> None:
        self.bar.close()
