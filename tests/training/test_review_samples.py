"""Review of issue 41's sample and row file checks: hostile files that passed them before.

- a member called ``obs`` beside a checked ``obs.npy``: ``np.load``'s ``z["obs"]`` reads the
  member of exactly that name, which the header check never looked at;
- a row file (``training.distill --data``) declaring more than 4 GiB: its cap was 64 GiB, so a
  deflated file of a few MiB could make ``np.load`` allocate and fill tens of GiB.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pytest
from numpy.lib import format as npy

from sixtysix_env.actions import N_ACTIONS
from sixtysix_env.observation import FULL_OBS_SIZE, OBS_SIZE
from training.expert.selfplay import SampleError, Samples
from training.phase_rows import RowFileError, load_rows, save_rows

SHADOW = (3_500_000, OBS_SIZE)  # 4.4 GB of float32, declared by a header of 128 bytes


def npy_header(shape: tuple[int, ...], descr: str = "<f4") -> bytes:
    out = io.BytesIO()
    npy.write_array_header_1_0(out, {"descr": descr, "fortran_order": False, "shape": shape})
    return out.getvalue()


def with_shadow(path: Path) -> Path:
    """``path`` (a valid npz) with a member ``obs`` (no ``.npy``) declaring :data:`SHADOW`."""
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as z:
        z.writestr("obs", npy_header(SHADOW) + bytes(4096))
    return path


def test_a_row_file_member_shadowing_a_checked_array_is_checked(tmp_path: Path) -> None:
    rows = {"obs": np.zeros((2, OBS_SIZE), np.float32), "legal": np.ones((2, N_ACTIONS), np.float32),
            "values": np.zeros((2, N_ACTIONS), np.float32)}
    save_rows(rows, tmp_path / "rows.npz", "spent")
    path = with_shadow(tmp_path / "rows.npz")
    with pytest.raises(RowFileError, match=r"'obs' (has shape|declares)") as e:
        load_rows(path)
    assert str(path) in str(e.value)


def test_a_sample_member_shadowing_a_checked_array_is_checked(tmp_path: Path) -> None:
    n = 2
    masks = np.ones((n, N_ACTIONS), bool)
    samples = Samples(obs=np.zeros((n, OBS_SIZE), np.float32), masks=masks,
                      policy=masks / masks.sum(1, keepdims=True, dtype=np.float32),
                      full=np.zeros((n, FULL_OBS_SIZE), np.float32), value=np.zeros(n, np.float32),
                      deal=np.zeros(n, np.int32))
    samples.save(tmp_path / "s.npz")
    path = with_shadow(tmp_path / "s.npz")
    with pytest.raises(SampleError, match=r"cannot be read: array 'obs'"):
        Samples.load(path)


def test_a_row_file_declaring_more_than_4_gib_is_refused_by_its_headers(tmp_path: Path) -> None:
    rows = 3_500_000
    path = tmp_path / "big.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, width in (("obs", OBS_SIZE), ("legal", N_ACTIONS), ("values", N_ACTIONS)):
            with z.open(name + ".npy", "w", force_zip64=True) as m:
                m.write(npy_header((rows, width)) + bytes(1000))
        for info in z.infolist():  # the directory declares the sizes a real file of these rows has
            info.file_size = 128 + rows * (OBS_SIZE if info.filename == "obs.npy" else N_ACTIONS) * 4
    assert path.stat().st_size < 10_000
    with pytest.raises(RowFileError, match="unpack to more than 4,294,967,296 bytes") as e:
        load_rows(path)
    assert str(path) in str(e.value)
