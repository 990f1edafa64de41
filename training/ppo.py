"""The pieces of the PPO update: the loss terms.

All masking goes through :mod:`agents.core.nets` (illegal logits to the dtype's
minimum), as the one masked sampler does
(:func:`sixtysix_env.batched.sampling.sample_masked`), so training and play
cannot disagree on what the policy is.
"""

from __future__ import annotations

import numpy as np
import torch

from agents.core.nets import masked_distribution


def clipped_surrogate(ratio: torch.Tensor, adv: torch.Tensor, clip: float) -> torch.Tensor:
    """PPO's clipped policy loss; advantages are normalised per minibatch (as in CleanRL)."""
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    return torch.max(-adv * ratio, -adv * ratio.clamp(1 - clip, 1 + clip)).mean()


def value_distill_loss(logits: torch.Tensor, values: torch.Tensor, legal: torch.Tensor,
                       temp: float) -> torch.Tensor:
    """Mean squared error between ``temp * logits`` and ``values`` over the legal
    actions, each centred on its mean over them.

    Centring removes what all actions share (how lucky the sampled world
    was), which is most of a one-world label's noise, and leaves the logits'
    free constant alone. Its minimiser over many worlds is logits = mean
    values / temp, so the policy becomes softmax(PIMC's values / temp).
    """
    m = legal.to(logits.dtype)
    n = m.sum(1, keepdim=True).clamp(min=1.0)
    pred = logits * temp
    pred = pred - (pred * m).sum(1, keepdim=True) / n
    target = values - (values * m).sum(1, keepdim=True) / n
    return (((pred - target) ** 2) * m).sum() / m.sum().clamp(min=1.0)


def action_teacher_loss(logits: torch.Tensor, legal: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
    """Cross-entropy of the masked policy towards a teacher bot's actions."""
    return -masked_distribution(logits, legal).log_prob(actions).mean()


def explained_variance(returns: np.ndarray, values: np.ndarray) -> float:
    """1 - Var(returns - values) / Var(returns): how much of the returns the critic explains."""
    var = np.var(returns)
    return float(1 - np.var(returns - values) / var) if var > 0 else 0.0
