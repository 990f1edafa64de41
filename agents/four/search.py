"""A determinized search bot for four-player partnership Sixty-Six (PIMC).

For every legal action it samples ``worlds`` deals consistent with its seat's
view (:func:`~sixtysix_env.four_knowledge.sample_four`), plays the action and then the
rest of the deal with :func:`~agents.four.bots.heuristic_action` for all four
seats, and keeps the action with the best mean team result (the deal's game
points, signed for its team). Declaring with 66 is always taken.
"""

from __future__ import annotations

from sixtysix_env.actions import DECLARE, actions_of
from sixtysix_env.four import FourState
from sixtysix_env.four_knowledge import FourView, sample_four, view_four
from sixtysix_env.scoring import WIN_SCORE

from ..base import BaseAgent, require_turn
from .bots import heuristic_action


def rollout(state: FourState) -> None:
    """Play ``state`` to the end of the deal with the heuristic for every seat."""
    while not state.is_over:
        state.apply(heuristic_action(view_four(state, state.to_act)))


def team_value(state: FourState, team: int) -> float:
    r = state.result
    if r is None or r.winner is None:
        return 0.0
    return float(r.game_points if r.winner == team else -r.game_points)


class FourSearchAgent(BaseAgent):
    """Perfect-information Monte Carlo over sampled deals; see the module docstring."""

    name = "four-search"

    def __init__(self, seed: int | None = None, worlds: int = 12, move_time: float | None = None) -> None:
        super().__init__(seed, move_time)
        if worlds < 1:
            raise ValueError(f"worlds must be >= 1, got {worlds}")
        self.worlds = worlds

    def act(self, view: FourView) -> int:
        require_turn(view)
        legal = actions_of(view.legal_mask)
        if len(legal) == 1:
            return legal[0]
        if DECLARE in legal and view.scores[view.team] >= WIN_SCORE:
            return DECLARE
        totals = dict.fromkeys(legal, 0.0)
        for _ in range(self.worlds):
            world = sample_four(view, self.rng)
            for a in legal:
                s = world.clone()
                s.apply(a)
                rollout(s)
                totals[a] += team_value(s, view.team)
        return max(legal, key=lambda a: (totals[a], -a))
