"""What every example in this folder shares: a policy as a bot, and one evaluation against the bots.

A policy from any RL library is a function ``policy(obs, mask)`` of the
AEC observation (:func:`sixtysix_env.observation.encode_with_mask` of the
bot's view) returning either its 32 logits or the action itself.
:class:`PolicyBot` plays its best legal action, so it works wherever a bot
is taken. :func:`evaluate` plays the trained policy AND the same network
untrained (its weights before the first update) against ``random`` and
``heuristic`` in the arena, on the same duplicate deals, and prints each
one's game points per deal with a 95% interval: per deal, not matches to 7,
so what training gained shows even where neither network wins a match.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from agents.arena import PairingStats, head_to_head
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


def evaluate(trained: Policy, untrained: Policy, games: int, name: str = "policy",
             opponents: Sequence[str] = ("random", "heuristic"), seed: int = 12345
             ) -> dict[str, dict[str, PairingStats]]:
    """Play ``games`` duplicate deals of the trained and the untrained policy against each opponent
    (the same deals for both); print one line each and return ``{opponent: {"trained", "untrained"}}``."""
    results: dict[str, dict[str, PairingStats]] = {}
    for opponent in opponents:
        results[opponent] = {}
        for label, policy in (("trained", trained), ("untrained", untrained)):
            st = head_to_head(PolicyBot(policy, name=f"{name}-{label}"), opponent, games=games, unit="deal",
                              seed=seed)
            lo, hi = st.points_per_deal_ci
            print(f"eval  {name} {label:<9} vs {opponent}: {st.points_per_deal:+.3f} game points per deal "
                  f"(95% CI {lo:+.3f} to {hi:+.3f}), deals won {st.deal_win_rate:.1%} over {st.games} deals",
                  flush=True)
            results[opponent][label] = st
    return results


def parse_args(cls: type, argv: list[str] | None = None, description: str = "") -> Any:
    """A settings dataclass ``cls`` from ``--kebab-case`` flags, one per field (its default and type)."""
    p = argparse.ArgumentParser(description=description)
    for name, default in vars(cls()).items():
        p.add_argument("--" + name.replace("_", "-"), type=str if default is None else type(default),
                       default=default)
    return cls(**vars(p.parse_args(argv)))
