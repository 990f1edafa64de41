"""SixtySixVectorEnv under gymnasium's own vector wrappers, and its infos' ``_key`` masks."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gymnasium.vector import AutoresetMode  # noqa: E402
from gymnasium.wrappers.vector import DictInfoToList, NormalizeReward, RecordEpisodeStatistics  # noqa: E402

from sixtysix_env.batched import SixtySixVectorEnv  # noqa: E402

N = 6


def masked_random(mask: Any, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``mask``."""
    m = np.asarray(mask, dtype=float)
    return (rng.random(m.shape) * m).argmax(1)


def check_masks(infos: dict[str, Any], n: int) -> None:
    """gymnasium.vector's info convention: every key ``k`` has an ``_k`` bool mask, one row per table."""
    for key, value in infos.items():
        if key.startswith("_"):
            assert key[1:] in infos, key
            assert value.dtype in (np.bool_, torch.bool) and len(value) == n, key
            continue
        assert f"_{key}" in infos, f"info {key!r} has no _{key} mask"
        if isinstance(value, dict) and key != "final_obs":  # an observation (dict_obs), not infos
            check_masks(value, n)
        elif isinstance(value, dict):
            assert all(len(v) == n for v in value.values()), key
        else:
            assert len(value) == n, key


@pytest.mark.parametrize("arrays", ["torch", "numpy"])
@pytest.mark.parametrize("dict_obs", [False, True])
def test_infos_follow_gymnasiums_vector_convention(arrays: str, dict_obs: bool) -> None:
    env = SixtySixVectorEnv(N, seed=3, arrays=arrays, dict_obs=dict_obs)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    rng = np.random.default_rng(0)
    obs, infos = env.reset()
    check_masks(infos, N)
    ended_somewhere = False
    for _ in range(40):
        obs, rewards, term, trunc, infos = env.step(masked_random(infos["action_mask"], rng))
        check_masks(infos, N)
        kind = np.ndarray if arrays == "numpy" else torch.Tensor
        assert isinstance(rewards, kind) and isinstance(term, kind) and isinstance(infos["seat"], kind)
        if bool(term.any()):
            ended_somewhere = True
            assert (np.asarray(infos["_final_obs"]) == np.asarray(term)).all()
            assert (np.asarray(infos["final_info"]["deal_points"])[np.asarray(term)]
                    == np.asarray(rewards)[np.asarray(term)]).all()
            if dict_obs:
                assert set(infos["final_obs"]) == {"observation", "action_mask"}
    assert ended_somewhere


def test_record_episode_statistics_sums_each_episode() -> None:
    env = RecordEpisodeStatistics(SixtySixVectorEnv(N, seed=1, arrays="numpy"))
    rng = np.random.default_rng(1)
    _, infos = env.reset(seed=1)
    returns = np.zeros(N)
    episodes = 0
    for _ in range(60):
        _, rewards, term, trunc, infos = env.step(masked_random(infos["action_mask"], rng))
        returns += rewards
        if term.any():
            assert (infos["_episode"] == term).all()
            np.testing.assert_allclose(infos["episode"]["r"][term], returns[term])
            returns[term] = 0
            episodes += int(term.sum())
    assert episodes > N and len(env.return_queue) == episodes


def test_normalize_reward_scales_numpy_rewards() -> None:
    env = NormalizeReward(SixtySixVectorEnv(N, seed=2, arrays="numpy"))
    rng = np.random.default_rng(2)
    _, infos = env.reset(seed=2)
    seen = []
    for _ in range(60):
        _, rewards, *_, infos = env.step(masked_random(infos["action_mask"], rng))
        assert isinstance(rewards, np.ndarray) and rewards.shape == (N,)
        seen.append(rewards)
    assert np.abs(np.concatenate(seen)).max() > 0


def test_dict_info_to_list_keeps_only_what_each_table_has() -> None:
    env = DictInfoToList(SixtySixVectorEnv(N, seed=4, arrays="numpy"))
    rng = np.random.default_rng(4)
    _, infos = env.reset(seed=4)
    assert isinstance(infos, list) and len(infos) == N
    assert all(set(i) == {"action_mask", "seat"} for i in infos)
    finished = 0
    for _ in range(40):
        masks = np.stack([i["action_mask"] for i in infos])
        _, rewards, term, _, infos = env.step(masked_random(masks, rng))
        for i, info in enumerate(infos):
            assert ("final_obs" in info) == bool(term[i])
            if term[i]:
                finished += 1
                assert info["final_info"]["deal_points"] == rewards[i]
                assert info["final_info"]["seat"] in (0, 1)
    assert finished > 0


def test_bad_arrays_is_a_named_error() -> None:
    with pytest.raises(ValueError, match="arrays must be one of"):
        SixtySixVectorEnv(2, arrays="jax")
