"""Interval, rating and SPRT math against values known from tables and by hand."""

import math

import numpy as np
import pytest

from agents.core import stats


def test_wilson_known_values():
    # Published Wilson 95% intervals (e.g. Newcombe 1998; any online calculator).
    lo, hi = stats.wilson_interval(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-4) and hi == pytest.approx(0.9433, abs=1e-4)
    assert stats.wilson_interval(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert stats.wilson_interval(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    lo, hi = stats.wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    assert stats.wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize("bad", [(-1, 10), (11, 10), (1, -1)])
def test_wilson_rejects_bad_counts(bad):
    with pytest.raises(ValueError):
        stats.wilson_interval(*bad)


def test_t_quantiles_match_tables():
    assert stats.t_quantile(0.975, 1) == pytest.approx(12.7062, abs=1e-4)
    assert stats.t_quantile(0.975, 9) == pytest.approx(2.2622, abs=1e-4)
    assert stats.t_quantile(0.975, 30) == pytest.approx(2.0423, abs=1e-4)
    assert stats.t_quantile(0.95, 5) == pytest.approx(2.0150, abs=1e-4)
    assert stats.t_quantile(0.025, 9) == pytest.approx(-2.2622, abs=1e-4)
    assert stats.t_quantile(0.975, 10**7) == pytest.approx(stats.Z95, abs=1e-4)
    assert stats.t_cdf(0.0, 3) == pytest.approx(0.5)


def test_mean_interval_by_hand():
    # mean 3, sd sqrt(2.5), se 0.7071, t(0.975, 4) = 2.7764
    m, lo, hi = stats.mean_interval([1, 2, 3, 4, 5])
    assert m == 3.0
    assert (lo, hi) == pytest.approx((3 - 1.9632, 3 + 1.9632), abs=1e-3)
    assert stats.mean_interval([2.0])[0] == 2.0


def test_ratio_interval_equals_mean_interval_for_unit_clusters():
    y = [3.0, -1.0, 2.0, 0.0, 5.0, -2.0]
    assert stats.ratio_interval(y, [1] * len(y)) == pytest.approx(stats.mean_interval(y))


def test_ratio_interval_weights_clusters_by_size():
    r, lo, hi = stats.ratio_interval([4.0, -1.0, 3.0], [4, 2, 2])
    assert r == pytest.approx(6 / 8)
    assert lo < r < hi
    with pytest.raises(ValueError):
        stats.ratio_interval([1.0], [1, 2])


def test_elo_score_conversions():
    assert stats.elo_from_score(0.75) == pytest.approx(190.85, abs=0.01)
    assert stats.elo_from_score(0.5) == 0.0
    assert stats.score_from_elo(stats.elo_from_score(0.3)) == pytest.approx(0.3)
    assert stats.elo_from_score(1.0) == math.inf and stats.elo_from_score(0.0) == -math.inf


def test_los_known_values():
    assert stats.los(10, 10) == 0.5
    assert stats.los(60, 40) == pytest.approx(0.97725, abs=1e-5)  # Phi(2)
    assert stats.los(0, 0) == 0.5


def test_bradley_terry_two_players_by_hand():
    # 75 of 100: Elo gap 400 log10(3); Fisher information n p (1 - p) on the gap.
    r = stats.bradley_terry(["a", "b"], [[0, 75], [25, 0]], [[0, 100], [100, 0]], prior_draws=0)
    assert r.elo[0] - r.elo[1] == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert r.elo[0] + r.elo[1] == pytest.approx(0.0, abs=1e-9)
    se_gap = stats.ELO_SCALE / math.sqrt(100 * 0.75 * 0.25)
    assert r.stderr[0] == pytest.approx(se_gap / 2, rel=1e-6)
    lo, hi = r.intervals[0]
    assert lo < r.elo[0] < hi


def test_bradley_terry_orders_players_and_stays_finite_on_perfect_scores():
    names = ["strong", "mid", "weak"]
    scores = np.array([[0, 20, 20], [0, 0, 15], [0, 5, 0]], dtype=float)
    games = np.array([[0, 20, 20], [20, 0, 20], [20, 20, 0]], dtype=float)
    r = stats.bradley_terry(names, scores, games)
    assert r.elo[0] > r.elo[1] > r.elo[2]
    assert all(math.isfinite(e) and math.isfinite(s) for e, s in zip(r.elo, r.stderr, strict=True))
    assert sum(r.elo) == pytest.approx(0.0, abs=1e-6)
    assert set(r.to_dict()) == set(names)


def test_bradley_terry_rejects_bad_input():
    with pytest.raises(ValueError):
        stats.bradley_terry(["a", "b"], [[0, 5], [5, 0]], [[0, 4], [4, 0]])
    with pytest.raises(ValueError):
        stats.bradley_terry(["a", "b"], [[0, 1], [1, 0]], [[0, 2], [3, 0]])


def test_sprt_bounds_and_hand_computed_llr():
    res = stats.sprt(60, 20, 40, elo0=0, elo1=10)
    assert res.lower == pytest.approx(-2.9444, abs=1e-4) and res.upper == pytest.approx(2.9444, abs=1e-4)
    # 70 points and 50 misses (draws count half); s0 = 0.5, s1 = 1 / (1 + 10^(-10/400))
    s0, s1 = 0.5, 1 / (1 + 10 ** (-10 / 400))
    assert res.llr == pytest.approx(70 * math.log(s1 / s0) + 50 * math.log((1 - s1) / (1 - s0)))
    assert res.decision == "continue"


def test_sprt_needs_evidence_not_a_short_streak():
    # three straight wins cannot tell -50 from +50 Elo at alpha = beta = 0.05
    assert stats.sprt(3, 0, 0, elo0=-50, elo1=50).decision == "continue"
    # a Bernoulli SPRT: each win adds log(s1 / s0) = log(2 * 0.5715) = 0.1336, so it
    # takes ceil(log(0.95 / 0.05) / 0.1336) = 23 straight wins to accept H1
    assert stats.sprt(22, 0, 0, elo0=0, elo1=50).decision == "continue"
    assert stats.sprt(23, 0, 0, elo0=0, elo1=50).decision == "accept"


def test_sprt_decides_both_ways():
    assert stats.sprt(700, 100, 300, elo0=0, elo1=20).decision == "accept"
    assert stats.sprt(300, 100, 700, elo0=0, elo1=20).decision == "reject"
    assert stats.sprt(30, 0, 0, elo0=0, elo1=20).llr > 0
    with pytest.raises(ValueError):
        stats.sprt(1, 1, 1, elo0=10, elo1=0)
