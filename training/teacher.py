"""The kickstarting teacher: labels for the learner's rows, computed while the tables play.

Plain PPO from random play needs millions of deals to get anywhere; a
teacher term (kickstarting, Schmitt et al. 2018) pulls the policy towards a
teacher on the learner's rows. The default teacher, ``pimc-values``, labels
a row with PIMC's action values in ONE world sampled from the player's view
(a small fraction of a pimc decision); over many rows the regression on
those labels converges to PIMC's values averaged over worlds. A bot spec
(``heuristic``) labels a row with that bot's action instead.

Labels are computed in ``workers`` processes while the main process goes on
playing. Each label has its own seed, drawn in the main process, so it does
not depend on which process computes it: a run gives the same labels with
any number of workers.

The workers never outlive the training process, however it ends
(:mod:`training.workers`): they are forked when the teacher is made, before
the run starts its other threads, and :meth:`Teacher.close` kills them at
once on an interrupt or an error rather than waiting for their labels.
"""

from __future__ import annotations

import random
from concurrent.futures import Future, ProcessPoolExecutor
from typing import TYPE_CHECKING, Any

import numpy as np

from agents import make_agent
from agents.search.determinized import world_action_values
from agents.search.solver import Solver
from sixtysix_env.knowledge import PlayerView

from . import workers as worker_processes
from .config import VALUE_TEACHER

if TYPE_CHECKING:
    from .envs import Envs

_WORKER_TEACHERS: dict[str, Any] = {}  # per process: the teacher bot or solver, built on first use


def teacher_labels(spec: str, views: list[PlayerView], seeds: list[int]) -> list[Any]:
    """Teacher labels of ``views``, one seed each: PIMC's values in one sampled
    world (a dict action -> game points) for ``pimc-values``, else the bot's action."""
    if spec not in _WORKER_TEACHERS:
        _WORKER_TEACHERS[spec] = Solver() if spec == VALUE_TEACHER else make_agent(spec)
    teacher = _WORKER_TEACHERS[spec]
    out: list[Any] = []
    for v, seed in zip(views, seeds, strict=True):
        if spec == VALUE_TEACHER:
            out.append(world_action_values(v, random.Random(seed), teacher))
            teacher.clear()
        else:
            teacher.reset(seed)
            out.append(teacher.act(v))
    return out


class Teacher:
    """Queues labels of the learner's rows (:meth:`label`) and writes them into
    the rollout's arrays before the update (:meth:`finish`). Make it in the thread
    that runs the whole run (the main thread): its workers die with that thread."""

    def __init__(self, spec: str, seed: int, frac: float, workers: int = 0) -> None:
        self.spec = spec
        self.values = spec == VALUE_TEACHER
        self.rng = random.Random(seed)
        self.frac = frac
        self.pool: ProcessPoolExecutor | None = None
        if workers > 0:
            self.pool = worker_processes.start(workers, fork=True)
        self.pending: list[tuple[int, list[int], list[Any] | Future[list[Any]]]] = []

    def label(self, t: int, rows: list[int], tables: Envs,
              known: dict[int, PlayerView] | None = None) -> None:
        """Queue labels for step ``t`` of ``rows`` (a random ``frac`` of them);
        ``known``: views of some tables already built this step."""
        rng = self.rng
        picked, views = [], []
        for n in rows:
            if self.frac < 1 and rng.random() >= self.frac:
                continue
            v = known.get(n) if known else None
            if v is None:
                v = tables.views([n])[0]
            if self.values and v.legal_mask & (v.legal_mask - 1) == 0:
                continue  # one legal move: nothing to learn
            picked.append(n)
            views.append(v)
        if not picked:
            return
        seeds = [rng.getrandbits(63) for _ in picked]
        if self.pool is None:
            self.pending.append((t, picked, teacher_labels(self.spec, views, seeds)))
        else:
            self.pending.append((t, picked, self.pool.submit(teacher_labels, self.spec, views, seeds)))

    def finish(self, labelled: np.ndarray, actions: np.ndarray, values: np.ndarray) -> None:
        """Write every queued label (waits for the workers): ``labelled[t, n]``
        marks a labelled row, ``actions[t, n]`` holds a bot teacher's action,
        ``values[t, n]`` the action values of ``pimc-values`` (0 on illegal actions)."""
        for t, rows, res in self.pending:
            labels = res if isinstance(res, list) else res.result()
            for n, lab in zip(rows, labels, strict=True):
                if self.values:
                    out = values[t, n]
                    out[:] = 0.0
                    for a, q in lab.items():
                        out[a] = q
                else:
                    actions[t, n] = lab
                labelled[t, n] = True
        self.pending.clear()

    def close(self, now: bool = False) -> None:
        """Stop the worker processes (pending labels are dropped); ``now`` (an interrupt or
        an error): kill them at once instead of letting them finish their current labels."""
        pool, self.pool = self.pool, None
        self.pending.clear()
        if pool is not None:
            worker_processes.stop(pool, now)
