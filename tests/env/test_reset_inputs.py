"""Hostile ``reset`` inputs: every container, dealer, score and seed is either
read exactly or refused with one named ``ValueError``, the same way by the AEC
env, the Gymnasium wrapper, the four-player env and ``fixed_deal``.

A dict or set is never read as a list: a dict's keys or a set's arbitrary
order would silently become other scores or another talon."""

from __future__ import annotations

import numpy as np
import pytest

from sixtysix_env import SixtySixGymEnv, deal, env, fixed_deal
from sixtysix_env.aec_four import env as four_env
from sixtysix_env.cards import CARD_NAMES, cards_of
from sixtysix_env.four_deals import deal_four, fixed_four

_S = deal(3)
HANDS = [[CARD_NAMES[c] for c in cards_of(_S.hands[p])] for p in (0, 1)]
TALON = [CARD_NAMES[c] for c in _S.talon]
FOUR_HANDS = [[CARD_NAMES[c] for c in cards_of(h)] for h in deal_four(5).hands]


def _resets():
    """``reset(seed, options)`` of each two-player env."""
    return [lambda o: env().reset(seed=0, options=o), lambda o: SixtySixGymEnv().reset(seed=0, options=o)]


BAD_TWO = [
    ({"dealer": 1.0}, "dealer"),
    ({"dealer": np.float64(0)}, "dealer"),
    ({"scores": {0: 9, 1: 9}}, "match scores"),
    ({"scores": {0: 1, 1: 2}}, "match scores"),
    ({"scores": {1, 2}}, "match scores"),
    ({"scores": np.array([1.0, 2.0])}, "match scores"),
    ({"hands": {0: HANDS[0], 1: HANDS[1]}, "talon": TALON}, "hands"),
    ({"hands": None, "talon": TALON}, "hands"),
    ({"hands": 7, "talon": TALON}, "hands"),
    ({"hands": HANDS, "talon": None}, "talon"),
    ({"hands": HANDS, "talon": set(TALON)}, "talon"),
    ({"hands": HANDS, "talon": dict.fromkeys(TALON)}, "talon"),
    ({"hands": [set(HANDS[0]), HANDS[1]], "talon": TALON}, "hands"),
    ({"hands": [None, HANDS[1]], "talon": TALON}, "hands"),
]


@pytest.mark.parametrize("options, message", BAD_TWO)
@pytest.mark.parametrize("which", [0, 1], ids=["aec", "gym"])
def test_bad_two_player_options_are_named_value_errors(which, options, message):
    with pytest.raises(ValueError, match=message):
        _resets()[which](options)


def test_int_likes_are_read_exactly():
    e = env(episode="deal")
    e.reset(seed=0, options={"dealer": np.int64(1), "scores": np.array([2, 5]), "hands": tuple(HANDS),
                             "talon": np.array([_S.talon[i] for i in range(len(TALON))])})
    s = e.unwrapped.game_state
    assert s.dealer == 1 and s.match_scores == [2, 5] and list(s.talon) == list(_S.talon)
    assert type(s.dealer) is int and all(type(g) is int for g in s.match_scores)


def test_fixed_deal_refuses_unordered_talon():
    with pytest.raises(ValueError, match="talon"):
        fixed_deal(HANDS, set(TALON))


@pytest.mark.parametrize(
    "options, message",
    [
        ({"dealer": 3.0}, "dealer"),
        ({"scores": {0: 9, 1: 9}}, "match scores"),
        ({"hands": {i: h for i, h in enumerate(FOUR_HANDS)}}, "hands"),
        ({"hands": None}, "hands"),
        ({"hands": [None, *FOUR_HANDS[1:]]}, "hands"),
    ],
)
def test_bad_four_player_options_are_named_value_errors(options, message):
    with pytest.raises(ValueError, match=message):
        four_env().reset(seed=0, options=options)


def test_four_player_scores_take_numpy_ints_like_the_two_player_game():
    s = fixed_four(FOUR_HANDS, 3, np.array([1, 2]))
    assert s.match_scores == [1, 2] and all(type(g) is int for g in s.match_scores)


@pytest.mark.parametrize("seed", [True, 1.5, "abc", -1])
@pytest.mark.parametrize("make", [env, SixtySixGymEnv], ids=["aec", "gym"])
def test_bad_seeds_are_the_same_value_error_in_both_envs(make, seed):
    if seed == -1 and make is env:
        make().reset(seed=-1)  # the AEC env takes any int (docs/environments.md)
        return
    with pytest.raises(ValueError, match="seed"):
        make().reset(seed=seed)


def test_gym_takes_a_numpy_int_seed_like_the_aec_env():
    a, b = SixtySixGymEnv(), SixtySixGymEnv()
    assert (a.reset(seed=np.int64(4))[0] == b.reset(seed=4)[0]).all()


@pytest.mark.parametrize("seed", [True, 1.5, "x"])
def test_engine_seeds_refuse_what_the_envs_refuse(seed):
    """``deal``, ``VectorEnv`` and every other ``make_rng`` user: a bool is not a seed."""
    from sixtysix_env.vector import VectorEnv

    for call in (lambda: deal(seed), lambda: VectorEnv(2, seed=seed)):
        with pytest.raises(ValueError, match="seed"):
            call()


def test_engine_seeds_take_numpy_ints():
    from sixtysix_env.vector import VectorEnv

    assert deal(np.int64(5)).hands == deal(5).hands
    assert (VectorEnv(2, seed=np.int64(5)).obs == VectorEnv(2, seed=5).obs).all()
