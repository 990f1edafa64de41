"""The row files of :mod:`training.distill`: positions of one phase with their labels.

A row is an observation (``obs``), its legal moves (``legal``, one 0/1 per
action) and the label, a value in game points for every legal move
(``values``). A file (``.npz``, written atomically) also names its phase and
how its labels were made, so rows of another phase or other labels are never
fitted together by mistake; files are read without pickles (``np.load``'s
default) and checked like any file from elsewhere (a regular file, never a
fifo to wait on; shapes, kinds of number, finite and bounded values, a legal
move in every row): a bad one is refused in one line and runs nothing.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agents.arena.inputs import NotRegularFile, open_regular
from sixtysix_env.actions import N_ACTIONS
from sixtysix_env.observation import OBS_SIZE
from training.npz_check import Member, ShapeError, check_npz

ROW_KEYS = ("obs", "legal", "values")
LABELS = ("uniform", "guided")  # how a closed-talon row's worlds are weighted (distill's --labels)


def join(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Several sets of rows as one, in order."""
    return {k: np.concatenate([p[k] for p in parts]) for k in ROW_KEYS}


MAX_ROW_BYTES = 1 << 36  # a row file is read whole; beyond this it is no file of rows (millions fit below)
MAX_ROW_UNPACKED = 1 << 32  # what a row file's arrays may unpack to, as a sample file's (~2.7 million rows)
MAX_VALUE = 3.0  # game points: no deal is worth more, so a label beyond is a forged or broken file
DTYPES: dict[str, type] = {"obs": np.float32, "legal": np.bool_, "values": np.float32}
NUMBERS = "biuf"  # the dtype kinds a row file's arrays may have (cast to DTYPES when read)
LAYOUT = {"obs": Member((OBS_SIZE,), kinds=NUMBERS, what="numbers"),
          "legal": Member((N_ACTIONS,), kinds=NUMBERS, what="numbers"),
          "values": Member((N_ACTIONS,), kinds=NUMBERS, what="numbers"),
          "phase": Member((), kinds="U", rows=False, optional=True),
          "labels": Member((), kinds="U", rows=False, optional=True)}


class RowFileError(ValueError):
    """A ``--data`` file that is not rows this version can fit: named, in one line."""


def load_rows(path: Path, phase: str = "spent", labels: str = "uniform") -> dict[str, np.ndarray]:
    """Rows saved by an earlier run (``--data``), checked as a file from elsewhere: a bad file, one
    of the other phase or labels, arrays of the wrong shape or kind, non-finite or huge values, or
    rows without a legal move are a :class:`RowFileError` (files without a phase are "spent",
    without labels "uniform")."""
    try:
        with open_regular(path, MAX_ROW_BYTES) as raw:
            check_npz(raw, LAYOUT, MAX_ROW_UNPACKED)  # the headers first: np.load allocates what they say
            raw.seek(0)
            with np.load(raw) as f:  # no pickles: never run
                rows = {k: np.asarray(f[k]) for k in ROW_KEYS}
                stored = str(f["phase"]) if "phase" in f.files else "spent"
                stored_labels = str(f["labels"]) if "labels" in f.files else "uniform"
    except NotRegularFile as e:  # a fifo would block the reader, a device never end
        raise RowFileError(f"--data {path}: {e.strerror}") from None
    except ShapeError as e:
        raise RowFileError(f"--data {path}: rows do not fit this version's observation size {OBS_SIZE} "
                           f"({e})") from None
    except Exception as e:  # missing keys, not an npz, truncated, pickled arrays
        raise RowFileError(f"--data {path} is not a file of endgame rows: {e}") from None
    if stored != phase:
        raise RowFileError(f"--data {path} holds rows of --phase {stored[:40]}, not {phase}")
    if stored_labels != labels:
        raise RowFileError(f"--data {path} holds rows of --labels {stored_labels[:40]}, not {labels}")
    return _checked(rows, path)


def _checked(rows: dict[str, np.ndarray], path: Path) -> dict[str, np.ndarray]:
    """The rows in their working dtypes, or a :class:`RowFileError` naming the first problem."""
    obs, legal, values = (rows[k] for k in ROW_KEYS)
    n = len(obs) if obs.ndim else -1
    if obs.shape != (n, OBS_SIZE) or legal.shape != (n, N_ACTIONS) or values.shape != (n, N_ACTIONS):
        raise RowFileError(f"--data {path}: rows do not fit this version's observation size {OBS_SIZE} "
                           f"(obs {obs.shape}, legal {legal.shape}, values {values.shape})")
    for k, a in rows.items():
        if a.dtype.kind not in "biuf":
            raise RowFileError(f"--data {path}: {k} holds {a.dtype}, not numbers")
    if not (np.isfinite(obs).all() and np.isfinite(values).all()):
        raise RowFileError(f"--data {path}: obs or values hold NaN or infinities")
    if np.abs(values).max(initial=0.0) > MAX_VALUE:
        raise RowFileError(f"--data {path}: a value outside -{MAX_VALUE:g}..{MAX_VALUE:g} game points")
    if not np.isin(legal, (0, 1)).all():
        raise RowFileError(f"--data {path}: legal holds something other than 0 and 1")
    out: dict[str, np.ndarray] = {k: rows[k].astype(t, copy=False) for k, t in DTYPES.items()}
    if n and not out["legal"].any(axis=1).all():
        raise RowFileError(f"--data {path}: a row without a legal move")
    return out


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
