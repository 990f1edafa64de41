"""Sixty-Six for RLlib: a turn-based ``MultiAgentEnv`` (new API stack) over the AEC env.

::

    from ray.rllib.algorithms.ppo import PPOConfig
    from sixtysix_env.rllib import SixtySixMultiAgentEnv, rllib_config

    config = rllib_config(PPOConfig(), env_runners=2)   # env, shared masked policy, sampling settings
    algo = config.build_algo()

Agents ``player_0`` and ``player_1``; only the player to act gets an
observation, ``{"observations": (312,) float32, "action_mask": (32,) float32}``,
the layout RLlib's action-masking RLModule
(``ray.rllib.examples.rl_modules.classes.action_masking_rlm``) expects. Each
step carries the rewards of both players (zero-sum, as in the AEC env); at
the end both get a last observation and ``terminateds["__all__"]``.
``config`` takes the keyword arguments of :func:`sixtysix_env.env`
(``episode``, ``reward``, ``illegal_action``, ...).

Illegal actions: the default here is ``illegal_action="lose"`` (the episode
ends, the offender gets ``-illegal_penalty``): RLlib's env check before
training samples unmasked random actions, and a masked policy never plays
one. Pass ``illegal_action="raise"`` (and ``disable_env_checking=True``) to
make any illegal action an error instead.

Throughput: RLlib pays per environment step (one module forward per step,
episode bookkeeping), so sample many envs per runner, each a cheap raw AEC
env driven directly here (no PettingZoo wrapper, no conversion of the whole
infos): :func:`rllib_config` sets ``num_envs_per_env_runner`` and long
rollout fragments; ``bench/bench_rllib.py`` measures the difference.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from .actions import N_ACTIONS
from .aec import raw_env
from .engine import PLAYER_IDS
from .observation import OBS_HIGH, OBS_LOW, OBS_SIZE

MODULE_ID = "shared"
"""The one policy both seats share (self-play)."""


def observation_space() -> gym.spaces.Dict:
    """What a player observes: the AEC observation and its mask as float32."""
    return gym.spaces.Dict({
        "observations": gym.spaces.Box(OBS_LOW, OBS_HIGH, (OBS_SIZE,), dtype=np.float32),
        "action_mask": gym.spaces.Box(0.0, 1.0, (N_ACTIONS,), dtype=np.float32),
    })


class SixtySixMultiAgentEnv(MultiAgentEnv):
    """The AEC env as an RLlib ``MultiAgentEnv``: one player acts per step (see the module docstring)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        kwargs = {"illegal_action": "lose", **dict(config or {})}
        self.aec = raw_env(**kwargs)
        self.agents = self.possible_agents = list(PLAYER_IDS)
        self.observation_spaces = {a: observation_space() for a in PLAYER_IDS}
        self.action_spaces = {a: gym.spaces.Discrete(N_ACTIONS) for a in PLAYER_IDS}
        self._seed: int | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        if seed is not None:
            self._seed = seed
        elif self._seed is not None:  # a seeded env plays a reproducible sequence of episodes
            self._seed = int(np.random.default_rng(self._seed).integers(2**31))
        self.aec.reset(seed=self._seed, options=options)
        agent = self.aec.agent_selection
        return {agent: self._observe(agent)}, {}

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        aec = self.aec
        agent = aec.agent_selection
        aec.step(int(action_dict[agent]))
        rewards = {a: float(r) for a, r in aec.rewards.items()}
        if all(aec.terminations.values()):
            obs = {a: self._observe(a) for a in PLAYER_IDS}
            done = {a: True for a in PLAYER_IDS}
            return obs, rewards, {**done, "__all__": True}, {**{a: False for a in PLAYER_IDS},
                                                               "__all__": False}, {}
        nxt = aec.agent_selection
        return {nxt: self._observe(nxt)}, rewards, {"__all__": False}, {"__all__": False}, {}

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = self.aec.observe(agent)
        return {"observations": obs["observation"], "action_mask": obs["action_mask"].astype(np.float32)}


def rllib_config(config: Any, *, env_runners: int = 2, envs_per_runner: int = 64, learners: int = 0,
                 env_config: dict[str, Any] | None = None) -> Any:
    """``config`` (an ``AlgorithmConfig``, e.g. ``PPOConfig()``) set up for Sixty-Six self-play.

    The env, one shared action-masking module for both seats, and the
    sampling settings that keep the env runners busy: ``envs_per_runner``
    envs per runner, sampled in fragments of ``16 * envs_per_runner`` steps, one
    torch thread per runner. Scales by these arguments alone.
    """
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    spec = RLModuleSpec(module_class=ActionMaskingTorchRLModule, observation_space=observation_space(),
                        action_space=gym.spaces.Discrete(N_ACTIONS),
                        model_config={"head_fcnet_hiddens": [256, 256]})
    return (
        config.environment(SixtySixMultiAgentEnv, env_config=dict(env_config or {}))
        .framework("torch")
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=envs_per_runner,
                     rollout_fragment_length=16, num_cpus_per_env_runner=1)
        .learners(num_learners=learners)
        .multi_agent(policies={MODULE_ID}, policy_mapping_fn=lambda agent_id, episode, **kw: MODULE_ID)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MODULE_ID: spec}))
    )


__all__ = ["MODULE_ID", "SixtySixMultiAgentEnv", "observation_space", "rllib_config"]
