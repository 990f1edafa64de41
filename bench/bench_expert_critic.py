"""How well an expert-iteration critic predicts deals it never trained on (training/expert).

Usage::

    python bench/bench_expert_critic.py CHECKPOINT [--iterations 4 --deals 64 --value-positions 0 4]

1. **Fresh deals**: ``--fresh`` deals of guided self-play on CHECKPOINT's
   networks (a seed no run uses), as expert-iteration samples.
2. **The critic as it is**: its squared error on those positions against the
   deal results, next to their variance (what always predicting the mean
   scores).
3. **After expert iteration**: for each ``--learning-rate`` and
   ``--value-positions`` setting, a run of ``--iterations`` iterations
   warm-started from CHECKPOINT (``init``), then the same measurement, and
   the error on the last iteration's own samples (what it trained on: the
   gap is how much it learnt deals by heart).

Every run starts from the same networks and seed, so the settings differ only
in the value loss.
"""

from __future__ import annotations

# isort: off
from agents.arena.argtypes import count_or_zero, positive_int, positive_number
import training.threads  # noqa: F401 - first: torch's threads must not spin (training/threads.py)
# isort: on
import argparse
import sys
import tempfile
import time

import numpy as np
import torch

from agents.core import checkpoint
from agents.core.nets import ValueNet
from sixtysix_env.seeding import derive_seed
from training.config import config_from_dict
from training.expert import loop
from training.expert.config import ExpertConfig
from training.expert.selfplay import Samples, Settings, generate_chunk

QUIET = {"eval_every": 0, "eval_heuristic_games": 0, "eval_pimc_games": 0, "progress": False,
         "tensorboard": False}


def mse(critic: ValueNet, samples: Samples) -> float:
    with torch.no_grad():
        pred = critic(torch.from_numpy(samples.full)).numpy()
    return float(np.mean((pred - samples.value) ** 2))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("checkpoint")
    p.add_argument("--fresh", type=positive_int, default=128, help="fresh deals to measure on")
    p.add_argument("--iterations", type=positive_int, default=4)
    p.add_argument("--deals", type=positive_int, default=64, help="deals per iteration")
    p.add_argument("--worlds", type=positive_int, default=16)
    p.add_argument("--value-positions", type=count_or_zero, nargs="+", default=[0, 4])
    p.add_argument("--learning-rate", type=positive_number, nargs="+", default=[1e-3])
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    ckpt = checkpoint.load(args.checkpoint)
    config = ckpt["config"]
    hidden = config.get("hidden", checkpoint.DEFAULT_HIDDEN)
    critic_hidden = config.get("critic_hidden", checkpoint.DEFAULT_HIDDEN)
    policy = checkpoint.policy_from(ckpt, args.checkpoint)
    critic = checkpoint.full_critic_from(ckpt, args.checkpoint)
    weights = {"hidden": hidden, "critic_hidden": critic_hidden, "policy": policy.state_dict(),
               "critic": critic.state_dict()}
    t0, c0 = time.perf_counter(), time.process_time()
    fresh = generate_chunk(weights, Settings(derive_seed(args.seed, "bench fresh"), args.worlds, 4, 0.2), 0,
                           args.fresh)
    var = float(np.var(fresh.value))
    print(f"fresh: {args.fresh} deals, {len(fresh)} positions, result variance {var:.3f} "
          f"({time.process_time() - c0:.0f} CPU s)", flush=True)
    print(f"critic as it is: fresh MSE {mse(critic, fresh):.3f}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for lr in args.learning_rate:
            for k in args.value_positions:
                c1 = time.process_time()
                keys = {"name": f"vp{k}_lr{lr}", "run_dir": tmp, "init": args.checkpoint, "seed": args.seed,
                        "iterations": args.iterations, "deals": args.deals, "worlds": args.worlds,
                        "chunk": args.deals, "hidden": hidden, "critic_hidden": critic_hidden,
                        "value_positions": k, "learning_rate": lr}
                cfg = config_from_dict({**keys, **QUIET}, schema=ExpertConfig)
                run = loop.train(cfg)
                own = run.replay.parts[-1][1]
                print(f"value_positions={k} learning_rate={lr:g}: after {args.iterations} iterations x "
                      f"{args.deals} deals: fresh MSE {mse(run.learner.critic, fresh):.3f}, on its last "
                      f"iteration's samples {mse(run.learner.critic, own):.3f} "
                      f"({time.process_time() - c1:.0f} CPU s)", flush=True)
    print(f"total {time.perf_counter() - t0:.0f} s wall, {time.process_time() - c0:.0f} CPU s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
