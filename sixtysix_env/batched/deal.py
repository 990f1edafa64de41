"""Dealing: random decks in batches, and the next deal at finished tables.

Decks (and first dealers) come from a :class:`DeckPool` that a vectorised
Fisher-Yates fills in large batches from the engine's ``torch.Generator``;
each finished table takes the next one (see :mod:`.engine`).
"""

from __future__ import annotations

import torch

from ..cards import N_CARDS
from ..engine import LEAD, MATCH_TARGET, TALON_SIZE
from .lookup import Tables
from .state import BatchedState


def shuffled(t: Tables, generator: torch.Generator, device: torch.device, k: int) -> torch.Tensor:
    """``(15, k)``: k random deals. Rows 0-11: the talon in draw order (the
    first 12 swaps of a vectorised Fisher-Yates over the 24 cards); rows
    12, 13: the two hands as bitmasks (a uniformly random 6 of the other
    12 cards for player 0, by the index of one of the C(12, 6) subsets);
    row 14: a random first dealer."""
    dev, g = device, generator
    u = torch.rand((TALON_SIZE + 1, k), dtype=torch.float64, device=dev, generator=g)
    j = (u[:TALON_SIZE] * t.fy_span).long().clamp_(max=N_CARDS - 1 - t.fy_base) + t.fy_base
    deck = t.deck.repeat(1, k)
    for i in range(TALON_SIZE):
        ji = j[i : i + 1]
        di = deck[i : i + 1].clone()
        deck[i : i + 1] = deck.gather(0, ji)
        deck.scatter_(0, ji, di)
    subset = (u[TALON_SIZE] * len(t.subsets)).long().clamp_(max=len(t.subsets) - 1)
    rest = t.bit.index_select(0, deck[TALON_SIZE:].flatten()).view(TALON_SIZE, k)
    pick = (t.subsets.index_select(0, subset) >> t.fy_base[:TALON_SIZE]) & 1
    hand0 = (rest & -pick).sum(0)
    out = torch.empty((TALON_SIZE + 3, k), dtype=torch.int64, device=dev)
    out[:TALON_SIZE] = deck[:TALON_SIZE]
    out[TALON_SIZE] = hand0
    out[TALON_SIZE + 1] = rest.sum(0) - hand0
    out[TALON_SIZE + 2] = torch.randint(0, 2, (k,), device=dev, generator=g)
    return out


class DeckPool:
    """Shuffled decks (columns of :func:`shuffled`), made ``size`` at a time."""

    def __init__(self, t: Tables, generator: torch.Generator, device: torch.device, size: int) -> None:
        self.t, self.generator, self.device, self.size = t, generator, device, size
        self.clear()

    def clear(self) -> None:
        self._pool = torch.empty((TALON_SIZE + 3, 0), dtype=torch.int64, device=self.device)
        self._used = 0

    def take(self, k: int) -> torch.Tensor:
        """The next ``k`` decks, ``(15, k)``."""
        if self._pool.shape[1] - self._used < k:
            rest = self._pool[:, self._used :]
            fresh = shuffled(self.t, self.generator, self.device, max(self.size, k))
            self._pool = torch.cat((rest, fresh), 1)
            self._used = 0
        decks = self._pool[:, self._used : self._used + k]
        self._used += k
        return decks


def deal(s: BatchedState, idx: torch.Tensor, pool: DeckPool, inplace: bool) -> BatchedState:
    """The state with the next deal at tables ``idx`` (finished deals): the match's next deal
    or a new match. ``inplace`` (inside a step, whose tensors are its own) writes into the
    field tensors and returns ``s``; else the fields are replaced in a new state."""
    k = idx.numel()
    if k == 0:
        return s
    decks = pool.take(k)
    t = s.t
    ms = s.match_scores.index_select(1, idx)
    if s.episode == "match":
        fresh = (ms >= MATCH_TARGET).any(0)
    else:
        fresh = torch.ones(k, dtype=torch.bool, device=s.device)
    won = s.deal_winner.index_select(0, idx)
    dealer = torch.where(won >= 0, won, s.dealer.index_select(0, idx))
    dealer = torch.where(fresh, decks[TALON_SIZE + 2], dealer)
    talon = decks[:TALON_SIZE]
    trump_card = talon[-1]
    dealt = {"talon": talon, "trump": t.suit.index_select(0, trump_card), "dealer": dealer,
             "hands": decks[TALON_SIZE : TALON_SIZE + 2], "trump_card": trump_card, "to_act": 1 - dealer,
             "match_scores": ms * ~fresh}
    cleared = {**dict.fromkeys(("points", "tricks", "won", "played", "shown", "known", "void",
                                "closer_opp_tricks"), 0),
               **dict.fromkeys(("closed_by", "exchanged_by", "lead_card", "marriage_suit"), -1),
               "stock": TALON_SIZE, "window": LEAD, "can_declare": False}
    if inplace:
        for name, value in dealt.items():
            getattr(s, name).index_copy_(-1, idx, value)
        for name, fill in cleared.items():
            getattr(s, name).index_fill_(-1, idx, fill)
        return s
    new = {name: getattr(s, name).index_copy(-1, idx, value) for name, value in dealt.items()}
    new.update({name: getattr(s, name).index_fill(-1, idx, fill) for name, fill in cleared.items()})
    return s.replaced(**new)
