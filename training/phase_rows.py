"""The row files of :mod:`training.distill`: positions of one phase with their labels.

A row is an observation (``obs``), its legal moves (``legal``, one 0/1 per
action) and the label, a value in game points for every legal move
(``values``). A file (``.npz``, written atomically) also names its phase and
how its labels were made, so rows of another phase or other labels are never
fitted together by mistake; files are read without pickles (``np.load``'s
default), so a file from elsewhere can be refused but runs nothing.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sixtysix_env.actions import N_ACTIONS
from sixtysix_env.observation import OBS_SIZE

ROW_KEYS = ("obs", "legal", "values")
LABELS = ("uniform", "guided")  # how a closed-talon row's worlds are weighted (distill's --labels)


def join(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Several sets of rows as one, in order."""
    return {k: np.concatenate([p[k] for p in parts]) for k in ROW_KEYS}


def load_rows(path: Path, phase: str = "spent", labels: str = "uniform") -> dict[str, np.ndarray]:
    """Rows saved by an earlier run (``--data``); a bad file, or one of the
    other phase or labels, is a clear error (files without a phase are
    "spent", without labels "uniform")."""
    try:
        with np.load(path) as f:
            rows = {k: f[k] for k in ROW_KEYS}
            stored = str(f["phase"]) if "phase" in f.files else "spent"
            stored_labels = str(f["labels"]) if "labels" in f.files else "uniform"
    except Exception as e:  # missing keys, not an npz, truncated
        raise ValueError(f"--data {path} is not a file of endgame rows: {e}") from None
    if stored != phase:
        raise ValueError(f"--data {path} holds rows of --phase {stored}, not {phase}")
    if stored_labels != labels:
        raise ValueError(f"--data {path} holds rows of --labels {stored_labels}, not {labels}")
    n = len(rows["obs"])
    if rows["obs"].shape != (n, OBS_SIZE) or rows["legal"].shape != (n, N_ACTIONS) \
            or rows["values"].shape != (n, N_ACTIONS):
        raise ValueError(f"--data {path}: rows do not fit this version's observation size {OBS_SIZE}")
    return rows


def save_rows(rows: dict[str, np.ndarray], path: Path, phase: str, labels: str = "uniform") -> None:
    """Write ``rows`` (with their phase and labels) atomically, for a later ``--data``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, phase=np.array(phase), labels=np.array(labels), **rows)  # type: ignore[arg-type]  # numpy stub: **rows may name allow_pickle
    tmp.replace(path)


def unique_rows(rows: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The rows with repeated observations dropped (the replayed lines of a
    deal start from the same position), first occurrences kept in order."""
    seen: set[bytes] = set()
    keep = []
    for i, x in enumerate(rows["obs"]):
        b = x.tobytes()
        if b not in seen:
            seen.add(b)
            keep.append(i)
    return {k: v[keep] for k, v in rows.items()}
