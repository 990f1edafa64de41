"""Generalized advantage estimation over per-seat trajectories of two-player tables.

Self-play breaks CleanRL's "one trajectory per environment": at one table
the two seats alternate, and a seat's transition continues at that seat's
next decision, not at the table's next step. :func:`compute_gae` follows
each seat's own stream inside the time-major ``(T, N)`` buffers.
"""

from __future__ import annotations

import numpy as np


def compute_gae(
    rewards: np.ndarray,
    values: np.ndarray,
    dones: np.ndarray,
    seats: np.ndarray,
    learn: np.ndarray,
    next_values: np.ndarray,
    gamma: float,
    lam: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Advantages and returns for per-seat trajectories in time-major arrays.

    ``rewards``, ``values``, ``dones``, ``seats``, ``learn`` have shape
    ``(T, N)``: step t at table n was a decision of player ``seats[t, n]``;
    only rows with ``learn`` belong to a trajectory. A transition continues at
    the same table's next learn row of the same seat, unless ``dones`` (the
    deal ended after it: its ``rewards`` hold the deal's outcome). The last
    transition of each stream that is not done bootstraps from
    ``next_values[n, seat]``. Rows outside ``learn`` get 0.
    """
    T, N = rewards.shape
    adv = np.zeros((T, N), np.float32)
    next_v = np.asarray(next_values, np.float32).copy()  # (N, 2): value of the seat's next decision
    next_a = np.zeros((N, 2), np.float32)  # advantage of the seat's next decision
    rows = np.arange(N)
    for t in range(T - 1, -1, -1):
        s = seats[t]
        live = 1.0 - dones[t].astype(np.float32)
        nv = next_v[rows, s]
        na = next_a[rows, s]
        delta = rewards[t] + gamma * nv * live - values[t]
        a = delta + gamma * lam * live * na
        a = np.where(learn[t], a, 0.0).astype(np.float32)
        adv[t] = a
        lt = learn[t]
        next_v[rows[lt], s[lt]] = values[t][lt]
        next_a[rows[lt], s[lt]] = a[lt]
    return adv, adv + values
