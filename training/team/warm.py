"""The warm start of a team run: imitation of a teacher team before PPO (``warm_deals`` > 0).

The teacher (``warm_teacher``, by default the PIMC bot ``search:12``) plays
``warm_deals`` deals in all four seats and labels every decision with its
move; with chance ``warm_explore`` the move played is a random legal one
instead (the label stays the teacher's), so the positions include some off
the teacher's own path. The policy learns the labels by cross-entropy and the
critic the deal's result for the seat's team (``warm_epochs`` passes). The
positions are kept in ``warm.npz`` in the run folder: PPO keeps an imitation
term on them (``imitation_coef``), and a resumed run reads them back.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from agents.four import make_four_agent
from agents.four.net import CRITIC4_SIZE, critic_features
from agents.nets import PolicyNet, ValueNet, masked_distribution
from sixtysix_env.actions import N_ACTIONS, actions_of
from sixtysix_env.aec_four import OBS4_SIZE, encode_four
from sixtysix_env.four import team_of
from sixtysix_env.four_deals import deal_four
from sixtysix_env.four_knowledge import view_four
from sixtysix_env.seeding import derive_seed
from training.config import ConfigError

from .config import TeamConfig
from .rollout import deal_result

WARM_FILE = "warm.npz"


@dataclass
class WarmData:
    """Teacher-labelled positions: observations (float16), the other three hands (the critic's
    extra input, :func:`agents.four.net.critic_features`), masks, labels, the deal results."""

    obs: np.ndarray
    hands: np.ndarray
    masks: np.ndarray
    labels: np.ndarray
    results: np.ndarray

    def __len__(self) -> int:
        return len(self.labels)

    def save(self, path: Path) -> None:
        with open(path, "wb") as f:
            np.savez(f, obs=self.obs, hands=self.hands, masks=self.masks, labels=self.labels,
                     results=self.results)

    @classmethod
    def load(cls, path: Path) -> WarmData:
        """A ``warm.npz`` (arrays only, no pickles), checked; a ConfigError naming it if it is not one."""
        try:
            if not path.is_file():
                raise ValueError("not a regular file")
            with np.load(path, allow_pickle=False) as z:
                data = cls(*(z[k] for k in ("obs", "hands", "masks", "labels", "results")))
        except (OSError, KeyError, ValueError, EOFError) as e:
            raise ConfigError(f"warm-start positions {path} cannot be read: {str(e)[:200]}") from None
        n = len(data.labels)
        shapes = {"obs": (n, OBS4_SIZE), "hands": (n, CRITIC4_SIZE - OBS4_SIZE), "masks": (n, N_ACTIONS)}
        ok = all(getattr(data, k).shape == v for k, v in shapes.items()) and data.results.shape == (n,)
        in_range = n == 0 or (data.labels.min() >= 0 and data.labels.max() < N_ACTIONS
                              and bool(data.masks[np.arange(n), data.labels].all()))
        if not ok or not in_range or not np.isfinite(data.obs.astype(np.float32)).all():
            raise ConfigError(f"{path} does not hold warm-start positions of this version's observations")
        return data


def generate(cfg: TeamConfig) -> WarmData:
    """``warm_deals`` deals of the teacher team, every decision labelled (see the module doc)."""
    teacher = make_four_agent(cfg.warm_teacher, derive_seed(cfg.seed, "warm-teacher"))
    explore = random.Random(derive_seed(cfg.seed, "warm-explore"))
    obs: list[np.ndarray] = []
    hands: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    labels: list[int] = []
    seats: list[int] = []
    results: list[float] = []
    for k in range(cfg.warm_deals):
        s = deal_four(derive_seed(cfg.seed, "warm-deal", k), dealer=k % 4)
        first = len(labels)
        while not s.is_over:
            view = view_four(s, s.to_act)
            o, m = encode_four(view)
            label = int(teacher.act(view))
            obs.append(o.astype(np.float16))
            hands.append(critic_features(o, s, s.to_act)[OBS4_SIZE:].astype(bool))
            masks.append(m.astype(bool))
            labels.append(label)
            seats.append(s.to_act)
            legal = actions_of(view.legal_mask)
            s.apply(explore.choice(legal) if explore.random() < cfg.warm_explore else label)
        results.extend(deal_result(s, team_of(seat)) for seat in seats[first:])
    o_arr = np.stack(obs) if obs else np.zeros((0, OBS4_SIZE), np.float16)
    h_arr = np.stack(hands) if hands else np.zeros((0, CRITIC4_SIZE - OBS4_SIZE), bool)
    return WarmData(o_arr, h_arr, np.stack(masks) if masks else np.zeros((0, N_ACTIONS), bool),
                    np.asarray(labels, np.int64), np.asarray(results, np.float32))


def imitation_loss(policy: PolicyNet, data: WarmData, idx: np.ndarray) -> torch.Tensor:
    """Cross-entropy of the masked policy towards the teacher's labels at rows ``idx``."""
    obs = torch.from_numpy(data.obs[idx].astype(np.float32))
    masks = torch.from_numpy(data.masks[idx])
    return -masked_distribution(policy(obs), masks).log_prob(torch.from_numpy(data.labels[idx])).mean()


def pretrain(cfg: TeamConfig, data: WarmData, policy: PolicyNet, critic: ValueNet,
             optimizer: torch.optim.Optimizer) -> dict[str, float]:
    """``warm_epochs`` passes of minibatch Adam (step ``warm_learning_rate``): the policy on the
    labels, the critic on the results."""
    gen = np.random.default_rng(derive_seed(cfg.seed, "warm-train"))
    for group in optimizer.param_groups:
        group["lr"] = cfg.warm_learning_rate
    size = 256
    p_loss = v_loss = torch.zeros(())
    for _ in range(cfg.warm_epochs):
        order = gen.permutation(len(data))
        for start in range(0, len(order) - size + 1, size):
            idx = order[start:start + size]
            p_loss = imitation_loss(policy, data, idx)
            feats = np.concatenate([data.obs[idx], data.hands[idx]], axis=1).astype(np.float32)
            pred = critic(torch.from_numpy(feats))
            v_loss = 0.5 * ((pred - torch.from_numpy(data.results[idx])) ** 2).mean()
            optimizer.zero_grad()
            (p_loss + cfg.vf_coef * v_loss).backward()
            torch.nn.utils.clip_grad_norm_(optimizer.param_groups[0]["params"], cfg.max_grad_norm)
            optimizer.step()
    for group in optimizer.param_groups:
        group["lr"] = cfg.learning_rate
    return {"warm/imitation": p_loss.item(), "warm/value": v_loss.item(), "warm/positions": float(len(data))}
