"""The ``ppo`` bot: a trained policy network, one forward pass per decision.

It plays the networks of a checkpoint (:mod:`agents.core.checkpoint`): the
policy, and where the checkpoint has them the phase networks
(:class:`agents.core.nets.PhaseNet`) once the talon is spent and after a close.
How much it is helped is its ``assist`` mode (:data:`agents.core.rules.ASSIST_MODES`).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from sixtysix_env.actions import N_ACTIONS
from sixtysix_env.knowledge import PlayerView
from sixtysix_env.observation import encode, mask_to_array, unseen_cards

from .base import BaseAgent
from .core import checkpoint
from .core.nets import PhaseNet, PolicyNet, numpy_forward, numpy_layers
from .core.rules import assist_mode, is_closed_view, is_endgame_view, scripted_action
from .search.solver import Solver


class PPOAgent(BaseAgent):
    """Plays a trained policy network: one forward pass per decision.

    ``endgame``: an optional :class:`PhaseNet` that replaces the policy
    once the talon is spent; ``closed``: one that replaces it after a close
    while the talon still holds cards (still one forward pass, no search).
    ``greedy=True`` picks the most probable legal action; otherwise it samples
    from the masked policy with the agent's own RNG (reseeded by ``reset``).
    ``assist="full"`` (the default, or ``True``) plays, like the search bots,
    the obvious moves (a correct declaration, the trump-nine exchange, a
    marriage) and, like every bot of the ladder, the exact solver's move once
    the talon is spent, when the view fixes every card
    (:func:`agents.core.rules.scripted_action`); the
    network makes every other decision. ``assist="rules"`` plays only the
    obvious moves by rule: no search at all. With ``assist="none"`` (or
    ``False``) the network plays every move.
    The forward pass runs in numpy on a copy of the weights, which is several
    times faster than torch for a single observation and thread-free.
    """

    def __init__(self, policy: PolicyNet, *, greedy: bool = True, seed: int | None = None,
                 name: str = "ppo", assist: bool | str = "full",
                 endgame: PhaseNet | None = None, closed: PhaseNet | None = None) -> None:
        super().__init__(seed)
        self.name = name
        self.greedy = greedy
        self.assist = assist_mode(assist)
        self.solver = Solver()
        self.np_rng = np.random.default_rng(seed)
        self.layers = numpy_layers(policy.net)
        self.endgame_layers = numpy_layers(endgame.net) if endgame is not None else None
        self.closed_layers = numpy_layers(closed.net) if closed is not None else None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.np_rng = np.random.default_rng(seed)

    def logits(self, view: PlayerView) -> np.ndarray:
        """Unmasked logits for ``view`` (float32, shape (32,)): the endgame
        network's once the talon is spent, the closed-talon network's after a
        close, if there is one; else the policy's."""
        x = encode(view)
        phase_layers = self.endgame_layers if is_endgame_view(view) else \
            self.closed_layers if is_closed_view(view) else None
        if phase_layers is not None:
            return numpy_forward(phase_layers, np.concatenate([x, unseen_cards(x)]))
        return numpy_forward(self.layers, x)

    def act(self, view: PlayerView) -> int:
        legal = view.legal_mask
        if not legal:
            raise ValueError(f"player_{view.player} has no legal action in this view (not its turn?)")
        if self.assist != "none":
            a = scripted_action(view, self.solver, self.rng, self.assist)
            if a is not None:
                return a
        mask = mask_to_array(legal)
        z = np.where(mask, self.logits(view).astype(np.float64), -np.inf)
        if self.greedy:
            return int(np.argmax(z))
        p = np.exp(z - z.max())
        p /= p.sum()
        return int(self.np_rng.choice(N_ACTIONS, p=p))


def load_ppo_agent(path: str | os.PathLike[str] | None = None, seed: int | None = None, *,
                   greedy: bool = True, assist: bool | str = "full",
                   move_time: float | None = None) -> PPOAgent:
    """A :class:`PPOAgent` from a checkpoint file; ``None``: the shipped
    :data:`agents.core.checkpoint.DEFAULT_CHECKPOINT`. Bad files raise ``ValueError`` naming them."""
    path = checkpoint.DEFAULT_CHECKPOINT if path is None else Path(path)
    ckpt = checkpoint.load(path)
    return PPOAgent(checkpoint.policy_from(ckpt, path), greedy=greedy, seed=seed, assist=assist,
                    endgame=checkpoint.phase_net_from(ckpt, path, "spent"),
                    closed=checkpoint.phase_net_from(ckpt, path, "closed"))
