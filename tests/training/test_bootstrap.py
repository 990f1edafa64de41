"""A rollout's end: each seat's open transition bootstraps at that seat's own next decision (issue 19).

A seat's transition continues at its next own decision. At a rollout's end one
seat is not to act; the critic never trains on such inputs (my-turn bit off,
empty legal-action plane), so they must never be a bootstrap.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.core.nets import PolicyNet
from sixtysix_env.actions import N_ACTIONS
from sixtysix_env.observation import FULL_OBS_SIZE, LEGAL, MY_TURN, OBS_SIZE
from training import rollout
from training.config import Config
from training.envs import BatchedEnvs, ScalarEnvs
from training.gae import compute_gae
from training.opponents import Opponents


class ProbeCritic(torch.nn.Module):
    """A critic that records every input and reads 1 where the seat is to act, -100 elsewhere."""

    def __init__(self) -> None:
        super().__init__()
        self.inputs: list[np.ndarray] = []

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.inputs.append(x.numpy().copy())
        to_act = (x[:, MY_TURN] > 0) & (x[:, LEGAL:LEGAL + N_ACTIONS].sum(1) > 0)
        return torch.where(to_act, 1.0, -100.0) + x[:, :OBS_SIZE].sum(1) * 1e-3


ENGINES = ("scalar", "batched")


def collector(engine: str, steps: int, critic: torch.nn.Module, **weights: float):
    """``(collect(), buf)``: self-play rollouts (or ``weights``' opponent mix) of ``steps`` steps
    at 4 tables on ``engine``, both seats played by one small policy, values from ``critic``."""
    opp = {"opp_self": 1.0, "opp_snapshot": 0.0, "opp_heuristic": 0.0, **weights}
    cfg = Config(num_envs=4, rollout_steps=steps, **opp)
    rng = np.random.default_rng(4)
    torch.manual_seed(4)
    policy, opponents = PolicyNet(OBS_SIZE, [16]), Opponents(cfg, 4, rng)
    buf = rollout.Rollout(steps, 4, FULL_OBS_SIZE)
    tables = (BatchedEnvs if engine == "batched" else ScalarEnvs)(4, 4, "match")
    players = rollout.Players(policy, critic, policy)

    def collect() -> dict[str, list[float]]:
        return rollout.collect(tables, opponents, players, buf, rng)

    return collect, buf


def _rollouts(steps: int, engine: str = "scalar", n: int = 5) -> list[tuple[rollout.Rollout, np.ndarray,
                                                                          np.ndarray]]:
    """``n`` self-play rollouts of ``steps`` steps at 4 tables; after each, a copy of the
    buffer and the (gamma=1, lam=0) advantages and returns as ``train.py`` computes them."""
    collect, buf = collector(engine, steps, ProbeCritic())
    out = []
    for _ in range(n):
        collect()
        closed, next_values = buf.open_ends()
        adv, ret = compute_gae(buf.rewards, buf.values, buf.dones, buf.seats, closed, next_values, 1.0, 0.0)
        snap = rollout.Rollout(steps, 4, FULL_OBS_SIZE)
        snap.__dict__.update({k: v.copy() for k, v in vars(buf).items()})
        out.append((snap, adv, ret))
    return out


@pytest.mark.parametrize("engine", ENGINES)
def test_critic_only_sees_positions_where_its_seat_is_to_act(engine: str) -> None:
    """Every value the rollout asks for (including the bootstraps at its end) is of a decision."""
    critic = ProbeCritic()
    collect, _ = collector(engine, 9, critic)
    for _ in range(2):
        collect()
    x = np.concatenate(critic.inputs)
    bad = (x[:, MY_TURN] == 0) | (x[:, LEGAL:LEGAL + N_ACTIONS].sum(1) == 0)
    assert not bad.any(), f"{bad.sum()} of {len(x)} critic inputs are of a seat that is not to act"


@pytest.mark.parametrize("engine", ENGINES)
def test_open_transition_is_carried_and_bootstrapped_at_the_seats_next_decision(engine: str) -> None:
    """Hand-checked one-step targets: each trained row's return is its reward if the deal ended,
    else the stored value of the same seat's next learner row at that table, in this rollout or
    (carried over) in the next; the open rows are trained once, in the next rollout."""
    runs = _rollouts(steps=7, engine=engine)
    carried = trained_rows = 0
    for i, (buf, _, ret) in enumerate(runs):
        closed = buf.open_ends()[0]
        for n in range(4):
            for p in (0, 1):
                rows = [t for t in range(len(buf.learn)) if buf.learn[t, n] and buf.seats[t, n] == p]
                if i and runs[i - 1][0].last_t[n, p] >= 0:  # carried: a copy of the previous open row
                    prev, k = runs[i - 1][0], runs[i - 1][0].last_t[n, p]
                    assert rows[0] == p and buf.values[p, n] == prev.values[k, n]
                    assert (buf.obs[p, n] == prev.obs[k, n]).all() and buf.actions[p, n] == prev.actions[k, n]
                    carried += 1
                else:
                    assert not buf.learn[p, n]
                for a, b in zip(rows, [*rows[1:], None], strict=True):
                    if b is None and not buf.dones[a, n]:
                        assert not closed[a, n] and buf.last_t[n, p] == a  # open: trained next time
                        continue
                    assert closed[a, n]
                    if buf.dones[a, n]:
                        want = buf.rewards[a, n]
                    else:
                        want = buf.values[b, n]
                        assert buf.critic_obs[b, n, MY_TURN] == 1  # the bootstrap is p's own decision
                    np.testing.assert_allclose(ret[a, n], want, rtol=1e-6, atol=1e-6)
                    trained_rows += 1
    assert carried > 10 and trained_rows > 50
