"""CleanRL-style masked PPO in one file on ``SixtySix-v0``, the mask from the Dict observation.

    python examples/cleanrl_ppo.py [--total-steps 400000] [--opponent random]

``gymnasium.make_vec(..., mask_in_obs=True)`` gives observations
``{"observation", "action_mask"}``; the same-step autoreset returns the next
deal's first observation (and mask) at once. The masked distribution and GAE
are the project's tested functions (``agents.core.nets``, ``training.gae``). At
the end the greedy policy and its untrained copy play the same duplicate
deals in the arena (examples/policy_bot.py).
"""

from __future__ import annotations

import argparse
import copy
import time
from dataclasses import dataclass, fields

import gymnasium
import numpy as np
import torch
from policy_bot import evaluate
from torch import nn
from tqdm import tqdm

import sixtysix_env  # noqa: F401  (registers SixtySix-v0)
from agents.core.nets import masked_distribution
from sixtysix_env.observation import OBS_SIZE
from training.gae import compute_gae
from training.ppo import clipped_surrogate


@dataclass
class Args:
    total_steps: int = 400_000
    """learner decisions to train on"""
    opponent: str = "random"
    """bot spec the learner trains against"""
    num_envs: int = 8
    """tables stepped together"""
    num_steps: int = 128
    """steps per table per rollout"""
    lr: float = 3e-4
    """Adam learning rate"""
    epochs: int = 4
    """passes over each rollout"""
    minibatches: int = 4
    """minibatches per pass"""
    clip: float = 0.2
    """PPO ratio clip"""
    ent_coef: float = 0.01
    """entropy bonus"""
    eval_games: int = 1000
    """arena deals per opponent (0: skip)"""
    seed: int = 0
    """seed of the envs and the network"""


class Agent(nn.Module):
    def __init__(self, hidden: int = 128) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(OBS_SIZE, hidden), nn.Tanh(),
                                  nn.Linear(hidden, hidden), nn.Tanh())
        self.pi, self.v = nn.Linear(hidden, 32), nn.Linear(hidden, 1)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.body(obs)
        return self.pi(h), self.v(h).squeeze(-1)


def rollout(envs, agent: Agent, obs: dict, args: Args) -> tuple[dict, dict]:
    """``num_steps`` steps of every table; the buffers and the next observation."""
    T, N = args.num_steps, args.num_envs
    buf = {k: np.zeros((T, N), np.float32) for k in ("rewards", "values", "logp", "dones", "actions")}
    buf["obs"] = np.zeros((T, N, OBS_SIZE), np.float32)
    buf["masks"] = np.zeros((T, N, 32), bool)
    for t in range(T):
        buf["obs"][t], buf["masks"][t] = obs["observation"], obs["action_mask"].astype(bool)
        with torch.no_grad():
            logits, value = agent(torch.from_numpy(buf["obs"][t]))
            dist = masked_distribution(logits, torch.from_numpy(buf["masks"][t]))
            action = dist.sample()
        buf["actions"][t], buf["logp"][t], buf["values"][t] = action, dist.log_prob(action), value
        obs, reward, term, trunc, _ = envs.step(action.numpy())
        buf["rewards"][t], buf["dones"][t] = reward, term | trunc
    return buf, obs


def update(agent: Agent, opt: torch.optim.Optimizer, buf: dict, next_obs: dict, args: Args) -> float:
    """One PPO update on a rollout; the last minibatch's loss."""
    T, N = args.num_steps, args.num_envs
    with torch.no_grad():
        next_v = agent(torch.from_numpy(next_obs["observation"]))[1].numpy()
    zeros = np.zeros((T, N), np.int64)
    adv, ret = compute_gae(buf["rewards"], buf["values"], buf["dones"], zeros, np.ones((T, N), bool),
                           np.stack([next_v, next_v], 1), gamma=1.0, lam=0.95)
    flat = {k: torch.from_numpy(np.asarray(v).reshape(T * N, *np.shape(v)[2:]))
            for k, v in {**buf, "adv": adv, "ret": ret}.items()}
    size = T * N // args.minibatches
    for _ in range(args.epochs):
        for idx in torch.randperm(T * N).split(size):
            logits, value = agent(flat["obs"][idx])
            dist = masked_distribution(logits, flat["masks"][idx])
            ratio = (dist.log_prob(flat["actions"][idx].long()) - flat["logp"][idx]).exp()
            loss = clipped_surrogate(ratio, flat["adv"][idx], args.clip) \
                + 0.5 * ((value - flat["ret"][idx]) ** 2).mean() - args.ent_coef * dist.entropy().mean()
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
            opt.step()
    return float(loss)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for f in fields(Args):
        p.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default)
    args = Args(**vars(p.parse_args()))
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    envs = gymnasium.make_vec(
        "SixtySix-v0", num_envs=args.num_envs, vectorization_mode="sync",
        mask_in_obs=True, episode="deal", opponent=args.opponent,
        vector_kwargs={"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP},
    )
    agent = Agent()
    untrained = copy.deepcopy(agent)
    opt = torch.optim.Adam(agent.parameters(), lr=args.lr)
    obs, _ = envs.reset(seed=args.seed)
    start, steps = time.perf_counter(), 0
    with tqdm(total=args.total_steps, unit="step") as bar:
        while steps < args.total_steps:
            buf, obs = rollout(envs, agent, obs, args)
            loss = update(agent, opt, buf, obs, args)
            steps += args.num_steps * args.num_envs
            bar.update(args.num_steps * args.num_envs)
            per_deal = buf["rewards"].sum() / max(buf["dones"].sum(), 1)
            bar.set_postfix(loss=f"{loss:.3f}", points_per_deal=f"{per_deal:+.2f}")
    took = time.perf_counter() - start
    print(f"trained {steps} steps in {took / 60:.1f} min ({steps / took:.0f} steps/s)")

    def greedy(net: Agent):  # noqa: ANN202 - the network as policy_bot's policy(obs, mask)
        def policy(o: np.ndarray, mask: np.ndarray) -> int:
            with torch.no_grad():
                logits = net(torch.from_numpy(o))[0]
            legal = torch.from_numpy(mask.astype(bool))[None]
            return int(masked_distribution(logits[None], legal).probs.argmax())

        return policy

    if args.eval_games:
        evaluate(greedy(agent), greedy(untrained), args.eval_games, name="cleanrl-ppo")


if __name__ == "__main__":
    main()
