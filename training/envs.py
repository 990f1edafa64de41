"""The training environments behind the one collector: a small interface, a scalar and a batched engine.

:func:`training.rollout.collect` plays a rollout through :class:`Envs`: it
copies the tables' inputs into the rollout's rows (:meth:`Envs.write`),
steps them with one action per table (:meth:`Envs.step`) and, for bot
opponents, scripted moves and the teacher, asks for the views of the
players to act (:meth:`Envs.views`). Two engines stand behind it:

- :class:`ScalarEnvs`: ``sixtysix_env.vector.VectorEnv`` (numpy arrays,
  views for free: every opponent kind, ``assist``, the teacher);
- :class:`BatchedEnvs`: the torch engine
  ``sixtysix_env.batched.vector.SelfPlayEnv`` (one tensor step for all
  tables, several times faster collection; a view costs a gather per table,
  so bot opponents are fine on a few tables, but ``assist`` and the teacher,
  which need one per learner row, stay on the scalar engine, and so do the
  rule presets other than plain German: :func:`check_config` names the key).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np
import torch

from sixtysix_env.batched.rules import UnsupportedRulesError, batched_rules
from sixtysix_env.batched.vector import SelfPlayEnv
from sixtysix_env.knowledge import PlayerView, view
from sixtysix_env.vector import VectorEnv

from .config import Config, ConfigError


@dataclass
class Outcome:
    """What one step of every table did: a deal ended, a match ended, each player's points."""

    deal_done: np.ndarray  # (N,) bool
    match_done: np.ndarray  # (N,) bool
    rewards: np.ndarray  # (N, 2) float32: game points of the deal that ended, per player


class Envs(Protocol):
    """``num_envs`` tables, each with one player to act, stepped together."""

    num_envs: int
    episode: str  # "match" or "deal": where a table's opponent is drawn again

    def write(self, obs: np.ndarray, critic_obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Copy the observations, critic inputs (the full state's first ``critic_obs.shape[1]``
        columns) and legal masks of the players to act into these rows; returns the players
        to act, (N,) int64."""
        ...

    def step(self, actions: np.ndarray) -> Outcome:
        """One legal action per table for its player to act."""
        ...

    def views(self, tables: list[int]) -> list[PlayerView]:
        """The views of the players to act at ``tables``."""
        ...


class ScalarEnvs:
    """:class:`Envs` on ``sixtysix_env.vector.VectorEnv``."""

    def __init__(self, num_envs: int, seed: int, episode: str, rules: str = "german") -> None:
        self.env = VectorEnv(num_envs, seed=seed, episode=episode, full_obs=True, rules=rules)
        self.num_envs, self.episode = num_envs, episode

    def write(self, obs: np.ndarray, critic_obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        env = self.env
        assert env.full_obs is not None
        obs[:] = env.obs
        critic_obs[:] = env.full_obs[:, :critic_obs.shape[1]]
        masks[:] = env.masks
        return env.to_act.copy()

    def step(self, actions: np.ndarray) -> Outcome:
        env = self.env
        env.step(actions)
        return Outcome(env.deal_done, env.match_done, env.rewards)

    def views(self, tables: list[int]) -> list[PlayerView]:
        return [self.env.view_of(n) for n in tables]


class BatchedEnvs:
    """:class:`Envs` on the batched torch engine (CPU): the rows are written through
    ``torch.from_numpy`` views, with no copy in between."""

    def __init__(self, num_envs: int, seed: int, episode: str, rules: str = "german") -> None:
        self.env = SelfPlayEnv(num_envs, seed, episode=episode, full_obs=True, rules=rules)
        self.num_envs, self.episode = num_envs, episode

    def write(self, obs: np.ndarray, critic_obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        env = self.env
        full = env.full_obs if env.full_obs is not None else env.obs
        torch.from_numpy(critic_obs)[:] = full[:, :critic_obs.shape[1]]
        torch.from_numpy(obs)[:] = env.obs
        torch.from_numpy(masks)[:] = env.masks
        return env.to_act.numpy()

    def step(self, actions: np.ndarray) -> Outcome:
        env = self.env
        env.step(torch.from_numpy(actions))
        return Outcome(env.deal_done.numpy(), env.match_done.numpy(), env.rewards.numpy())

    def views(self, tables: list[int]) -> list[PlayerView]:
        return [view(state, state.to_act) for state in self.env.engine.states(tables)]


def check_config(cfg: Config) -> None:
    """A ConfigError naming the key if ``cfg`` asks the batched engine for what needs views."""
    if cfg.engine != "batched":
        return
    try:
        batched_rules(cfg.rules)
    except UnsupportedRulesError as e:
        raise ConfigError(f"config key 'rules': {e}") from None
    if cfg.assist != "none":
        raise ConfigError(f"engine 'batched' needs assist 'none' (scripted moves need the scalar "
                          f"engine's views), got {cfg.assist!r}")
    if cfg.teacher:
        raise ConfigError(f"engine 'batched' needs teacher '' (a teacher labels the scalar engine's "
                          f"views), got {cfg.teacher!r}")


def make_envs(cfg: Config, seed: int) -> Envs:
    """The config's ``num_envs`` training tables on its ``engine``, dealt from ``seed``."""
    check_config(cfg)
    engine = BatchedEnvs if cfg.engine == "batched" else ScalarEnvs
    return engine(cfg.num_envs, seed, cfg.episode, cfg.rules)
