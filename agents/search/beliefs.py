"""Policy-based inference: sampled worlds weighted by how likely the opponent's moves were in them.

Uniform worlds treat every unseen card as equally likely in the opponent's
hand; :mod:`agents.search.inference` removes worlds the opponent's own rules
of thumb exclude. This module goes further, as the Skat program Kermit does:
a world is weighted by the likelihood, under the policy network
(:class:`agents.guide_net.GuideNet`), of the moves the opponent was seen to
make, its view rebuilt in that world. Exactly what is used:

- **The card the opponent just led**, when the bot must follow it (in any
  talon phase) and the opponent showed no marriage in that lead window (a
  marriage forces the lead to its King or Queen: little to learn, and the
  window would be harder to rebuild). The opponent's decision is rebuilt in
  each sampled world by taking the lead back: the card returns to its hand,
  the window to its lead (an exchange or a close made before the lead stays
  made). The policy's probability ``p`` of that lead among the opponent's
  legal moves there gives the world the weight ``((1 - eps) p + eps / n)
  ** beta`` (``n`` legal moves): tempered by ``beta`` and floored by the
  uniform share ``eps``, so a wrong model never rules out the true world.
- **Evidence carried forward** as per-card beliefs: after each decision that
  used a lead, the weighted and unweighted frequencies of each unseen card in
  the opponent's hand over the sampled worlds give a per-card likelihood
  ratio (smoothed by :data:`PSEUDO`, clipped to ``[1/4, 4]``). At later
  decisions of the same deal a world's weight is multiplied by the product of
  those ratios over the opponent's unknown cards in it, raised to ``1 - d/k``
  (``d`` cards the opponent drew since, ``k`` unknown cards in its hand now):
  a card believed held then may since have been drawn, so old evidence fades
  as the hand turns over. This treats the cards as independent: it is a
  mean-field summary, not the exact posterior.

Not used: the opponent's follows (after a follow the trick is taken and
cards are drawn; rebuilding which card it drew is not done), its
declarations, closes, exchanges and marriages themselves (the rule-based
:class:`~agents.search.inference.OpponentModel` reads the last two), the
moves before the bot's first decision of a deal other than the lead it faces,
and anything from earlier deals. The bot sees only its own views, so this is
everything the views between its decisions tell it: :class:`Beliefs` keeps
the per-deal record.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from sixtysix_env.cards import N_CARDS
from sixtysix_env.engine import FOLLOW, LEAD, State
from sixtysix_env.knowledge import PlayerView, view
from sixtysix_env.observation import OBS_SIZE, encode_into, mask_to_array

BETA = 0.5  # tempering of the opponent's move likelihood (0: ignore the model, 1: trust it fully)
EPS = 0.1  # share of a uniformly random move mixed into the model: no world's weight is ever 0
PSEUDO = 0.05  # pseudo-frequency smoothing a card's frequency over few worlds
BELIEF_CLIP = math.log(4.0)  # a carried per-card likelihood ratio lies in [1/4, 4]

Logits = Callable[[np.ndarray], np.ndarray]


def move_likelihood(p: np.ndarray, n_legal: np.ndarray, beta: float, eps: float) -> np.ndarray:
    """The tempered, floored likelihood of moves the model gives probability ``p`` among ``n_legal``."""
    return ((1.0 - eps) * p + eps / n_legal) ** beta


def card_rows(masks: Sequence[int]) -> np.ndarray:
    """Card masks as rows of 0/1 (float32, shape (len(masks), 24))."""
    raw = np.asarray(masks, dtype="<u4").view(np.uint8).reshape(len(masks), 4)
    return np.unpackbits(raw, axis=1, bitorder="little")[:, :N_CARDS].astype(np.float32)


def before_lead(world: State, card: int) -> State:
    """``world`` (the bot to follow ``card``) just before the opponent led ``card``: a copy."""
    s = world.clone()
    leader = 1 - s.to_act
    bit = 1 << card
    s.hands[leader] |= bit
    s.played[leader] &= ~bit
    s.window = LEAD
    s.to_act = leader
    s.lead_card = -1
    s.marriage_suit = -1
    s.can_declare = s.tricks[0] + s.tricks[1] > 0  # the leader took the last trick, if there was one
    return s


def lead_likelihoods(worlds: Sequence[State], card: int, logits: Logits, beta: float,
                     eps: float) -> np.ndarray:
    """Each world's likelihood of the opponent's lead of ``card`` (module docstring), one batched forward."""
    obs = np.empty((len(worlds), OBS_SIZE), dtype=np.float32)
    masks = []
    for i, w in enumerate(worlds):
        v = view(before_lead(w, card), 1 - w.to_act)
        encode_into(v, obs[i])
        masks.append(v.legal_mask)
    legal = mask_to_array(np.asarray(masks, dtype=np.int64))
    z = np.where(legal, logits(obs).astype(np.float64), -np.inf)
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    return move_likelihood(p[:, card], legal.sum(axis=1), beta, eps)


class Beliefs:
    """The per-deal record of what the opponent's moves said (see the module docstring)."""

    __slots__ = ("_deal", "_last", "entries", "shown")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget everything (a new match; a new deal is detected by :meth:`observe`)."""
        self._deal: tuple[object, ...] = ()
        self._last = (0, -1)  # cards played and talon size at the last view
        self.shown = 0  # the opponent's marriages at the last view
        self.entries: list[tuple[int, np.ndarray]] = []  # (talon size then, per-card log ratios)

    def observe(self, v: PlayerView) -> int:
        """Read the bot's view at its decision; the card the opponent just led if that lead's
        decision can be rebuilt (the bot follows it, no marriage shown with it), else -1."""
        played = v.played[0] | v.played[1]
        deal = (v.dealer, v.trump, v.match_scores)
        last_played, last_stock = self._last
        if deal != self._deal or last_played & ~played or v.stock > last_stock >= 0:
            self.reset()
            self._deal = deal
        opp = 1 - v.player
        new_marriage = v.shown[opp] & ~self.shown
        self.shown = v.shown[opp]
        self._last = (played, v.stock)
        if v.window == FOLLOW and v.to_act == v.player and v.lead_card >= 0 and not new_marriage:
            return v.lead_card
        return -1

    def carried(self, v: PlayerView, unknown: np.ndarray) -> np.ndarray:
        """Log-weights of worlds from the carried beliefs; ``unknown``: each world's unknown
        opponent cards (:func:`card_rows`)."""
        k = v.opp_hand_size - v.opp_known.bit_count()
        total = np.zeros(N_CARDS)
        for stock, ratios in self.entries:
            drawn = (stock - v.stock) // 2
            if k > drawn:
                total += (1.0 - drawn / k) * ratios
        return unknown @ total

    def record(self, v: PlayerView, unknown: np.ndarray, likelihood: np.ndarray) -> None:
        """Keep what one lead said about each card, from the worlds searched (``unknown``) and
        their likelihoods of that lead."""
        if len(likelihood) < 2:
            return
        u = unknown.mean(axis=0)
        m = (likelihood / likelihood.sum()) @ unknown
        ratios = np.clip(np.log((m + PSEUDO) / (u + PSEUDO)), -BELIEF_CLIP, BELIEF_CLIP)
        self.entries.append((v.stock, ratios))
