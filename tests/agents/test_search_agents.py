"""Search bots: they plan on sampled worlds only, agree with the solver where it is exact."""

from __future__ import annotations

import random

import pytest
from helpers import random_states

from agents import make_agent
from agents.oracle import OracleAgent
from agents.search.positions import random_position
from agents.search.solver import action_values
from sixtysix_env.deals import deal
from sixtysix_env.engine import FOLLOW, LEAD
from sixtysix_env.knowledge import resample, view

SEARCHERS = ["heuristic", "pimc:worlds=3", "ismcts:iterations=12,worlds=3", "guided:worlds=3"]


def positions(n: int, seed: int):
    """States met in random play (rarely declaring): phase 1 and 2, every window."""
    pick = random.Random(seed)
    return [s for s in random_states(3 * n, seed, declare=0.0) if pick.random() < 0.25][:n]


@pytest.mark.parametrize("spec", SEARCHERS)
def test_decision_does_not_depend_on_hidden_cards(spec):
    rng = random.Random(99)
    agent = make_agent(spec)
    for i, s in enumerate(positions(25, seed=len(spec))):
        p = s.to_act
        other = resample(s, p, rng)
        agent.reset(i)
        a = agent.act(view(s, p))
        agent.reset(i)
        assert agent.act(view(other, p)) == a


def test_resampled_worlds_really_differ():
    # Guards the test above: the worlds it compares do hide different cards.
    rng = random.Random(5)
    differ = 0
    for s in positions(25, seed=3):
        p = s.to_act
        o = resample(s, p, rng)
        differ += o.hands[1 - p] != s.hands[1 - p]
    assert differ >= 10


@pytest.mark.parametrize("spec", ["pimc:worlds=2", "ismcts:iterations=5,worlds=2", "guided:worlds=2"])
def test_search_bots_are_exact_once_the_talon_is_spent(spec):
    rng = random.Random(8)
    agent = make_agent(spec, seed=0)
    for i in range(30):
        s = random_position(rng, hand_size=1 + i % 6, closed=False, window=LEAD if i % 2 else FOLLOW)
        values = action_values(s)
        a = agent.act(view(s, s.to_act))
        assert values[a] == max(values.values())


def test_oracle_requires_and_checks_the_true_state():
    assert OracleAgent.requires_state is True
    s = deal(random.Random(2))
    v = view(s, s.to_act)
    oracle = make_agent("oracle", seed=0)
    with pytest.raises(ValueError):
        oracle.act(v)
    other = deal(random.Random(3))
    with pytest.raises(ValueError):
        oracle.act(v, state=other)
    assert v.legal_mask >> oracle.act(v, state=s) & 1


def test_oracle_is_exact_in_phase_two():
    rng = random.Random(21)
    oracle = OracleAgent(seed=0)
    for i in range(30):
        s = random_position(rng, hand_size=1 + i % 6, closed=i % 2 == 0, window=LEAD if i % 3 else FOLLOW)
        values = action_values(s)
        a = oracle.act(view(s, s.to_act), state=s)
        assert values[a] == max(values.values())


def test_phase_one_searches_return_legal_actions():
    # The first lead of a deal goes through the full search (no obvious move).
    s = deal(random.Random(6))
    v = view(s, s.to_act)
    for spec in ("pimc:worlds=4,depth=2", "ismcts:iterations=40"):
        assert v.legal_mask >> make_agent(spec, seed=1).act(v) & 1


def test_ismcts_compares_root_actions_on_the_same_worlds() -> None:
    """Every root action gets one descent per sampled world (paired comparison)."""
    from agents.ismcts import IsmctsAgent

    bot = IsmctsAgent(seed=3, iterations=50)
    checked = 0
    for s in positions(60, seed=9):
        v = view(s, s.to_act)
        k = v.legal_mask.bit_count()
        if not v.talon_open or k < 2:
            continue
        root = bot.search_tree(v)
        rounds = -(-50 // k)
        assert sorted(root.children) == sorted(a for a in range(32) if v.legal_mask >> a & 1)
        assert [ch.visits for ch in root.children.values()] == [rounds] * k
        assert root.visits == rounds * k
        checked += 1
    assert checked > 10
