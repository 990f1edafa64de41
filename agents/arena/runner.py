"""Playing the scheduled games: backends that turn tasks into game lines, and the progress bar.

A :class:`Backend` plays a list of :class:`~agents.arena.schedule.Task` and
yields one game line per task, in any order; :func:`play_missing` stores
them by index, so the results never depend on the backend or its number of
workers. Every backend starts a game only when no other game of its deal is
in play (issue 40: two copies of one bot must never hold both halves of a
duplicate pair at once). :class:`InProcess` plays in this process (Agent objects allowed);
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
from agents.core.forfeits import CRASH
from agents.core.lifetime import die_with, die_with_parent
from agents.external import ExternalAgent
from agents.four import make_four_agent
from agents.play import WALL, make_env, play_table
from agents.record import GameRecord
from agents.registry import make_agent

from .corrected import DEFAULT_VALUE, PLAIN, correction
from .fairness import ReferenceGuard, cpu_share, share_text
from .lines import AIVAT
from .pairing import percent
from .records import REFERENCE_TIMEOUT, WORKER_DIED, ResultsWriter, is_replay, replay_line
from .schedule import Task, deal_key, take_free
from .sprt import SequentialStop

AgentLike = str | Agent
GameLine = dict[str, Any]


@dataclass(frozen=True)
class Setup:
    """What every game of a run shares: the players (specs or Agent objects), unit and time control
    (each player's per-move limit)."""

    players: tuple[AgentLike, ...]
    unit: str
    move_times: tuple[float | None, ...]
    clock: str = WALL
    sandbox: bool = False
    rules: str = "german"
    estimator: str = PLAIN  # "aivat": each game line gets its corrected points (agents.arena.corrected)
    value: str = DEFAULT_VALUE
    table: int = 2  # players at a table: 4 seats each bot of a pairing as a team (both partners)


Queue = deque[Task]


class Backend(Protocol):
    """Plays tasks taken from a queue that may grow while it plays (games to play again), never two
    of one deal at once (:func:`~agents.arena.schedule.take_free`); yields their lines and a replay
    line before a game it plays again itself; closing the generator stops the games in flight."""

    def play(self, setup: Setup, tasks: Queue) -> Generator[GameLine, None, None]: ...


def build_agent(player: AgentLike, sandbox: bool = False, table: int = 2) -> Agent:
    """A fresh bot of a spec string (sandboxed if asked and external; at a four-player ``table`` a
    four-player bot, :func:`~agents.four.make_four_agent`, unless ``exec:``), or the Agent object itself."""
    if not isinstance(player, str):
        return player
    four = table == 4 and not player.strip().lower().startswith("exec:")
    agent = make_four_agent(player) if four else make_agent(player)
    if sandbox and isinstance(agent, ExternalAgent):
        agent.sandbox = True
    return agent


def close_built(players: Sequence[AgentLike], agents: Sequence[Agent]) -> None:
    """End the bots built from spec strings that hold resources (``close``: external processes)."""
    for p, agent in zip(players, agents, strict=True):
        if isinstance(p, str) and hasattr(agent, "close"):
            agent.close()


def game_line(task: Task, rec: GameRecord, match_value: int = 1) -> GameLine:
    """The results-file line of a finished game: where it sits in the schedule, then the record;
    ``match_value`` 2 for a double game (docs/rules-variants.md V1.3), stored only then."""
    d = {"type": "game", "index": task.index, "pairing": [task.a, task.b], "seats": list(task.seats),
         "cluster": task.cluster}
    d.update(rec.to_dict())
    if match_value != 1:
        d["match_value"] = match_value
    return d


def env_for(setup: Setup) -> Any:
    """The env every game of a run is played in: its unit and rules preset (four players: the
    partnership game's env, docs/rules-four.md)."""
    if setup.table == 4:
        return make_env(setup.unit, 4)
    return make_env(setup.unit, rules=setup.rules)


def match_value(rec: GameRecord, env: Any) -> int:
    """What a finished game counts for: the engine's match value of a match won on the cards
    (a forfeit or a single deal counts once)."""
    if rec.unit != "match" or rec.forfeit is not None:
        return 1
    return int(getattr(env.unwrapped.game_state, "match_value", 1))


def play_task(setup: Setup, env: Any, task: Task, wrap: Any = None) -> GameLine:
    """Play one task with fresh bots (a new instance, or process, per game and seat: no bot remembers
    the other game of a duplicate pair, and partners share nothing but their views); ``wrap(agent,
    player)`` may wrap each. With the aivat estimator the line gets its corrected points here, in the
    process that played it (in parallel)."""
    agents = [build_agent(setup.players[p], setup.sandbox, setup.table) for p in task.seats]
    try:
        seated = [wrap(a, p) if wrap else a for a, p in zip(agents, task.seats, strict=True)]
        limits = tuple(setup.move_times[p] for p in task.seats)
        rec = play_table(seated, task.seed, setup.unit, limits, agent_seeds=task.agent_seeds, env=env,
                         clock=setup.clock)
    finally:
        close_built([setup.players[p] for p in task.seats], agents)
    line = game_line(task, rec, match_value(rec, env))
    if setup.estimator != PLAIN:
        line[AIVAT] = correction(line, agents, setup.value)  # one field for either weighing
    return line


class InProcess:
    """Plays the tasks one after another in this process, with one env."""

    def play(self, setup: Setup, tasks: Queue) -> Generator[GameLine, None, None]:
        env = None
        while tasks:
            task = tasks.popleft()
            env = env or env_for(setup)
            yield play_task(setup, env, task)


# Per-process state of pool workers (set by the initializer, the env built on the first task).
_W: dict[str, Any] = {}


def _init_worker(setup: Setup, turn: Any, arena: int) -> None:
    # Bots are built per task, not here: an exception in a pool
    # initializer breaks the pool, while one in a task reaches the parent as a clear error.
    _W.update(setup=setup, env=None, turn=turn)
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


def _worker_task(task: Task) -> GameLine:
    setup: Setup = _W["setup"]
    if _W["env"] is None:
        _W["env"] = env_for(setup)
    turn = _W["turn"]
    turn.value = -1
    return play_task(setup, _W["env"], task, lambda a, p: _Tracked(a, p, turn))


def _mp_context() -> Any:
    """forkserver on Unix (no fork of a threaded parent), spawn elsewhere."""
    methods = mp.get_all_start_methods()
    return mp.get_context("forkserver" if "forkserver" in methods else "spawn")


def crash_line(setup: Setup, task: Task, player: int) -> GameLine:
    """The line of a game whose bot killed its worker process twice: that bot forfeits ("crash")."""
    seat = task.seats.index(player) if player in task.seats else 0
    names = tuple(str(setup.players[p]) for p in task.seats)
    rec = GameRecord(task.seed, setup.unit, names, task.agent_seeds)
    rec.lose_by_forfeit(seat, CRASH, "the bot's worker process died (os._exit, a signal or a crash in "
                        "native code), also when the game was played again alone")
    return game_line(task, rec)


class ProcessPool:
    """Plays the tasks in ``workers`` processes; the players must be spec strings.

    At most ``workers`` games run at a time and a game starts only when the
    caller asks for the next line, so after a sequential stop decides no
    new game starts, and closing the generator terminates the running ones.
    A bot that kills its worker process cannot hang or end the run: the
    pool is rebuilt, the games that were in flight are played again one at
    a time in a single worker (each announced by a replay line, see
    :func:`~agents.arena.records.replay_line`), and a game that kills that
    worker too is recorded as a forfeit (reason "crash") of the bot that was
    being called. A game starts only when no game of its deal is in play.
    """

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def play(self, setup: Setup, tasks: Queue) -> Generator[GameLine, None, None]:
        turn = _mp_context().RawValue("i", -1)
        while tasks:
            lost = yield from self._run(setup, tasks, self.workers, turn)
            for task in lost:  # one at a time: a game that breaks the worker now is the culprit
                yield replay_line(task, WORKER_DIED)
                if (yield from self._run(setup, deque([task]), 1, turn)):
                    yield crash_line(setup, task, turn.value)

    def _run(self, setup: Setup, tasks: Queue, n: int, turn: Any) -> Generator[GameLine, None, list[Task]]:
        """Play from ``tasks`` in a pool of ``n``, ``n`` at a time; if a worker dies, return the
        tasks that were in flight (the others stay queued)."""
        ex = ProcessPoolExecutor(n, mp_context=_mp_context(), initializer=_init_worker,
                                 initargs=(setup, turn, os.getpid()))
        running: dict[Any, Task] = {}
        ok = False
        try:
            while tasks or running:
                while len(running) < n and (t := take_free(tasks, busy(running.values()))) is not None:
                    running[ex.submit(_worker_task, t)] = t
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                lost = []
                for fut in finished:
                    t = running.pop(fut)
                    if isinstance(fut.exception(), BrokenProcessPool):
                        lost.append(t)
                    else:
                        yield fut.result()
                if lost:
                    return lost + list(running.values())
            ok = True
            return []
        finally:
            _shutdown(ex, ok)


def busy(running: Iterable[Task]) -> set[int]:
    """The deals in play: no other game of them may start (:func:`~agents.arena.schedule.take_free`)."""
    return {deal_key(t) for t in running}


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
                 stop: SequentialStop | None = None, guard: ReferenceGuard | None = None,
                 report_every: int = 0, lookahead: int = 2, replayed: list[int] | None = None) -> int:
    """Play the games of ``tasks`` not yet in ``done`` (which they join); return how many leading games count.

    Without ``stop`` that is all of them. With it, finished games are fed to
    the test in index order and play stops once it decides (no new game
    starts, running ones are stopped): the count is then the deciding game's
    index plus one, whatever order the games finish in. Each game is written
    to ``writer`` as it arrives, except one that ``guard`` voids (a reference
    bot's time forfeit), which is played again instead. Every game played
    again (voided, or in flight when a worker died) is written as a replay
    line and its index appended to ``replayed``: reports count them.
    """
    order = [t.index for t in tasks]
    if stop is not None and stop.catch_up(order, done):
        return stop.played  # a resumed run whose recorded games already decide
    by_index = {t.index: t for t in tasks}
    position = {t.index: k for k, t in enumerate(tasks)}
    pending = deque(t for t in tasks if t.index not in done)
    queue: Queue = deque()

    def refill() -> None:
        """With a sequential stop, start games at most ``lookahead`` places past the first one not
        counted yet: a slow game holds the decision back, so nobody runs far ahead of it."""
        limit = len(tasks) if stop is None else stop.played + lookahead
        while pending and position[pending[0].index] < limit:
            queue.append(pending.popleft())

    refill()
    bar = Progress(len(tasks), len(tasks) - len(pending) - len(queue), names, done.values(), progress,
                   report_every)
    results = backend.play(setup, queue)
    try:
        for line in results:
            if guard is not None and not is_replay(line) and guard.void(line):
                queue.appendleft(by_index[line["index"]])
                line = replay_line(by_index[line["index"]], REFERENCE_TIMEOUT)
            if is_replay(line):
                note_replay(line, writer, replayed)
                continue
            done[line["index"]] = line
            if writer is not None:
                writer.write(line)
            bar.update(line)
            if stop is not None and stop.catch_up(order, done):
                return stop.played
            refill()
    finally:
        results.close()  # stops (terminates) a worker pool still playing
        bar.close()
    return len(tasks)


def note_replay(line: GameLine, writer: ResultsWriter | None, replayed: list[int] | None) -> None:
    """Record that a game is played again: in the results file and in ``replayed``."""
    if writer is not None:
        writer.write(line)
    if replayed is not None:
        replayed.append(line["index"])


class Progress:
    """Progress on stderr: a tqdm bar with the standings (``bar``), or a line every ``every`` games
    (0: none)."""

    def __init__(self, total: int, initial: int, names: list[str], done: Iterable[GameLine], bar: bool,
                 every: int = 0) -> None:
        self.names, self.total, self.count, self.every = names, total, initial, every
        self.score = [0.0] * len(names)
        self.played = [0] * len(names)
        self.new: list[GameLine] = []
        for line in done:
            self._count(line)
        self.bar = tqdm(total=total, initial=initial, unit="game", dynamic_ncols=True, file=sys.stderr) \
            if bar else None
        self._show()

    def _count(self, line: GameLine) -> None:
        seats, w = line["seats"], line["winner"]
        for s in (0, 1):
            p = seats[s]
            self.played[p] += 1
            self.score[p] += 0.5 if w is None else float(w == s)

    def _standings(self) -> str:
        order = sorted(range(len(self.names)), key=lambda i: -self.score[i] / max(1, self.played[i]))
        return " ".join(f"{self.names[i]} {percent(self.score[i] / self.played[i])}"
                        for i in order[:4] if self.played[i])

    def _show(self) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(self._standings(), refresh=False)

    def update(self, line: GameLine) -> None:
        self._count(line)
        self.new.append(line)
        self.count += 1
        if self.bar is not None:
            self._show()
            self.bar.update(1)
        elif self.every and (self.count % self.every == 0 or self.count == self.total):
            share = share_text(cpu_share(self.new[-self.every:]))
            print(f"  {self.count}/{self.total} games: {self._standings()}"
                  + (f"; {share}" if share else ""), file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
