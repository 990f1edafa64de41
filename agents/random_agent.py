"""The floor of the ladder: a uniformly random legal action."""

from __future__ import annotations

from sixtysix_env.actions import actions_of
from sixtysix_env.knowledge import PlayerView

from .base import BaseAgent


class RandomAgent(BaseAgent):
    """Uniform over the legal actions, from its own seeded RNG."""

    name = "random"

    def act(self, view: PlayerView) -> int:
        legal = actions_of(view.legal_mask)
        if not legal:
            raise ValueError(f"no legal action for player_{view.player}: it is not its turn")
        return self.rng.choice(legal)
