"""Another name for :mod:`agents.core.stats` (intervals, ratings, sequential tests)."""

from ..core.stats import (
    ELO_SCALE,
    MIN_CLUSTERS,
    SPRT_H0,
    SPRT_H1,
    SPRT_UNDECIDED,
    Z95,
    Matrix,
    Ratings,
    SprtResult,
    bradley_terry,
    elo_from_score,
    gsprt_points,
    los,
    mean_interval,
    ratio_interval,
    score_from_elo,
    sprt,
    t_cdf,
    t_quantile,
    wilson_interval,
)

__all__ = [
    "bradley_terry", "elo_from_score", "ELO_SCALE", "gsprt_points", "los", "Matrix", "mean_interval",
    "MIN_CLUSTERS", "Ratings", "ratio_interval", "score_from_elo", "sprt", "SPRT_H0", "SPRT_H1",
    "SPRT_UNDECIDED", "SprtResult", "t_cdf", "t_quantile", "wilson_interval", "Z95",
]  # fmt: skip
