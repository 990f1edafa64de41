"""The learner: the policy towards the search's move distributions, the value towards deal results.

Loss per minibatch: cross-entropy of the masked policy
(:func:`agents.nets.masked_log_softmax`) against the search's policy target,
plus ``value_coef`` times the squared error of the value network (on
``encode_full``) against the deal's game points; Adam, gradient clipping.
It trains on a replay window (:class:`Replay`): the samples of the last
``replay`` iterations. The minibatch order of iteration ``i`` is drawn from a
generator seeded by the run's seed and ``i``, so a resumed run trains exactly
as an uninterrupted one.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import torch

from agents.nets import PolicyNet, ValueNet, masked_log_softmax
from sixtysix_env.observation import FULL_OBS_SIZE, OBS_SIZE

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

    def load(self, ckpt: dict[str, Any]) -> None:
        """The networks and optimizer state of a checkpoint (checked by ``agents.checkpoint``)."""
        self.policy.load_state_dict(ckpt["policy"])
        self.critic.load_state_dict(ckpt["critic"])
        self.optimizer.load_state_dict(ckpt["optimizer"])

    def train(self, data: Samples, seed: int) -> dict[str, float]:
        """``epochs`` passes of minibatch Adam over ``data``; the ``losses/`` means of the last pass."""
        cfg = self.cfg
        obs, masks = torch.from_numpy(data.obs), torch.from_numpy(data.masks)
        target, full = torch.from_numpy(data.policy), torch.from_numpy(data.full)
        value = torch.from_numpy(data.value)
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
                v_loss = ((self.critic(full[mb]) - value[mb]) ** 2).mean()
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
