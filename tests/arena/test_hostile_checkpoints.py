"""``ppo:<path>`` on checkpoint files from elsewhere: code in a pickle never runs, and every odd file
(a folder, a fifo, an endless device, a pickle with code) is one line that names it, on stderr alone."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


class Payload:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _arena(tmp_path: Path, spec: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "sixtysix_cli", "arena", "random", spec, "--games", "2", "--unit", "deal",
           "--no-progress"]
    return subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)


@pytest.mark.parametrize("kind, says", [
    ("code", "is corrupt or not a sixtysix PPO checkpoint, refused unread: not a zip file"),
    ("folder", "is not a regular file"),
    ("fifo", "is not a regular file"),
    ("device", "is not a regular file"),
])
def test_a_hostile_checkpoint_is_one_named_line(tmp_path, kind, says):
    path, marker = tmp_path / "x.pt", tmp_path / "PWNED"
    if kind == "code":
        path.write_bytes(pickle.dumps({"config": Payload(marker)}))
    elif kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    r = _arena(tmp_path, "ppo:x.pt")
    assert r.returncode != 0 and not marker.exists()
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"sixtysix arena: error: checkpoint x.pt {says}"), lines
