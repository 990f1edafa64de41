"""Sample and row files checked from their npy headers before ``np.load`` allocates (issue 41, item 2).

Each array's header declares its dtype and shape; ``np.load`` allocates that
much before reading a byte of data. A header of another dtype or layout, row
counts that differ, or more bytes declared than the member unpacks to (or the
cap) are a one-line :class:`SampleError` (a ``RowFileError`` for distill's
rows) naming the file; ``--resume`` ends with it in one line, not a
``MemoryError`` traceback.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from helpers import UniformPlayer
from numpy.lib import format as npy

from sixtysix_env.observation import FULL_OBS_SIZE, OBS_SIZE
from training.config import config_from_dict
from training.expert import loop, selfplay
from training.expert.config import ExpertConfig
from training.expert.selfplay import SAMPLE_LAYOUT, SampleError, Samples
from training.phase_rows import RowFileError, load_rows, save_rows

ROOT = Path(__file__).resolve().parents[2]
HUGE = (10**12, 100)


def forged(path: Path, shapes: dict[str, tuple[int, ...]], dtypes: dict[str, str] | None = None) -> Path:
    """An npz of deflated members holding only npy headers (and 4 KiB of zeros) of ``shapes``."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, shape in shapes.items():
            header = io.BytesIO()
            descr = (dtypes or {}).get(name, "<f4")
            npy.write_array_header_1_0(header, {"descr": descr, "fortran_order": False, "shape": shape})
            z.writestr(name + ".npy", header.getvalue() + bytes(4096))
    return path


def layout(rows: int) -> dict[str, tuple[int, ...]]:
    return {name: (rows, *member.shape) for name, member in SAMPLE_LAYOUT.items()}


DTYPES = {"masks": "|b1", "deal": "<i4"}


def sample_error(path: Path) -> str:
    with pytest.raises(SampleError) as info:
        Samples.load(path)
    message = str(info.value)
    assert message.startswith(f"sample file {path} cannot be read: ") and "\n" not in message
    return message


def test_a_header_of_a_trillion_rows_of_another_width_is_refused(tmp_path: Path) -> None:
    path = forged(tmp_path / "s.npz", dict.fromkeys(SAMPLE_LAYOUT, HUGE))
    assert "array 'obs' has shape (1000000000000, 100), not (rows, 312)" in sample_error(path)


def test_a_header_of_the_right_layout_declaring_more_than_its_member_is_refused(tmp_path: Path) -> None:
    path = forged(tmp_path / "s.npz", layout(10**9), DTYPES)
    assert "array 'obs' declares 1,248,000,000,000 bytes, its member holds 4,096" in sample_error(path)


def test_row_counts_must_agree_and_dtypes_be_the_written_ones(tmp_path: Path) -> None:
    path = forged(tmp_path / "s.npz", {**layout(1), "value": (2,)}, DTYPES)
    assert "array 'value' has 2 rows, the others 1" in sample_error(path)
    path = forged(tmp_path / "t.npz", layout(1), {**DTYPES, "masks": "<f8"})
    assert "array 'masks' is of dtype float64, not bool" in sample_error(path)
    path = forged(tmp_path / "u.npz", {"obs": (1, OBS_SIZE)})
    assert "it has no array 'masks'" in sample_error(path)


def test_a_sample_file_that_unpacks_beyond_the_cap_is_refused(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    masks = np.zeros((3, 32), np.bool_)
    masks[:, 0] = True
    samples = Samples(obs=np.zeros((3, OBS_SIZE), np.float32), masks=masks, policy=masks.astype(np.float32),
                      full=np.zeros((3, FULL_OBS_SIZE), np.float32), value=np.zeros(3, np.float32),
                      deal=np.zeros(3, np.int32))
    path = tmp_path / "s.npz"
    samples.save(path)
    assert len(Samples.load(path)) == len(samples)
    monkeypatch.setattr(selfplay, "MAX_SAMPLE_UNPACKED", 1000)
    assert "its arrays unpack to more than 1,000 bytes" in sample_error(path)


def test_a_row_file_of_distill_is_checked_the_same_way(tmp_path: Path) -> None:
    path = forged(tmp_path / "rows.npz", {"obs": HUGE, "legal": HUGE, "values": HUGE})
    with pytest.raises(RowFileError, match="rows do not fit.*'obs' has shape"):
        load_rows(path)
    rows = {"obs": np.zeros((2, OBS_SIZE), np.float32), "legal": np.ones((2, 32), np.float32),
            "values": np.zeros((2, 32), np.float32)}
    save_rows(rows, tmp_path / "ok.npz", "spent")
    assert load_rows(tmp_path / "ok.npz")["obs"].shape == (2, OBS_SIZE)


def test_resume_with_a_forged_sample_file_ends_in_one_line(tmp_path: Path) -> None:
    keys = {"deals": 2, "chunk": 1, "worlds": 1, "hidden": [16], "critic_hidden": [16], "batch_size": 8,
            "eval_every": 0, "eval_heuristic_games": 0, "eval_pimc_games": 0, "progress": False,
            "tensorboard": False, "run_dir": str(tmp_path), "iterations": 1}
    loop.train(config_from_dict(keys, schema=ExpertConfig), player=UniformPlayer())
    sample = tmp_path / "expert" / "samples" / "000001.npz"
    forged(sample, dict.fromkeys(SAMPLE_LAYOUT, HUGE))
    command = [sys.executable, "-m", "training.expert", "--config", str(ROOT / "configs" / "expert.yaml"),
               "--resume", f"run_dir={tmp_path}", "iterations=2"]
    r = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300, check=False,
                       env={**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"})
    assert r.returncode == 2 and "Traceback" not in r.stderr and "MemoryError" not in r.stderr
    assert r.stderr.count("\n") == 1 and r.stderr.startswith(f"error: --resume: sample file {sample}")
    assert "(1000000000000, 100)" in r.stderr
