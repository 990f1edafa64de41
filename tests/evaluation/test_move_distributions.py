"""Search bots that draw their moves declare the distribution (agents.search.moves): the estimator's terms."""

from __future__ import annotations

import math
import random

import pytest

from agents.evaluation.aivat import ACTION, PolicyError, own_term
from agents.evaluation.games import correct_game, policy_of, values_of
from agents.evaluation.values import heuristic_value
from agents.pimc import PimcAgent
from agents.play import play_game
from agents.random_agent import RandomAgent
from agents.search.moves import MoveLog, draw, softmax


def test_draw_follows_the_distribution_and_softmax_sums_to_one():
    probs = softmax([(3, 0.1), (7, 0.4), (12, -0.2)], 0.3)
    assert math.fsum(probs.values()) == pytest.approx(1.0, abs=1e-12)
    rng = random.Random(1)
    counts = dict.fromkeys(probs, 0)
    for _ in range(20000):
        counts[draw(probs, rng)] += 1
    assert all(abs(counts[a] / 20000 - p) < 0.015 for a, p in probs.items())


def _line(a0, a1, seed: int, unit: str = "deal", agent_seeds: tuple[int, int] | None = None) -> dict:
    rec = play_game(a0, a1, seed, unit, agent_seeds=agent_seeds)
    return {"index": 0, "seats": [0, 1], **rec.to_dict()}


def test_pimc_declares_the_distribution_of_every_drawn_move_and_the_estimator_finds_it():
    pimc = PimcAgent(worlds=2, temp=0.3)
    line = _line(pimc, RandomAgent(), 5, "match")
    assert pimc.moves.table  # it drew moves
    found = []

    def policy(v):
        probs = pimc.move_distribution(v)
        found.append(probs is not None)
        return probs

    corrections = correct_game(line, heuristic_value, [policy, policy_of(RandomAgent())])
    assert sum(found) == len(pimc.moves.table)  # every drawn move found again on the replayed view
    assert any(t.kind == ACTION and t.seat == 0 for c in corrections for t in c.terms)
    pimc.reset(1)
    assert not pimc.moves.table and pimc.move_distribution(_first_view(line)) is None


def _first_view(line):
    from sixtysix_env.aec import first_deal
    from sixtysix_env.knowledge import view

    s = first_deal(line["seed"], None)
    return view(s, s.to_act)


def test_the_best_move_pimc_declares_nothing():
    pimc = PimcAgent(worlds=2)
    _line(pimc, RandomAgent(), 3)
    assert not pimc.moves.table and policy_of(pimc) is not None  # the hook exists, returns None


def test_a_pimc_mirror_with_drawn_moves_holds_zero():
    # Duplicate pairs of single deals between two pimc that draw their moves: both bots' decisions
    # carry terms valued by their own search; the corrected mean of a mirror is 0 in expectation.
    values = []
    for seed in range(16):
        pair = 0.0
        for game in range(2):  # the same cards, the bots' own seeds differ: A sits in seat `game`
            bots = [PimcAgent(worlds=1, temp=0.5), PimcAgent(worlds=1, temp=0.5)]
            seeds = (4 * seed + 2 * game, 4 * seed + 2 * game + 1)
            line = _line(bots[0], bots[1], 100 + seed, agent_seeds=seeds)
            cs = correct_game(line, heuristic_value, [policy_of(b) for b in bots],
                              seat_values=[values_of(b) for b in bots])  # the search's own values
            assert any(t.kind == ACTION for c in cs for t in c.terms)
            pair += math.fsum(c.corrected for c in cs) * (-1 if game else 1)
        values.append(pair / 2)
    mean = sum(values) / len(values)
    sd = math.sqrt(sum((x - mean) ** 2 for x in values) / (len(values) - 1))
    assert abs(mean) < 3.5 * sd / math.sqrt(len(values)) + 1e-9


def test_move_log_keys_tell_decisions_apart():
    log = MoveLog()
    v = _first_view(_line(RandomAgent(), RandomAgent(), 2))
    log.record(v, {1: 1.0})
    assert log.get(v) == {1: 1.0} and log.get(v) is not log.table[log.key(v)]
    log.clear()
    assert log.get(v) is None


def test_a_bad_temperature_is_refused():
    with pytest.raises(ValueError, match="temp must be >= 0"):
        PimcAgent(temp=-1.0)
    with pytest.raises(ValueError, match="temp must be >= 0"):
        PimcAgent(temp=float("nan"))


@pytest.mark.parametrize("sample", [0, 1])
def test_guided_declares_its_drawn_moves_only_when_it_samples(sample):
    from agents.guided import GuidedAgent
    from tests.agents.test_guided import tiny_guide

    g = GuidedAgent(net=tiny_guide(), worlds=2, sample=sample, seed=1)
    line = _line(g, RandomAgent(), 4, "match")
    found = []

    def policy(v):
        probs = g.move_distribution(v)
        found.append(probs is not None)
        return probs

    corrections = correct_game(line, heuristic_value, [policy, policy_of(RandomAgent())])
    assert sum(found) == len(g.search.moves.table) and (sum(found) > 0) == bool(sample)
    assert any(t.kind == ACTION and t.seat == 0 for c in corrections for t in c.terms) == bool(sample)


def test_own_move_values_must_cover_the_distribution():
    probs = {3: 0.25, 7: 0.75}
    assert own_term(7, probs, {3: 1.0, 7: 2.0}, "pimc") == pytest.approx(2.0 - 1.75)
    for bad in ({3: 1.0}, {3: 1.0, 7: float("nan")}, {3: "1", 7: 2.0}, [1.0, 2.0]):
        with pytest.raises(PolicyError, match="finite value for every move"):
            own_term(7, probs, bad, "pimc")


def test_pimc_declares_the_values_its_distribution_came_from():
    pimc = PimcAgent(worlds=2, temp=0.3)
    _line(pimc, RandomAgent(), 5)
    key = next(iter(pimc.moves.table))
    probs, values = pimc.moves.table[key], pimc.moves.values[key]
    assert set(values) == set(probs)
    assert probs == pytest.approx(softmax(values.items(), 0.3))
