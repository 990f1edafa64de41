"""What RL libraries need with no glue (issue 16): fixed numeric infos, the mask in
the observation, an ``rgb_array`` picture, vector envs whose masks are never all zeros."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import sixtysix_env  # noqa: F401  (registers SixtySix-v0)
from sixtysix_env import SixtySixGymEnv, deal, sample_state, view
from sixtysix_env.aec import env as aec_env
from sixtysix_env.infos import INFO_KEYS, REASON_CODES
from sixtysix_env.observation import OBS_SIZE
from sixtysix_env.picture import HEIGHT, WIDTH, draw_table
from sixtysix_env.render import player_table

GYM_KEYS = {*INFO_KEYS, "seat", "action_mask"}


def check_flat(info: dict, keys: set) -> None:
    assert set(info) == keys
    assert all(type(v) is int for k, v in info.items() if k != "action_mask"), info


def test_aec_infos_have_the_same_int_keys_on_every_step():
    e = aec_env()
    e.reset(seed=3)
    rng = np.random.default_rng(3)
    ends = 0
    for _agent in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        check_flat(info, set(INFO_KEYS))
        if term or trunc:
            e.step(None)
            continue
        ends += info["deal_over"]
        if info["deal_over"]:
            assert info["reason_code"] in REASON_CODES.values() and info["deal_winner"] in (-1, 0, 1)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    final = e.unwrapped.last_deal_result
    assert final is not None and max(info["match_score_0"], info["match_score_1"]) >= 7
    assert info["deals_done"] >= ends > 0


@pytest.mark.parametrize("opponent", [None, "heuristic"])
def test_gym_infos_count_every_deal_even_when_the_opponent_moves_after_it(opponent):
    env = SixtySixGymEnv(opponent=opponent)
    rng = np.random.default_rng(1)
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        check_flat(info, GYM_KEYS)
        ended, points, terminated = 0, 0, False
        while not terminated:
            obs, reward, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            check_flat(info, GYM_KEYS)
            ended += info["deal_over"]
            if info["deal_over"] and info["deal_winner"] >= 0:
                points += info["deal_points"] * (1 if info["deal_winner"] == 0 else -1)
        assert ended == info["deals_done"]
        assert points == info["match_score_0"] - info["match_score_1"]


def test_mask_in_obs_puts_the_mask_in_a_dict_observation():
    env = SixtySixGymEnv(mask_in_obs=True, episode="deal")
    check_env(env, skip_render_check=True)
    obs, info = env.reset(seed=0)
    assert set(obs) == {"observation", "action_mask"} and obs["observation"].shape == (OBS_SIZE,)
    np.testing.assert_array_equal(obs["action_mask"], info["action_mask"])
    assert env.observation_space.contains(obs)
    full = gymnasium.make("SixtySix-v0", mask_in_obs=True, perfect_information=True)
    assert set(full.reset(seed=0)[0]) == {"observation", "action_mask", "full_observation"}
    assert gymnasium.make("SixtySix-v0").observation_space.shape == (OBS_SIZE,)  # default unchanged


def test_rgb_array_is_a_picture_and_passes_check_env():
    env = SixtySixGymEnv(render_mode="rgb_array", episode="deal")
    check_env(env)
    env.reset(seed=0)
    img = env.render()
    assert img.shape == (HEIGHT, WIDTH, 3) and img.dtype == np.uint8 and img.std() > 10
    a = aec_env(render_mode="rgb_array", render_view="all")
    a.reset(seed=0)
    assert a.render().shape == (HEIGHT, WIDTH, 3)


def test_rgb_picture_shows_nothing_hidden():
    """Worlds resampled from a player's view (other hidden cards) give the same picture."""
    state = deal(11)
    for _ in range(5):
        state.apply(state.legal_actions()[0])
    v = view(state, state.to_act)
    first = draw_table(player_table(v))
    for k in range(3):
        world = sample_state(v, rng=k)
        np.testing.assert_array_equal(draw_table(player_table(view(world, v.player))), first)


def test_sb3_make_vec_env_needs_no_glue():
    from stable_baselines3.common.env_util import make_vec_env

    venv = make_vec_env("SixtySix-v0", n_envs=2, seed=0)  # passes render_mode="rgb_array"
    venv.reset()
    assert venv.env_method("action_masks")[0].any()
    assert venv.get_images()[0].shape == (HEIGHT, WIDTH, 3)


@pytest.mark.parametrize("mode", ["SAME_STEP", "NEXT_STEP"])
def test_vector_env_masks_are_never_all_zeros(mode):
    envs = gymnasium.make_vec(
        "SixtySix-v0", num_envs=4, vectorization_mode="sync", mask_in_obs=True,
        vector_kwargs={"autoreset_mode": getattr(gymnasium.vector.AutoresetMode, mode)},
    )
    obs, info = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    done = 0
    for _ in range(2000):
        masks = obs["action_mask"]
        assert masks.any(axis=1).all()
        np.testing.assert_array_equal(masks, info["action_mask"])
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, _, term, trunc, info = envs.step(actions)
        done += int(term.sum())
    assert done > 0
