"""Random and heuristic bots for four-player partnership Sixty-Six.

Bots act on a seat's :class:`~sixtysix_env.four_knowledge.FourView` only, like the
two-player bots on a ``PlayerView`` (same ``reset``/``act`` interface).
"""

from __future__ import annotations

from sixtysix_env.actions import DECLARE, MARRIAGE, actions_of
from sixtysix_env.cards import POINTS
from sixtysix_env.four import partner_of, winning_card
from sixtysix_env.four_knowledge import FourView
from sixtysix_env.scoring import WIN_SCORE

from ..base import BaseAgent, require_turn


class FourRandomAgent(BaseAgent):
    """A uniformly random legal action."""

    name = "four-random"

    def act(self, view: FourView) -> int:
        require_turn(view)
        return self.rng.choice(actions_of(view.legal_mask))


def heuristic_action(view: FourView) -> int:
    """Declare with 66, show marriages (trumps first), lead from aces, and when
    following: give points to a winning partner, else win as cheaply as
    possible, else throw the cheapest card."""
    legal = actions_of(view.legal_mask)
    if DECLARE in legal and view.scores[view.team] >= WIN_SCORE:
        return DECLARE
    marriages = [a for a in legal if MARRIAGE <= a < MARRIAGE + 4]
    if marriages:
        trump = MARRIAGE + view.trump
        return trump if trump in marriages else marriages[0]
    cards = [a for a in legal if a < MARRIAGE]
    if not view.trick:  # leading
        aces = [c for c in cards if c % 6 == 5 and c // 6 != view.trump]
        if aces:
            return aces[0]
        return min(cards, key=lambda c: (c // 6 == view.trump, POINTS[c], c))
    win = winning_card(view.trick, view.trump)
    winner_seat = (view.leader + view.trick.index(win)) & 3
    if winner_seat == partner_of(view.player):
        return max(cards, key=lambda c: (c // 6 != view.trump, POINTS[c], -c))
    winning = [c for c in cards if winning_card([*view.trick, c], view.trump) == c]
    if winning:
        return min(winning, key=lambda c: (c // 6 == view.trump, c % 6, c))
    return min(cards, key=lambda c: (POINTS[c], c // 6 == view.trump, c))


class FourHeuristicAgent(BaseAgent):
    """:func:`heuristic_action`: deterministic simple play."""

    name = "four-heuristic"

    def act(self, view: FourView) -> int:
        require_turn(view)
        return heuristic_action(view)
