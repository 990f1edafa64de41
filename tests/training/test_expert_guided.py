"""Self-play with the real guided search (agents.guided), as expert iteration plays it: its
targets are distributions over the legal moves, and a fixed seed gives the same samples."""

from __future__ import annotations

import numpy as np

from agents.core.nets import PolicyNet, ValueNet
from sixtysix_env.observation import FULL_OBS_SIZE, OBS_SIZE
from training.expert.selfplay import GUIDED, Settings, generate_chunk

WEIGHTS = {"hidden": [16], "critic_hidden": [16], "policy": PolicyNet(OBS_SIZE, [16]).state_dict(),
           "critic": ValueNet(FULL_OBS_SIZE, [16]).state_dict()}


def test_guided_self_play_targets_are_distributions_over_the_legal_moves_and_deterministic():
    samples = generate_chunk(WEIGHTS, Settings(7, 2, 2, 0.2), 0, 2, GUIDED)
    samples.check("guided self-play")  # shapes, finite, targets over the legal moves, values in -3..3
    assert len(samples) >= 4 and (samples.masks.sum(axis=1) > 1).all()
    assert np.allclose(samples.policy.sum(axis=1), 1) and (samples.policy[~samples.masks] == 0).all()
    assert (samples.policy.max(axis=1) < 1).any()  # searched moves, not only obvious ones
    again = generate_chunk(WEIGHTS, Settings(7, 2, 2, 0.2), 0, 2, GUIDED)
    for name in ("obs", "masks", "policy", "full", "value"):
        assert np.array_equal(getattr(samples, name), getattr(again, name)), name


def test_the_settings_depth_and_leaf_reach_the_search():
    """Rollout leaves at depth 2: other targets than the critic's at depth 1, still distributions over
    the legal moves, still the same for the same seed."""
    plain = generate_chunk(WEIGHTS, Settings(7, 2, 2, 0.2), 0, 1, GUIDED)
    deep = generate_chunk(WEIGHTS, Settings(7, 2, 2, 0.2, "values", 2, "rollout"), 0, 1, GUIDED)
    deep.check("deep self-play")
    again = generate_chunk(WEIGHTS, Settings(7, 2, 2, 0.2, "values", 2, "rollout"), 0, 1, GUIDED)
    assert np.array_equal(deep.policy, again.policy) and np.array_equal(deep.obs, again.obs)
    assert len(plain) != len(deep) or not np.array_equal(plain.policy, deep.policy)
