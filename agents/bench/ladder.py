"""The reference ladder: its bots, the calibration seed and time control, its fixed ratings.

The scale is Elo on matches (logistic, 400 points for 10:1 odds) anchored at
``heuristic = 1000``. The rungs' ratings come from one large round robin
(:mod:`agents.bench.calibrate`, its exact command in ``ladder.json``) and stay
fixed: a benched bot's rating is the maximum-likelihood rating given its
results against the rungs and their fixed ratings (:func:`fit_rating`), with
a 95% likelihood-ratio interval.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.arena.inputs import read_regular

BENCH_SEED = 6606_2026  # public master seed of the calibration (ladder bots only; a bench draws secret ones)
MOVE_TIME = 0.1  # seconds per move, for every bot of the bench and the calibration
CLOCK = "cpu"  # what MOVE_TIME limits: each bot's own CPU time (agents.play)
RUNGS = ("random", "heuristic", "pimc", "ismcts", "ppo", "guided:leaf=rollout")
ANCHOR = ("heuristic", 1000.0)
ELO_PER_NAT = 400.0 / math.log(10.0)
LADDER_PATH = os.path.join(os.path.dirname(__file__), "ladder.json")
CHI2_95 = 3.841  # the 95% quantile of chi-square with one degree of freedom


@dataclass(frozen=True)
class Ladder:
    """The rungs' fixed ratings and how they were made."""

    ratings: dict[str, float]
    intervals: dict[str, tuple[float, float]] = field(default_factory=dict)
    move_time: float = MOVE_TIME
    seed: int = BENCH_SEED
    clock: str = CLOCK
    games: int = 0
    command: str = ""
    anchor: tuple[str, float] = ANCHOR
    machine: str = ""  # where and under what load it was calibrated

    @property
    def rungs(self) -> list[str]:
        """The rungs, weakest first."""
        return sorted(self.ratings, key=self.ratings.__getitem__)

    def to_dict(self) -> dict[str, Any]:
        ratings = {n: {"elo": round(e, 1), "ci": [round(x, 1) for x in self.intervals.get(n, (e, e))]}
                   for n, e in self.ratings.items()}
        scale = f"Elo on matches, {self.anchor[0]} = {self.anchor[1]:g}"
        return {"scale": scale, "anchor": list(self.anchor),
                "move_time": self.move_time, "clock": self.clock, "seed": self.seed,
                "games_per_pairing": self.games, "command": self.command, "machine": self.machine,
                "ratings": ratings}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Ladder:
        r = d["ratings"]
        return cls({n: float(v["elo"]) for n, v in r.items()},
                   {n: (float(v["ci"][0]), float(v["ci"][1])) for n, v in r.items()},
                   float(d["move_time"]), int(d["seed"]), str(d.get("clock", "wall")),
                   int(d.get("games_per_pairing", 0)),
                   str(d.get("command", "")), (str(d["anchor"][0]), float(d["anchor"][1])),
                   str(d.get("machine", "")))


MAX_LADDER_BYTES = 1 << 20


def load_ladder(path: str | None = None) -> Ladder:
    """The ladder in ``path`` (default: the shipped ``agents/bench/ladder.json``); a file that is not
    one (a fifo, not JSON, fields missing) is a ValueError naming it, never a blocked read."""
    path = path or LADDER_PATH
    try:
        ladder = Ladder.from_dict(json.loads(read_regular(path, MAX_LADDER_BYTES)))
    except (ValueError, KeyError, TypeError, IndexError, AttributeError) as e:
        raise ValueError(f"ladder file {path} is not a ladder: {type(e).__name__}: {e}") from None
    if not ladder.ratings:
        raise ValueError(f"ladder file {path} has no rungs")
    return ladder


def save_ladder(ladder: Ladder, path: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(ladder.to_dict(), f, indent=2)
        f.write("\n")


def _log_likelihood(r: float, results: Sequence[tuple[float, float, float]]) -> float:
    """Log-likelihood of rating ``r`` given (rung rating, score, games) triples."""
    ll = 0.0
    for rung, score, games in results:
        x = (r - rung) / ELO_PER_NAT
        ll += score * -math.log1p(math.exp(-x)) + (games - score) * -math.log1p(math.exp(x))
    return ll


def fit_rating(results: Sequence[tuple[float, float, float]], prior_draws: float = 1.0,
               prior_games: int | None = None) -> tuple[float, tuple[float, float]]:
    """Maximum-likelihood rating and 95% likelihood-ratio interval.

    ``results``: (rung rating, score against it, games against it) per rung
    played. ``prior_draws`` virtual drawn games per rung (as the arena's
    Bradley-Terry fit) keep a perfect score finite. With ``prior_games`` (the
    calibration's games per pairing) a rung gets ``prior_draws`` per
    ``prior_games`` games played against it: the calibration's own weight, so a
    bot is rated as the calibration rated the rungs, and one that loses every
    match is rated as random (which lost every calibration match), not pulled
    up to the rungs by a prior worth more than its few games.
    """
    res = [(rr, s + w / 2, g + w) for rr, s, g in results if g > 0
           for w in [prior_draws * (g / prior_games if prior_games else 1.0)]]
    if not res:
        raise ValueError("no games against any rung")

    def ll(r: float) -> float:
        return _log_likelihood(r, res)

    lo, hi = min(rr for rr, _, _ in res) - 2000.0, max(rr for rr, _, _ in res) + 2000.0
    a, b = lo, hi
    for _ in range(200):  # ll is concave: ternary search for the maximum
        m1, m2 = a + (b - a) / 3, b - (b - a) / 3
        if ll(m1) < ll(m2):
            a = m1
        else:
            b = m2
    best = (a + b) / 2
    cut = ll(best) - CHI2_95 / 2
    return best, (_crossing(ll, cut, best, lo), _crossing(ll, cut, best, hi))


def _crossing(ll: Any, cut: float, inside: float, outside: float) -> float:
    """Where the concave ``ll`` falls to ``cut`` between ``inside`` and ``outside`` (bisection)."""
    if ll(outside) >= cut:
        return outside
    for _ in range(100):
        mid = (inside + outside) / 2
        if ll(mid) >= cut:
            inside = mid
        else:
            outside = mid
    return (inside + outside) / 2
