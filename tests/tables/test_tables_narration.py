"""The texts both tables show at the end of a game."""

from __future__ import annotations

from agents.play import GameRecord
from tables.narration import Narrator


def record(winner: int, score: tuple[int, int]) -> GameRecord:
    rec = GameRecord(seed=1, unit="match", players=("human", "heuristic"), agent_seeds=(0, 0))
    rec.winner, rec.match_score = winner, score
    return rec


def test_match_score_is_always_the_persons_first():
    """A resignation while leading 3:2 reads "you 3 : heuristic 2", not "wins 3:2"."""
    for seat in (0, 1):
        n = Narrator(seat, "heuristic")
        bot = 1 - seat
        score = [0, 0]
        score[seat], score[bot] = 3, 2
        text = n.game_over(record(bot, tuple(score)))
        assert text == "Game over: heuristic wins the match · you 3 : heuristic 2"
        score[seat], score[bot] = 7, 4
        assert n.result_title(record(seat, tuple(score))) == "You win the match · you 7 : heuristic 4"
