"""Opponent inference: what the opponent's own leads say about its hidden cards.

Uniform worlds (:func:`sixtysix_env.knowledge.sample_state`) treat every
unseen card as equally likely to be in the opponent's hand. But a lead is
informative: every bot here, and any sensible player, shows a marriage and
exchanges the trump nine whenever the rules let it (a marriage is 20 or 40
points for a lead one makes anyway, the exchange swaps the lowest trump for
a higher one; :func:`agents.core.rules.obvious_action`). So an opponent that
leads with the talon open and shows nothing

- held no King-Queen pair: the partner of the card it led, or of a card it
  is known to hold, was not in its hand; where both halves are unseen it did
  not hold both;
- after winning a trick, did not hold the trump nine (it would have
  exchanged).

Under a rule preset (``view.rules``) the exchange card is the preset's (the
jack in Schnapsen, exchangeable before any trick in ``schnapsen-pkg``), and
an opponent without a trick under kawu's rules, where such a marriage would
be lost, is not read at all.

:class:`OpponentModel` reads these facts off the views its bot is shown
(only public information: the lead, the shown marriages, the exchange) and
samples worlds that respect them. A card denied when the talon held ``s0``
cards may still have been drawn since: with ``d`` face-down cards drawn by
the opponent since then and ``h`` still face down, a card that was face down
then is in the opponent's hand now with probability ``d / (d + h)``; the
sampler excludes it with the probability that brings its uniform chance
down to that. "Not both halves" is enforced (by rejection) only until the
opponent draws again.

This assumes the opponent plays those moves when it can. Against one that
does not, the worlds are slightly wrong, as uniform worlds are slightly
wrong against a player that does.
"""

from __future__ import annotations

from typing import Any

from sixtysix_env.cards import KQ
from sixtysix_env.engine import FOLLOW, State
from sixtysix_env.knowledge import PlayerView, sample_state

from ..core.rules import marriage_counts

MAX_TRIES = 20  # rejection attempts for "not both halves" before taking a world anyway


class OpponentModel:
    """Per-deal record of the cards the opponent's leads deny it (see the module docstring)."""

    __slots__ = ("_deal", "_last", "_shown", "denied", "pairs", "pairs_stock")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget everything (a new match; a new deal is detected by :meth:`observe`)."""
        self._deal: tuple[Any, ...] = ()
        self._last: tuple[Any, ...] = ()
        self._shown = 0
        self.denied: dict[int, int] = {}  # card -> talon size when the opponent showed it lacked it
        self.pairs = 0  # suits (bit mask) where the opponent held at most one of King and Queen
        self.pairs_stock = -1  # talon size when ``pairs`` was recorded

    def observe(self, v: PlayerView) -> None:
        """Update the record from one view of the bot's own player (repeats are ignored)."""
        played = v.played[0] | v.played[1]
        deal = (v.dealer, v.trump, v.match_scores)
        if deal != self._deal or (self._last and (self._last[0] & ~played or v.stock > self._last[1])):
            self.reset()
            self._deal = deal
        last = (played, v.stock, v.window, v.to_act)
        if last == self._last:
            return
        self._last = last
        opp = 1 - v.player
        new_shown = v.shown[opp] & ~self._shown
        self._shown = v.shown[opp]
        if v.window != FOLLOW or v.to_act != v.player or not v.talon_open or new_shown:
            return
        rules = v.rules
        if not marriage_counts(rules, v.tricks[opp]):
            return  # a marriage shown now would be lost (kawu): holding one back says nothing
        # The opponent just led with the talon open and showed no marriage.
        held = v.opp_known | (1 << v.lead_card)
        pairs = 0
        for suit in range(4):
            pair = KQ[suit]
            if held & pair == pair:
                continue  # a marriage shown earlier
            if held & pair:
                other = pair & ~held
                if other & v.unseen:
                    self._deny(other.bit_length() - 1, v.stock)
            elif v.unseen & pair == pair:
                pairs |= 1 << suit
        self.pairs, self.pairs_stock = pairs, v.stock
        low = 6 * v.trump + rules.exchange_rank  # the trump nine, or the jack in Schnapsen
        if v.exchanged_by < 0 and (rules.free_exchange or v.tricks[opp] > 0) and v.unseen >> low & 1:
            self._deny(low, v.stock)

    def _deny(self, card: int, stock: int) -> None:
        self.denied.setdefault(card, stock)

    def sample(self, v: PlayerView, rng: Any) -> State:
        """A world consistent with ``v`` and, as far as possible, with the record."""
        if not self.denied and not self.pairs:
            return sample_state(v, rng)
        lacks = 0
        if v.stock:
            h = v.stock - 1  # face-down cards still in the talon
            k = v.opp_hand_size - v.opp_known.bit_count()
            n = (v.unseen & ~v.opp_void).bit_count()
            uniform = k / n if n else 0.0
            for card, s0 in self.denied.items():
                if not v.unseen >> card & 1:
                    continue
                d = (s0 - v.stock) // 2  # face-down cards the opponent drew since
                target = d / (d + h) if d + h else 1.0
                if uniform <= 0 or rng.random() >= target / uniform:
                    lacks |= 1 << card
        pairs = self.pairs if self.pairs_stock == v.stock else 0
        opp = 1 - v.player
        world = None
        for _ in range(MAX_TRIES):
            try:
                world = sample_state(v, rng, lacks)
            except ValueError:  # the beliefs leave too few cards: drop them
                lacks = 0
                continue
            hand = world.hands[opp]
            if not any(pairs >> s & 1 and hand & KQ[s] == KQ[s] for s in range(4)):
                return world
        return world if world is not None else sample_state(v, rng)
