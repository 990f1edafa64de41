"""RLlib sampling speed through :mod:`sixtysix_env.rllib`, next to a plain loop over the same env.

    pip install -e ".[rllib]"
    python bench/bench_rllib.py [--runners 2] [--steps 20000]

Three figures, in environment steps (moves) per second:

- plain loop: one :class:`SixtySixMultiAgentEnv` stepped with random legal
  actions in this process (the ceiling: the env's own cost);
- RLlib, one env per runner: ``num_envs_per_env_runner=1`` (RLlib's default),
  i.e. one module forward and one episode update per move;
- RLlib as :func:`sixtysix_env.rllib.rllib_config` sets it up: 64 envs per
  runner, so one batched forward serves many moves.

The RLlib figures time ``sample()`` calls (one rollout fragment per env, as
training makes them) on all remote env runners at once, after a warm-up,
the policy being the untrained action-masking module.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import ray
from ray.rllib.algorithms.ppo import PPOConfig

from sixtysix_env.rllib import SixtySixMultiAgentEnv, rllib_config


def plain_loop(steps: int) -> float:
    env, rng = SixtySixMultiAgentEnv({"episode": "deal"}), np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    start = time.perf_counter()
    for _ in range(steps):
        [(agent, o)] = obs.items()
        obs, _, term, _, _ = env.step({agent: rng.choice(np.flatnonzero(o["action_mask"]))})
        if term["__all__"]:
            obs, _ = env.reset()
    return steps / (time.perf_counter() - start)


def rllib_sampling(runners: int, envs_per_runner: int, steps: int) -> float:
    """Steps per second of ``runners`` remote env runners sampling ``steps`` steps in all."""
    config = rllib_config(PPOConfig(), env_runners=runners, envs_per_runner=envs_per_runner,
                          env_config={"episode": "deal"})
    algo = config.build_algo()
    try:
        group = algo.env_runner_group
        per_runner = max(1, steps // runners)

        def sample(runner, n=per_runner):  # noqa: ANN001, ANN202
            # sample() as training calls it: one fragment per env. Not sample(num_timesteps=n):
            # RLlib re-validates every finished episode of a call at each step (quadratic).
            done = 0
            while done < n:
                done += sum(e.env_steps() for e in runner.sample())
            return done

        group.foreach_env_runner(lambda r: sample(r, n=200), local_env_runner=False)  # warm-up
        start = time.perf_counter()
        done = sum(group.foreach_env_runner(sample, local_env_runner=False))
        return done / (time.perf_counter() - start)
    finally:
        algo.stop()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runners", type=int, default=2)
    p.add_argument("--steps", type=int, default=20_000)
    args = p.parse_args()
    print(f"plain loop (1 process):            {plain_loop(args.steps):8.0f} steps/s", flush=True)
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(num_cpus=args.runners + 1, include_dashboard=False, _node_ip_address="127.0.0.1",
             logging_level="WARNING", log_to_driver=False)
    try:
        for envs in (1, 64):
            rate = rllib_sampling(args.runners, envs, args.steps // (1 if envs > 1 else 4))
            print(f"RLlib, {args.runners} runners x {envs:2d} envs:         {rate:8.0f} steps/s", flush=True)
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
