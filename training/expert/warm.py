"""Where an expert-iteration run starts: random weights, or the networks of a checkpoint (``init``).

A warm start takes the policy and the full-state critic of a checkpoint,
typically a PPO self-play run's (``configs/selfplay.yaml``) or another expert
run's. The path comes from the operator's config, but the file is untrusted:
it is read and checked whole by :mod:`agents.core.checkpoint` (size cap, exact
layers and shapes, finite weights), and everything wrong with it is a
one-line :class:`~agents.core.checkpoint.CheckpointError` naming it, or a
:class:`~training.config.ConfigError` where the file and the config
disagree, before the run folder is claimed.

The config's ``hidden`` and ``critic_hidden`` must be the checkpoint's: the
config stays the one statement of the run's networks (and a resumed run
keeps them). Both kinds of checkpoint value a position the same way: PPO's
critic is fitted to the λ-return of the deal's game points for the player
(``gamma`` 1, the episode of a value ending at each deal's end), the expert
critic to the deal's game points themselves; both estimate the same
quantity on the same -3..3 scale, so the critic is taken as it is. A
checkpoint that says it predicts anything else (``value_target``) is refused.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.core import checkpoint
from agents.core.nets import PolicyNet, ValueNet, check_hidden
from training.config import ConfigError

from .config import FIXED, ExpertConfig

RECORD = "started_from"  # the checkpoint entry that says which networks a run started from


@dataclass
class Init:
    """The networks a run starts from and the record of where they came from."""

    policy: PolicyNet
    critic: ValueNet
    record: dict[str, Any]  # RECORD: path, sha256, and the source run's algorithm and counters


def load_init(cfg: ExpertConfig) -> Init:
    """The networks of ``cfg.init``, checked against the file's contents and the config's layers."""
    path = Path(cfg.init)
    try:
        ckpt, policy, critic = networks(path)
    except checkpoint.CheckpointError as e:
        raise checkpoint.CheckpointError(f"config key 'init': {e}") from None
    config = ckpt["config"]
    critic_hidden = tuple(check_hidden(config.get("critic_hidden", checkpoint.DEFAULT_HIDDEN)))
    for key, theirs in (("hidden", policy.hidden), ("critic_hidden", critic_hidden)):
        ours = tuple(getattr(cfg, key))
        if ours != theirs:
            raise ConfigError(f"config key 'init': {path} holds networks with {key}={list(theirs)}, this "
                              f"config has {key}={list(ours)}; set {key} to the checkpoint's")
    return Init(policy, critic, record(path, ckpt))


def networks(path: Path) -> tuple[dict[str, Any], PolicyNet, ValueNet]:
    """The checkpoint file ``path``, its policy and its full-state critic; it must be a
    German game's and predict the deal's game points; a CheckpointError naming it otherwise."""
    ckpt = checkpoint.load(path)  # size cap, exact layers and shapes, finite weights
    policy = checkpoint.policy_from(ckpt, path)
    critic = checkpoint.full_critic_from(ckpt, path)
    rules = checkpoint.rules_of(ckpt).spec
    if rules != FIXED["rules"]:
        raise checkpoint.CheckpointError(f"checkpoint {path} was trained on rules {rules!r}; expert "
                                         f"iteration plays {FIXED['rules']!r}")
    target = ckpt["config"].get("value_target", FIXED["value_target"])
    if target != FIXED["value_target"]:
        raise checkpoint.CheckpointError(f"checkpoint {path}: its critic predicts {str(target)[:40]!r}, "
                                         f"not the deal's game points ({FIXED['value_target']!r})")
    return ckpt, policy, critic


def record(path: Path, ckpt: dict[str, Any]) -> dict[str, Any]:
    """What a run's checkpoints say about the checkpoint it started from: its path, its bytes'
    SHA-256, and the source run's algorithm and step counters (-1 where it has none)."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    algorithm = ckpt["config"].get("algorithm", "ppo")

    def count(key: str) -> int:
        value = ckpt.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else -1

    return {"path": str(path), "sha256": digest.hexdigest(),
            "algorithm": algorithm if isinstance(algorithm, str) else "?",
            "global_step": count("global_step"), "update": count("update")}


def saved_record(ckpt: dict[str, Any]) -> dict[str, Any] | None:
    """The :data:`RECORD` of a resumed run's checkpoint (kept as it is), None if it has none."""
    entry = ckpt.get(RECORD)
    if not isinstance(entry, dict):
        return None
    return {str(k)[:40]: v for k, v in list(entry.items())[:16] if isinstance(v, (str, int))}
