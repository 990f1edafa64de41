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
from .cards import CARD_NAMES, as_list, cards_of, parse_cards
from .engine import LEAD, State
from .seeding import make_rng
from .variant_rules import RulesState, state_class
from .variants import GERMAN, Rules, rules_from_spec


def check_dealer(dealer: Any) -> int:
    """A dealer seat 0 or 1 as an int (numpy ints too; never a bool or float)."""
    if to_int(dealer) not in (0, 1):  # ints and numpy ints; never a bool or float
        raise ValueError(f"dealer must be 0 or 1, got {dealer!r}")
    return to_int(dealer)


def check_match_scores(match_scores: Any, target: int = GERMAN.match_target) -> list[int]:
    """Two game-point counts (ints or numpy ints) below the match target, as
    ints: a deal is only dealt while the match is on. Both games use it."""
    scores = [to_int(g) for g in as_list(match_scores, "match scores")]
    if len(scores) != 2:
        raise ValueError(f"match scores must be two ints, got {match_scores!r}")
    if not all(0 <= g < target for g in scores):
        raise ValueError(f"match scores must be ints in 0..{target - 1}, got {list(match_scores)!r}")
    return scores


def new_state(
    hands: Sequence[Sequence[int]],
    talon: Sequence[int],
    dealer: int,
    match_scores: Sequence[int] = (0, 0),
    rules: Rules = GERMAN,
    bonus: int = 0,
) -> State:
    """A fresh deal from card ids, without validation (see :func:`fixed_deal`)."""
    cls = State if rules is GERMAN and not bonus else state_class(rules, bonus)
    s = cls.__new__(cls)
    h0 = h1 = 0
    for c in hands[0]:
        h0 |= 1 << c
    for c in hands[1]:
        h1 |= 1 << c
    s.hands = [h0, h1]
    s.talon = tuple(talon)
    s.stock = len(s.talon)
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
    if isinstance(s, RulesState):  # the German class keeps its class-level defaults
        s.rules = rules
        s.bonus = bonus
        s.held = rules.held_start
    return s


def deal(
    rng: int | random.Random | Any | None = None,
    dealer: int | None = None,
    match_scores: Sequence[int] = (0, 0),
    rules: Rules | str | None = None,
    bonus: int = 0,
) -> State:
    """Shuffle and deal one deal. ``dealer`` None: chosen at random.
    ``rules``: a :class:`~sixtysix_env.variants.Rules` or spec string (German by default)."""
    rules = GERMAN if rules is None else rules_from_spec(rules)
    gen = make_rng(rng)
    dealer = (1 if gen.random() < 0.5 else 0) if dealer is None else check_dealer(dealer)
    cards = list(rules.cards)
    gen.shuffle(cards)
    if type(cards[0]) is not int:  # an RNG that swapped in its own integer type
        cards = [int(c) for c in cards]
    n = rules.hand_size
    scores = check_match_scores(match_scores, rules.match_target)
    if bonus:
        bonus = _check_bonus(bonus)
    return new_state((cards[0:n], cards[n : 2 * n]), cards[2 * n :], dealer, scores, rules, bonus)


def _check_bonus(bonus: Any) -> int:
    if to_int(bonus) != bonus or not 0 <= bonus < 100:
        raise ValueError(f"bonus must be an int in 0..99, got {bonus!r}")
    return int(bonus)


def fixed_deal(
    hands: Sequence[Sequence[int | str]],
    talon: Sequence[int | str],
    dealer: int = 0,
    match_scores: Sequence[int] = (0, 0),
    rules: Rules | str | None = None,
    bonus: int = 0,
) -> State:
    """A deal fixed card by card (docs/rules.md section 7), fully validated.

    ``hands[p]`` are player p's 6 cards (the preset's hand size);
    ``talon[0]`` is drawn first and ``talon[-1]`` is the face-up trump card.
    Cards are ids or names. Raises ``ValueError`` naming what is wrong: bad
    names, wrong counts, duplicate, missing or foreign cards (a nine in
    Schnapsen), a bad dealer, match score or rules spec.
    """
    rules = rules_from_spec(rules)
    dealer = check_dealer(dealer)
    n = rules.hand_size
    hand_lists = as_list(hands, "hands")  # read once: an iterator is consumed
    if len(hand_lists) != 2:
        raise ValueError(f"hands must be two lists of {n} cards, got {hands!r}")
    parsed_hands = []
    for p, hand in enumerate(hand_lists):
        cards = parse_cards(hand, f"hands[{p}]")
        if len(cards) != n:
            raise ValueError(f"hands[{p}] has {len(cards)} cards, expected {n}")
        parsed_hands.append(cards)
    parsed_talon = parse_cards(talon, "talon")
    if len(parsed_talon) != rules.talon_size:
        raise ValueError(f"talon has {len(parsed_talon)} cards, expected {rules.talon_size}")
    everything = parsed_hands[0] + parsed_hands[1] + parsed_talon
    seen: set[int] = set()
    dupes = sorted({c for c in everything if c in seen or seen.add(c)})  # type: ignore[func-returns-value]
    if dupes:
        raise ValueError(f"duplicate cards in the deal: {', '.join(CARD_NAMES[c] for c in dupes)}")
    deck = set(cards_of(rules.deck))
    foreign = sorted(seen - deck)
    if foreign:
        raise ValueError(f"cards not in the {rules.name} deck: {', '.join(CARD_NAMES[c] for c in foreign)}")
    missing = sorted(deck - seen)
    if missing:
        raise ValueError(f"missing cards in the deal: {', '.join(CARD_NAMES[c] for c in missing)}")
    scores = check_match_scores(match_scores, rules.match_target)
    return new_state(parsed_hands, parsed_talon, dealer, scores, rules, _check_bonus(bonus))


def next_dealer(state: State) -> int:
    """The winner of a deal deals the next; after a drawn deal, the same dealer."""
    if state.result is None:
        raise ValueError("the deal is not over yet")
    return state.dealer if state.result.winner is None else state.result.winner


def next_bonus(state: State) -> int:
    """The next deal's draw bonus: 1 after a drawn deal with the ``draw_bonus``
    switch, however many drawn deals came in a row (the rule book's "the
    winner of the next hand scores 1 extra", docs/rules-variants.md V1.2), else 0."""
    if state.result is None:
        raise ValueError("the deal is not over yet")
    if state.result.winner is None and state.rules.draw_bonus:
        return 1
    return 0


def next_deal(state: State, rng: int | random.Random | Any | None = None) -> State:
    """Deal the match's next deal after ``state`` ended (dealer, rules and bonus carried on)."""
    if state.match_over:
        raise ValueError(f"the match is over: {state.match_scores}")
    return deal(rng, next_dealer(state), state.match_scores, state.rules, next_bonus(state))


__all__ = [
    "check_dealer",
    "check_match_scores",
    "deal",
    "fixed_deal",
    "new_state",
    "next_bonus",
    "next_deal",
    "next_dealer",
]
