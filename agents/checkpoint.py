"""The one owner of the checkpoint format: build, validate, save atomically, load.

Checkpoints are plain ``torch.save`` dicts of tensors and primitive
containers, loadable with ``weights_only=True``::

    {"format": "sixtysix-ppo", "version": 1, "obs_size": int,
     "config": {...}, "policy": state_dict, "critic": state_dict, ...,
     "endgame": {"hidden": [int, ...], "state": state_dict},   # optional: talon spent
     "closed": {"hidden": [int, ...], "state": state_dict}}    # optional: talon closed

Training adds the entries of :data:`RESUME_ONLY` (optimizer state, snapshot
pool, RNG states) and step counters for resuming; the distillation and
averaging tools add a record of how a phase network or an average was made
(:data:`PHASE_RECORDS`, ``"average_policies"``).
"""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path
from typing import Any

import torch

from sixtysix_env.observation import OBS_SIZE

from .nets import PhaseNet, PolicyNet

FORMAT = "sixtysix-ppo"
VERSION = 1
DEFAULT_CHECKPOINT = Path(__file__).resolve().parent / "checkpoints" / "ppo_default.pt"
RESUME_ONLY = ("optimizer", "snapshots", "rng")  # entries only ``train.py --resume`` reads
def build(config: dict[str, Any], policy: torch.nn.Module, **entries: Any) -> dict[str, Any]:
    """A checkpoint dict: the format header, ``config``, the policy's weights
    and any further ``entries`` (``critic=state_dict``, step counters, ...)."""
    return {"format": FORMAT, "version": VERSION, "obs_size": OBS_SIZE, "config": config,
            "policy": policy.state_dict(), **entries}


def load(path: str | os.PathLike) -> dict[str, Any]:
    """Read and validate a checkpoint; any problem is a ``ValueError`` naming the file."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"checkpoint {path} does not exist")
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # corrupt, truncated, or not a torch file at all
        raise ValueError(f"checkpoint {path} is corrupt or not a sixtysix PPO checkpoint: {e}") from None
    if not isinstance(ckpt, dict) or ckpt.get("format") != FORMAT:
        raise ValueError(f"checkpoint {path} is not a sixtysix PPO checkpoint (bad format)")
    if ckpt.get("version") != VERSION:
        raise ValueError(f"checkpoint {path} has version {ckpt.get('version')!r}, not {VERSION}")
    if ckpt.get("obs_size") != OBS_SIZE:
        raise ValueError(
            f"checkpoint {path} was trained on observations of size {ckpt.get('obs_size')!r}, "
            f"this version encodes {OBS_SIZE}: retrain it"
        )
    for key in ("policy", "config"):
        if not isinstance(ckpt.get(key), dict):
            raise ValueError(f"checkpoint {path} lacks its {key!r} entry")
    return ckpt


def policy_from(ckpt: dict[str, Any], path: str | os.PathLike = "<memory>") -> PolicyNet:
    """Rebuild the policy network stored in a (validated) checkpoint."""
    hidden = ckpt["config"].get("hidden", [256, 256])
    net = PolicyNet(OBS_SIZE, hidden)
    try:
        net.load_state_dict(ckpt["policy"])
    except (RuntimeError, KeyError) as e:
        raise ValueError(f"checkpoint {path}: policy weights do not fit hidden={hidden}: {e}") from None
    return net


PHASE_KEYS = {"spent": "endgame", "closed": "closed"}  # phase -> checkpoint entry of its network
PHASE_RECORDS = {"spent": "distill_endgame", "closed": "distill_closed"}  # phase -> how it was made


def phase_entry(net: PhaseNet) -> dict[str, Any]:
    """The checkpoint's ``"endgame"`` (or ``"closed"``) entry for ``net``
    (read back by :func:`phase_net_from`)."""
    return {"hidden": list(net.hidden), "state": net.state_dict()}


def phase_net_from(ckpt: dict[str, Any], path: str | os.PathLike = "<memory>",
                            phase: str = "spent") -> PhaseNet | None:
    """The checkpoint's endgame network for ``phase`` (``"spent"``: the
    ``"endgame"`` entry; ``"closed"``: the ``"closed"`` entry), or None if
    it has none."""
    key = PHASE_KEYS[phase]
    entry = ckpt.get(key)
    if entry is None:
        return None
    try:
        net = PhaseNet(entry["hidden"])
        net.load_state_dict(entry["state"])
    except (RuntimeError, KeyError, TypeError) as e:
        raise ValueError(f"checkpoint {path}: bad {key} network: {e}") from None
    return net


def playable(ckpt: dict[str, Any], *drop: str) -> dict[str, Any]:
    """``ckpt`` without the entries only a resumed run reads (:data:`RESUME_ONLY`) and without ``drop``."""
    return {k: v for k, v in ckpt.items() if k not in RESUME_ONLY and k not in drop}


def with_phase_net(ckpt: dict[str, Any], phase: str, net: PhaseNet, record: Any = None) -> dict[str, Any]:
    """``ckpt`` with ``net`` as its network for ``phase`` (the other phase's is kept) and,
    unless ``record`` is None, how that network was made."""
    out = {**ckpt, PHASE_KEYS[phase]: phase_entry(net)}
    if record is not None:
        out[PHASE_RECORDS[phase]] = record
    return out


def half_precision(ckpt: dict[str, Any]) -> dict[str, Any]:
    """``ckpt`` with the weights of all its networks stored as float16: half
    the file size. Loading casts them back to float32, so the bot computes
    as before, on weights rounded to float16."""
    out = dict(ckpt)
    for key in ("policy", "critic"):
        if isinstance(out.get(key), dict):
            out[key] = {k: v.half() for k, v in out[key].items()}
    for key in PHASE_KEYS.values():
        if isinstance(out.get(key), dict):
            out[key] = {**out[key], "state": {k: v.half() for k, v in out[key]["state"].items()}}
    return out


class CheckpointWriteError(OSError):
    """A checkpoint could not be written (disk full, no permission, ...): the message names
    the file and the reason, ``errno`` is the system's; no temp file is left behind."""


class NonFiniteWeightsError(ValueError):
    """Weights with NaN or infinite values, which :func:`save_atomic` never writes."""


def nonfinite(obj: Any, where: str = "") -> str | None:
    """Where the first floating-point tensor in ``obj`` (nested dicts, lists and tuples, as in
    a checkpoint) with a NaN or an infinity is, e.g. ``"policy['net.0.weight']"``; None if none."""
    if isinstance(obj, torch.Tensor):
        return where if obj.is_floating_point() and not bool(torch.isfinite(obj).all()) else None
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, (list, tuple)) else ()
    for k, v in items:
        found = nonfinite(v, f"{where}[{k!r}]" if where else str(k))
        if found is not None:
            return found
    return None


def write_atomic(path: str | os.PathLike, data: bytes | memoryview) -> None:
    """Write ``data`` to ``path`` whole or not at all: a temp file, fsync, ``os.replace``.
    On any failure (an ``OSError`` such as a full disk, or Ctrl-C) the temp file is removed
    and the previous file at ``path`` is intact."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise


def save_atomic(obj: dict[str, Any], path: str | os.PathLike) -> None:
    """Write a checkpoint whole or not at all (:func:`write_atomic`), never with non-finite
    weights (:class:`NonFiniteWeightsError`). A killed run never leaves a half-written
    checkpoint; a failed write (a full disk) is a :class:`CheckpointWriteError` naming the
    file and the reason, with no temp file left and the previous file intact."""
    bad = nonfinite(obj)
    if bad is not None:
        raise NonFiniteWeightsError(f"checkpoint {path} not written: {bad} holds NaN or infinite values")
    data = io.BytesIO()
    try:
        torch.save(obj, data)  # in memory first, so a failed write is a plain OSError, not torch's
        write_atomic(path, data.getbuffer())
    except OSError as e:
        error = CheckpointWriteError(f"cannot write checkpoint {path}: {e.strerror or e}")
        error.errno = e.errno
        raise error from e
