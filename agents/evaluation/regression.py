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
