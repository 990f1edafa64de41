"""Self-play collection throughput on the batched engine: environment steps per second.

The batched counterpart of ``bench/bench_collect.py`` (same work per step,
for comparison): the default policy network (``agents.nets.PolicyNet``,
256x2) in both seats and the critic (``ValueNet`` on the 384-feature
perfect-information input, 256x2) over :class:`SelfPlayEnv` tables; per step
the observations, critic inputs, masks and seats are stored in time-major
rollout tensors, actions are sampled from the masked policy with their
log-probabilities (``sample_masked``), values computed, the tables stepped and each deal's
reward booked on both players' own transitions (``record_rewards``); after
the rollout both seats' values are bootstrapped. Everything stays in torch
on ``--device``.

    python bench/bench_batched_collect.py                  # 2,048 tables x 64 steps, 1 torch thread
    python bench/bench_batched_collect.py --envs 4096 --threads 2
    python bench/bench_batched_collect.py --device cuda --envs 16384
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from agents.nets import PolicyNet, ValueNet
from sixtysix_env.actions import N_ACTIONS
from sixtysix_env.batched.observe import observe
from sixtysix_env.batched.vector import SelfPlayEnv, record_rewards, sample_masked
from sixtysix_env.observation import FULL_OBS_SIZE, OBS_SIZE


class Rollout:
    """Time-major ``(T, N, ...)`` tensors of one rollout (as ``training.rollout.Rollout``)."""

    def __init__(self, T: int, N: int, device: torch.device) -> None:
        def z(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
            return torch.zeros(shape, dtype=dtype, device=device)

        self.critic_obs = z(T, N, FULL_OBS_SIZE)
        self.obs = self.critic_obs[:, :, :OBS_SIZE]  # the policy input is the critic input's first 312
        self.masks = z(T, N, N_ACTIONS, dtype=torch.bool)
        self.actions = z(T, N, dtype=torch.int64)
        self.logprobs = z(T, N)
        self.values = z(T, N)
        self.rewards = z(T, N)
        self.dones = z(T, N, dtype=torch.bool)
        self.seats = z(T, N, dtype=torch.int64)
        self.learn = torch.ones((T, N), dtype=torch.bool, device=device)  # self-play: every row
        self.last_t = torch.full((N, 2), -1, dtype=torch.int64, device=device)


def collect(env: SelfPlayEnv, policy: PolicyNet, critic: ValueNet, buf: Rollout) -> torch.Tensor:
    """Fill ``buf`` with one rollout; returns the bootstrap values ``(N, 2)``."""
    T = buf.rewards.shape[0]
    buf.rewards.zero_()
    buf.dones.zero_()
    buf.last_t.fill_(-1)
    with torch.inference_mode():
        for t in range(T):
            buf.critic_obs[t] = env.full_obs
            buf.masks[t] = env.masks
            buf.seats[t] = env.to_act
            actions, logprobs = sample_masked(policy(buf.obs[t]), buf.masks[t])
            buf.actions[t] = actions
            buf.logprobs[t] = logprobs
            buf.values[t] = critic(buf.critic_obs[t])
            env.step(actions)
            record_rewards(t, buf.seats[t], buf.learn[t], env.deal_done, env.rewards, buf.last_t,
                           buf.rewards, buf.dones)
        seats = [torch.full_like(env.to_act, p) for p in (0, 1)]
        return torch.stack([critic(observe(env.engine, seat, full=True)) for seat in seats], 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--envs", type=int, default=2048)
    ap.add_argument("--steps", type=int, default=64, help="rollout steps per table")
    ap.add_argument("--rollouts", type=int, default=4)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    device = torch.device(args.device)
    env = SelfPlayEnv(args.envs, 0, device=device, full_obs=True)
    policy = PolicyNet(OBS_SIZE, [args.hidden] * 2).to(device)
    critic = ValueNet(FULL_OBS_SIZE, [args.hidden] * 2).to(device)
    buf = Rollout(args.steps, args.envs, device)
    collect(env, policy, critic, buf)  # warm-up
    rates = []
    for _ in range(args.rollouts):
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        t0 = time.perf_counter()
        collect(env, policy, critic, buf)
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        rates.append(args.envs * args.steps / (time.perf_counter() - t0))
    where = torch.cuda.get_device_name(device) if device.type == "cuda" else f"{args.threads} torch thread(s)"
    print(f"batched collection: {statistics.median(rates):,.0f} env steps/s median, {max(rates):,.0f} best "
          f"({args.rollouts} rollouts of {args.steps} steps x {args.envs} tables, {where}, "
          f"hidden {args.hidden}x2)")


if __name__ == "__main__":
    main()
