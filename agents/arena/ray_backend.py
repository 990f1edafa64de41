"""The arena on a Ray cluster: games played by Ray actors that each hold one set of bots.

``sixtysix arena A B --backend ray [--address HOST:PORT] --workers N`` plays
the schedule in ``N`` actors, one game each at a time. An actor builds fresh
bots from their spec strings for every game; every game line comes back
as soon as it ends, in any order, and :func:`~agents.arena.runner.play_missing`
stores it by index. As locally, a game starts only when no game of its deal
is in play (:func:`~agents.arena.schedule.take_free`). Each game resets its bots with the game's own seeds, so
the results are identical to a local run for the same seeds, and ``--resume``
works across backends (the backend is not part of the run's identity).

Which cluster: with ``address`` the one there (``ray.init(address=...)``);
otherwise the one this process already joined (``ray.is_initialized()``);
otherwise a local one started here for the run, bound to 127.0.0.1, with
``workers`` CPUs and no dashboard, and shut down when the run ends (also when
it is interrupted). Clusters this backend did not start are left running;
its actors end with the run either way.

``ray`` is imported only when a run starts (``pip install -e ".[ray]"``).
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Generator
from typing import Any

from .runner import GameLine, Queue, Setup, busy, play_task
from .schedule import Task, take_free

LOCAL_HOST = "127.0.0.1"


def import_ray() -> Any:
    """The ``ray`` module, or an ImportError that says how to install it."""
    try:
        import ray
    except ImportError as e:
        raise ImportError('the Ray arena backend needs Ray: pip install -e ".[ray]"') from e
    return ray


def connect(ray: Any, workers: int, address: str | None) -> bool:
    """Join the cluster to work on (the module docstring says which); True if this call
    started it (and so must shut it down)."""
    if address is not None:
        if ray.is_initialized():
            ray.shutdown()  # a run with an address works there, not on a cluster joined before
        init_keeping_handlers(ray, address=address, logging_level="WARNING")
        return True
    if ray.is_initialized():
        return False
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    init_keeping_handlers(ray, num_cpus=workers, include_dashboard=False, _node_ip_address=LOCAL_HOST,
                          logging_level="WARNING", log_to_driver=False)
    return True


def init_keeping_handlers(ray: Any, **kwargs: Any) -> None:
    """``ray.init``, then this process's own SIGTERM and SIGINT handlers again: Ray installs a
    crash reporter of its own that prints a stack and ends the process, which would skip the
    caller's clean stop (its workers shut down, "go on with --resume", its exit code)."""
    main = threading.current_thread() is threading.main_thread()
    handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)} if main else {}
    ray.init(**kwargs)
    for sig, handler in handlers.items():
        if handler is not None:  # None: not installed from Python, nothing to put back
            signal.signal(sig, handler)


class GameWorker:
    """One Ray actor's env; plays one task at a time with fresh bots (wrapped by ``ray.remote``)."""

    def __init__(self, setup: Setup) -> None:
        from .runner import env_for

        self.setup = setup
        self.env = env_for(setup)

    def play(self, task: Task) -> GameLine:
        return play_task(self.setup, self.env, task)

    def close(self) -> None:
        """Nothing to end: each game's bots end with it."""


class RayBackend:
    """Plays the tasks in ``workers`` Ray actors; the players must be spec strings."""

    def __init__(self, workers: int = 1, address: str | None = None) -> None:
        self.workers = workers
        self.address = address

    def play(self, setup: Setup, tasks: Queue) -> Generator[GameLine, None, None]:
        if not tasks:
            return
        if not all(isinstance(p, str) for p in setup.players):
            raise ValueError("the Ray backend builds bots from spec strings; pass specs, not Agent objects")
        ray = import_ray()
        started = self._connect(ray)
        try:
            yield from self._play(ray, setup, tasks)
        finally:
            if started:
                ray.shutdown()

    def _connect(self, ray: Any) -> bool:
        return connect(ray, self.workers, self.address)

    def _play(self, ray: Any, setup: Setup, tasks: Queue) -> Generator[GameLine, None, None]:
        n = min(self.workers, len(tasks))
        actors = [ray.remote(num_cpus=1)(GameWorker).remote(setup) for _ in range(n)]
        running: dict[Any, tuple[Any, Task]] = {}  # object ref -> the actor playing it, and its task
        try:
            _start_free(actors, running, tasks)
            while running:
                [ready], _ = ray.wait(list(running), num_returns=1)
                running.pop(ready)
                line = ray.get(ready)
                yield line  # the caller may queue a game again here, or stop
                _start_free(actors, running, tasks)  # also a game queued again after the others ended
        finally:
            _end(ray, actors, graceful=not running)


def _start_free(actors: list[Any], running: dict[Any, tuple[Any, Task]], tasks: Queue) -> None:
    """Give every idle actor the next queued game whose deal is not in play (none of one deal at once)."""
    for actor in actors:
        if any(a is actor for a, _ in running.values()):
            continue
        task = take_free(tasks, busy(t for _, t in running.values()))
        if task is None:
            return
        running[actor.play.remote(task)] = (actor, task)


def _end(ray: Any, actors: list[Any], graceful: bool) -> None:
    """Kill the actors; after a run that ended well, first let them close their bots (external processes)."""
    if graceful:
        try:
            ray.get([a.close.remote() for a in actors], timeout=10)
        except Exception:  # noqa: BLE001 - an actor that does not answer is killed below anyway
            pass
    for a in actors:
        ray.kill(a)
