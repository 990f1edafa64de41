"""Bots a user writes outside the package (the plug-in tests enter them by import path)."""

from agents.base import BaseAgent, require_turn
from agents.core.rules import view_rule_action
from sixtysix_env.actions import random_action


class LowestBot(BaseAgent):
    """Always the lowest legal action id; ``bias`` is a constructor parameter to pass through."""

    name = "lowest"

    def __init__(self, seed=None, move_time=None, bias: int = 0) -> None:
        super().__init__(seed, move_time)
        self.bias = bias

    def act(self, view):
        require_turn(view)
        return (view.legal_mask & -view.legal_mask).bit_length() - 1


class RuleBot(BaseAgent):
    def act(self, view):
        require_turn(view)
        return view_rule_action(view) if self.rng.random() < 0.9 else random_action(view.legal_mask, self.rng)
