"""Self-play with TorchRL: one masked policy for both seats on the AEC env; arena evaluation at the end.

    pip install -e ".[torchrl]"
    python examples/torchrl_selfplay.py          # about 5 minutes on 2 cores

The AEC env goes through TorchRL's ``PettingZooWrapper(use_mask=True)`` with
both players in one group, so one network (``ProbabilisticActor`` with a
``MaskedCategorical`` over the env's action mask) plays both seats; the
group's ``mask`` says which player acted at each step. The update is a
policy gradient with a learned value baseline on complete episodes (returns
undiscounted: the reward is the deal's game points, paid at its end to both
players, zero-sum). The trained network and its untrained copy then play the
same duplicate deals against ``random`` and ``heuristic`` in the arena
(:mod:`policy_bot`).
"""

from __future__ import annotations

import copy
import os
import sys
import time
from dataclasses import dataclass

import numpy as np
import torch
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.collectors import Collector
from torchrl.envs import PettingZooWrapper
from torchrl.modules import MaskedCategorical, ProbabilisticActor

import sixtysix_env
from sixtysix_env.actions import N_ACTIONS
from sixtysix_env.observation import OBS_SIZE

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import policy_bot  # noqa: E402
from policy_bot import evaluate  # noqa: E402

GROUP = "players"
OBS, MASK, ACTED = (GROUP, "observation", "observation"), (GROUP, "action_mask"), (GROUP, "mask")


@dataclass
class Args:
    total_steps: int = 25_000
    """Environment steps (both players' moves) to train for."""
    batch: int = 1000
    """Steps collected per update."""
    lr: float = 1e-3
    """Adam learning rate."""
    entropy: float = 0.01
    """Entropy bonus."""
    eval_games: int = 1000
    """Arena deals against each of random and heuristic at the end (0: none)."""
    seed: int = 0
    """Seed of torch and of the env."""


def parse_args(argv: list[str] | None = None) -> Args:
    return policy_bot.parse_args(Args, argv, __doc__.split("\n")[0])


def make_env(seed: int) -> PettingZooWrapper:
    return PettingZooWrapper(env=sixtysix_env.env(episode="deal"), use_mask=True, categorical_actions=True,
                             group_map={GROUP: ["player_0", "player_1"]}, seed=seed)


def make_actor(net: nn.Module) -> ProbabilisticActor:
    module = TensorDictModule(net, in_keys=[OBS], out_keys=[(GROUP, "logits")])
    return ProbabilisticActor(module, in_keys={"logits": (GROUP, "logits"), "mask": MASK},
                              out_keys=[(GROUP, "action")], distribution_class=MaskedCategorical)


def episode_returns(batch) -> tuple[torch.Tensor, torch.Tensor]:  # noqa: ANN001 - a TensorDict
    """Each player's undiscounted return from every step, and which steps belong to finished episodes."""
    rewards = batch["next", GROUP, "reward"].squeeze(-1)  # (T, 2)
    done = batch["next", "done"].squeeze(-1).float()  # (T,)
    g, finished = torch.zeros(2), torch.tensor(0.0)
    returns, complete = torch.zeros_like(rewards), torch.zeros_like(done)
    for t in reversed(range(len(done))):
        g = rewards[t] + (1 - done[t]) * g
        finished = torch.maximum(finished, done[t])  # a later done in the batch ends it
        returns[t], complete[t] = g, finished
    return returns, complete.bool()


def update(batch, net: nn.Module, value: nn.Module, opt: torch.optim.Optimizer, args: Args) -> float:  # noqa: ANN001
    returns, complete = episode_returns(batch)
    acted = batch[ACTED] & complete[:, None]  # (T, 2): the player who moved, in a finished episode
    obs, mask, action = batch[OBS][acted], batch[MASK][acted], batch[GROUP, "action"][acted]
    dist = MaskedCategorical(logits=net(obs), mask=mask)
    v = value(obs).squeeze(-1)
    adv = returns[acted] - v.detach()
    loss = -(dist.log_prob(action) * adv).mean() + 0.5 * ((v - returns[acted]) ** 2).mean() \
        - args.entropy * dist.entropy().mean()
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_([*net.parameters(), *value.parameters()], 1.0)
    opt.step()
    return float(returns[acted].abs().mean())


def mlp(out: int) -> nn.Module:
    hidden = 256
    return nn.Sequential(nn.Linear(OBS_SIZE, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                         nn.Linear(hidden, out))


def train(args: Args) -> tuple[nn.Module, nn.Module]:
    """The trained policy network and a copy of its weights before training."""
    torch.manual_seed(args.seed)
    net, value = mlp(N_ACTIONS), mlp(1)
    untrained = copy.deepcopy(net)
    opt = torch.optim.Adam([*net.parameters(), *value.parameters()], lr=args.lr)
    collector = Collector(lambda: make_env(args.seed), make_actor(net), frames_per_batch=args.batch,
                                  total_frames=args.total_steps)
    steps, start = 0, time.perf_counter()
    try:
        for batch in collector:
            size = update(batch, net, value, opt, args)
            collector.update_policy_weights_()
            steps += batch.numel()
            print(f"train steps {steps:>7}  {steps / (time.perf_counter() - start):6.0f} steps/s  "
                  f"mean |return| {size:.2f}", flush=True)
    finally:
        collector.shutdown()
    return net, untrained


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    torch.set_num_threads(1)
    trained, untrained = (net.eval() for net in train(args))

    def logits(net: nn.Module):  # noqa: ANN202 - the network as policy_bot's policy(obs, mask)
        def policy(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
            with torch.no_grad():
                return net(torch.from_numpy(obs)).numpy()

        return policy

    if args.eval_games:
        evaluate(logits(trained), logits(untrained), args.eval_games, name="torchrl-selfplay")


if __name__ == "__main__":
    main()
