"""The networks: the PPO policy, the phase networks, the critic, and masked sampling.

The policy sees exactly the environment's observation
(:func:`sixtysix_env.observation.encode`) and outputs 32 logits, one per
action of docs/rules.md section 5; illegal actions are masked to the dtype's
minimum before the softmax (:func:`masked_logits`, the one masking used by
play, training and distillation). The critic used in training may see the
full state (``encode_full``); it is never needed to play.

A **phase network** (:class:`PhaseNet`) replaces the policy in one phase of
the deal: with the talon spent (``"spent"``, trained on the exact solver's
values), where play is a perfect-information puzzle that the shared policy
solves less well, and after a close while cards are still face down
(``"closed"``, trained on the solver's values averaged over worlds sampled
from the view, which is what PIMC computes there). It sees the observation
plus the cards nobody has seen (with the talon spent,
exactly the opponent's hand; :func:`sixtysix_env.observation.unseen_cards`),
which it could compute itself but learns faster when given.

Playing a single position runs in numpy on a copy of the weights
(:func:`numpy_layers`, :func:`numpy_forward`): faster than torch for one
observation and thread-free.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from sixtysix_env.actions import N_ACTIONS
from sixtysix_env.cards import N_CARDS
from sixtysix_env.observation import OBS_SIZE, unseen_cards

MAX_LAYERS, MAX_WIDTH = 8, 4096  # the largest hidden layers a config or a checkpoint may declare


def check_hidden(hidden: object, what: str = "hidden") -> tuple[int, ...]:
    """``hidden`` as layer sizes if it is a list of 1 to :data:`MAX_LAYERS` ints in
    1..:data:`MAX_WIDTH`, else a ``ValueError`` saying why: checked before any network is
    allocated, so a declared size can never ask for more memory than this bound."""
    ok = isinstance(hidden, (list, tuple)) and 1 <= len(hidden) <= MAX_LAYERS and all(
        isinstance(h, int) and not isinstance(h, bool) and 1 <= h <= MAX_WIDTH for h in hidden)
    if not ok:
        raise ValueError(f"{what} must be 1 to {MAX_LAYERS} layer sizes in 1..{MAX_WIDTH}, "
                         f"got {str(hidden)[:80]}")
    return tuple(hidden)  # type: ignore[arg-type]


def mlp_shapes(in_size: int, hidden: Sequence[int], out_size: int) -> dict[str, tuple[int, ...]]:
    """The state-dict keys and tensor shapes of :func:`mlp` (``net.`` prefixed, as the
    networks below hold it), computed without building it."""
    sizes = [in_size, *hidden, out_size]
    shapes: dict[str, tuple[int, ...]] = {}
    for i, (a, b) in enumerate(zip(sizes, sizes[1:], strict=False)):
        shapes[f"net.{2 * i}.weight"], shapes[f"net.{2 * i}.bias"] = (b, a), (b,)
    return shapes


def mlp(in_size: int, hidden: Sequence[int], out_size: int, out_gain: float) -> nn.Sequential:
    """ReLU MLP with orthogonal init (CleanRL's ``layer_init``); a small
    ``out_gain`` makes the initial policy near uniform over legal actions."""
    layers: list[nn.Module] = []
    size = in_size
    for h in hidden:
        lin = nn.Linear(size, h)
        nn.init.orthogonal_(lin.weight, np.sqrt(2))
        nn.init.zeros_(lin.bias)
        layers += [lin, nn.ReLU()]
        size = h
    out = nn.Linear(size, out_size)
    nn.init.orthogonal_(out.weight, out_gain)
    nn.init.zeros_(out.bias)
    layers.append(out)
    return nn.Sequential(*layers)


class PolicyNet(nn.Module):
    """Observation -> 32 action logits (unmasked)."""

    def __init__(self, obs_size: int = OBS_SIZE, hidden: Sequence[int] = (256, 256)) -> None:
        super().__init__()
        self.obs_size = obs_size
        self.hidden = tuple(int(h) for h in hidden)
        self.net = mlp(obs_size, self.hidden, N_ACTIONS, 0.01)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.net(obs)


PHASE_IN = OBS_SIZE + N_CARDS


class PhaseNet(nn.Module):
    """Observation (+ :func:`unseen_cards`) -> 32 logits, for positions with
    the talon spent (trained on the exact solver's values) or closed (on
    their means over sampled worlds)."""

    def __init__(self, hidden: Sequence[int] = (512, 512, 256)) -> None:
        super().__init__()
        self.hidden = tuple(int(h) for h in hidden)
        self.net = mlp(PHASE_IN, self.hidden, N_ACTIONS, 0.01)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.net(torch.cat([obs, unseen_cards(obs)], dim=-1))


class ValueNet(nn.Module):
    """Critic input (the observation, or the full state) -> value in game points."""

    def __init__(self, in_size: int, hidden: Sequence[int] = (256, 256)) -> None:
        super().__init__()
        self.net = mlp(in_size, tuple(int(h) for h in hidden), 1, 1.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x).squeeze(-1)


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Illegal logits set to the dtype's minimum: probability exactly 0, but
    finite, so entropy and log-prob stay free of NaN (``-inf * 0``)."""
    return torch.where(mask, logits, torch.finfo(logits.dtype).min)


def masked_distribution(logits: torch.Tensor, mask: torch.Tensor) -> torch.distributions.Categorical:
    """The categorical policy over legal actions only (``mask`` bool, same shape)."""
    return torch.distributions.Categorical(logits=masked_logits(logits, mask))


def masked_log_softmax(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Log-probabilities of the policy restricted to the legal actions."""
    return torch.log_softmax(masked_logits(logits, mask), dim=-1)


def numpy_layers(net: nn.Sequential) -> list[tuple[np.ndarray, np.ndarray]]:
    """The linear layers of an :func:`mlp` as numpy ``(weight.T, bias)`` pairs."""
    return [(m.weight.detach().cpu().numpy().T.copy(), m.bias.detach().cpu().numpy().copy())
            for m in net if isinstance(m, nn.Linear)]


def numpy_forward(layers: list[tuple[np.ndarray, np.ndarray]], x: np.ndarray) -> np.ndarray:
    """The MLP's output for ``x`` (ReLU between the layers)."""
    last = len(layers) - 1
    for i, (w, b) in enumerate(layers):
        x = x @ w + b
        if i < last:
            np.maximum(x, 0.0, out=x)
    return x
