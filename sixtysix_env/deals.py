"""Dealing: fresh deals, deals fixed card by card, the next deal of a match.

A deal is a :class:`~sixtysix_env.engine.State` in its first window. Deals
are shuffled by any RNG :func:`~sixtysix_env.seeding.make_rng` accepts, so a
seed gives the same cards on every platform::

    state = deal(7)                       # seed 7, dealer chosen at random
    state = fixed_deal(hands, talon, dealer=1).play("AC", "9C", "continue")
    state = next_deal(state, rng)         # after the deal ended: the winner deals

Standard library only, like the engine.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from .actions import to_int
from .cards import CARD_NAMES, N_CARDS, parse_cards
from .engine import HAND_SIZE, LEAD, MATCH_TARGET, TALON_SIZE, State
from .seeding import make_rng


def _check_dealer(dealer: Any) -> int:
    if isinstance(dealer, bool) or dealer not in (0, 1):
        raise ValueError(f"dealer must be 0 or 1, got {dealer!r}")
    return int(dealer)


def _check_match_scores(match_scores: Any) -> list[int]:
    """Two game-point counts in 0..6 (a deal is only dealt while the match is on)."""
    try:
        n = -1 if isinstance(match_scores, (str, bytes)) else len(match_scores)
    except TypeError:
        n = -1
    if n != 2:
        raise ValueError(f"match scores must be two ints, got {match_scores!r}")
    if any(to_int(g) != g or not 0 <= g < MATCH_TARGET for g in match_scores):
        raise ValueError(f"match scores must be ints in 0..{MATCH_TARGET - 1}, got {list(match_scores)!r}")
    return [int(match_scores[0]), int(match_scores[1])]


def new_state(
    hands: Sequence[Sequence[int]],
    talon: Sequence[int],
    dealer: int,
    match_scores: Sequence[int] = (0, 0),
) -> State:
    """A fresh deal from card ids, without validation (see :func:`fixed_deal`)."""
    s = State.__new__(State)
    h0 = h1 = 0
    for c in hands[0]:
        h0 |= 1 << c
    for c in hands[1]:
        h1 |= 1 << c
    s.hands = [h0, h1]
    s.talon = tuple(talon)
    s.stock = TALON_SIZE
    s.trump_card = s.talon[-1]
    s.trump = s.trump_card // 6
    s.closed_by = -1
    s.closer_opp_tricks = 0
    s.points = [0, 0]
    s.tricks = [0, 0]
    s.won = [0, 0]
    s.played = [0, 0]
    s.shown = [0, 0]
    s.exchanged_by = -1
    s.known = [0, 0]
    s.void = [0, 0]
    s.window = LEAD
    s.to_act = 1 - dealer
    s.lead_card = -1
    s.marriage_suit = -1
    s.can_declare = False
    s.dealer = dealer
    s.match_scores = [int(match_scores[0]), int(match_scores[1])]
    s.result = None
    return s


def deal(
    rng: int | random.Random | Any | None = None,
    dealer: int | None = None,
    match_scores: Sequence[int] = (0, 0),
) -> State:
    """Shuffle and deal one deal. ``dealer`` None: chosen at random."""
    gen = make_rng(rng)
    dealer = (1 if gen.random() < 0.5 else 0) if dealer is None else _check_dealer(dealer)
    cards = list(range(N_CARDS))
    gen.shuffle(cards)
    if type(cards[0]) is not int:  # an RNG that swapped in its own integer type
        cards = [int(c) for c in cards]
    return new_state((cards[0:6], cards[6:12]), cards[12:24], dealer, _check_match_scores(match_scores))


def fixed_deal(
    hands: Sequence[Sequence[int | str]],
    talon: Sequence[int | str],
    dealer: int = 0,
    match_scores: Sequence[int] = (0, 0),
) -> State:
    """A deal fixed card by card (RULES.md section 7), fully validated.

    ``hands[p]`` are player p's 6 cards; ``talon[0]`` is drawn first and
    ``talon[-1]`` is the face-up trump card. Cards are ids or names. Raises
    ``ValueError`` naming what is wrong: bad names, wrong counts, duplicate or
    missing cards, a bad dealer or match score.
    """
    dealer = _check_dealer(dealer)
    if isinstance(hands, (str, bytes)) or len(hands) != 2:
        raise ValueError(f"hands must be two lists of 6 cards, got {hands!r}")
    parsed_hands = []
    for p, hand in enumerate(hands):
        cards = parse_cards(hand)
        if len(cards) != HAND_SIZE:
            raise ValueError(f"hands[{p}] has {len(cards)} cards, expected {HAND_SIZE}")
        parsed_hands.append(cards)
    parsed_talon = parse_cards(talon)
    if len(parsed_talon) != TALON_SIZE:
        raise ValueError(f"talon has {len(parsed_talon)} cards, expected {TALON_SIZE}")
    everything = parsed_hands[0] + parsed_hands[1] + parsed_talon
    seen: set[int] = set()
    dupes = sorted({c for c in everything if c in seen or seen.add(c)})  # type: ignore[func-returns-value]
    if dupes:
        raise ValueError(f"duplicate cards in the deal: {', '.join(CARD_NAMES[c] for c in dupes)}")
    missing = sorted(set(range(N_CARDS)) - seen)
    if missing:
        raise ValueError(f"missing cards in the deal: {', '.join(CARD_NAMES[c] for c in missing)}")
    return new_state(parsed_hands, parsed_talon, dealer, _check_match_scores(match_scores))


def next_dealer(state: State) -> int:
    """The winner of a deal deals the next; after a drawn deal, the same dealer."""
    if state.result is None:
        raise ValueError("the deal is not over yet")
    return state.dealer if state.result.winner is None else state.result.winner


def next_deal(state: State, rng: int | random.Random | Any | None = None) -> State:
    """Deal the match's next deal after ``state`` ended (dealer by the rules)."""
    if state.match_over:
        raise ValueError(f"the match is over: {state.match_scores}")
    return deal(rng, next_dealer(state), state.match_scores)


__all__ = ["deal", "fixed_deal", "new_state", "next_deal", "next_dealer"]
