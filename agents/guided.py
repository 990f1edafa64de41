"""The ``guided`` bot: determinized search guided by a network (:mod:`agents.search.guided`).

Worlds weighted by how likely the opponent's moves were under the policy
network, the exact solver once the talon is closed or spent, the critic at
truncated leaves (or, with ``leaf=rollout``, the policy playing on until the
solver takes over), the policy as a prior. The network is a PPO checkpoint
with a full-state critic (:mod:`agents.core.guide_net`; by default the shipped
one). Obvious moves (:func:`agents.core.rules.obvious_action`) are played at once.

Every decision leaves :attr:`GuidedAgent.last_result` (a
:class:`~agents.search.guided.SearchResult`: the move, its move distribution
over the legal moves, each move's weighted mean value, the search's value,
the worlds searched); an obvious move's policy is one-hot and its value the
critic's over a few worlds. Self-play builds the bot as
``GuidedAgent(net=..., worlds=N, seed=s)``: without a budget the search is deterministic for the seed.

Anytime like ``pimc``: with ``move_time`` (or the game's limit) it searches
batches of worlds until the budget less a margin is used.
"""

from __future__ import annotations

import os

from sixtysix_env.knowledge import PlayerView

from .base import BaseAgent, require_turn
from .core.guide_net import GuideNet, load_guide
from .core.rules import obvious_action
from .search.beliefs import BETA, EPS
from .search.budget import Anytime, gc_paused
from .search.guided import CRITIC, PRIOR, TEMP, GuidedSearch, SearchResult, one_hot


class GuidedAgent(Anytime, BaseAgent):
    """Search guided by a network (see the module docstring)."""

    name = "guided"

    def __init__(self, seed: int | None = None, move_time: float | None = None, worlds: int = 64,
                 path: str | os.PathLike[str] | None = None, net: GuideNet | None = None, *,
                 depth: int = 1, infer: int = 1, beta: float = BETA, eps: float = EPS,
                 prior: float = PRIOR, temp: float = TEMP, leaf: str = CRITIC, sample: int = 0) -> None:
        super().__init__(seed, move_time)
        if worlds < 1:
            raise ValueError(f"worlds must be >= 1, got {worlds}")
        if net is not None and path is not None:
            raise ValueError("give a guide network or a checkpoint path, not both")
        self.worlds = worlds
        self.search = GuidedSearch(net if net is not None else load_guide(path), depth=depth,
                                   infer=bool(infer), beta=beta, eps=eps, prior=prior, temp=temp,
                                   leaf=leaf, sample=bool(sample))
        self.solver = self.search.solver  # hints read the exact values once the talon is spent
        self.model = self.search.model  # hints show it the person's views
        self.last_result: SearchResult | None = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.search.reset()
        self.last_result = None

    def release(self) -> None:
        self.solver.release()

    def move_distribution(self, view: PlayerView) -> dict[int, float] | None:
        """With ``sample=1``: the distribution the move at ``view`` was drawn from in this game
        (:mod:`agents.search.moves`), or None for a move not drawn."""
        return self.search.moves.get(view)

    def move_values(self, view: PlayerView) -> dict[int, float] | None:
        """With ``sample=1``: the search's weighted mean value of each move (game points for the player
        to act) at the drawn move's ``view``, or None."""
        return self.search.moves.get_values(view)

    def act(self, view: PlayerView) -> int:
        deadline = self.deadline()  # first: all of the move's work counts
        require_turn(view)
        a = obvious_action(view)
        if a is not None:
            self.search.observe(view)
            self.last_result = one_hot(a, self.search.position_value(view, self.rng))
            return a
        self.release()  # the last search's tables, if no hook freed them: inside this budget
        self.solver.stop_when(None if deadline is None else deadline.passed)
        with gc_paused():
            try:
                self.last_result = self.search.run(view, self.rng, self.worlds, deadline)
            finally:
                self.solver.stop_when(None)
                self.solver.set_aside()
        return self.last_result.action
