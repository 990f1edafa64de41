"""The rule presets through the environments: AEC (a scripted kawu game, a double game,
fixed deals checked against the preset's deck), Gymnasium (a Schnapsen deal), the
vector env, and the library checkers (PettingZoo api_test, gymnasium's env checker)
per preset (docs/rules-variants.md, "Using a preset")."""

from __future__ import annotations

import copy
import pickle
import random
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import sixtysix_env  # noqa: F401  (registers SixtySix-v0)
from sixtysix_env.actions import DECLARE, actions_of, parse_action
from sixtysix_env.aec import env, raw_env
from sixtysix_env.cards import N_SUITS, NINE, cards_of
from sixtysix_env.deals import deal
from sixtysix_env.engine import DRAW, LEAD
from sixtysix_env.gym_env import SixtySixGymEnv
from sixtysix_env.observation import HAND, OPP_HAND, TALON_CARDS, TALON_ORDER, TALON_SIZE_IX, encode_full
from sixtysix_env.scoring import FALSE_DECLARATION
from sixtysix_env.variants import PRESETS, RulesConflictError, UnknownRulesError, rules_from_spec
from sixtysix_env.vector import VectorEnv

P0, P1 = "player_0", "player_1"
SPECS = (*PRESETS, "german+draw_bonus+double_game")
# Dealer player_0, so player_1 leads; diamonds are trumps (the face-up 9D).
HANDS = [["AC", "TC", "KC", "QC", "JC", "9C"], ["AS", "TS", "KS", "QS", "JS", "9S"]]
TALON = ["AH", "TH", "KH", "QH", "JH", "9H", "AD", "TD", "KD", "QD", "JD", "9D"]
NINES = [6 * s + NINE for s in range(N_SUITS)]


def play(e, *moves: str) -> None:
    for m in moves:
        e.step(parse_action(m))


def fixed(rules: str, options: dict | None = None, **kw) -> raw_env:
    e = raw_env(rules=rules, **kw)
    e.reset(seed=0, options={"dealer": 0, "hands": HANDS, "talon": TALON, **(options or {})})
    return e


@pytest.mark.parametrize(("rules", "points", "score"), [("kawu", 3, 3), ("german", 2, 23)])
def test_kawu_marriage_without_a_trick_is_lost_and_a_false_claim_costs_three(rules, points, score):
    e = fixed(rules, episode="deal")
    play(e, "marriage S", "QS", "9C")  # player_1 shows spades with no trick, then takes the first trick
    s = e.game_state
    assert e.agent_selection == P1
    if rules == "kawu":  # no draw window: both have drawn and player_1 leads
        assert s.window == LEAD and s.hands[0].bit_count() == s.hands[1].bit_count() == 6
    else:
        assert s.window == DRAW and s.hands[0].bit_count() == 5
    play(e, "declare")  # 3 (+20 under German) < 66: a false claim; player_0 has no trick
    assert e.rewards == {P0: float(points), P1: -float(points)}
    res = e.last_deal_result
    assert (res["winner"], res["game_points"], res["reason"]) == (P0, points, FALSE_DECLARATION)
    assert res["scores"][P1] == score
    if rules == "kawu":
        assert (res["rules"], res["bonus"], res["match_value"]) == ("kawu", 0, 1)
    else:
        assert "rules" not in res  # the German result keeps its keys


@pytest.mark.parametrize(("rules", "value"), [("german+double_game", 2.0), ("german", 1.0)])
def test_a_double_game_pays_two_matches(rules, value):
    e = fixed(rules, options={"scores": (6, 0)})
    play(e, "AS", "9C", "declare")  # player_1 claims falsely: player_0 reaches 8:0
    assert all(e.terminations.values())
    assert e.rewards == {P0: value, P1: -value}
    assert e.game_state.match_value == value


def test_fixed_deals_follow_the_preset_deck():
    e = raw_env(rules="schnapsen")
    five = [h[:5] for h in (["AC", "TC", "KC", "QC", "JC"], ["AS", "TS", "KS", "QS", "JS"])]
    talon = ["AH", "TH", "KH", "QH", "JH", "AD", "TD", "KD", "QD", "JD"]
    e.reset(seed=1, options={"hands": five, "talon": talon})
    assert e.game_state.stock == 10 and e.game_state.hands[0].bit_count() == 5
    with pytest.raises(ValueError, match="expected 5"):
        e.reset(seed=1, options={"hands": HANDS, "talon": TALON})
    with pytest.raises(ValueError, match="not in the schnapsen deck"):
        e.reset(seed=1, options={"hands": [five[0][:4] + ["9C"], five[1]], "talon": talon})


@pytest.mark.parametrize("spec", ["bogus", "german+nope", 3])
def test_bad_rules_specs_fail_when_the_env_is_made(spec):
    with pytest.raises(UnknownRulesError):
        raw_env(rules=spec)
    with pytest.raises(UnknownRulesError):
        SixtySixGymEnv(rules=spec)
    with pytest.raises(UnknownRulesError):
        VectorEnv(2, rules=spec)


def test_conflicting_switches_fail_when_the_env_is_made():
    with pytest.raises(RulesConflictError, match="V1.3"):
        env(rules="schnapsen-pkg+double_game")


@pytest.mark.parametrize("rules", SPECS)
def test_pettingzoo_api_test_per_preset(rules):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(rules=rules), num_cycles=200)


@pytest.mark.parametrize("rules", SPECS)
def test_gymnasium_env_checker_per_preset(rules):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(gymnasium.make("SixtySix-v0", rules=rules).unwrapped, skip_render_check=True)


def test_a_schnapsen_deal_through_the_gym_env():
    e = gymnasium.make("SixtySix-v0", rules="schnapsen", episode="deal", opponent="random", seat=0,
                       render_mode="ansi")
    obs, info = e.reset(seed=4)
    assert "talon 10" in e.render() and "player_1: 5 cards" in e.render()
    rng = random.Random(0)
    done, steps = False, 0
    while not done:
        assert obs[HAND : HAND + 24].sum() <= 5
        assert not obs[[HAND + c for c in NINES]].any()  # no nines in Schnapsen
        assert obs[TALON_SIZE_IX] * 12 <= 10 + 1e-6
        legal = np.flatnonzero(e.unwrapped.action_masks())
        obs, reward, done, trunc, info = e.step(int(rng.choice(legal)))
        steps += 1
    res = e.unwrapped.last_deal_result
    assert res["rules"] == "schnapsen" and info["deal_over"] == 1
    assert reward == (res["game_points"] if res["winner"] == P0 else -res["game_points"])


def test_the_vector_env_deals_every_table_under_the_preset():
    v = VectorEnv(4, seed=3, rules="german+double_game", episode="match")
    rng = random.Random(1)
    ended = 0
    for _ in range(3000):
        assert all(s.rules.spec == "german+double_game" for s in v.states)
        v.step([rng.choice(actions_of(s.legal_mask() & ~(1 << DECLARE)) or actions_of(s.legal_mask()))
                for s in v.states])
        for i in np.flatnonzero(v.match_done):
            assert v.match_value[i] in (1, 2)
            ended += 1
    assert ended > 0 and not v.match_value[~v.match_done].any()
    w = VectorEnv(2, seed=3, rules="schnapsen")
    assert all(s.hands[0].bit_count() == 5 and s.stock == 10 for s in w.states)


@pytest.mark.parametrize("rules", ["schnapsen", "kawu"])
def test_full_observation_of_a_preset_deal(rules):
    s = deal(8, rules=rules)
    full = encode_full(s, 0)
    n = rules_from_spec(rules).talon_size
    assert np.flatnonzero(full[OPP_HAND : OPP_HAND + 24]).tolist() == cards_of(s.hands[1])
    assert sorted(np.flatnonzero(full[TALON_CARDS : TALON_CARDS + 24])) == sorted(s.talon[:-1])
    order = full[TALON_ORDER : TALON_ORDER + 24]
    assert [round(order[c] * 12) for c in s.talon[:-1]] == list(range(1, n))  # draw order, scaled by 12
    deck = rules_from_spec(rules).deck
    for plane in (HAND, OPP_HAND, TALON_CARDS):
        assert all(deck >> c & 1 for c in np.flatnonzero(full[plane : plane + 24]))


def test_an_env_under_a_preset_copies_and_pickles_as_a_value():
    e = raw_env(rules="kawu+double_game")
    e.reset(seed=3)
    for other in (pickle.loads(pickle.dumps(e)), copy.deepcopy(e)):
        assert other.rules == e.rules and other.game_state == e.game_state
        assert other.game_state.rules.spec == "kawu+double_game"
