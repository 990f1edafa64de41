"""The masked policy distribution: illegal actions get probability exactly 0, never NaN."""

from __future__ import annotations

import numpy as np
import torch

from agents.core.nets import masked_distribution, masked_logits
from sixtysix_env.batched.sampling import sample_masked


def random_masks(rng: np.random.Generator, n: int) -> torch.Tensor:
    m = rng.random((n, 32)) < 0.15
    m[np.arange(n), rng.integers(0, 32, n)] = True  # at least one legal action per row
    return torch.from_numpy(m)


def test_sampling_never_picks_an_illegal_action() -> None:
    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    masks = random_masks(rng, 256)
    # Logits that strongly prefer the illegal actions: masking must still win.
    logits = torch.where(masks, torch.zeros(()), torch.full((), 1e4)).float()
    for _ in range(20):
        actions, logp = sample_masked(logits, masks)
        assert masks[torch.arange(256), actions].all()
        assert torch.isfinite(logp).all()


def test_illegal_probability_is_zero_and_entropy_finite() -> None:
    rng = np.random.default_rng(1)
    masks = random_masks(rng, 64)
    logits = torch.randn(64, 32, requires_grad=True)
    dist = masked_distribution(logits, masks)
    assert (dist.probs[~masks] == 0).all()
    torch.testing.assert_close(dist.probs.sum(-1), torch.ones(64))
    ent = dist.entropy()
    assert torch.isfinite(ent).all()
    # entropy of the masked policy is at most log(#legal), and gradients are NaN-free
    assert (ent <= torch.log(masks.sum(-1).float()) + 1e-5).all()
    (ent.sum() + dist.log_prob(dist.sample()).sum()).backward()
    assert torch.isfinite(logits.grad).all()


def test_single_legal_action_is_certain() -> None:
    mask = torch.zeros(1, 32, dtype=torch.bool)
    mask[0, 31] = True
    dist = masked_distribution(torch.randn(1, 32) * 100, mask)
    assert dist.sample().item() == 31
    assert abs(dist.log_prob(torch.tensor([31])).item()) < 1e-6
    assert dist.entropy().item() < 1e-6


def test_masked_logits_use_the_dtype_minimum() -> None:
    for dtype in (torch.float32, torch.float64):
        logits = torch.zeros(2, 32, dtype=dtype)
        mask = torch.zeros(2, 32, dtype=torch.bool)
        mask[:, 0] = True
        out = masked_logits(logits, mask)
        assert (out[:, 1:] == torch.finfo(dtype).min).all() and (out[:, 0] == 0).all()
