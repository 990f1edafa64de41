"""The single-agent Gymnasium wrapper: checker, seats, opponents, rewards, illegal actions,
its own protocol (named errors), rendering from the learner's seat."""

from __future__ import annotations

import re
import sys
import types

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from sixtysix_env import (
    OBS_SIZE,
    IllegalActionError,
    OpponentActionError,
    OpponentError,
    ProtocolError,
    ResetNeededError,
    SixtySixGymEnv,
    opponents,
)
from sixtysix_env.actions import CLOSE, DECLARE, N_ACTIONS, actions_of
from sixtysix_env.cards import card_id
from sixtysix_env.gym_env import RandomLegalOpponent, UnknownOpponentError, agent_from_spec
from sixtysix_env.knowledge import PlayerView
from sixtysix_env.render import player_table, render_text

DEAL_A = {
    "dealer": 1,
    "hands": [["AC", "TC", "KH", "QH", "AS", "TS"], ["9C", "JC", "QC", "KC", "9H", "JS"]],
    "talon": ["KS", "QS", "AD", "TD", "KD", "QD", "JD", "9D", "JH", "TH", "9S", "AH"],
}


def run_episode(env: SixtySixGymEnv, seed: int, policy_rng: np.random.Generator):
    obs, info = env.reset(seed=seed)
    trajectory = [obs]
    total = 0.0
    while True:
        legal = np.flatnonzero(env.action_masks())
        assert np.array_equal(info["action_mask"].astype(bool), env.action_masks())
        obs, reward, terminated, truncated, info = env.step(int(policy_rng.choice(legal)))
        assert not truncated
        trajectory.append(obs)
        total += reward
        if terminated:
            return total, info, trajectory


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"episode": "deal"}, {"perfect_information": True, "seat": 1}, {"render_mode": "ansi"}],
)
def test_check_env(kwargs):
    check_env(SixtySixGymEnv(**kwargs), skip_render_check="render_mode" not in kwargs)


def test_gymnasium_make():
    e = gymnasium.make("SixtySix-v0", episode="deal", seat=0)
    obs, info = e.reset(seed=0)
    assert obs.shape == (OBS_SIZE,) and info["seat"] == 0
    assert e.unwrapped.action_masks().dtype == bool


def test_constructor_errors():
    with pytest.raises(ValueError):
        SixtySixGymEnv(seat=2)
    with pytest.raises(ValueError):
        SixtySixGymEnv(episode="game")
    with pytest.raises(ValueError):
        SixtySixGymEnv(opponent=42).reset(seed=0)


def test_deterministic_under_seed_and_seats_vary():
    a, b = SixtySixGymEnv(episode="deal"), SixtySixGymEnv(episode="deal")
    ra = run_episode(a, 3, np.random.default_rng(0))
    rb = run_episode(b, 3, np.random.default_rng(0))
    assert ra[0] == rb[0] and len(ra[2]) == len(rb[2])
    for x, y in zip(ra[2], rb[2], strict=True):
        np.testing.assert_array_equal(x, y)
    seats = {a.reset(seed=s)[1]["seat"] for s in range(12)}
    assert seats == {0, 1}
    fixed = SixtySixGymEnv(seat=1)
    assert {fixed.reset(seed=s)[1]["seat"] for s in range(6)} == {1}


@pytest.mark.parametrize("seat", [0, 1])
def test_deal_reward_matches_the_deal_result(seat):
    env = SixtySixGymEnv(episode="deal", seat=seat, info_mode="rich")
    me = f"player_{seat}"
    rng = np.random.default_rng(seat)
    for seed in range(30):
        total, info, _ = run_episode(env, seed, rng)
        res = info["deal_result"]
        expected = 0 if res["winner"] is None else res["game_points"] * (1 if res["winner"] == me else -1)
        assert total == expected
        assert info["action_mask"].tolist() == [0] * 31 + [1]  # the placeholder CONTINUE, never all zeros
        assert env.last_deal_result == res and info["deal_over"] == 1
        assert info["deal_points"] == res["game_points"]
        assert info["seat"] == seat and type(info["seat"]) is int and info["learner"] == me  # one type


def test_seat_is_an_int_in_every_info_mode():
    for mode in ("flat", "rich"):
        env = SixtySixGymEnv(seat=1, info_mode=mode)
        _, info = env.reset(seed=0)
        assert type(info["seat"]) is int and info["seat"] == 1
        _, _, _, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        assert type(info["seat"]) is int and info["seat"] == 1
        assert ("learner" in info) == (mode == "rich")


def test_match_episode_reward_and_game_points_option():
    env = SixtySixGymEnv(seat=0, info_mode="rich")
    total, info, _ = run_episode(env, 1, np.random.default_rng(1))
    score = info["match_score"]
    assert max(score.values()) >= 7 and total == (1.0 if score["player_0"] >= 7 else -1.0)
    gp = SixtySixGymEnv(seat=1, reward="game_points", info_mode="rich")
    total, info, _ = run_episode(gp, 2, np.random.default_rng(2))
    score = info["match_score"]
    assert total == score["player_1"] - score["player_0"]


@pytest.mark.parametrize("penalty", [1.0, 3.0])
def test_illegal_action_terminates_with_penalty(penalty):
    env = SixtySixGymEnv(episode="deal", seat=0, illegal_penalty=penalty, info_mode="rich")
    obs, info = env.reset(seed=0, options=DEAL_A)
    assert not env.action_masks()[DECLARE]
    obs2, reward, terminated, truncated, info2 = env.step(DECLARE)
    assert (reward, terminated, truncated) == (-penalty, True, False)
    assert info2["illegal_action"] == DECLARE
    assert env.observation_space.contains(obs2)
    np.testing.assert_array_equal(obs2, obs)
    for bad in (N_ACTIONS, -1, "close"):
        env.reset(seed=0, options=DEAL_A)
        assert env.step(bad)[1:3] == (-penalty, True)


def test_fixed_deal_through_options_and_view():
    env = SixtySixGymEnv(episode="deal", seat=0)
    _, info = env.reset(seed=5, options=DEAL_A)
    v = env.view()
    assert isinstance(v, PlayerView) and v.player == 0
    assert v.hand == sum(1 << card_id(c) for c in DEAL_A["hands"][0])
    assert info["action_mask"][CLOSE] == 1


class RecordingAgent:
    """An Agent-protocol opponent that records what it is given."""

    name = "recorder"

    def __init__(self) -> None:
        self.seeds: list[int | None] = []
        self.views: list[PlayerView] = []

    def reset(self, seed: int | None = None) -> None:
        self.seeds.append(seed)

    def act(self, view: PlayerView) -> int:
        self.views.append(view)
        return next(a for a in range(N_ACTIONS) if view.legal_mask >> a & 1)


def test_agent_opponent_gets_its_own_view_and_a_seed():
    bot = RecordingAgent()
    env = SixtySixGymEnv(opponent=bot, seat=0, episode="deal")
    run_episode(env, 4, np.random.default_rng(4))
    run_episode(env, 5, np.random.default_rng(5))
    assert len(bot.seeds) == 2 and all(isinstance(s, int) for s in bot.seeds)
    assert bot.views and all(v.player == 1 and v.to_act == 1 for v in bot.views)
    again = RecordingAgent()
    run_episode(SixtySixGymEnv(opponent=again, seat=0, episode="deal"), 4, np.random.default_rng(4))
    assert again.seeds[0] == bot.seeds[0]


def test_callable_opponent_gets_the_observation_dict():
    seen = []

    def policy(obs: dict) -> int:
        seen.append(obs)
        return int(np.flatnonzero(obs["action_mask"])[-1])

    env = SixtySixGymEnv(opponent=policy, seat=1, episode="deal")
    run_episode(env, 0, np.random.default_rng(0))
    assert seen and all(o["observation"].shape == (OBS_SIZE,) for o in seen)
    assert all(o["action_mask"].sum() > 0 for o in seen)


def test_spec_string_opponent_comes_from_the_entry_point_factory(monkeypatch):
    """``agents.make_agent`` is found through the ``sixtysix.agents`` entry point, not imported."""
    made = []

    def make_agent(spec: str):
        made.append(spec)
        return RecordingAgent()

    monkeypatch.setitem(sys.modules, "agents", types.SimpleNamespace(make_agent=make_agent))
    env = SixtySixGymEnv(opponent="whatever:1", episode="deal")
    env.reset(seed=0)
    assert made == ["whatever:1"] and isinstance(env.opponent, RecordingAgent)


def test_installed_bots_by_name():
    env = SixtySixGymEnv(opponent="random", episode="deal", seat=0)
    run_episode(env, 1, np.random.default_rng(1))
    assert env.opponent.name == "random" and type(env.opponent).__module__.startswith("agents.")
    with pytest.raises(UnknownOpponentError, match="'no-such-bot'"):
        agent_from_spec("no-such-bot")


def test_no_bot_factory_is_a_named_error(monkeypatch):
    monkeypatch.setattr(opponents, "entry_points", lambda group: [])
    with pytest.raises(UnknownOpponentError, match="sixtysix.agents"):
        SixtySixGymEnv(opponent="random").reset(seed=0)


def test_default_opponent_is_random_legal_from_np_random():
    env = SixtySixGymEnv(episode="deal")
    env.reset(seed=0)
    assert isinstance(env.opponent, RandomLegalOpponent) and env.opponent.rng is env.np_random


# ------------------------------------------------------------------ the wrapper's own protocol
def test_step_without_an_episode_in_play_is_a_named_error():
    env = SixtySixGymEnv(episode="deal", seat=0)
    with pytest.raises(ResetNeededError, match="call reset"):
        env.step(0)
    env.reset(seed=0, options=DEAL_A)
    env.step(DECLARE)  # illegal: ends the episode
    state = env.aec_env.game_state.clone()
    for action in (DECLARE, card_id("AC")):
        with pytest.raises(ResetNeededError, match=r"illegal action 30 \(declare\).*call reset"):
            env.step(action)
    assert env.aec_env.game_state == state
    run_episode(env, 1, np.random.default_rng(1))  # reset starts play again
    with pytest.raises(ResetNeededError, match="episode is over") as err:
        env.step(0)
    assert isinstance(err.value, RuntimeError) and isinstance(err.value, gymnasium.error.ResetNeeded)


class FailingAgent(RecordingAgent):
    """Plays like RecordingAgent, but raises on its ``fail_at``-th move."""

    name = "failing"

    def __init__(self, fail_at: int) -> None:
        super().__init__()
        self.fail_at = fail_at

    def act(self, view: PlayerView) -> int:
        if len(self.views) + 1 == self.fail_at:
            self.views.append(view)
            raise KeyError("no idea")
        return super().act(view)


def test_an_opponent_that_raised_stops_the_env_until_reset():
    bot = FailingAgent(fail_at=2)
    env = SixtySixGymEnv(opponent=bot, seat=0, episode="deal")
    env.reset(seed=0, options=DEAL_A)
    env.step(card_id("AC"))  # the opponent follows: its first move
    with pytest.raises(OpponentError, match="opponent 'failing' raised KeyError") as raised:
        while True:
            env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert isinstance(raised.value.__cause__, KeyError)
    state = env.aec_env.game_state.clone()
    assert env.aec_env.agent_selection == "player_1"  # the opponent's turn is not the learner's
    with pytest.raises(ResetNeededError, match="opponent 'failing' raised") as refused:
        env.step(actions_of(state.legal_mask())[0])  # legal for the opponent, not for the learner
    assert refused.value.__cause__ is raised.value
    assert env.aec_env.game_state == state  # the learner's action was not played for the opponent
    run_episode(env, 2, np.random.default_rng(2))  # reset starts play again


@pytest.mark.parametrize("value", [None, 3.7, "AC", True, 99, -1, CLOSE, np.float32(5)])
def test_a_bad_opponent_action_is_a_named_error(value):
    def stubborn(obs: dict):
        return value

    env = SixtySixGymEnv(opponent=stubborn, seat=0, episode="deal")
    env.reset(seed=0, options=DEAL_A)  # player_0 (the learner) leads first
    named = rf"illegal action {re.escape(repr(value))}.* from the opponent '\S*stubborn' as player_1"
    with pytest.raises(OpponentActionError, match=named) as err:
        env.step(card_id("AC"))  # CLOSE is illegal in the follow window
    assert err.value.action is value and isinstance(err.value, IllegalActionError)
    assert isinstance(err.value, OpponentError) and "legal: " in str(err.value)
    with pytest.raises(ResetNeededError, match="from the opponent"):
        env.step(card_id("TC"))


def test_numpy_integer_opponent_actions_are_actions():
    env = SixtySixGymEnv(opponent=lambda obs: np.flatnonzero(obs["action_mask"])[0], episode="deal")
    run_episode(env, 0, np.random.default_rng(0))


def test_a_step_out_of_turn_is_a_named_error():
    env = SixtySixGymEnv(seat=0, episode="deal")
    env.reset(seed=0, options=DEAL_A)
    env.aec_env.step(card_id("AC"))  # played from outside the wrapper
    with pytest.raises(ProtocolError, match="player_1's turn, not the learner's"):
        env.step(card_id("TC"))


# ------------------------------------------------------------------ rendering
def test_renders_from_the_learners_seat_only(capsys):
    hidden = DEAL_A["hands"][0]  # the opponent's (player_0's) hand
    env = SixtySixGymEnv(seat=1, episode="deal", render_mode="human")
    env.reset(seed=0, options=DEAL_A)  # player_0 leads: the opponent moves inside reset
    rng = np.random.default_rng(0)
    outputs = [capsys.readouterr().out]
    terminated = False
    while not terminated:
        terminated = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))[2]
        outputs.append(capsys.readouterr().out)
        if not terminated:  # one table per call, the learner's side, at the learner's decision
            assert outputs[-1] == render_text(player_table(env.view())) + "\n"
    for out in outputs:
        assert out.count("player_1's side") == 1 and "player_0's side" not in out
        mine = [line for line in out.splitlines() if line.startswith("player_0:")]
        assert len(mine) == 1 and not any(c in mine[0] for c in hidden)
    ansi = SixtySixGymEnv(seat=1, episode="deal", render_mode="ansi")
    ansi.reset(seed=0, options=DEAL_A)
    assert ansi.render() == outputs[0].rstrip("\n")


def test_render_view_all_is_the_explicit_spectator_opt_in():
    env = SixtySixGymEnv(seat=1, episode="deal", render_mode="ansi", render_view="all")
    env.reset(seed=0, options=DEAL_A)
    text = env.render()
    assert text.startswith("spectator:") and all(c in text for c in DEAL_A["hands"][0])
    with pytest.raises(ValueError, match="render_view must be one of"):
        SixtySixGymEnv(render_view="player_1")
    with pytest.warns(UserWarning, match="is not one of"):  # the Gymnasium API's warning, not a crash
        unknown = SixtySixGymEnv(render_mode="svg")
    unknown.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode='svg'"):
        assert unknown.render() is None
