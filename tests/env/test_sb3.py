"""sb3-contrib's MaskablePPO trains on the Gymnasium wrapper (integration smoke test)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.evaluation import evaluate_policy

from sixtysix_env import SixtySixGymEnv


@pytest.mark.slow
def test_maskable_ppo_learns_without_error():
    torch.set_num_threads(1)
    env = SixtySixGymEnv(episode="deal")
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=256,
        batch_size=64,
        n_epochs=2,
        policy_kwargs={"net_arch": [64, 64]},
        seed=0,
        device="cpu",
    )
    model.learn(total_timesteps=2048)
    assert model.num_timesteps >= 2048
    # Masked prediction only ever picks legal actions.
    obs, _ = env.reset(seed=1)
    for _ in range(50):
        action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=False)
        assert env.action_masks()[int(action)]
        obs, _, terminated, _, _ = env.step(int(action))
        if terminated:
            obs, _ = env.reset()
    mean, _ = evaluate_policy(model, env, n_eval_episodes=5, use_masking=True, warn=False)
    assert np.isfinite(mean)
