"""The floor of the ladder: a uniformly random legal action."""

from __future__ import annotations

from sixtysix_env.actions import actions_of, random_action
from sixtysix_env.knowledge import PlayerView

from .base import BaseAgent, require_turn


class RandomAgent(BaseAgent):
    """Uniform over the legal actions, from its own seeded RNG."""

    name = "random"

    def act(self, view: PlayerView) -> int:
        require_turn(view)
        return random_action(view.legal_mask, self.rng)

    def action_probabilities(self, view: PlayerView) -> dict[int, float]:
        """The exact distribution :meth:`act` draws from (uniform over the legal actions), for the
        variance-reduced estimator (agents.evaluation.aivat)."""
        legal = actions_of(view.legal_mask)
        return {a: 1.0 / len(legal) for a in legal}
