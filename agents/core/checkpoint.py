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
(:data:`PHASE_RECORDS`, ``"average_policies"``). The zip checks before ``torch.load`` and
the atomic writes live in :mod:`agents.core.checkpoint_files`, re-exported here.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import pickle
import reprlib
import stat
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import torch

from sixtysix_env.actions import N_ACTIONS
from sixtysix_env.observation import FULL_OBS_SIZE, OBS_SIZE
from sixtysix_env.variants import GERMAN, Rules, rules_from_spec

from .checkpoint_files import MAX_BYTES as MAX_BYTES
from .checkpoint_files import MAX_DIRECTORY_BYTES as MAX_DIRECTORY_BYTES
from .checkpoint_files import check_members as check_members
from .checkpoint_files import write_atomic as write_atomic
from .checkpoint_files import zip_directory as zip_directory
from .nets import PHASE_IN, PhaseNet, PolicyNet, ValueNet, check_hidden, mlp_shapes

FORMAT = "sixtysix-ppo"
VERSION = 1
DEFAULT_CHECKPOINT = Path(__file__).resolve().parents[1] / "checkpoints" / "ppo_default.pt"
RESUME_ONLY = ("optimizer", "snapshots", "rng")  # entries only ``train.py --resume`` reads
RESUME_ENTRIES: dict[str, type | tuple[type, ...]] = {
    "optimizer": dict, "snapshots": list, "rng": dict, "global_step": int, "update": int,
    "best": (int, float)}  # what ``train.py --resume`` reads, and its type
DEFAULT_HIDDEN = [256, 256]  # the layer sizes of a checkpoint whose config does not say
MAX_DEPTH = 100  # nesting of a checkpoint's values (a real one nests about 6 deep)
MAX_ENTRIES = 1_000_000  # values walked in a checkpoint (a shared list counted each time it is met)


def build(config: dict[str, Any], policy: torch.nn.Module, **entries: Any) -> dict[str, Any]:
    """A checkpoint dict: the format header, ``config``, the policy's weights
    and any further ``entries`` (``critic=state_dict``, step counters, ...)."""
    return {"format": FORMAT, "version": VERSION, "obs_size": OBS_SIZE, "config": config,
            "policy": policy.state_dict(), **entries}


class CheckpointError(ValueError):
    """A checkpoint file that cannot be used: the one-line message names the file and what is
    wrong with it (checkpoints from elsewhere are untrusted input, checked whole before use)."""


def load(path: str | os.PathLike[str], *, resumable: bool = False) -> dict[str, Any]:
    """Read and validate a checkpoint (:func:`validate`; ``resumable``: also every entry
    ``train.py --resume`` reads); any problem is a :class:`CheckpointError` naming the file.
    Its zip directory is checked first (:func:`check_members`), so nothing is unpacked that
    could outgrow :data:`MAX_BYTES`."""
    path = Path(path)
    ckpt = read(path)
    validate(ckpt, path, resumable=resumable)
    return ckpt


def read(path: str | os.PathLike[str]) -> Any:
    """A checkpoint file's contents, unvalidated (:func:`load` validates them; another format
    built on these checks, :mod:`agents.four.net`, its own way): a regular file within
    :data:`MAX_BYTES`, its zip directory checked (:func:`check_members`), then ``torch.load`` of
    tensors and plain data only; any problem is a :class:`CheckpointError` naming the file."""
    path = Path(path)
    if not path.exists():
        raise CheckpointError(f"checkpoint {path} does not exist")
    if not path.is_file():  # a folder, a fifo (reading would block), a device (endless)
        raise CheckpointError(f"checkpoint {path} is not a regular file")
    if path.stat().st_size > MAX_BYTES:
        raise CheckpointError(f"checkpoint {path} is larger than {MAX_BYTES // 2**20} MiB")
    with _open_regular(path) as f:
        try:
            check_members(zip_directory(f))
        except ValueError as e:
            raise CheckpointError(f"checkpoint {path} is corrupt or not a sixtysix PPO checkpoint, refused "
                                  f"unread: {e}") from None
        f.seek(0)
        return _torch_load(f, path)


@contextlib.contextmanager
def _open_regular(path: Path) -> Iterator[BinaryIO]:
    """``path`` open for reading if it is still a regular file (never blocks on a fifo)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise CheckpointError(f"checkpoint {path} cannot be read: {e.strerror or e}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise CheckpointError(f"checkpoint {path} is not a regular file")
    with os.fdopen(fd, "rb") as f:
        yield f


def _torch_load(f: BinaryIO, path: Path) -> Any:
    """``torch.load`` of tensors and plain data only; its failure as one line naming ``path``."""
    try:
        with warnings.catch_warnings():  # torch's warnings on a hostile pickle: the error is one line
            warnings.simplefilter("ignore")
            return torch.load(f, map_location="cpu", weights_only=True)
    except Exception as e:  # corrupt, truncated, or not a torch file at all
        first = str(e).strip().splitlines()[0][:200] if str(e).strip() else type(e).__name__
        if isinstance(e, pickle.UnpicklingError) and "weights only" in first.lower():
            first = ("it holds Python objects besides tensors and plain data (refused: loading them could "
                     "run code)")
        raise CheckpointError(f"checkpoint {path} is corrupt or not a sixtysix PPO checkpoint: "
                              f"{first}") from None


def validate(ckpt: Any, path: str | os.PathLike[str] = "<memory>", *, resumable: bool = False) -> None:
    """A :class:`CheckpointError` naming ``path`` unless ``ckpt`` is whole: the format header;
    the config's layer sizes within :data:`agents.core.nets.MAX_LAYERS` x :data:`agents.core.nets.MAX_WIDTH`
    (checked before any network is built); every network's weights with exactly the keys and
    shapes its declared architecture has, dense float tensors on the CPU (:func:`tensor_problem`)
    and finite; with ``resumable`` the entries of :data:`RESUME_ENTRIES` with their types. Any
    value may be nested too deeply to print or walk (a hand-made pickle): that is one too."""
    try:
        _validate(ckpt, path, resumable)
    except RecursionError:
        raise CheckpointError(f"checkpoint {path}: entries nested too deeply") from None


def _validate(ckpt: Any, path: str | os.PathLike[str], resumable: bool) -> None:
    def bad(what: str) -> CheckpointError:
        return CheckpointError(f"checkpoint {path}: {what}")

    if not isinstance(ckpt, dict) or ckpt.get("format") != FORMAT:
        raise CheckpointError(f"checkpoint {path} is not a sixtysix PPO checkpoint (bad format)")
    if ckpt.get("version") != VERSION:
        raise CheckpointError(f"checkpoint {path} has version {_short(ckpt.get('version'))}, not {VERSION}")
    if ckpt.get("obs_size") != OBS_SIZE:
        raise CheckpointError(f"checkpoint {path} was trained on observations of size "
                              f"{_short(ckpt.get('obs_size'))}, this version encodes {OBS_SIZE}: "
                              "retrain it")
    for key in ("policy", "config"):
        if not isinstance(ckpt.get(key), dict):
            raise bad(f"lacks its {key!r} entry")
    config = ckpt["config"]
    try:
        check_tensor_bytes(ckpt)
        rules_of(ckpt)
        hidden = check_hidden(config.get("hidden", DEFAULT_HIDDEN), "config 'hidden'")
        check_weights(ckpt["policy"], mlp_shapes(OBS_SIZE, hidden, N_ACTIONS), "policy")
        if "critic" in ckpt:
            critic_in = FULL_OBS_SIZE if config.get("full_critic", True) is not False else OBS_SIZE
            critic_hidden = check_hidden(config.get("critic_hidden", DEFAULT_HIDDEN),
                                         "config 'critic_hidden'")
            check_weights(ckpt["critic"], mlp_shapes(critic_in, critic_hidden, 1), "critic")
        for key in PHASE_KEYS.values():
            if key in ckpt:
                entry = ckpt[key]
                if not isinstance(entry, dict):
                    raise ValueError(f"{key!r} is not a network entry")
                shapes = mlp_shapes(PHASE_IN, check_hidden(entry.get("hidden"), f"{key} 'hidden'"), N_ACTIONS)
                check_weights(entry.get("state"), shapes, f"{key} network")
        if resumable:
            check_resumable(ckpt, mlp_shapes(OBS_SIZE, hidden, N_ACTIONS))
    except ValueError as e:
        raise bad(str(e)) from None
    try:
        found = nonfinite(ckpt)
    except ValueError as e:  # a tensor it cannot read: sparse, on the meta device
        raise bad(str(e)) from None
    if found is not None:
        raise bad(f"{found} holds NaN or infinite values")


def check_tensor_bytes(obj: Any, cap: int = MAX_BYTES) -> None:
    """A ``ValueError`` unless every tensor in ``obj`` (nested as in a checkpoint) spans no more
    bytes than its storage holds and all of them together at most ``cap``: a view may repeat one
    stored value (stride 0) a billion times, and anything computed from it (:func:`nonfinite`,
    a cast) would allocate all of that from a file of a few KiB. Entries are counted as a walk
    meets them (:data:`MAX_ENTRIES`), so shared or cyclic containers end the walk too."""
    total, visits = 0, 0
    stack = [(obj, 0)]
    while stack:
        item, depth = stack.pop()
        visits += 1
        if visits > MAX_ENTRIES:  # a pickle may share one list twice at every level: 2**64 entries
            raise ValueError(f"it holds more than {MAX_ENTRIES:,} entries (counting shared ones each time)")
        if depth > MAX_DEPTH:  # so the recursive walks after this one (nonfinite, str) end too
            raise ValueError("entries nested too deeply")
        if isinstance(item, torch.Tensor):
            spans = item.numel() * item.element_size()
            if item.layout == torch.strided and spans > item.untyped_storage().nbytes():
                raise ValueError(f"a tensor of shape {tuple(item.shape)[:8]} spans {spans:,} bytes, its "
                                 f"storage holds {item.untyped_storage().nbytes():,} (a repeating view)")
            total += spans
            if total > cap:
                raise ValueError(f"its tensors span more than {cap // 2**20} MiB in all")
        elif isinstance(item, dict):
            stack.extend((value, depth + 1) for value in item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend((value, depth + 1) for value in item)


def _short(value: Any, width: int = 40) -> str:
    """``value`` for a message, cut short before it is built whole: ``str`` of a list shared twice
    at each of 64 levels (a pickle of a few hundred bytes) would never end."""
    return reprlib.repr(value)[:width]


def rules_of(ckpt: dict[str, Any]) -> Rules:
    """The rule preset a checkpoint was trained on (its config's ``rules`` spec,
    docs/rules-variants.md; German for checkpoints from before presets); a
    ``ValueError`` for a spec that names no preset (checkpoints are untrusted)."""
    spec = ckpt["config"].get("rules", GERMAN.spec)
    if not isinstance(spec, str) or len(spec) > 200:
        raise ValueError(f"config 'rules' must be a rules spec string, got {_short(spec, 60)}")
    return rules_from_spec(spec)


FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)  # weights, as stored


def tensor_problem(t: torch.Tensor, floating: bool = False) -> str | None:
    """Why a tensor read from a file is none a network can load or :func:`nonfinite` can check,
    or None: it must be dense (strided), on the CPU (``torch.load`` maps there, but a meta tensor
    stays where it is), of no floating-point dtype but :data:`FLOAT_DTYPES` (torch cannot look
    for NaNs in float8) and, ``floating``, of one of those."""
    if t.layout != torch.strided:
        return f"a {str(t.layout).removeprefix('torch.')} tensor, not a dense one"
    if t.device.type != "cpu":
        return f"a tensor on the {t.device.type} device, not the CPU"
    if (floating or t.is_floating_point()) and t.dtype not in FLOAT_DTYPES:
        return f"of dtype {str(t.dtype).removeprefix('torch.')}, not float16, bfloat16, float32 or float64"
    return None


def check_weights(state: Any, shapes: dict[str, tuple[int, ...]], what: str) -> None:
    """A ``ValueError`` unless ``state`` is a state dict of dense floating-point CPU tensors
    (:func:`tensor_problem`) with exactly the keys and shapes ``shapes``."""
    if not isinstance(state, dict) or set(state) != set(shapes):
        raise ValueError(f"the {what} weights do not have the layers of the declared architecture")
    for key, shape in shapes.items():
        t = state[key]
        if not isinstance(t, torch.Tensor) or tuple(t.shape) != shape:
            got = tuple(t.shape) if isinstance(t, torch.Tensor) else type(t).__name__
            raise ValueError(f"{what} weight {key!r} is {got}, the declared architecture needs {shape}")
        problem = tensor_problem(t, floating=True)
        if problem is not None:
            raise ValueError(f"{what} weight {key!r} is {problem}")


def check_resumable(ckpt: dict[str, Any], policy_shapes: dict[str, tuple[int, ...]]) -> None:
    """A ``ValueError`` unless the entries a resumed run reads are there with their types."""
    for key, kind in RESUME_ENTRIES.items():
        value = ckpt.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            want = "a number" if isinstance(kind, tuple) else kind.__name__
            raise ValueError(f"{key!r} must be {want}, got {type(value).__name__} (not a resumable run)")
    if ckpt["global_step"] < 0 or ckpt["update"] < 0 or not math.isfinite(ckpt["best"]):
        raise ValueError("'global_step' and 'update' must be >= 0 and 'best' finite")
    if "critic" not in ckpt:
        raise ValueError("lacks its 'critic' entry (not a resumable run)")
    rng = ckpt["rng"]
    state = rng.get("torch")
    if not (isinstance(state, torch.Tensor) and state.dtype == torch.uint8
            and state.shape == torch.get_rng_state().shape):
        raise ValueError("'rng' lacks a torch generator state")
    if not isinstance(rng.get("numpy"), dict):
        raise ValueError("'rng' lacks a numpy generator state")
    optimizer = ckpt["optimizer"]
    if not isinstance(optimizer.get("state"), dict) or not isinstance(optimizer.get("param_groups"), list):
        raise ValueError("'optimizer' is not an optimizer state")
    for i, snapshot in enumerate(ckpt["snapshots"]):
        check_weights(snapshot, policy_shapes, f"snapshots[{i}]")


def check_optimizer(optimizer: torch.optim.Optimizer) -> None:
    """A ``ValueError`` unless a loaded optimizer can step: every setting of its parameter groups
    of the kind its constructor's default has (finite numbers for ``lr``, ``eps``, a pair for
    ``betas``, true or false for the switches), and every per-parameter state tensor (Adam's
    moments) with its parameter's shape. ``load_state_dict`` checks neither (it only casts the
    moments to the parameter's dtype), and a mismatch would fail only at the first step."""
    for group in optimizer.param_groups:
        for key, default in optimizer.defaults.items():
            if key in group and not _setting_like(group[key], default):
                raise ValueError(f"optimizer setting {key!r} is {_short(group[key])}, not like "
                                 f"{default!r}")
        for param in group["params"]:
            for key, value in optimizer.state.get(param, {}).items():
                if isinstance(value, torch.Tensor) and value.dim() > 0 and value.shape != param.shape:
                    raise ValueError(f"optimizer state {key!r} has shape {tuple(value.shape)}, "
                                     f"its parameter {tuple(param.shape)}")


def _setting_like(value: Any, default: Any) -> bool:
    """Whether an optimizer setting read from a file is of the kind of its ``default``."""
    if isinstance(default, bool) or default is None:
        return value is None or isinstance(value, bool)
    if isinstance(default, (int, float)):  # rates, coefficients: finite, never negative
        return type(value) in (int, float) and 0 <= value < math.inf
    if isinstance(default, tuple):
        return (isinstance(value, (tuple, list)) and len(value) == len(default)
                and all(_setting_like(v, d) for v, d in zip(value, default, strict=True)))
    return True  # a kind this check does not know (a tensor lr): load_state_dict's own checks


def policy_from(ckpt: dict[str, Any], path: str | os.PathLike[str] = "<memory>") -> PolicyNet:
    """Rebuild the policy network stored in a checkpoint (:func:`validate` first)."""
    validate(ckpt, path)
    net = PolicyNet(OBS_SIZE, ckpt["config"].get("hidden", DEFAULT_HIDDEN))
    net.load_state_dict(ckpt["policy"])
    return net


def full_critic_from(ckpt: dict[str, Any], path: str | os.PathLike[str] = "<memory>") -> ValueNet:
    """Rebuild the critic stored in a checkpoint (:func:`validate` first) if it sees the full
    state (``encode_full``: what a search values its worlds with); a :class:`CheckpointError`
    naming ``path`` if it has no critic or one that sees only the observation."""
    validate(ckpt, path)
    if not isinstance(ckpt.get("critic"), dict):
        raise CheckpointError(f"checkpoint {path} has no critic: a guide network needs one "
                              "(train with a critic, config full_critic: true)")
    config = ckpt["config"]
    if config.get("full_critic", True) is False:
        raise CheckpointError(f"checkpoint {path}: its critic sees only the observation; a "
                              "guide network needs one that sees the full state (full_critic)")
    critic = ValueNet(FULL_OBS_SIZE, check_hidden(config.get("critic_hidden", DEFAULT_HIDDEN)))
    critic.load_state_dict(ckpt["critic"])
    return critic


PHASE_KEYS = {"spent": "endgame", "closed": "closed"}  # phase -> checkpoint entry of its network
PHASE_RECORDS = {"spent": "distill_endgame", "closed": "distill_closed"}  # phase -> how it was made


def phase_entry(net: PhaseNet) -> dict[str, Any]:
    """The checkpoint's ``"endgame"`` (or ``"closed"``) entry for ``net``
    (read back by :func:`phase_net_from`)."""
    return {"hidden": list(net.hidden), "state": net.state_dict()}


def phase_net_from(ckpt: dict[str, Any], path: str | os.PathLike[str] = "<memory>",
                            phase: str = "spent") -> PhaseNet | None:
    """The checkpoint's endgame network for ``phase`` (``"spent"``: the
    ``"endgame"`` entry; ``"closed"``: the ``"closed"`` entry), or None if
    it has none."""
    key = PHASE_KEYS[phase]
    entry = ckpt.get(key)
    if entry is None:
        return None
    validate(ckpt, path)
    net = PhaseNet(entry["hidden"])
    net.load_state_dict(entry["state"])
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
    a checkpoint) with a NaN or an infinity is, e.g. ``"policy['net.0.weight']"``; None if none.
    A tensor it cannot read (not dense, or not on the CPU: :func:`tensor_problem`) is a
    ``ValueError`` naming it."""
    if isinstance(obj, torch.Tensor):
        problem = tensor_problem(obj)
        if problem is not None:
            raise ValueError(f"{where or 'a tensor'} is {problem}")
        return where if obj.is_floating_point() and not bool(torch.isfinite(obj).all()) else None
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, (list, tuple)) else ()
    for k, v in items:
        found = nonfinite(v, f"{where}[{k!r}]" if where else str(k))
        if found is not None:
            return found
    return None


def save_atomic(obj: dict[str, Any], path: str | os.PathLike[str]) -> None:
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
