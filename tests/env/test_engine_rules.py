"""Scripted deals against hand-checked values, one case or more per rule of docs/rules.md.

Deals are fixed card by card with ``fixed_deal`` and played with
``State.play`` (actions by name: ``"TH"``, ``"marriage H"``, ``"close"``,
``"continue"``). Expected values were worked out by hand from the rules.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from sixtysix_env.actions import ACTION_NAMES
from sixtysix_env.cards import CARD_NAMES, card_id, mask_of, points_of
from sixtysix_env.deals import deal, fixed_deal, next_deal
from sixtysix_env.engine import CLOSE_RESPONSE, DRAW, FINAL, FOLLOW, LEAD, OVER, State
from sixtysix_env.scoring import (
    CLOSER_BEATEN,
    CLOSER_FAILED,
    DECLARED,
    DRAWN,
    FALSE_DECLARATION,
    LAST_TRICK,
    game_points,
    marriage_points,
)
from sixtysix_env.seeding import deal_rng, derive_seed, make_rng


def short(action: int) -> str:
    name = ACTION_NAMES[action]
    return name[5:] if name.startswith("play ") else name


def legal(s: State) -> set[str]:
    """The legal actions by short name: cards as "TH", others as in the action table."""
    return {short(a) for a in s.legal_actions()}


def run(s: State, script: str) -> State:
    """Play a space-separated script; "marriage X" is one action."""
    return s.play(*[w.replace("_", " ") for w in script.replace("marriage ", "marriage_").split()])


def cards(names: str) -> int:
    return mask_of(card_id(c) for c in names.split())


def deal_of(p0: str, p1: str, up: str, top: str = "", dealer: int = 1, scores=(0, 0)) -> State:
    """A fixed deal: hands, the face-up trump card ``up``, the talon drawn in the
    order ``top`` and then the other cards in id order. Dealer 1: player 0 leads."""
    fixed = (p0 + " " + p1 + " " + top + " " + up).split()
    rest = [c for c in CARD_NAMES if c not in fixed]
    return fixed_deal([p0.split(), p1.split()], top.split() + rest + [up], dealer, scores)


def deal_a(dealer: int = 1, scores=(0, 0)) -> State:
    """Trumps hearts (JH face up). Player 0: clubs marriage and the trump nine;
    player 1: spades marriage."""
    return deal_of(
        "AC TC KC QC 9H JS", "AH TH KS QS 9C AS", "JH", "9S JC TS 9D JD QD KD TD AD QH KH", dealer, scores
    )


def deal_c(scores=(0, 0)) -> State:
    """Trumps hearts (JH face up). Player 0 holds the trump marriage (40) and three aces."""
    return deal_of(
        "KH QH AC AS AD 9C", "TC TS TD 9S 9D JD", "JH", "JC QC KC JS QS KS 9H TH AH QD KD", 1, scores
    )


# ----------------------------------------------------------------- the windows
def test_first_lead_window():
    s = deal_a()
    assert (s.window, s.to_act, s.trump, CARD_NAMES[s.trump_card]) == (LEAD, 0, 2, "JH")
    # no exchange (no trick yet), no declare (no trick), marriage and close allowed
    assert legal(s) == {"AC", "TC", "KC", "QC", "9H", "JS", "marriage C", "close"}
    assert deal_a(dealer=0).to_act == 1


def test_phase1_follow_any_card():
    s = deal_a().play("AC")
    assert (s.window, s.to_act, CARD_NAMES[s.lead_card]) == (FOLLOW, 1, "AC")
    assert legal(s) == {"AH", "TH", "KS", "QS", "9C", "AS"}


@pytest.mark.parametrize(
    "lead, follow, winner, points",
    [
        ("AC", "9C", 0, 11),  # same suit: the higher card wins
        ("QC", "9C", 0, 3),
        ("JS", "AS", 1, 13),  # the follower's higher card of the led suit wins
        ("KC", "QS", 0, 7),  # other suit, no trump: the led card wins
        ("JS", "TH", 1, 12),  # a trump wins
        ("9H", "AS", 0, 11),  # a led trump against a plain card
        ("9H", "AH", 1, 11),  # trump against higher trump
    ],
)
def test_trick_winner(lead, follow, winner, points):
    s = deal_a().play(lead, follow)
    assert (s.window, s.to_act) == (DRAW, winner)
    assert s.points == [points if p == winner else 0 for p in (0, 1)]
    assert s.tricks == [1 if p == winner else 0 for p in (0, 1)]
    assert s.won[winner] == cards(f"{lead} {follow}")
    assert s.played == [cards(lead), cards(follow)]


def test_draw_window_and_draw_order():
    s = deal_a().play("AC", "9C")
    assert legal(s) == {"exchange", "close", "declare", "continue"}
    s.play("continue")  # the winner draws first: talon[0] to player 0, talon[1] to player 1
    assert s.hands == [cards("TC KC QC 9H JS 9S"), cards("AH TH KS QS AS JC")]
    assert (s.window, s.to_act, s.stock) == (LEAD, 0, 10)
    assert legal(s) == {"TC", "KC", "QC", "9H", "JS", "9S", "marriage C", "exchange", "close", "declare"}

    s = deal_a().play("JS", "AS")  # player 1 wins: draws first, has no trump nine
    assert (s.window, s.to_act) == (DRAW, 1)
    assert legal(s) == {"close", "declare", "continue"}
    s.play("continue")
    assert s.hands == [cards("AC TC KC QC 9H JC"), cards("AH TH KS QS 9C 9S")]
    assert legal(s) == {"AH", "TH", "KS", "QS", "9C", "9S", "marriage S", "close", "declare"}


# A deal played to the end that is drawn 65-65 (checked trick by trick by hand).
DRAWN_SCRIPT = (
    "AD 9S continue AS 9D continue QH JD continue AC JS continue QS TH continue "
    "TS 9H continue KD TD TC 9C QC KC QD AH KS KH JC JH"
)


def test_last_draw_winner_takes_face_down_loser_the_trump_card():
    s = deal_c().play(*DRAWN_SCRIPT.split()[:17])  # 6th trick won by player 0 with 9H
    assert (s.window, s.to_act, s.stock) == (DRAW, 0, 2)
    s.play("continue")
    assert s.stock == 0
    assert s.hands[0] == cards("KH 9C JC KC QD KD")  # took talon[10] = KD
    assert s.hands[1] == cards("TC TD QC KS AH JH")  # took the face-up JH
    assert s.known[1] & s.hands[1] == cards("JH")
    # talon spent: player 0 holds KD+QD but may not show them, nor exchange or close
    assert legal(s) == {"KH", "9C", "JC", "KC", "QD", "KD", "declare"}


def test_drawn_deal_65_65():
    s = deal_c().play(*DRAWN_SCRIPT.split())
    assert s.result == (None, 0, DRAWN, (65, 65))
    assert s.match_scores == [0, 0]
    assert s.tricks == [7, 5] and s.points == [65, 65]  # player 1 took the last trick: 55 + 10
    nxt = next_deal(s, 3)
    assert nxt.dealer == s.dealer == 1 and nxt.match_scores == [0, 0]


# ----------------------------------------------------------------------- closing
def test_close_at_first_lead():
    s = deal_a().play("close")
    assert (s.window, s.to_act, s.closed_by, s.closer_opp_tricks) == (CLOSE_RESPONSE, 1, 0, 0)
    assert legal(s) == {"continue"}  # player 1 has no trump nine
    s.play("continue")
    assert (s.window, s.to_act, s.stock) == (LEAD, 0, 12)
    assert legal(s) == {"AC", "TC", "KC", "QC", "9H", "JS"}  # no marriage, exchange, close, declare
    s.play("JS")
    assert legal(s) == {"KS", "QS", "AS"}  # phase 2 from the first trick: follow and beat


def test_close_before_drawing_leaves_both_hands_short():
    s = deal_a().play("AC", "9C", "close")
    assert (s.window, s.to_act, s.closed_by, s.closer_opp_tricks, s.stock) == (CLOSE_RESPONSE, 1, 0, 0, 12)
    s.play("continue")
    assert [h.bit_count() for h in s.hands] == [5, 5]
    # the declare right survives closing; the trump nine cannot be exchanged any more
    assert legal(s) == {"TC", "KC", "QC", "9H", "JS", "declare"}


def test_close_after_drawing():
    s = deal_a().play("AC", "9C", "continue", "close", "continue")
    assert [h.bit_count() for h in s.hands] == [6, 6] and s.stock == 10
    assert legal(s) == {"TC", "KC", "QC", "9H", "JS", "9S", "declare"}


def test_opponent_exchanges_at_the_close_without_a_trick():
    s = deal_a(dealer=0).play("close")  # player 1 leads first and closes
    assert (s.window, s.to_act) == (CLOSE_RESPONSE, 0)
    assert legal(s) == {"exchange", "continue"}
    s.play("exchange")
    assert s.hands[0] == cards("AC TC KC QC JH JS")
    assert (CARD_NAMES[s.trump_card], s.exchanged_by) == ("9H", 0)
    assert s.known[0] == cards("JH")
    assert (s.window, s.to_act) == (LEAD, 1)
    assert legal(s) == {"AH", "TH", "KS", "QS", "9C", "AS"}


# -------------------------------------------------------------------- exchanging
def test_exchange_before_drawing():
    s = deal_a().play("AC", "9C", "exchange")
    assert s.hands[0] == cards("TC KC QC JH JS")
    assert (CARD_NAMES[s.trump_card], s.exchanged_by, s.window) == ("9H", 0, DRAW)
    assert legal(s) == {"close", "declare", "continue"}
    s.play("continue")
    assert s.hands[0] == cards("TC KC QC JH JS 9S")


def test_exchange_after_drawing_then_marriage():
    s = deal_a().play("AC", "9C", "continue", "exchange")
    assert s.hands[0] == cards("TC KC QC JH JS 9S")
    assert legal(s) == {"TC", "KC", "QC", "JH", "JS", "9S", "marriage C", "close", "declare"}
    s.play("marriage C")
    assert legal(s) == {"KC", "QC", "close", "declare"}


def test_no_exchange_after_a_marriage_in_the_same_lead_window():
    s = deal_a().play("AC", "9C", "continue", "marriage C")
    assert legal(s) == {"KC", "QC", "close", "declare"}
    with pytest.raises(ValueError, match="exchange"):
        s.play("exchange")


def test_exchange_with_two_talon_cards_gives_the_nine_to_the_loser():
    script = "9C TC continue TS QC continue TD JS continue 9S AS continue marriage H KH JC continue AC 9D"
    s = run(deal_c(), script)
    assert (s.window, s.to_act, s.stock) == (DRAW, 0, 2)
    assert legal(s) == {"exchange", "close", "declare", "continue"}
    s.play("exchange", "continue")
    assert s.stock == 0
    assert s.hands[0] == cards("KS QH AH AD JH KD")  # JH by exchange, KD face down
    assert s.hands[1] & cards("9H") and s.known[1] & s.hands[1] == cards("9H")

    s = run(deal_c(), script + " continue")  # no exchange: the talon is spent, the nine stays
    assert s.hands[0] == cards("KS 9H QH AH AD KD") and s.stock == 0
    assert legal(s) == {"KS", "9H", "QH", "AH", "AD", "KD", "declare"}


# --------------------------------------------------------------------- marriages
def test_marriage_at_first_lead_waits_for_a_trick():
    s = deal_a().play("marriage C")
    assert legal(s) == {"KC", "QC", "close"}  # no declare without a trick
    s.play("QC", "AH")
    assert s.tricks == [0, 1] and s.score(0) == 0 and s.marriage_points(0) == 20
    s.play("continue", "9C", "KC")  # player 0's first trick makes the 20 count
    assert s.tricks == [1, 1] and s.points[0] == 4 and s.score(0) == 24


def test_trump_marriage_counts_40_from_the_first_trick():
    s = deal_c().play("marriage H")
    assert legal(s) == {"KH", "QH", "close"}
    assert s.score(0) == 0
    s.play("QH", "TC")
    assert s.score(0) == 3 + 10 + 40


def test_marriage_then_close_in_one_lead_window():
    s = deal_a().play("AC", "9C", "continue", "marriage C", "close")
    assert (s.window, s.to_act, s.closed_by) == (CLOSE_RESPONSE, 1, 0)
    s.play("continue")
    assert legal(s) == {"KC", "QC", "declare"}  # the lead must still be the K or Q
    assert s.score(0) == 31 and s.shown[0] == 1
    with pytest.raises(ValueError, match="play TC"):
        s.play("TC")


def test_no_marriage_or_exchange_once_closed():
    s = deal_a().play("AC", "9C", "continue", "close", "continue")
    assert not legal(s) & {"marriage C", "exchange", "close"}
    for name in ("marriage C", "exchange", "close"):
        with pytest.raises(ValueError):
            s.clone().play(name)


# ---------------------------------------------------------- phase-2 follow duty
CLUBS = "9C JC QC KC TC AC"
HEARTS = "9H JH QH KH TH AH"


@pytest.mark.parametrize(
    "p1, lead, up, follows, void",
    [
        ("9C KC AC 9S JS QS", "QC", "JH", "KC AC", None),  # follow and beat
        ("9C JC 9S JS QS KS", "QC", "JH", "9C JC", "KC TC AC"),  # follow, cannot beat
        ("9S JS QS 9H TH 9D", "QC", "JH", "9H TH", CLUBS),  # void: trump
        ("9S JS QS KS 9D JD", "QC", "JH", "9S JS QS KS 9D JD", CLUBS + " " + HEARTS),
        ("9H KH AH 9S JS QS", "QH", "JH", "KH AH", None),  # led trump: beat it
        ("9H 9S JS QS KS AS", "AH", "JH", "9H", None),  # led trump, cannot beat
        ("9S JS QS KS AS 9D", "QH", "JH", "9S JS QS KS AS 9D", HEARTS),  # no trump at all
        ("9C JC 9S JS QS KS", "AD", "KC", "9C JC", "9D JD QD KD TD AD"),  # clubs trumps
    ],
)
def test_phase2_follow_duty_and_revealed_voids(p1, lead, up, follows, void):
    taken = set((p1 + " " + lead + " " + up).split())
    p0 = " ".join([lead] + [c for c in CARD_NAMES if c not in taken][:5])
    s = deal_of(p0, p1, up).play("close", "continue", lead)
    assert legal(s) == set(follows.split())
    if void is not None:
        s.play(follows.split()[0])
        assert s.void[1] == cards(void)


def test_phase1_reveals_no_voids():
    s = deal_a().play("QC", "AS")  # would be illegal in phase 2 (9C follows)
    assert s.void == [0, 0]


# --------------------------------------------------------------------- declaring
def test_declare_only_after_a_trick_or_a_marriage():
    s = deal_a().play("AC", "9C")
    assert "declare" in legal(s)  # in the draw window
    s.play("continue")
    assert "declare" in legal(s)  # drawing in between is fine
    s.play("JS")
    assert "declare" not in legal(s)  # nobody declares while following
    s.play("AS")
    assert "declare" in legal(s)  # player 1 took a trick
    s.play("continue")
    assert s.to_act == 1 and "declare" in legal(s)
    s.play("JC", "TC")  # player 0 wins again and may declare again
    assert s.to_act == 0 and "declare" in legal(s)


def test_false_declaration_scores_2_for_the_opponent_even_without_tricks():
    s = deal_a().play("AC", "9C", "declare")
    assert s.result == (1, 2, FALSE_DECLARATION, (11, 0))
    assert s.window == OVER and s.legal_mask() == 0 and s.match_scores == [0, 2]


def test_false_declaration_after_a_marriage():
    s = deal_a().play("AC", "9C", "continue", "marriage C", "declare")
    assert s.result == (1, 2, FALSE_DECLARATION, (31, 0))


# ------------------------------------------------------------ scoring a deal
SCORING = [
    # (script on deal C, result, reason-specific note)
    ("AC TC continue marriage H KH TS declare", (0, 3, DECLARED, (75, 0))),  # loser without a trick
    ("9C TC continue 9S AS continue marriage H KH TS continue AC JD declare", (0, 2, DECLARED, (78, 10))),
    (
        "9C TC continue TS QC continue TD JS continue 9S AS continue marriage H KH JC continue AC 9D declare",
        (0, 1, DECLARED, (68, 35)),  # loser on 35 >= 33
    ),
    # a marriage itself brings player 0 from 65 to 85
    (
        "9C TC continue 9S AS continue marriage H KH TS continue marriage C declare",
        (0, 2, DECLARED, (85, 10)),
    ),
    # the closer goes out: scored by the loser as usual
    ("AC TC close continue AS TS AD TD KH 9D declare", (0, 3, DECLARED, (67, 0))),
    # player 1 closes, player 0 (the closer's opponent) goes out first: 2
    (
        "AC TC continue marriage H KH 9S continue 9C QC close continue JS AS declare",
        (0, 2, CLOSER_BEATEN, (78, 3)),
    ),
    # the closer (player 1) fails; player 0 had no trick at the close: 3
    ("9C TC close continue 9S AS AC TD AD JD KH TS QH 9D continue", (0, 3, CLOSER_FAILED, (62, 10))),
    # ... and a false declaration in the final window costs 2 instead
    ("9C TC close continue 9S AS AC TD AD JD KH TS QH 9D declare", (1, 2, FALSE_DECLARATION, (62, 10))),
    # the closer (player 0) reaches 73 but never declares: player 1 (one trick at the close) scores 2
    (
        "9C TC continue 9S AS continue close continue QC JC KC 9D AC JD KH TS QH TD AD JS continue",
        (1, 2, CLOSER_FAILED, (73, 10)),
    ),
]


@pytest.mark.parametrize("script, result", SCORING)
def test_scoring(script, result):
    s = run(deal_c(), script)
    assert s.result == result
    winner, points = result[0], result[1]
    assert s.match_scores == [points if p == winner else 0 for p in (0, 1)]


def test_final_window_after_a_closed_deal():
    s = run(deal_c(), "9C TC close continue 9S AS AC TD AD JD KH TS QH 9D")
    assert (s.window, s.to_act, s.closer_opp_tricks) == (FINAL, 0, 0)
    assert legal(s) == {"declare", "continue"}
    assert s.points == [62, 10]  # no last-trick bonus in a closed deal


LAST_TRICK_CASES = [
    (
        deal_a,
        "9H 9C continue AC AS continue TC QS continue JS TH continue 9D JD continue KC KD continue "
        "QC JC AD QD TS KS KH AH QH 9S JH TD",
        (0, 1, LAST_TRICK, (78, 52)),
    ),
    (
        deal_c,
        "9C JD continue AC TC continue QH JS continue QS 9D continue KH KS continue KC TH continue "
        "TD AD JC QC 9S AS JH KD 9H TS AH QD",
        (0, 2, LAST_TRICK, (111, 19)),
    ),
    (
        deal_c,
        "QH TS continue JC 9D continue KC QC continue 9C 9S continue 9H JD continue QS TD continue "
        "AD QD AH TH AS KS KH JH AC TC KD JS",
        (0, 3, LAST_TRICK, (130, 0)),
    ),
]


@pytest.mark.parametrize("make, script, result", LAST_TRICK_CASES)
def test_talon_ran_out_last_trick_bonus(make, script, result):
    s = make()
    last = None
    for a in script.split():  # no marriages in these scripts
        if s.window == FOLLOW:
            last = a
        s.play(a)
    assert s.result == result
    assert sum(s.points) == 130 and s.tricks[0] + s.tricks[1] == 12
    last_winner = 0 if s.won[0] >> card_id(last) & 1 else 1
    bonus = [10 if p == last_winner else 0 for p in (0, 1)]
    assert s.points == [points_of(s.won[p]) + bonus[p] for p in (0, 1)]


# ------------------------------------------------------------------------- match
def test_winner_deals_next_and_match_ends_at_7():
    s = deal_c(scores=(2, 5)).play("AC", "TC", "continue", "marriage H", "KH", "TS", "declare")
    assert s.match_scores == [5, 5] and not s.match_over
    nxt = next_deal(s, 11)
    assert (nxt.dealer, nxt.to_act, nxt.match_scores) == (0, 1, [5, 5])

    s = deal_a(scores=(6, 5)).play("AC", "9C", "declare")  # false: player 1 +2
    assert s.match_scores == [6, 7] and s.match_over and s.match_winner == 1
    with pytest.raises(ValueError, match="match is over"):
        next_deal(s)
    with pytest.raises(ValueError, match="not over"):
        next_deal(deal_a())


def test_first_dealer_from_the_seed():
    assert {deal(seed).dealer for seed in range(20)} == {0, 1}
    assert deal(5).dealer == deal(5).dealer and deal(5).hands == deal(5).hands


def test_seeds_are_pinned():
    """Seeds name card sequences in results files and duplicate matches: they never change."""
    assert derive_seed(0, "game", 0) == 3650358587019506563 and derive_seed("x") == 2697552496229297191
    assert deal_rng(7, 3).random() == 0.12496341628034136
    assert make_rng(4).random() == random.Random(4).random()
    rng = np.random.default_rng(0)
    assert make_rng(rng) is rng
    with pytest.raises(ValueError, match="seed"):
        make_rng("seven")


def test_game_points_and_marriage_points():
    """docs/rules.md section 4.1: 3 with no trick, 2 under 33, else 1; marriages 20, 40 in trumps."""
    cases = [((0, 0), 3), ((40, 0), 3), ((32, 1), 2), ((33, 1), 1), ((80, 5), 1)]
    assert [game_points(*args) for args, _ in cases] == [g for _, g in cases]
    assert marriage_points(0b0101, 2) == 60 and marriage_points(0b0101, 1) == 40
    assert marriage_points(0, 0) == 0


# ----------------------------------------------------------------- input errors
@pytest.mark.parametrize("bad", ["1H", "TX", "", "10H", 24, -1, True, None, 1.5])
def test_bad_card_is_a_value_error(bad):
    with pytest.raises(ValueError):
        card_id(bad)


def _hands_talon():
    s = deal_a()
    return [[CARD_NAMES[c] for c in range(24) if s.hands[p] >> c & 1] for p in (0, 1)], [
        CARD_NAMES[c] for c in s.talon
    ]


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda h, t: (h, t[:-1] + ["AC"]), "duplicate cards in the deal: AC"),
        (lambda h, t: ([h[0][:5], h[1]], t), r"hands\[0\] has 5 cards"),
        (lambda h, t: (h, t[:11]), "talon has 11 cards"),
        (lambda h, t: ([h[0], h[1], h[1]], t), "two lists"),
        (lambda h, t: ([h[0], h[1][:5] + ["XX"]], t), "unknown card name 'XX'"),
    ],
)
def test_fixed_deal_rejects_bad_deals(mutate, message):
    hands, talon = mutate(*_hands_talon())
    with pytest.raises(ValueError, match=message):
        fixed_deal(hands, talon)


@pytest.mark.parametrize("dealer", [2, -1, True, "0", None])
def test_fixed_deal_rejects_bad_dealer(dealer):
    hands, talon = _hands_talon()
    with pytest.raises(ValueError, match="dealer"):
        fixed_deal(hands, talon, dealer)


@pytest.mark.parametrize("scores", [(7, 0), (-1, 0), (0,), "00", (0, 1.0), 5, (True, 0)])
def test_fixed_deal_rejects_bad_match_scores(scores):
    hands, talon = _hands_talon()
    with pytest.raises(ValueError, match="match scores"):
        fixed_deal(hands, talon, 0, scores)


def test_deal_checks_its_arguments():
    with pytest.raises(ValueError, match="match scores"):
        deal(0, 0, (3, 9))
    with pytest.raises(ValueError, match="dealer"):
        deal(0, 2)
    with pytest.raises(ValueError, match="seed"):
        deal("seed")
    assert deal(0, 1, (np.int64(3), 2)).match_scores == [3, 2]


def test_fixed_deal_accepts_ids_and_names():
    hands, talon = _hands_talon()
    ids = fixed_deal([[card_id(c) for c in h] for h in hands], [card_id(c) for c in talon], 1)
    assert ids == deal_a()


def test_illegal_action_message_names_the_action_and_the_legal_ones():
    s = deal_a()
    with pytest.raises(ValueError) as err:
        s.apply(30)
    msg = str(err.value)
    assert "30 (declare)" in msg and "lead window" in msg and "player_0" in msg
    assert "29 (close)" in msg and "24 (marriage C)" in msg and "0 (play 9C)" not in msg
    for bad in (32, -1, 1.5, "close", None, True):
        with pytest.raises(ValueError, match="illegal action"):
            s.apply(bad)  # type: ignore[arg-type]
    assert s == deal_a()  # nothing changed


def test_apply_accepts_numpy_integers_and_rejects_after_the_end():
    s = deal_a()
    s.apply(np.int64(card_id("AC")))
    s.apply(np.int32(card_id("9C")))
    assert s.tricks == [1, 0] and type(s.hands[0]) is int
    s.play("declare")
    with pytest.raises(ValueError, match="deal is over"):
        s.apply(31)
