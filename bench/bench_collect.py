"""Self-play collection throughput of train.py on either engine: environment steps per second.

Runs :func:`training.rollout.collect`, the one collector the trainer uses
(the tables behind :mod:`training.envs`, observations written into the
rollout, the masked sampler, critic values, per-seat reward bookkeeping),
with the default networks (256x2 policy, 256x2 critic on the 384-feature
full state) and the current policy in both seats, and reports environment
steps per second of collection (the teacher, which costs most of a training
step when on, is not included).

    python bench/bench_collect.py                          # scalar engine, 128 tables x 64 steps
    python bench/bench_collect.py --engine batched --envs 2048
    python bench/bench_collect.py --assist                 # obvious moves and the endgame by rule
"""

from __future__ import annotations

# isort: off
from agents.arena.argtypes import positive_int
import training.threads  # noqa: F401 - first: torch's threads must not spin (training/threads.py)
# isort: on
import argparse
import statistics
import time

import numpy as np
import torch

from agents.core.nets import PolicyNet, ValueNet
from sixtysix_env.observation import FULL_OBS_SIZE, OBS_SIZE
from training.config import ENGINES, Config
from training.envs import make_envs
from training.opponents import Opponents
from training.rollout import Players, Rollout, collect


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", choices=ENGINES, default="scalar")
    ap.add_argument("--envs", type=positive_int, default=128)
    ap.add_argument("--steps", type=positive_int, default=64, help="rollout steps per table")
    ap.add_argument("--rollouts", type=positive_int, default=6)
    ap.add_argument("--threads", type=positive_int, default=1)
    ap.add_argument("--hidden", type=positive_int, default=256)
    ap.add_argument("--assist", action="store_true",
                    help="obvious moves and the exact endgame by rule, as in training (scalar engine)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    cfg = Config(engine=args.engine, num_envs=args.envs, rollout_steps=args.steps, opp_self=1.0,
                 opp_snapshot=0.0, opp_heuristic=0.0, hidden=[args.hidden] * 2,
                 critic_hidden=[args.hidden] * 2, assist="full" if args.assist else "none", teacher="")
    rng = np.random.default_rng(0)
    tables = make_envs(cfg, 0)
    opponents = Opponents(cfg, args.envs, rng)
    policy = PolicyNet(OBS_SIZE, cfg.hidden)
    players = Players(policy, ValueNet(FULL_OBS_SIZE, cfg.critic_hidden), policy)
    buf = Rollout(args.steps, args.envs, FULL_OBS_SIZE)
    collect(tables, opponents, players, buf, rng, assist=cfg.assist)  # warm-up
    rates = []
    for _ in range(args.rollouts):
        t0 = time.perf_counter()
        collect(tables, opponents, players, buf, rng, assist=cfg.assist)
        rates.append(args.envs * args.steps / (time.perf_counter() - t0))
    print(f"{args.engine} collection: {statistics.median(rates):,.0f} env steps/s median, {max(rates):,.0f} "
          f"best ({args.rollouts} rollouts of {args.steps} steps x {args.envs} tables, {args.threads} torch "
          f"thread(s), hidden {args.hidden}x2{', assist' if args.assist else ''})")


if __name__ == "__main__":
    main()
