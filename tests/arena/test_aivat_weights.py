"""The corrected figure's weights: cross-fitted by default, weight 1 on request, never wider than plain."""

from __future__ import annotations

import random

import pytest

from agents.arena import run
from agents.arena.corrected import AIVAT_WEIGHT1, corrected_figure
from agents.arena.lines import aivat_problem
from agents.arena.sprt import SequentialStop, sprt_settings
from agents.evaluation.regression import Prequential

CHEAP = {"value": "heuristic"}  # the cheap value function keeps the tests fast


def _width(ci: tuple[float, float]) -> float:
    return ci[1] - ci[0]


@pytest.mark.parametrize("estimator", ["aivat", AIVAT_WEIGHT1])
def test_heuristic_v_random_never_reports_a_wider_corrected_interval(estimator):
    # Weight 1 values random's moves by a value that assumes good play: its terms widen the interval
    # several times. The figure must then be the plain one, and say so.
    names, config, lines = run(["heuristic", "random"], games=24, unit="deal", seed=3, estimator=estimator,
                               **CHEAP)
    from agents.arena import summarize

    st = summarize(names, config, lines).pairings[0]
    f = st.aivat
    assert f is not None and f.corrected_games == 24
    assert _width(f.ci) <= _width(st.points_per_deal_ci) + 1e-12
    if f.used == "plain":
        assert "did not narrow" in f.note and f.points_per_deal == pytest.approx(st.points_per_deal)
        assert "did not narrow" in "\n".join(summarize(names, config, lines).notes())
    else:
        assert f.sd_ratio > 1
    if estimator == AIVAT_WEIGHT1:
        assert f.weights == "1" and f.used == "plain"  # the case the guard exists for
    assert f.to_dict()["used"] == f.used


def _synthetic(n: int, seed: int, beta: float) -> tuple[list[float], list[list[float]]]:
    rng = random.Random(seed)
    ys, xs = [], []
    for _ in range(n):
        x = [rng.gauss(0, 1) for _ in range(6)]
        ys.append(0.3 + beta * x[1] + rng.gauss(0, 0.3))
        xs.append(x)
    return ys, xs


def test_prequential_weights_narrow_informative_luck_and_keep_the_mean():
    ys, xs = _synthetic(400, 1, beta=2.0)
    p = Prequential()
    values = [p.add(y, x) for y, x in zip(ys, xs, strict=True)]
    assert values[:8] == ys[:8]  # no weights before min_fit clusters
    tail_v, tail_y = values[40:], ys[40:]
    var = lambda v: sum((a - sum(v) / len(v)) ** 2 for a in v) / len(v)  # noqa: E731
    assert var(tail_v) < var(tail_y) / 10
    assert sum(tail_v) / len(tail_v) == pytest.approx(0.3, abs=0.1)


def test_prequential_keeps_the_plain_values_when_the_luck_is_noise():
    ys, xs = _synthetic(200, 2, beta=0.0)
    noisy = Prequential(fixed=True)  # weight 1 on pure noise: applied at first, dropped once seen worse
    values = [noisy.add(y, x) for y, x in zip(ys, xs, strict=True)]
    assert values[8:] == ys[8:] and values[0] == pytest.approx(ys[0] - sum(xs[0]))
    fitted = Prequential()  # fitted weights near 0: not applied either (they do not help)
    values = [fitted.add(y, x) for y, x in zip(ys, xs, strict=True)]
    assert sum(v != y for v, y in zip(values, ys, strict=True)) < 20


def _line(cluster: int, seats: list[int], a_points: int, luck_a: float) -> dict:
    """A one-deal game line: A (player 0) wins or loses ``a_points``, ``luck_a`` of them luck of the draws."""
    winner = seats.index(0) if a_points > 0 else seats.index(1)
    sign = 1.0 if seats.index(0) == 0 else -1.0
    corrected = sign * (a_points - luck_a)
    return {"cluster": cluster, "seats": seats, "winner": winner,
            "deals": [{"winner": winner, "game_points": abs(a_points), "reason": "66"}],
            "aivat": {"value": "solver", "points": [corrected, -corrected],
                      "luck": [0.0, sign * luck_a, 0.0, 0.0, 0.0, 0.0]}}


def test_the_default_sprt_weighs_the_luck_from_earlier_clusters():
    # The games' points are all luck of the draws: corrected, A gains nothing, with little noise.
    rng = random.Random(5)
    lines = []
    for c in range(60):
        for seats in ([0, 1], [1, 0]):
            pts = rng.choice([1, 2, 3, -1, -2, -3])
            lines.append(_line(c, seats, pts, pts - 0.05 * rng.choice([-1, 1])))
    stops = {}
    for on in ("aivat", "aivat-weight1"):
        stops[on] = SequentialStop(sprt_settings((0, 0.5), on=on), True, 120)
        for g in lines:
            if stops[on].add(g):
                break
        assert stops[on].verdict == "H0"
    assert stops["aivat"].played > 16  # plain values for the first 8 clusters, then weighted ones
    f = corrected_figure(lines, 0, 1, "solver")
    assert f.used == "aivat" and f.sd_ratio > 5 and abs(f.points_per_deal) < 0.1


@pytest.mark.parametrize("luck", [[float("nan")] * 6, ["1"] * 6, [1.0] * 17, [1e300] * 6, {"a": 1}, [[1.0]]])
def test_forged_luck_is_malformed(luck):
    assert aivat_problem({"value": "solver", "points": [1.0, -1.0], "luck": luck}, 1) is not None
    assert aivat_problem({"value": "solver", "points": [1.0, -1.0], "luck": [0.5] * 6}, 1) is None


def test_own_values_known_decisions_by_playouts_of_the_seated_bots():
    from agents.evaluation.values import own_move_value
    from agents.heuristic import HeuristicAgent
    from agents.pimc import PimcAgent
    from agents.random_agent import RandomAgent

    assert own_move_value([HeuristicAgent(), PimcAgent(worlds=2)]) is None  # a search bot: no playouts
    mv = own_move_value([HeuristicAgent(), RandomAgent()], playouts=2)
    assert mv is not None and mv.playouts == 2 and mv.true_order
    lines = run(["heuristic", "random"], games=2, unit="deal", seed=1, estimator="aivat", value="own")[2]
    assert all(line["aivat"]["value"] == "own" and "points" in line["aivat"] for line in lines)
    assert any(line["aivat"]["luck"][2 + line["seats"].index(1)] for line in lines)  # random's moves


def test_a_bench_rung_figure_names_its_weighing_and_forged_ones_are_refused():
    from agents.bench.run import rung_aivat_ok

    lines = run(["heuristic", "random"], games=12, unit="deal", seed=3, estimator=AIVAT_WEIGHT1, **CHEAP)[2]
    d = corrected_figure(lines, 0, 1, "heuristic", AIVAT_WEIGHT1).to_dict()
    assert rung_aivat_ok(d) and d["weights"] == "1"
    for k, bad in (("used", "nope"), ("weights", 2), ("used", ["plain"])):
        assert not rung_aivat_ok({**d, k: bad})
