"""The AIVAT-corrected figure of a run (``--estimator aivat``): per game in the worker, per pairing after.

With ``estimator="aivat"`` the worker that played a game replays it
through :func:`agents.evaluation.games.game_points` (value function by name,
known policies of the in-process bots that declare them) and stores the
corrected game points of the two seats in the game line's ``aivat`` field
(:func:`correction`); so the correction runs in parallel and a resumed run
keeps it. A game the estimator must not correct (a bot that sees the hidden
cards, a policy that is not a distribution) stores the reason instead and
counts with its plain points. The summary sums the stored points per
cluster (duplicate pair) exactly like the plain points per deal
(:func:`corrected_figure`), and :class:`~agents.arena.sprt.SequentialStop`
tests the same per-cluster values (:func:`corrected_net`).

Nothing here imports :mod:`agents.evaluation` at module level: a plain run
never loads it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .counting import counted_deals, forfeit_net
from .lines import AIVAT, MAX_NOTE, jsonable
from .stats import ratio_interval

PLAIN = "plain"
ESTIMATOR_NAMES = (PLAIN, AIVAT)  # the --estimator values
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
    ``{"value": ..., "skipped": reason}`` and never stops the run.
    """
    from agents.evaluation.aivat import PolicyError
    from agents.evaluation.games import NotCorrectable, ReplayError, check_correctable, game_points, policy_of
    from agents.evaluation.values import make_value

    seats = line["seats"]
    try:
        check_correctable(agents)
        fn = _VALUES.get(value) or _VALUES.setdefault(value, make_value(value))
        policies = {p: policy_of(a) for p, a in zip(seats, agents, strict=True)}
        points = game_points(line, seats[0], fn, policies).corrected
    except (NotCorrectable, ReplayError, PolicyError) as e:
        return {"value": value, "skipped": str(e)[:MAX_NOTE]}
    except Exception as e:  # a bot's own action_probabilities failing: its game stays plain, the run goes on
        return {"value": value, "skipped": f"the correction failed: {type(e).__name__}: {e}"[:MAX_NOTE]}
    if not math.isfinite(points):
        return {"value": value, "skipped": f"the value function {value} gave a non-finite correction"}
    return {"value": value, "points": [points, -points]}


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


@dataclass(frozen=True)
class CorrectedFigure:
    """A pairing's corrected points per deal (A's side) with its 95% cluster interval, the SD ratio
    plain/corrected of the per-cluster residuals, and how many games were corrected."""

    value: str
    points_per_deal: float
    ci: tuple[float, float]
    sd_ratio: float
    corrected_games: int
    games: int
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return jsonable({"value": self.value, "points_per_deal": self.points_per_deal, "ci": self.ci,
                         "sd_ratio": self.sd_ratio, "corrected_games": self.corrected_games,
                         "games": self.games, "note": self.note})

    def text(self) -> str:
        """``"+0.123 [+0.01, +0.24] (aivat solver, SD x1.10)"``, or the note alone."""
        if not self.corrected_games:
            return f"aivat {self.value}: plain only ({self.note})"
        lo, hi = self.ci
        ratio = "-" if not math.isfinite(self.sd_ratio) else f"x{self.sd_ratio:.2f}"
        return (f"aivat {self.value} {self.points_per_deal:+.3f} [{lo:+.3f}, {hi:+.3f}], SD plain/aivat "
                f"{ratio}" + (f" ({self.note})" if self.note else ""))


def _residual_ss(y: Sequence[float], n: Sequence[int]) -> float:
    total = sum(n)
    r = sum(y) / total if total else 0.0
    return math.fsum((a - r * b) ** 2 for a, b in zip(y, n, strict=True))


def corrected_figure(lines: Sequence[Mapping[str, Any]], a: int, b: int, value: str) -> CorrectedFigure:
    """The corrected points per deal of ``a`` against ``b``, over the same clusters and deals as the
    plain figure of :func:`agents.arena.pairing.pairing_stats`."""
    plain: dict[int, float] = {}
    fixed: dict[int, float] = {}
    deals: dict[int, int] = {}
    done = games = 0
    reasons: list[str] = []
    for line in lines:
        if sorted(line["seats"]) != sorted((a, b)):
            continue
        c = line["cluster"]
        net, ok = corrected_net(line, a, value)
        games += 1
        done += ok
        field = line.get(AIVAT)
        if not ok and line["deals"] and isinstance(field, dict) and field.get("skipped") not in reasons:
            reasons.append(str(field.get("skipped")))
        plain[c] = plain.get(c, 0.0) + plain_net(line, line["seats"].index(a))
        fixed[c] = fixed.get(c, 0.0) + net
        deals[c] = deals.get(c, 0) + counted_deals(line)
    keys = sorted(deals)
    y, n = [fixed[k] for k in keys], [deals[k] for k in keys]
    mean, lo, hi = ratio_interval(y, n)
    ss = _residual_ss(y, n)
    ratio = math.sqrt(_residual_ss([plain[k] for k in keys], n) / ss) if ss > 0 else float("nan")
    note = ""
    if done < games:
        why = "; ".join(reasons)[:300] or "no corrected points recorded"
        note = (f"{games - done} of {games} games not corrected, counted plain: {why}" if done else
                f"not corrected: {why}")
    return CorrectedFigure(value, mean, (lo, hi), ratio, done, games, note)
