"""Multi-agent PPO self-play with RLlib (new API stack) and action masking; arena evaluation at the end.

    pip install -e ".[rllib]"
    python examples/rllib_ppo.py                                   # about 5 minutes on 2 cores
    python examples/rllib_ppo.py --env-runners 8 --learners 2      # bigger machine: configuration only

Both seats share one ``ActionMaskingTorchRLModule`` (RLlib's example module:
illegal logits masked out) through :mod:`sixtysix_env.rllib`; each env runner
steps ``--envs-per-runner`` one-table envs (one batched forward per vector
step; ``--tables N``: ``SixtySixTablesEnv`` of N tables, a move at every table
per env step). Progress is printed in moves. Ray runs on
this machine, bound to 127.0.0.1 (``--address`` joins a cluster instead),
and is shut down at the end. The printed return is each seat's mean return per
episode (``player_0`` / ``player_1``; the shared module's own return sums both
seats of a zero-sum game, always 0). The trained module and its untrained copy
then play the same duplicate deals against ``random`` and ``heuristic`` in the
arena (:mod:`policy_bot`).
"""

from __future__ import annotations

import copy
import os
import sys
import time
from dataclasses import dataclass

import numpy as np
import ray
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.columns import Columns

from sixtysix_env.rllib import MODULE_ID, rllib_config

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import policy_bot  # noqa: E402
from policy_bot import evaluate  # noqa: E402


@dataclass
class Args:
    total_steps: int = 200_000
    """Moves (both players', all tables) to train for."""
    env_runners: int = 2
    """RLlib env runners (sampling processes)."""
    envs_per_runner: int = 64
    """Envs each runner steps together (one batched forward per step)."""
    tables: int = 0
    """Tables in each env (0: the one-table env): one env step is a move at every table, and
    ``--batch`` counts env steps."""
    learners: int = 0
    """Learner processes (0: learn in the main process)."""
    batch: int = 4096
    """Env steps per training iteration (moves with the one-table env)."""
    lr: float = 3e-4
    """Adam learning rate."""
    episode: str = "deal"
    """An episode is a ``deal`` (rewards: game points) or a ``match`` to 7."""
    eval_games: int = 1000
    """Arena deals against each of random and heuristic at the end (0: none)."""
    seed: int = 0
    """Seed of RLlib and of the envs."""
    address: str | None = None
    """A Ray cluster to join (default: start one here, bound to 127.0.0.1)."""


def parse_args(argv: list[str] | None = None) -> Args:
    return policy_bot.parse_args(Args, argv, __doc__.split("\n")[0])


def build(args: Args):  # noqa: ANN201 - an RLlib Algorithm
    config = rllib_config(PPOConfig(), env_runners=args.env_runners, envs_per_runner=args.envs_per_runner,
                          tables=args.tables, learners=args.learners, env_config={"episode": args.episode})
    config = config.training(lr=args.lr, train_batch_size_per_learner=args.batch,
                             minibatch_size=min(512, args.batch), num_epochs=4, entropy_coeff=0.01,
                             gamma=1.0, lambda_=0.95)
    return config.debugging(seed=args.seed).build_algo()


def train(algo, args: Args) -> None:  # noqa: ANN001
    steps, start = 0, time.perf_counter()
    while steps < args.total_steps:
        result = algo.train()
        runners = result.get("env_runners", {})
        steps = int(runners.get("num_module_steps_sampled_lifetime", {}).get(MODULE_ID, 0))  # moves
        r0, r1 = seat_returns(runners.get("agent_episode_returns_mean", {}))
        length = runners.get("episode_len_mean", float("nan"))
        print(f"train steps {steps:>8}  {steps / (time.perf_counter() - start):7.0f} steps/s  "
              f"episode length {length:5.1f} (env steps)  return player_0 {r0:+.3f} player_1 {r1:+.3f}",
              flush=True)


def seat_returns(by_agent: dict[str, float]) -> tuple[float, float]:
    """Mean return per episode of each seat, from RLlib's per-agent means (``player_1``,
    ``t3_player_1``...: every table's agents of a seat together); NaN before any episode ended."""
    out = []
    for seat in ("player_0", "player_1"):
        values = [v for agent, v in by_agent.items() if agent.endswith(seat)]
        out.append(float(np.mean(values)) if values else float("nan"))
    return out[0], out[1]


def module_logits(module):  # noqa: ANN001, ANN201
    """The trained RLModule as a ``logits(obs, mask)`` function for :class:`PolicyBot`."""

    def logits(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        batch = {Columns.OBS: {"observations": torch.from_numpy(obs)[None],
                               "action_mask": torch.from_numpy(mask.astype(np.float32))[None]}}
        with torch.no_grad():
            return module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0].numpy()

    return logits


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=max(2, args.env_runners + 1), include_dashboard=False,
                 _node_ip_address="127.0.0.1", logging_level="WARNING")
    try:
        algo = build(args)
        untrained = copy.deepcopy(algo.get_module(MODULE_ID))
        train(algo, args)
        module = algo.get_module(MODULE_ID)
        algo.stop()
        if args.eval_games:
            evaluate(module_logits(module), module_logits(untrained), args.eval_games, name="rllib-ppo")
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
