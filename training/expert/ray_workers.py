"""Self-play generation as Ray tasks: one task per chunk of deals, on one machine or a cluster.

Which cluster is the arena's rule (:func:`agents.arena.ray_backend.connect`):
with ``ray_address`` the one there; else one this process already joined;
else a local one started for the run (``workers`` CPUs, bound to 127.0.0.1,
no dashboard) and shut down with it. The weights go to the object store once
per iteration (``ray.put``) and every task reads them from there; the tasks'
samples are joined in deal order, so the result equals the local run's
(:mod:`training.expert.generation`). On a cluster every node needs this
package installed (``pip install -e ".[ray]"``) at the same version.

``ray`` is imported only when a run uses it; without it the run stops with a
one-line error that says how to install it.
"""

from __future__ import annotations

import contextlib
from typing import Any

from agents.arena.ray_backend import connect, import_ray
from training.config import ConfigError

from .generation import Done, chunks, timed_chunk
from .selfplay import GUIDED, Player, Samples, Settings, Weights


class RayGenerator:
    """Generation on Ray; :meth:`close` shuts down a local instance it started."""

    def __init__(self, workers: int, address: str | None, player: Player = GUIDED) -> None:
        self.ray = import_ray()
        self.player = player
        try:
            self.started = connect(self.ray, workers, address)
        except Exception as e:  # noqa: BLE001 - Ray's errors for a cluster it cannot join vary
            reason = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
            where = f"the Ray cluster at {address}" if address else "a local Ray instance"
            raise ConfigError(f"config key 'backend' is 'ray': cannot start or join {where}: "
                              f"{reason}") from None
        self.task: Any = self.ray.remote(num_cpus=1, max_retries=0)(ray_chunk)

    def generate(self, weights: Weights, settings: Settings, deals: int, chunk: int,
                 done: Done) -> tuple[Samples, float]:
        ref = self.ray.put(weights)
        pending = [(self.task.remote(ref, settings, first, count, self.player), count)
                   for first, count in chunks(deals, chunk)]
        parts, cpu = [], 0.0
        try:
            for future, count in pending:  # in deal order; the tasks run meanwhile
                samples, seconds = self.ray.get(future)
                parts.append(samples)
                cpu += seconds
                done(count)
        except BaseException:  # an interrupt or an error: stop the tasks still running
            for future, _ in pending:
                with contextlib.suppress(Exception):
                    self.ray.cancel(future, force=True)
            raise
        return Samples.concat(parts), cpu

    def close(self) -> None:
        if self.started:
            self.ray.shutdown()


def ray_chunk(weights: Weights, settings: Settings, first: int, count: int,
              player: Player = GUIDED) -> tuple[Samples, float]:
    """:func:`~training.expert.generation.timed_chunk` in a Ray worker, whose torch only builds
    the networks: one thread, so the tasks on a node do not compete for its cores."""
    import torch

    torch.set_num_threads(1)
    return timed_chunk(weights, settings, first, count, player)
