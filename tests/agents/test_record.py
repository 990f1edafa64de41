"""The one game record: how a game ends by play or by forfeit, for the arena and the tables alike."""

from __future__ import annotations

from agents.core.forfeits import CRASH, RESIGNED, TIMEOUT
from agents.record import DETAIL_CAP, GameRecord

DEAL = {"winner": "player_1", "game_points": 2, "reason": "66", "scores": {"player_0": 30, "player_1": 70}}


def _record(unit: str) -> GameRecord:
    return GameRecord(seed=1, unit=unit, players=("a", "b"), agent_seeds=(2, 3))


def test_a_finished_deal_is_won_by_its_winner_with_its_game_points():
    rec = _record("deal")
    assert rec.add_deal(DEAL) == {"winner": 1, "game_points": 2, "reason": "66", "scores": [30, 70]}
    rec.finish((5, 6))  # a single deal ignores the match score
    assert (rec.winner, rec.match_score) == (1, (0, 2))
    drawn = _record("deal")
    drawn.add_deal({**DEAL, "winner": None, "game_points": 0})
    drawn.finish((0, 0))
    assert (drawn.winner, drawn.match_score) == (None, (0, 0))


def test_a_finished_match_is_won_by_the_seat_ahead():
    rec = _record("match")
    rec.add_move(4)
    rec.add_move(5, keep=False)
    rec.finish((7, 3))
    assert (rec.winner, rec.match_score, rec.moves, rec.actions) == (0, (7, 3), 2, [4])


def test_a_forfeit_names_seat_reason_and_kind_and_keeps_the_match_score():
    rec = _record("match")
    rec.lose_by_forfeit(0, TIMEOUT, "x" * 2000, (4, 1))
    assert rec.winner == 1 and rec.match_score == (4, 1)
    assert rec.forfeit == {"seat": 0, "reason": TIMEOUT, "detail": "x" * DETAIL_CAP, "kind": "time"}
    crash = _record("match")
    crash.lose_by_forfeit(1, CRASH, "died")  # the score unknown (a dead worker): left as it was
    assert crash.winner == 0 and crash.match_score == (0, 0) and crash.forfeit["kind"] == "crash"
    deal = _record("deal")
    deal.lose_by_forfeit(1, RESIGNED, "the person resigned", (3, 3))
    assert deal.match_score == (0, 0) and deal.forfeit == {"seat": 1, "reason": RESIGNED,
                                                          "detail": "the person resigned"}
    assert GameRecord.from_dict(rec.to_dict()) == rec
