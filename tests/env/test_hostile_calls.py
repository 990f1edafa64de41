"""Hostile calls to the scalar envs: every misuse is a named error with a one-line
message, and a refused call changes nothing (the env then plays exactly as one
that never saw it)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from sixtysix_env import IllegalActionError, SixtySixGymEnv, deal, env, fixed_deal
from sixtysix_env.aec import raw_env
from sixtysix_env.aec_four import env as four_env
from sixtysix_env.aec_four import raw_env as four_raw_env
from sixtysix_env.aec_order import NotResetError
from sixtysix_env.cards import CARD_NAMES, cards_of
from sixtysix_env.four_deals import deal_four, fixed_four
from sixtysix_env.vector import VectorEnv

_S = deal(3)
HANDS = [[CARD_NAMES[c] for c in cards_of(_S.hands[p])] for p in (0, 1)]
TALON = [CARD_NAMES[c] for c in _S.talon]
BAD_RESETS = [
    {"seed": 9, "options": {"dealer": 5}},
    {"seed": None, "options": {"scores": (9, 9)}},
    {"seed": 4, "options": {"hands": HANDS}},
    {"seed": None, "options": {"dealer": 1.0}},
    {"seed": 1.5},
]


def _first_legal(e) -> int:
    return int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0])


def _play(e, n: int) -> list:
    """Up to ``n`` moves of first-legal play; the record of what happened."""
    out = []
    for _ in range(n):
        if not e.agents:
            break
        a = e.agent_selection
        if e.terminations[a] or e.truncations[a]:
            e.step(None)
            continue
        x = _first_legal(e)
        e.step(x)
        out.append((a, x, dict(e.rewards), repr(e.unwrapped.game_state)))
    return out


@pytest.mark.parametrize("make", [env, four_env], ids=["two", "four"])
@pytest.mark.parametrize("bad", BAD_RESETS)
def test_a_refused_reset_mid_match_changes_nothing(make, bad):
    """The seed of the match in play (its later deals) and the seed stream survive a refused reset."""
    ref, hit = make(), make()
    for e in (ref, hit):
        e.reset(seed=7)
        _play(e, 30)
    if "hands" in bad.get("options", {}) and make is four_env:
        bad = {"seed": 4, "options": {"hands": [["AC"]]}}
    with warnings.catch_warnings(), pytest.raises(ValueError):
        warnings.simplefilter("ignore")
        hit.reset(**bad)
    assert _play(hit, 300) == _play(ref, 300)
    ref.reset()
    hit.reset()  # the stream of seed 7 continues as if nothing happened
    assert _play(hit, 100) == _play(ref, 100)


def test_gym_env_plays_on_after_a_refused_reset():
    def run(e, n):
        out = []
        for _ in range(n):
            a = int(np.flatnonzero(e.action_masks())[0])
            obs, r, term, trunc, info = e.step(a)
            out.append((a, r, term, obs.tobytes()))
            if term:
                break
        return out

    ref, hit = SixtySixGymEnv(), SixtySixGymEnv()
    for e in (ref, hit):
        e.reset(seed=4)
        run(e, 5)
    for bad in ({"dealer": 3}, {"scores": (1, 2, 3)}, {"hands": HANDS}, "dealer"):
        with pytest.raises(ValueError):
            hit.reset(seed=1, options=bad)
    assert run(hit, 200) == run(ref, 200)
    ref.reset()
    hit.reset()
    assert run(hit, 50) == run(ref, 50)


def test_gym_env_reads_iterator_options_once():
    it = {"hands": iter([iter(HANDS[0]), HANDS[1]]), "talon": iter(TALON), "scores": iter([2, 3])}
    it["dealer"] = 1
    g = SixtySixGymEnv(episode="deal", seat=0)  # player_0 leads: the deal is as dealt
    g.reset(seed=0, options=it)
    s = g.aec_env.game_state
    assert list(s.talon) == list(_S.talon) and s.hands == _S.hands and s.match_scores == [2, 3]


def test_hands_as_an_iterator_are_read_once():
    s = fixed_deal(iter(HANDS), TALON)
    assert s.hands == _S.hands
    four = deal_four(5)
    assert fixed_four(iter([cards_of(h) for h in four.hands]), 3).hands == four.hands
    e = env(episode="deal")
    e.reset(seed=0, options={"hands": iter(HANDS), "talon": iter(TALON)})
    assert e.unwrapped.game_state.hands == _S.hands


@pytest.mark.parametrize("make", [env, four_env], ids=["two", "four"])
def test_unknown_option_keys_of_any_type_only_warn(make):
    e = make()
    with pytest.warns(UserWarning, match="unknown reset option"):
        e.reset(seed=0, options={1: 2, "bogus": 3, ("x",): 4})
    assert e.agents


@pytest.mark.parametrize("make", [raw_env, four_raw_env], ids=["two", "four"])
def test_raw_envs_before_reset_raise_not_reset(make):
    e = make()
    with pytest.raises(NotResetError, match="reset"):
        e.step(0)
    with pytest.raises(NotResetError, match="reset"):
        e.last()
    with pytest.raises(NotResetError, match="reset"):
        e.agent_iter()
    e.reset(seed=1)  # and the env is fine afterwards
    assert e.agent_selection in e.agents


@pytest.mark.parametrize("make", [env, four_env], ids=["two", "four"])
@pytest.mark.parametrize("agent", ["player_9", None, 1.0, True, [], np.float64(0)])
def test_bad_agent_names_are_value_errors(make, agent):
    e = make()
    e.reset(seed=0)
    for call in (e.observe, e.action_space, e.observation_space):
        with pytest.raises(ValueError, match="unknown agent"):
            call(agent)


@pytest.mark.parametrize("make", [env, four_env], ids=["two", "four"])
def test_int_like_agents_and_names_still_work(make):
    e = make()
    e.reset(seed=0)
    u = e.unwrapped
    assert u.observation_space("player_1") is u.observation_spaces["player_1"]
    assert u.action_space("player_0") is u.action_spaces["player_0"]
    np.testing.assert_array_equal(u.observe(np.int64(1))["observation"], u.observe("player_1")["observation"])


@pytest.mark.parametrize("make", [env, four_env], ids=["two", "four"])
@pytest.mark.parametrize("bad", [None, 1.0, np.float32(2), True, -1, 32, 2**80, np.array([3]), "close", [0]])
def test_bad_actions_are_refused_without_a_trace(make, bad):
    ref, hit = make(), make()
    for e in (ref, hit):
        e.reset(seed=2)
        _play(e, 3)
    with pytest.raises(IllegalActionError, match="illegal action"):
        hit.step(bad)
    assert _play(hit, 200) == _play(ref, 200)


def test_vector_env_refuses_non_sequences_by_name():
    v = VectorEnv(2, 0)
    for bad in (5, None, "ab", np.array(3)):
        with pytest.raises(ValueError, match="actions must be"):
            v.step(bad)


def test_vector_env_refused_step_moves_no_table():
    ref, hit = VectorEnv(3, 5), VectorEnv(3, 5)
    legal = [int(np.flatnonzero(m)[0]) for m in ref.masks]
    bad = list(legal)
    bad[2] = int(np.flatnonzero(~ref.masks[2])[0])  # the last table's action is illegal
    before = [repr(s) for s in hit.states]
    with pytest.raises(IllegalActionError, match="table 2"):
        hit.step(bad)
    assert [repr(s) for s in hit.states] == before
    for _ in range(300):
        acts = [int(np.flatnonzero(m)[0]) for m in ref.masks]
        ref.step(acts)
        hit.step(acts)
        np.testing.assert_array_equal(hit.obs, ref.obs)
        np.testing.assert_array_equal(hit.rewards, ref.rewards)
