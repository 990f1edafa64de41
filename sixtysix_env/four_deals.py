"""Dealing four-player deals (docs/rules-four.md F2, F7): fresh, fixed card by card, the next of a match.

Deals are shuffled by any RNG :func:`~sixtysix_env.seeding.make_rng` accepts,
like the two-player :mod:`~sixtysix_env.deals`. Standard library only.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from .cards import CARD_NAMES, N_CARDS, as_list, parse_cards
from .deals import check_match_scores
from .engine import LEAD
from .four import FOUR, HAND, N_SEATS, FourRules, FourState, check_seat
from .seeding import make_rng


def new_four(
    hands: Sequence[Sequence[int]],
    dealer: int,
    match_scores: Sequence[int] = (0, 0),
    rules: FourRules = FOUR,
) -> FourState:
    """A deal from card ids without validation; trumps are the suit of the
    dealer's last card, shown to all (F2.2)."""
    s = FourState.__new__(FourState)
    s.hands = [sum(1 << c for c in h) for h in hands]
    s.trump_card = hands[dealer][-1]
    s.trump = s.trump_card // 6
    s.points, s.tricks, s.won = [0, 0], [0, 0], [0, 0]
    s.played, s.shown, s.void = [0] * 4, [0] * 4, [0] * 4
    s.known = [0] * 4
    s.known[dealer] = 1 << s.trump_card
    s.window = LEAD
    s.leader = s.to_act = (dealer + 1) & 3
    s.trick = []
    s.marriage_suit = -1
    s.partner_shown = False
    s.can_declare = False
    s.dealer = dealer
    s.match_scores = [int(match_scores[0]), int(match_scores[1])]
    s.result = None
    s.rules = rules
    return s


def deal_four(
    rng: int | random.Random | Any | None = None,
    dealer: int | None = None,
    match_scores: Sequence[int] = (0, 0),
    rules: FourRules = FOUR,
) -> FourState:
    """Shuffle and deal; ``dealer`` None: chosen from the RNG."""
    gen = make_rng(rng)
    dealer = gen.randrange(4) if dealer is None else check_seat(dealer, "dealer")
    cards = list(range(N_CARDS))
    gen.shuffle(cards)
    cards = [int(c) for c in cards]
    hands = [cards[HAND * i : HAND * (i + 1)] for i in range(N_SEATS)]
    return new_four(hands, dealer, _scores(match_scores, rules), rules)


def fixed_four(
    hands: Sequence[Sequence[int | str]],
    dealer: int = 3,
    match_scores: Sequence[int] = (0, 0),
    rules: FourRules = FOUR,
) -> FourState:
    """A deal fixed card by card: four hands of 6 (ids or names), all 24 cards
    once; the dealer's last listed card is the trump card. ``ValueError``
    names what is wrong."""
    dealer = check_seat(dealer, "dealer")
    hand_lists = as_list(hands, "hands")  # read once: an iterator is consumed
    if len(hand_lists) != N_SEATS:
        raise ValueError(f"hands must be four lists of {HAND} cards, got {hands!r}")
    parsed = [parse_cards(h, f"hands[{i}]") for i, h in enumerate(hand_lists)]
    for i, h in enumerate(parsed):
        if len(h) != HAND:
            raise ValueError(f"hands[{i}] has {len(h)} cards, expected {HAND}")
    flat = [c for h in parsed for c in h]
    if len(set(flat)) != N_CARDS:
        dupes = sorted({c for c in flat if flat.count(c) > 1})
        raise ValueError(f"duplicate cards in the deal: {', '.join(CARD_NAMES[c] for c in dupes)}")
    return new_four(parsed, dealer, _scores(match_scores, rules), rules)


def next_four(state: FourState, rng: int | random.Random | Any | None = None) -> FourState:
    """The match's next deal (F7.2): the deal passes to the left after a won
    deal; a drawn deal is dealt again by the same dealer."""
    if state.result is None:
        raise ValueError("the deal is not over yet")
    if state.match_over:
        raise ValueError(f"the match is over: {state.match_scores}")
    dealer = state.dealer if state.result.winner is None else (state.dealer + 1) & 3
    return deal_four(rng, dealer, state.match_scores, state.rules)


def _scores(match_scores: Any, rules: FourRules) -> list[int]:
    return check_match_scores(match_scores, rules.match_target)


__all__ = ["deal_four", "fixed_four", "new_four", "next_four"]
