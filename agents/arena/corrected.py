"""The AIVAT-corrected figure of a run (``--estimator aivat``): per game in the worker, per pairing after.

With an aivat estimator the worker that played a game replays it through
:func:`agents.evaluation.games.correct_game` (value function by name, known
move distributions of the in-process bots that declare them) and stores in
the game line's ``aivat`` field the corrected game points of the two seats
(luck terms with weight 1) and the luck by kind
(:func:`agents.evaluation.games.seat_luck`) (:func:`correction`); so the
correction runs in parallel and a resumed run keeps it. A game the
estimator must not correct (a bot that sees the hidden cards, a policy that
is not a distribution) stores the reason instead and counts with its plain
points.

The summary (:func:`corrected_figure`) sums per cluster (duplicate pair)
like the plain points per deal. ``aivat`` (the default) weighs the luck by
cross-fitted regression weights (:func:`agents.evaluation.regression.cross_fitted`),
``aivat-weight1`` subtracts it with weight 1; either way, where the corrected
interval would not be narrower than the plain one, the figure is the plain
one and its note says so. :class:`~agents.arena.sprt.SequentialStop` tests
the per-cluster values of :func:`cluster_values` (prequential weights).

Nothing here imports :mod:`agents.evaluation` at module level: a plain run
never loads it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.stats import ratio_interval
from .counting import counted_deals, forfeit_net
from .lines import AIVAT, MAX_NOTE, jsonable

PLAIN = "plain"
AIVAT_WEIGHT1 = "aivat-weight1"  # the luck terms with weight 1 (AIVAT as published); "aivat": cross-fitted
ESTIMATOR_NAMES = (PLAIN, AIVAT, AIVAT_WEIGHT1)  # the --estimator values
LUCK_WIDTH = 6  # the coordinates of agents.evaluation.games.seat_luck
MIN_CLUSTERS = 8  # agents.evaluation.regression.cross_fitted fits no weights on fewer (4 per fold)
DEFAULT_VALUE = "solver"
CORRECTABLE_RULES = "german"  # agents.evaluation replays deals with the German talon and scoring


class EstimatorError(ValueError):
    """An estimator or value function the arena cannot use for this run; ``option`` names the culprit
    (``"estimator"``, ``"value"`` or ``"rules"``)."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option = option


def check_estimator(estimator: Any, value: Any, rules: str) -> None:
    """Refuse an unknown estimator or value function, or rules the estimator cannot replay."""
    if estimator not in ESTIMATOR_NAMES:
        raise EstimatorError("estimator", f"must be one of {', '.join(ESTIMATOR_NAMES)}, got {estimator!r}")
    if estimator == PLAIN:
        if value != DEFAULT_VALUE:
            raise EstimatorError("value", f"{value!r} needs estimator aivat (plain runs use no value)")
        return
    from agents.evaluation.values import VALUE_NAMES  # only for an aivat run

    if value not in VALUE_NAMES:
        raise EstimatorError("value", f"names no value function: {value!r}; choose one of "
                                      f"{', '.join(VALUE_NAMES)}")
    if rules != CORRECTABLE_RULES:
        raise EstimatorError("rules", f"{rules}: estimator aivat replays deals under plain German rules only "
                                      "(the German talon and scoring); use the plain estimator")


_VALUES: dict[str, Any] = {}  # one value function per name and process (the solver keeps its tables)


def correction(line: Mapping[str, Any], agents: Sequence[Any], value: str) -> dict[str, Any]:
    """The ``aivat`` field of a finished game line whose seats were played by ``agents`` (seat order).

    The bots' declared policies give decision terms; the others are black
    boxes (chance terms only). A game that cannot be corrected gets
    ``{"value": ..., "skipped": reason}`` and never stops the run; else
    ``{"value": ..., "points": [p0, -p0], "luck": [...]}`` (seat 0's luck by kind).
    """
    from agents.evaluation.aivat import PolicyError
    from agents.evaluation.games import (
        NotCorrectable,
        ReplayError,
        check_correctable,
        correct_game,
        policy_of,
        seat_luck,
    )
    from agents.evaluation.values import OWN, make_value, own_move_value

    try:
        check_correctable(agents)
        fn = _VALUES.get(value) or _VALUES.setdefault(value, make_value(value))
        moves = own_move_value(agents) if value == OWN else None
        corrections = correct_game(line, fn, [policy_of(a) for a in agents], move_value=moves)
        points = math.fsum(c.corrected for c in corrections)
        luck = seat_luck(corrections)
    except (NotCorrectable, ReplayError, PolicyError) as e:
        return {"value": value, "skipped": str(e)[:MAX_NOTE]}
    except Exception as e:  # a bot's own action_probabilities failing: its game stays plain, the run goes on
        return {"value": value, "skipped": f"the correction failed: {type(e).__name__}: {e}"[:MAX_NOTE]}
    if not (math.isfinite(points) and all(math.isfinite(x) for x in luck)):
        return {"value": value, "skipped": f"the value function {value} gave a non-finite correction"}
    return {"value": value, "points": [points, -points], "luck": luck}


def plain_net(line: Mapping[str, Any], seat: int) -> int:
    """The plain net game points of ``seat`` over the game's finished deals and the deal a forfeit
    ended (lost by the forfeiter for the most a deal costs, :func:`~.counting.forfeit_net`)."""
    return sum(d["game_points"] * (1 if d["winner"] == seat else -1)
               for d in line["deals"] if d["winner"] is not None) + forfeit_net(line, seat)


def corrected_net(line: Mapping[str, Any], player: int, value: str) -> tuple[float, bool]:
    """``player``'s corrected net game points in a game line, and whether they are corrected
    (a game without corrected points of the run's ``value`` counts its plain points: also unbiased,
    only noisier)."""
    seat = line["seats"].index(player)
    field = line.get(AIVAT)
    if isinstance(field, dict) and "points" in field and field.get("value") == value:
        return float(field["points"][seat]) + forfeit_net(line, seat), True
    return float(plain_net(line, seat)), False


def luck_of(line: Mapping[str, Any], player: int, value: str) -> list[float]:
    """``player``'s luck in a game line, by kind (deal, draws, own moves, the other's moves, own
    sampled moves, the other's): zeros for a game without luck of the run's ``value`` recorded."""
    seat = line["seats"].index(player)
    field = line.get(AIVAT)
    luck = field.get("luck") if isinstance(field, dict) and field.get("value") == value else None
    if not isinstance(luck, list) or len(luck) != LUCK_WIDTH:
        return [0.0] * LUCK_WIDTH
    sign = 1.0 if seat == 0 else -1.0
    own, other = (2, 3) if seat == 0 else (3, 2)
    return [sign * float(luck[i]) for i in (0, 1, own, other, own + 2, other + 2)]


@dataclass(frozen=True)
class CorrectedFigure:
    """A pairing's corrected points per deal (A's side) with its 95% cluster interval, the SD ratio
    plain/corrected of the per-cluster residuals, and how many games were corrected. ``weights``:
    ``"regression"`` (cross-fitted) or ``"1"``; ``used``: ``"aivat"``, or ``"plain"`` where the
    correction would have widened the interval (the figure is then the plain one)."""

    value: str
    points_per_deal: float
    ci: tuple[float, float]
    sd_ratio: float
    corrected_games: int
    games: int
    note: str = ""
    weights: str = "regression"
    used: str = AIVAT

    def to_dict(self) -> dict[str, Any]:
        return jsonable({"value": self.value, "points_per_deal": self.points_per_deal, "ci": self.ci,
                         "sd_ratio": self.sd_ratio, "corrected_games": self.corrected_games,
                         "games": self.games, "note": self.note, "weights": self.weights, "used": self.used})

    def text(self) -> str:
        """``"aivat solver +0.123 [+0.01, +0.24], SD plain/aivat x1.10"``, or the note alone."""
        if not self.corrected_games:
            return f"aivat {self.value}: plain only ({self.note})"
        lo, hi = self.ci
        ratio = "-" if not math.isfinite(self.sd_ratio) else f"x{self.sd_ratio:.2f}"
        name = "aivat" if self.weights == "regression" else "aivat (weight 1)"
        return (f"{name} {self.value} {self.points_per_deal:+.3f} [{lo:+.3f}, {hi:+.3f}], SD plain/aivat "
                f"{ratio}" + (f" ({self.note})" if self.note else ""))


def _residual_ss(y: Sequence[float], n: Sequence[int]) -> float:
    total = sum(n)
    r = sum(y) / total if total else 0.0
    return math.fsum((a - r * b) ** 2 for a, b in zip(y, n, strict=True))


@dataclass
class _Clusters:
    plain: dict[Any, float]
    fixed: dict[Any, float]
    luck: dict[Any, list[float]]
    deals: dict[Any, int]
    done: int = 0
    games: int = 0


def _clusters(lines: Sequence[Mapping[str, Any]], a: int, b: int, value: str,
              reasons: list[str]) -> _Clusters:
    out = _Clusters({}, {}, {}, {})
    for line in lines:
        if sorted(line["seats"]) != sorted((a, b)):
            continue
        c = line["cluster"]
        net, ok = corrected_net(line, a, value)
        out.games += 1
        out.done += ok
        field = line.get(AIVAT)
        if not ok and line["deals"] and isinstance(field, dict) and field.get("skipped") not in reasons:
            reasons.append(str(field.get("skipped")))
        out.plain[c] = out.plain.get(c, 0.0) + plain_net(line, line["seats"].index(a))
        out.fixed[c] = out.fixed.get(c, 0.0) + net
        luck = out.luck.setdefault(c, [0.0] * LUCK_WIDTH)
        for i, x in enumerate(luck_of(line, a, value)):
            luck[i] = x + luck[i]
        out.deals[c] = out.deals.get(c, 0) + counted_deals(line)
    return out


def corrected_figure(lines: Sequence[Mapping[str, Any]], a: int, b: int, value: str,
                     estimator: str = AIVAT) -> CorrectedFigure:
    """The corrected points per deal of ``a`` against ``b``, over the same clusters and deals as the
    plain figure of :func:`agents.arena.pairing.pairing_stats`: cross-fitted weights (``aivat``) or
    weight 1 (``aivat-weight1``); the plain figure, with a note, where the correction does not
    narrow the interval."""
    reasons: list[str] = []
    cl = _clusters(lines, a, b, value, reasons)
    keys = sorted(cl.deals)
    n = [cl.deals[k] for k in keys]
    plain = [cl.plain[k] for k in keys]
    if estimator == AIVAT_WEIGHT1:
        y = [cl.fixed[k] for k in keys]
    else:
        from agents.evaluation.regression import cross_fitted  # numpy only when summarising

        y = cross_fitted(plain, [cl.luck[k] for k in keys])
    ss, ss_plain = _residual_ss(y, n), _residual_ss(plain, n)
    ratio = math.sqrt(ss_plain / ss) if ss > 0 else float("nan")
    notes = []
    if cl.done < cl.games:
        why = "; ".join(reasons)[:300] or "no corrected points recorded"
        notes.append(f"{cl.games - cl.done} of {cl.games} games not corrected, counted plain: {why}"
                     if cl.done else f"not corrected: {why}")
    used = AIVAT
    if cl.done and ss >= ss_plain and ss > 0:
        used, y = PLAIN, plain
        few = estimator != AIVAT_WEIGHT1 and len(keys) < MIN_CLUSTERS
        why = (f"fewer than {MIN_CLUSTERS} clusters, no weights fitted" if few else
               f"the correction did not narrow the interval (SD plain/aivat x{ratio:.2f})")
        notes.append(f"{why}: the figure is the plain one")
    mean, lo, hi = ratio_interval(y, n)
    weights = "1" if estimator == AIVAT_WEIGHT1 else "regression"
    return CorrectedFigure(value, mean, (lo, hi), ratio, cl.done, cl.games, "; ".join(notes), weights, used)


def new_prequential(estimator: str) -> Any:
    """The per-cluster weighing of the sequential test of an aivat estimator: a
    :class:`agents.evaluation.regression.Prequential` (each cluster weighed by the clusters before it
    alone, fitted for ``aivat``, weight 1 for ``aivat-weight1``; the plain value while that has not
    narrowed the earlier clusters' values), imported only for such a test."""
    from agents.evaluation.regression import Prequential

    return Prequential(fixed=estimator == AIVAT_WEIGHT1)
