"""What every example in this folder shares: a trained policy as a bot, and its evaluation in the arena.

A policy from any RL library is a function ``policy(obs, mask)`` of the
AEC observation (:func:`sixtysix_env.observation.encode_with_mask` of the
bot's view) returning either its 32 logits or the action itself.
:class:`PolicyBot` plays its best legal action, so it
works wherever a bot is taken; :func:`evaluate` plays it against
``random`` and ``heuristic`` with the arena (duplicate deals) and prints the
win rates with their 95% intervals.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from agents.arena import head_to_head
from agents.base import BaseAgent
from sixtysix_env.knowledge import PlayerView
from sixtysix_env.observation import encode_with_mask

Policy = Callable[[np.ndarray, np.ndarray], "np.ndarray | int"]


class PolicyBot(BaseAgent):
    """A policy's greedy legal action: its action, or ``argmax`` of its logits over the legal actions."""

    def __init__(self, policy: Policy, name: str = "policy") -> None:
        super().__init__()
        self.policy, self.name = policy, name

    def act(self, view: PlayerView) -> int:
        obs, mask = encode_with_mask(view)
        out = np.asarray(self.policy(obs, mask))
        if out.ndim == 0:  # the policy chose an action itself
            return int(out)
        return int(np.argmax(np.where(mask > 0, out.astype(np.float64), -np.inf)))


def evaluate(bot: PolicyBot, games: int, opponents: Sequence[str] = ("random", "heuristic"),
             unit: str = "deal", seed: int = 12345) -> dict[str, float]:
    """Play ``games`` duplicate games against each opponent; print and return the win rates."""
    rates = {}
    for opponent in opponents:
        st = head_to_head(bot, opponent, games=games, unit=unit, seed=seed)
        lo, hi = st.win_rate_ci
        units = "matches" if unit == "match" else "deals"
        print(f"eval  {bot.name} vs {opponent}: win rate {st.win_rate:.1%} (95% CI {lo:.1%}-{hi:.1%}) "
              f"over {st.games} {units}, {st.points_per_deal:+.2f} game points per deal", flush=True)
        rates[opponent] = st.win_rate
    return rates


def parse_args(cls: type, argv: list[str] | None = None, description: str = "") -> Any:
    """A settings dataclass ``cls`` from ``--kebab-case`` flags, one per field (its default and type)."""
    p = argparse.ArgumentParser(description=description)
    for name, default in vars(cls()).items():
        p.add_argument("--" + name.replace("_", "-"), type=str if default is None else type(default),
                       default=default)
    return cls(**vars(p.parse_args(argv)))
