"""Policy rollouts at the guided search's leaves (agents.search.rollouts, ``leaf=rollout``): each
leaf's value is what one rollout played alone gives, the states are left alone, and the option
reaches the bot, its spec and self-play."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents import parse_spec
from agents.core.rules import obvious_action
from agents.guided import GuidedAgent
from agents.registry import KNOWN_AGENTS
from agents.search.determinized import CLOSE_MARGIN
from agents.search.guided import LEAVES, GuidedSearch, exact_leaf
from agents.search.rollouts import rollout_values
from agents.search.solver import Solver, terminal_value
from sixtysix_env.actions import CLOSE, N_ACTIONS, actions_of
from sixtysix_env.deals import deal
from sixtysix_env.engine import OVER, State
from sixtysix_env.knowledge import sample_state, view
from sixtysix_env.observation import encode
from tests.agents.test_guided import tiny_guide


def one_rollout(state: State, player: int, net, solver: Solver) -> float:
    """The reference: one leaf played on move by move, nothing batched."""
    s = state.clone()
    while True:
        if s.window == OVER:
            return terminal_value(s, player)
        if exact_leaf(s):
            v = solver.solve(s)
            return v if s.to_act == player else -v
        pv = view(s, s.to_act)
        a = obvious_action(pv)
        if a is None:
            logits = net.policy_logits(encode(pv)[None])[0]
            legal = actions_of(pv.legal_mask)
            a = max(legal, key=lambda x: (logits[x], -x))
        s.apply(a)  # the checked step: a rollout move must be legal


def leaves(count: int, seed: int) -> list[State]:
    """States of random deals at random points with the talon open (and a few over or closed)."""
    rng, out = random.Random(seed), []
    while len(out) < count:
        s = deal(rng)
        for _ in range(rng.randrange(0, 30)):
            if s.is_over:
                break
            s.apply(rng.choice(s.legal_actions()))
        out.append(s)
    return out


def test_each_leaf_gets_the_value_of_its_own_rollout_and_stays_as_it_was():
    net = tiny_guide(2)
    states = leaves(40, seed=3)
    before = [(s.hands, s.stock, s.window, s.to_act, s.score(0), s.score(1)) for s in states]
    for player in (0, 1):
        got = rollout_values(states, player, net, Solver(), exact_leaf)
        want = [one_rollout(s, player, net, Solver()) for s in states]
        assert got.tolist() == want
        assert all(-3 <= v <= 3 for v in got)
    assert [(s.hands, s.stock, s.window, s.to_act, s.score(0), s.score(1)) for s in states] == before
    assert any(s.window == OVER for s in states) and any(not s.is_over and s.talon_open for s in states)


def test_the_two_players_values_of_a_leaf_are_opposite():
    net = tiny_guide(4)
    states = [s for s in leaves(20, seed=8) if not s.is_over]
    mine = rollout_values(states, 0, net, Solver(), exact_leaf)
    theirs = rollout_values(states, 1, net, Solver(), exact_leaf)
    assert np.array_equal(mine, -theirs)


def test_a_search_with_rollout_leaves_differs_from_the_critics_and_is_deterministic():
    rng = random.Random(11)
    net = tiny_guide(5)
    views = []
    while len(views) < 6:
        s = deal(rng)
        v = view(s, s.to_act)
        if obvious_action(v) is None and v.talon_open:
            views.append(v)
    results = {}
    for leaf in ("critic", "rollout"):
        runs = []
        for _ in range(2):
            search = GuidedSearch(net, leaf=leaf)
            runs.append([search.run(v, random.Random(1), 4, None).action_values.tobytes() for v in views])
        assert runs[0] == runs[1]
        results[leaf] = runs[0]
    assert results["critic"] != results["rollout"]
    world = sample_state(views[0], random.Random(1))
    legal = actions_of(views[0].legal_mask)
    values = GuidedSearch(net, leaf="rollout").world_values(views[0], [world], legal)
    for j, a in enumerate(legal):  # depth 1: a move's value is the rollout after it
        child = world.clone()
        child.apply(a)
        want = one_rollout(child, views[0].player, net, Solver()) - (CLOSE_MARGIN if a == CLOSE else 0.0)
        assert values[0, j] == pytest.approx(want)


def test_the_leaf_option_is_checked_and_reaches_the_bot():
    assert parse_spec("guided:leaf=rollout")[1]["leaf"] == "rollout"
    assert KNOWN_AGENTS["guided"].params["leaf"].choices == LEAVES
    with pytest.raises(ValueError, match="leaf"):
        parse_spec("guided:leaf=playout")
    with pytest.raises(ValueError, match="leaf"):
        GuidedSearch(tiny_guide(), leaf="playout")
    bots = [GuidedAgent(seed=seat, worlds=2, net=tiny_guide(), leaf="rollout") for seat in (0, 1)]
    assert bots[0].search.leaf == "rollout"
    s = deal(random.Random(5))
    while not s.is_over:
        bot = bots[s.to_act]
        a = bot.act(view(s, s.to_act))
        assert s.legal_mask() >> a & 1 and bot.last_result.policy.shape == (N_ACTIONS,)
        s.apply(a)
