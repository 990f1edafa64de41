"""Perfect-information Monte Carlo (PIMC): average over sampled worlds.

For each decision the bot samples ``worlds`` full states consistent with its
view (:func:`sixtysix_env.knowledge.sample_state`), values every candidate
action in every world, and plays the best average. Valuing an action in one
world:

- talon closed or spent: the exact solver (:mod:`agents.search.solver`);
- talon open: a small minimax over the next ``depth`` decisions of both
  players, whose leaves are heuristic playouts (both sides play
  :func:`agents.core.rules.rollout_action`, which reads no hidden card) that
  hand over to the exact solver as soon as the talon is closed or spent.

Once the talon is spent the view fixes every card, so one world is exact.
Moves no search needs (a correct declaration, the exchange, a marriage, a
single legal move) are played at once (:func:`agents.core.rules.obvious_action`).
With ``infer`` the worlds respect what the opponent's leads revealed
(:mod:`agents.search.inference`); off by default, so ``pimc`` is plain PIMC.
PIMC is known to overrate information it will not have ("strategy fusion");
here that mostly makes closing look better than it is, hence the small
``close_margin`` a close must win by.

Anytime: with a per-move budget (``move_time`` in the spec, or the game's
limit handed over by the play loop; :mod:`agents.search.budget`) the bot
samples worlds until the budget less a safety margin is used, at least one,
instead of a fixed ``worlds``. Without a budget it is the fixed search.

With ``temp`` above 0 the bot draws its move from ``softmax(mean value /
temp)`` over the searched moves instead of playing the best, and declares
that distribution (:meth:`PimcAgent.move_distribution`) for the
variance-reduced estimator (:mod:`agents.evaluation`).
"""

from __future__ import annotations

from sixtysix_env.actions import DECLARE, actions_of
from sixtysix_env.knowledge import PlayerView

from .base import BaseAgent, require_turn
from .core.rules import obvious_action, view_rule_action
from .search.budget import MAX_UNITS, Anytime, Deadline, OutOfTime, gc_paused
from .search.determinized import world_action_values
from .search.inference import OpponentModel
from .search.moves import MoveLog, draw, softmax
from .search.solver import Solver


class PimcAgent(Anytime, BaseAgent):
    """PIMC over ``worlds`` sampled worlds, or as many as the budget allows (see the module docstring)."""

    name = "pimc"

    def __init__(
        self,
        seed: int | None = None,
        move_time: float | None = None,
        worlds: int = 64,
        depth: int = 1,
        infer: int = 0,
        temp: float = 0.0,
    ) -> None:
        super().__init__(seed, move_time)
        if worlds < 1 or depth < 0:
            raise ValueError(f"worlds must be >= 1 and depth >= 0, got {worlds}, {depth}")
        if not temp >= 0:
            raise ValueError(f"temp must be >= 0, got {temp}")
        self.temp = float(temp)
        self.moves = MoveLog()
        self.worlds = worlds
        self.last_worlds = 0  # worlds the last search used
        self.depth = depth
        self.solver = Solver()
        self.model: OpponentModel | None = OpponentModel() if infer else None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.solver.clear()
        self.moves.clear()
        if self.model is not None:
            self.model.reset()

    def move_distribution(self, view: PlayerView) -> dict[int, float] | None:
        """The distribution the move at ``view`` was drawn from in this game (``temp`` above 0), or
        None: a move not drawn (played by rule, or the best with ``temp`` 0)."""
        return self.moves.get(view)

    def move_values(self, view: PlayerView) -> dict[int, float] | None:
        """The mean values (game points for the player to act) the drawn move's distribution at
        ``view`` was formed from, or None."""
        return self.moves.get_values(view)

    def release(self) -> None:
        self.solver.release()

    def act(self, view: PlayerView) -> int:
        return self.act_within(view, self.deadline())  # the deadline first: all of the move's work counts

    def act_within(self, view: PlayerView, deadline: Deadline | None) -> int:
        """``act`` by a deadline that started earlier (``ismcts`` hands over its own in phase 2)."""
        require_turn(view)
        if self.model is not None:
            self.model.observe(view)
        a = obvious_action(view)
        if a is not None:
            return a
        self.release()  # the last search's tables, if no hook freed them: inside this budget
        self.solver.stop_when(None if deadline is None else deadline.passed)
        with gc_paused():  # until the tables are set aside
            try:
                return self._search(view, deadline)
            finally:
                self.solver.stop_when(None)
                self.solver.set_aside()  # O(1): ``release`` frees the tables later

    def _search(self, view: PlayerView, deadline: Deadline | None) -> int:
        if view.stock == 0:
            n = 1  # the view fixes every card: one world is exact
        else:
            n = self.worlds if deadline is None else MAX_UNITS
        legal = actions_of(view.legal_mask)
        totals = dict.fromkeys(legal, 0.0)
        model = self.model
        done = 0
        while done < n:
            world = model.sample(view, self.rng) if model is not None else None
            try:
                values = world_action_values(view, self.rng, self.solver, self.depth, world)
            except OutOfTime:  # only with a deadline: the world is dropped
                break
            for a, v in values.items():
                totals[a] += v
            done += 1
            if deadline is not None and not deadline.more():
                break
        self.last_worlds = done
        if not done:
            return view_rule_action(view)  # not even one world in time: the rules of thumb
        if self.temp > 0 and len(legal) > 1:
            means = {a: totals[a] / done for a in legal}
            probs = softmax(means.items(), self.temp)
            self.moves.record(view, probs, means)
            return draw(probs, self.rng)
        return max(legal, key=lambda a: (totals[a], a == DECLARE, -a))
