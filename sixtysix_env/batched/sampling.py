"""Uniformly random legal actions for every table at once (:func:`random_actions`)."""

from __future__ import annotations

import torch

from .lookup import NOOP, normal_tensors


def random_actions(legal: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
    """A uniformly random legal action per table from int64 legal bitmasks
    (``NOOP`` where none is legal): one random number r per table picks the
    r-th set bit, found in the low or high 16 bits with two lookup tables."""
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
