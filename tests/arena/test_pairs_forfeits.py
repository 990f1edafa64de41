"""Issue 40: forfeiting a hopeless deal never pays. The deal a forfeit ends counts in points per
deal (and the deal win rate) as lost for the most a deal can cost under the run's rules."""

from __future__ import annotations

import pytest

from agents.arena.api import run, summarize
from agents.arena.counting import MAX_DEAL_POINTS, forfeit_cost
from agents.arena.pairing import pairing_stats
from agents.random_agent import RandomAgent
from sixtysix_env.variants import PRESETS, rules_from_spec


class HopelessForfeiter(RandomAgent):
    """Plays at random, but once the opponent leads by 20 points in a deal plays an illegal action."""

    name = "forfeiter"

    def act(self, view):
        me = view.player
        if view.scores[1 - me] - view.scores[me] >= 20:
            return next(a for a in range(32) if not view.legal_mask >> a & 1)
        return super().act(view)


def _net(deals, seat):
    return sum(d["game_points"] * (1 if d["winner"] == seat else -1)
               for d in deals if d["winner"] is not None)


@pytest.mark.parametrize("unit", ["deal", "match"])
def test_a_forfeited_deal_costs_the_most_a_deal_can(unit):
    names, config, lines = run([HopelessForfeiter(), "heuristic"], games=12, unit=unit, seed=3)
    st = summarize(names, config, lines).pairings[0]
    forfeits = [g for g in lines if g["forfeit"] is not None]
    assert forfeits and all(g["forfeit"]["reason"] == "illegal" for g in forfeits)
    completed = sum(len(g["deals"]) for g in lines)
    net = sum(_net(g["deals"], g["seats"].index(0)) for g in lines)
    assert st.a_forfeits == len(forfeits) and st.deals == completed + len(forfeits)
    assert st.points_per_deal == pytest.approx((net - 3 * len(forfeits)) / (completed + len(forfeits)))
    dropped = net / completed if completed else 0.0  # the old count: forfeited deals left out
    assert st.points_per_deal < dropped


def test_the_cost_is_a_schwarz_in_every_preset_plus_a_carried_draw_bonus():
    assert MAX_DEAL_POINTS == 3
    for rules in PRESETS.values():
        assert forfeit_cost([], rules) == 3
    bonus = rules_from_spec("german+draw_bonus")
    drawn, won = {"winner": None, "game_points": 0}, {"winner": 0, "game_points": 2}
    assert forfeit_cost([drawn, won, drawn, drawn], bonus) == 4  # +1 after drawn deals, however many (V1.2)
    assert forfeit_cost([drawn, drawn], rules_from_spec("german")) == 3  # no bonus without the switch


def test_the_forfeiter_of_either_seat_loses_the_deal():
    line = {"index": 0, "seats": [1, 0], "winner": 0, "cluster": 0, "deals": [],
            "forfeit": {"seat": 1, "reason": "illegal", "detail": ""}}
    st = pairing_stats([line], 0, 1, ["A", "B"], "deal", True)  # A (player 0) sits in seat 1 and forfeits
    assert (st.deals, st.a_deal_wins, st.b_deal_wins, st.points_per_deal) == (1, 0, 1, -3.0)
    st = pairing_stats([line], 1, 0, ["B", "A"], "deal", True)
    assert (st.a_deal_wins, st.points_per_deal) == (1, 3.0)


def test_the_corrected_figure_counts_the_forfeited_deal_too():
    from agents.arena.corrected import corrected_figure

    forfeited = {"index": 0, "seats": [0, 1], "winner": 1, "cluster": 0, "deals": [],
                 "forfeit": {"seat": 0, "reason": "illegal", "detail": ""},
                 "aivat": {"value": "solver", "points": [0.0, 0.0]}}
    won = {"index": 1, "seats": [1, 0], "winner": 1, "cluster": 1, "forfeit": None,
           "deals": [{"winner": 1, "game_points": 1, "reason": "declared"}],
           "aivat": {"value": "solver", "points": [-0.5, 0.5]}}
    fig = corrected_figure([forfeited, won], 0, 1, "solver", "aivat-weight1")
    assert fig.points_per_deal == pytest.approx((-3 + 0.5) / 2)
    fig = corrected_figure([forfeited, won], 0, 1, "solver")  # two clusters: too few to fit weights
    assert fig.points_per_deal == pytest.approx((-3 + 1) / 2) and fig.used == "plain"
