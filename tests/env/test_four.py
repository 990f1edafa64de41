"""Four-player partnership Sixty-Six (docs/rules-four.md): scripted deals, the
strict rules table, random-play properties, the AEC env's PettingZoo tests
and the leak test per seat."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, render_test, seed_test

from sixtysix_env.actions import ACTION_NAMES, IllegalActionError
from sixtysix_env.aec_four import OBS4_SIZE, env
from sixtysix_env.cards import card_id, mask_of, points_of
from sixtysix_env.engine import FOLLOW, LEAD
from sixtysix_env.four import FOUR_IDS, FourRules, follow_cards
from sixtysix_env.four_deals import deal_four, fixed_four, next_four
from sixtysix_env.four_knowledge import resample_four, view_four
from sixtysix_env.scoring import DECLARED, DRAWN, FALSE_DECLARATION, LAST_TRICK


def legal(s) -> set[str]:
    return {ACTION_NAMES[a][5:] if a < 24 else ACTION_NAMES[a] for a in s.legal_actions()}


def cards(names: str) -> int:
    return mask_of(card_id(c) for c in names.split())


def names(mask: int) -> set[str]:
    return {ACTION_NAMES[c][5:] for c in range(24) if mask >> c & 1}


HANDS = [
    "AC TC KC QC 9H JS".split(),
    "9C JC AH TH KS QS".split(),
    "AS TS 9S KH QH JH".split(),
    "AD TD KD QD JD 9D".split(),  # dealer 3: 9D turned, diamonds are trumps
]


def table() -> object:
    return fixed_four(HANDS, dealer=3)


# ------------------------------------------------------------- strict rules (F3)
@pytest.mark.parametrize(
    "hand, trick, head, expected",
    [
        ("9C AC KS", "QC", True, "AC"),  # follow suit and head the trick
        ("9C JC KS", "QC", True, "9C JC"),  # cannot head: any card of the suit
        ("9C AC KS", "QC", False, "9C AC"),  # head_trick off: any card of the suit
        ("AC 9C KS", "QC 9H", True, "AC 9C"),  # trumped: follow suit, no need to head
        ("KS 9H AH", "QC JH", True, "AH"),  # void: over-trump when able
        ("KS 9H", "QC JH", True, "9H"),  # void: must trump even under
        ("KS TS", "QC JH", True, "KS TS"),  # neither suit nor trump: anything
        ("9H AH KS", "JH", True, "AH"),  # trump led: follow and head
    ],
)
def test_follow_rules_table(hand, trick, head, expected):
    t = [card_id(c) for c in trick.split()]
    assert names(follow_cards(cards(hand), t, trump=2, head=head)) == set(expected.split())


# ------------------------------------------------------------ scripted deals
def test_first_lead_trump_card_and_opponents_cannot_show():
    s = table()
    assert (s.window, s.to_act, s.trump, s.trump_card) == (LEAD, 0, 3, card_id("9D"))
    assert legal(s) == {"AC", "TC", "KC", "QC", "9H", "JS", "marriage C"}
    assert view_four(s, 1).known[3] == cards("9D")  # the dealer's turned card is public
    s.play("marriage C", "QC")
    assert legal(s) == {"9C", "JC"}  # seat 1 holds KS QS, but only the leader's partner may show
    s.play("JC")
    assert legal(s) == {"AS", "TS", "9S", "KH", "QH", "JH", "marriage H"}  # partner: show, then any
    s.play("marriage H")
    assert s.window == FOLLOW and s.to_act == 2 and "marriage H" not in legal(s)
    s.play("9S")
    assert legal(s) == {"AD", "TD", "KD", "QD", "JD", "9D"}  # void in clubs: must trump
    s.play("9D")
    assert (s.to_act, s.tricks, s.points) == (3, [0, 1], [0, 5])
    assert (s.score(0), s.score(1)) == (0, 5)  # team 0's 40 wait for a trick
    assert s.void[2] == cards("9C JC QC KC TC AC 9D JD QD KD TD AD")


def test_false_declaration_gives_the_other_team_two():
    s = table().play("marriage C", "QC", "JC", "marriage H", "9S", "9D", "declare")
    assert (s.result.winner, s.result.game_points, s.result.reason) == (0, 2, FALSE_DECLARATION)
    assert s.match_scores == [2, 0]


def test_partner_marriage_and_a_correct_declaration():
    s = table().play("marriage C", "QC", "JC", "marriage H", "9S", "9D")
    s.play("AD", "AC", "marriage S", "9C", "JH")  # seat 1 shows spades on its partner's lead
    assert (s.to_act, s.points[1], s.score(1)) == (3, 5 + 24, 5 + 24 + 20)
    s.play("TD", "TC", "QS", "TS")
    assert s.score(1) == 82 and legal(s) >= {"declare"}
    s.play("declare")
    assert (s.result.winner, s.result.game_points, s.result.reason) == (1, 3, DECLARED)  # team 0: no trick


def test_illegal_action_and_bad_deals_are_named_errors():
    with pytest.raises(IllegalActionError, match="player_1 in the follow window"):
        table().play("AC", "KS")
    with pytest.raises(ValueError, match="hands\\[2\\] has 5 cards"):
        fixed_four([HANDS[0], HANDS[1], HANDS[2][:5], HANDS[3]])
    with pytest.raises(ValueError, match="duplicate cards"):
        fixed_four([HANDS[0], HANDS[0], HANDS[2], HANDS[3]])
    with pytest.raises(ValueError, match="dealer must be a seat"):
        fixed_four(HANDS, dealer=4)


def test_last_trick_bonus_draws_and_the_next_dealer():
    rng = random.Random(1)
    reasons = set()
    for _ in range(400):
        s = deal_four(rng, dealer=2)
        while not s.is_over:
            s.apply(rng.choice([a for a in s.legal_actions() if a != 30] or s.legal_actions()))
        reasons.add(s.result.reason)
        assert s.result.reason in (LAST_TRICK, DRAWN) and sum(s.points) == 130
        assert next_four(s, rng).dealer == (2 if s.result.reason == DRAWN else 3)  # F7.2
    assert reasons == {LAST_TRICK, DRAWN}


def test_a_marriage_is_shown_once():
    """Seat 2 shows hearts on its partner's lead, keeps KH QH, wins the trick:
    leading, it cannot show them again (nor declare on the strength of it)."""
    hands = ["9S KS TS 9C JC QC", "JS KC TC AC 9D JD", "AS KH QH 9H JH TH", "QS AH QD KD TD AD"]
    s = fixed_four([h.split() for h in hands], dealer=3)
    s.play("9S")
    assert legal(s) == {"JS"}
    s.play("JS", "marriage H", "AS", "QS")
    assert (s.to_act, s.window, s.score(0)) == (2, LEAD, 11 + 2 + 3 + 0 + 20)
    assert legal(s) == {"KH", "QH", "9H", "JH", "TH", "declare"}


def test_registered_with_pettingzoo():
    from pettingzoo.env_registry.registration import make

    e = make("aec", "sixtysix_four_v0")
    e.reset(seed=1)
    assert e.agents == list(FOUR_IDS)


def test_rules_parameters_change_play():
    s = fixed_four(HANDS, dealer=3, rules=FourRules(partner_marriage=False)).play("marriage C", "QC", "JC")
    assert "marriage H" not in legal(s)


# ---------------------------------------------------------------- properties
@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_play_invariants_and_no_leak(seed):
    rng = random.Random(seed)
    s = deal_four(rng)
    while not s.is_over:
        assert s.legal_mask()
        p = rng.randrange(4)
        assert view_four(resample_four(s, p, rng), p) == view_four(s, p)
        s.apply(rng.choice(s.legal_actions()))
        everything = sum(s.hands) | sum(s.played)
        assert everything == (1 << 24) - 1 and sum(h.bit_count() for h in s.hands) + sum(
            m.bit_count() for m in s.played
        ) == 24
    r = s.result
    bonus = 10 if r.reason in (LAST_TRICK, DRAWN) else 0
    assert points_of(s.won[0]) + points_of(s.won[1]) + bonus == sum(s.points)
    assert (r.winner is None) == (r.game_points == 0) and 0 <= r.game_points <= 3


# ------------------------------------------------------------------ the env
def test_pettingzoo_api_seed_and_render():
    api_test(env(), num_cycles=200)
    api_test(env(episode="deal"), num_cycles=200)
    seed_test(env, num_cycles=200)
    render_test(env)


def test_team_rewards_and_conventions():
    e = env(episode="deal")
    e.reset(seed=3, options={"dealer": 3, "hands": HANDS})
    obs = e.observe("player_1")
    assert obs["observation"].shape == (OBS4_SIZE,) and obs["observation"].dtype == np.float32
    assert not obs["action_mask"].any() and e.observe("player_0")["action_mask"].sum() == 7
    for a in ("marriage C", "QC", "JC", "marriage H", "9S", "9D", "declare"):
        e.step(ACTION_NAMES.index(a) if a.startswith("marriage") or a == "declare" else card_id(a))
    assert e.rewards == {"player_0": 2.0, "player_1": -2.0, "player_2": 2.0, "player_3": -2.0}
    assert all(e.terminations.values())
    with pytest.raises(ValueError, match="episode must be one of"):
        env(episode="rubber")


def test_env_shows_no_seat_what_it_may_not_know():
    rng = random.Random(0)
    shown = {p: env(render_mode="ansi", render_view=FOUR_IDS[p]) for p in range(4)}
    for e in shown.values():
        e.reset(seed=0)
    for _ in range(40):
        s = deal_four(rng)
        while not s.is_over:
            for p, e in shown.items():
                e.unwrapped.game_state = s
                before = (e.observe(FOUR_IDS[p]), e.render())
                e.unwrapped.game_state = resample_four(s, p, rng)
                after = (e.observe(FOUR_IDS[p]), e.render())
                assert np.array_equal(before[0]["observation"], after[0]["observation"])
                assert np.array_equal(before[0]["action_mask"], after[0]["action_mask"])
                assert before[1] == after[1]
            s.apply(rng.choice(s.legal_actions()))
