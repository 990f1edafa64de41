"""Observations reveal nothing hidden (docs/rules.md 6, docs/rules-four.md F3.3, F9.1),
checked without the project's own samplers.

The independent references (reference_rules.py, reference_four.py) say which
cards a player cannot know: the other hands' cards never seen (not a shown
marriage's K or Q, not an exchanged-in trump card, not the face-up card taken
at the last draw, not the four-player dealer's trump card) and the face-down
talon. At every move of random deals those cards are shuffled among their
places in a copy of the engine state, and each player's observation array and
action mask must be unchanged. (The shuffle may break what the strict rules
revealed about a hand; the observation must not depend on the hidden cards
either way.)
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from sixtysix_env.aec_four import encode_four
from sixtysix_env.cards import cards_of, mask_of
from sixtysix_env.deals import deal
from sixtysix_env.engine import State
from sixtysix_env.four import FourState
from sixtysix_env.four_deals import deal_four
from sixtysix_env.four_knowledge import view_four
from sixtysix_env.knowledge import view
from sixtysix_env.observation import encode_with_mask
from tests.env.reference_four import FourDeal
from tests.env.reference_rules import Deal
from tests.env.test_reference_differential import GAMES, choose, choose_four, reference_of

DEALS = 150


def swapped(s: State, ref: Deal, p: int, rng: random.Random) -> State:
    """A copy of ``s`` with the cards hidden from ``p`` shuffled among their places."""
    o = 1 - p
    opp_hidden, face_down = ref.hidden_from(p)
    n = len(s.talon)
    first = n - s.stock  # the next talon position to draw
    assert list(s.talon[first : n - 1]) == face_down  # the reference's talon is the engine's
    pool = opp_hidden + face_down
    rng.shuffle(pool)
    t = s.clone()
    t.hands[o] = s.hands[o] & ~mask_of(opp_hidden) | mask_of(pool[: len(opp_hidden)])
    t.talon = (*s.talon[:first], *pool[len(opp_hidden) :], *s.talon[n - 1 :])
    return t


def observed(s: State, p: int) -> tuple[bytes, bytes]:
    obs, mask = encode_with_mask(view(s, p))
    return obs.tobytes(), mask.tobytes()


@pytest.mark.parametrize("spec", sorted(GAMES))
def test_two_player_observations_ignore_hidden_cards(spec):
    changed = 0
    for seed in range(DEALS):
        rng = random.Random(seed)
        s = deal(rng, rules=spec)
        ref = reference_of(s, GAMES[spec])
        while not s.is_over:
            for p in (0, 1):
                t = swapped(s, ref, p, rng)
                changed += t.hands != s.hands or t.talon != s.talon
                assert observed(t, p) == observed(s, p), f"{spec} seed {seed}, player {p}: {s}"
            a = choose(s, rng, seed)
            s.apply(a)
            ref.step(a)
    assert changed > 1000  # the shuffles did move cards


def swapped_four(s: FourState, ref: FourDeal, seat: int, rng: random.Random) -> FourState:
    hidden = ref.hidden_from(seat)
    pool = hidden[:]
    rng.shuffle(pool)
    t = s.clone()
    for q in range(4):
        if q == seat:
            continue
        mine = [c for c in cards_of(s.hands[q]) if c in hidden]
        t.hands[q] = s.hands[q] & ~mask_of(mine) | mask_of(pool[: len(mine)])
        pool = pool[len(mine) :]
    return t


def test_four_player_observations_ignore_hidden_cards():
    changed = 0
    for seed in range(DEALS):
        rng = random.Random(seed)
        s = deal_four(rng)
        ref = FourDeal.start([cards_of(h) for h in s.hands], s.trump_card, s.dealer)
        while not s.is_over:
            for seat in range(4):
                t = swapped_four(s, ref, seat, rng)
                changed += t.hands != s.hands
                a, b = encode_four(view_four(t, seat)), encode_four(view_four(s, seat))
                assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True)), (
                    f"seed {seed}, seat {seat}"
                )
            action = choose_four(s, rng, seed)
            s.apply(action)
            ref.step(action)
    assert changed > 1000
