"""Policy-based inference: sampled worlds weighted by how likely the opponent's moves were in them.

Uniform worlds treat every unseen card as equally likely in the opponent's
hand; :mod:`agents.search.inference` removes worlds the opponent's own rules
of thumb exclude. This module goes further, as the Skat program Kermit does:
a world is weighted by the likelihood, under the policy network
(:class:`agents.core.guide_net.GuideNet`), of the moves the opponent was seen to
make, its view rebuilt in that world. A move the model gives probability
``p`` among the opponent's ``n`` legal moves there gives the world the
weight ``((1 - eps) p + eps / n) ** beta``: tempered by ``beta`` and
floored by the uniform share ``eps``, so a wrong model never rules out the
true world. Exactly what is used:

- **The card the opponent just led**, when the bot must follow it (in any
  talon phase) and the opponent showed no marriage in that lead window (a
  marriage forces the lead to its King or Queen: little to learn, and the
  window would be harder to rebuild; one shown before a close the bot then
  answered is in the same window). The opponent's decision is rebuilt in
  each sampled world by taking the lead back: the card returns to its hand,
  the window to its lead (an exchange or a close made before the lead stays
  made; the close is weighed on its own, next).
- **The close before that lead**: when the opponent closed the talon since
  the bot's previous view of the deal (the talon open then, or no trick
  played yet) and at most one trick was played since that view (a bot that
  sees only some of its views, as a hint bot, cannot place an older close
  in its window), the close is a decision of its own, rebuilt in each world
  from the lead's rebuilt state by reopening the talon: the window is its
  lead (the bot holds a full hand: the opponent drew, then closed) or the
  draw after the trick it won (the bot's hand is a card short: it closed
  instead of drawing); an exchange the bot made in answer to the close
  (where the preset lets it) is taken back. The close's likelihood
  multiplies the lead's. Not used when the opponent also exchanged since
  the bot's previous view (the exchange may have come first, in the same
  window).
- **The card the opponent followed the bot's lead with**, when the bot led
  that card after a search of its worlds (not a move played by rule, not
  once the talon is spent, where the view fixes every card). The searched
  worlds (at most :data:`FOLLOW_WORLDS`) are kept with the bot's lead
  played in them: the opponent to follow. At the bot's next view of the
  same deal the completed trick (the new cards in the trick piles: the
  bot's lead and one card of the opponent's) names the follow, and each
  kept world in which the opponent could play that card gets the follow's
  likelihood (one batched forward); worlds where it could not are dropped
  (it surely could), and the evidence is used only if at least two remain.
- **Evidence carried forward** as per-card beliefs: after each lead or
  follow used, the weighted and unweighted frequencies of each unseen card
  in the opponent's hand over the worlds (those searched for a lead, those
  kept where the follow was possible) give a per-card likelihood ratio
  (smoothed by :data:`PSEUDO`, clipped to ``[1/4, 4]``), with the talon
  size when the move was made. At later decisions of the same deal a
  world's weight is multiplied by the product of those ratios over the
  opponent's unknown cards in it, raised to ``1 - d/k`` (``d`` cards the
  opponent drew since, ``k`` unknown cards in its hand now): a card
  believed held then may since have been drawn, so old evidence fades as
  the hand turns over. This treats the cards as independent: it is a
  mean-field summary, not the exact posterior. A lead is weighed when the
  bot follows it; a follow (with :meth:`Beliefs.settle_follow`) at the
  bot's next view, before that decision's worlds are weighted.

Not used: its marriages and exchanges themselves and marriage leads (the
rule-based :class:`~agents.search.inference.OpponentModel` reads the first
two), its declarations, draws (continuing instead of closing), close
responses, follows of leads the bot played by rule, the moves before the
bot's first decision of a deal other than the lead it faces and a close
before it, and anything from earlier deals. ``Beliefs(extended=False)``
(a test and bench switch) uses the leads alone. The bot sees only its own
views, so this is what the views between its decisions tell it:
:class:`Beliefs` keeps the per-deal record.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from sixtysix_env.actions import CLOSE
from sixtysix_env.cards import N_CARDS
from sixtysix_env.engine import CLOSE_RESPONSE, DRAW, FOLLOW, LEAD, State
from sixtysix_env.knowledge import PlayerView, view
from sixtysix_env.observation import OBS_SIZE, encode_into, mask_to_array

BETA = 0.5  # tempering of the opponent's move likelihood (0: ignore the model, 1: trust it fully)
EPS = 0.1  # share of a uniformly random move mixed into the model: no world's weight is ever 0
PSEUDO = 0.05  # pseudo-frequency smoothing a card's frequency over few worlds
BELIEF_CLIP = math.log(4.0)  # a carried per-card likelihood ratio lies in [1/4, 4]
FOLLOW_WORLDS = 128  # searched worlds kept to weigh the opponent's follow of the bot's lead (~2.5 ms)

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


def before_close(lead: State, window: int, face_up: int = -1) -> State:
    """``lead`` (:func:`before_lead`, the talon closed by the player to act) just before that
    player closed it, in ``window`` (LEAD, or DRAW: the trick it won, nothing drawn yet): a copy.
    ``face_up``: the face-up card before the other player exchanged in answer to the close (-1: it
    did not); the exchange is taken back."""
    s = lead.clone()
    s.closed_by = -1
    s.closer_opp_tricks = 0
    s.window = window
    if window == DRAW:
        s.can_declare = True  # it has just taken a trick
    if face_up >= 0:
        other = 1 - s.to_act
        s.hands[other] ^= (1 << s.trump_card) | (1 << face_up)
        known = s.known[:]  # replaced, not mutated: clones share it
        known[other] &= ~(1 << face_up)
        s.known = known
        s.trump_card = face_up
        s.exchanged_by = -1
    return s


def move_likelihoods(states: Sequence[State], action: int, logits: Logits, beta: float,
                     eps: float) -> np.ndarray:
    """Each state's likelihood of ``action`` by its player to act (module docstring), one batched
    forward; ``action`` must be legal in every state."""
    obs = np.empty((len(states), OBS_SIZE), dtype=np.float32)
    masks = []
    for i, s in enumerate(states):
        v = view(s, s.to_act)
        encode_into(v, obs[i])
        masks.append(v.legal_mask)
    legal = mask_to_array(np.asarray(masks, dtype=np.int64))
    z = np.where(legal, logits(obs).astype(np.float64), -np.inf)
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    return move_likelihood(p[:, action], legal.sum(axis=1), beta, eps)


def lead_likelihoods(worlds: Sequence[State], card: int, logits: Logits, beta: float, eps: float,
                     close_window: int = -1, face_up: int = -1) -> np.ndarray:
    """Each world's likelihood of the opponent's lead of ``card``, times that of its close in
    ``close_window`` when not -1 (:attr:`Beliefs.close_window`, ``face_up``: :func:`before_close`)."""
    leads = [before_lead(w, card) for w in worlds]
    lik = move_likelihoods(leads, card, logits, beta, eps)
    if close_window >= 0:
        closes = [before_close(s, close_window, face_up) for s in leads]
        lik = lik * move_likelihoods(closes, CLOSE, logits, beta, eps)
    return lik


@dataclass(frozen=True)
class Follow:
    """Worlds in which the opponent is to follow the bot's lead ``card`` (:meth:`Beliefs.expect_follow`),
    their unknown opponent cards (:func:`card_rows`), the cards in the trick piles and the talon size
    then; once seen, ``card`` is the opponent's follow (:attr:`Beliefs.follow`)."""

    worlds: list[State]
    unknown: np.ndarray
    card: int
    won: int
    stock: int


class Beliefs:
    """The per-deal record of what the opponent's moves said (see the module docstring)."""

    __slots__ = ("_close", "_deal", "_exchanged", "_last", "_marriage", "_open", "close_face_up",
                 "close_window", "entries", "extended", "follow", "pending", "shown")

    def __init__(self, extended: bool = True) -> None:
        self.extended = extended  # False: the opponent's leads alone (tests, bench/bench_beliefs.py)
        self.reset()

    def reset(self) -> None:
        """Forget everything (a new match; a new deal is detected by :meth:`observe`)."""
        self._deal: tuple[object, ...] = ()
        self._last = (0, -1)  # cards played and talon size at the last view
        self._open = True  # the talon was open at the last view
        self._exchanged = False  # the opponent had exchanged at the last view
        # A close the bot answered at the last view: its window, exchanged_by and the face-up card then.
        self._close: tuple[int, int, int] | None = None
        self.shown = 0  # the opponent's marriages at the last view
        self._marriage = 0  # a marriage new at the last view, the bot answering a close in its window
        self.entries: list[tuple[int, np.ndarray]] = []  # (talon size then, per-card log ratios)
        self.close_window = -1  # the window of the opponent's close before the lead returned, or -1
        self.close_face_up = -1  # the face-up card before the bot exchanged in answer to it, or -1
        self.pending: Follow | None = None  # the bot's searched lead, until the next view
        self.follow: Follow | None = None  # the opponent's follow seen at this view, until settled

    def observe(self, v: PlayerView) -> int:
        """Read the bot's view at its decision; the card the opponent just led if that lead's
        decision can be rebuilt (the bot follows it, no marriage shown with it), else -1. Also sets
        :attr:`close_window` and :attr:`follow` (module docstring)."""
        played = v.played[0] | v.played[1]
        deal = (v.dealer, v.trump, v.match_scores)
        last_played, last_stock = self._last
        if deal != self._deal or last_played & ~played or v.stock > last_stock >= 0:
            self.reset()
            self._deal = deal
            last_played, last_stock = self._last
        fresh = (played & ~last_played).bit_count()  # cards played since the last view
        opp = 1 - v.player
        new_marriage = v.shown[opp] & ~self.shown | self._marriage
        answering = v.window == CLOSE_RESPONSE and v.to_act == v.player  # the opponent's lead window goes on
        self._marriage = new_marriage if answering else 0
        new_exchange = v.exchanged_by == opp and not self._exchanged
        was_open = self._open if last_stock >= 0 else v.tricks[0] + v.tricks[1] == 0
        self.shown = v.shown[opp]
        self._exchanged = v.exchanged_by == opp
        self._open = v.talon_open
        self._last = (played, v.stock)
        self.follow = self._followed(v) if self.extended else None
        self.pending = None
        answered, self._close = self._close, None
        close, face_up = -1, -1  # the window of a close the opponent made since the last view, if usable
        if v.closed_by == opp and v.stock and was_open and not new_exchange and fresh <= 3:
            short = v.rules.hand_size - v.hand.bit_count()  # 0: the opponent drew, then closed
            close = LEAD if short == 0 else DRAW if short == 1 else -1
        elif answered is not None and fresh <= 1:  # the bot answered the close; the closer led
            close = answered[0]
            if v.exchanged_by != answered[1]:
                face_up = answered[2]  # the bot exchanged in answer
        if close >= 0 and answering:
            self._close = (close, v.exchanged_by, v.trump_card)
        self.close_window, self.close_face_up = -1, -1
        if v.window == FOLLOW and v.to_act == v.player and v.lead_card >= 0 and not new_marriage:
            if self.extended:
                self.close_window, self.close_face_up = close, face_up
            return v.lead_card
        return -1

    def _followed(self, v: PlayerView) -> Follow | None:
        """The pending lead's worlds where the opponent could play the card it followed with, if
        the view shows that trick (:attr:`follow`)."""
        p = self.pending
        if p is None:
            return None
        lead = 1 << p.card
        new = (v.won[0] | v.won[1]) & ~p.won
        rest = new & ~lead
        if not new & lead or rest.bit_count() != 1 or not v.played[1 - v.player] & rest:
            return None
        card = rest.bit_length() - 1
        keep = [i for i, w in enumerate(p.worlds) if w.legal_mask() >> card & 1]
        if len(keep) < 2:
            return None
        return Follow([p.worlds[i] for i in keep], p.unknown[keep], card, p.won, p.stock)

    def expect_follow(self, v: PlayerView, worlds: Sequence[State], action: int) -> None:
        """Keep the worlds the bot searched at ``v`` if it leads a card with ``action`` there (the
        first :data:`FOLLOW_WORLDS`, the card played in copies): its next view may show the follow."""
        if not (self.extended and v.window == LEAD and v.to_act == v.player and action < N_CARDS
                and v.stock and len(worlds) >= 2):
            return
        after = []
        for w in worlds[:FOLLOW_WORLDS]:
            s = w.clone()
            s.apply_unchecked(action)
            after.append(s)
        unknown = card_rows([w.hands[1 - v.player] & ~v.opp_known for w in after])
        self.pending = Follow(after, unknown, action, v.won[0] | v.won[1], v.stock)

    def settle_follow(self, logits: Logits, beta: float, eps: float) -> None:
        """Record what the opponent's follow seen at this view said (:attr:`follow`), if any."""
        f = self.follow
        self.follow = None
        if f is not None:
            self.record(f.stock, f.unknown, move_likelihoods(f.worlds, f.card, logits, beta, eps))

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

    def record(self, stock: int, unknown: np.ndarray, likelihood: np.ndarray) -> None:
        """Keep what one move said about each card, from the worlds (``unknown``) and their
        likelihoods of that move, made with ``stock`` cards in the talon."""
        if len(likelihood) < 2:
            return
        u = unknown.mean(axis=0)
        m = (likelihood / likelihood.sum()) @ unknown
        ratios = np.clip(np.log((m + PSEUDO) / (u + PSEUDO)), -BELIEF_CLIP, BELIEF_CLIP)
        self.entries.append((stock, ratios))
