"""Policy rollouts: a truncated leaf valued by playing the deal on with the network's policy.

The guided search's default leaf value is the critic's one forward
(:mod:`agents.search.guided`). With ``leaf=rollout`` each open leaf is played
on instead, in its determinized world, by both players' policy: the move the
rules play where one is obvious (:func:`agents.core.rules.obvious_action`), else
the policy's most likely legal move on that player's own view (so the
rollout reads no hidden card), until the deal is over or the talon is spent,
where the exact solver takes over. After a close with cards still face down
the rollout plays on to the end: the solver would see the closed cards.

Why: early in self-play the critic is the weakest part of the search; a
rollout's value is the result of the current policy itself followed by exact
play, so it improves as the policy does and it is exact near phase 2. All
open rollouts of a batch advance together, one policy forward per ply, so a
leaf costs a few forwards shared with the others, not one forward per move.
Deterministic: the greedy policy and the solver have no randomness.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from sixtysix_env.engine import OVER, State
from sixtysix_env.knowledge import view
from sixtysix_env.observation import OBS_SIZE, encode_into, mask_to_array

from ..core.guide_net import GuideNet
from ..core.rules import obvious_action
from .solver import Solver, terminal_value


def rollout_values(states: Sequence[State], player: int, net: GuideNet, solver: Solver,
                   exact: Callable[[State], bool]) -> np.ndarray:
    """The value for ``player`` (game points) of each state, played on by the policy until it is
    over or ``exact`` (the solver's leaves) holds; the states are left as they were."""
    worlds = [s.clone() for s in states]
    out = np.zeros(len(worlds))
    active = list(range(len(worlds)))
    while active:
        solver.check()  # with a deadline, stop in time
        going: list[int] = []  # rollouts still open after this ply
        asked: list[int] = []  # those that need the policy this ply
        views = []
        for i in active:
            s = worlds[i]
            if s.window == OVER:
                out[i] = terminal_value(s, player)
                continue
            if exact(s):
                v = solver.solve(s)
                out[i] = v if s.to_act == player else -v
                continue
            going.append(i)
            pv = view(s, s.to_act)
            a = obvious_action(pv)
            if a is None:
                asked.append(i)
                views.append(pv)
            else:
                s.apply_unchecked(a)
        if asked:
            obs = np.empty((len(asked), OBS_SIZE), dtype=np.float32)
            for k, pv in enumerate(views):
                encode_into(pv, obs[k])
            masks = mask_to_array(np.array([pv.legal_mask for pv in views], dtype=np.int64))
            logits = np.where(masks, net.policy_logits(obs), -np.inf)
            for i, a in zip(asked, logits.argmax(axis=1).tolist(), strict=True):
                worlds[i].apply_unchecked(a)
        active = going
    return out
