"""A CHEATING bot: it plays on the true engine state, hidden cards included.

Only for measurements, as an upper bound on what search with perfect
information can do; never a fair opponent. The play loop passes the true
state to agents whose ``requires_state`` is True. With the talon closed or
spent it plays the exact solver on the true state; with the talon open, a
minimax over the next ``depth`` decisions with heuristic playouts handing
over to the solver (:func:`agents.search.determinized.search_value`) — PIMC with the one
true world.
"""

from __future__ import annotations

from sixtysix_env.actions import DECLARE, actions_of
from sixtysix_env.engine import State
from sixtysix_env.knowledge import PlayerView
from sixtysix_env.knowledge import view as view_of

from .base import BaseAgent
from .core.rules import obvious_action
from .search.determinized import search_value, solvable
from .search.solver import Solver


class OracleAgent(BaseAgent):
    """Perfect-information search on the true state (cheats; see module docstring)."""

    name = "oracle"
    requires_state = True

    def __init__(self, seed: int | None = None, move_time: float | None = None, depth: int = 1) -> None:
        super().__init__(seed, move_time)
        if depth < 1:
            raise ValueError(f"depth must be >= 1, got {depth}")
        self.depth = depth
        self.solver = Solver()

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.solver.clear()

    def act(self, view: PlayerView, state: State | None = None) -> int:
        if state is None:
            raise ValueError("the oracle needs the true state: call act(view, state=state)")
        if view_of(state, view.player) != view:
            raise ValueError("the state passed to the oracle does not match the view")
        a = obvious_action(view)
        if a is not None:
            return a
        try:
            if solvable(state):
                return self.solver.best_action(state)[0]
            me = state.to_act
            values = {}
            for a in actions_of(state.legal_mask()):
                child = state.clone()
                child.apply_unchecked(a)
                values[a] = search_value(child, me, self.solver, self.depth - 1)
            return max(values, key=lambda a: (values[a], a == DECLARE, -a))
        finally:
            self.solver.clear()
