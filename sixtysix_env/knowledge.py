"""What one player knows (docs/rules.md section 6), and worlds consistent with it.

A :class:`PlayerView` is a player's information set: own hand, everything
public (cards played and won, scores, marriages, exchange, talon size and
state, the window), what the opponent is known to hold (the other card of a
shown marriage, the face-up card taken by exchange or at the last draw) and
what the opponent cannot hold (voids revealed by the phase-2 duty to follow,
beat and trump). It never holds the opponent's unknown cards or the talon
order; ``view(state, p) == view(resample(state, p, rng), p)`` for every
resampled world, which is how the tests check for leaks.

:func:`sample_state` deals the unseen cards into a full engine
:class:`~sixtysix_env.engine.State` consistent with a view, uniformly over all
consistent worlds (determinization for PIMC and ISMCTS).
"""

from __future__ import annotations

import random
from typing import Any

from .cards import cards_of
from .engine import OVER, TALON_OPEN, State
from .engine import talon_phase as phase_of
from .seeding import make_rng
from .variant_rules import RulesState, state_class
from .variants import Rules

_FIELDS = (
    "player",
    "hand",
    "window",
    "to_act",
    "legal_mask",
    "trump",
    "trump_card",
    "stock",
    "closed_by",
    "closer_opp_tricks",
    "points",
    "tricks",
    "won",
    "played",
    "shown",
    "exchanged_by",
    "lead_card",
    "marriage_suit",
    "can_declare",
    "dealer",
    "match_scores",
    "result",
    "scores",
    "my_known",
    "my_void",
    "opp_known",
    "opp_void",
    "opp_hand_size",
    "unseen",
    "rules",
    "bonus",
    "held",
)


class PlayerView:
    """A player's information set; all card sets are 24-bit masks.

    - ``player``: whose view; ``hand``: own cards; ``legal_mask``: legal
      actions when ``to_act == player`` (else 0).
    - ``trump``; ``trump_card``: the face-up card while the talon holds it,
      else -1; ``stock``: cards in the talon; ``closed_by``,
      ``closer_opp_tricks``.
    - ``points``, ``tricks``, ``won``, ``played``, ``shown``, ``scores``:
      pairs indexed by player (public); ``exchanged_by``; ``lead_card``;
      ``marriage_suit``; ``can_declare``; ``dealer``; ``match_scores``;
      ``result``.
    - ``opp_known``: cards the opponent surely holds; ``opp_void``: cards the
      opponent surely does not hold; ``opp_hand_size``; ``my_known`` /
      ``my_void``: the same about this player, as the opponent sees it.
    - ``unseen``: cards this player has not seen and cannot place: they are
      in the opponent's hand (outside ``opp_known``) or face down in the talon.
    - ``rules``, ``bonus``, ``held``: the deal's preset, draw bonus and
      marriages not counted yet (public, as in the engine ``State``).
    """

    __slots__ = _FIELDS

    player: int
    hand: int
    window: int
    to_act: int
    legal_mask: int
    trump: int
    trump_card: int
    stock: int
    closed_by: int
    closer_opp_tricks: int
    points: tuple[int, int]
    tricks: tuple[int, int]
    won: tuple[int, int]
    played: tuple[int, int]
    shown: tuple[int, int]
    exchanged_by: int
    lead_card: int
    marriage_suit: int
    can_declare: bool
    dealer: int
    match_scores: tuple[int, int]
    result: Any
    scores: tuple[int, int]
    my_known: int
    my_void: int
    opp_known: int
    opp_void: int
    opp_hand_size: int
    unseen: int
    rules: Rules
    bonus: int
    held: Any

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PlayerView):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in _FIELDS)

    __hash__ = None  # type: ignore[assignment]

    def key(self) -> tuple[Any, ...]:
        """A hashable summary of the whole view (for tables and caches)."""
        return tuple(getattr(self, k) for k in _FIELDS)

    @property
    def opponent(self) -> int:
        return 1 - self.player

    # The talon's phase, by the engine's own rule (a view carries ``stock`` and ``closed_by`` too).
    talon_phase = property(phase_of, doc=phase_of.__doc__)

    @property
    def talon_open(self) -> bool:
        """Phase 1: the talon holds cards and nobody closed it (as ``State.talon_open``)."""
        return phase_of(self) == TALON_OPEN

    @property
    def is_over(self) -> bool:
        return self.window == OVER

    @property
    def talon_hidden(self) -> int:
        """Face-down talon cards (the talon minus the known face-up card)."""
        return self.stock - 1 if self.stock else 0

    def determinize(self, rng: int | random.Random | Any | None = None) -> State:
        """Same as :func:`sample_state`."""
        return sample_state(self, rng)

    def __repr__(self) -> str:
        from .cards import names_of

        return (
            f"PlayerView(player={self.player}, hand={names_of(self.hand)}, window={self.window}, "
            f"to_act={self.to_act}, stock={self.stock}, scores={self.scores}, "
            f"opp_known={names_of(self.opp_known)}, unseen={names_of(self.unseen)})"
        )


def view(state: State, player: int) -> PlayerView:
    """The information set of ``player`` in ``state``."""
    if player not in (0, 1):
        raise ValueError(f"player must be 0 or 1, got {player!r}")
    opp = 1 - player
    v = PlayerView.__new__(PlayerView)
    hand = state.hands[player]
    opp_hand = state.hands[opp]
    v.player = player
    v.hand = hand
    v.window = state.window
    v.to_act = state.to_act
    v.legal_mask = state.legal_mask() if state.to_act == player else 0
    v.trump = state.trump
    stock = state.stock
    v.trump_card = state.trump_card if stock else -1
    v.stock = stock
    v.closed_by = state.closed_by
    v.closer_opp_tricks = state.closer_opp_tricks
    v.points = (state.points[0], state.points[1])
    v.tricks = (state.tricks[0], state.tricks[1])
    v.won = (state.won[0], state.won[1])
    played = state.played
    v.played = (played[0], played[1])
    v.shown = (state.shown[0], state.shown[1])
    v.exchanged_by = state.exchanged_by
    v.lead_card = state.lead_card
    v.marriage_suit = state.marriage_suit
    v.can_declare = state.can_declare
    v.dealer = state.dealer
    v.match_scores = (state.match_scores[0], state.match_scores[1])
    v.result = state.result
    v.scores = (state.score(0), state.score(1))
    v.my_known = state.known[player] & hand
    v.my_void = state.void[player]
    opp_known = state.known[opp] & opp_hand
    v.opp_known = opp_known
    v.opp_void = state.void[opp]
    v.opp_hand_size = opp_hand.bit_count()
    seen = hand | played[0] | played[1] | opp_known
    if stock:
        seen |= 1 << state.trump_card
    v.unseen = state.rules.deck & ~seen
    v.rules = state.rules
    v.bonus = state.bonus
    v.held = state.held
    return v


def _pick(rng: Any, population: list[int], k: int) -> list[int]:
    if hasattr(rng, "sample"):
        return rng.sample(population, k)
    pool = list(population)
    rng.shuffle(pool)
    return pool[:k]


def sample_state(
    v: PlayerView, rng: int | random.Random | Any | None = None, opp_lacks: int = 0
) -> State:
    """A full state consistent with view ``v``, uniform over consistent worlds.

    The opponent's unknown cards are a uniform subset of the unseen cards it
    may hold (outside ``opp_void``); the rest go face down into the talon in
    uniform random order. ``opp_lacks`` (a card mask) is a belief, not a
    rule: those cards go to the talon in this sample, and the world records
    nothing about them (the opponent-inference of :mod:`agents.search.inference`).
    Raises ``ValueError`` if no world is consistent (only possible for a
    hand-made, contradictory view, or beliefs that leave the opponent too
    few cards).
    """
    gen = make_rng(rng)
    me = v.player
    opp = 1 - me
    n_unseen = v.unseen.bit_count()
    k = v.opp_hand_size - v.opp_known.bit_count()
    allowed = cards_of(v.unseen & ~v.opp_void & ~opp_lacks)
    if k < 0 or len(allowed) < k or n_unseen - k != v.talon_hidden:
        raise ValueError(f"no world is consistent with this view: {v!r}")
    picked = _pick(gen, allowed, k)
    opp_hand = v.opp_known
    for c in picked:
        opp_hand |= 1 << c
    rest = cards_of(v.unseen & ~opp_hand)
    gen.shuffle(rest)
    cls = state_class(v.rules, v.bonus)
    s = cls.__new__(cls)
    hands = [0, 0]
    hands[me] = v.hand
    hands[opp] = opp_hand
    s.hands = hands
    size = v.rules.talon_size
    if v.stock:
        s.talon = tuple([-1] * (size - v.stock)) + tuple(int(c) for c in rest) + (v.trump_card,)
    else:
        s.talon = tuple([-1] * size)
    s.stock = v.stock
    s.trump = v.trump
    s.trump_card = v.trump_card if v.stock else -1
    s.closed_by = v.closed_by
    s.closer_opp_tricks = v.closer_opp_tricks
    s.points = list(v.points)
    s.tricks = list(v.tricks)
    s.won = list(v.won)
    s.played = list(v.played)
    s.shown = list(v.shown)
    s.exchanged_by = v.exchanged_by
    known = [0, 0]
    known[me] = v.my_known
    known[opp] = v.opp_known
    s.known = known
    void = [0, 0]
    void[me] = v.my_void
    void[opp] = v.opp_void
    s.void = void
    s.window = v.window
    s.to_act = v.to_act
    s.lead_card = v.lead_card
    s.marriage_suit = v.marriage_suit
    s.can_declare = v.can_declare
    s.dealer = v.dealer
    s.match_scores = list(v.match_scores)
    s.result = v.result
    if isinstance(s, RulesState):  # the German class keeps its class-level defaults
        s.rules = v.rules
        s.bonus = v.bonus
        s.held = v.held
    return s


def resample(state: State, player: int, rng: int | random.Random | Any | None = None) -> State:
    """A world ``player`` cannot tell apart from ``state`` (OpenSpiel's
    ``resample_from_infostate``)."""
    return sample_state(view(state, player), rng)
