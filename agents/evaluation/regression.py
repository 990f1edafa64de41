"""Cross-fitted control variates: weigh the zero-mean luck terms by regression, without bias.

AIVAT subtracts the luck terms with weight 1, which is right only when the
value function is calibrated for the bots being measured; a weak one can
even add variance. Any *fixed* weights keep the correction's mean zero, so
the weights are fitted by least squares of the result on the terms, but on
the *other* fold of the clusters (two folds by cluster parity): the weights
applied to a cluster never depend on its own data, so ``E[w . x] =
E[w] . E[x] = 0`` exactly and the corrected mean stays unbiased. The fitted
weights approach the variance-minimizing ones as the run grows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

RIDGE = 1.0  # keeps the fit sane with few clusters and many terms


def fit_weights(y: np.ndarray, x: np.ndarray, ridge: float = RIDGE) -> np.ndarray:
    """Least-squares weights of ``y - mean(y)`` on the centred terms ``x`` (ridge-penalized)."""
    xc = x - x.mean(axis=0)
    yc = y - y.mean()
    return np.linalg.solve(xc.T @ xc + ridge * np.eye(x.shape[1]), xc.T @ yc)


def cross_fitted(y: Sequence[float], x: Sequence[Sequence[float]], folds: int = 2,
                 ridge: float = RIDGE) -> list[float]:
    """``y[i] - x[i] . w`` with ``w`` fitted on the clusters outside ``i``'s fold (``i % folds``).

    ``y``: per-cluster results; ``x``: per-cluster luck terms (each with mean
    zero). With fewer than ``4 * folds`` clusters it returns ``y`` as is.
    """
    yv = np.asarray(y, dtype=float)
    xv = np.asarray(x, dtype=float)
    n = yv.size
    if xv.ndim != 2 or xv.shape[0] != n:
        raise ValueError(f"need one row of luck terms per cluster, got {xv.shape} for {n} clusters")
    if n < 4 * folds or xv.shape[1] == 0:
        return [float(v) for v in yv]
    fold = np.arange(n) % folds
    out = yv.copy()
    for k in range(folds):
        train = fold != k
        w = fit_weights(yv[train], xv[train], ridge)
        out[~train] = yv[~train] - xv[~train] @ w
    return [float(v) for v in out]


MIN_FIT = 8  # clusters before the first fitted weights (fewer: the plain value)


class Prequential:
    """Regression-weighted values for a sequential test: cluster ``i``'s weights are fitted on the
    clusters before it alone, so ``E[w_i . x_i] = 0`` given the past (a martingale difference) and
    every value keeps the plain one's conditional mean, at each step of the test.

    A guard keeps the plain value while the weights have not narrowed the values they produced so
    far (out of sample, on the earlier clusters): a correction that does not help is not applied.
    :meth:`add` takes one cluster's plain result and luck vector and returns its value.
    ``fixed``: weights 1 on every coordinate (AIVAT's own, applied from the first cluster), the
    guard alone.
    """

    def __init__(self, min_fit: int = MIN_FIT, ridge: float = RIDGE, fixed: bool = False) -> None:
        self.min_fit = min_fit
        self.ridge = ridge
        self.fixed = fixed
        self.n = 0
        self.sx: np.ndarray | None = None
        self.sxx: np.ndarray | None = None
        self.sxy: np.ndarray | None = None
        self.sy = 0.0
        self.fitted = np.zeros(5)  # count, sums and sums of squares of (plain, weighted) with weights

    def weights(self) -> np.ndarray | None:
        """The weights for the next cluster, fitted on the clusters so far (None: too few)."""
        if self.sx is None or self.sxx is None or self.sxy is None:
            return None
        if self.fixed:
            return np.ones(self.sx.size)
        if self.n < self.min_fit:
            return None
        mx, my = self.sx / self.n, self.sy / self.n
        xx = self.sxx - self.n * np.outer(mx, mx)
        xy = self.sxy - self.n * mx * my
        return np.linalg.solve(xx + self.ridge * np.eye(mx.size), xy)

    def helps(self) -> bool:
        """Whether the weighted values so far vary less than the plain ones, once there are
        ``min_fit`` of them (before: weight 1 is applied, fitted weights are not)."""
        k, sp, sw, qp, qw = self.fitted
        if k < self.min_fit:
            return self.fixed
        return bool(qw - sw * sw / k < qp - sp * sp / k)

    def add(self, y: float, x: Sequence[float]) -> float:
        """The value of the next cluster (plain result ``y``, luck ``x``); then learn from it."""
        xv = np.asarray(x, dtype=float)
        if not xv.size:
            return y
        if self.sx is None or self.sx.size != xv.size:
            self.n, self.sy = 0, 0.0
            self.sx, self.sxy = np.zeros(xv.size), np.zeros(xv.size)
            self.sxx = np.zeros((xv.size, xv.size))
        w = self.weights()
        value = y
        if w is not None:
            weighted = y - float(xv @ w)
            value = weighted if self.helps() else y
            self.fitted += (1.0, y, weighted, y * y, weighted * weighted)
        assert self.sxx is not None and self.sxy is not None
        self.sx += xv
        self.sxx += np.outer(xv, xv)
        self.sxy += xv * y
        self.sy += y
        self.n += 1
        return value
