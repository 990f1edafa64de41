"""Review of issue 41's checkpoint checks: hostile files that passed them before.

- an old (pre-zip) torch file with an empty zip appended: the directory check saw no members,
  ``torch.load`` then took the legacy path, which allocates whatever a storage declares;
- a zip with bytes before it or a second directory: ZipFile reads the directory before the end
  record, torch's reader where the end record says;
- a tensor viewing one stored value a billion times (stride 0): the NaN scan allocated its size;
- a list shared twice at each of 64 levels: the NaN scan (and a message's ``str``) never ended.
"""

from __future__ import annotations

import io
import pickle
import signal
import struct
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from agents.core import checkpoint
from agents.core.checkpoint import CheckpointError
from agents.core.nets import PolicyNet
from sixtysix_env.observation import OBS_SIZE


def small() -> dict:
    torch.manual_seed(0)
    return checkpoint.build({"hidden": [8]}, PolicyNet(OBS_SIZE, [8]))


def empty_zip() -> bytes:
    out = io.BytesIO()
    zipfile.ZipFile(out, "w").close()
    return out.getvalue()


@pytest.fixture
def deadline() -> Iterator[None]:
    """Fail, rather than hang, a load that does not end within 20 s."""
    def expired(*_: object) -> None:
        raise TimeoutError("the load did not end")
    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def test_legacy_torch_file_with_an_empty_zip_appended_is_refused_unread(tmp_path: Path) -> None:
    buf = io.BytesIO()
    torch.save(small(), buf, _use_new_zipfile_serialization=False)
    path = tmp_path / "legacy.pt"
    path.write_bytes(buf.getvalue() + empty_zip())
    with pytest.raises(CheckpointError, match="refused unread: not a zip file") as e:
        checkpoint.load(path)
    assert str(path) in str(e.value) and "\n" not in str(e.value)


def test_legacy_storage_declaring_gigabytes_is_never_allocated(tmp_path: Path) -> None:
    class Declares(pickle.Pickler):
        def persistent_id(self, obj: object) -> object:
            return ("storage", torch.FloatStorage, "0", "cpu", 2**40, None) if obj == "S" else None

    from torch.serialization import MAGIC_NUMBER, PROTOCOL_VERSION
    buf = io.BytesIO()
    for value in (MAGIC_NUMBER, PROTOCOL_VERSION,
                  {"protocol_version": PROTOCOL_VERSION, "little_endian": True,
                   "type_sizes": {"short": 2, "int": 4, "long": 4}}):
        pickle.dump(value, buf, protocol=2)
    Declares(buf, protocol=2).dump({"t": "S"})
    pickle.dump(["0"], buf, protocol=2)
    path = tmp_path / "declares.pt"
    path.write_bytes(buf.getvalue() + bytes(8) + empty_zip())
    with pytest.raises(CheckpointError, match="refused unread: not a zip file"):
        checkpoint.load(path)


def test_zip_after_other_bytes_is_refused(tmp_path: Path) -> None:
    buf = io.BytesIO()
    torch.save(small(), buf)
    path = tmp_path / "prefixed.pt"
    path.write_bytes(b"PK\x03\x04" + bytes(60) + buf.getvalue())  # starts like a zip, the zip after
    with pytest.raises(CheckpointError, match="refused unread: its zip(64 locator| directory is not where)"):
        checkpoint.load(path)


def test_zip64_locator_pointing_elsewhere_is_refused(tmp_path: Path) -> None:
    buf = io.BytesIO()
    torch.save(small(), buf)
    data = buf.getvalue()
    end = data.rindex(zipfile.stringEndArchive64Locator)
    assert end == len(data) - 22 - 20  # torch.save writes zip64 records
    sig, disk, offset, disks = struct.unpack(zipfile.structEndArchive64Locator, data[end:end + 20])
    forged = struct.pack(zipfile.structEndArchive64Locator, sig, disk, offset - 56, disks)
    path = tmp_path / "locator.pt"
    path.write_bytes(data[:end] + forged + data[end + 20:])
    with pytest.raises(CheckpointError, match="zip64 locator points elsewhere"):
        checkpoint.load(path)


def test_repeating_view_is_refused_before_the_nan_scan(tmp_path: Path) -> None:
    ckpt = small()
    ckpt["extra"] = torch.zeros(1).expand(100_000, 100_000)  # 40 GB from one stored float
    path = tmp_path / "view.pt"
    torch.save(ckpt, path)
    assert path.stat().st_size < 100_000
    with pytest.raises(CheckpointError, match="a repeating view") as e:
        checkpoint.load(path)
    assert str(path) in str(e.value)


@pytest.mark.parametrize("key", ["extra", "version", "obs_size"])
def test_shared_nested_lists_end_the_walk(tmp_path: Path, key: str, deadline: None) -> None:
    ckpt = small()
    shared: list = []
    for _ in range(64):
        shared = [shared, shared]
    ckpt[key] = shared
    path = tmp_path / "shared.pt"
    torch.save(ckpt, path)
    with pytest.raises(CheckpointError) as e:
        checkpoint.load(path)
    assert str(path) in str(e.value) and len(str(e.value)) < 400


def test_a_plain_checkpoint_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "ok.pt"
    checkpoint.save_atomic(small(), path)
    assert checkpoint.load(path)["format"] == checkpoint.FORMAT
