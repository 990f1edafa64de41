"""The batched engine against the scalar engine, table by table, over random play.

``check.differential`` compares every field, legal mask, action mask, both
seats' observations (``encode`` and ``encode_full``), reward, deal result
and match end at every step; ``bench/bench_batched_diff.py`` runs the same
check over a million decisions or more.
"""

from __future__ import annotations

import pytest
import torch

from sixtysix_env.batched import check
from sixtysix_env.batched import engine as batched_engine
from sixtysix_env.batched.state import BatchedState
from sixtysix_env.scoring import REASONS


@pytest.mark.parametrize("episode, seed", [("match", 1), ("deal", 2)])
def test_random_play_agrees_with_the_scalar_engine(episode: str, seed: int) -> None:
    report = check.differential(48, 9_000, seed, episode=episode)
    assert report.decisions >= 9_000
    assert report.deals > 500
    assert (report.matches > 50) == (episode == "match")
    # the random styles reach every way a deal can end (a drawn deal is rare: not required)
    assert set(REASONS) - {"drawn"} <= set(report.reasons)


def test_the_check_finds_a_planted_difference(monkeypatch: pytest.MonkeyPatch) -> None:
    scores = BatchedState.scores

    def wrong(self: BatchedState) -> torch.Tensor:
        return scores(self) + (self.tricks == 5)

    monkeypatch.setattr(BatchedState, "scores", wrong)
    with pytest.raises(AssertionError, match="observation of seat|differs"):
        check.differential(32, 4_000, 3)


def test_random_states_start_anywhere() -> None:
    import random

    states = check.random_states(64, random.Random(0))
    windows = {s.window for s in states}
    assert len(windows) >= 3 and any(s.match_scores != [0, 0] for s in states)
    eng = batched_engine.BatchedEngine.from_states(states)
    check.compare(eng, states)
    assert eng.legal.dtype == torch.int64
