"""The ``guided`` bot: network-weighted worlds, critic leaves, its search result, its guide network."""

from __future__ import annotations

import inspect
import random

import numpy as np
import pytest
import torch

from agents import make_agent, parse_spec
from agents.core import checkpoint
from agents.core.guide_net import GuideNet, load_guide
from agents.core.nets import PolicyNet, ValueNet
from agents.core.rules import obvious_action, view_rule_action
from agents.guided import GuidedAgent
from agents.registry import KNOWN_AGENTS
from agents.search.beliefs import Beliefs, before_lead, card_rows
from agents.search.guided import GuidedSearch, SearchResult
from sixtysix_env.actions import MARRIAGE, N_ACTIONS, actions_of
from sixtysix_env.cards import KQ
from sixtysix_env.deals import deal
from sixtysix_env.engine import FOLLOW
from sixtysix_env.knowledge import sample_state, view
from sixtysix_env.observation import FULL_OBS_SIZE, OBS_SIZE
from tests.agents.test_anytime import FakeClock, searched_views


class FakeNet:
    """A guide whose policy likes one card a lot (``favourite``) and whose critic says 0."""

    def __init__(self, favourite: int, strength: float = 1000.0) -> None:
        self.favourite, self.strength = favourite, strength

    def policy_logits(self, obs: np.ndarray) -> np.ndarray:
        z = np.zeros((len(obs), N_ACTIONS), dtype=np.float32)
        z[:, self.favourite] = self.strength
        return z

    def values(self, full: np.ndarray) -> np.ndarray:
        return np.zeros(len(full), dtype=np.float32)


def tiny_guide(seed: int = 0) -> GuideNet:
    torch.manual_seed(seed)
    return GuideNet.from_modules(PolicyNet(OBS_SIZE, (16,)), ValueNet(FULL_OBS_SIZE, (16,)))


def random_decisions(deals: int, seed: int) -> list:
    """Every decision of random deals played by random moves (views of the player to act)."""
    rng, out = random.Random(seed), []
    for _ in range(deals):
        s = deal(rng)
        while not s.is_over:
            out.append(view(s, s.to_act))
            s.apply(rng.choice(s.legal_actions()))
    return out


def opponent_lead():
    """A first lead with the talon open: the state after it, the lead, and a card the leader kept."""
    for seed in range(50):
        s = deal(random.Random(seed))
        leader = s.to_act
        hand = actions_of(s.hands[leader])
        if any(s.hands[leader] & KQ[suit] == KQ[suit] for suit in range(4)):
            continue  # no marriage: the lead is a plain one
        lead, kept = hand[0], hand[-1]
        s.apply(lead)
        return s, lead, kept
    raise AssertionError("no deal without a marriage")


# ------------------------------------------------------------------ play
def test_legal_moves_and_a_policy_target_over_them_on_many_deals():
    bot = GuidedAgent(seed=1, worlds=3, net=tiny_guide())
    for v in random_decisions(12, seed=4):
        a = bot.act(v)
        r = bot.last_result
        legal = v.legal_mask
        assert legal >> a & 1 and r.action == a
        assert r.policy.dtype == np.float32 and r.policy.shape == (N_ACTIONS,)
        assert abs(float(r.policy.sum()) - 1.0) < 1e-5 and (r.policy >= 0).all()
        assert all(r.policy[x] == 0 for x in range(N_ACTIONS) if not legal >> x & 1)
        assert np.isfinite(r.value)
        if obvious_action(v) is not None:
            assert r.policy[a] == 1.0 and r.worlds == 0
        else:
            assert r.worlds == (1 if v.stock == 0 else 3)


def test_fixed_worlds_and_seed_make_the_same_decisions_and_targets():
    views = [v for v in random_decisions(4, seed=9) if obvious_action(v) is None][:25]
    net = tiny_guide(3)
    runs = []
    for _ in range(2):
        bot = GuidedAgent(seed=5, worlds=6, net=net)
        runs.append([(bot.act(v), bot.last_result.policy.tobytes(), bot.last_result.value) for v in views])
    assert runs[0] == runs[1]
    other = GuidedAgent(seed=6, worlds=6, net=net)
    seen = [(other.act(v), other.last_result.policy.tobytes(), other.last_result.value) for v in views]
    assert seen != runs[0]  # another seed samples other worlds


def test_the_default_guide_plays_the_shipped_checkpoint():
    bot = make_agent("guided:worlds=2", seed=1)
    assert bot.name == "guided:worlds=2"
    v = [v for v in random_decisions(2, seed=1) if obvious_action(v) is None][0]
    assert v.legal_mask >> bot.act(v) & 1 and bot.last_result.worlds == 2


# ------------------------------------------------------------------ inference
def test_a_world_where_the_lead_was_unlikely_weighs_less_but_never_zero():
    s, lead, kept = opponent_lead()
    v = view(s, s.to_act)
    assert v.window == FOLLOW
    truth = s.clone()  # the leader kept ``kept``: leading ``lead`` was very unlikely under the model
    other = sample_state(v, random.Random(1), opp_lacks=1 << kept)  # ``kept`` in the talon
    assert other.hands[1 - v.player] >> kept & 1 == 0
    search = GuidedSearch(FakeNet(kept), infer=False, beta=1.0, eps=0.1)  # type: ignore[arg-type]
    assert search.observe(v) == lead
    w, lik = search.weights(v, [truth, other], lead)
    assert lik is not None and 0 < w[0] < w[1] / 5
    assert w[0] == pytest.approx(0.1 / before_lead(truth, lead).legal_mask().bit_count())  # eps / n: a floor
    flat = GuidedSearch(FakeNet(kept), infer=False, beta=0.0)  # type: ignore[arg-type]
    assert (flat.weights(v, [truth, other], lead)[0] == 1.0).all()  # beta 0: uniform worlds


def test_the_rebuilt_lead_is_the_leaders_decision():
    s, lead, _ = opponent_lead()
    before = before_lead(s, lead)
    leader = 1 - s.to_act
    assert before.to_act == leader and before.hands[leader] >> lead & 1 and before.lead_card == -1
    assert before.legal_mask() >> lead & 1
    assert s.hands[leader] >> lead & 1 == 0  # a copy


def test_beliefs_carry_a_lead_forward_and_skip_a_marriage_lead():
    s, lead, kept = opponent_lead()
    v = view(s, s.to_act)
    beliefs = Beliefs()
    assert beliefs.observe(v) == lead
    rng = random.Random(2)
    worlds = [sample_state(v, rng) for _ in range(40)]
    unknown = card_rows([w.hands[1 - v.player] & ~v.opp_known for w in worlds])
    holds = unknown[:, kept] > 0
    assert 0 < holds.sum() < len(worlds)
    beliefs.record(v.stock, unknown, np.where(holds, 0.01, 1.0))  # worlds holding ``kept``: the lead unlikely
    log_w = beliefs.carried(v, unknown)
    assert log_w[holds].max() < log_w[~holds].min()
    # A lead right after a marriage says little: it is not used.
    for seed in range(50):
        m = deal(random.Random(seed))
        marriages = (m.legal_mask() >> MARRIAGE) & 0xF
        if marriages:
            suit = (marriages & -marriages).bit_length() - 1
            m.apply(MARRIAGE + suit)
            m.apply(actions_of(m.legal_mask() & KQ[suit])[0])
            assert Beliefs().observe(view(m, m.to_act)) == -1
            break
    else:
        raise AssertionError("no marriage in 50 deals")


# ------------------------------------------------------------------ the network
def test_the_guide_runs_the_torch_networks_in_numpy():
    torch.manual_seed(1)
    policy, critic = PolicyNet(OBS_SIZE, (16, 8)), ValueNet(FULL_OBS_SIZE, (8,))
    guide = GuideNet.from_modules(policy, critic)
    rng = np.random.default_rng(0)
    obs, full = rng.random((5, OBS_SIZE)), rng.random((5, FULL_OBS_SIZE))
    with torch.no_grad():
        want_p = policy(torch.tensor(obs, dtype=torch.float32)).numpy()
        want_v = critic(torch.tensor(full, dtype=torch.float32)).numpy()
    assert np.allclose(guide.policy_logits(obs), want_p, atol=1e-5)
    assert np.allclose(guide.values(full), want_v, atol=1e-5)
    with pytest.raises(ValueError, match="critic"):
        GuideNet.from_modules(policy, ValueNet(OBS_SIZE, (8,)))


def test_a_checkpoint_without_a_full_state_critic_is_refused_by_name(tmp_path):
    policy = PolicyNet(OBS_SIZE, (8,))
    none = tmp_path / "no_critic.pt"
    torch.save(checkpoint.build({"hidden": [8]}, policy), none)
    with pytest.raises(checkpoint.CheckpointError, match="no_critic.pt.*no critic"):
        load_guide(none)
    with pytest.raises(checkpoint.CheckpointError, match="no_critic.pt"):
        make_agent(f"guided:{none}")
    narrow = tmp_path / "obs_critic.pt"
    critic = ValueNet(OBS_SIZE, (8,))
    torch.save(checkpoint.build({"hidden": [8], "full_critic": False, "critic_hidden": [8]}, policy,
                                critic=critic.state_dict()), narrow)
    with pytest.raises(checkpoint.CheckpointError, match="obs_critic.pt.*full state"):
        load_guide(narrow)
    with pytest.raises(checkpoint.CheckpointError, match="missing.pt"):
        load_guide(tmp_path / "missing.pt")
    good = tmp_path / "good.pt"
    torch.save(checkpoint.build({"hidden": [8], "critic_hidden": [8]}, policy,
                                critic=ValueNet(FULL_OBS_SIZE, (8,)).state_dict()), good)
    assert make_agent(f"guided:{good},worlds=2").name == f"guided:{good},worlds=2"


# ------------------------------------------------------------------ registry
def test_the_spec_parses_and_its_defaults_are_the_bots():
    name, values = parse_spec("guided:x.pt,worlds=8,depth=2,beta=0.25,move_time=0.05")
    assert name == "guided" and values["path"] == "x.pt" and values["worlds"] == 8 and values["depth"] == 2
    assert values["beta"] == 0.25 and values["move_time"] == 0.05
    for bad in ("guided:depth=3", "guided:worlds=0", "guided:beta=2", "guided:eps=0", "guided:temp=0",
                "guided:x.pt,net=x"):
        with pytest.raises(ValueError):
            parse_spec(bad)
    signature = inspect.signature(GuidedAgent).parameters
    for key, param in KNOWN_AGENTS["guided"].params.items():
        assert signature[key].default == param.default, key


# ------------------------------------------------------------------ time
@pytest.mark.parametrize("leaf", ["critic", "rollout"])
def test_the_search_fills_a_fake_budget_and_stops_when_past_it(leaf):
    v = searched_views(1)[0]
    bot = GuidedAgent(seed=1, worlds=5, net=tiny_guide(), leaf=leaf)
    bot.act(v)
    assert bot.last_result.worlds == 5  # no budget: the fixed search
    bot.move_time = 1.0
    bot.clock = FakeClock(0.001)  # every reading 1 ms later: about 600 ms of readings
    bot.act(v)
    assert bot.last_result.worlds > 5
    bot.clock = FakeClock(1.0)  # every reading past the deadline: the rules of thumb, no world
    assert bot.act(v) == view_rule_action(v) and bot.last_result.worlds == 0
    assert bot.last_result.policy[bot.last_result.action] == 1.0


def test_the_value_policy_is_the_searchs_values_alone_without_the_prior():
    """Self-play's target: softmax(mean values / temp) over the legal moves, the same whatever the
    prior, where the bot's own policy (with the prior) follows the network's favourite."""
    views = [v for v in random_decisions(3, seed=2) if obvious_action(v) is None and v.stock][:12]
    assert views
    for v in views:
        legal = actions_of(v.legal_mask)
        fav = legal[-1]
        with_prior = GuidedAgent(seed=4, worlds=4, net=FakeNet(fav), prior=0.3)
        without = GuidedAgent(seed=4, worlds=4, net=FakeNet(fav), prior=0.0)
        with_prior.act(v)
        without.act(v)
        r, r0 = with_prior.last_result, without.last_result
        assert r.policy[fav] > 0.9  # the prior sharpened: exp(prior * log pi / temp)
        target = r.value_policy(legal, 0.5)
        np.testing.assert_array_equal(target, r0.value_policy(legal, 0.5))
        z = np.exp((r.action_values[legal] - r.action_values[legal].max()) / 0.5)
        np.testing.assert_allclose(target[legal], z / z.sum(), rtol=1e-5)
        illegal = [x for x in range(N_ACTIONS) if x not in legal]
        assert abs(float(target.sum()) - 1.0) < 1e-5 and target[illegal].sum() == 0


def test_an_obvious_moves_value_policy_is_its_one_hot():
    v = next(v for v in random_decisions(6, seed=3)
             if obvious_action(v) is not None and v.legal_mask.bit_count() > 1)
    bot = GuidedAgent(seed=1, worlds=2, net=tiny_guide())
    a = bot.act(v)
    target = bot.last_result.value_policy(actions_of(v.legal_mask), 0.2)
    assert target[a] == 1.0 and target.sum() == 1.0


def test_the_improved_policy_is_the_networks_policy_moved_by_the_searchs_values():
    """softmax(log pi + values / temp): the prior the search read, times exp(value / temp), with or
    without the bot's own prior weight; pi itself where the values tie."""
    views = [v for v in random_decisions(3, seed=5) if obvious_action(v) is None and v.stock][:10]
    assert views
    for v in views:
        legal = actions_of(v.legal_mask)
        bot = GuidedAgent(seed=4, worlds=4, net=FakeNet(legal[-1], strength=2.0), prior=0.0)
        bot.act(v)
        r = bot.last_result
        assert r.prior is not None
        pi = r.prior[legal].astype(np.float64)
        assert abs(pi.sum() - 1.0) < 1e-5 and pi[-1] == pi.max() > pi.min()
        z = pi * np.exp((r.action_values[legal] - r.action_values[legal].max()) / 0.5)
        target = r.improved_policy(legal, 0.5)
        np.testing.assert_allclose(target[legal], z / z.sum(), rtol=1e-4)
        illegal = [x for x in range(N_ACTIONS) if x not in legal]
        assert abs(float(target.sum()) - 1.0) < 1e-5 and target[illegal].sum() == 0
        flat = SearchResult(r.action, r.policy, 0.0, r.worlds, np.zeros(N_ACTIONS, np.float32), r.prior)
        np.testing.assert_allclose(flat.improved_policy(legal, 0.5)[legal], pi, rtol=1e-5)


def test_without_a_prior_the_improved_policy_is_the_value_policy():
    v = next(v for v in random_decisions(6, seed=3)
             if obvious_action(v) is not None and v.legal_mask.bit_count() > 1)
    bot = GuidedAgent(seed=1, worlds=2, net=tiny_guide())
    a = bot.act(v)  # an obvious move: no search, one-hot
    legal = actions_of(v.legal_mask)
    assert bot.last_result.improved_policy(legal, 0.2)[a] == 1.0
    values = np.zeros(N_ACTIONS, np.float32)
    values[legal] = np.arange(len(legal))
    spent = SearchResult(legal[0], bot.last_result.policy, 0.0, 1, values)  # talon spent: no prior
    np.testing.assert_array_equal(spent.improved_policy(legal, 0.2), spent.value_policy(legal, 0.2))
