"""A rule-based player: what a sensible human does at each window.

It plays the shared rules of thumb (:func:`agents.core.rules.view_rule_action`)
in phase 1 and a closed phase 2. Once the talon is spent the view fixes
every card (the unseen cards are the opponent's hand), so it plays the rest
exactly with the solver.
"""

from __future__ import annotations

import random

from sixtysix_env.knowledge import PlayerView

from .base import BaseAgent, require_turn
from .core.rules import view_rule_action
from .search.solver import Solver


class HeuristicAgent(BaseAgent):
    """Rules of thumb in phase 1 and a closed phase 2; exact once the talon is spent."""

    name = "heuristic"

    def __init__(self, seed: int | None = None, move_time: float | None = None) -> None:
        super().__init__(seed, move_time)
        self.solver = Solver()

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.solver.clear()

    def act(self, view: PlayerView) -> int:
        require_turn(view)
        a = self.solver.endgame_action(view, self.rng)
        return view_rule_action(view) if a is None else a

    def action_probabilities(self, view: PlayerView) -> dict[int, float]:
        """Its move with probability 1: the play is deterministic given the view (the endgame world
        is the only one; ties go to the lowest action), so a fresh RNG leaves the bot's own untouched."""
        require_turn(view)
        a = Solver().endgame_action(view, random.Random(0))
        return {view_rule_action(view) if a is None else a: 1.0}
