"""RLlib sampling speed through :mod:`sixtysix_env.rllib`, next to a plain loop over the same env.

    pip install -e ".[rllib]"
    python bench/bench_rllib.py [--runners 2] [--steps 40000] [--tables 128]

Figures in moves (decisions, RLlib's agent steps) per second:

- plain loop: one :class:`SixtySixMultiAgentEnv` stepped with random legal
  actions in this process (the env's own cost);
- RLlib, one-table env, 1 envs per runner (RLlib's default) and 64 (what
  :func:`sixtysix_env.rllib.rllib_config` sets up): RLlib's per-move
  bookkeeping (episodes, connectors, metrics) on top of one forward per
  vector step;
- RLlib, one :class:`SixtySixTablesEnv` of ``--tables`` tables per runner
  (``rllib_config(tables=N)``), one env step a move at every live table.

The RLlib figures time ``sample()`` calls (one rollout fragment, as training
makes them) on all remote env runners at once, after a warm-up, the policy
being the untrained action-masking module.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from agents.arena.argtypes import positive_int

# ray[rllib] is imported only once the arguments are read: --help and a bad option need no rllib


def plain_loop(steps: int) -> float:
    from sixtysix_env.rllib import SixtySixMultiAgentEnv

    env, rng = SixtySixMultiAgentEnv({"episode": "deal"}), np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    start = time.perf_counter()
    for _ in range(steps):
        [(agent, o)] = obs.items()
        obs, _, term, _, _ = env.step({agent: rng.choice(np.flatnonzero(o["action_mask"]))})
        if term["__all__"]:
            obs, _ = env.reset()
    return steps / (time.perf_counter() - start)


def sample_moves(runner, n: int) -> int:  # noqa: ANN001 - an RLlib EnvRunner
    """Moves sampled by ``runner`` in ``sample()`` calls until at least ``n``.

    Not ``sample(num_timesteps=n)``: RLlib re-validates every finished
    episode of a call at each step (quadratic).
    """
    done = 0
    while done < n:
        done += sum(e.agent_steps() for e in runner.sample())
    return done


def rllib_sampling(runners: int, envs_per_runner: int, tables: int, steps: int) -> float:
    """Moves per second of ``runners`` remote env runners sampling ``steps`` moves in all."""
    from ray.rllib.algorithms.ppo import PPOConfig

    from sixtysix_env.rllib import rllib_config

    config = rllib_config(PPOConfig(), env_runners=runners, envs_per_runner=envs_per_runner, tables=tables,
                          env_config={"episode": "deal"})
    algo = config.build_algo()
    try:
        group = algo.env_runner_group
        per_runner = max(1, steps // runners)
        group.foreach_env_runner(lambda r: sample_moves(r, 1000), local_env_runner=False)  # warm-up
        start = time.perf_counter()
        done = sum(group.foreach_env_runner(lambda r: sample_moves(r, per_runner), local_env_runner=False))
        return done / (time.perf_counter() - start)
    finally:
        algo.stop()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runners", type=positive_int, default=2)
    p.add_argument("--steps", type=positive_int, default=40_000,
                   help="moves per RLlib figure (a quarter for 1 env)")
    p.add_argument("--tables", type=positive_int, default=128, help="tables per env of the default setup")
    args = p.parse_args()
    import ray

    print(f"plain loop (1 process):                {plain_loop(args.steps):8.0f} moves/s", flush=True)
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(num_cpus=args.runners + 1, include_dashboard=False, _node_ip_address="127.0.0.1",
             logging_level="WARNING", log_to_driver=False)
    try:
        for label, envs, tables, steps in (
            ("one-table env x  1", 1, 0, args.steps // 4),
            ("one-table env x 64", 64, 0, args.steps),
            (f"1 env of {args.tables} tables", 1, args.tables, args.steps),
        ):
            rate = rllib_sampling(args.runners, envs, tables, steps)
            print(f"RLlib, {args.runners} runners, {label:18s}: {rate:8.0f} moves/s", flush=True)
    finally:
        ray.shutdown()
    print(f"load average: {open('/proc/loadavg').read().split()[:3]}")


if __name__ == "__main__":
    main()
