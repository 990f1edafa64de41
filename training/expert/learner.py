"""The learner: the policy towards the search's move distributions, the value towards deal results.

Loss per minibatch: cross-entropy of the masked policy
(:func:`agents.core.nets.masked_log_softmax`) against the search's policy target,
plus ``value_coef`` times the squared error of the value network (on
``encode_full``) against the deal's game points; Adam, gradient clipping.
It trains on a replay window (:class:`Replay`): the samples of the last
``replay`` iterations. The minibatch order of iteration ``i`` is drawn from a
generator seeded by the run's seed and ``i``, so a resumed run trains exactly
as an uninterrupted one.

The positions of one deal share one result, so the value network can learn a
deal by heart instead of the game; ``value_positions`` lets at most that
many positions of each deal into the value loss (:func:`value_subset`: a
fixed subset per deal, drawn from the seed, the iteration and the deal, so a
resumed run picks the same ones). The policy loss sees every position.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np
import torch

from agents.core.nets import PolicyNet, ValueNet, masked_log_softmax
from sixtysix_env.observation import FULL_OBS_SIZE, OBS_SIZE
from sixtysix_env.seeding import derive_seed

from .config import ExpertConfig
from .selfplay import Samples, Weights


class Replay:
    """The samples of the last ``window`` iterations, oldest first."""

    def __init__(self, window: int) -> None:
        self.parts: deque[tuple[int, Samples]] = deque(maxlen=window)

    def add(self, iteration: int, samples: Samples) -> None:
        self.parts.append((iteration, samples))

    def iterations(self) -> list[int]:
        return [i for i, _ in self.parts]

    def data(self) -> Samples:
        return Samples.concat([s for _, s in self.parts])

    def value_rows(self, per_deal: int, seed: int) -> np.ndarray | None:
        """Which rows of :meth:`data` enter the value loss (:func:`value_subset` of each
        iteration's samples); None: all (``per_deal`` 0)."""
        if per_deal <= 0:
            return None
        parts = [value_subset(s, per_deal, derive_seed(seed, "value_positions", i)) for i, s in self.parts]
        return np.concatenate(parts) if parts else np.zeros(0, np.bool_)


def value_subset(samples: Samples, per_deal: int, seed: int) -> np.ndarray:
    """A bool per row: at most ``per_deal`` rows of each deal (``samples.deal``), drawn at random
    from ``seed`` (a function of the seed and the rows alone, so the same on every call)."""
    n = len(samples)
    keys = np.random.default_rng(seed).random(n)
    order = np.lexsort((keys, samples.deal))  # by deal, then by the random key
    deals = samples.deal[order]
    starts = np.flatnonzero(np.r_[True, deals[1:] != deals[:-1]]) if n else np.zeros(0, np.int64)
    rank = np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n]))
    keep = np.zeros(n, np.bool_)
    keep[order[rank < per_deal]] = True
    return keep


class Learner:
    """The policy and value networks and their optimizer."""

    def __init__(self, cfg: ExpertConfig) -> None:
        self.cfg = cfg
        self.policy = PolicyNet(OBS_SIZE, cfg.hidden)
        self.critic = ValueNet(FULL_OBS_SIZE, cfg.critic_hidden)
        self.params = [*self.policy.parameters(), *self.critic.parameters()]
        self.optimizer = torch.optim.Adam(self.params, lr=cfg.learning_rate, eps=1e-5)

    def weights(self) -> Weights:
        """A copy of the networks for generation (plain tensors: it travels to Ray workers)."""
        return {"hidden": list(self.cfg.hidden), "critic_hidden": list(self.cfg.critic_hidden),
                "policy": {k: v.detach().clone() for k, v in self.policy.state_dict().items()},
                "critic": {k: v.detach().clone() for k, v in self.critic.state_dict().items()}}

    def adopt(self, policy: PolicyNet, critic: ValueNet) -> None:
        """Start from these networks' weights (same layer sizes); the optimizer stays fresh."""
        self.policy.load_state_dict(policy.state_dict())
        self.critic.load_state_dict(critic.state_dict())

    def load(self, ckpt: dict[str, Any]) -> None:
        """The networks and optimizer state of a checkpoint (checked by ``agents.core.checkpoint``)."""
        self.policy.load_state_dict(ckpt["policy"])
        self.critic.load_state_dict(ckpt["critic"])
        self.optimizer.load_state_dict(ckpt["optimizer"])

    def train(self, data: Samples, seed: int, value_rows: np.ndarray | None = None) -> dict[str, float]:
        """``epochs`` passes of minibatch Adam over ``data`` (``value_rows``: the rows that enter
        the value loss, None: all); the ``losses/`` means of the last pass."""
        cfg = self.cfg
        obs, masks = torch.from_numpy(data.obs), torch.from_numpy(data.masks)
        target, full = torch.from_numpy(data.policy), torch.from_numpy(data.full)
        value = torch.from_numpy(data.value)
        weight = None if value_rows is None else torch.from_numpy(value_rows.astype(np.float32))
        gen = torch.Generator().manual_seed(seed)
        n = len(data)
        sums = {"policy": 0.0, "value": 0.0, "kl": 0.0}
        for _epoch in range(cfg.epochs):
            sums = dict.fromkeys(sums, 0.0)
            order = torch.randperm(n, generator=gen)
            for start in range(0, n, cfg.batch_size):
                mb = order[start:start + cfg.batch_size]
                logp = masked_log_softmax(self.policy(obs[mb]), masks[mb])
                t = target[mb]
                ce = -(t * logp).sum(-1).mean()
                v_loss = value_loss(self.critic(full[mb]), value[mb], None if weight is None else weight[mb])
                loss = ce + cfg.value_coef * v_loss
                self.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.params, cfg.max_grad_norm)
                self.optimizer.step()
                with torch.no_grad():
                    ent = -(t * torch.log(t.clamp_min(1e-12))).sum(-1).mean()
                k = len(mb) / max(n, 1)
                sums["policy"] += ce.item() * k
                sums["value"] += v_loss.item() * k
                sums["kl"] += (ce - ent).item() * k  # KL(target || policy): 0 when it is learnt
        return {f"losses/{k}": v for k, v in sums.items()}


def value_loss(pred: torch.Tensor, target: torch.Tensor, weight: torch.Tensor | None) -> torch.Tensor:
    """Mean squared error over the rows with ``weight`` 1 (None: every row); 0 with none."""
    se = (pred - target) ** 2
    if weight is None:
        return se.mean()
    return (se * weight).sum() / weight.sum().clamp_min(1.0)
