"""Determinized search: the building blocks of PIMC on one sampled world.

A *world* is a full engine state consistent with a player's view
(:func:`sixtysix_env.knowledge.sample_state`). On a world the game has
perfect information, so it is searched exactly once phase 2 applies (the
solver) and by heuristic playouts before that. ``pimc`` averages these
values over many worlds; ``ismcts`` uses the playouts at its leaves; the
``oracle`` searches the one true world; training's ``pimc-values`` teacher
labels a decision with the values of one world.
"""

from __future__ import annotations

from typing import Any

from sixtysix_env.actions import CLOSE, actions_of
from sixtysix_env.engine import CLOSE_RESPONSE, LEAD, OVER, State
from sixtysix_env.knowledge import PlayerView, sample_state

from ..core.rules import rollout_action
from .solver import Solver, terminal_value

CLOSE_MARGIN = 0.1  # game points a close must beat the alternatives by, per world on average


def solvable(state: State) -> bool:
    """The fast exact solver applies (phase 2, in a window it handles directly)."""
    w = state.window
    return not state.talon_open and w != CLOSE_RESPONSE and not (w == LEAD and state.marriage_suit >= 0)


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
    best: float = -4.0 if maximize else 4.0
    for a in actions_of(state.legal_mask()):
        child = state.clone()
        child.apply_unchecked(a)
        value = search_value(child, player, solver, depth - 1)
        if (value > best) if maximize else (value < best):
            best = value
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
            solver.check()  # with a deadline (``Solver.stop_when``), stop in time
            child = world.clone()
            child.apply_unchecked(a)
            values[a] = search_value(child, view.player, solver, depth - 1)
    if CLOSE in values:
        values[CLOSE] -= CLOSE_MARGIN
    return values
