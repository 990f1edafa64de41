"""Dealing: random decks in batches, and the next deal at finished tables.

Decks (and first dealers) come from a :class:`DeckPool` that a vectorised
Fisher-Yates fills in large batches from the engine's ``torch.Generator``;
each finished table takes the next one (see :mod:`.engine`).
"""

from __future__ import annotations

import torch

from ..engine import LEAD
from .lookup import Lookup
from .state import BatchedState


def shuffled(t: Lookup, generator: torch.Generator, device: torch.device, k: int) -> torch.Tensor:
    """``(T + 3, k)``: k random deals of the preset's deck (``t.deck``, D cards; T the talon
    size, H the hand size; German: 24, 12, 6). Rows 0..T-1: the talon in draw order (the
    first T swaps of a vectorised Fisher-Yates over the D cards); rows T, T+1: the two
    hands as bitmasks (a uniformly random H of the other 2H cards for player 0, by the
    index of one of the C(2H, H) subsets); row T+2: a random first dealer."""
    dev, g = device, generator
    size, rest_size, n_cards = t.talon_size, 2 * t.hand_size, t.deck.shape[0]
    base = t.fy_base[:size]
    u = torch.rand((size + 1, k), dtype=torch.float64, device=dev, generator=g)
    j = (u[:size] * t.fy_span).long().clamp_(max=n_cards - 1 - base) + base
    deck = t.deck.repeat(1, k)
    for i in range(size):
        ji = j[i : i + 1]
        di = deck[i : i + 1].clone()
        deck[i : i + 1] = deck.gather(0, ji)
        deck.scatter_(0, ji, di)
    subset = (u[size] * len(t.subsets)).long().clamp_(max=len(t.subsets) - 1)
    rest = t.bit.index_select(0, deck[size:].flatten()).view(rest_size, k)
    pick = (t.subsets.index_select(0, subset) >> t.fy_base[:rest_size]) & 1
    hand0 = (rest & -pick).sum(0)
    out = torch.empty((size + 3, k), dtype=torch.int64, device=dev)
    out[:size] = deck[:size]
    out[size] = hand0
    out[size + 1] = rest.sum(0) - hand0
    out[size + 2] = torch.randint(0, 2, (k,), device=dev, generator=g)
    return out


class DeckPool:
    """Shuffled decks (columns of :func:`shuffled`), made ``size`` at a time."""

    def __init__(self, t: Lookup, generator: torch.Generator, device: torch.device, size: int) -> None:
        self.t, self.generator, self.device, self.size = t, generator, device, size
        self.clear()

    def clear(self) -> None:
        self._pool = torch.empty((self.t.talon_size + 3, 0), dtype=torch.int64, device=self.device)
        self._used = 0

    def take(self, k: int) -> torch.Tensor:
        """The next ``k`` decks, ``(T + 3, k)`` (German: 15)."""
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
    size = t.talon_size
    ms = s.match_scores.index_select(1, idx)
    if s.episode == "match":
        fresh = (ms >= t.match_target).any(0)
    else:
        fresh = torch.ones(k, dtype=torch.bool, device=s.device)
    won = s.deal_winner.index_select(0, idx)
    dealer = torch.where(won >= 0, won, s.dealer.index_select(0, idx))
    dealer = torch.where(fresh, decks[size + 2], dealer)
    talon = decks[:size]
    trump_card = talon[-1]
    dealt = {"talon": talon, "trump": t.suit.index_select(0, trump_card), "dealer": dealer,
             "hands": decks[size : size + 2], "trump_card": trump_card, "to_act": 1 - dealer,
             "match_scores": ms * ~fresh}
    cleared = {**dict.fromkeys(("points", "tricks", "won", "played", "shown", "known", "void",
                                "closer_opp_tricks"), 0),
               **dict.fromkeys(("closed_by", "exchanged_by", "lead_card", "marriage_suit"), -1),
               "stock": size, "window": LEAD, "can_declare": False}
    if t.held:  # the preset holds marriages back: none yet
        cleared.update(held_suits=0, held_at=0)
    if t.draw_bonus:  # 1 after a drawn deal of the match, however many in a row (V1.2); 0 in a new match
        dealt["bonus"] = ((won < 0) & ~fresh).long()
    if inplace:
        for name, value in dealt.items():
            getattr(s, name).index_copy_(-1, idx, value)
        for name, fill in cleared.items():
            getattr(s, name).index_fill_(-1, idx, fill)
        return s
    new = {name: getattr(s, name).index_copy(-1, idx, value) for name, value in dealt.items()}
    new.update({name: getattr(s, name).index_fill(-1, idx, fill) for name, fill in cleared.items()})
    return s.replaced(**new)
