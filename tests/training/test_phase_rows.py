"""training.phase_rows: row files from elsewhere are checked before anything is fitted on them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sixtysix_env.actions import N_ACTIONS
from sixtysix_env.observation import OBS_SIZE
from training.phase_rows import RowFileError, load_rows, save_rows


def good(n: int = 3) -> dict[str, np.ndarray]:
    legal = np.zeros((n, N_ACTIONS), dtype=bool)
    legal[:, :2] = True
    return {"obs": np.zeros((n, OBS_SIZE), np.float32), "legal": legal,
            "values": np.ones((n, N_ACTIONS), np.float32)}


def test_saved_rows_load_back_in_their_working_dtypes(tmp_path: Path) -> None:
    path = tmp_path / "rows.npz"
    rows = good()
    rows["legal"] = rows["legal"].astype(np.int8)  # 0/1 of another integer type reads as bool
    save_rows(rows, path, "closed", "guided")
    back = load_rows(path, "closed", "guided")
    dtypes = {"obs": np.float32, "legal": np.bool_, "values": np.float32}
    assert {k: v.dtype for k, v in back.items()} == dtypes
    assert np.array_equal(back["legal"], rows["legal"].astype(bool))
    empty = tmp_path / "empty.npz"
    save_rows(good(0), empty, "spent")
    assert len(load_rows(empty)["obs"]) == 0


def _nan_values(r: dict[str, Any]) -> None:
    r["values"][1, 0] = np.nan


def _inf_obs(r: dict[str, Any]) -> None:
    r["obs"][0, 0] = np.inf


def _huge_value(r: dict[str, Any]) -> None:
    r["values"][2, 3] = 1e30


def _legal_two(r: dict[str, Any]) -> None:
    r["legal"] = r["legal"].astype(np.int64)
    r["legal"][0, 5] = 2


def _no_legal_move(r: dict[str, Any]) -> None:
    r["legal"][1] = False


def _strings(r: dict[str, Any]) -> None:
    r["values"] = np.full((3, N_ACTIONS), "x")


def _complex(r: dict[str, Any]) -> None:
    r["obs"] = r["obs"].astype(np.complex64)


def _scalar_obs(r: dict[str, Any]) -> None:
    r["obs"] = np.array(5.0)


def _short_rows(r: dict[str, Any]) -> None:
    r["values"] = r["values"][:2]


def _old_obs_size(r: dict[str, Any]) -> None:
    r["obs"] = np.zeros((3, OBS_SIZE - 1), np.float32)


def _three_dims(r: dict[str, Any]) -> None:
    r["legal"] = r["legal"][None]


@pytest.mark.parametrize(("spoil", "message"), [
    (_nan_values, "NaN or infinities"),
    (_inf_obs, "NaN or infinities"),
    (_huge_value, "outside -3..3 game points"),
    (_legal_two, "other than 0 and 1"),
    (_no_legal_move, "a row without a legal move"),
    (_strings, "not numbers"),
    (_complex, "not numbers"),
    (_scalar_obs, "do not fit"),
    (_short_rows, "do not fit"),
    (_old_obs_size, "do not fit"),
    (_three_dims, "do not fit"),
])
def test_a_spoiled_file_is_a_named_error(tmp_path: Path, spoil: Any, message: str) -> None:
    rows = good()
    spoil(rows)
    path = tmp_path / "bad.npz"
    np.savez(path, phase=np.array("spent"), **rows)
    with pytest.raises(RowFileError, match=message):
        load_rows(path)


def test_pickled_arrays_are_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "pickle.npz"
    rows: dict[str, Any] = good()
    rows["obs"] = np.array([object()] * 3, dtype=object)
    np.savez(path, **rows)
    with pytest.raises(RowFileError, match="is not a file of endgame rows"):
        load_rows(path)


@pytest.mark.parametrize("content", [b"", b"PK\x03\x04 truncated", b"\x93NUMPY not an npz"])
def test_a_file_that_is_no_npz_is_a_named_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "junk.npz"
    path.write_bytes(content)
    with pytest.raises(RowFileError, match="is not a file of endgame rows"):
        load_rows(path)


def test_other_phase_or_labels_are_named_and_a_long_name_is_cut(tmp_path: Path) -> None:
    path = tmp_path / "rows.npz"
    save_rows(good(), path, "closed")
    with pytest.raises(RowFileError, match="holds rows of --phase closed, not spent"):
        load_rows(path, "spent")
    with pytest.raises(RowFileError, match="holds rows of --labels uniform, not guided"):
        load_rows(path, "closed", "guided")
    np.savez(path, phase=np.array("z" * 10_000), **good())
    with pytest.raises(RowFileError) as e:
        load_rows(path)
    assert len(str(e.value)) < 200
