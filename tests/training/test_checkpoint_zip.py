"""A checkpoint's zip directory is checked before anything is unpacked (issue 41, item 2).

``torch.save`` stores its members as they are; a member compressed with
deflate may unpack to 1000 times the file, and a directory may declare any
size. Either is refused, one line naming the file, before ``torch.load``
allocates anything.
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest
import torch

from agents.core import checkpoint
from agents.core.checkpoint import CheckpointError, check_members, zip_directory
from agents.core.nets import PolicyNet
from sixtysix_env.observation import OBS_SIZE

ROOT = Path(__file__).resolve().parents[2]
BOMB = 256 * 2**20  # bytes the compressed member unpacks to: far beyond what the test lets the loader take


def saved(path: Path) -> Path:
    torch.manual_seed(0)
    checkpoint.save_atomic(checkpoint.build({"hidden": [8]}, PolicyNet(OBS_SIZE, [8])), path)
    return path


def bomb(tmp_path: Path) -> Path:
    """A torch.save'd checkpoint rewritten with its first tensor's member deflated to ``BOMB`` zeros."""
    src = saved(tmp_path / "src.pt")
    out = tmp_path / "bomb.pt"
    with zipfile.ZipFile(src) as z, zipfile.ZipFile(out, "w") as w:
        for info in z.infolist():
            if info.filename.endswith("/data/0"):
                deflated = zipfile.ZipInfo(info.filename)
                deflated.compress_type = zipfile.ZIP_DEFLATED
                with w.open(deflated, "w", force_zip64=True) as member:
                    zeros = bytes(2**20)
                    for _ in range(BOMB // len(zeros)):
                        member.write(zeros)
            else:
                w.writestr(info, z.read(info))
    return out


def test_a_small_file_with_a_deflated_huge_tensor_is_refused_without_allocating(tmp_path: Path) -> None:
    path = bomb(tmp_path)
    assert path.stat().st_size < 2**20  # 256 MiB of zeros in well under a MiB
    script = textwrap.dedent(f"""
        import resource, torch
        torch.set_num_threads(1)
        from agents.core import checkpoint
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        try:
            checkpoint.load({str(path)!r})
        except checkpoint.CheckpointError as e:
            print(e)
        print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120,
                       env={"PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"},
                       check=False)
    message, grown_mib = r.stdout.strip().splitlines()
    assert message.startswith(f"checkpoint {path} is corrupt or not a sixtysix PPO checkpoint, refused")
    assert "is compressed" in message and r.returncode == 0, r.stderr
    assert int(grown_mib) < 32  # the peak memory hardly moved: nothing was unpacked


def test_the_same_checkpoint_stored_as_torch_writes_it_loads(tmp_path: Path) -> None:
    path = saved(tmp_path / "ok.pt")
    with path.open("rb") as f:
        check_members(zip_directory(f))
    assert checkpoint.load(path)["policy"]


def stored(name: str, size: int, compressed: int | None = None) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.file_size, info.compress_size = size, size if compressed is None else compressed
    return info


@pytest.mark.parametrize(("members", "says"), [
    ([stored("a/data/0", checkpoint.MAX_BYTES + 1)], "more than 512 MiB in all"),
    ([stored("a/data/0", checkpoint.MAX_BYTES // 2 + 1)] * 2, "more than 512 MiB in all"),  # overlapping
    ([stored("a/data/0", 2**40, 10)], "declares 1,099,511,627,776 bytes but stores 10"),
])
def test_members_declaring_more_than_the_cap_are_refused(members: list[zipfile.ZipInfo], says: str) -> None:
    with pytest.raises(ValueError, match=says):
        check_members(members)


def patched_size(path: Path, member: str, size: int) -> None:
    """Write ``size`` into the central directory's sizes of ``member`` (a hostile directory)."""
    data = bytearray(path.read_bytes())
    at = data.rindex(b"PK\x01\x02", 0, data.rindex(member.encode()) + 1)
    data[at + 20:at + 28] = size.to_bytes(4, "little") * 2  # compressed size, uncompressed size
    path.write_bytes(bytes(data))


def test_a_directory_that_declares_a_huge_member_is_a_named_line(tmp_path: Path) -> None:
    path = saved(tmp_path / "big.pt")
    patched_size(path, "data/0", 2**31)
    with pytest.raises(CheckpointError) as info:
        checkpoint.load(path)
    assert str(path) in str(info.value) and "more than 512 MiB" in str(info.value)
    assert "\n" not in str(info.value)


def test_a_huge_zip_directory_is_refused_before_zipfile_reads_it(tmp_path: Path) -> None:
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as z:
        for i in range(100):
            z.writestr(f"m{i}", b"")
    data.seek(0)
    with pytest.raises(ValueError, match="zip directory declares"):
        zip_directory(data, max_directory=1000)
    assert len(zip_directory(data)) == 100


@pytest.mark.parametrize("content", [b"", b"not a zip", b"PK\x05\x06" + bytes(18)])
def test_what_is_not_a_zip_is_one_named_line(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "x.pt"
    path.write_bytes(content)
    named = re.escape(f"checkpoint {path} is corrupt or not a sixtysix PPO")
    with pytest.raises(CheckpointError, match=named):
        checkpoint.load(path)
