"""VectorEnv: batched observations match the env's encoding; rewards, deals and matches follow the rules."""

from __future__ import annotations

import numpy as np
import pytest

from sixtysix_env.actions import N_ACTIONS
from sixtysix_env.knowledge import view
from sixtysix_env.observation import OBS_SIZE, encode, encode_full
from sixtysix_env.vector import VectorEnv


def random_actions(env: VectorEnv, rng: np.random.Generator) -> np.ndarray:
    keys = rng.random((env.num_envs, N_ACTIONS))
    return np.argmax(np.where(env.masks, keys, -1.0), axis=1)


def steps(env: VectorEnv, rng: np.random.Generator, n: int):
    """Step ``env`` ``n`` times with random legal actions, yielding the states each step started from."""
    for _ in range(n):
        before = list(env.states)
        env.step(random_actions(env, rng))
        yield before


def check_rows(env: VectorEnv) -> None:
    for i, s in enumerate(env.states):
        p = s.to_act
        assert env.to_act[i] == p
        np.testing.assert_array_equal(env.obs[i], encode(view(s, p)))
        legal = s.legal_mask()
        assert env.masks[i].tolist() == [bool(legal >> a & 1) for a in range(N_ACTIONS)]
        if env.full_obs is not None:
            np.testing.assert_array_equal(env.full_obs[i], encode_full(s, p))


@pytest.mark.parametrize("full_obs", [False, True])
def test_rows_match_the_single_env_encoding(full_obs: bool) -> None:
    env = VectorEnv(6, seed=3, full_obs=full_obs)
    rng = np.random.default_rng(0)
    check_rows(env)
    for _ in range(40):
        env.step(random_actions(env, rng))
        check_rows(env)
    assert env.obs.shape == (6, OBS_SIZE)


def test_deal_rewards_are_zero_sum_and_follow_the_result() -> None:
    env = VectorEnv(8, seed=1)
    rng = np.random.default_rng(1)
    ended = 0
    for before in steps(env, rng, 300):
        for i in np.flatnonzero(env.deal_done):
            res = before[i].result
            assert res is not None  # the old state object ended its deal
            g = res.game_points if res.winner is not None else 0
            w = res.winner if res.winner is not None else 0
            assert env.rewards[i, w] == g and env.rewards[i, 1 - w] == -g
            ended += 1
        assert (env.rewards[~env.deal_done] == 0).all()
        np.testing.assert_array_equal(env.rewards.sum(axis=1), 0)
    assert ended > 20


def test_match_episodes_carry_the_match_score_and_end_at_seven() -> None:
    env = VectorEnv(4, seed=2, episode="match")
    rng = np.random.default_rng(2)
    matches = 0
    for before in steps(env, rng, 1500):
        for i in np.flatnonzero(env.deal_done):
            old, new = before[i], env.states[i]
            if env.match_done[i]:
                matches += 1
                assert old.match_over and env.match_winner[i] == old.match_winner
                assert new.match_scores == [0, 0]
            else:
                assert env.match_winner[i] == -1 and new.match_scores == old.match_scores
    assert matches >= 2


def test_deal_episodes_start_at_love_all() -> None:
    env = VectorEnv(4, seed=2, episode="deal")
    rng = np.random.default_rng(3)
    for _ in range(200):
        env.step(random_actions(env, rng))
        assert all(s.match_scores == [0, 0] for s in env.states)
        assert not env.match_done.any()


def test_same_seed_same_tables() -> None:
    a, b = VectorEnv(3, seed=9), VectorEnv(3, seed=9)
    rng_a, rng_b = np.random.default_rng(4), np.random.default_rng(4)
    for _ in range(60):
        a.step(random_actions(a, rng_a))
        b.step(random_actions(b, rng_b))
    np.testing.assert_array_equal(a.obs, b.obs)
    assert a.states == b.states


def test_bad_input_is_a_clear_error() -> None:
    env = VectorEnv(2, seed=0)
    illegal = [int(np.flatnonzero(~env.masks[0])[0]), int(np.flatnonzero(env.masks[1])[0])]
    with pytest.raises(ValueError, match="table 0: illegal action"):
        env.step(illegal)
    with pytest.raises(ValueError, match="expected 2 actions"):
        env.step([0])
    with pytest.raises(ValueError, match="num_envs"):
        VectorEnv(0)
    with pytest.raises(ValueError, match="episode"):
        VectorEnv(2, episode="game")
