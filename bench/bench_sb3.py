"""MaskablePPO (sb3-contrib) against the random opponent on the Gymnasium wrapper.

A benchmark, not a test: trains for ``--steps`` learner decisions on single
deals (``episode="deal"``, reward +-game points), then plays ``--eval``
deals against the uniformly random legal opponent, seats random, and prints
the mean game points per deal and the deal win rate, next to a uniformly
random policy in the same seats as the baseline.

    .venv/bin/python bench/bench_sb3.py [--steps 100000] [--eval 2000] [--seed 0]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from agents.arena.argtypes import positive_int
from sixtysix_env import SixtySixGymEnv

# MaskablePPO's settings for this benchmark: a deal's reward comes at its end, so no discount
SETTINGS = {"n_steps": 2048, "batch_size": 256, "n_epochs": 4, "learning_rate": 3e-4, "gamma": 1.0,
            "ent_coef": 0.01, "policy_kwargs": {"net_arch": [128, 128]}, "device": "cpu"}


def evaluate(env: SixtySixGymEnv, choose, n_deals: int, seed: int) -> tuple[float, float, float]:
    """Mean game points per deal, win rate, and standard error of the mean."""
    rewards = []
    for i in range(n_deals):
        obs, _ = env.reset(seed=seed + i)
        total = 0.0
        while True:
            obs, reward, terminated, _, _ = env.step(choose(obs, env.action_masks()))
            total += reward
            if terminated:
                break
        rewards.append(total)
    r = np.asarray(rewards)
    return float(r.mean()), float((r > 0).mean()), float(r.std(ddof=1) / np.sqrt(len(r)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=positive_int, default=100_000, help="training decisions")
    parser.add_argument("--eval", type=positive_int, default=2000, help="evaluation deals")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    from sb3_contrib import MaskablePPO  # only now: --help and a bad option need no sb3-contrib

    torch.set_num_threads(1)

    model = MaskablePPO("MlpPolicy", SixtySixGymEnv(episode="deal"), seed=args.seed, **SETTINGS)
    start = time.perf_counter()
    model.learn(total_timesteps=args.steps)
    train_s = time.perf_counter() - start

    eval_env = SixtySixGymEnv(episode="deal")
    rng = np.random.default_rng(args.seed)
    eval_seed = 10_000_000 + args.seed

    def ppo(obs, mask):
        return int(model.predict(obs, action_masks=mask, deterministic=True)[0])

    def random_policy(obs, mask):
        return int(rng.choice(np.flatnonzero(mask)))

    print(f"trained {args.steps} steps in {train_s:.0f} s ({args.steps / train_s:,.0f} steps/s)")
    for name, policy in (("MaskablePPO", ppo), ("random", random_policy)):
        mean, win, se = evaluate(eval_env, policy, args.eval, eval_seed)
        print(f"{name:>12} vs random: {mean:+.3f} +- {se:.3f} game points/deal, wins {win:.1%} of deals")


if __name__ == "__main__":
    main()
