"""The variance-reduced estimator: zero-mean luck terms, replay of game lines, policies, regression."""

from __future__ import annotations

import copy
import random
from collections import Counter
from itertools import permutations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.evaluation.aivat import (
    KINDS,
    SAMPLED,
    PolicyError,
    action_term,
    check_probabilities,
    correct_deal,
    deal_term,
    draw_outcomes,
    expected_after_draw,
    is_chance_draw,
    sampled_expectation,
    sampled_term,
    swapped_hands,
)
from agents.evaluation.games import (
    NotCorrectable,
    ReplayError,
    check_correctable,
    estimate,
    game_points,
    pairing_points,
    policy_of,
    replay_deals,
    sampler_of,
)
from agents.evaluation.regression import cross_fitted
from agents.evaluation.values import (
    RolloutValue,
    SolverValue,
    hand_basis,
    heuristic_value,
    make_value,
    terminal_value,
)
from agents.heuristic import HeuristicAgent
from agents.play import play_deal, play_game
from agents.random_agent import RandomAgent
from agents.registry import make_agent
from sixtysix_env.actions import CONTINUE
from sixtysix_env.deals import deal
from sixtysix_env.engine import DRAW, OVER, TALON_SIZE, State
from sixtysix_env.knowledge import view

RANDOM_POLICY = RandomAgent().action_probabilities


def draw_state(seed: int, max_stock: int = 12) -> State:
    """The first draw window with 3..``max_stock`` talon cards, met in random play from ``seed``."""
    rng = random.Random(seed)
    while True:
        s = deal(rng)
        while not s.is_over:
            legal = s.legal_actions()
            if s.window == DRAW and 2 < s.stock <= max_stock and CONTINUE in legal:
                return s
            s.apply(rng.choice(legal))


def after_draw_with_order(state: State, order: tuple[int, ...]) -> State:
    """``state`` after "continue" when the face-down cards lie in ``order``."""
    i = TALON_SIZE - state.stock
    s = state.clone()
    s.talon = state.talon[:i] + order + state.talon[TALON_SIZE - 1:]
    s.apply_unchecked(CONTINUE)
    return s


def hands_key(s: State) -> tuple[int, int]:
    return (s.hands[0], s.hands[1])


# ---------------------------------------------------------------- chance terms
@pytest.mark.parametrize("seed", range(4))
def test_draw_outcomes_are_the_true_chance_distribution(seed: int) -> None:
    """Enumerating every order of the face-down cards (the true law: a uniform shuffle) gives each
    outcome of draw_outcomes exactly (n-2)! times: the draw term's expectation is exactly zero."""
    s = draw_state(seed, max_stock=6)
    i = TALON_SIZE - s.stock
    hidden = s.talon[i:TALON_SIZE - 1]
    truth = Counter(hands_key(after_draw_with_order(s, p)) for p in permutations(hidden))
    outcomes = Counter(hands_key(o) for o in draw_outcomes(s))
    n = len(hidden)
    assert len(outcomes) == n * (n - 1) and set(outcomes.values()) == {1}
    k = truth[next(iter(truth))]
    assert set(truth.values()) == {k} and set(truth) == set(outcomes)
    # and so the mean draw term over the true distribution is zero
    before = expected_after_draw(s, heuristic_value)
    terms = [heuristic_value(after_draw_with_order(s, p)) - before for p in permutations(hidden)]
    assert abs(sum(terms) / len(terms)) < 1e-12


def test_no_chance_at_the_last_draw() -> None:
    """With one card face down, the draw is fixed by the hands: no term, and draw_outcomes refuses."""
    rng = random.Random(3)
    while True:
        s = deal(rng)
        while not s.is_over and not (s.window == DRAW and s.stock == 2 and CONTINUE in s.legal_actions()):
            s.apply(rng.choice(s.legal_actions()))
        if not s.is_over:
            break
    assert not is_chance_draw(s, CONTINUE)
    with pytest.raises(ValueError, match="two or more face-down"):
        draw_outcomes(s)


def test_deal_term_is_antisymmetric_under_the_hand_swap() -> None:
    """The swap maps a deal to an equally likely one and negates the term: its mean is zero."""
    for seed in range(20):
        s = deal(seed)
        for v in (heuristic_value, lambda x: float(x.hands[0] % 7) - 0.5 * (x.hands[1] % 3)):
            assert deal_term(swapped_hands(s), v) == pytest.approx(-deal_term(s, v), abs=1e-12)


def test_action_terms_of_a_known_policy_average_to_zero() -> None:
    for seed in range(6):
        rng = random.Random(seed)
        s = deal(rng)
        value = SolverValue()
        while not s.is_over:
            probs = RANDOM_POLICY(view(s, s.to_act))
            mean = sum(p * action_term(s, a, probs, value) for a, p in probs.items())
            assert abs(mean) < 1e-9
            s.apply(rng.choice(s.legal_actions()))


# ------------------------------------------------------------ value contract
@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 10_000))
def test_values_never_read_the_face_down_order(seed: int, shuffle: int) -> None:
    """The estimator's contract: reordering the face-down talon cards leaves V unchanged."""
    rng = random.Random(seed)
    s = deal(rng)
    value = SolverValue(open_last=True)
    while not s.is_over:
        i = TALON_SIZE - s.stock
        hidden = list(s.talon[i:TALON_SIZE - 1]) if s.stock else []
        random.Random(shuffle).shuffle(hidden)
        other = s.clone()
        other.talon = s.talon[:i] + tuple(hidden) + s.talon[TALON_SIZE - 1:] if s.stock else s.talon
        assert heuristic_value(other) == heuristic_value(s)
        assert value(other) == value(s)
        assert hand_basis(other) == hand_basis(s)
        s.apply(rng.choice(s.legal_actions()))


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 10_000))
def test_rollout_value_never_reads_the_face_down_order(seed: int, shuffle: int) -> None:
    """The playouts reshuffle the face-down cards from their sorted set: their order cannot matter.
    The true-order variant (decision terms only) does read it, and is refused as a chance value."""
    rng = random.Random(seed)
    s = deal(rng)
    value = RolloutValue(playouts=2)
    while not s.is_over:
        if s.stock > 2 and s.closed_by < 0:
            i = TALON_SIZE - s.stock
            hidden = list(s.talon[i:TALON_SIZE - 1])
            random.Random(shuffle).shuffle(hidden)
            other = s.clone()
            other.talon = s.talon[:i] + tuple(hidden) + s.talon[TALON_SIZE - 1:]
            assert value(other) == value(s)
        s.apply(rng.choice(s.legal_actions()))
    with pytest.raises(ValueError, match="face-down talon order: decision terms only"):
        make_value("rollout-true")
    assert isinstance(make_value("rollout-true", moves_only=True), RolloutValue)


def test_critic_value_reads_the_face_down_set_not_its_order() -> None:
    """The ppo critic sees the talon order; the chance value sorts it first, the true-order variant
    (decision terms only) does not, and is refused as a chance value."""
    chance = make_value("critic")
    true = copy.copy(chance)  # make_value("critic-true", moves_only=True), without loading it again
    true.true_order = True
    changed = False
    for seed in range(20):
        rng = random.Random(seed)
        s = deal(rng)
        for _ in range(rng.randrange(6)):
            if not s.is_over:
                s.apply(rng.choice(s.legal_actions()))
        if s.is_over or s.stock <= 2 or s.closed_by >= 0:
            continue
        i = TALON_SIZE - s.stock
        hidden = list(s.talon[i:TALON_SIZE - 1])
        rng.shuffle(hidden)
        other = s.clone()
        other.talon = s.talon[:i] + tuple(hidden) + s.talon[TALON_SIZE - 1:]
        assert chance(other) == chance(s)
        changed |= true(other) != true(s)
    assert changed
    with pytest.raises(ValueError, match="decision terms only"):
        make_value("critic-true")


def test_true_order_playouts_do_read_the_talon_order() -> None:
    """Why rollout-true is kept away from the chance terms: some reordering changes its value."""
    value = RolloutValue(true_order=True)
    changed = False
    for seed in range(10):
        s = deal(seed)
        rest = list(s.talon[:-1])
        random.Random(seed).shuffle(rest)
        other = s.clone()
        other.talon = tuple(rest) + s.talon[-1:]
        changed |= value(other) != value(s)
    assert changed


class CyclingRng(random.Random):
    """randrange(n) returns 0, 1, ..., n-1, 0, ...: every outcome once per n calls."""

    def __init__(self) -> None:
        super().__init__(0)
        self.i = -1

    def randrange(self, n: int, *args: object) -> int:  # type: ignore[override]
        self.i += 1
        return self.i % n


def test_sampled_draw_expectation_is_the_exact_one_on_average() -> None:
    """Each sample is one of the equally likely draws, picked uniformly: taking every outcome once gives
    exactly the exact expectation, and seeded sampling averages to it."""
    for seed in range(3):
        s = draw_state(seed)
        n = len(draw_outcomes(s))
        exact = expected_after_draw(s, heuristic_value)
        assert sampled_expectation(CyclingRng(), n)(s, heuristic_value) == pytest.approx(exact, abs=1e-12)
        rng = random.Random(seed)
        vals = [sampled_expectation(rng, 3)(s, heuristic_value) for _ in range(600)]
        e = estimate(vals)
        assert e.lo - 1e-9 < exact < e.hi + 1e-9
    with pytest.raises(ValueError, match="at least 1"):
        sampled_expectation(random.Random(0), 0)


def test_move_value_serves_the_decision_terms_only() -> None:
    """correct_deal values known-policy moves with move_value, chance with value; a zero move value
    leaves only chance terms, and the move terms of a true-order value average to zero over the policy."""
    rng = random.Random(7)
    start = deal(rng)
    s, actions = start.clone(), []
    true_value = RolloutValue(true_order=True)
    while not s.is_over:
        probs = RANDOM_POLICY(view(s, s.to_act))
        assert abs(sum(p * action_term(s, a, probs, true_value) for a, p in probs.items())) < 1e-9
        a = rng.choice(s.legal_actions())
        actions.append(a)
        s.apply(a)
    both = (RANDOM_POLICY, RANDOM_POLICY)
    c = correct_deal(start, actions, heuristic_value, both, move_value=lambda _s: 0.0)
    assert not [t for t in c.terms if t.kind == "action"]
    plain = correct_deal(start, actions, heuristic_value, both)
    assert [t for t in c.terms if t.kind != "action"] == [t for t in plain.terms if t.kind != "action"]
    assert [t for t in plain.terms if t.kind == "action"]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 100_000))
def test_every_term_of_a_played_deal_has_mean_zero(seed: int) -> None:
    """Property: along a random deal, each chance term averages to zero over its outcomes, each
    known-policy term over the policy, and corrected = result - sum of the terms."""
    rng = random.Random(seed)
    start = deal(rng)
    s = start.clone()
    actions = []
    while not s.is_over:
        if is_chance_draw(s, CONTINUE):
            before = expected_after_draw(s, heuristic_value)
            outs = draw_outcomes(s)
            assert abs(sum(heuristic_value(o) - before for o in outs) / len(outs)) < 1e-12
        a = rng.choice(s.legal_actions())
        actions.append(a)
        s.apply(a)
    c = correct_deal(start, actions, heuristic_value, (RANDOM_POLICY, RANDOM_POLICY), basis=hand_basis)
    assert c.result == terminal_value(s)
    assert c.corrected == pytest.approx(c.result - sum(t.value for t in c.terms))
    assert len(c.basis_luck) == len(hand_basis(start))
    assert c.for_seat(1) == (-c.result, -c.corrected)


def test_monte_carlo_mean_of_the_correction_is_zero_on_a_fixed_deal() -> None:
    """Same hands, every talon order re-shuffled: the summed luck terms average to ~0 (many deals)."""
    base = deal(11)
    fixed = base.talon[-1]
    rng = random.Random(5)
    bots = [RandomAgent(seed=1), RandomAgent(seed=2)]
    lucks = []
    for _ in range(400):
        rest = list(base.talon[:-1])
        rng.shuffle(rest)
        start = base.clone()
        start.talon = tuple(rest) + (fixed,)
        actions: list[int] = []
        play_deal(start.clone(), bots, hook=lambda st_, v, acts=actions: acts.append(
            bots[st_.to_act].act(v)) or acts[-1])
        c = correct_deal(start, actions, heuristic_value, with_deal_term=False)
        lucks.append(c.luck)
    e = estimate(lucks)
    assert e.lo < 0 < e.hi


# ---------------------------------------------------------------- policies
def test_policy_probabilities_are_checked() -> None:
    s = deal(1)
    v = view(s, s.to_act)
    legal = s.legal_actions()
    a = legal[0]
    assert check_probabilities({a: 0.5, legal[1]: 0.5}, v, a, "bot") == {a: 0.5, legal[1]: 0.5}
    assert check_probabilities({np.int64(a): np.float32(1.0)}, v, a, "bot") == {a: 1.0}
    illegal = next(x for x in range(32) if x not in legal)
    for probs, msg in (({a: 0.5, illegal: 0.5}, "illegal"), ({a: 0.7}, "sum to"),
                       ({a: 0.0, legal[1]: 1.0}, "probability 0"),
                       ({a: float("nan"), legal[1]: 1.0}, "not in"),
                       ({True: 1.0}, "illegal"), ({"x": 1.0}, "illegal"), ({a: "x"}, "not in"),
                       ([(a, 1.0)], "must be a dict")):
        with pytest.raises(PolicyError, match=msg):
            check_probabilities(probs, v, a, "bot")


def test_a_lying_policy_is_refused_not_silently_used() -> None:
    rng = random.Random(2)
    start = deal(rng)
    s = start.clone()
    actions = []
    while not s.is_over:
        a = max(s.legal_actions())
        actions.append(a)
        s.apply(a)
    liar = lambda v: {min(view_legal for view_legal in range(32) if v.legal_mask >> view_legal & 1): 1.0}  # noqa: E731
    with pytest.raises(PolicyError, match="probability 0"):
        correct_deal(start, actions, heuristic_value, (liar, liar))


def test_builtin_policies_match_their_moves() -> None:
    rnd, heur = RandomAgent(seed=3), HeuristicAgent(seed=3)
    for s in (deal(k) for k in range(5)):
        while not s.is_over:
            v = view(s, s.to_act)
            probs = rnd.action_probabilities(v)
            assert set(probs) == set(s.legal_actions()) and sum(probs.values()) == pytest.approx(1.0)
            assert heur.action_probabilities(v) == {heur.act(v): 1.0}
            s.apply(heur.act(v))
    assert policy_of(make_agent("ismcts:iterations=10")) is None  # a black box
    best = policy_of(make_agent("pimc:worlds=2"))  # the best move, drawn from no distribution
    assert best is not None and best(view(deal(0), deal(0).to_act)) is None
    with pytest.raises(NotCorrectable, match="hidden cards"):
        check_correctable([make_agent("oracle")])


def test_sampled_moves_of_a_stochastic_bot_give_zero_mean_terms() -> None:
    """A bot asked again (a reseeded copy) stands in for its unknown policy: over many random deals the
    sampled terms average to zero; a sampler's illegal or missing moves are refused."""
    rng = random.Random(4)
    sampler = sampler_of(RandomAgent(), random.Random(8), k=2)
    player = RandomAgent(seed=5)
    totals = []
    for _ in range(300):
        start = deal(rng)
        s, actions = start.clone(), []
        while not s.is_over:
            a = player.act(view(s, s.to_act))
            actions.append(a)
            s.apply(a)
        c = correct_deal(start, actions, heuristic_value, samplers=(sampler, sampler), with_deal_term=False)
        totals.append(sum(t.value for t in c.terms if t.kind == SAMPLED))
    assert any(totals)
    e = estimate(totals)
    assert e.lo < 0 < e.hi
    s = deal(2)
    legal = s.legal_actions()
    assert sampled_term(s, legal[0], [legal[0]] * 3, s.legal_mask(), heuristic_value, "bot") == 0.0
    illegal = next(x for x in range(32) if x not in legal)
    with pytest.raises(PolicyError, match="illegal move"):
        sampled_term(s, legal[0], [illegal], s.legal_mask(), heuristic_value, "bot")
    with pytest.raises(PolicyError, match="no moves"):
        sampled_term(s, legal[0], [], s.legal_mask(), heuristic_value, "bot")


# ---------------------------------------------------------------- game lines
def test_a_match_line_replays_into_its_deals_and_is_corrected() -> None:
    line = play_game(RandomAgent(seed=1), HeuristicAgent(seed=2), seed=77, unit="match").to_dict()
    line |= {"index": 0, "seats": [0, 1]}
    deals = replay_deals(line)
    assert len(deals) == len(line["deals"]) > 1
    assert sum(len(a) for _, a in deals) == len(line["actions"])
    policies = {0: policy_of(RandomAgent()), 1: None}
    gp = game_points(line, 0, heuristic_value, policies, hand_basis)
    gp1 = game_points(line, 1, heuristic_value, policies, hand_basis)
    plain = sum((d["game_points"] if d["winner"] == 0 else -d["game_points"]) for d in line["deals"]
                if d["winner"] is not None)
    assert gp.plain == plain and gp.deals == len(deals)
    assert gp1.plain == -gp.plain and gp1.corrected == pytest.approx(-gp.corrected)
    assert len(gp.luck) == len(KINDS) + len(hand_basis(deal(0)))


@pytest.mark.parametrize("tamper", ["action", "deals", "seed", "extra", "type"])
def test_a_tampered_line_raises_a_named_error(tamper: str) -> None:
    line = play_game(RandomAgent(seed=1), RandomAgent(seed=2), seed=5, unit="deal").to_dict()
    line |= {"index": 9, "seats": [0, 1]}
    if tamper == "action":
        line["actions"][0] = 31 if line["actions"][0] != 31 else 0
    elif tamper == "deals":
        d = line["deals"][0]
        line["deals"] = [d | {"winner": None if d["winner"] is not None else 0}]
    elif tamper == "seed":
        line["seed"] = True
    elif tamper == "extra":
        line["actions"].append(line["actions"][-1])
    else:
        line["actions"] = [str(a) for a in line["actions"]]
    with pytest.raises(ReplayError, match="game 9"):
        replay_deals(line)


def test_mirror_match_corrected_mean_agrees_with_zero() -> None:
    """Random v random with both policies known, duplicate deals: the truth is 0, and the corrected
    mean's interval holds it (the plain one too)."""
    bots = [RandomAgent(), RandomAgent()]
    policies = {0: policy_of(bots[0]), 1: policy_of(bots[1])}
    plain, corr = [], []
    for k in range(150):
        p = q = 0.0
        for swap in (0, 1):
            seats = [1, 0] if swap else [0, 1]
            seeds = (2 * k + swap, 2 * k + 1 - swap)
            line = play_game(bots[seats[0]], bots[seats[1]], seed=900 + k, unit="deal",
                             agent_seeds=seeds).to_dict()
            gp = game_points(line | {"seats": seats}, 0, heuristic_value, policies)
            p += gp.plain / 2
            q += gp.corrected / 2
        plain.append(p)
        corr.append(q)
    for e in (estimate(plain), estimate(corr)):
        assert e.lo < 0 < e.hi


# ---------------------------------------------------------------- regression
def test_cross_fitting_keeps_the_mean_and_removes_explained_luck() -> None:
    rng = random.Random(0)
    x = [[rng.gauss(0, 1), rng.gauss(0, 1)] for _ in range(400)]
    y = [0.3 + 2 * a - b + rng.gauss(0, 0.1) for a, b in x]
    out = cross_fitted(y, x)
    e_plain, e_out = estimate(y), estimate(out)
    assert e_out.sd < e_plain.sd / 10
    assert e_out.lo < 0.3 < e_out.hi
    assert cross_fitted(y[:5], x[:5]) == y[:5]  # too few clusters: unchanged
    with pytest.raises(ValueError, match="one row"):
        cross_fitted(y, x[:-1])


def test_value_names() -> None:
    assert make_value("heuristic") is heuristic_value
    with pytest.raises(ValueError, match="unknown value function 'nope'"):
        make_value("nope")
    s = deal(3)
    while not s.is_over:
        s.apply(s.legal_actions()[0])
    assert s.window == OVER and heuristic_value(s) == terminal_value(s)


def test_pairing_points_match_the_arena_plain_figure() -> None:
    """The seam on the arena's own game lines: the plain figure is the arena's points per deal."""
    from agents.arena.api import run
    from agents.arena.pairing import pairing_stats

    names, config, lines = run(["random", "heuristic"], games=16, unit="match", seed=4, workers=1)
    st = pairing_stats(lines, 0, 1, names, config["unit"], config["duplicate"])
    policies = {0: policy_of(make_agent("random")), 1: policy_of(make_agent("heuristic"))}
    pp = pairing_points(lines, 0, 1, SolverValue(), policies, hand_basis)
    assert pp.plain[0] == pytest.approx(st.points_per_deal)
    assert pp.plain[1:] == pytest.approx(st.points_per_deal_ci)
    assert pp.clusters == 8 and pp.deals == st.deals
    assert pp.aivat[1] < pp.aivat[0] < pp.aivat[2]
