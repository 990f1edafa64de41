"""Self-play collection throughput of train.py: environment steps per second.

Runs :func:`training.rollout.collect` (the exact code the trainer uses: vectorized tables,
observations written into a batch, masked sampling, critic values, per-seat
reward bookkeeping) with the current policy in both seats, and reports steps
per second of collection (the teacher, which costs most of a training step
when on, is not included).

    python bench/bench_collect.py                   # 128 tables x 64 steps, 1 torch thread
    python bench/bench_collect.py --envs 256 --threads 2 --rollouts 10
    python bench/bench_collect.py --assist          # with obvious moves and the endgame by rule
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from agents.nets import PolicyNet, ValueNet
from sixtysix_env.observation import FULL_OBS_SIZE, OBS_SIZE
from sixtysix_env.vector import VectorEnv
from training.config import Config
from training.opponents import Opponents
from training.rollout import Rollout, collect


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--envs", type=int, default=128)
    ap.add_argument("--steps", type=int, default=64, help="rollout steps per table")
    ap.add_argument("--rollouts", type=int, default=6)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--assist", action="store_true",
                    help="obvious moves and the exact endgame by rule, as in training")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    cfg = Config(num_envs=args.envs, rollout_steps=args.steps, opp_self=1.0, opp_snapshot=0.0,
                       opp_heuristic=0.0, hidden=[args.hidden] * 2, critic_hidden=[args.hidden] * 2)
    rng = np.random.default_rng(0)
    venv = VectorEnv(args.envs, seed=0, full_obs=True)
    opponents = Opponents(cfg, args.envs, rng)
    policy = PolicyNet(OBS_SIZE, cfg.hidden)
    critic = ValueNet(FULL_OBS_SIZE, cfg.critic_hidden)
    buf = Rollout(args.steps, args.envs, FULL_OBS_SIZE)
    assist = "full" if args.assist else "none"
    collect(venv, opponents, policy, critic, policy, buf, rng, None, assist)  # warm-up
    t0 = time.perf_counter()
    for _ in range(args.rollouts):
        collect(venv, opponents, policy, critic, policy, buf, rng, None, assist)
    dt = time.perf_counter() - t0
    steps = args.rollouts * args.envs * args.steps
    print(f"collection: {steps / dt:,.0f} env steps/s  ({steps} steps in {dt:.2f} s, {args.envs} tables, "
          f"{args.threads} torch thread(s), hidden {args.hidden}x2{', assist' if args.assist else ''})")


if __name__ == "__main__":
    main()
