"""The batched engine against the scalar engine, table by table, over random play.

``check.differential`` compares every field, legal mask, action mask, both
seats' observations (``encode`` and ``encode_full``), reward, deal result
and match end at every step, under every rule preset (its held marriages,
draw bonus and match value too); ``bench/bench_batched_diff.py`` runs the
same check over a million decisions or more (``--rules`` a preset).
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


PRESET_SPECS = ["kawu", "schnapsen", "schnapsen-pkg", "german+draw_bonus+double_game", "kawu+double_game",
                "schnapsen+double_game"]


@pytest.mark.parametrize("rules", PRESET_SPECS)
def test_presets_agree_with_the_scalar_engine(rules: str) -> None:
    report = check.differential(32, 2_500, 4, rules=rules)
    assert report.decisions >= 2_500 and report.deals > 60
    assert report.matches > (50 if rules == "schnapsen-pkg" else 5)  # a pkg deal is the whole match


@pytest.mark.slow
@pytest.mark.parametrize("episode", ["match", "deal"])
@pytest.mark.parametrize("rules", PRESET_SPECS)
def test_presets_agree_over_longer_play(rules: str, episode: str) -> None:
    report = check.differential(64, 15_000, 5, episode=episode, rules=rules)
    assert report.deals > 500
    want = {"declared", "last_trick"}  # schnapsen-pkg: 66 checked after every trick, or the last trick
    if rules != "schnapsen-pkg":  # the others: a declare action and closing
        want |= {"false_declaration", "closer_failed"}
    assert want <= set(report.reasons), report.reasons
    assert "drawn" not in report.reasons or rules.startswith("german")


def test_the_check_finds_a_planted_difference(monkeypatch: pytest.MonkeyPatch) -> None:
    scores = BatchedState.scores

    def wrong(self: BatchedState) -> torch.Tensor:
        return scores(self) + (self.tricks == 5)

    monkeypatch.setattr(BatchedState, "scores", wrong)
    with pytest.raises(AssertionError, match="observation of seat|differs"):
        check.differential(32, 4_000, 3)
    with pytest.raises(AssertionError, match="observation of seat|differs"):
        check.differential(32, 4_000, 3, rules="kawu")


def test_the_check_finds_a_wrong_draw_bonus(monkeypatch: pytest.MonkeyPatch) -> None:
    from sixtysix_env.batched import score

    real = score.score

    def cumulative(s, idx, a):  # a deal's winner scores one point too many under draw_bonus
        rows, signed, match = real(s, idx, a)
        rows[1] += (rows[0] >= 0).long()
        return rows, signed, match

    monkeypatch.setattr(score, "score", cumulative)
    with pytest.raises(AssertionError, match="deal result"):
        check.differential(32, 2_000, 3, rules="german+draw_bonus")


def test_random_states_start_anywhere() -> None:
    import random

    states = check.random_states(64, random.Random(0))
    windows = {s.window for s in states}
    assert len(windows) >= 3 and any(s.match_scores != [0, 0] for s in states)
    eng = batched_engine.BatchedEngine.from_states(states)
    check.compare(eng, states)
    assert eng.legal.dtype == torch.int64
