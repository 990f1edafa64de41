"""Masked DQN with Tianshou 2.x: the AEC env through Tianshou's PettingZooEnv; arena evaluation at the end.

    pip install -e ".[tianshou]"
    python examples/tianshou_dqn.py                     # about 5 minutes on 2 cores
    python examples/tianshou_dqn.py --opponent random   # train against random instead of self-play

Tianshou's ``PettingZooEnv`` turns each AEC step into ``{"agent_id", "obs",
"mask"}`` (the mask from the observation dict), ``DummyVectorEnv`` batches a
few of them, and a ``MultiAgentOffPolicyAlgorithm`` dispatches each
transition to the algorithm of the seat that moved: the same ``DQN`` for both
seats (self-play, one Q-network) or ``DQN`` against Tianshou's masked random
agent. ``Collector`` + ``VectorReplayBuffer`` + ``OffPolicyTrainer`` do the
rest; ``DiscreteQLearningPolicy`` masks illegal actions in its argmax and in
its epsilon-greedy exploration.

The reward is the deal's game points, paid to both players at its end
(zero-sum). One buffer row is one move, by either seat, so a one-step TD
target would bootstrap from the *opponent's* next view; instead the n-step
horizon covers a whole deal (``gamma=1``): every target is the mover's
own Monte Carlo return, read from its column of the reward vector. The trained
Q-network and its untrained copy then play the same duplicate deals against
``random`` and ``heuristic`` in the arena (:mod:`policy_bot`).
"""

from __future__ import annotations

import copy
import logging
import os
import sys
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from tianshou.algorithm import DQN
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from torch import nn

import sixtysix_env
from sixtysix_env.actions import N_ACTIONS
from sixtysix_env.observation import OBS_SIZE

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import policy_bot  # noqa: E402
from policy_bot import evaluate  # noqa: E402

MAX_DEAL_MOVES = 40
"""More moves than any deal has (12 tricks of 2 cards, plus marriages, the trump exchange and closing)."""


@dataclass
class Args:
    total_steps: int = 60_000
    """Environment steps (both players' moves) to train for."""
    opponent: str = "self"
    """``self`` (one Q-network for both seats) or ``random`` (Tianshou's masked random agent in seat 1)."""
    envs: int = 8
    """Environments collected from in lockstep (DummyVectorEnv)."""
    collect: int = 128
    """Steps collected per training step; one gradient step per 8 of them."""
    batch: int = 256
    """Replay sample size per gradient step."""
    buffer: int = 50_000
    """Replay buffer size (transitions)."""
    lr: float = 5e-4
    """Adam learning rate."""
    eps_start: float = 0.5
    """Epsilon-greedy exploration at the start, decayed linearly to ``eps_end`` over the run."""
    eps_end: float = 0.05
    """Epsilon at the end of training."""
    target_update: int = 200
    """Gradient steps between target-network copies."""
    eval_games: int = 1000
    """Arena deals against each of random and heuristic at the end (0: none)."""
    seed: int = 0
    """Seed of numpy, torch and the envs."""


def parse_args(argv: list[str] | None = None) -> Args:
    args = policy_bot.parse_args(Args, argv, __doc__.split("\n")[0])
    if args.opponent not in ("self", "random"):
        raise SystemExit("--opponent must be self or random")
    return args


def make_env() -> PettingZooEnv:
    return PettingZooEnv(sixtysix_env.env(episode="deal"))


class QNet(nn.Module):
    """Tianshou's model protocol: ``(obs, state, info) -> (Q-values, state)``."""

    def __init__(self, hidden: int = 256) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(OBS_SIZE, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, N_ACTIONS))

    def forward(self, obs: Any, state: Any = None, info: Any = None) -> tuple[torch.Tensor, Any]:
        return self.net(torch.as_tensor(obs, dtype=torch.float32)), state


def train(args: Args) -> tuple[QNet, QNet]:
    """The trained Q-network and a copy of its weights before training."""
    # The collector's stats flatten the (episodes, 2 players) returns with a warning on every collect.
    logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    env = make_env()
    net = QNet()
    untrained = copy.deepcopy(net)
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space,
                                     observation_space=env.observation_space, eps_training=args.eps_start)
    dqn = DQN(policy=policy, optim=AdamOptimizerFactory(lr=args.lr), gamma=1.0,
              n_step_return_horizon=MAX_DEAL_MOVES, target_update_freq=args.target_update,
              huber_loss_delta=1.0)
    other = dqn if args.opponent == "self" else MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space)
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[dqn, other], env=env)

    envs = DummyVectorEnv([make_env for _ in range(args.envs)])
    envs.seed(args.seed)
    collector = Collector(algorithm, envs, VectorReplayBuffer(args.buffer, args.envs), exploration_noise=True)
    collector.reset()
    collector.collect(n_step=max(args.batch, args.envs))  # warm-up before the first gradient step

    start = time.perf_counter()
    last_print = [0.0]

    def training_fn(epoch: int, env_step: int) -> None:
        frac = min(env_step / max(args.total_steps, 1), 1.0)
        policy.set_eps_training(args.eps_start + frac * (args.eps_end - args.eps_start))
        now = time.perf_counter()
        if now - last_print[0] >= 10 or env_step == 0:
            last_print[0] = now
            print(f"train steps {env_step:>7}  {env_step / max(now - start, 1e-9):6.0f} steps/s  "
                  f"eps {policy.eps_training:.2f}", flush=True)

    epochs = max(1, min(10, args.total_steps // args.collect))  # an epoch collects at least once
    params = OffPolicyTrainerParams(
        training_collector=collector, max_epochs=epochs,
        epoch_num_steps=max(args.total_steps // epochs, 1), collection_step_num_env_steps=args.collect,
        update_step_num_gradient_steps_per_sample=0.125, batch_size=args.batch, training_fn=training_fn,
        test_collector=None, show_progress=False, verbose=False)
    trainer = algorithm.create_trainer(params)
    trainer.reset()
    while trainer._epoch < epochs:  # noqa: SLF001 - Trainer.run() without its final summary
        stats = trainer.execute_epoch()
        losses = stats.training_stat.get_loss_stats_dict() if stats.training_stat else {}
        loss = np.mean(list(losses.values())) if losses else float("nan")
        steps = trainer._env_step  # noqa: SLF001
        print(f"train steps {steps:>7}  {steps / (time.perf_counter() - start):6.0f} steps/s  "
              f"epoch {stats.epoch}/{epochs}  loss {loss:.3f}  buffer {len(collector.buffer)}", flush=True)
    print(f"trained {time.perf_counter() - start:.0f} s", flush=True)
    return net, untrained


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    torch.set_num_threads(1)
    trained, untrained = (net.eval() for net in train(args))

    def q_values(net: QNet):  # noqa: ANN202 - the network as policy_bot's policy(obs, mask)
        def policy(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
            with torch.no_grad():
                return net(obs[None])[0][0].numpy()

        return policy

    if args.eval_games:
        evaluate(q_values(trained), q_values(untrained), args.eval_games,
                 name=f"tianshou-dqn-{args.opponent}")


if __name__ == "__main__":
    main()
