"""Playing the scheduled games: backends that turn tasks into game lines, and the progress bar.

A :class:`Backend` plays a list of :class:`~agents.arena.schedule.Task` and
yields one game line per task, in any order; :func:`play_missing` stores
them by index, so the results never depend on the backend or its number of
workers. :class:`InProcess` plays in this process (Agent objects allowed);
:class:`ProcessPool` in worker processes that build the bots from their
spec strings. Another backend (a Ray cluster) is one more class with a
``play`` method.
"""

from __future__ import annotations

import multiprocessing as mp
import sys
from collections.abc import Generator, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from tqdm import tqdm

from agents.base import Agent
from agents.lifetime import die_with_parent
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


def _init_worker(setup: Setup) -> None:
    # Bots are built on the first task, not here: an exception in a pool
    # initializer makes multiprocessing respawn the worker forever, while one
    # in a task reaches the parent as a clear error.
    _W.update(setup=setup, agents=None, env=None)
    die_with_parent()  # a killed arena takes its workers, and so their external bots, along


def _worker_task(task: Task) -> GameLine:
    setup: Setup = _W["setup"]
    if _W["agents"] is None:
        _W["agents"] = [build_agent(p) for p in setup.players]
        _W["env"] = make_env(setup.unit)
    return play_task(_W["agents"], _W["env"], task, setup)


def _mp_context() -> Any:
    """forkserver on Unix (no fork of a threaded parent), spawn elsewhere."""
    methods = mp.get_all_start_methods()
    return mp.get_context("forkserver" if "forkserver" in methods else "spawn")


class ProcessPool:
    """Plays the tasks in ``workers`` processes; the players must be spec strings."""

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def play(self, setup: Setup, tasks: Sequence[Task]) -> Generator[GameLine, None, None]:
        if len(tasks) <= 1:  # not worth starting processes
            yield from InProcess().play(setup, tasks)
            return
        n = min(self.workers, len(tasks))
        chunk = max(1, min(8, len(tasks) // (n * 16)))
        with _mp_context().Pool(n, initializer=_init_worker, initargs=(setup,)) as pool:
            yield from pool.imap_unordered(_worker_task, tasks, chunksize=chunk)


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
