"""The observation encoder: layout, relativity, bounds and no hidden information."""

from __future__ import annotations

import random

import numpy as np
import pytest

from sixtysix_env import observation as ob
from sixtysix_env.actions import CLOSE, CONTINUE, EXCHANGE, MARRIAGE, N_ACTIONS
from sixtysix_env.cards import card_id, cards_of
from sixtysix_env.engine import LEAD, OVER, State, deal, fixed_deal
from sixtysix_env.knowledge import resample, view


def plane(obs: np.ndarray, offset: int) -> list[int]:
    return [int(i) for i in np.nonzero(obs[offset : offset + 24])[0]]


def random_states(n_deals: int, seed: int) -> list[State]:
    """Every state of ``n_deals`` random deals (random legal play)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n_deals):
        s = deal(rng)
        while not s.is_over:
            out.append(s.clone())
            s.apply(rng.choice(s.legal_actions()))
        out.append(s.clone())
    return out


STATES = random_states(40, seed=11)


def test_sizes_and_dtype():
    s = STATES[0]
    o = ob.encode(view(s, 0))
    assert o.shape == (ob.OBS_SIZE,) and o.dtype == np.float32
    f = ob.encode_full(s, 0)
    assert f.shape == (ob.FULL_OBS_SIZE,) and f.dtype == np.float32
    np.testing.assert_array_equal(f[: ob.OBS_SIZE], o)
    assert ob.OBS_LOW.shape == ob.OBS_HIGH.shape == (ob.OBS_SIZE,)


def test_encode_into_writes_a_preallocated_row():
    batch = np.full((3, ob.OBS_SIZE), 7.0, dtype=np.float32)
    for i, s in enumerate(STATES[:3]):
        ob.encode_into(view(s, s.to_act), batch[i])
        np.testing.assert_array_equal(batch[i], ob.encode(view(s, s.to_act)))


def test_encode_with_mask_agrees_with_encode():
    for s in STATES[:50]:
        v = view(s, s.to_act)
        obs, mask = ob.encode_with_mask(v)
        np.testing.assert_array_equal(obs, ob.encode(v))
        assert mask.dtype == np.int8 and mask.shape == (N_ACTIONS,)
        assert sum(1 << int(a) for a in np.nonzero(mask)[0]) == v.legal_mask


def test_layout_on_a_fixed_deal():
    hands = [["AC", "TC", "KH", "QH", "AS", "TS"], ["9C", "JC", "QC", "KC", "9H", "JS"]]
    talon = ["KS", "QS", "AD", "TD", "KD", "QD", "JD", "9D", "JH", "TH", "9S", "AH"]
    s = fixed_deal(hands, talon, dealer=1, match_scores=(3, 5))
    o = ob.encode(view(s, 0))
    assert plane(o, ob.HAND) == sorted(card_id(c) for c in hands[0])
    assert plane(o, ob.TRUMP_CARD) == [card_id("AH")]
    assert o[ob.TRUMP_SUIT : ob.TRUMP_SUIT + 4].tolist() == [0, 0, 1, 0]
    assert o[ob.WINDOW + LEAD] == 1 and o[ob.WINDOW : ob.WINDOW + 6].sum() == 1
    assert o[ob.MY_TURN] == 1 and o[ob.DEALER + 1] == 1 and o[ob.DEALER] == 0
    assert o[ob.TALON_SIZE_IX] == 1.0
    assert o[ob.MATCH : ob.MATCH + 2].tolist() == pytest.approx([3 / 7, 5 / 7])
    legal = set(np.nonzero(o[ob.LEGAL : ob.LEGAL + N_ACTIONS])[0])
    assert legal == {card_id(c) for c in hands[0]} | {MARRIAGE + 2, CLOSE}
    # The other seat: nothing of player 0's hand, no legal actions, match score mirrored.
    o1 = ob.encode(view(s, 1))
    assert plane(o1, ob.HAND) == sorted(card_id(c) for c in hands[1])
    assert o1[ob.LEGAL : ob.LEGAL + N_ACTIONS].sum() == 0 and o1[ob.MY_TURN] == 0
    assert o1[ob.DEALER] == 1 and o1[ob.MATCH : ob.MATCH + 2].tolist() == pytest.approx([5 / 7, 3 / 7])

    # Marriage shown, card led, close + exchange by the other player.
    s.apply(MARRIAGE + 2)
    o = ob.encode(view(s, 1))
    assert o[ob.SHOWN_OPP + 2] == 1 and o[ob.MARRIAGE_NOW + 2] == 1
    assert plane(o, ob.OPP_KNOWN) == [card_id("QH"), card_id("KH")]
    s.apply(card_id("QH"))
    o = ob.encode(view(s, 1))
    assert plane(o, ob.TABLE) == [card_id("QH")] and plane(o, ob.PLAYED_OPP) == [card_id("QH")]
    s.apply(card_id("9C"))  # player 0 wins with the trump queen
    o = ob.encode(view(s, 0))
    assert plane(o, ob.WON_ME) == [card_id("9C"), card_id("QH")]
    assert o[ob.SCORES] == pytest.approx(43 / 66) and o[ob.TRICKS] == pytest.approx(1 / 12)
    s.apply(CLOSE)
    s.apply(EXCHANGE)  # player 1 takes the face-up ace of hearts
    o = ob.encode(view(s, 0))
    assert o[ob.CLOSED_BY] == 1 and o[ob.CLOSER_OPP_NO_TRICK] == 1 and o[ob.EXCHANGED_BY + 1] == 1
    assert card_id("AH") in plane(o, ob.OPP_KNOWN)
    o1 = ob.encode(view(s, 1))
    assert card_id("AH") in plane(o1, ob.MY_KNOWN) and o1[ob.CLOSED_BY + 1] == 1


def test_full_observation_holds_the_hidden_cards():
    s = deal(random.Random(4))
    s.apply(s.legal_actions()[0])
    s.apply(s.legal_actions()[0])
    s.apply(CONTINUE)
    f = ob.encode_full(s, 0)
    assert plane(f, ob.OPP_HAND) == cards_of(s.hands[1])
    hidden = s.talon[12 - s.stock : 11]
    assert plane(f, ob.TALON_CARDS) == sorted(hidden)
    order = f[ob.TALON_ORDER : ob.TALON_ORDER + 24]
    assert [order[c] for c in hidden] == pytest.approx([(i + 1) / 12 for i in range(len(hidden))])


def test_bounds_and_binary_part_on_random_play():
    for s in STATES:
        for p in (0, 1):
            o = ob.encode(view(s, p))
            assert np.all(o >= ob.OBS_LOW) and np.all(o <= ob.OBS_HIGH)
            assert set(np.unique(o[: ob.N_BITS])) <= {0.0, 1.0}
            assert o[ob.WINDOW : ob.WINDOW + 6].sum() == 1
            mask = sum(1 << i for i in np.nonzero(o[ob.LEGAL : ob.LEGAL + N_ACTIONS])[0])
            assert mask == (s.legal_mask() if s.to_act == p and s.window != OVER else 0)


def test_no_leak_under_resampling():
    """RULES.md section 6: worlds the player cannot tell apart give the same observation."""
    rng = random.Random(5)
    for s in STATES[::3]:
        if s.is_over:
            continue
        for p in (0, 1):
            o = ob.encode(view(s, p))
            for _ in range(3):
                r = resample(s, p, rng)
                np.testing.assert_array_equal(ob.encode(view(r, p)), o)
                if s.to_act == p:
                    assert r.legal_mask() == s.legal_mask()


def test_encode_depends_on_hidden_cards_only_through_full():
    """The full observation does change under resampling (so the test above can fail)."""
    rng = random.Random(6)
    changed = 0
    for s in STATES[:60]:
        if s.is_over or s.stock == 0:
            continue
        r = resample(s, 0, rng)
        changed += not np.array_equal(ob.encode_full(r, 0), ob.encode_full(s, 0))
    assert changed > 0
