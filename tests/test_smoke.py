"""Smoke test: the public API imports, and seeded random deals play to the end."""

import random

import sixtysix_env
from sixtysix_env import deal, fixed_deal, view


def test_public_api_plays_seeded_random_deals():
    rng = random.Random(0)
    for _ in range(20):
        s = deal(rng)
        while not s.is_over:
            s.apply(rng.choice(s.legal_actions()))
        assert s.result is not None and s.result.winner in (None, 0, 1)
    assert sixtysix_env.card_id("TH") == 16 and sixtysix_env.parse_action("close") == 29


def test_fixed_deal_by_names_and_a_view():
    s = fixed_deal(
        [["AC", "TC", "KC", "QC", "9H", "JS"], ["AH", "TH", "KS", "QS", "9C", "AS"]],
        ["9S", "JC", "TS", "9D", "JD", "QD", "KD", "TD", "AD", "QH", "KH", "JH"],
        dealer=1,
    ).play("AC", "9C", "continue")
    assert s.score(0) == 11 and view(s, 1).opp_hand_size == 6
