"""The arena on a Ray cluster: games played by Ray actors that each hold one set of bots.

``sixtysix arena A B --backend ray [--address HOST:PORT] --workers N`` plays
the schedule in ``N`` actors. Each actor builds the bots from their spec
strings once and plays chunks of tasks with them; every game line comes back
as soon as its chunk ends, in any order, and :func:`~agents.arena.runner.play_missing`
stores it by index. Each game resets its bots with the game's own seeds, so
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
from collections import deque
from collections.abc import Generator, Sequence
from typing import Any

from .runner import GameLine, Setup, build_agent, close_built, play_task
from .schedule import Task

LOCAL_HOST = "127.0.0.1"


def import_ray() -> Any:
    """The ``ray`` module, or an ImportError that says how to install it."""
    try:
        import ray
    except ImportError as e:
        raise ImportError('the Ray arena backend needs Ray: pip install -e ".[ray]"') from e
    return ray


class GameWorker:
    """One Ray actor's bots and env; plays chunks of tasks with them (wrapped by ``ray.remote``)."""

    def __init__(self, setup: Setup) -> None:
        from agents.play import make_env

        self.setup = setup
        self.agents = [build_agent(p) for p in setup.players]
        self.env = make_env(setup.unit)

    def play(self, tasks: Sequence[Task]) -> list[GameLine]:
        return [play_task(self.agents, self.env, task, self.setup) for task in tasks]

    def close(self) -> None:
        close_built(self.setup.players, self.agents)


class RayBackend:
    """Plays the tasks in ``workers`` Ray actors; the players must be spec strings."""

    def __init__(self, workers: int = 1, address: str | None = None) -> None:
        self.workers = workers
        self.address = address

    def play(self, setup: Setup, tasks: Sequence[Task]) -> Generator[GameLine, None, None]:
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
        """Join the cluster to play on; True if this call started it (and so must shut it down)."""
        if self.address is not None:
            if ray.is_initialized():
                ray.shutdown()  # a run with an address plays there, not on a cluster joined before
            ray.init(address=self.address, logging_level="WARNING")
            return True
        if ray.is_initialized():
            return False
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        ray.init(num_cpus=self.workers, include_dashboard=False, _node_ip_address=LOCAL_HOST,
                 logging_level="WARNING", log_to_driver=False)
        return True

    def _play(self, ray: Any, setup: Setup, tasks: Sequence[Task]) -> Generator[GameLine, None, None]:
        n = min(self.workers, len(tasks))
        chunk = max(1, min(8, len(tasks) // (n * 16)))
        queue = deque(list(tasks[i:i + chunk]) for i in range(0, len(tasks), chunk))
        actors = [ray.remote(num_cpus=1)(GameWorker).remote(setup) for _ in range(n)]
        running: dict[Any, Any] = {}  # object ref -> the actor playing it
        try:
            for actor in actors:  # two chunks per actor in flight: the next is ready when one ends
                for _ in range(2):
                    if queue:
                        running[actor.play.remote(queue.popleft())] = actor
            while running:
                [ready], _ = ray.wait(list(running), num_returns=1)
                actor = running.pop(ready)
                if queue:
                    running[actor.play.remote(queue.popleft())] = actor
                yield from ray.get(ready)
        finally:
            _end(ray, actors, graceful=not running)


def _end(ray: Any, actors: list[Any], graceful: bool) -> None:
    """Kill the actors; after a run that ended well, first let them close their bots (external processes)."""
    if graceful:
        try:
            ray.get([a.close.remote() for a in actors], timeout=10)
        except Exception:  # noqa: BLE001 - an actor that does not answer is killed below anyway
            pass
    for a in actors:
        ray.kill(a)
