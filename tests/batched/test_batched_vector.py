"""SelfPlayEnv, the masked sampler and the Gymnasium SixtySixVectorEnv on the batched engine."""

from __future__ import annotations

import gymnasium
import pytest
import torch

from sixtysix_env.actions import N_ACTIONS
from sixtysix_env.batched.observe import observe
from sixtysix_env.batched.sampling import random_actions, sample_masked
from sixtysix_env.batched.vector import SelfPlayEnv, SixtySixVectorEnv, policy_opponent
from sixtysix_env.observation import FULL_OBS_SIZE, LEGAL, OBS_SIZE, WINDOW

OVER_BIT = WINDOW + 5


def legal_bits(masks: torch.Tensor) -> torch.Tensor:
    return (masks.long() << torch.arange(N_ACTIONS)).sum(1)


@pytest.mark.parametrize("full_obs", [False, True])
def test_self_play_env_attributes(full_obs: bool) -> None:
    env = SelfPlayEnv(32, 0, full_obs=full_obs)
    g = torch.Generator().manual_seed(0)
    total = torch.zeros(2)
    for _ in range(200):
        env.step(random_actions(legal_bits(env.masks), g))
        assert env.obs.shape == (32, OBS_SIZE) and env.masks.shape == (32, N_ACTIONS)
        assert env.masks.any(1).all() and torch.equal(env.masks, env.obs[:, LEGAL : LEGAL + 32] > 0)
        assert torch.equal(env.to_act, env.engine.to_act)
        assert (env.rewards.sum(1) == 0).all() and (env.rewards[~env.deal_done] == 0).all()
        assert ((env.match_winner >= 0) == env.match_done).all()
        total += env.rewards.sum(0)
    if full_obs:
        assert env.full_obs.shape == (32, FULL_OBS_SIZE) and torch.equal(env.obs, env.full_obs[:, :OBS_SIZE])
    other = observe(env.engine, 1 - env.to_act)
    assert (other[:, LEGAL : LEGAL + 32] == 0).all()  # the player not to act has no legal actions
    assert total.sum() == 0


def test_sample_masked_only_picks_legal_actions() -> None:
    masks = torch.zeros((500, N_ACTIONS), dtype=torch.bool)
    masks[:, [3, 7, 30]] = True
    logits = torch.randn(500, N_ACTIONS) * 5
    picks, logp = sample_masked(logits, masks, torch.Generator().manual_seed(0))
    assert set(picks.tolist()) == {3, 7, 30}
    want = torch.distributions.Categorical(logits=logits[:, [3, 7, 30]]).log_prob(
        torch.tensor([[3, 7, 30]]).eq(picks.unsqueeze(1)).long().argmax(1))
    assert torch.allclose(logp, want, atol=1e-5)
    best, _ = sample_masked(logits, masks, greedy=True)
    assert torch.equal(best, torch.where(masks, logits, -1e9).argmax(1))


def test_sample_masked_follows_the_policy() -> None:
    logits = torch.tensor([[0.0, 1.0, 2.0, 5.0]]).expand(20000, 4)
    masks = torch.tensor([[True, True, True, False]]).expand(20000, 4)
    picks, _ = sample_masked(logits, masks, torch.Generator().manual_seed(1))
    freq = torch.bincount(picks, minlength=4).float() / 20000
    want = torch.softmax(torch.tensor([0.0, 1.0, 2.0]), 0)
    assert freq[3] == 0 and torch.allclose(freq[:3], want, atol=0.015)


def run_gym(env: SixtySixVectorEnv, steps: int, seed: int = 0):
    obs, infos = env.reset(seed=seed)
    g = torch.Generator().manual_seed(seed)
    history = [(obs, infos)]
    for _ in range(steps):
        masks = infos["action_mask"]
        obs, rewards, terminated, truncated, infos = env.step(random_actions(legal_bits(masks), g))
        history.append((obs, rewards, terminated, truncated, infos))
    return history


def test_gym_vector_env_contract() -> None:
    env = SixtySixVectorEnv(64, seed=0)
    assert isinstance(env, gymnasium.vector.VectorEnv)
    assert env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    assert env.single_observation_space.shape == (OBS_SIZE,) and env.observation_space.shape == (64, OBS_SIZE)
    assert env.single_action_space == gymnasium.spaces.Discrete(N_ACTIONS)
    history = run_gym(env, 150)
    episodes, total = 0, 0.0
    for obs, rewards, terminated, truncated, infos in history[1:]:
        masks = infos["action_mask"]
        assert obs.shape == (64, OBS_SIZE) and obs.dtype == torch.float32
        assert masks.any(1).all()  # same-step autoreset: never an all-zero mask
        assert torch.equal(masks, obs[:, LEGAL : LEGAL + 32] > 0)  # and the learner is to act
        assert not truncated.any()
        assert torch.equal(infos["_final_obs"], terminated)
        final = infos["final_obs"][terminated]
        assert (final[:, OVER_BIT] == 1).all() and (final[:, LEGAL : LEGAL + 32] == 0).all()
        assert torch.equal(rewards[terminated], infos["deal_points"][terminated])
        assert (rewards[~terminated] == 0).all() and (rewards.abs() <= 3).all()
        episodes += int(terminated.sum())
        total += float(rewards.sum())
    assert episodes > 300 and abs(total / episodes) < 0.5  # random against random
    assert set(env.seat.tolist()) == {0, 1}


def test_gym_env_is_deterministic_by_seed() -> None:
    a = run_gym(SixtySixVectorEnv(16), 40, seed=7)
    b = run_gym(SixtySixVectorEnv(16), 40, seed=7)
    c = run_gym(SixtySixVectorEnv(16), 40, seed=8)
    assert all(torch.equal(x[0], y[0]) for x, y in zip(a, b, strict=True))
    assert not all(torch.equal(x[0], y[0]) for x, y in zip(a, c, strict=True))


def test_gym_env_match_episodes_and_match_reward() -> None:
    env = SixtySixVectorEnv(32, seed=1, episode="match", reward="match", learner_seat=1, dict_obs=True)
    assert set(env.single_observation_space.spaces) == {"observation", "action_mask"}
    history = run_gym(env, 300)
    ended = 0
    for obs, rewards, terminated, _, infos in history[1:]:
        assert torch.equal(obs["action_mask"], infos["action_mask"])
        assert set(rewards[terminated].tolist()) <= {-1.0, 1.0} and (rewards[~terminated] == 0).all()
        ended += int(terminated.sum())
    assert ended > 5 and (env.seat == 1).all()


def test_gym_env_with_a_network_opponent() -> None:
    from agents.core.nets import PolicyNet

    env = SixtySixVectorEnv(16, seed=2, opponent=PolicyNet())
    history = run_gym(env, 30)
    assert all(h[4]["action_mask"].any(1).all() for h in history[1:])
    greedy = SixtySixVectorEnv(16, seed=2, opponent=policy_opponent(PolicyNet(), greedy=True))
    run_gym(greedy, 10)


def test_gym_env_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="episode"):
        SixtySixVectorEnv(4, episode="set")
    with pytest.raises(ValueError, match="reward"):
        SixtySixVectorEnv(4, reward="match")  # needs episode="match"
    with pytest.raises(ValueError, match="opponent"):
        SixtySixVectorEnv(4, opponent="heuristic")
    with pytest.raises(ValueError, match="options"):
        SixtySixVectorEnv(4).reset(options={"dealer": 0})
    with pytest.raises(RuntimeError, match="reset"):
        SixtySixVectorEnv(4).step(torch.zeros(4, dtype=torch.int64))
