"""sb3-contrib's MaskablePPO on ``SixtySix-v0``, no glue: ``make_vec_env`` and train.

    python examples/sb3_maskable_ppo.py [--total-steps 200000] [--opponent random]

The env is registered by ``import sixtysix_env``; MaskablePPO reads the legal
actions from ``env.action_masks()`` (the sb3-contrib convention the env
implements). One episode is one deal, rewarded with its game points. At the
end the trained policy and its untrained copy play the same duplicate deals
against ``random`` and ``heuristic`` in the arena (examples/policy_bot.py).
"""

from __future__ import annotations

import argparse
import copy
import time

import torch
from policy_bot import evaluate
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env
from tqdm import tqdm

import sixtysix_env  # noqa: F401  (registers SixtySix-v0)


class Progress(BaseCallback):
    """A tqdm bar over the environment steps."""

    def __init__(self, total: int) -> None:
        super().__init__()
        self.bar = tqdm(total=total, unit="step", smoothing=0.1)

    def _on_step(self) -> bool:
        self.bar.update(self.training_env.num_envs)
        return True

    def _on_training_end(self) -> None:
        self.bar.close()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--total-steps", type=int, default=200_000, help="learner decisions to train on")
    p.add_argument("--opponent", default="random", help="bot spec the learner trains against")
    p.add_argument("--n-envs", type=int, default=4)
    p.add_argument("--eval-games", type=int, default=1000, help="arena deals per opponent (0: skip)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    torch.set_num_threads(1)

    env = make_vec_env("SixtySix-v0", n_envs=args.n_envs, seed=args.seed,
                       env_kwargs={"opponent": args.opponent, "episode": "deal"})
    n_steps = max(16, min(512, args.total_steps // args.n_envs))
    model = MaskablePPO("MlpPolicy", env, n_steps=n_steps, batch_size=min(256, n_steps * args.n_envs),
                        n_epochs=4, gamma=1.0, ent_coef=0.01, learning_rate=3e-4,
                        policy_kwargs={"net_arch": [128, 128]}, seed=args.seed, device="cpu")
    untrained = copy.deepcopy(model.policy)
    start = time.perf_counter()
    model.learn(total_timesteps=args.total_steps, callback=Progress(args.total_steps))
    took = time.perf_counter() - start
    n = model.num_timesteps
    print(f"trained {n} steps in {took / 60:.1f} min ({n / took:.0f} steps/s)")

    def greedy(policy):  # noqa: ANN001, ANN202 - a MaskablePPO policy as policy_bot's policy(obs, mask)
        return lambda obs, mask: policy.predict(obs, action_masks=mask, deterministic=True)[0]

    if args.eval_games:
        evaluate(greedy(model.policy), greedy(untrained), args.eval_games, name="sb3-maskable-ppo")


if __name__ == "__main__":
    main()
