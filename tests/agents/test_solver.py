"""The exact solver against plain minimax, and hand-checked endings."""

from __future__ import annotations

import random

import pytest

from agents.search.positions import random_position
from agents.search.solver import Solver, action_values, best_action, minimax, solve
from sixtysix_env.actions import CONTINUE, DECLARE
from sixtysix_env.cards import card_id, mask_of
from sixtysix_env.deals import fixed_deal
from sixtysix_env.engine import FINAL, FOLLOW, LEAD

DEAL = (
    ["AC", "TC", "KC", "QC", "JC", "9C"],
    ["AS", "TS", "KS", "QS", "JS", "9S"],
    ["AH", "TH", "KH", "QH", "JH", "9H", "AD", "TD", "KD", "QD", "JD", "9D"],
)


def endgame(hands: tuple[list[str], list[str]], points: tuple[int, int], tricks: tuple[int, int],
            to_act: int = 0, closed_by: int = -1, closer_opp_tricks: int = 1, window: int = LEAD):
    """A hand-made phase-2 position (talon spent unless ``closed_by``), diamonds trumps."""
    s = fixed_deal(DEAL[:2], DEAL[2], dealer=1)
    s.hands = [mask_of(card_id(c) for c in h) for h in hands]
    s.stock = 0 if closed_by < 0 else 4
    s.closed_by = closed_by
    s.closer_opp_tricks = closer_opp_tricks
    s.points = list(points)
    s.tricks = list(tricks)
    s.window = window
    s.to_act = to_act
    s.can_declare = window == LEAD and tricks[to_act] > 0
    return s


def test_solver_matches_minimax_on_1000_small_positions():
    rng = random.Random(12345)
    kinds = {}
    for i in range(1000):
        closed = i % 2 == 0
        window = LEAD if i % 4 < 2 else FOLLOW
        s = random_position(rng, hand_size=1 + i % 3, closed=closed, window=window)
        expected = minimax(s)
        assert solve(s) == expected, s
        kinds[expected] = kinds.get(expected, 0) + 1
    assert len(kinds) >= 5  # the sample covers wins, losses and different scales


@pytest.mark.slow
def test_solver_matches_minimax_on_four_card_positions():
    rng = random.Random(7)
    for i in range(40):
        s = random_position(rng, hand_size=4, closed=i % 2 == 0)
        assert solve(s) == minimax(s)


def test_action_values_are_consistent_with_solve_and_best_action():
    rng = random.Random(3)
    solver = Solver()
    for i in range(50):
        s = random_position(rng, hand_size=1 + i % 6, closed=i % 3 == 0, window=LEAD if i % 2 else FOLLOW)
        values = solver.action_values(s)
        assert set(values) == set(s.legal_actions())
        assert max(values.values()) == solve(s)
        a, v = best_action(s)
        assert values[a] == v == max(values.values())


def test_last_card_wins_with_bonus():
    # Player 0 leads the trump ace: 11 + 0 + 10 bonus = 21 more, 60 + 21 = 81 against 40.
    s = endgame((["AD"], ["9C"]), points=(60, 40), tricks=(3, 3))
    assert solve(s) == 1
    # Behind 50-60 after the last trick when losing it: player 1 wins by 2 (loser under 33).
    s = endgame((["9C"], ["AD"]), points=(20, 80), tricks=(1, 5))
    assert solve(s) == -2


def test_correct_declaration_is_taken_at_once():
    s = endgame((["9C", "JC"], ["AD", "TD"]), points=(66, 20), tricks=(4, 2))
    assert best_action(s) == (DECLARE, 2)
    # Opponent without a trick: 3 game points.
    s = endgame((["9C", "JC"], ["AD", "TD"]), points=(70, 0), tricks=(6, 0))
    assert best_action(s) == (DECLARE, 3)


def test_failed_closer_prefers_a_false_declaration_to_losing_three():
    # Player 0 closed when player 1 had no trick, takes the last trick with 50: declaring
    # falsely costs 2, going on counts as a failed close for 3.
    s = endgame(([], []), points=(50, 20), tricks=(5, 1), closed_by=0, closer_opp_tricks=0, window=FINAL)
    values = action_values(s)
    assert values == {DECLARE: -2, CONTINUE: -3}
    # Had player 1 a trick at closing, both cost 2.
    s.closer_opp_tricks = 1
    assert action_values(s) == {DECLARE: -2, CONTINUE: -2}


def test_opponent_of_closer_beats_the_closer_for_two():
    s = endgame((["9C"], ["AD"]), points=(30, 60), tricks=(2, 3), to_act=0, closed_by=0)
    # Player 0 leads 9C, player 1 trumps with AD: 71, declares against the closer: 2.
    assert solve(s) == -2


def test_solve_rejects_a_finished_deal():
    s = endgame((["9C"], ["AD"]), points=(60, 40), tricks=(3, 3))
    s.apply(DECLARE)
    with pytest.raises(ValueError):
        solve(s)
    with pytest.raises(ValueError):
        action_values(s)


def test_random_position_validates_arguments():
    with pytest.raises(ValueError):
        random_position(random.Random(0), hand_size=7)
    with pytest.raises(ValueError):
        random_position(random.Random(0), window=FINAL)
