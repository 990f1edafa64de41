"""GAE over per-seat trajectories (training.gae.compute_gae), checked against hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest

from training.gae import compute_gae


def col(*xs: float) -> np.ndarray:
    return np.array(xs, np.float32)[:, None]


def test_two_seats_interleaved_by_hand() -> None:
    # One table, moves by seats 0,1,0,1; the deal ends after step 3, won by seat 1 for 2 points:
    # seat 1's last transition (t=3) gets +2, seat 0's last (t=2) gets -2, both done.
    seats = np.array([[0], [1], [0], [1]])
    values = col(0.5, 0.1, -0.4, 0.3)
    rewards = col(0, 0, -2, 2)
    dones = np.array([[False], [False], [True], [True]])
    learn = np.ones((4, 1), bool)
    adv, ret = compute_gae(rewards, values, dones, seats, learn, np.zeros((1, 2)), gamma=1.0, lam=0.5)
    # seat 0: t0 -> t2.  A2 = -2 - (-0.4) = -1.6;  A0 = (V2 - V0) + 0.5 * A2 = -0.9 - 0.8 = -1.7
    # seat 1: t1 -> t3.  A3 = 2 - 0.3 = 1.7;       A1 = (V3 - V1) + 0.5 * A3 = 0.2 + 0.85 = 1.05
    np.testing.assert_allclose(adv[:, 0], [-1.7, 1.05, -1.6, 1.7], atol=1e-6)
    np.testing.assert_allclose(ret[:, 0], [-1.2, 1.15, -2.0, 2.0], atol=1e-6)


def test_bootstrap_and_discount_by_hand() -> None:
    # Seat 0 acts at t0 and t1, its deal goes on: the last step bootstraps from next_values[0, 0].
    seats = np.array([[0], [0]])
    values = col(1.0, 2.0)
    rewards = col(0.0, 0.0)
    dones = np.zeros((2, 1), bool)
    learn = np.ones((2, 1), bool)
    nv = np.array([[3.0, -9.0]])
    adv, _ = compute_gae(rewards, values, dones, seats, learn, nv, gamma=0.9, lam=0.8)
    a1 = 0.9 * 3.0 - 2.0  # 0.7
    a0 = (0.9 * 2.0 - 1.0) + 0.9 * 0.8 * a1
    np.testing.assert_allclose(adv[:, 0], [a0, a1], atol=1e-6)


def test_opponent_rows_are_skipped() -> None:
    # Table 0: learner is seat 0, the opponent's move at t1 is not a trajectory step.
    # Table 1: self-play, every row learns. Streams never cross tables.
    seats = np.array([[0, 0], [1, 1], [0, 0]])
    learn = np.array([[True, True], [False, True], [True, True]])
    values = np.array([[1.0, 1.0], [50.0, 0.0], [2.0, 2.0]], np.float32)
    rewards = np.array([[0, 0], [0, 0], [1, 1]], np.float32)
    dones = np.array([[False, False], [False, False], [True, True]])
    nv = np.array([[0.0, 0.0], [0.0, 4.0]])
    adv, _ = compute_gae(rewards, values, dones, seats, learn, nv, gamma=1.0, lam=1.0)
    # table 0 seat 0: A2 = 1 - 2 = -1; A0 = (2 - 1) + A2 = 0; the opponent row gets 0
    np.testing.assert_allclose(adv[:, 0], [0.0, 0.0, -1.0], atol=1e-6)
    # table 1: seat 1's only step (t1) is not done: bootstraps from nv[1, 1] = 4
    np.testing.assert_allclose(adv[:, 1], [0.0, 4.0, -1.0], atol=1e-6)


@pytest.mark.parametrize("lam", [0.0, 1.0])
def test_lambda_limits(lam: float) -> None:
    # One seat, three steps, terminal reward 1: lam=0 is the TD error, lam=1 the Monte Carlo return.
    seats = np.zeros((3, 1), np.int64)
    values = col(0.2, 0.5, 0.7)
    rewards = col(0, 0, 1)
    dones = np.array([[False], [False], [True]])
    _, ret = compute_gae(rewards, values, dones, seats, np.ones((3, 1), bool), np.zeros((1, 2)), 1.0, lam)
    expected = [0.5, 0.7, 1.0] if lam == 0.0 else [1.0, 1.0, 1.0]
    np.testing.assert_allclose(ret[:, 0], expected, atol=1e-6)
