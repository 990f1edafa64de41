"""The pinned card ids, names and the 32-action table (docs/rules.md sections 1 and 5)."""

from __future__ import annotations

import numpy as np
import pytest

from sixtysix_env import actions
from sixtysix_env.actions import ACTION_NAMES, CLOSE, CONTINUE, DECLARE, EXCHANGE, MARRIAGE, N_ACTIONS
from sixtysix_env.cards import (
    CARD_NAMES,
    FULL_DECK,
    POINTS,
    SUIT_MASKS,
    TOTAL_POINTS,
    bits_of,
    card_id,
    card_name,
    cards_of,
    make_card,
    mask_of,
    names_of,
    parse_cards,
    points_of,
    rank_of,
    suit_of,
)


def test_pinned_card_ids_and_names():
    assert CARD_NAMES[0] == "9C" and CARD_NAMES[23] == "AD"
    assert CARD_NAMES[:6] == ("9C", "JC", "QC", "KC", "TC", "AC")
    assert [card_id(n) for n in ("9S", "TH", "KD", "AS")] == [6, 16, 21, 11]
    assert card_id("th") == card_id(" TH ") == 16 and card_id(np.int64(5)) == 5
    assert card_name(16) == "TH" and card_name("th") == "TH"
    assert all(card_id(n) == c for c, n in enumerate(CARD_NAMES))
    assert (suit_of(16), rank_of(16), make_card(2, 4)) == (2, 4, 16)


def test_points_and_suits():
    assert [POINTS[c] for c in range(6)] == [0, 2, 3, 4, 10, 11]
    assert sum(POINTS) == TOTAL_POINTS == 120
    assert points_of(FULL_DECK) == 120 and points_of(mask_of([4, 5])) == 21
    assert sum(SUIT_MASKS) == FULL_DECK and all(m.bit_count() == 6 for m in SUIT_MASKS)
    assert names_of(SUIT_MASKS[2]) == ["9H", "JH", "QH", "KH", "TH", "AH"]


def test_masks_round_trip():
    cards = [0, 7, 16, 23]
    assert cards_of(mask_of(cards)) == cards and cards_of(0) == []


@pytest.mark.parametrize("bits", [[], [0], [7, 8], [15, 16, 23], [24, 31], [0, 31, 32, 40, 63]])
def test_bits_of_finds_every_set_bit(bits):
    mask = sum(1 << b for b in bits)
    assert bits_of(mask) == bits and actions.actions_of(mask) == bits


def test_bits_of_rejects_negative_masks():
    with pytest.raises(ValueError, match="negative"):
        cards_of(-1)


@pytest.mark.parametrize("bad", ["1H", "TX", "T", "", "10H", "AHH", 24, -1, True, None, 1.5, [1]])
def test_bad_cards(bad):
    with pytest.raises(ValueError):
        card_id(bad)


def test_parse_cards():
    assert parse_cards(["TH", 0, "ad"]) == [16, 0, 23]
    with pytest.raises(ValueError, match="string"):
        parse_cards("TH AD")
    with pytest.raises(ValueError, match="'ZZ'"):
        parse_cards(["TH", "ZZ"])


def test_pinned_action_table():
    assert N_ACTIONS == len(ACTION_NAMES) == 32
    assert (MARRIAGE, EXCHANGE, CLOSE, DECLARE, CONTINUE) == (24, 28, 29, 30, 31)
    assert ACTION_NAMES[16] == "play TH"
    assert ACTION_NAMES[24:] == (
        "marriage C",
        "marriage S",
        "marriage H",
        "marriage D",
        "exchange",
        "close",
        "declare",
        "continue",
    )
    assert actions.action_name(29) == "close"


@pytest.mark.parametrize(
    "text, action",
    [("close", 29), ("Declare", 30), ("marriage H", 26), ("MARRIAGE d", 27), ("play TH", 16), ("th", 16)],
)
def test_parse_action_names(text, action):
    assert actions.parse_action(text) == action


def test_parse_action_ints():
    assert actions.parse_action(0) == 0 and actions.parse_action(np.int64(31)) == 31
    for bad in (32, -1, True, 1.5, None, "marriage X", "fold"):
        with pytest.raises(ValueError):
            actions.parse_action(bad)
    with pytest.raises(ValueError):
        actions.action_name(32)


def test_actions_of():
    assert actions.actions_of((1 << 31) | (1 << 29) | 1) == [0, 29, 31]
    assert actions.actions_of(0) == []


# ------------------------------------------------------------------ the one legality check
LEGAL = (1 << 0) | (1 << 29) | (1 << 31)  # play 9C, close, continue


def test_check_action_returns_the_int_or_names_the_legal_ones():
    assert actions.check_action(29, LEGAL) == 29 and type(actions.check_action(np.int64(0), LEGAL)) is int
    with pytest.raises(actions.IllegalActionError) as err:
        actions.check_action(30, LEGAL, lambda: " in the test")
    legal = "0 (play 9C), 29 (close), 31 (continue)"
    assert str(err.value) == f"illegal action 30 (declare) in the test; legal: {legal}"
    assert isinstance(err.value, ValueError) and (err.value.action, err.value.legal_mask) == (30, LEGAL)
    for bad in (True, 0.0, "0", None, -1, 32, 2**40):
        assert not actions.is_legal(bad, LEGAL)
        with pytest.raises(actions.IllegalActionError, match=r"illegal action .*; legal: 0 \(play 9C\)"):
            actions.check_action(bad, LEGAL)
    with pytest.raises(actions.IllegalActionError, match="no action is legal"):
        actions.check_action(0, 0)


def test_illegal_action_error_survives_pickling():
    import pickle

    with pytest.raises(actions.IllegalActionError) as err:
        actions.check_action(30, LEGAL)
    back = pickle.loads(pickle.dumps(err.value))
    assert (str(back), back.action, back.legal_mask) == (str(err.value), 30, LEGAL)


def test_describe_action():
    assert actions.describe_action(np.int64(24)) == "24 (marriage C)"
    assert actions.describe_action(40) == "40" and actions.describe_action(1.0) == "1.0"


def test_random_action_from_either_rng():
    import random

    py, npy = random.Random(0), np.random.default_rng(0)
    for rng in (py, npy):
        assert {actions.random_action(LEGAL, rng) for _ in range(60)} == {0, 29, 31}
    assert actions.random_action(LEGAL, random.Random(5)) == random.Random(5).choice([0, 29, 31])
