"""The schedules of a run (learning rate, teacher weight, snapshot pick) and the one table interface."""

from __future__ import annotations

import numpy as np
import pytest

from training import schedules
from training.config import Config
from training.envs import BatchedEnvs, ScalarEnvs


def test_learning_rate_decays_linearly_to_its_floor() -> None:
    cfg = Config(learning_rate=1e-3, total_steps=1000, lr_floor=0.2)
    assert schedules.learning_rate(cfg, 0) == pytest.approx(1e-3)
    assert schedules.learning_rate(cfg, 500) == pytest.approx(1e-3 * (0.2 + 0.8 * 0.5))
    assert schedules.learning_rate(cfg, 1000) == pytest.approx(2e-4)
    assert schedules.learning_rate(cfg, 5000) == pytest.approx(2e-4)  # stop_steps past total_steps
    assert schedules.learning_rate(Config(anneal_lr=False, learning_rate=3e-4), 10**9) == 3e-4


def test_teacher_weight_fades_to_its_minimum_and_is_zero_without_a_teacher() -> None:
    cfg = Config(teacher_coef=10.0, teacher_min=2.0, teacher_steps=100)
    assert [schedules.teacher_weight(cfg, s, True) for s in (0, 50, 100, 400)] == [10.0, 6.0, 2.0, 2.0]
    assert schedules.teacher_weight(cfg, 0, False) == 0.0


def test_snapshot_pick_is_uniform_over_the_pool_and_none_when_empty() -> None:
    rng = np.random.default_rng(0)
    picks = [schedules.snapshot_pick(rng, 4) for _ in range(400)]
    assert set(picks) == {0, 1, 2, 3} and min(picks.count(i) for i in range(4)) > 60
    state = rng.bit_generator.state
    assert schedules.snapshot_pick(rng, 0) is None and rng.bit_generator.state == state  # no draw


@pytest.mark.parametrize("engine", [ScalarEnvs, BatchedEnvs])
def test_both_engines_stand_behind_the_one_table_interface(engine: type) -> None:
    tables = engine(3, 5, "deal")
    obs, critic = np.zeros((3, 312), np.float32), np.zeros((3, 330), np.float32)
    masks = np.zeros((3, 32), bool)
    seats = tables.write(obs, critic, masks)
    assert seats.shape == (3,) and set(seats.tolist()) <= {0, 1} and masks.any(1).all()
    assert (critic[:, :312] == obs).all()
    views = tables.views([0, 2])
    assert [v.player for v in views] == [int(seats[0]), int(seats[2])]
    for n, v in zip((0, 2), views, strict=True):
        assert np.flatnonzero(masks[n]).tolist() == _bits(v.legal_mask)
    outcome = tables.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
    assert outcome.rewards.shape == (3, 2) and outcome.deal_done.shape == outcome.match_done.shape == (3,)


def _bits(mask: int) -> list[int]:
    return [a for a in range(32) if mask >> a & 1]
