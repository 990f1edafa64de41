"""Team checkpoints: a network that plays all four seats of partnership Sixty-Six.

``train.py --config configs/team.yaml`` (:mod:`training.team`) writes them;
``make_four_agent("net:PATH")`` plays one greedily. The format is the
two-player checkpoint's (:mod:`agents.checkpoint`, whose file checks it
reuses: a regular file of bounded size, the zip directory checked before
anything is unpacked, ``torch.load`` of tensors and plain data only) with
its own header, since the networks see the four-player observation
(:func:`sixtysix_env.aec_four.encode_four`)::

    {"format": "sixtysix-team", "version": 1, "obs_size": OBS4_SIZE,
     "config": {"hidden": [...], "critic_hidden": [...], ...},
     "policy": state_dict, "critic": state_dict (optional), ...}

The critic sees the observation plus the other three hands
(:func:`critic_features`); it is needed only to train. A two-player
checkpoint given as a four-player bot, or a team checkpoint given as a
two-player one, is a one-line :class:`~agents.checkpoint.CheckpointError`.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

import numpy as np
import torch

from sixtysix_env.actions import N_ACTIONS
from sixtysix_env.aec_four import OBS4_SIZE, encode_four
from sixtysix_env.cards import N_CARDS
from sixtysix_env.four import FourState
from sixtysix_env.four_knowledge import FourView

from ..base import BaseAgent, require_turn
from ..checkpoint import (
    DEFAULT_HIDDEN,
    FORMAT,
    CheckpointError,
    check_resumable,
    check_tensor_bytes,
    check_weights,
    nonfinite,
    read,
)
from ..nets import PolicyNet, ValueNet, check_hidden, mlp_shapes, numpy_forward, numpy_layers

TEAM_FORMAT = "sixtysix-team"
TEAM_VERSION = 1
CRITIC4_SIZE = OBS4_SIZE + 3 * N_CARDS  # the observation + the hands of left, partner, right


def critic_features(obs: np.ndarray, state: FourState, seat: int) -> np.ndarray:
    """The critic's input for ``seat``: its observation and the other seats' hands (relative:
    left, partner, right). Training only: no bot sees it."""
    out = np.zeros(CRITIC4_SIZE, np.float32)
    out[:OBS4_SIZE] = obs
    for k in range(1, 4):
        hand, base = state.hands[(seat + k) & 3], OBS4_SIZE + (k - 1) * N_CARDS
        while hand:
            low = hand & -hand
            out[base + low.bit_length() - 1] = 1.0
            hand ^= low
    return out


def build_team(config: dict[str, Any], policy: torch.nn.Module, **entries: Any) -> dict[str, Any]:
    """A team checkpoint dict: the header, ``config``, the policy's weights and ``entries``."""
    return {"format": TEAM_FORMAT, "version": TEAM_VERSION, "obs_size": OBS4_SIZE, "config": config,
            "policy": policy.state_dict(), **entries}


def validate_team(ckpt: Any, path: str | os.PathLike[str] = "<memory>", *, resumable: bool = False) -> None:
    """A :class:`CheckpointError` naming ``path`` unless ``ckpt`` is a whole team checkpoint: the
    header, layer sizes within bounds (checked before any network is built), every network's
    weights with exactly its declared shapes, dense, finite; ``resumable``: also the entries
    ``train.py --resume`` reads (:func:`agents.checkpoint.check_resumable`)."""
    if isinstance(ckpt, dict) and ckpt.get("format") == FORMAT:
        raise CheckpointError(f"checkpoint {path} is a two-player checkpoint, not a four-player team "
                              "one (train one with: python train.py --config configs/team.yaml)")
    if not isinstance(ckpt, dict) or ckpt.get("format") != TEAM_FORMAT:
        raise CheckpointError(f"checkpoint {path} is not a sixtysix team checkpoint (bad format)")
    if ckpt.get("version") != TEAM_VERSION or ckpt.get("obs_size") != OBS4_SIZE:
        raise CheckpointError(f"checkpoint {path} has another version or observation size than this "
                              f"version's ({TEAM_VERSION}, {OBS4_SIZE}): retrain it")
    if not isinstance(ckpt.get("policy"), dict) or not isinstance(ckpt.get("config"), dict):
        raise CheckpointError(f"checkpoint {path}: lacks its 'policy' or 'config' entry")
    config = ckpt["config"]
    try:
        check_tensor_bytes(ckpt)
        hidden = check_hidden(config.get("hidden", DEFAULT_HIDDEN), "config 'hidden'")
        policy_shapes = mlp_shapes(OBS4_SIZE, hidden, N_ACTIONS)
        check_weights(ckpt["policy"], policy_shapes, "policy")
        if "critic" in ckpt:
            critic_hidden = check_hidden(config.get("critic_hidden", DEFAULT_HIDDEN),
                                         "config 'critic_hidden'")
            check_weights(ckpt["critic"], mlp_shapes(CRITIC4_SIZE, critic_hidden, 1), "critic")
        if resumable:
            check_resumable(ckpt, policy_shapes)
        found = nonfinite(ckpt)
    except RecursionError:
        raise CheckpointError(f"checkpoint {path}: entries nested too deeply") from None
    except ValueError as e:
        raise CheckpointError(f"checkpoint {path}: {e}") from None
    if found is not None:
        raise CheckpointError(f"checkpoint {path}: {found} holds NaN or infinite values")


def load_team(path: str | os.PathLike[str], *, resumable: bool = False) -> dict[str, Any]:
    """Read (:func:`agents.checkpoint.read`: the file checks) and validate a team checkpoint."""
    ckpt = read(path)
    validate_team(ckpt, path, resumable=resumable)
    return ckpt


def team_policy_from(ckpt: dict[str, Any]) -> PolicyNet:
    """The policy network of a validated team checkpoint."""
    net = PolicyNet(OBS4_SIZE, ckpt["config"].get("hidden", DEFAULT_HIDDEN))
    net.load_state_dict(ckpt["policy"])
    return net


def team_critic_from(ckpt: dict[str, Any]) -> ValueNet:
    """The critic of a validated team checkpoint that has one."""
    critic = ValueNet(CRITIC4_SIZE, ckpt["config"].get("critic_hidden", DEFAULT_HIDDEN))
    critic.load_state_dict(ckpt["critic"])
    return critic


@functools.lru_cache(maxsize=8)
def _layers(path: str, _mtime_ns: int, _size: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The policy's layers of the checkpoint ``path`` as it is now (a rewritten file is read again)."""
    return numpy_layers(team_policy_from(load_team(path)).net)


class FourNetAgent(BaseAgent):
    """A team network's greedy move: the legal action with the largest logit (deterministic)."""

    name = "four-net"

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], seed: int | None = None) -> None:
        super().__init__(seed)
        self.layers = layers

    def act(self, view: FourView) -> int:
        require_turn(view)
        obs, mask = encode_four(view)
        logits = numpy_forward(self.layers, obs[None, :])[0]
        return int(np.where(mask.astype(bool), logits, -np.inf).argmax())


def load_four_net_agent(path: str, seed: int | None = None) -> FourNetAgent:
    """The bot of ``net:PATH``; a :class:`CheckpointError` (one line) if ``path`` is no team checkpoint.
    A file is read once while it is unchanged (a match builds its bots for every deal)."""
    p = Path(path)
    try:
        st = p.stat()
    except OSError as e:
        raise CheckpointError(f"checkpoint {path} cannot be read: {e.strerror or e}") from None
    return FourNetAgent(_layers(str(p), st.st_mtime_ns, st.st_size), seed)


__all__ = ["CRITIC4_SIZE", "TEAM_FORMAT", "FourNetAgent", "build_team", "critic_features",
           "load_four_net_agent", "load_team", "team_critic_from", "team_policy_from", "validate_team"]
