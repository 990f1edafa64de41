"""The one masked sampler of the project (:func:`sample_masked`: a policy's logits over the legal
actions, for every table at once, used by training on both engines and by the batched envs) and
uniformly random legal actions (:func:`random_actions`)."""

from __future__ import annotations

import torch

from .lookup import NOOP, normal_tensors


class NonFiniteLogitsError(ValueError):
    """A policy gave NaN or infinite logits for legal actions: nothing sensible can be sampled."""


def sample_masked(
    logits: torch.Tensor,
    masks: torch.Tensor,
    generator: torch.Generator | None = None,
    greedy: bool = False,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Actions drawn from softmax(logits) over the legal actions (the most
    likely one with ``greedy``) and their log-probabilities.

    Illegal logits go to the dtype's minimum, as in ``agents.core.nets.masked_logits``.
    Sampling inverts the cumulative distribution with one uniform number per
    row: several times faster on CPU than ``torch.multinomial``, and never an
    illegal action (an action of probability 0 adds nothing to the cumulative sum).
    A NaN or infinite logit of a legal action is a :class:`NonFiniteLogitsError`;
    float logits and a bool mask of another shape are a ``ValueError``.
    """
    if not logits.dtype.is_floating_point or masks.dtype != torch.bool or logits.dim() != 2 \
            or masks.shape != logits.shape:
        raise ValueError(f"sample_masked needs float logits and a bool mask of the same (N, A) shape, got "
                         f"{tuple(logits.shape)} {logits.dtype} and {tuple(masks.shape)} {masks.dtype}")
    if bool((masks & ~torch.isfinite(logits)).any()):
        rows = int((masks & ~torch.isfinite(logits)).any(1).sum())
        raise NonFiniteLogitsError(f"the policy's logits hold NaN or infinite values for legal actions "
                                   f"at {rows} of {logits.shape[0]} tables (non-finite weights or inputs)")
    logits = torch.where(masks, logits, torch.finfo(logits.dtype).min)
    logp = torch.log_softmax(logits, 1)
    if greedy:
        actions = logits.argmax(1)
    else:
        cdf = torch.softmax(logits, 1).cumsum(1)
        u = 1.0 - torch.rand((logits.shape[0], 1), device=logits.device, dtype=cdf.dtype, generator=generator)
        actions = (cdf < u * cdf[:, -1:]).sum(1).clamp(max=logits.shape[1] - 1)
    return actions, logp.gather(1, actions.unsqueeze(1)).squeeze(1)


def random_actions(legal: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
    """A uniformly random legal action per table from int64 legal bitmasks
    (``NOOP`` where none is legal): one random number r per table picks the
    r-th set bit, found in the low or high 16 bits with two lookup tables.
    Masks of another dtype are a ``ValueError``."""
    if legal.dtype != torch.int64:
        raise ValueError(f"random_actions needs int64 legal bitmasks, got dtype {legal.dtype}")
    rt = _random_tables(legal.device)
    low, high = legal & 0xFFFF, legal >> 16
    in_low = rt.popcount.index_select(0, low)
    total = in_low + rt.popcount.index_select(0, high)
    r = (torch.rand(legal.shape, device=legal.device, generator=generator) * total).long()
    upper = r >= in_low
    word = torch.where(upper, high, low)
    r = r - in_low * upper
    bit = rt.kth.index_select(0, (word << 4) | r.clamp(max=15)).long()
    return torch.where(total > 0, bit + (upper.long() << 4), NOOP)


class _RandomTables:
    @normal_tensors
    def __init__(self, device: torch.device) -> None:
        pop = torch.tensor([bin(x).count("1") for x in range(256)], dtype=torch.int64)
        words = torch.arange(1 << 16)
        self.popcount = (pop[words & 255] + pop[words >> 8]).to(device)  # of 16-bit words
        # kth[w * 16 + j]: the position of the j-th set bit of the 16-bit word w (0 past the last)
        bits = (words.unsqueeze(1) >> torch.arange(16)) & 1
        rank = bits.cumsum(1) - 1  # rank of each set bit
        kth = torch.zeros((1 << 16, 16), dtype=torch.uint8)
        w_idx, pos = bits.nonzero(as_tuple=True)
        kth[w_idx, rank[w_idx, pos]] = pos.to(torch.uint8)
        self.kth = kth.flatten().to(device)


_RANDOM_TABLES: dict[torch.device, _RandomTables] = {}


def _random_tables(device: torch.device) -> _RandomTables:
    if device not in _RANDOM_TABLES:
        _RANDOM_TABLES[device] = _RandomTables(device)
    return _RANDOM_TABLES[device]
