"""Statistics for bot comparisons: intervals, ratings and a sequential test.

Pure Python plus numpy (no scipy), so the arena runs anywhere the package
does. Every function states its model; the arena documents which one it uses
for which number:

- :func:`wilson_interval`: 95% interval of a win rate (draws count half).
- :func:`mean_interval` / :func:`ratio_interval`: Student-t interval of a
  mean, and of a ratio of sums over independent clusters (points per deal
  when deals come in matches and matches in duplicate pairs).
- :func:`bradley_terry`: Elo ratings from all pairwise results with
  Fisher-information (Wald) intervals.
- :func:`los`: likelihood of superiority; :func:`sprt`: sequential
  probability ratio test for "A is stronger than B".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

Z95 = NormalDist().inv_cdf(0.975)
ELO_SCALE = 400.0 / math.log(10.0)  # Elo points per natural-log unit of strength
_TINY = 1e-300  # keeps the continued fraction's terms off zero


# ------------------------------------------------------------------ intervals
def wilson_interval(successes: float, n: float, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion.

    Unlike the normal (Wald) interval it stays inside [0, 1] and is sane at
    0/n and n/n. ``successes`` may be fractional (draws counted as half).
    """
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got {successes}/{n}")
    if n == 0:
        return (0.0, 1.0)
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / n
    z2n = z * z / n
    centre = (p + z2n / 2) / (1 + z2n)
    half = z * math.sqrt(p * (1 - p) / n + z2n / (4 * n)) / (1 + z2n)
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return (lo, hi)


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (Lentz)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        c, d = _lentz_step(aa, c, d)
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        c, d = _lentz_step(aa, c, d)
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _lentz_step(aa: float, c: float, d: float) -> tuple[float, float]:
    """One update of Lentz's continued-fraction terms, kept away from zero."""
    d = 1.0 + aa * d
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    c = 1.0 + aa / c
    return (c if abs(c) > _TINY else _TINY), d


def _betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(lbeta + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """CDF of Student's t distribution with ``df`` degrees of freedom."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    tail = 0.5 * _betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_quantile(p: float, df: float) -> float:
    """Inverse of :func:`t_cdf` (bisection; exact to ~1e-12)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-13 * max(1.0, hi):
            break
    return (lo + hi) / 2


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """(mean, lo, hi): Student-t interval of the mean of i.i.d. values."""
    x = np.asarray(values, dtype=float)
    n = x.size
    if n == 0:
        return (0.0, float("nan"), float("nan"))
    m = float(x.mean())
    if n == 1:
        return (m, float("-inf"), float("inf"))
    half = t_quantile(0.5 + confidence / 2, n - 1) * float(x.std(ddof=1)) / math.sqrt(n)
    return (m, m - half, m + half)


def ratio_interval(
    numerators: Sequence[float], denominators: Sequence[float], confidence: float = 0.95
) -> tuple[float, float, float]:
    """(R, lo, hi) for R = sum(num) / sum(den) over independent clusters.

    Delta-method (linearization) variance with a t quantile on k-1 degrees of
    freedom: the right interval for "game points per deal" when the deals of
    one match (or of one duplicate pair) are not independent of each other.
    """
    y = np.asarray(numerators, dtype=float)
    n = np.asarray(denominators, dtype=float)
    if y.shape != n.shape:
        raise ValueError("numerators and denominators differ in length")
    k = y.size
    total = float(n.sum())
    if k == 0 or total <= 0:
        return (0.0, float("nan"), float("nan"))
    r = float(y.sum()) / total
    if k == 1:
        return (r, float("-inf"), float("inf"))
    resid = y - r * n
    nbar = total / k
    se = math.sqrt(float((resid**2).sum()) / (k * (k - 1))) / nbar
    half = t_quantile(0.5 + confidence / 2, k - 1) * se
    return (r, r - half, r + half)


# ---------------------------------------------------------------------- Elo
def elo_from_score(score: float) -> float:
    """Elo difference implied by an expected score (0.75 -> +190.8)."""
    if score <= 0.0:
        return float("-inf")
    if score >= 1.0:
        return float("inf")
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    """Expected score of a player ``elo`` points stronger (logistic model)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def los(wins: float, losses: float) -> float:
    """Likelihood of superiority: P(A stronger than B) from wins and losses.

    The usual normal approximation ``Phi((W - L) / sqrt(W + L))``; draws
    carry no information about who is stronger and are left out.
    """
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


@dataclass(frozen=True)
class Ratings:
    """Bradley-Terry fit: Elo per player (mean 0) with Wald intervals."""

    names: tuple[str, ...]
    elo: tuple[float, ...]
    stderr: tuple[float, ...]
    confidence: float = 0.95

    @property
    def intervals(self) -> tuple[tuple[float, float], ...]:
        z = NormalDist().inv_cdf(0.5 + self.confidence / 2)
        return tuple((e - z * s, e + z * s) for e, s in zip(self.elo, self.stderr, strict=True))

    def to_dict(self) -> dict[str, Any]:
        return {
            name: {"elo": e, "ci": list(ci), "stderr": s}
            for name, e, s, ci in zip(self.names, self.elo, self.stderr, self.intervals, strict=True)
        }


Matrix = np.ndarray | Sequence[Sequence[float]]


def bradley_terry(names: Sequence[str], scores: Matrix, games: Matrix, *, prior_draws: float = 1.0,
                  confidence: float = 0.95) -> Ratings:
    """Maximum-likelihood Bradley-Terry (logistic Elo) ratings.

    ``scores[i][j]`` is what i scored against j (wins plus half the draws),
    ``games[i][j] == games[j][i]`` the games between them. ``prior_draws``
    virtual drawn games are added to every pair that played, so a bot that
    won every game gets a large finite rating instead of infinity. Ratings
    are centred on mean 0; standard errors come from the pseudo-inverse of
    the Fisher information (the covariance under that constraint).
    """
    s = np.array(scores, dtype=float)
    g = np.array(games, dtype=float)
    k = len(names)
    if s.shape != (k, k) or g.shape != (k, k):
        raise ValueError(f"scores and games must be {k}x{k} matrices")
    if not np.allclose(g, g.T):
        raise ValueError("games must be symmetric")
    if np.any(s < 0) or np.any(s > g + 1e-9):
        raise ValueError("need 0 <= scores[i][j] <= games[i][j]")
    played = g > 0
    s = s + np.where(played, prior_draws / 2, 0.0)
    g = g + np.where(played, prior_draws, 0.0)
    np.fill_diagonal(g, 0.0)
    np.fill_diagonal(s, 0.0)
    theta = np.zeros(k)
    info = np.zeros((k, k))
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # p[i, j] = P(i beats j)
        grad = (s - g * p).sum(axis=1)
        w = g * p * (1.0 - p)
        info = np.diag(w.sum(axis=1)) - w
        step = np.linalg.pinv(info) @ grad
        theta = theta + step
        theta -= theta.mean()
        if np.max(np.abs(step)) < 1e-10:
            break
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
    w = g * p * (1.0 - p)
    info = np.diag(w.sum(axis=1)) - w
    cov = np.linalg.pinv(info)
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    return Ratings(
        tuple(names),
        tuple(float(x) for x in theta * ELO_SCALE),
        tuple(float(x) for x in se * ELO_SCALE),
        confidence,
    )


# --------------------------------------------------------------------- SPRT
SPRT_H1 = "H1"  # verdict: A is elo1 stronger than B (sprt() decided "accept")
SPRT_H0 = "H0"  # verdict: A is at most elo0 stronger than B ("reject")
SPRT_UNDECIDED = "undecided"  # the maximum number of games came first


@dataclass(frozen=True)
class SprtResult:
    """``decision``: "accept" (H1: A is elo1 stronger), "reject" (H0: elo0), or "continue"."""

    decision: str
    llr: float
    lower: float
    upper: float


def sprt(wins: float, draws: float, losses: float, *, elo0: float = 0.0, elo1: float = 10.0,
         alpha: float = 0.05, beta: float = 0.05) -> SprtResult:
    """Sequential probability ratio test of H0: elo = elo0 against H1: elo = elo1.

    Wald's SPRT on game scores under the logistic Elo model: a game scores
    ``x`` = 1 (win), 1/2 (draw) or 0 (loss) for A, with expected score ``s0``
    under H0 and ``s1`` under H1, and adds
    ``x log(s1 / s0) + (1 - x) log((1 - s1) / (1 - s0))`` to the LLR (exact for
    matches, which cannot be drawn). Unlike the normal-approximation GSPRT,
    it never decides on a handful of games because their observed variance
    happens to be tiny. Stop when the LLR leaves
    ``[log(beta / (1 - alpha)), log((1 - beta) / alpha)]``.
    """
    if elo1 <= elo0:
        raise ValueError(f"need elo0 < elo1, got {elo0}, {elo1}")
    if not (0 < alpha < 1 and 0 < beta < 1):
        raise ValueError("alpha and beta must be in (0, 1)")
    if min(wins, draws, losses) < 0:
        raise ValueError("counts must be non-negative")
    lower = math.log(beta / (1 - alpha))
    upper = math.log((1 - beta) / alpha)
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    points = wins + 0.5 * draws
    misses = losses + 0.5 * draws
    llr = points * math.log(s1 / s0) + misses * math.log((1 - s1) / (1 - s0))
    decision = "accept" if llr >= upper else "reject" if llr <= lower else "continue"
    return SprtResult(decision, llr, lower, upper)


MIN_CLUSTERS = 10  # the normal test decides only after this many clusters (its variance is estimated)


def gsprt_points(totals: Sequence[float], deals: Sequence[int], *, mu0: float, mu1: float,
                 alpha: float = 0.05, beta: float = 0.05) -> SprtResult:
    """Sequential test of H0: A gains ``mu0`` game points per deal against H1: ``mu1``, on clusters.

    Each independent cluster (a duplicate pair) adds ``totals[c]`` points over
    ``deals[c]`` deals, modelled as normal with mean ``mu * deals[c]`` and
    variance ``s2 * deals[c]``; ``s2`` is estimated from the clusters so far
    (the generalized SPRT), so the log-likelihood ratio is
    ``(mu1 - mu0) / s2 * (sum totals - sum deals * (mu0 + mu1) / 2)``. It
    decides only after :data:`MIN_CLUSTERS` clusters, so that a handful of
    clusters with a tiny observed variance cannot decide. Wald's bounds as
    in :func:`sprt`; the error rates hold asymptotically (many clusters).
    """
    if mu1 <= mu0:
        raise ValueError(f"need mu0 < mu1, got {mu0}, {mu1}")
    lower = math.log(beta / (1 - alpha))
    upper = math.log((1 - beta) / alpha)
    k, total_deals = len(totals), sum(deals)
    if k < max(2, MIN_CLUSTERS) or total_deals <= 0:
        return SprtResult("continue", 0.0, lower, upper)
    r = math.fsum(totals) / total_deals
    s2 = math.fsum((y - r * n) ** 2 / n for y, n in zip(totals, deals, strict=True) if n) / (k - 1)
    gap = math.fsum(totals) - total_deals * (mu0 + mu1) / 2
    if s2 <= 0:  # every cluster exactly at the mean: the sign of the gap decides
        llr = math.copysign(math.inf, gap) if gap else 0.0
    else:
        llr = (mu1 - mu0) / s2 * gap
    decision = "accept" if llr >= upper else "reject" if llr <= lower else "continue"
    return SprtResult(decision, llr, lower, upper)
