"""What changes over a run, step by step: the learning rate, the teacher's weight, the snapshot.

Small pure functions of the config and the environment step, so each is
tested on its own and ``train.loop`` only applies them.
"""

from __future__ import annotations

import numpy as np

from .config import Config


def learning_rate(cfg: Config, step: int) -> float:
    """The Adam step size at ``step``: with ``anneal_lr`` a linear decay from
    ``learning_rate`` at step 0 to ``lr_floor * learning_rate`` at ``total_steps`` (and
    after), else ``learning_rate``."""
    if not cfg.anneal_lr:
        return cfg.learning_rate
    left = max(0.0, 1.0 - step / cfg.total_steps)
    return cfg.learning_rate * (cfg.lr_floor + (1 - cfg.lr_floor) * left)


def teacher_weight(cfg: Config, step: int, has_teacher: bool) -> float:
    """The weight of the teacher term at ``step``: from ``teacher_coef`` at step 0 linearly
    to ``teacher_min`` at ``teacher_steps`` (and after); 0 without a teacher."""
    if not has_teacher:
        return 0.0
    fade = max(0.0, 1.0 - step / cfg.teacher_steps)
    return cfg.teacher_min + (cfg.teacher_coef - cfg.teacher_min) * fade


def snapshot_pick(rng: np.random.Generator, pool_size: int) -> int | None:
    """The index of the snapshot the snapshot tables play this rollout, uniformly from the
    pool (one draw from ``rng``); None for an empty pool (then they play the current policy,
    and ``rng`` is not used)."""
    return int(rng.integers(pool_size)) if pool_size else None
