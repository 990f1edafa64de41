"""Evaluating a team network: duplicate deals against a bot team, with a 95% interval.

Deal ``k`` (card seed ``derive_seed(seed, "team-eval-deal", k)``, dealer
``k % 4``) is played twice, the network's team in seats 0/2 and then in 1/3,
so the cards' luck cancels. The statistic is the network team's net game
points per deal (its points minus the other team's) with the cluster t
interval over duplicate pairs (:func:`agents.arena.stats.ratio_interval`),
the statistic of ``sixtysix arena --players 4``. The network plays greedily
(:class:`agents.four.net.FourNetAgent`), as ``net:PATH`` does.
"""

from __future__ import annotations

from dataclasses import dataclass

from agents.arena.stats import ratio_interval
from agents.four import make_four_agent
from agents.four.net import FourNetAgent
from agents.nets import PolicyNet, numpy_layers
from sixtysix_env.four import team_of
from sixtysix_env.four_deals import deal_four
from sixtysix_env.four_knowledge import view_four
from sixtysix_env.seeding import derive_seed


@dataclass(frozen=True)
class TeamResult:
    """The network team's results against ``opponent`` over ``pairs`` duplicate deals."""

    opponent: str
    pairs: int
    points: int  # game points won by the network's team
    opponent_points: int
    per_deal: float  # net game points per deal played
    ci: tuple[float, float]

    def line(self) -> str:
        lo, hi = self.ci
        return (f"vs {self.opponent}: {self.per_deal:+.3f} pts/deal, 95% CI [{lo:+.3f}, {hi:+.3f}] "
                f"({self.pairs} duplicate deals, {2 * self.pairs} plays; game points {self.points} to "
                f"{self.opponent_points})")


def duplicate_eval(policy: PolicyNet, opponent: str, pairs: int, seed: int) -> TeamResult:
    """``policy``'s team against the bot team ``opponent`` over ``pairs`` duplicate deals."""
    net = FourNetAgent(numpy_layers(policy.net))
    bots = [make_four_agent(opponent, derive_seed(seed, "team-eval-bot", s)) for s in range(4)]
    won, lost, nets = 0, 0, []
    for k in range(pairs):
        start = deal_four(derive_seed(seed, "team-eval-deal", k), dealer=k % 4)
        net_points = 0
        for net_team in (0, 1):
            s = start.clone()
            while not s.is_over:
                bot = net if team_of(s.to_act) == net_team else bots[s.to_act]
                s.apply(bot.act(view_four(s, s.to_act)))
            r = s.result
            if r is not None and r.winner is not None:
                sign = 1 if r.winner == net_team else -1
                won, lost = (won + r.game_points, lost) if sign > 0 else (won, lost + r.game_points)
                net_points += sign * r.game_points
        nets.append(net_points)
    per_deal, lo, hi = ratio_interval(nets, [2] * len(nets))
    return TeamResult(opponent, pairs, won, lost, per_deal, (lo, hi))
