"""The guide network of the ``guided`` bot: a PPO checkpoint's policy and critic, run in numpy.

No file format of its own: a guide is an ordinary sixtysix PPO checkpoint
(:mod:`agents.core.checkpoint`, validated whole before use) that has a critic
seeing the full state (``config.full_critic``, :func:`sixtysix_env.observation.encode_full`).
The policy (a player's observation -> 32 logits) is the search's prior and
its model of the opponent; the critic (the full state from one player's
side -> 1) values a determinized world for that player, in game points of
the deal (training ends a value's episode at each deal's end, even at
tables that play whole matches: ``training.rollout.record_rewards``), the
scale of a deal's result and of the exact solver.

Both run batched in numpy on copies of the weights: no torch at play time,
and numpy's BLAS held to one thread for each forward (:func:`one_thread`): a
batch is big enough for OpenBLAS to start its threads, which on a busy
machine made a forward five times slower in CPU time, time a timed move
does not have.
"""

from __future__ import annotations

import functools
import os
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import ThreadpoolController

from sixtysix_env.actions import N_ACTIONS
from sixtysix_env.observation import FULL_OBS_SIZE, OBS_SIZE

from . import checkpoint
from .nets import PolicyNet, ValueNet, numpy_forward, numpy_layers

DEFAULT_GUIDE = checkpoint.DEFAULT_CHECKPOINT  # the guide a bot without ``path``/``net`` loads

Layers = list[tuple[np.ndarray, np.ndarray]]


@functools.cache
def _controller() -> ThreadpoolController:
    return ThreadpoolController()  # finds the loaded BLAS libraries once


def one_thread() -> AbstractContextManager[Any]:
    """A context in which numpy's BLAS uses one thread (about 12 µs to enter and leave)."""
    return _controller().limit(limits=1, user_api="blas")


class GuideNet:
    """A policy and a full-state critic as numpy layers (see the module docstring)."""

    __slots__ = ("critic", "policy")

    def __init__(self, policy: Layers, critic: Layers) -> None:
        if policy[0][0].shape[0] != OBS_SIZE or policy[-1][0].shape[1] != N_ACTIONS:
            raise ValueError(f"the guide's policy must map {OBS_SIZE} inputs to {N_ACTIONS} logits")
        if critic[0][0].shape[0] != FULL_OBS_SIZE or critic[-1][0].shape[1] != 1:
            raise ValueError(f"the guide's critic must map the full state ({FULL_OBS_SIZE} values) to one")
        self.policy = policy
        self.critic = critic

    @classmethod
    def from_modules(cls, policy: PolicyNet, critic: ValueNet) -> GuideNet:
        """A guide from torch networks (a trainer's live ones): the weights are copied."""
        return cls(numpy_layers(policy.net), numpy_layers(critic.net))

    @classmethod
    def from_checkpoint(cls, ckpt: dict[str, Any], path: str | os.PathLike[str] = "<memory>") -> GuideNet:
        """A guide from a loaded checkpoint; :class:`agents.core.checkpoint.CheckpointError` naming
        ``path`` if it has no critic or one that does not see the full state."""
        policy = checkpoint.policy_from(ckpt, path)  # validates the whole checkpoint first
        return cls.from_modules(policy, checkpoint.full_critic_from(ckpt, path))

    def policy_logits(self, obs: np.ndarray) -> np.ndarray:
        """Unmasked logits, shape (N, N_ACTIONS), for observations of shape (N, OBS_SIZE)."""
        with one_thread():
            return numpy_forward(self.policy, np.asarray(obs, dtype=np.float32))

    def values(self, full: np.ndarray) -> np.ndarray:
        """The critic's values, shape (N,), for full-state observations of shape (N, FULL_OBS_SIZE)."""
        with one_thread():
            return numpy_forward(self.critic, np.asarray(full, dtype=np.float32))[:, 0]


def load_guide(path: str | os.PathLike[str] | None = None) -> GuideNet:
    """The guide of a checkpoint file (``None``: :data:`DEFAULT_GUIDE`); a bad file raises
    :class:`agents.core.checkpoint.CheckpointError` naming it.

    Loading and validating a checkpoint takes about a second and the arena makes fresh bots for
    every game, so the last few guides are kept, keyed by the file's path, size and modification
    time (a guide is never changed once built)."""
    path = DEFAULT_GUIDE if path is None else Path(path)
    try:
        st = path.stat()
    except OSError:
        st = None
    if st is None:
        return GuideNet.from_checkpoint(checkpoint.load(path), path)  # the loader names the problem
    return _load_cached(str(path.resolve()), st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=4)
def _load_cached(path: str, size: int, mtime_ns: int) -> GuideNet:
    return GuideNet.from_checkpoint(checkpoint.load(path), path)
