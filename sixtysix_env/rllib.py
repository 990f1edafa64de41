"""Sixty-Six for RLlib (new API stack): multi-agent envs and a ready ``AlgorithmConfig``.

::

    from ray.rllib.algorithms.ppo import PPOConfig
    from sixtysix_env.rllib import rllib_config

    config = rllib_config(PPOConfig(), env_runners=2)   # env, shared masked policy, sampling settings
    algo = config.build_algo()

Two envs, the same observations: the player to act gets
``{"observations": (312,) float32, "action_mask": (32,) float32}``, the
layout RLlib's action-masking RLModule
(``ray.rllib.examples.rl_modules.classes.action_masking_rlm``) expects.
``config`` takes the keyword arguments of :func:`sixtysix_env.env`
(``episode``, ``reward``, ``illegal_action``, ``rules``, ...): ``{"rules": "kawu"}``
or ``rllib_config(..., rules="kawu")`` plays a preset of docs/rules-variants.md.

- :class:`SixtySixMultiAgentEnv`: one table, turn-based. Agents ``player_0``
  and ``player_1``; each step carries the rewards of both players (zero-sum,
  as in the AEC env); at the end both get a last observation and
  ``terminateds["__all__"]``.
- :class:`SixtySixTablesEnv` (``rllib_config(tables=N)``): ``tables``
  tables (``config["tables"]``, default 64) in one env, agents
  ``t{i}_player_{j}``. A step acts for the player to act at every live
  table; each table is exactly a :class:`SixtySixMultiAgentEnv` episode (its
  two agents get their rewards and ``terminateds[agent]=True`` when it ends),
  and a finished table waits for the others: an agent cannot come back
  within an RLlib episode.

Illegal actions: the default here is ``illegal_action="lose"`` (the episode,
or the table's, ends; the offender gets ``-illegal_penalty``): RLlib's env
check before training samples unmasked random actions, and a masked policy
never plays one. Pass ``illegal_action="raise"`` (and
``disable_env_checking=True``) to make any illegal action an error instead.

Throughput: RLlib pays per move (episode bookkeeping, connectors and metrics
for every agent step: most of the time, the env itself a few percent) and
per env step and episode (one forward, callbacks, episode objects). So
:func:`rllib_config` steps 64 one-table envs per runner by default (one
batched forward per vector step), about 13 times RLlib's default of one env
per runner (``bench/bench_rllib.py``). Many tables in one env
(``tables=128``) spread the per-env-step costs over more moves and sample
about 15% faster still; steps are then counted as RLlib's env steps (each up
to ``tables`` moves): counting agent steps there, Ray 2.60 fails on a table
that sits out a whole rollout fragment (``int(nan)`` in its step count).
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
from .variants import rules_from_spec

MODULE_ID = "shared"
"""The one policy both seats share (self-play)."""

# What a multi-agent step returns: observations, rewards, terminateds, truncateds, infos (by agent id).
StepDicts = tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]


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

    # Overrides ignored: RLlib's MultiAgentEnv types agent ids as Hashable (dict keys are
    # invariant) and itself overrides gymnasium.Env's single-agent signatures; ours are str ids.
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None  # type: ignore[override]
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        if seed is not None:
            self._seed = seed
        elif self._seed is not None:  # a seeded env plays a reproducible sequence of episodes
            self._seed = int(np.random.default_rng(self._seed).integers(2**31))
        self.aec.reset(seed=self._seed, options=options)
        agent = self.aec.agent_selection
        return {agent: self._observe(agent)}, {}

    def step(self, action_dict: dict[str, Any]  # type: ignore[override]
             ) -> StepDicts:
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


def table_agent(table: int, player: str) -> str:
    """The agent id of ``player`` at table ``table``: ``t3_player_1``."""
    return f"t{table}_{player}"


class SixtySixTablesEnv(MultiAgentEnv):
    """``tables`` tables in one env: each step acts for the player to act at every live table.

    One env step carries one decision per table, so RLlib's fixed costs per
    env step (connectors, one batched forward, callbacks) serve ``tables``
    moves. Agents are ``t{i}_player_{j}``; each table plays one episode of
    :class:`SixtySixMultiAgentEnv` (same ``config``), its two agents end with
    ``terminateds[agent]=True`` and their deal rewards, and the table then
    sits out until every table has finished (``terminateds["__all__"]``): an
    agent cannot come back in an RLlib episode.
    """

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        n = int(config.pop("tables", 64))
        self.tables = [SixtySixMultiAgentEnv(config) for _ in range(n)]
        self._ids = [{p: table_agent(t, p) for p in PLAYER_IDS} for t in range(n)]
        self._of = {aid: (t, p) for t, ids in enumerate(self._ids) for p, aid in ids.items()}
        self.agents = self.possible_agents = list(self._of)
        self.observation_spaces = {a: observation_space() for a in self.agents}
        self.action_spaces = {a: gym.spaces.Discrete(N_ACTIONS) for a in self.agents}
        self._live: list[int] = []
        self._rng: np.random.Generator | None = None

    # Overrides ignored: RLlib's MultiAgentEnv types agent ids as Hashable (dict keys are
    # invariant) and itself overrides gymnasium.Env's single-agent signatures; ours are str ids.
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None  # type: ignore[override]
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        obs: dict[str, Any] = {}
        for t, env in enumerate(self.tables):
            table_seed = None if self._rng is None else int(self._rng.integers(2**31))
            o, _ = env.reset(seed=table_seed, options=options)
            ids = self._ids[t]
            obs.update({ids[p]: v for p, v in o.items()})
        self._live = list(range(len(self.tables)))
        return obs, {}

    def step(self, action_dict: dict[str, Any]  # type: ignore[override]
             ) -> StepDicts:
        obs: dict[str, Any] = {}
        rewards: dict[str, float] = {}
        terms: dict[str, bool] = {}
        live = []
        for t in self._live:
            env, ids = self.tables[t], self._ids[t]
            p = env.aec.agent_selection
            o, r, term, _, _ = env.step({p: action_dict[ids[p]]})
            obs.update({ids[q]: v for q, v in o.items()})
            rewards.update({ids[q]: v for q, v in r.items() if v or q == p})
            if term["__all__"]:
                terms[ids[PLAYER_IDS[0]]] = terms[ids[PLAYER_IDS[1]]] = True
            else:
                live.append(t)
        self._live = live
        terms["__all__"] = not live
        return obs, rewards, terms, {"__all__": False}, {}


def rllib_config(config: Any, *, env_runners: int = 2, envs_per_runner: int = 64, tables: int = 0,
                 learners: int = 0, env_config: dict[str, Any] | None = None, rules: Any = None) -> Any:
    """``config`` (an ``AlgorithmConfig``, e.g. ``PPOConfig()``) set up for Sixty-Six self-play.

    The env (``envs_per_runner`` one-table :class:`SixtySixMultiAgentEnv`
    per runner, where an env step is a move; with ``tables``, that many
    :class:`SixtySixTablesEnv` of ``tables`` tables, where an env step is up
    to ``tables`` moves), one shared action-masking module for every seat,
    one torch thread per runner. Scales by these arguments alone. ``rules``:
    a preset spec for every table (checked here, sent to the runners as its spec string).
    """
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    spec = RLModuleSpec(module_class=ActionMaskingTorchRLModule, observation_space=observation_space(),
                        action_space=gym.spaces.Discrete(N_ACTIONS),
                        model_config={"head_fcnet_hiddens": [256, 256]})
    env_config = dict(env_config or {})
    env_cls = SixtySixTablesEnv if tables else SixtySixMultiAgentEnv
    if tables:
        env_config["tables"] = tables
    if rules is not None:
        env_config["rules"] = rules_from_spec(rules).spec  # a bad spec fails here, not on a runner
    return (
        config.environment(env_cls, env_config=env_config)
        .framework("torch")
        .env_runners(num_env_runners=env_runners, num_envs_per_env_runner=envs_per_runner,
                     rollout_fragment_length="auto", num_cpus_per_env_runner=1)
        .learners(num_learners=learners)
        .multi_agent(policies={MODULE_ID}, policy_mapping_fn=shared_module)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MODULE_ID: spec}))
    )


def shared_module(agent_id: str, episode: Any, **kwargs: Any) -> str:
    """Every agent (both seats of every table) plays the one shared module: self-play."""
    return MODULE_ID


__all__ = [
    "MODULE_ID", "SixtySixMultiAgentEnv", "SixtySixTablesEnv", "observation_space", "rllib_config",
    "shared_module", "table_agent",
]
