"""The PettingZoo AEC adapter: API, seeding, fixed deals, rewards, infos, no leaks."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from sixtysix_env.actions import CLOSE, CONTINUE, DECLARE, EXCHANGE, MARRIAGE, parse_action
from sixtysix_env.aec import env, raw_env
from sixtysix_env.cards import card_id, cards_of
from sixtysix_env.deals import deal
from sixtysix_env.engine import CLOSE_RESPONSE, DRAW, FINAL, FOLLOW, LEAD
from sixtysix_env.knowledge import view
from sixtysix_env.render import render_text
from sixtysix_env.scoring import CLOSER_BEATEN, CLOSER_FAILED, DECLARED, DRAWN, FALSE_DECLARATION, LAST_TRICK

P0, P1 = "player_0", "player_1"

# Trump hearts (face-up AH); player_0 holds the trump marriage, player_1 the trump nine.
DEAL_A = {
    "dealer": 1,
    "hands": [["AC", "TC", "KH", "QH", "AS", "TS"], ["9C", "JC", "QC", "KC", "9H", "JS"]],
    "talon": ["KS", "QS", "AD", "TD", "KD", "QD", "JD", "9D", "JH", "TH", "9S", "AH"],
}


def api_env(**kwargs):
    return env(**kwargs)


def mask_of(e, agent=None) -> set[int]:
    agent = agent or e.agent_selection
    return {int(a) for a in np.nonzero(e.observe(agent)["action_mask"])[0]}


def play(e, *actions) -> None:
    """Step named actions ("AC", "close", "marriage H"), each legal for the agent to act."""
    for name in actions:
        a = parse_action(name)
        assert a in mask_of(e), f"{name} not legal: {sorted(mask_of(e))}"
        e.step(a)


# ------------------------------------------------------------------ API
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"episode": "deal"},
        {"reward": "game_points", "illegal_action": "lose", "perfect_information": True},
    ],
)
def test_pettingzoo_api(kwargs):
    api_test(api_env(**kwargs), num_cycles=200)


def test_seed_test():
    seed_test(env, num_cycles=200)


def test_registration_and_metadata():
    e = pettingzoo.make("aec", "sixtysix_v0", episode="deal")
    assert isinstance(e.unwrapped, raw_env) and e.unwrapped.episode == "deal"
    md = raw_env.metadata
    assert md["name"] == "sixtysix_v0" and md["render_modes"] == ["human", "ansi", "rgb_array"]
    assert md["is_parallelizable"] is False
    e.reset(seed=0)
    assert e.action_space(P0).n == 32
    space = e.observation_space(P0)
    assert space["action_mask"].dtype == np.int8 and space["observation"].dtype == np.float32
    assert "full_observation" not in space.spaces


def test_constructor_errors():
    for kwargs in (
        {"episode": "game"},
        {"reward": "points"},
        {"episode": "deal", "reward": "match"},
        {"illegal_action": "ignore"},
    ):
        with pytest.raises(ValueError):
            raw_env(**kwargs)


# ------------------------------------------------------------------ reset and seeding
@pytest.mark.parametrize(
    "options, message",
    [
        ({"hands": DEAL_A["hands"]}, "together"),
        ({"dealer": 2}, "dealer"),
        ({"scores": [7, 0]}, "match scores"),
        ({**DEAL_A, "talon": DEAL_A["talon"][:-1] + ["XX"]}, "unknown card name"),
        ({**DEAL_A, "talon": DEAL_A["talon"][:-1] + ["AC"]}, "duplicate"),
        ({**DEAL_A, "hands": [DEAL_A["hands"][0][:5], DEAL_A["hands"][1]]}, "hands"),
    ],
)
def test_bad_reset_options(options, message):
    e = env()
    with pytest.raises(ValueError, match=message):
        e.reset(seed=0, options=options)


def test_unknown_reset_option_warns():
    e = env()
    with pytest.warns(UserWarning, match="unknown reset option"):
        e.reset(seed=0, options={"colour": 1})


def test_fixed_deal_options():
    e = env(episode="deal")
    e.reset(seed=3, options={**DEAL_A, "scores": [2, 4]})
    s = e.unwrapped.game_state
    assert cards_of(s.hands[0]) == sorted(card_id(c) for c in DEAL_A["hands"][0])
    assert s.talon == tuple(card_id(c) for c in DEAL_A["talon"])
    assert s.dealer == 1 and s.match_scores == [2, 4] and e.agent_selection == P0
    e.reset(seed=3, options={"dealer": 0})
    assert e.unwrapped.game_state.dealer == 0 and e.agent_selection == P1


def test_same_seed_same_match_and_first_dealer_from_seed():
    dealers = set()
    for seed in range(12):
        a, b = env(), env()
        a.reset(seed=seed)
        b.reset(seed=seed)
        assert a.unwrapped.game_state == b.unwrapped.game_state
        dealers.add(a.unwrapped.game_state.dealer)
    assert dealers == {0, 1}


def deals_seen(seed: int, policy_seed: int) -> dict[int, tuple]:
    """Cards of every deal of a random-play match, by deal index."""
    rng = random.Random(policy_seed)
    e = env()
    e.reset(seed=seed)
    out = {}
    for _agent in e.agent_iter():
        s = e.unwrapped.game_state
        k = e.unwrapped.deal_index
        if k not in out:
            out[k] = (tuple(s.hands), s.talon)
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
        else:
            e.step(int(rng.choice(np.nonzero(obs["action_mask"])[0])))
    return out


def test_deal_k_cards_depend_only_on_seed_and_k():
    a, b = deals_seen(21, policy_seed=1), deals_seen(21, policy_seed=2)
    common = set(a) & set(b)
    assert len(common) >= 2
    for k in common:
        assert a[k] == b[k]
    c = deals_seen(22, policy_seed=1)
    assert a[0] != c[0]


# ------------------------------------------------------------------ fixed deals: windows and scoring
def test_windows_and_masks_and_false_declaration():
    e = env(episode="deal", info_mode="rich")
    e.reset(seed=0, options=DEAL_A)
    s = e.unwrapped.game_state
    hand0 = {card_id(c) for c in DEAL_A["hands"][0]}
    assert s.window == LEAD and mask_of(e) == hand0 | {MARRIAGE + 2, CLOSE}
    assert mask_of(e, P1) == set()
    play(e, "marriage H")
    assert mask_of(e) == {card_id("KH"), card_id("QH"), CLOSE}
    play(e, "QH")
    assert s.window == FOLLOW and e.agent_selection == P1
    assert mask_of(e) == {card_id(c) for c in DEAL_A["hands"][1]}
    play(e, "9C")
    assert s.window == DRAW and e.agent_selection == P0
    assert mask_of(e) == {CONTINUE, CLOSE, DECLARE}
    play(e, "declare")  # 3 + 40 < 66
    assert all(e.terminations.values())
    assert e.rewards == {P0: -2.0, P1: 2.0}
    info = e.infos[P0]
    assert info["deal_result"] == {
        "winner": P1,
        "game_points": 2,
        "reason": FALSE_DECLARATION,
        "scores": {P0: 43, P1: 0},
    }
    assert info["match_score"] == {P0: 0, P1: 2} and e.infos[P1] == info
    obs, reward, term, trunc, _ = e.last()
    assert (reward, term, trunc) == (-2.0, True, False)
    assert obs["action_mask"].tolist() == [0] * 31 + [1]  # the placeholder CONTINUE, never all zeros
    assert e.observe(P1)["action_mask"].tolist() == [0] * 31 + [1]
    with pytest.raises(ValueError, match="None"):  # the placeholder is never stepped
        e.step(CONTINUE)
    e.step(None)
    assert e.agent_selection == P1 and e.last()[1] == 2.0
    e.step(None)
    assert e.agents == []


def test_correct_declaration_schwarz_scores_three():
    e = env(episode="deal", info_mode="rich")
    e.reset(seed=0, options=DEAL_A)
    # 40 (trump marriage) + QH/9C 3 + AC/JC 13 + TC/QC 13 = 69; player_1 has no trick.
    play(e, "marriage H", "QH", "9C", "continue", "AC", "JC", "continue", "TC", "QC")
    assert e.unwrapped.game_state.window == DRAW
    play(e, "declare")
    assert e.rewards == {P0: 3.0, P1: -3.0}
    assert e.infos[P1]["deal_result"]["reason"] == DECLARED
    assert e.infos[P1]["deal_result"]["winner"] == P0


def test_close_response_exchange_and_closer_failed():
    e = env(episode="deal", info_mode="rich")
    e.reset(seed=0, options=DEAL_A)
    s = e.unwrapped.game_state
    play(e, "close")
    assert s.window == CLOSE_RESPONSE and e.agent_selection == P1
    assert mask_of(e) == {CONTINUE, EXCHANGE}
    play(e, "exchange")
    assert s.window == LEAD and e.agent_selection == P0
    v0 = e.unwrapped.view(P0)
    assert v0.trump_card == card_id("9H") and v0.opp_known == 1 << card_id("AH")
    assert mask_of(e) == {card_id(c) for c in DEAL_A["hands"][0]}  # closed: no marriage
    # Phase 2: player_1 must follow suit and beat: spades led, JS is its only spade.
    play(e, "AS")
    assert mask_of(e) == {card_id("JS")}
    play(e, "JS")
    # Play on without declaring; the trick winner of the last trick gets a FINAL window.
    rng = random.Random(0)
    while e.unwrapped.game_state.window != FINAL:
        legal = sorted(mask_of(e) - {DECLARE})
        e.step(rng.choice(legal))
    assert mask_of(e) == {DECLARE, CONTINUE}
    e.step(CONTINUE)
    res = e.infos[P0]["deal_result"]
    if res["winner"] == P1:  # player_0 may have made 66 without declaring: still failed
        assert res["reason"] == CLOSER_FAILED and res["game_points"] == 3
    assert e.rewards == {P0: -3.0, P1: 3.0}


def random_deal_results(n: int, seed: int):
    """(result, rewards, infos) of ``n`` random deals started through reset options."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        s0 = deal(rng)
        opts = {"dealer": s0.dealer, "hands": [cards_of(h) for h in s0.hands], "talon": list(s0.talon)}
        e = env(episode="deal", info_mode="rich")
        e.reset(seed=i, options=opts)
        to_the_end = i % 2 == 0  # half the deals: never declare or close
        while not any(e.terminations.values()):
            # Mostly sensible random play, so that every way a deal can end occurs.
            s = e.unwrapped.game_state
            legal = mask_of(e)
            if to_the_end and legal - {DECLARE, CLOSE}:
                e.step(rng.choice(sorted(legal - {DECLARE, CLOSE})))
                continue
            if DECLARE in legal and (s.score(s.to_act) >= 66 or rng.random() < 0.03):
                e.step(DECLARE if rng.random() < 0.8 else rng.choice(sorted(legal)))
                continue
            if CLOSE in legal and rng.random() > 0.1:
                legal.discard(CLOSE)
            legal.discard(DECLARE)
            e.step(rng.choice(sorted(legal)))
        out.append((e.unwrapped.game_state.result, dict(e.rewards), e.infos))
    return out


def test_every_scoring_case_gives_zero_sum_game_point_rewards():
    seen = Counter()
    for res, rewards, infos in random_deal_results(1500, seed=8):
        seen[(res.reason, res.game_points)] += 1
        if res.winner is None:
            assert rewards == {P0: 0.0, P1: 0.0}
        else:
            w, lose = (P0, P1) if res.winner == 0 else (P1, P0)
            assert rewards == {w: float(res.game_points), lose: -float(res.game_points)}
        assert infos[P0]["deal_result"]["reason"] == res.reason
        assert infos[P0]["deal_result"]["game_points"] == res.game_points
    expected = {
        (DECLARED, 1), (DECLARED, 2), (DECLARED, 3), (CLOSER_BEATEN, 2), (FALSE_DECLARATION, 2),
        (CLOSER_FAILED, 2), (CLOSER_FAILED, 3), (LAST_TRICK, 1), (LAST_TRICK, 2), (DRAWN, 0),
    }  # fmt: skip
    assert expected <= set(seen), f"missing cases: {expected - set(seen)}"


# ------------------------------------------------------------------ match episodes
def play_match(e, seed: int, policy_seed: int):
    rng = random.Random(policy_seed)
    e.reset(seed=seed)
    totals = {P0: 0.0, P1: 0.0}
    deal_ends = []
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        totals[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        before = e.unwrapped.deal_index
        e.step(int(rng.choice(np.nonzero(obs["action_mask"])[0])))
        if e.unwrapped.deal_index != before or any(e.terminations.values()):
            deal_ends.append((dict(e.rewards), e.infos[P0]))
    return totals, deal_ends


def test_match_reward_is_plus_minus_one_at_the_end():
    e = env(info_mode="rich")
    for seed in range(3):
        totals, deal_ends = play_match(e, seed, seed)
        assert sorted(totals.values()) == [-1.0, 1.0]
        for rewards, _ in deal_ends[:-1]:
            assert rewards == {P0: 0.0, P1: 0.0}
        final = deal_ends[-1][1]["match_score"]
        winner = max(final, key=final.get)
        assert final[winner] >= 7 and totals[winner] == 1.0


def test_match_with_game_point_rewards_and_next_dealer():
    e = env(reward="game_points", info_mode="rich")
    totals, deal_ends = play_match(e, 5, 9)
    final = deal_ends[-1][1]["match_score"]
    assert totals[P0] == final[P0] - final[P1] and totals[P1] == -totals[P0]
    assert [info["deal"] for _, info in deal_ends] == list(range(len(deal_ends)))
    assert len(deal_ends) >= 2
    # The winner of a deal deals the next one (same dealer after a drawn deal).
    e.reset(seed=5)
    rng = random.Random(9)
    last_dealer = e.unwrapped.game_state.dealer
    k = 0
    while not any(e.terminations.values()):
        e.step(int(rng.choice(sorted(mask_of(e)))))
        if e.unwrapped.deal_index != k:
            k = e.unwrapped.deal_index
            w = e.infos[P0]["deal_result"]["winner"]
            expected = last_dealer if w is None else int(w[-1])
            assert e.unwrapped.game_state.dealer == expected
            last_dealer = expected


# ------------------------------------------------------------------ illegal actions, view, render
def test_illegal_action_raises_with_names():
    e = env(episode="deal", info_mode="rich")
    e.reset(seed=0, options=DEAL_A)
    with pytest.raises(ValueError, match=r"illegal action 30 \(declare\).*legal: .*29 \(close\)"):
        e.step(DECLARE)
    for bad in (32, -1, "close", 2.0, True):
        with pytest.raises(ValueError):
            e.step(bad)
    e.step(np.int64(card_id("AC")))  # numpy ints are fine
    assert e.agent_selection == P1


@pytest.mark.parametrize("penalty", [1.0, 5.0])
def test_illegal_action_loses_when_asked(penalty):
    e = env(episode="deal", illegal_action="lose", illegal_penalty=penalty, info_mode="rich")
    e.reset(seed=0, options=DEAL_A)
    play(e, "AC")
    e.step(DECLARE)  # player_1 cannot declare in the follow window
    assert all(e.terminations.values()) and not any(e.truncations.values())
    assert e.rewards == {P1: -penalty, P0: penalty}
    assert "illegal_action" in e.infos[P1] and "illegal_action" not in e.infos[P0]
    assert e.last()[1] == -penalty
    e.step(None)
    assert e.last()[1] == penalty
    e.step(None)
    assert e.agents == []


def test_view_and_game_state():
    e = env()
    e.reset(seed=7)
    s = e.unwrapped.game_state
    assert e.unwrapped.view(P0) == view(s, 0) and e.unwrapped.view(1) == view(s, 1)
    with pytest.raises(ValueError):
        e.unwrapped.view("player_2")


def test_perfect_information_observation():
    e = env(perfect_information=True)
    e.reset(seed=0, options=DEAL_A)
    obs = e.observe(P0)
    assert set(obs) == {"observation", "action_mask", "full_observation"}
    np.testing.assert_array_equal(obs["full_observation"][: obs["observation"].size], obs["observation"])
    assert "full_observation" not in env().observation_space(P0).spaces


def test_render_ansi_and_human_from_a_fixed_side(capsys):
    """Default side player_0, whoever is to act: player_1's cards stay face down."""
    e = env(render_mode="ansi", episode="deal")
    e.reset(seed=0, options=DEAL_A)
    text = e.render()
    assert text.startswith("player_0's side: player_0 to act") and "29 close" in text and "hearts" in text
    assert "player_0 (me): TC AC TS AS QH KH" in text and "player_1: 6 cards, known: -" in text
    play(e, "AC")
    text = e.render()
    assert "player_1 to act" in text and "9C" not in text and "legal" not in text
    h = env(render_mode="human", episode="deal")
    h.reset(seed=0, options=DEAL_A)
    h.step(card_id("AC"))
    printed = capsys.readouterr().out  # after reset and after the step, from the same side
    assert printed.count("player_0's side: ") == 2 and "player_0's side: player_1 to act" in printed


def test_render_view_player_1_and_the_spectator_opt_in():
    e = env(render_mode="ansi", episode="deal", render_view=P1)
    e.reset(seed=0, options=DEAL_A)
    play(e, "marriage H")
    text = e.render()
    assert text.startswith("player_1's side: player_0 to act") and "player_1 (me): 9C JC QC KC JS 9H" in text
    assert "player_0: 6 cards, known: QH KH" in text and "AC" not in text  # a shown marriage is known
    spectator = env(render_mode="ansi", render_view="all")
    spectator.reset(seed=0, options=DEAL_A)
    text = spectator.render()
    assert text.startswith("spectator:") and "player_0: TC AC" in text and "player_1: 9C" in text
    for bad in ("player_2", 0, "learner"):
        with pytest.raises(ValueError, match="render_view must be one of"):
            env(render_view=bad)
    with pytest.raises(TypeError, match="draws a Table"):
        render_text(e.unwrapped.game_state)  # a state is never drawn as it is


def test_pettingzoo_render_test():
    render_test(lambda render_mode=None: env(render_mode=render_mode))


def test_env_is_pettingzoos_own_order_enforcing_wrapper():
    """No subclass re-implementing the wrapper's private protocol: PettingZoo's wrapper as
    shipped, plus only the end-of-episode check (``aec_order.OrderEnforcing``)."""
    e = env()
    assert type(e).__bases__ == (pettingzoo.utils.wrappers.OrderEnforcingWrapper,)
    assert {k for k in vars(type(e)) if not k.startswith("__")} == {"step", "last"}
    assert isinstance(e.unwrapped, raw_env)
    e.reset(seed=1)
    assert e.agents == ["player_0", "player_1"] and e.agent_selection in e.agents


def test_order_enforcing_before_reset():
    e = env()
    with pytest.raises(AssertionError, match="before step"):
        e.step(0)
    with pytest.raises(AttributeError, match="before reset"):  # PettingZoo's own wrapper and message
        e.last()
    with pytest.raises(AttributeError):
        e.agent_selection  # noqa: B018
