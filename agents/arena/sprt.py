"""The sequential stop of a head-to-head run: an SPRT fed game by game, in index order.

With ``sprt=(elo0, elo1)`` the run tests H0 "A is elo0 stronger than B"
against H1 "A is elo1 stronger" (:func:`.stats.sprt`, error rates alpha and
beta) after every game in game-index order (in duplicate mode only at the
end of a duplicate pair, so seat luck stays balanced) and stops at the first
game where it accepts either. Counting in index order, not in the order the
workers finish, is what makes the verdict the same for any number of workers
and for a resumed run.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any

from ..core.stats import SPRT_H0, SPRT_H1, SPRT_UNDECIDED, SprtResult, gsprt_points, sprt
from .corrected import (
    DEFAULT_VALUE,
    ESTIMATOR_NAMES,
    PLAIN,
    corrected_net,
    luck_of,
    new_prequential,
    plain_net,
)
from .counting import counted_deals
from .lines import AIVAT
from .pairing import PairingStats

__all__ = ["SPRT_H0", "SPRT_H1", "SPRT_UNDECIDED", "SequentialStop", "SprtSettings", "sprt_settings"]

TEAM_POINTS = "team"  # what a four-player run's sequential stop tests: team game points per deal
DEFAULT_ERROR_RATE = 0.05  # alpha and beta unless given
MAX_ELO = 2000.0  # |elo0|, |elo1|: beyond, the expected scores round to 0 or 1 and the test has no logarithm
MAX_POINTS = 3.0  # |elo0|, |elo1| in game points per deal (on="aivat"): no deal is worth more


@dataclass(frozen=True)
class SprtSettings:
    """Settings of the sequential stop: H0 elo ``elo0`` against H1 ``elo1``, error rates."""

    elo0: float
    elo1: float
    alpha: float = DEFAULT_ERROR_RATE
    beta: float = DEFAULT_ERROR_RATE
    on: str = PLAIN  # "plain": match results under the Elo model; "aivat"/"aivat-weight1": corrected points
    value: str = DEFAULT_VALUE  # with on="aivat": the value function whose corrections count

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, Real) or not math.isfinite(v):
                raise ValueError(f"SPRT {name} must be a finite number, got {v!r}")
        if self.on in ESTIMATOR_NAMES:
            bound, unit = (MAX_ELO, "Elo") if self.on == PLAIN else (MAX_POINTS, "game points per deal")
            for name in ("elo0", "elo1"):
                if abs(getattr(self, name)) > bound:
                    raise ValueError(f"SPRT {name} must be within -{bound:g}..{bound:g} {unit}, "
                                     f"got {getattr(self, name)!r}")
        if not self.elo0 < self.elo1:
            raise ValueError(f"SPRT needs elo0 < elo1, got elo0={self.elo0!r}, elo1={self.elo1!r}")
        for name in ("alpha", "beta"):
            v = getattr(self, name)
            if not 0 < v < 1:
                raise ValueError(f"SPRT {name} must be in (0, 1), got {v!r}")
        if self.on not in ESTIMATOR_NAMES:
            raise ValueError(f"SPRT on must be one of {ESTIMATOR_NAMES}, got {self.on!r}")
        if not self.alpha + self.beta < 1:
            raise ValueError(f"SPRT needs alpha + beta < 1, got {self.alpha!r} + {self.beta!r}")
        for name in ("elo0", "elo1", "alpha", "beta"):
            object.__setattr__(self, name, float(getattr(self, name)))

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta}
        if self.on != PLAIN:  # only then, so the headers of plain runs stay as they were
            d["on"] = self.on
        return d


def sprt_settings(sprt: Sequence[float], alpha: float | None = None,
                  beta: float | None = None, on: str = PLAIN, value: str = DEFAULT_VALUE) -> SprtSettings:
    """Validated settings from the pair ``(elo0, elo1)`` and the error rates (None: the default)."""
    if isinstance(sprt, str | bytes) or not isinstance(sprt, Sequence) or len(sprt) != 2:
        raise ValueError(f"sprt must be a pair (elo0, elo1), got {sprt!r}")
    return SprtSettings(sprt[0], sprt[1], DEFAULT_ERROR_RATE if alpha is None else alpha,
                        DEFAULT_ERROR_RATE if beta is None else beta, on, value)


class SequentialStop:
    """The SPRT of a head-to-head run, fed game lines in index order (A is player 0).

    It tests after every game, or in duplicate mode only after the second
    game of each duplicate pair (and after game ``max_games``, the last).
    ``decided`` turns true at the first test that accepts H0 or H1; ``played``
    is then the number of games that count.
    """

    def __init__(self, settings: SprtSettings, duplicate: bool, max_games: int, team_points: bool = False
                 ) -> None:
        self.settings = settings
        self.team_points = team_points  # a four-player run: test A's team game points per deal
        self.duplicate = duplicate
        self.max_games = max_games
        self.wins = self.draws = self.losses = 0
        self.played = 0
        self.totals: dict[int, float] = {}  # with an aivat test: A's plain net points per cluster, its
        self.deals: dict[int, int] = {}  # deals, its luck (by kind, or plain less weight-1 corrected)
        self.luck: dict[int, list[float]] = {}
        self.values: dict[int, float] = {}  # and its tested value, fixed once computed
        self.prequential = new_prequential(settings.on) if settings.on != PLAIN else None
        self.result = self._test()

    def _test(self) -> SprtResult:
        s = self.settings
        if self.team_points:  # elo0, elo1 in A's team game points per deal
            keys = sorted(self.totals)
            return gsprt_points([self.totals[k] for k in keys], [self.deals[k] for k in keys],
                                mu0=s.elo0, mu1=s.elo1, alpha=s.alpha, beta=s.beta)
        if s.on != PLAIN:
            keys = sorted(self.totals)
            assert self.prequential is not None  # weights from the earlier clusters alone
            for k in keys:
                if k not in self.values:
                    self.values[k] = float(self.prequential.add(self.totals[k], self.luck[k]))
            return gsprt_points([self.values[k] for k in keys], [self.deals[k] for k in keys],
                                mu0=s.elo0, mu1=s.elo1, alpha=s.alpha, beta=s.beta)
        return sprt(self.wins, self.draws, self.losses, elo0=s.elo0, elo1=s.elo1, alpha=s.alpha,
                          beta=s.beta)

    @property
    def decided(self) -> bool:
        return self.result.decision != "continue"

    @property
    def verdict(self) -> str:
        return {"accept": SPRT_H1, "reject": SPRT_H0}.get(self.result.decision, SPRT_UNDECIDED)

    def add(self, line: Mapping[str, Any]) -> bool:
        """Count one game (the next by index); return whether the test has decided."""
        if self.decided:
            raise RuntimeError("the sequential test has already decided")
        w = line["winner"]
        if w is None:
            self.draws += 1
        elif line["seats"][w] == 0:
            self.wins += 1
        else:
            self.losses += 1
        if self.team_points:
            c = line["cluster"]
            self.totals[c] = self.totals.get(c, 0.0) + plain_net(line, line["seats"].index(0))
            self.deals[c] = self.deals.get(c, 0) + counted_deals(line)
        elif self.settings.on != PLAIN:
            c = line["cluster"]
            v = self.settings.value
            plain = plain_net(line, line["seats"].index(0))
            self.totals[c] = self.totals.get(c, 0.0) + plain
            fixed = corrected_net(line, 0, v)[0]
            luck = luck_of(line, 0, v) if self.settings.on == AIVAT else [plain - fixed]
            self.luck[c] = [x + y for x, y in zip(self.luck.get(c, [0.0] * len(luck)), luck, strict=True)]
            self.deals[c] = self.deals.get(c, 0) + counted_deals(line)
        self.played += 1
        if not self.duplicate or self.played % 2 == 0 or self.played >= self.max_games:
            self.result = self._test()
        return self.decided

    def catch_up(self, order: Sequence[int], done: Mapping[int, Mapping[str, Any]]) -> bool:
        """Count the finished games of ``order`` (game indices) that follow those counted.

        Stops at the first game not yet ``done`` or at the decision, so games
        finished out of order wait for their predecessors. Returns ``decided``.
        """
        while not self.decided and self.played < len(order) and order[self.played] in done:
            self.add(done[order[self.played]])
        return self.decided

    def record(self, st: PairingStats) -> PairingStats:
        """Write the verdict into ``st`` (the statistics of the counted games)."""
        s = self.settings
        st.sprt_verdict = self.verdict
        st.sprt_llr = self.result.llr
        st.sprt_bounds = (self.result.lower, self.result.upper)
        st.sprt_elo = (s.elo0, s.elo1)
        st.sprt_alpha, st.sprt_beta = s.alpha, s.beta
        st.sprt_max_games = self.max_games
        if s.on != PLAIN or self.team_points:
            st.sprt_on = TEAM_POINTS if self.team_points else s.on
        return st
