"""The observation encoder: layout (against a recorded fixture), the feature
table and what derives from it, relativity, bounds and no hidden information."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import numpy as np
import pytest
from helpers import random_states

from sixtysix_env import observation as ob
from sixtysix_env.actions import CLOSE, CONTINUE, EXCHANGE, MARRIAGE, N_ACTIONS
from sixtysix_env.cards import N_CARDS, card_id, cards_of, make_card, rank_of, suit_of
from sixtysix_env.deals import deal, fixed_deal
from sixtysix_env.engine import LEAD, OVER, State
from sixtysix_env.knowledge import resample, view

FIXTURE = Path(__file__).parent / "data" / "observation_layout.npz"


def plane(obs: np.ndarray, offset: int) -> list[int]:
    return [int(i) for i in np.nonzero(obs[offset : offset + 24])[0]]


STATES = random_states(40, seed=11, final=True)


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
    """docs/rules.md section 6: worlds the player cannot tell apart give the same observation."""
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


# ------------------------------------------------------------------ the layout and the feature table
def fixture_positions(data: dict) -> list[tuple[State, int]]:
    """The recorded positions: each deal replayed from its cards and actions."""
    out = []
    for d, t, p in data["records"].tolist():
        c = data["cards"][d].tolist()
        s = fixed_deal([c[:6], c[6:12]], c[12:], int(data["dealers"][d]), data["match_scores"][d].tolist())
        s.play(*data["actions"][d, :t].tolist())
        out.append((s, p))
    return out


def test_layout_matches_the_recorded_fixture():
    """Bit for bit what the encoder wrote before the feature table existed
    (recorded at commit 1abf89f): positions, bounds and suit permutations."""
    data = dict(np.load(FIXTURE))
    positions = fixture_positions(data)
    obs = np.array([ob.encode(view(s, p)) for s, p in positions])
    full = np.array([ob.encode_full(s, p) for s, p in positions])
    assert obs.tobytes() == data["obs"].tobytes() and full.tobytes() == data["full_obs"].tobytes()
    for name, got in (("low", ob.OBS_LOW), ("high", ob.OBS_HIGH), ("full_low", ob.FULL_OBS_LOW),
                      ("full_high", ob.FULL_OBS_HIGH)):
        assert got.dtype == np.float32 and got.tobytes() == data[name].tobytes(), name
    for perm, obs_src, act_src in zip(data["perms"], data["obs_src"], data["act_src"], strict=True):
        got_obs, got_act = ob.suit_permutation(tuple(perm.tolist()))
        assert np.array_equal(got_obs, obs_src) and np.array_equal(got_act, act_src)


def test_docstring_tables_are_the_generated_ones():
    """Edit FEATURES, then paste ``feature_table(...)`` into the module docstring."""
    assert ob.feature_table(ob.FEATURES) in ob.__doc__
    assert ob.feature_table(ob.FULL_FEATURES) in ob.__doc__


def test_every_feature_has_its_constant_and_the_table_is_dense():
    end = 0
    for f in ob.FEATURES + ob.FULL_FEATURES:
        assert getattr(ob, f.name) == f.offset, f.name
        assert f.offset >= end
        end = f.offset + f.size
    assert (ob.N_BITS, ob.OBS_SIZE, ob.FULL_OBS_SIZE) == (304, 312, 384)
    assert ob.N_BITS % 8 == 0 and ob.OBS_SIZE % 8 == 0 and ob.FEATURE["TALON_SIZE_IX"].offset == ob.N_BITS
    assert ob.SEEN_PLANES == (ob.HAND, ob.WON_ME, ob.WON_OPP, ob.TABLE, ob.TRUMP_CARD)


def test_the_encoder_sets_every_feature():
    """A feature row without its encoder line would stay zero: some position sets each one."""
    obs = np.array([ob.encode(view(s, p)) for s in STATES for p in (0, 1)])
    for f in ob.FEATURES:
        assert obs[:, f.offset : f.offset + f.size].any(), f.name
    assert not obs[:, ob.N_BITS - 1].any()  # the padding bit


def rename(s: State, perm: tuple[int, ...]) -> State:
    """``s`` with suit ``x`` renamed ``perm[x]`` in every card, set and suit."""

    def card(c: int) -> int:
        return make_card(perm[suit_of(c)], rank_of(c)) if c >= 0 else c

    def cards(mask: int) -> int:
        return sum(1 << card(c) for c in cards_of(mask))

    def suits(bits: int) -> int:
        return sum(1 << perm[x] for x in range(4) if bits >> x & 1)

    t = s.clone()
    t.hands, t.won, t.played, t.known, t.void = (
        [cards(m) for m in pair] for pair in (s.hands, s.won, s.played, s.known, s.void)
    )
    t.shown = [suits(m) for m in s.shown]
    t.talon = tuple(card(c) for c in s.talon)
    t.trump, t.trump_card, t.lead_card = perm[s.trump], card(s.trump_card), card(s.lead_card)
    t.marriage_suit = perm[s.marriage_suit] if s.marriage_suit >= 0 else -1
    return t


@pytest.mark.parametrize("perm", [(1, 0, 2, 3), (2, 3, 0, 1), (3, 1, 0, 2)])
def test_suit_permutation_gathers_the_renamed_position(perm):
    obs_src, act_src = ob.suit_permutation(perm)
    for s in STATES[::4]:
        t = rename(s, perm)
        for p in (0, 1):
            np.testing.assert_array_equal(ob.encode(view(s, p))[obs_src], ob.encode(view(t, p)))
        legal = ob.mask_to_array(s.legal_mask())
        np.testing.assert_array_equal(legal[act_src], ob.mask_to_array(t.legal_mask()))
    with pytest.raises(ValueError, match="permutation"):
        ob.suit_permutation((0, 0, 1, 2))


def test_unseen_cards_are_the_opponent_hand_and_the_hidden_talon():
    for s in STATES[::5]:
        for p in (0, 1):
            face_down = s.talon[12 - s.stock : 11] if s.stock else ()
            hidden = s.hands[1 - p] | sum(1 << c for c in face_down)
            expected = [float(hidden >> c & 1) for c in range(N_CARDS)]
            assert ob.unseen_cards(ob.encode(view(s, p))).tolist() == expected
    batch = np.array([ob.encode(view(s, s.to_act)) for s in STATES[:6]])
    assert ob.unseen_cards(batch).shape == (6, N_CARDS)
    torch = pytest.importorskip("torch")
    t = ob.unseen_cards(torch.from_numpy(batch))
    assert isinstance(t, torch.Tensor) and np.array_equal(t.numpy(), ob.unseen_cards(batch))


def test_mask_to_array_one_or_many():
    assert ob.mask_to_array(0b101).tolist() == [True, False, True] + [False] * 29
    masks = [s.legal_mask() for s in STATES[:5]]
    out = np.zeros((5, N_ACTIONS), bool)
    assert ob.mask_to_array(np.array(masks), out=out) is out
    for m, row in zip(masks, out, strict=True):
        assert sum(1 << int(a) for a in np.flatnonzero(row)) == m


def test_every_suit_permutation_is_a_bijection():
    for perm in itertools.permutations(range(4)):
        obs_src, act_src = ob.suit_permutation(perm)
        assert sorted(obs_src.tolist()) == list(range(ob.OBS_SIZE))
        assert sorted(act_src.tolist()) == list(range(N_ACTIONS))
