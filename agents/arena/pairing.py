"""The numbers of one pairing, A against B, from its game lines (as in the results file).

:func:`pairing_stats` counts wins, deals and forfeits from A's side and
adds the intervals of :mod:`.stats`; :class:`PairingStats` holds them (and
the verdict of a sequential stop) and writes them as JSON or a line of text.

A forfeit ends the deal in progress, which the record leaves out of its
``deals``; the deal counts as lost by the forfeiting bot for the most a deal
can cost (:func:`~.counting.forfeit_cost`), so forfeiting a hopeless deal never
improves points per deal or the deal win rate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agents.core.forfeits import kind_of, kinds_text, no_forfeits
from sixtysix_env.variants import GERMAN, Rules

from .counting import counted_deals, forfeit_net, forfeit_side
from .fairness import cpu_share
from .lines import jsonable

if TYPE_CHECKING:
    from .corrected import CorrectedFigure
from ..core.stats import (
    SPRT_H0,
    SPRT_H1,
    SprtResult,
    elo_from_score,
    los,
    ratio_interval,
    sprt,
    wilson_interval,
)


@dataclass
class PairingStats:
    """Result of A against B; every rate and net number is from A's side."""

    a: str
    b: str
    games: int = 0
    a_wins: int = 0
    b_wins: int = 0
    draws: int = 0
    forfeits: int = 0
    a_forfeits: int = 0
    b_forfeits: int = 0
    a_forfeit_kinds: dict[str, int] = field(default_factory=no_forfeits)
    b_forfeit_kinds: dict[str, int] = field(default_factory=no_forfeits)
    cpu_share: float | None = field(default=None, compare=False)  # measured: CPU / wall time of the games
    win_rate: float = float("nan")
    win_rate_ci: tuple[float, float] = (0.0, 1.0)
    deals: int = 0
    a_deal_wins: int = 0
    b_deal_wins: int = 0
    drawn_deals: int = 0
    deal_win_rate: float = float("nan")
    deal_win_rate_ci: tuple[float, float] = (0.0, 1.0)
    points_per_deal: float = float("nan")
    points_per_deal_ci: tuple[float, float] = (float("nan"), float("nan"))
    elo: float = float("nan")
    elo_ci: tuple[float, float] = (float("nan"), float("nan"))
    los: float = 0.5
    unit: str = "match"
    duplicate: bool = True
    # Sequential stop (None unless the run had ``sprt``): verdict SPRT_H1, SPRT_H0
    # or SPRT_UNDECIDED, the LLR at the last test, its (lower, upper) bounds,
    # the settings, and the maximum number of games the run allowed.
    sprt_verdict: str | None = None
    sprt_llr: float | None = None
    sprt_bounds: tuple[float, float] | None = None
    sprt_elo: tuple[float, float] | None = None
    sprt_alpha: float | None = None
    sprt_beta: float | None = None
    sprt_max_games: int | None = None
    # With --estimator aivat (None otherwise, and then not in to_dict): the corrected figure, and
    # what the sequential stop tested ("aivat": corrected points per deal, sprt_elo then in points).
    aivat: CorrectedFigure | None = None
    sprt_on: str | None = None
    replays: int = 0  # games of this pairing played again (set by the arena from its replay lines)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON (strict: NaN and infinite values, e.g. the Elo of a 100% score, become None)."""
        d = {k: jsonable(v) for k, v in self.__dict__.items() if k not in OPTIONAL or v is not None}
        if self.aivat is not None:
            d["aivat"] = self.aivat.to_dict()
        return d

    def sprt(self, elo0: float = 0.0, elo1: float = 10.0, alpha: float = 0.05,
             beta: float = 0.05) -> SprtResult:
        """SPRT of "A is ``elo1`` stronger than B" (vs ``elo0``) on these games."""
        return sprt(self.a_wins, self.draws, self.b_wins, elo0=elo0, elo1=elo1, alpha=alpha, beta=beta)

    def summary(self) -> str:
        """The pairing in one line (two with a sequential stop)."""
        lo, hi = self.win_rate_ci
        units = "matches" if self.unit == "match" else "deals"
        return (
            f"{self.a} vs {self.b}: {self.games} {units}, win rate {percent(self.win_rate)} "
            f"[{percent(lo)}, {percent(hi)}], deals won {percent(self.deal_win_rate)}, "
            f"points/deal {self.points_per_deal:+.3f} [{self.points_per_deal_ci[0]:+.3f}, "
            f"{self.points_per_deal_ci[1]:+.3f}], forfeits {self.forfeit_text()}"
            + (f", CPU share {100 * self.cpu_share:.0f}%" if self.cpu_share is not None else "")
            + (f", {self.replays} played again" if self.replays else "")
        ) + (f"\n  {self.aivat.text()}" if self.aivat is not None else "") \
            + (f"\n{self.sprt_text()}" if self.sprt_verdict is not None else "")

    def table(self) -> str:
        """:meth:`summary` (the name a team match's caller uses)."""
        return self.summary()

    def forfeit_text(self) -> str:
        """``"0/2 (random: time 2)"``: forfeits of A and B, by kind."""
        sides = ((self.a, self.a_forfeit_kinds, self.a_forfeits),
                 (self.b, self.b_forfeit_kinds, self.b_forfeits))
        kinds = [f"{n}: {kinds_text(k)}" for n, k, c in sides if c]
        return f"{self.a_forfeits}/{self.b_forfeits}" + (f" ({'; '.join(kinds)})" if kinds else "")

    def sprt_text(self) -> str:
        """One line on the sequential stop ('' if the run had none)."""
        if self.sprt_verdict is None or self.sprt_elo is None or self.sprt_bounds is None:
            return ""
        e0, e1 = self.sprt_elo
        scale = "Elo" if self.sprt_on is None else f"{self.sprt_on} game points per deal"
        verdict = {
            SPRT_H1: f"H1 accepted ({self.a} stronger than {self.b} by about {e1:g} {scale})",
            SPRT_H0: f"H0 accepted ({self.a} not stronger than {self.b} by {e1:g} {scale})",
        }.get(self.sprt_verdict, "undecided (maximum reached)")
        units = "matches" if self.unit == "match" else "deals"
        llr = round(self.sprt_llr or 0.0, 3) + 0.0  # no "-0.000"
        name = "SPRT elo0 {:g} vs elo1 {:g}" if self.sprt_on is None else "SPRT {:+g} vs {:+g} pts/deal"
        return (
            f"{name.format(e0, e1)} (alpha {self.sprt_alpha:g}, beta {self.sprt_beta:g}): "
            f"{verdict} after {self.games} of at most {self.sprt_max_games} {units}, "
            f"LLR {llr:+.3f} in [{self.sprt_bounds[0]:+.3f}, {self.sprt_bounds[1]:+.3f}]"
        )


OPTIONAL = frozenset({"aivat", "sprt_on"})  # PairingStats fields left out of to_dict while None


def pairing_stats(
    records: Sequence[Mapping[str, Any]], a: int, b: int, names: Sequence[str], unit: str, duplicate: bool,
    rules: Rules = GERMAN,
) -> PairingStats:
    """Statistics of the games between players ``a`` and ``b`` (records as in the JSONL file,
    played under ``rules``: what a forfeited deal costs).

    Points per deal get a cluster interval: the deals of one duplicate pair
    (or one game) share cards and bots' states, so they are one cluster.
    """
    st = PairingStats(names[a], names[b], unit=unit, duplicate=duplicate)
    net_by_cluster: dict[int, float] = {}
    deals_by_cluster: dict[int, int] = {}
    mine = [r for r in records if {r["seats"][0], r["seats"][1]} == {a, b}]
    st.cpu_share = cpu_share(mine)
    for r in mine:
        net, deals = _count_game(st, r, r["seats"].index(a), rules)
        c = r["cluster"]
        net_by_cluster[c] = net_by_cluster.get(c, 0) + net
        deals_by_cluster[c] = deals_by_cluster.get(c, 0) + deals
    if st.games:
        score = st.a_wins + 0.5 * st.draws
        st.win_rate = score / st.games
        st.win_rate_ci = wilson_interval(score, st.games)
        st.elo = elo_from_score(st.win_rate)
        st.elo_ci = (elo_from_score(st.win_rate_ci[0]), elo_from_score(st.win_rate_ci[1]))
        st.los = los(st.a_wins, st.b_wins)
    if st.deals:
        dscore = st.a_deal_wins + 0.5 * st.drawn_deals
        st.deal_win_rate = dscore / st.deals
        st.deal_win_rate_ci = wilson_interval(dscore, st.deals)
        keys = sorted(net_by_cluster)
        r_, lo, hi = ratio_interval([net_by_cluster[k] for k in keys],
                                    [deals_by_cluster[k] for k in keys])
        st.points_per_deal, st.points_per_deal_ci = r_, (lo, hi)
    return st


def _count_game(st: PairingStats, r: Mapping[str, Any], seat_a: int, rules: Rules) -> tuple[int, int]:
    """Add one game (A in ``seat_a``: its side, the team at a four-player table) to the counts of
    ``st``; return A's net game points and the deals counted (a forfeited deal included)."""
    v = r.get("match_value", 1)  # a double game counts as two (docs/rules-variants.md V1.3)
    st.games += v
    w = r["winner"]
    if w is None:
        st.draws += v
    elif w == seat_a:
        st.a_wins += v
    else:
        st.b_wins += v
    if r["forfeit"] is not None:
        st.forfeits += 1
        kind = kind_of(r["forfeit"]["reason"])
        if forfeit_side(r) == seat_a:
            st.a_forfeits += 1
            st.a_forfeit_kinds[kind] += 1
        else:
            st.b_forfeits += 1
            st.b_forfeit_kinds[kind] += 1
    net = 0
    for d in r["deals"]:
        dw = d["winner"]
        if dw is None:
            st.drawn_deals += 1
        elif dw == seat_a:
            st.a_deal_wins += 1
            net += d["game_points"]
        else:
            st.b_deal_wins += 1
            net -= d["game_points"]
    st.deals += len(r["deals"])
    if r["forfeit"] is not None:  # the deal it ended: lost by the forfeiter (counting.forfeit_cost)
        st.deals += 1
        if forfeit_side(r) == seat_a:
            st.b_deal_wins += 1
        else:
            st.a_deal_wins += 1
    return net + forfeit_net(r, seat_a, rules), counted_deals(r)



def percent(x: float) -> str:
    """A rate as ``"53.2%"`` (``"n/a"`` for NaN: no games)."""
    return "n/a" if x != x else f"{100 * x:.1f}%"
