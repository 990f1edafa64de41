"""Opponent inference (agents/inference.py): what a lead reveals, and worlds that respect it."""

from __future__ import annotations

import random

import pytest

from agents import make_agent
from agents.ismcts import IsmctsAgent
from agents.search.inference import OpponentModel
from sixtysix_env.cards import KQ, card_id
from sixtysix_env.deals import deal, fixed_deal
from sixtysix_env.engine import OVER
from sixtysix_env.knowledge import sample_state, view

CLUBS, SPADES, HEARTS, DIAMONDS = range(4)

# Dealer 0, so player 1 leads. Trump: diamonds (AD face up). Player 1 holds
# the kings of spades and clubs, whose queens are in the talon.
HANDS = (["9C", "JC", "9H", "JH", "9D", "JD"], ["KS", "AS", "TS", "AC", "TC", "KC"])
TALON = ["QS", "9S", "JS", "QC", "QH", "KH", "TH", "AH", "QD", "KD", "TD", "AD"]


def follow_view_after(*actions: str):
    s = fixed_deal(HANDS, TALON, dealer=0).play(*actions)
    return s, view(s, 0)


def test_a_lead_without_a_marriage_denies_the_partner_and_every_pair():
    _, v = follow_view_after("KS")
    m = OpponentModel()
    m.observe(v)
    assert m.denied == {card_id("QS"): 12}
    # Clubs, hearts, diamonds: both halves unseen, so "not both"; spades has a denied queen.
    assert m.pairs == (1 << CLUBS) | (1 << HEARTS) | (1 << DIAMONDS)
    rng = random.Random(0)
    for _ in range(300):
        hand = m.sample(v, rng).hands[1]
        assert not hand >> card_id("QS") & 1
        assert all(hand & KQ[s] != KQ[s] for s in (CLUBS, HEARTS, DIAMONDS))


def test_without_inference_the_same_worlds_give_the_opponent_the_queen():
    # Guards the test above: uniform worlds do put QS in the opponent's hand.
    _, v = follow_view_after("KS")
    rng = random.Random(0)
    assert sum(sample_state(v, rng).hands[1] >> card_id("QS") & 1 for _ in range(300)) > 50


def test_a_shown_marriage_reveals_nothing_more_even_when_observed_twice():
    hands = (HANDS[0], ["KS", "QS", "TS", "AC", "TC", "KC"])
    talon = ["AS", "9S", "JS", "QC", "QH", "KH", "TH", "AH", "QD", "KD", "TD", "AD"]
    s = fixed_deal(hands, talon, dealer=0).play("marriage S", "KS")
    m = OpponentModel()
    m.observe(view(s, 0))
    m.observe(view(s, 0))
    assert m.denied == {} and m.pairs == 0


def test_leading_after_a_trick_without_exchanging_denies_the_trump_nine():
    hands = (["9C", "JC", "9H", "JH", "QD", "JD"], HANDS[1])
    talon = ["QS", "9S", "JS", "QC", "QH", "KH", "TH", "AH", "9D", "KD", "TD", "AD"]
    s = fixed_deal(hands, talon, dealer=0).play("AC", "9C", "continue", "TC")
    v = view(s, 0)
    assert v.tricks[1] == 1 and v.exchanged_by == -1
    m = OpponentModel()
    m.observe(v)
    assert m.denied.get(card_id("9D")) == 10


def test_a_denied_card_comes_back_with_the_opponents_draws():
    # QS denied at 12 cards; two tricks later (4 draws, 2 by the opponent, 8
    # left: 7 face down) it is in the opponent's hand with probability 2 / (2 + 7).
    talon = ["9S", "JS", "AH", "TH", "QS", "QC", "QH", "KH", "QD", "KD", "TD", "AD"]
    s = fixed_deal(HANDS, talon, dealer=0).play("KS")
    m = OpponentModel()
    m.observe(view(s, 0))
    s.play("9H", "continue", "AC")
    m.observe(view(s, 0))
    s.play("JC", "continue", "TS")
    v = view(s, 0)
    m.observe(v)
    qs = card_id("QS")
    assert v.stock == 8 and v.unseen >> qs & 1 and m.denied[qs] == 12
    m.pairs = 0  # test the draw rule alone ("not both halves" shifts the odds a little)
    rng = random.Random(1)
    n = 4000
    held = sum(m.sample(v, rng).hands[1] >> qs & 1 for _ in range(n)) / n
    assert abs(held - 2 / 9) < 0.03
    assert sum(sample_state(v, rng).hands[1] >> qs & 1 for _ in range(n)) / n > 0.35  # uniform: 5 / 12


def test_a_new_deal_forgets_the_record():
    _, v = follow_view_after("KS")
    m = OpponentModel()
    m.observe(v)
    other = deal(5, dealer=1, match_scores=(1, 0))
    m.observe(view(other, other.to_act))
    assert m.denied == {} and m.pairs == 0


def test_denials_are_never_wrong_against_players_that_show_and_exchange():
    # The heuristic shows every marriage and exchanges whenever it can, so what
    # the model denies (before the opponent draws again) is never in its hand.
    rng = random.Random(3)
    bots = [make_agent("heuristic", seed=0), make_agent("heuristic", seed=1)]
    checked = 0
    for _ in range(60):
        s = deal(rng)
        models = [OpponentModel(), OpponentModel()]
        while s.window != OVER:
            p = s.to_act
            v = view(s, p)
            m = models[p]
            m.observe(v)
            opp_hand = s.hands[1 - p]
            for card, stock in m.denied.items():
                if stock == s.stock and v.unseen >> card & 1:
                    assert not opp_hand >> card & 1
                    checked += 1
            if m.pairs_stock == s.stock:
                assert all(not m.pairs >> x & 1 or opp_hand & KQ[x] != KQ[x] for x in range(4))
            s.apply(bots[p].act(v))
    assert checked > 20


def test_ismcts_infers_by_default_and_pimc_does_not():
    _, v = follow_view_after("KS")
    bot = IsmctsAgent(seed=0, iterations=30)
    bot.act(v)
    assert bot.model is not None and card_id("QS") in bot.model.denied
    assert make_agent("pimc", seed=0).model is None
    assert make_agent("ismcts:infer=0", seed=0).model is None
    assert make_agent("pimc:infer=1", seed=0).model is not None


@pytest.mark.parametrize("spec", ["ismcts:infer=2", "pimc:infer=-1"])
def test_infer_is_zero_or_one(spec):
    with pytest.raises(ValueError, match="infer"):
        make_agent(spec)


def test_sample_state_opp_lacks_sends_cards_to_the_talon():
    _, v = follow_view_after("KS")
    rng = random.Random(2)
    lacks = (1 << card_id("QC")) | (1 << card_id("KH"))
    for _ in range(100):
        w = sample_state(v, rng, opp_lacks=lacks)
        assert not w.hands[1] & lacks
        assert w.known == [v.my_known, v.opp_known]  # a belief, not public knowledge
    with pytest.raises(ValueError, match="no world"):
        sample_state(v, rng, opp_lacks=v.unseen)
