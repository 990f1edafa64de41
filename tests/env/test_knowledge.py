"""Views (what a player knows, docs/rules.md section 6) and the determinization sampler."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from test_engine_rules import DRAWN_SCRIPT, cards, deal_a, deal_c, run

from sixtysix_env.cards import SUIT_MASKS, cards_of
from sixtysix_env.deals import deal
from sixtysix_env.engine import State
from sixtysix_env.knowledge import PlayerView, resample, sample_state, view


def face_down(s: State) -> int:
    """The face-down talon cards (the face-up trump card excluded)."""
    out = 0
    for c in s.talon[12 - s.stock : 11] if s.stock else ():
        out |= 1 << c
    return out


def assert_consistent(world: State, v: PlayerView) -> None:
    """``world`` could be the true state behind view ``v``."""
    me, opp = v.player, 1 - v.player
    opp_hand = world.hands[opp]
    assert world.hands[me] == v.hand
    assert opp_hand & v.opp_known == v.opp_known
    assert not opp_hand & v.opp_void
    assert opp_hand.bit_count() == v.opp_hand_size
    assert world.stock == v.stock and face_down(world).bit_count() == v.talon_hidden
    assert (opp_hand & ~v.opp_known) | face_down(world) == v.unseen
    assert not opp_hand & face_down(world)
    assert view(world, me) == v


# Positions: (name, state, viewer, what the viewer must know about the opponent)
def _positions():
    closed = run(deal_c(), "9C TC close continue 9S AS AC TD")  # player 1 showed: no clubs, no trump
    exchanged = run(deal_a(), "AC 9C exchange")  # player 0 took the JH
    married = run(deal_a(), "AC 9C continue marriage C KC")  # QC stays in player 0's hand
    last_draw = run(deal_c(), " ".join(DRAWN_SCRIPT.split()[:18]))  # player 1 took the face-up JH
    return [
        ("closed, voids", closed, 0, dict(opp_void=SUIT_MASKS[0] | SUIT_MASKS[2])),
        ("exchange", exchanged, 1, dict(opp_known=cards("JH"), trump_card=cards_of(cards("9H"))[0])),
        ("marriage", married, 1, dict(opp_known=cards("QC"))),
        ("last draw", last_draw, 0, dict(opp_known=cards("JH"), stock=0, unseen=cards("TC TD QC KS AH"))),
        ("first lead", deal_a(), 0, dict(opp_known=0, opp_void=0, stock=12)),
    ]


POSITIONS = _positions()


@pytest.mark.parametrize("name, state, p, known", POSITIONS, ids=[x[0] for x in POSITIONS])
def test_sampled_worlds_are_consistent(name, state, p, known):
    v = view(state, p)
    for field, value in known.items():
        assert getattr(v, field) == value, field
    rng = random.Random(1)
    for _ in range(200):
        assert_consistent(sample_state(v, rng), v)
    assert_consistent(resample(state, p, np.random.default_rng(2)), v)  # numpy generators work too


def test_view_basics():
    s = deal_a()
    v = view(s, 0)
    assert v.hand == s.hands[0] and v.legal_mask == s.legal_mask() and view(s, 1).legal_mask == 0
    assert (v.opp_hand_size, v.stock, v.talon_hidden, v.trump_card) == (6, 12, 11, s.trump_card)
    assert v.unseen == 0xFFFFFF & ~s.hands[0] & ~(1 << s.trump_card)
    assert v.unseen.bit_count() == 17
    with pytest.raises(ValueError, match="player"):
        view(s, 2)


def test_view_ignores_the_opponents_hidden_cards():
    s = deal_a()
    t = s.clone()  # swap a card of player 1's hand with a face-down talon card
    swap = cards("9C") | (1 << t.talon[0])
    t.hands[1] ^= swap
    t.talon = (cards_of(cards("9C"))[0],) + t.talon[1:]
    assert view(t, 0) == view(s, 0) and view(t, 1) != view(s, 1)
    assert view(t, 0).key() == view(s, 0).key()


def test_contradictory_view_is_a_value_error():
    v = view(run(deal_c(), "9C TC close continue 9S AS AC TD"), 0)
    v.opp_void |= v.unseen  # the opponent can hold none of the unseen cards
    with pytest.raises(ValueError, match="no world"):
        sample_state(v, 0)


def _z(count: int, n: int, p: float) -> float:
    return abs(count - n * p) / math.sqrt(n * p * (1 - p))


@pytest.mark.parametrize("name, state, p", [(x[0], x[1], x[2]) for x in POSITIONS[:1] + POSITIONS[-1:]])
def test_sampler_is_uniform(name, state, p):
    """Every card the opponent may hold is in its hand with probability k / |allowed|,
    and the next talon card is uniform over the rest (loose bounds, fixed seed)."""
    v = view(state, p)
    allowed = cards_of(v.unseen & ~v.opp_void)
    k = v.opp_hand_size - v.opp_known.bit_count()
    n = 4000
    rng = random.Random(12345)
    in_hand = dict.fromkeys(allowed, 0)
    next_draw: dict[int, int] = {}
    for _ in range(n):
        world = sample_state(v, rng)
        for c in allowed:
            in_hand[c] += world.hands[1 - p] >> c & 1
        first = world.talon[12 - world.stock]
        next_draw[first] = next_draw.get(first, 0) + 1
    assert max(_z(in_hand[c], n, k / len(allowed)) for c in allowed) < 4.5
    # Pearson chi-square of the next talon card over the cards that may lie there.
    talon_cells = cards_of(v.unseen)
    expected = [n * _p_first(c, v, allowed, k) for c in talon_cells]
    chi2 = sum((next_draw.get(c, 0) - e) ** 2 / e for c, e in zip(talon_cells, expected, strict=True))
    df = len(talon_cells) - 1
    assert chi2 < df + 6 * math.sqrt(2 * df)


def _p_first(card: int, v: PlayerView, allowed: list[int], k: int) -> float:
    """P(card is the first face-down talon card) under uniform worlds."""
    p_in_talon = 1.0 if card not in allowed else 1 - k / len(allowed)
    return p_in_talon / v.talon_hidden


def test_sampler_is_reproducible():
    s = deal(3)
    assert resample(s, 0, 7) == resample(s, 0, 7)
    assert len({resample(s, 0, seed).hands[1] for seed in range(20)}) > 1
