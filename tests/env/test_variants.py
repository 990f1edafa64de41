"""Rule presets (docs/rules-variants.md): specs, scripted scenarios of each
preset's differing rules, and a property run per preset.

Deals are fixed card by card and played with ``State.play``, as in
test_engine_rules.py; expected values were worked out by hand from the
preset's section of the rules document (cited per test).
"""

from __future__ import annotations

import copy
import pickle
import random
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sixtysix_env.actions import ACTION_NAMES, CLOSE, DECLARE
from sixtysix_env.cards import CARD_NAMES, FULL_DECK, card_id, points_of
from sixtysix_env.deals import deal, fixed_deal, next_bonus, next_deal
from sixtysix_env.engine import CLOSE_RESPONSE, LEAD, OVER, State
from sixtysix_env.knowledge import resample, view
from sixtysix_env.scoring import (
    CLOSER_BEATEN,
    CLOSER_FAILED,
    DRAWN,
    FALSE_DECLARATION,
    LAST_TRICK,
    WIN_SCORE,
    declaration,
)
from sixtysix_env.variant_rules import RulesState, VariantState
from sixtysix_env.variants import (
    GERMAN,
    PRESETS,
    RulesConflictError,
    UnknownRulesError,
    rules_from_spec,
)

SPECS = ["german", "german+draw_bonus+double_game", "kawu", "kawu+double_game", "schnapsen", "schnapsen-pkg"]


def legal(s: State) -> set[str]:
    return {ACTION_NAMES[a][5:] if a < 24 else ACTION_NAMES[a] for a in s.legal_actions()}


def deal_of(p0: str, p1: str, up: str, top: str = "", rules: str = "german", dealer: int = 1, scores=(0, 0)):
    """A fixed deal: hands, the face-up card ``up``, the talon drawn in the order
    ``top`` and then the preset's other cards in id order. Dealer 1: player 0 leads."""
    r = rules_from_spec(rules)
    fixed = (p0 + " " + p1 + " " + top + " " + up).split()
    rest = [CARD_NAMES[c] for c in r.cards if CARD_NAMES[c] not in fixed]
    return fixed_deal([p0.split(), p1.split()], top.split() + rest + [up], dealer, scores, rules=r)


def schnapsen_deal(rules: str) -> State:
    """20 cards, trumps hearts (KH up). Player 0: trump jack, spades marriage;
    player 1: clubs marriage. Player 0 draws JS first, player 1 QH."""
    return deal_of("JH AC TC KS QS", "AS TS KC QC JC", "KH", "JS QH TH AH", rules)


def german_deal(rules: str) -> State:
    """24 cards, trumps hearts (JH up). Player 0: clubs marriage and the trump nine;
    player 1: spades marriage (the deal_a of test_engine_rules.py)."""
    return deal_of("AC TC KC QC 9H JS", "AH TH KS QS 9C AS", "JH", "9S JC TS 9D JD QD KD TD AD QH KH", rules)


# ------------------------------------------------------------------ specs (V0)
def test_specs_build_presets_and_round_trip():
    assert rules_from_spec(None) is GERMAN and rules_from_spec("german") is GERMAN
    assert rules_from_spec("German") is GERMAN
    r = rules_from_spec("german+draw_bonus+double_game")
    assert r.draw_bonus and r.double_game and r.spec == "german+draw_bonus+double_game"
    assert rules_from_spec("german+double-game").double_game
    for spec in SPECS:
        assert rules_from_spec(rules_from_spec(spec).spec) == rules_from_spec(spec)
    assert rules_from_spec(r) is r
    assert set(PRESETS) == {"german", "kawu", "schnapsen", "schnapsen-pkg"}


@pytest.mark.parametrize(
    "spec, error, words",
    [
        ("austrian", UnknownRulesError, "unknown rules preset 'austrian'"),
        ("", UnknownRulesError, "unknown rules preset ''"),
        ("german+bonus", UnknownRulesError, "unknown rules switch 'bonus'"),
        ("german+draw_bonus+draw_bonus", RulesConflictError, "given twice"),
        ("schnapsen-pkg+draw_bonus", RulesConflictError, "V1.2"),
        ("schnapsen+draw_bonus", RulesConflictError, "no drawn deals"),
        ("kawu+draw_bonus", RulesConflictError, "no drawn deals"),
        ("schnapsen-pkg+double_game", RulesConflictError, "V1.3"),
        (7, UnknownRulesError, "spec string"),
    ],
)
def test_bad_specs_are_named_errors(spec, error, words):
    with pytest.raises(error, match=words.replace("(", r"\(")):
        rules_from_spec(spec)
    with pytest.raises(ValueError):
        deal(0, rules=spec)


def test_hand_made_rules_are_checked_and_deal_right():
    from dataclasses import replace

    from sixtysix_env.variants import check_rules

    with pytest.raises(RulesConflictError, match="exchange card is not in the deck"):
        check_rules(replace(GERMAN, deck=PRESETS["schnapsen"].deck))
    with pytest.raises(RulesConflictError, match="leave a talon of 0"):
        check_rules(replace(GERMAN, hand_size=12))
    # German play with a smaller deck (no aces): a RulesState drawing from a 10-card talon.
    aces = sum(1 << (6 * s + 5) for s in range(4))
    no_aces = replace(GERMAN, name="no-aces", deck=FULL_DECK & ~aces, hand_size=5)
    check_rules(no_aces)
    rng = random.Random(0)
    for _ in range(30):
        s = deal(rng, rules=no_aces)
        assert type(s) is RulesState and len(s.talon) == 10
        while not s.is_over:
            s.apply(rng.choice([a for a in s.legal_actions() if a != DECLARE] or s.legal_actions()))
            assert (s.hands[0] | s.hands[1] | s.played[0] | s.played[1]) & ~no_aces.deck == 0
        assert s.played[0] | s.played[1] == no_aces.deck or s.closed_by >= 0


def test_german_is_the_default_and_unchanged():
    for seed in range(50):
        a, b = deal(seed), deal(seed, rules="german+draw_bonus+double_game")
        assert type(a) is State and type(b) is RulesState  # German play, own rules and bonus
        assert (a.hands, a.talon, a.dealer) == (b.hands, b.talon, b.dealer)
    assert GERMAN.talon_size == 12 and GERMAN.cards == tuple(range(24))
    for spec in ("kawu", "schnapsen", "schnapsen-pkg"):
        assert type(deal(0, rules=spec)) is VariantState


@pytest.mark.parametrize("spec", SPECS)
def test_preset_states_copy_and_pickle_whole(spec):
    s = deal(1, rules=spec, bonus=2 if "draw_bonus" in spec else 0)
    s.apply(s.legal_actions()[0])
    for t in (pickle.loads(pickle.dumps(s)), copy.deepcopy(s), copy.copy(s), s.clone()):
        assert type(t) is type(s) and t == s and (t.rules, t.bonus, t.held) == (s.rules, s.bonus, s.held)
        t.hands[0] = 0
        assert s.hands[0] and t != s


def test_schnapsen_deals_twenty_cards_without_nines():
    for spec in ("schnapsen", "schnapsen-pkg"):
        s = deal(3, rules=spec)
        assert [h.bit_count() for h in s.hands] == [5, 5] and len(s.talon) == 10 and s.stock == 10
        assert s.hands[0] | s.hands[1] | sum(1 << c for c in s.talon) == rules_from_spec(spec).deck
        assert all(c % 6 != 0 for c in s.talon)  # no nines
    talon = "JC AH TH KH QH JH AD TD KD QD".split()
    with pytest.raises(ValueError, match="not in the schnapsen deck: 9C"):
        fixed_deal([["9C", "AC", "TC", "KC", "QC"], ["AS", "TS", "KS", "QS", "JS"]], talon, rules="schnapsen")
    with pytest.raises(ValueError, match="hands\\[0\\] has 6 cards, expected 5"):
        german_deal("schnapsen")


# ------------------------------------------------------------- Schnapsen (V3)
def test_schnapsen_exchange_is_the_trump_jack_after_a_trick():
    s = schnapsen_deal("schnapsen")
    assert legal(s) == {"JH", "AC", "TC", "KS", "QS", "marriage S", "close"}  # no exchange without a trick
    s.play("AC", "JC")  # player 0 wins 13; both draw at once (no draw window, V3.4)
    assert (s.window, s.to_act, s.stock) == (LEAD, 0, 8)
    assert [h.bit_count() for h in s.hands] == [5, 5] and s.hands[0] >> card_id("JS") & 1
    assert legal(s) >= {"exchange", "close", "declare", "marriage S"}
    s.play("exchange")
    assert CARD_NAMES[s.trump_card] == "JH" and s.hands[0] >> card_id("KH") & 1  # holds KH now


def test_schnapsen_marriages_after_closing():
    s = schnapsen_deal("schnapsen").play("AC", "JC", "close")
    assert (s.window, s.to_act) == (CLOSE_RESPONSE, 1)
    s.play("continue")
    assert "marriage S" in legal(s)  # V3.5: the talon is closed, marriages still count
    s.play("marriage S", "KS")
    assert s.score(0) == 13 + 20
    g = german_deal("german").play("AC", "9C", "close", "continue")
    assert not any(a.startswith("marriage") for a in legal(g))  # the German game forbids it


def test_schnapsen_last_trick_wins_one_and_adds_nothing():
    rng = random.Random(5)
    seen = 0
    for _ in range(300):
        s = deal(rng, rules="schnapsen")
        while not s.is_over:
            acts = [a for a in s.legal_actions() if a not in (DECLARE, CLOSE)] or s.legal_actions()
            s.apply(rng.choice(acts))
        if s.result.reason == LAST_TRICK:
            seen += 1
            assert sum(s.points) == 120 and s.result.winner == s.to_act
            assert s.result.game_points == 1 or s.score(s.result.winner) >= WIN_SCORE
        assert s.result.reason != DRAWN
    assert seen > 20


# ----------------------------------------------------- the package's game (V4)
def test_pkg_exchange_without_trick_no_close_no_declare():
    s = schnapsen_deal("schnapsen-pkg")
    assert legal(s) == {"JH", "AC", "TC", "KS", "QS", "marriage S", "exchange"}
    s.play("AC", "JC")
    assert "declare" not in legal(s) and "close" not in legal(s)


def test_pkg_marriage_leads_the_king_and_counts_at_the_next_trick():
    s = schnapsen_deal("schnapsen-pkg").play("AC", "JC")  # player 0: 13, drew JS
    s.play("marriage S")
    assert legal(s) == {"KS"}  # V4.4: the king is led
    assert s.score(0) == 13  # V4.3: pending until the next trick won
    a = schnapsen_deal("schnapsen").play("AC", "JC", "marriage S")
    assert a.score(0) == 33 and legal(a) == {"KS", "QS", "close", "declare"}
    s.play("KS", "AS")  # player 1 wins 15
    assert (s.score(0), s.score(1)) == (13, 15)
    s.play("TS", "JS")  # player 1 leads TS, player 0 throws JS: still pending
    assert s.score(0) == 13
    s.play("QC", "AH")  # player 0 trumps the QC: 14 points and the 20 count
    assert (s.tricks[0], s.score(0)) == (2, 13 + 14 + 20)


def test_pkg_deal_ends_at_66_and_is_the_whole_match():
    rng = random.Random(2)
    for _ in range(200):
        s = deal(rng, rules="schnapsen-pkg")
        while not s.is_over:
            assert max(s.score(0), s.score(1)) < WIN_SCORE  # checked after every trick
            s.apply(rng.choice(s.legal_actions()))
        assert s.match_over and s.match_winner == s.result.winner
        with pytest.raises(ValueError, match="match is over"):
            next_deal(s, rng)


# ---------------------------------------------------------------- kawu (V2)
def test_kawu_marriage_without_a_trick_is_lost():
    k = german_deal("kawu").play("marriage C", "KC", "9C")
    g = german_deal("german").play("marriage C", "KC", "9C")
    assert g.score(0) == 4 + 20  # German: counts once a trick is taken
    assert k.score(0) == 4  # kawu: shown before the first trick, lost (V2.2)
    assert k.window == LEAD and k.stock == 10  # no draw window: both drew (V2.3)
    k.play("9S", "AS", "marriage S")  # player 1 has a trick: its marriage counts
    assert k.score(1) == 11 + 20


def test_kawu_close_has_no_response_window_and_false_claims_cost_three():
    k = german_deal("kawu").play("close")
    assert (k.window, k.to_act) == (LEAD, 0)  # V2.4
    assert german_deal("german").play("close").window == CLOSE_RESPONSE
    k = german_deal("kawu").play("AC", "9C", "declare")
    assert (k.result.winner, k.result.game_points, k.result.reason) == (1, 3, FALSE_DECLARATION)
    g = german_deal("german").play("AC", "9C", "declare")
    assert (g.result.winner, g.result.game_points) == (1, 2)


def test_kawu_beating_the_closer_scores_like_a_failed_close():
    def beaten(rules: str, opp_tricks_at_close: int, opp_tricks: int = 2) -> tuple:
        s = SimpleNamespace(
            rules=rules_from_spec(rules), closed_by=0, closer_opp_tricks=opp_tricks_at_close,
            tricks=[1, opp_tricks], score=lambda p: (40, 70)[p],
        )
        return declaration(s, 1)

    assert beaten("german", 0) == (1, 2, CLOSER_BEATEN)
    # kawu counts the claimant's tricks over the whole deal (V2.6): a claim of 66 needs one.
    assert beaten("kawu", 0) == (1, 2, CLOSER_BEATEN)
    assert beaten("kawu", 0, 0) == (1, 3, CLOSER_BEATEN)
    assert beaten("kawu", 1) == (1, 2, CLOSER_BEATEN)


def test_failed_close_counts_the_opponents_tricks_at_the_close_in_german():
    """docs/rules.md 4.2: player 1 had no trick when player 0 closed, then took
    four; the failed close still pays 3."""
    s = german_deal("german").play("close", "continue")
    s.play("AC", "9C", "TC", "TH", "AS", "JS", "KS", "9H", "KC", "AH", "QS", "QC", "continue")
    assert s.tricks == [2, 4] and s.closer_opp_tricks == 0
    assert (s.result.winner, s.result.game_points, s.result.reason) == (1, 3, CLOSER_FAILED)


def test_kawu_failed_close_counts_the_opponents_tricks_over_the_whole_deal():
    """V2.6: "the opponent scores 2 game points, or 3 if they took no trick":
    player 1 had no trick at the close but took four after it, so 2; with no
    trick in the whole deal, 3."""
    s = german_deal("kawu").play("close")
    s.play("AC", "9C", "TC", "TH", "AS", "JS", "KS", "9H", "KC", "AH", "QS", "QC", "continue")
    assert s.tricks == [2, 4] and s.closer_opp_tricks == 0
    assert (s.result.winner, s.result.game_points, s.result.reason) == (1, 2, CLOSER_FAILED)
    rng = random.Random(5)
    seen = {2: 0, 3: 0}
    for _ in range(400):
        s = deal(rng, rules="kawu")
        s.apply(CLOSE)
        while not s.is_over:
            acts = [a for a in s.legal_actions() if a != DECLARE] or s.legal_actions()
            s.apply(rng.choice(acts))
        if s.result.reason == CLOSER_FAILED:
            opp = 1 - s.closed_by
            assert s.result.game_points == (3 if s.tricks[opp] == 0 else 2)
            seen[s.result.game_points] += 1
    assert seen[2] and seen[3], seen


def test_kawu_last_trick_wins_one_without_bonus():
    rng = random.Random(9)
    seen = 0
    for _ in range(300):
        s = deal(rng, rules="kawu")
        while not s.is_over:
            acts = [a for a in s.legal_actions() if a not in (DECLARE, CLOSE)] or s.legal_actions()
            s.apply(rng.choice(acts))
        if s.result.reason == LAST_TRICK:
            seen += 1
            assert sum(s.points) == 120 and s.result.winner == s.to_act
            assert s.result.game_points == 1
    assert seen > 20


# ------------------------------------------------- the German switches (V1)
def drawn_deal(spec: str) -> State:
    rng = random.Random(0)
    while True:
        s = deal(rng, rules=spec)
        while not s.is_over:
            acts = [a for a in s.legal_actions() if a not in (DECLARE, CLOSE)] or s.legal_actions()
            s.apply(rng.choice(acts))
        if s.result.reason == DRAWN:
            return s


def test_draw_bonus_goes_to_the_next_winner():
    s = drawn_deal("german+draw_bonus")
    assert next_bonus(s) == 1
    assert next_bonus(drawn_deal("german")) == 0
    rng = random.Random(1)
    nxt = next_deal(s, rng)
    assert nxt.bonus == 1 and nxt.dealer == s.dealer
    plain = nxt.clone()
    plain.bonus = 0
    while not nxt.is_over:
        a = rng.choice(nxt.legal_actions())
        nxt.apply(a)
        plain.apply(a)
    assert nxt.result.game_points == plain.result.game_points + (nxt.result.winner is not None)
    again = SimpleNamespace(result=s.result, rules=s.rules, bonus=1)
    assert next_bonus(again) == 1  # drawn deals in a row: still 1 extra (V1.2)
    second_draw = s.clone()
    second_draw.bonus = 1  # the drawn deal already carried the bonus of a draw before it
    assert next_deal(second_draw, rng).bonus == 1


def test_double_game_counts_a_seven_nil_match_twice():
    for spec, value in (("german+double_game", 2), ("german", 1), ("kawu+double_game", 2)):
        rng = random.Random(4)
        while True:
            s = deal(rng, dealer=0, match_scores=(6, 0), rules=spec)
            while not s.is_over:
                s.apply(rng.choice(s.legal_actions()))
            if s.result.winner == 0:
                break
        assert s.match_over and s.match_value == value
        s.match_scores = [7, 1]
        assert s.match_value == 1


# ------------------------------------------------------- properties per preset
@pytest.mark.parametrize("spec", SPECS)
@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_play_per_preset(spec, seed):
    """Legal actions never crash, card points are conserved, views do not leak,
    results are in range, and a match plays through under the preset."""
    rules = rules_from_spec(spec)
    rng = random.Random(seed)
    s = deal(rng, rules=rules)
    for _ in range(6):
        steps = 0
        while not s.is_over:
            assert s.legal_mask(), s
            if steps % 5 == 0:
                p = rng.randrange(2)
                assert view(resample(s, p, rng), p) == view(s, p)
            s.apply(rng.choice(s.legal_actions()))
            steps += 1
            assert steps < 80
            in_hands = s.hands[0] | s.hands[1] | s.played[0] | s.played[1]
            assert in_hands & ~rules.deck == 0
        r = s.result
        assert s.window == OVER and r.reason
        ran_out = r.reason in (LAST_TRICK, DRAWN) and rules.last_trick_wins == 0
        bonus = rules.last_trick_bonus if ran_out else 0
        assert points_of(s.won[0]) + points_of(s.won[1]) + bonus == sum(s.points) <= 130
        assert (r.winner is None) == (r.game_points == 0)
        assert r.winner is None or 1 <= r.game_points <= 3 + s.bonus
        assert rules.deck & ~FULL_DECK == 0
        if s.match_over:
            assert s.match_value in (1, 2)
            break
        s = next_deal(s, rng)
