"""Perfect-information Monte Carlo (PIMC): average over sampled worlds.

For each decision the bot samples ``worlds`` full states consistent with its
view (:func:`sixtysix_env.knowledge.sample_state`), values every candidate
action in every world, and plays the best average. Valuing an action in one
world:

- talon closed or spent: the exact solver (:mod:`agents.solver`);
- talon open: a small minimax over the next ``depth`` decisions of both
  players, whose leaves are heuristic playouts (both sides play
  :func:`agents.heuristic.rollout_action`, which reads no hidden card) that
  hand over to the exact solver as soon as the talon is closed or spent.

Once the talon is spent the view fixes every card, so one world is exact.
Moves no search needs (a correct declaration, the exchange, a marriage, a
single legal move) are played at once (:func:`agents.heuristic.obvious_action`).
With ``infer`` the worlds respect what the opponent's leads revealed
(:mod:`agents.inference`); off by default, so ``pimc`` is plain PIMC.
PIMC is known to overrate information it will not have ("strategy fusion");
here that mostly makes closing look better than it is, hence the small
``close_margin`` a close must win by.
"""

from __future__ import annotations

from typing import Any

from sixtysix_env.actions import CLOSE, DECLARE, actions_of
from sixtysix_env.engine import CLOSE_RESPONSE, LEAD, OVER, State
from sixtysix_env.knowledge import PlayerView, sample_state

from .base import BaseAgent, require_turn
from .heuristic import obvious_action, rollout_action
from .inference import OpponentModel
from .solver import Solver, is_phase2, terminal_value

CLOSE_MARGIN = 0.1  # game points a close must beat the alternatives by, per world on average


def solvable(state: State) -> bool:
    """The fast exact solver applies (phase 2, in a window it handles directly)."""
    w = state.window
    return is_phase2(state) and w != CLOSE_RESPONSE and not (w == LEAD and state.marriage_suit >= 0)


def playout_value(state: State, player: int, solver: Solver) -> int:
    """Value for ``player``: heuristic play until the solver can take over.

    Mutates ``state`` (pass a clone).
    """
    s = state
    while True:
        if s.window == OVER:
            return terminal_value(s, player)
        if solvable(s):
            v = solver.solve(s)
            return v if s.to_act == player else -v
        s.apply_unchecked(rollout_action(s))


def search_value(state: State, player: int, solver: Solver, depth: int) -> float:
    """Minimax over ``depth`` more decisions, playouts below; value for ``player``."""
    if state.window == OVER:
        return terminal_value(state, player)
    if solvable(state):
        v = solver.solve(state)
        return v if state.to_act == player else -v
    if depth <= 0:
        return playout_value(state.clone(), player, solver)
    maximize = state.to_act == player
    best = -4.0 if maximize else 4.0
    for a in actions_of(state.legal_mask()):
        child = state.clone()
        child.apply_unchecked(a)
        v = search_value(child, player, solver, depth - 1)
        if (v > best) if maximize else (v < best):
            best = v
    return best


def world_action_values(
    view: PlayerView, rng: Any, solver: Solver, depth: int = 1, world: State | None = None
) -> dict[int, float]:
    """PIMC's values of every legal action in ONE world sampled from ``view``
    (or in ``world``, one the caller sampled).

    Game points for the player to act, a close already charged
    ``CLOSE_MARGIN``. PIMC plays the best average of these over its worlds;
    averaged over many positions they are also an unbiased training signal
    for PIMC's averaged values (``train.py``'s ``pimc-values`` teacher).
    The solver's tables are kept (they help the next world of the same
    decision); the caller clears them.
    """
    if world is None:
        world = sample_state(view, rng)
    if solvable(world):
        values = {a: float(v) for a, v in solver.action_values(world).items()}
    else:
        values = {}
        for a in actions_of(view.legal_mask):
            child = world.clone()
            child.apply_unchecked(a)
            values[a] = search_value(child, view.player, solver, depth - 1)
    if CLOSE in values:
        values[CLOSE] -= CLOSE_MARGIN
    return values


class PimcAgent(BaseAgent):
    """PIMC over ``worlds`` sampled worlds (see the module docstring)."""

    name = "pimc"

    def __init__(
        self,
        seed: int | None = None,
        move_time: float | None = None,
        worlds: int = 64,
        depth: int = 1,
        infer: int = 0,
    ) -> None:
        super().__init__(seed, move_time)
        if worlds < 1 or depth < 0:
            raise ValueError(f"worlds must be >= 1 and depth >= 0, got {worlds}, {depth}")
        self.worlds = worlds
        self.depth = depth
        self.solver = Solver()
        self.model: OpponentModel | None = OpponentModel() if infer else None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.solver.clear()
        if self.model is not None:
            self.model.reset()

    def act(self, view: PlayerView) -> int:
        require_turn(view)
        if self.model is not None:
            self.model.observe(view)
        a = obvious_action(view)
        if a is not None:
            return a
        try:
            return self._search(view)
        finally:
            self.solver.clear()

    def _search(self, view: PlayerView) -> int:
        n = 1 if view.stock == 0 else self.worlds
        legal = actions_of(view.legal_mask)
        totals = dict.fromkeys(legal, 0.0)
        model = self.model
        for _ in range(n):
            world = model.sample(view, self.rng) if model is not None else None
            for a, v in world_action_values(view, self.rng, self.solver, self.depth, world).items():
                totals[a] += v
        return max(legal, key=lambda a: (totals[a], a == DECLARE, -a))
